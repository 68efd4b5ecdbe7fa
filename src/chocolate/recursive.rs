//! P(m) built from Thm 3.3 and Thm 3.4 alone, with no XOR test: a third generator, independent
//! of the P-test and of the automaton, used by `theorems` and by the tests.
//!
//! - m = 2^k: every cell is P (Thm 3.3 applied k times to P(1) = {(1,1)}).
//! - m even: P(m) is P(m/2) with every cell blown up to a 2×2 block (Thm 3.3).
//! - m odd, not a power of two: with 2^k the top bit of m, s = m - 2^k, t = 2^k - s, P(m) is
//!   P(s) in the four s×s corners plus P(t) in the centre [s+1, s+t]², and nothing else
//!   (Thm 3.4 in the form docs/mathematics.md §1 gives).
//!
//! Grids use the P-grid layout: m rows of `words_per_row(m)` u32 words, bit 31 = leftmost cell.
//!
//! Tests: this file's unit tests.

use super::grid::words_per_row;

/// Thm 3.4's split of a non-power-of-two m: (s, t) with m = s + t + s.
pub fn corners_and_centre(m: u64) -> Option<(u64, u64)> {
    if m.is_power_of_two() {
        return None;
    }
    let top = 1u64 << (63 - m.leading_zeros());
    let s = m - top;
    Some((s, top - s))
}

/// Whether cell (i,j) (1-based) of C(m,m) is P, by the recursion alone: O(log m).
pub fn p_cell_recursive(mut m: u64, mut i: u64, mut j: u64) -> bool {
    debug_assert!(1 <= i && i <= m && 1 <= j && j <= m);
    loop {
        if m.is_power_of_two() {
            return true;
        }
        if m.is_multiple_of(2) {
            // Thm 3.3: v_{2m}(2i-δ, 2j-ε) = v_m(i,j).
            m /= 2;
            i = i.div_ceil(2);
            j = j.div_ceil(2);
            continue;
        }
        let (s, t) = corners_and_centre(m).expect("not a power of two");
        let band = |x: u64| -> Option<u64> {
            // Some(coordinate inside a corner block) or None for the middle band.
            if x <= s {
                Some(x)
            } else if x > s + t {
                Some(x - s - t)
            } else {
                None
            }
        };
        match (band(i), band(j)) {
            (Some(a), Some(b)) => (m, i, j) = (s, a, b),
            (None, None) => (m, i, j) = (t, i - s, j - s),
            _ => return false,
        }
    }
}

/// OR the `side`×`side` grid `src` into `dst` (a grid of `dst_wpr` words per row) with its
/// top-left cell at 0-based (row, col).
pub(crate) fn blit(
    dst: &mut [u32],
    dst_wpr: usize,
    src: &[u32],
    side: usize,
    row: usize,
    col: usize,
) {
    let src_wpr = words_per_row(side as u64);
    let (word, bit) = (col / 32, col % 32);
    for r in 0..side {
        let s = &src[r * src_wpr..(r + 1) * src_wpr];
        let d = &mut dst[(row + r) * dst_wpr..(row + r + 1) * dst_wpr];
        for (k, &w) in s.iter().enumerate() {
            if w == 0 {
                continue;
            }
            d[word + k] |= w >> bit;
            if bit > 0 && word + k + 1 < dst_wpr {
                d[word + k + 1] |= w << (32 - bit);
            }
        }
    }
}

/// Each bit of x doubled: bit 31-k of x becomes bits 63-2k and 62-2k.
pub(crate) fn double_bits(x: u32) -> u64 {
    let mut y = x as u64;
    y = (y | (y << 16)) & 0x0000_FFFF_0000_FFFF;
    y = (y | (y << 8)) & 0x00FF_00FF_00FF_00FF;
    y = (y | (y << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    y = (y | (y << 2)) & 0x3333_3333_3333_3333;
    y = (y | (y << 1)) & 0x5555_5555_5555_5555;
    y | (y << 1)
}

/// The `side`×`side` grid `src` with every cell blown up to a 2×2 block (Thm 3.3's shape).
pub fn blow_up(src: &[u32], side: u64) -> Vec<u32> {
    let (wpr, hw) = (words_per_row(2 * side), words_per_row(side));
    let mut out = vec![0u32; wpr * 2 * side as usize];
    for (r, row) in src.chunks_exact(hw).enumerate() {
        let dst = &mut out[2 * r * wpr..(2 * r + 1) * wpr];
        for (k, &w) in row.iter().enumerate() {
            let d = double_bits(w);
            dst[2 * k] = (d >> 32) as u32;
            if 2 * k + 1 < wpr {
                dst[2 * k + 1] = d as u32;
            }
        }
        out.copy_within(2 * r * wpr..(2 * r + 1) * wpr, (2 * r + 1) * wpr);
    }
    out
}

/// Thm 3.4's shape: `corner` (s×s) in the four corners and `centre` (t×t) in the middle of an
/// (s+t+s)-square grid, nothing else.
pub fn corners_and_centre_grid(corner: &[u32], s: u64, centre: &[u32], t: u64) -> Vec<u32> {
    let m = 2 * s + t;
    let wpr = words_per_row(m);
    let mut out = vec![0u32; wpr * m as usize];
    let (s, t) = (s as usize, t as usize);
    for (r, c) in [(0, 0), (0, s + t), (s + t, 0), (s + t, s + t)] {
        blit(&mut out, wpr, corner, s, r, c);
    }
    blit(&mut out, wpr, centre, t, s, s);
    out
}

/// P(m) as a packed grid, built by the recursion alone.
pub fn p_grid_recursive(m: u64) -> Vec<u32> {
    assert!(m >= 1);
    let side = m as usize;
    let wpr = words_per_row(m);
    let mut out = vec![0u32; wpr * side];
    if m.is_power_of_two() {
        for row in out.chunks_exact_mut(wpr) {
            row.fill(u32::MAX);
            if !side.is_multiple_of(32) {
                row[wpr - 1] = u32::MAX << (32 - side % 32);
            }
        }
    } else if m.is_multiple_of(2) {
        out = blow_up(&p_grid_recursive(m / 2), m / 2);
    } else {
        let (s, t) = corners_and_centre(m).expect("not a power of two");
        out = corners_and_centre_grid(&p_grid_recursive(s), s, &p_grid_recursive(t), t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chocolate::grid::{p_rows_naive, Window};
    use crate::chocolate::ptest::p_cell;

    #[test]
    fn recursive_grid_equals_p_test() {
        for m in (1..=140).chain([255, 257, 300, 1000, 1023]) {
            let naive = p_rows_naive(&Window::full(m, m).unwrap());
            assert_eq!(p_grid_recursive(m), naive, "P({m})");
        }
    }

    #[test]
    fn recursive_cell_equals_p_test() {
        for m in 1..=90 {
            for i in 1..=m {
                for j in 1..=m {
                    assert_eq!(
                        p_cell_recursive(m, i, j),
                        p_cell(m, m, i, j),
                        "({i},{j}) of C({m},{m})"
                    );
                }
            }
        }
        // Far out, where no grid fits: sampled cells.
        let mut rng = crate::claim::Xorshift::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20000 {
            let x = rng.next();
            let m = (x >> 3) | 1;
            let i = 1 + x.rotate_left(17) % m;
            let j = 1 + x.rotate_left(41) % m;
            assert_eq!(p_cell_recursive(m, i, j), p_cell(m, m, i, j));
            // And on the diagonal, which is always P (Prop 3.2).
            assert!(p_cell_recursive(m, i, i) && p_cell_recursive(m, i, m + 1 - i));
        }
    }

    #[test]
    fn split_of_eleven() {
        assert_eq!(corners_and_centre(11), Some((3, 5)));
        assert_eq!(corners_and_centre(16), None);
    }
}
