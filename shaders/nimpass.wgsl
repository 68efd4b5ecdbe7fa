// Four-heap Nim with a pass, one level of the wavefront over the prefix sum t = a0+a1+a2
// (CPU twin: pass::nimpass::wavefront::nimpass_level, same buffers).
//
// Each invocation owns one prefix (a0,a1,a2) of sum t. It ORs the three line rows through
// it (family 0: (a1,a2), family 1: (a0,a2), family 2: (a0,a1); bit 31 of word 0 = value 0),
// blocks a3 = a0^a1^a2 (nim-sum zero: the pass wins) unless the prefix is (0,0,0), and the
// first free a3 is the line's P-position with the pass available. It records a3 as a u16 in
// `last` and sets its bit in the three rows. Prefixes of one sum share no row, and the two
// prefixes sharing a u32 of `last` (numbers 2k and 2k+1) never have the same sum: their a2
// differ by one, or 2k ends a row (a2 = side-1, side odd) and the sums differ by side-2 > 0.

struct Params {
    side: u32,
    words_per_row: u32,
    level: u32,
    groups_x: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> lines: array<u32>;
@group(0) @binding(2) var<storage, read_write> last: array<u32>;

@compute @workgroup_size(256)
fn nimpass_level(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let side = params.side;
    let idx = (wg.y * params.groups_x + wg.x) * 256u + li;
    if (idx >= side * side) {
        return;
    }
    let a0 = idx / side;
    let a1 = idx - a0 * side;
    if (a0 + a1 > params.level || params.level - a0 - a1 >= side) {
        return;
    }
    let a2 = params.level - a0 - a1;
    let wpr = params.words_per_row;
    let r0 = a1 * side + a2;
    let r1 = side * side + a0 * side + a2;
    let r2 = 2u * side * side + a0 * side + a1;
    let s = a0 ^ a1 ^ a2;
    let terminal = (a0 | a1 | a2) == 0u;
    var found = 0xFFFFu;
    for (var w = 0u; w < wpr; w++) {
        var blocked = lines[r0 * wpr + w] | lines[r1 * wpr + w] | lines[r2 * wpr + w];
        if (!terminal && s / 32u == w) {
            blocked |= 0x80000000u >> (s % 32u);
        }
        if (w == wpr - 1u && side % 32u != 0u) {
            blocked |= 0xFFFFFFFFu >> (side % 32u);
        }
        if (blocked != 0xFFFFFFFFu) {
            found = w * 32u + countLeadingZeros(~blocked);
            break;
        }
    }
    if (found != 0xFFFFu) {
        let bit = 0x80000000u >> (found % 32u);
        let w = found / 32u;
        lines[r0 * wpr + w] |= bit;
        lines[r1 * wpr + w] |= bit;
        lines[r2 * wpr + w] |= bit;
    }
    let p = (a0 * side + a1) * side + a2;
    let shift = 16u * (p % 2u);
    last[p / 2u] = (last[p / 2u] & ~(0xFFFFu << shift)) | (found << shift);
}
