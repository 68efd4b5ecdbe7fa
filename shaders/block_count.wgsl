// Exact P-counts of blocks of a fitted picture by the digit method: one invocation per pixel
// (block) runs the digit programme on its four corners (CPU twins: chocolate::window::p_prefix
// and BlockGrid::counts, the same state encoding and the same inclusion–exclusion).
//
// Coordinates are u64 as (lo, hi) u32 pairs; counts are u128 as four u32 limbs, least
// significant first, added with carries and subtracted with borrows (wrapping, like the twin:
// the programme only adds, and the accepted count is below 2^128, so it is exact).
//
// The programme (chocolate/window.rs): with M = m-1, N = n-1, cell (a+1, c+1) is P iff
// a ⊕ (M-a) ⊕ c ⊕ (N-c) = 0, and the nim-sum's bit k is Mₖ ⊕ β ⊕ Nₖ ⊕ δ, β and δ the borrows
// of the two subtractions into bit k. Bits are taken least significant first; the live state
// is (β, gx, gy) — δ = β ⊕ Mₖ ⊕ Nₖ is implied — with gx (gy) set while a's (c's) low bits
// exceed x's (y's). The twin tabulates each bit's transitions at compile time; here each
// invocation evaluates the same transition formulas, which depend on the bits alone.
//
// Corners come from the host (BlockGrid::corner_row / corner_col): (lo, hi, valid, 0), valid 0
// meaning "before the bar's first row or column", whose prefix is 0.

struct Params {
    m1: vec2<u32>,
    n1: vec2<u32>,
    rows: u32,
    cols: u32,
    groups_x: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> row_corners: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> col_corners: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> counts: array<vec4<u32>>;

// a + b in four limbs, wrapping.
fn add128(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    var out: vec4<u32>;
    var carry = 0u;
    for (var i = 0; i < 4; i++) {
        let t = a[i] + b[i];
        let s = t + carry;
        carry = select(0u, 1u, t < a[i]) + select(0u, 1u, s < t);
        out[i] = s;
    }
    return out;
}

// a - b in four limbs, wrapping.
fn sub128(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    var out: vec4<u32>;
    var borrow = 0u;
    for (var i = 0; i < 4; i++) {
        let t = a[i] - b[i];
        let s = t - borrow;
        borrow = select(0u, 1u, a[i] < b[i]) + select(0u, 1u, t < borrow);
        out[i] = s;
    }
    return out;
}

// Bit k (0..63) of a (lo, hi) pair.
fn bit(v: vec2<u32>, k: u32) -> u32 {
    if (k < 32u) {
        return (v.x >> k) & 1u;
    }
    return (v.y >> (k - 32u)) & 1u;
}

// Number of significant bits of a (lo, hi) pair.
fn bit_length(v: vec2<u32>) -> u32 {
    if (v.y != 0u) {
        return 64u - countLeadingZeros(v.y);
    }
    return 32u - countLeadingZeros(v.x);
}

// The number of pairs (a, c), a ≤ x, c ≤ y, whose cell of C(M+1, N+1) is P (x ≤ M, y ≤ N).
fn p_prefix(big_m: vec2<u32>, big_n: vec2<u32>, x: vec2<u32>, y: vec2<u32>) -> vec4<u32> {
    let t = big_m ^ big_n;
    // Bit 0 of a ⊕ (M-a) is M₀: bars whose M and N differ in parity have no P-cell.
    if ((t.x & 1u) == 1u) {
        return vec4<u32>(0u);
    }
    var count: array<vec4<u32>, 8>;
    count[0] = vec4<u32>(1u, 0u, 0u, 0u);
    let bits = bit_length(big_m | big_n | x | y);
    for (var k = 0u; k < bits; k++) {
        let mk = bit(big_m, k);
        let nk = bit(big_n, k);
        let xk = bit(x, k);
        let yk = bit(y, k);
        let tk = mk ^ nk;
        var t_next = 0u;
        if (k + 1u < 64u) {
            t_next = bit(t, k + 1u);
        }
        var next: array<vec4<u32>, 8>;
        for (var s = 0u; s < 8u; s++) {
            let ways = count[s];
            if (all(ways == vec4<u32>(0u))) {
                continue;
            }
            let beta_a = s & 1u;
            let gx = (s >> 1u) & 1u;
            let gy = (s >> 2u) & 1u;
            let beta_c = beta_a ^ tk;
            for (var ak = 0u; ak < 2u; ak++) {
                // M-a borrows out of bit k iff Mₖ < aₖ + β.
                let na = select(ak | beta_a, ak & beta_a, mk == 1u);
                let ngx = select(ak | gx, ak & gx, xk == 1u);
                for (var ck = 0u; ck < 2u; ck++) {
                    let nc = select(ck | beta_c, ck & beta_c, nk == 1u);
                    let ngy = select(ck | gy, ck & gy, yk == 1u);
                    // The target is alive at bit k+1 iff its borrows differ by Mₖ₊₁ ⊕ Nₖ₊₁.
                    if ((na ^ nc) == t_next) {
                        let to = na | (ngx << 1u) | (ngy << 2u);
                        next[to] = add128(next[to], ways);
                    }
                }
            }
        }
        count = next;
    }
    // No borrow out of either subtraction, neither bound exceeded.
    return count[0];
}

fn corner_prefix(x: vec4<u32>, y: vec4<u32>) -> vec4<u32> {
    if (x.z == 0u || y.z == 0u) {
        return vec4<u32>(0u);
    }
    return p_prefix(params.m1, params.n1, x.xy, y.xy);
}

@compute @workgroup_size(64)
fn block_counts(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let idx = (wg.y * params.groups_x + wg.x) * 64u + li;
    if (idx >= params.rows * params.cols) {
        return;
    }
    let r = idx / params.cols;
    let c = idx - r * params.cols;
    let x0 = row_corners[r];
    let x1 = row_corners[r + 1u];
    let y0 = col_corners[c];
    let y1 = col_corners[c + 1u];
    // Inclusion–exclusion over the block's four corners, as BlockGrid::counts.
    let here = sub128(corner_prefix(x1, y1), corner_prefix(x1, y0));
    let above = sub128(corner_prefix(x0, y1), corner_prefix(x0, y0));
    counts[idx] = sub128(here, above);
}
