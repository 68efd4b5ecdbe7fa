// Several steps of the second-order automaton of docs/mathematics.md §3 per dispatch (temporal
// blocking). CPU twin: chocolate::automaton::ca_block, the same tiles in the same order of
// operations.
//
//   b_{n+1}(i,j) = b_n(i,j) ^ b_n(i-1,j) ^ b_n(i,j-1) ^ b_n(i-1,j-1) ^ b_{n-1}(i-1,j-1)
//
// A cell depends only on cells above it and to its left. So a workgroup that owns an output
// tile of TILE_ROWS rows × OUT_COLS words can take `steps` ≤ STEPS_MAX steps on its own, in
// workgroup memory, from a copy of b_{n-1} and b_n that reaches STEPS_MAX rows higher and one
// word further left: the copy's first row and first word have no data above or left of them,
// so they go stale, and the staleness creeps one row down and one bit right per step — never
// as far as the output tile (STEPS_MAX ≤ 32 keeps the halo word's last bit exact). Global memory
// is read twice and written twice per block of steps instead of three times per step.
//
// STEPS_MAX and TILE_ROWS are pipeline-overridable constants: the host sets them when it builds
// the pipeline, sized to the device's workgroup memory (chocolate::automaton::BlockShape), so one
// module serves every tile shape. Rows are `stride` u32 words, bit 31 = leftmost cell. For a band of rows
// [row0, row0+rows) the host binds rows [row0-halo, row0+rows) of b_{n-1} and b_n (halo =
// min(STEPS_MAX, row0); rows above row 0 read as zero) and rows [row0, row0+rows) of the two
// outputs, b_{n+steps-1} and b_{n+steps}. `rows` and `words` are the active square of
// b_{n+steps}; nothing outside it is read or written.

struct Params {
    rows: u32,
    words: u32,
    stride: u32,
    halo: u32,
    steps: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

/// Most steps one dispatch takes (≤ 32) and output rows per tile, set by the host; the defaults
/// are the shape for WebGPU's minimum of 16 KiB of workgroup memory.
override STEPS_MAX: u32 = 8u;
override TILE_ROWS: u32 = 13u;

/// Words per tile row in workgroup memory; column 0 is the halo word.
const COLS: u32 = 64u;
const OUT_COLS: u32 = 63u;
/// Invocations down a tile (the workgroup is COLS × LANES_Y).
const LANES_Y: u32 = 4u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> prev_in: array<u32>;
@group(0) @binding(2) var<storage, read> cur_in: array<u32>;
@group(0) @binding(3) var<storage, read_write> prev_out: array<u32>;
@group(0) @binding(4) var<storage, read_write> cur_out: array<u32>;

/// Three generations of the tile (each COLS × (TILE_ROWS + STEPS_MAX) words); their roles
/// rotate every step. An array sized by overrides may live in workgroup memory.
var<workgroup> gens: array<u32, 3u * COLS * (TILE_ROWS + STEPS_MAX)>;

@compute @workgroup_size(64, 4, 1)
fn ca_block(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // Rows of one tile generation (halo included) and words of one generation.
    let in_rows = TILE_ROWS + STEPS_MAX;
    let gen_words = COLS * in_rows;
    let c = lid.x;
    let w0 = wg.x * OUT_COLS;
    let t0 = wg.y * TILE_ROWS;
    // Column c holds grid word w0 + c - 1 (none left of word 0).
    let in_grid = w0 + c >= 1u && w0 + c - 1u < params.words;
    let word = w0 + c - 1u;

    // Tile row r is window row t0 + r + halo - STEPS_MAX; rows above the grid read as zero.
    for (var r = lid.y; r < in_rows; r += LANES_Y) {
        var p = 0u;
        var q = 0u;
        let shifted = t0 + r + params.halo;
        if (in_grid && shifted >= STEPS_MAX && shifted - STEPS_MAX < params.halo + params.rows) {
            let i = (shifted - STEPS_MAX) * params.stride + word;
            p = prev_in[i];
            q = cur_in[i];
        }
        gens[r * COLS + c] = p;
        gens[gen_words + r * COLS + c] = q;
    }
    workgroupBarrier();

    // Invocation row y computes tile rows first..first+span (row 0 has nothing above it).
    let span = (in_rows - 1u + LANES_Y - 1u) / LANES_Y;
    let first = 1u + lid.y * span;
    let last = min(first + span, in_rows);
    var pb = 0u;
    var cb = gen_words;
    var nb = 2u * gen_words;
    for (var s = 0u; s < params.steps; s++) {
        // Walk down from the row above `first`, carrying row r-1 of both generations.
        var a_up = 0u;
        var a_up_l = 0u;
        var p_up = 0u;
        var p_up_l = 0u;
        for (var r = first - 1u; r < last; r++) {
            let at = r * COLS + c;
            let a = gens[cb + at];
            let p = gens[pb + at];
            var a_l = 0u;
            var p_l = 0u;
            if (c > 0u) {
                a_l = gens[cb + at - 1u];
                p_l = gens[pb + at - 1u];
            }
            if (r >= first) {
                let t = a ^ a_up;
                let sv = t ^ p_up;
                let sl = a_l ^ a_up_l ^ p_up_l;
                gens[nb + at] = t ^ (sv >> 1u) ^ (sl << 31u);
            }
            a_up = a;
            a_up_l = a_l;
            p_up = p;
            p_up_l = p_l;
        }
        workgroupBarrier();
        let old = pb;
        pb = cb;
        cb = nb;
        nb = old;
    }

    // The output tile: tile rows STEPS_MAX.., columns 1...
    if (c >= 1u && in_grid) {
        for (var r = STEPS_MAX + lid.y; r < in_rows; r += LANES_Y) {
            let row = t0 + r - STEPS_MAX;
            if (row < params.rows) {
                let i = row * params.stride + word;
                prev_out[i] = gens[pb + r * COLS + c];
                cur_out[i] = gens[cb + r * COLS + c];
            }
        }
    }
}
