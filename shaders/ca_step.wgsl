// One step of the second-order automaton of docs/mathematics.md §3 on a band of rows (CPU twin:
// chocolate::automaton::ca_step, the same rule on u64 words):
//
//   b_{n+1}(i,j) = b_n(i,j) ^ b_n(i-1,j) ^ b_n(i,j-1) ^ b_n(i-1,j-1) ^ b_{n-1}(i-1,j-1)
//
// Rows are `stride` u32 words, bit 31 = leftmost cell. With t = row_i(b_n) ^ row_{i-1}(b_n) and
// s = t ^ row_{i-1}(b_{n-1}), the new word is t ^ (s >> 1) ^ (s of the word to the left << 31).
//
// One invocation owns one word column of ROWS consecutive rows: it keeps row i-1 of b_n in a
// register while walking down, so b_n is read once per word, and neighbouring invocations read
// neighbouring words (coalesced). The host binds, for a band of rows [row0, row0+rows), the
// rows [row0-halo, row0+rows) of b_{n-1} and b_n (halo = 1 except for the first band, whose
// row -1 is zero) and the rows [row0, row0+rows) of b_{n+1}. Only the active square is
// dispatched: `rows` and `words` shrink to the generation.

// The parameters of both automaton kernels (one struct on the host); `steps` is the block
// kernel's and is one here.
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

const ROWS: u32 = 8u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> prev: array<u32>;
@group(0) @binding(2) var<storage, read> cur: array<u32>;
@group(0) @binding(3) var<storage, read_write> next: array<u32>;

@compute @workgroup_size(64, 1, 1)
fn ca_step(@builtin(global_invocation_id) gid: vec3<u32>) {
    let w = gid.x;
    let first = gid.y * ROWS;
    if (w >= params.words || first >= params.rows) {
        return;
    }
    let stride = params.stride;
    let has_left = w > 0u;
    let wl = select(0u, w - 1u, has_left);
    // Row first-1 of b_n and b_{n-1} (zero above the grid).
    var a_up = 0u;
    var a_up_l = 0u;
    var p_up = 0u;
    var p_up_l = 0u;
    if (first + params.halo > 0u) {
        let base = (first + params.halo - 1u) * stride;
        a_up = cur[base + w];
        p_up = prev[base + w];
        if (has_left) {
            a_up_l = cur[base + wl];
            p_up_l = prev[base + wl];
        }
    }
    let last = min(first + ROWS, params.rows);
    for (var l = first; l < last; l++) {
        let base = (l + params.halo) * stride;
        let a = cur[base + w];
        var a_l = 0u;
        if (has_left) {
            a_l = cur[base + wl];
        }
        let t = a ^ a_up;
        let s = t ^ p_up;
        let sl = a_l ^ a_up_l ^ p_up_l;
        next[l * stride + w] = t ^ (s >> 1u) ^ (sl << 31u);
        a_up = a;
        a_up_l = a_l;
        p_up = prev[base + w];
        if (has_left) {
            p_up_l = prev[base + wl];
        }
    }
}
