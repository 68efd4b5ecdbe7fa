// P-grid of a tile of C(m,n): one invocation writes one u32 word of 32 cells,
// bit 31 = leftmost cell, rows padded to whole words (CPU twin: chocolate::grid::p_rows_cpu).
//
// Coordinates are u64 on the host. The host passes, for the tile's first row and column, the pile
// sizes a = i-1, b = m-i (rows) and a = j-1, b = n-j (columns) as (lo, hi) u32 pairs; inside the
// tile offsets are u32, so i-1 = a + r and m-i = b - r need one carry or borrow. Cell (i,j) is P
// iff (i-1)^(m-i) == (j-1)^(n-j) (docs/mathematics.md §1), compared as 64-bit pairs.

struct Params {
    row_a: vec2<u32>,
    row_b: vec2<u32>,
    col_a: vec2<u32>,
    col_b: vec2<u32>,
    height: u32,
    width: u32,
    words_per_row: u32,
    groups_x: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> words: array<u32>;

fn add64(a: vec2<u32>, k: u32) -> vec2<u32> {
    let lo = a.x + k;
    return vec2<u32>(lo, a.y + select(0u, 1u, lo < k));
}

fn sub64(a: vec2<u32>, k: u32) -> vec2<u32> {
    return vec2<u32>(a.x - k, a.y - select(0u, 1u, a.x < k));
}

// (a+k) ^ (b-k): the row key r(i) or the column key c(j) at offset k.
fn pile_key(a: vec2<u32>, b: vec2<u32>, k: u32) -> vec2<u32> {
    return add64(a, k) ^ sub64(b, k);
}

@compute @workgroup_size(256)
fn p_rows(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let idx = (wg.y * params.groups_x + wg.x) * 256u + li;
    if (idx >= params.height * params.words_per_row) {
        return;
    }
    let r = idx / params.words_per_row;
    let w = idx - r * params.words_per_row;
    let rk = pile_key(params.row_a, params.row_b, r);
    let c0 = w * 32u;
    let cells = min(32u, params.width - c0);
    let a = add64(params.col_a, c0);
    let b = sub64(params.col_b, c0);
    var word = 0u;
    if (a.x <= 0xffffffffu - 31u && b.x >= 31u) {
        // No carry or borrow inside this word: the high halves of j-1 and n-j are fixed, so
        // the word is empty unless their nim-sum matches the row key's, and the low halves
        // decide each cell with one add, one subtract and one compare.
        if ((a.y ^ b.y) == rk.y) {
            for (var k = 0u; k < cells; k++) {
                if (((a.x + k) ^ (b.x - k)) == rk.x) {
                    word |= 0x80000000u >> k;
                }
            }
        }
    } else {
        for (var k = 0u; k < cells; k++) {
            if (all(pile_key(a, b, k) == rk)) {
                word |= 0x80000000u >> k;
            }
        }
    }
    words[idx] = word;
}
