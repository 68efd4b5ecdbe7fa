//! Exact P-counts of any window of any bar C(m,n), 1 ≤ m,n ≤ 2^64-1, in time proportional to
//! the number of bits: the digit method.
//!
//! With a = i-1 and c = j-1, cell (i,j) of C(m,n) is P iff a ⊕ (M-a) ⊕ c ⊕ (N-c) = 0, where
//! M = m-1 and N = n-1 (Thm 2.3). Write b = M-a and d = N-c and do the two subtractions bit by
//! bit, least significant first, each with its borrow β: bit k of b is Mₖ ⊕ aₖ ⊕ β, so
//! aₖ ⊕ bₖ = Mₖ ⊕ β and, likewise, cₖ ⊕ dₖ = Nₖ ⊕ δ. The nim-sum's bit k is therefore
//! Mₖ ⊕ β ⊕ Nₖ ⊕ δ: it depends on the two borrows alone, not on the bits chosen for a and c.
//!
//! [`p_prefix`] counts the pairs with a ≤ x and c ≤ y by a dynamic programme over the 64 bit
//! positions whose state is the two borrows and, for each bound, whether the low bits of a (or
//! c) chosen so far exceed the low bits of x (or y). Four prefixes give any window
//! ([`p_count`]), and neighbouring blocks of a picture share their corners
//! ([`block_counts`]).
//!
//! Counts are u128: a bar has fewer than 2^128 cells. The programme only adds, so it runs in
//! wrapping arithmetic: a state that is never accepted may pass 2^128 at the last bit, but
//! the accepted total is exact because it is below 2^128 and every step is a sum.

use super::grid::Window;

/// The number of pairs (a, c) with 0 ≤ a ≤ x, 0 ≤ c ≤ y whose cell (a+1, c+1) of C(m,n) is P,
/// for x ≤ m-1 and y ≤ n-1 (a bound past the bar counts only the bar's cells).
pub fn p_prefix(m: u64, n: u64, x: u64, y: u64) -> u128 {
    debug_assert!(m >= 1 && n >= 1);
    let (big_m, big_n) = (m - 1, n - 1);
    let (x, y) = (x.min(big_m), y.min(big_n));
    // Above the highest set bit of M, N, x and y every remaining bit of a and c must be 0
    // (a ≤ x, c ≤ y), which changes no state; so the programme stops there.
    let bits = 64 - (big_m | big_n | x | y).leading_zeros();
    // a ≤ x ≤ M and c ≤ y ≤ N: no borrow out of either subtraction, neither bound exceeded.
    digit_states(big_m, big_n, x, y, bits)[0]
}

/// The digit programme over the low `bits` bits (at most 64) of M = m-1, N = n-1 and the
/// bounds x, y: the number of pairs (a, c) of `bits`-bit numbers whose nim-sum bits
/// a ⊕ (M-a) ⊕ c ⊕ (N-c) are all zero there, by end state. State bit 0 = borrow out of
/// M-a, bit 1 = borrow out of N-c, bit 2 = a > x, bit 3 = c > y (all on those low bits).
/// [`p_prefix`] reads state 0 after the highest bit; [`super::dyadic`] reads the four
/// borrow states of aligned blocks.
pub fn digit_states(big_m: u64, big_n: u64, x: u64, y: u64, bits: u32) -> [u128; 16] {
    debug_assert!(bits <= 64);
    let mut count = [0u128; 16];
    count[0] = 1;
    for k in 0..bits {
        let mk = (big_m >> k) & 1;
        let nk = (big_n >> k) & 1;
        let xk = (x >> k) & 1;
        let yk = (y >> k) & 1;
        let mut next = [0u128; 16];
        for (state, &ways) in count.iter().enumerate() {
            if ways == 0 {
                continue;
            }
            let borrow_a = (state & 1) as u64;
            let borrow_c = ((state >> 1) & 1) as u64;
            // The nim-sum's bit k is Mₖ ⊕ β ⊕ Nₖ ⊕ δ, whatever aₖ and cₖ are.
            if mk ^ borrow_a ^ nk ^ borrow_c != 0 {
                continue;
            }
            let above_x = (state >> 2) & 1;
            let above_y = (state >> 3) & 1;
            for ak in 0..2u64 {
                let next_borrow_a = (mk < ak + borrow_a) as usize;
                let next_above_x = if ak == xk {
                    above_x
                } else {
                    (ak > xk) as usize
                };
                for ck in 0..2u64 {
                    let next_borrow_c = (nk < ck + borrow_c) as usize;
                    let next_above_y = if ck == yk {
                        above_y
                    } else {
                        (ck > yk) as usize
                    };
                    let to = next_borrow_a
                        | (next_borrow_c << 1)
                        | (next_above_x << 2)
                        | (next_above_y << 3);
                    next[to] = next[to].wrapping_add(ways);
                }
            }
        }
        count = next;
    }
    count
}

/// The exact number of P-cells of C(m,n) inside `w` (its rows `row0..row0+height`, columns
/// `col0..col0+width`, 1-based), by the digit method: four prefix counts.
pub fn p_count(w: &Window) -> u128 {
    let (r0, c0) = (w.row0 - 1, w.col0 - 1);
    let (r1, c1) = (r0 + (w.height - 1), c0 + (w.width - 1));
    let f = |x: Option<u64>, y: Option<u64>| match (x, y) {
        (Some(x), Some(y)) => p_prefix(w.m, w.n, x, y),
        _ => 0,
    };
    let (below_r, below_c) = (r0.checked_sub(1), c0.checked_sub(1));
    // Inclusion–exclusion over the four corners; the sum is exact in wrapping arithmetic.
    f(Some(r1), Some(c1))
        .wrapping_sub(f(below_r, Some(c1)))
        .wrapping_sub(f(Some(r1), below_c))
        .wrapping_add(f(below_r, below_c))
}

/// Exact P-counts of the blocks of `w` cut into `block`×`block` cells (the last row and column
/// of blocks cut to the window), row-major, `blocks_down × blocks_across` values.
/// Neighbouring blocks share corners, so each of the (blocks_down+1)·(blocks_across+1) corner
/// prefixes is computed once.
pub fn block_counts(w: &Window, block: u64) -> Vec<u128> {
    assert!(block >= 1);
    let across = w.width.div_ceil(block) as usize;
    let down = w.height.div_ceil(block) as usize;
    // Corner k along an axis is the last index of block k-1 (k = 0: before the window).
    let corner = |start: u64, len: u64, k: usize| -> Option<u64> {
        if k == 0 {
            (start - 1).checked_sub(1)
        } else {
            Some((start - 1) + (k as u64 * block).min(len) - 1)
        }
    };
    let prefix = |x: Option<u64>, y: Option<u64>| match (x, y) {
        (Some(x), Some(y)) => p_prefix(w.m, w.n, x, y),
        _ => 0,
    };
    let mut above: Vec<u128> = (0..=across)
        .map(|k| prefix(corner(w.row0, w.height, 0), corner(w.col0, w.width, k)))
        .collect();
    let mut out = Vec::with_capacity(down * across);
    for r in 1..=down {
        let x = corner(w.row0, w.height, r);
        let here: Vec<u128> = (0..=across)
            .map(|k| prefix(x, corner(w.col0, w.width, k)))
            .collect();
        for k in 0..across {
            out.push(
                here[k + 1]
                    .wrapping_sub(here[k])
                    .wrapping_sub(above[k + 1])
                    .wrapping_add(above[k]),
            );
        }
        above = here;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chocolate::count::g_recurrence;
    use crate::chocolate::ptest::p_cell;

    /// The slow twin: test every cell.
    fn count_cells(w: &Window) -> u128 {
        let mut total = 0u128;
        for i in w.row0..w.row0 + w.height {
            for j in w.col0..w.col0 + w.width {
                total += p_cell(w.m, w.n, i, j) as u128;
            }
        }
        total
    }

    /// A small xorshift, so the sampled windows are the same on every run.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    #[test]
    fn whole_bars_equal_the_cell_count() {
        for m in 1..=40u64 {
            for n in [1, 2, 3, 7, 11, 12, 30, 33] {
                let w = Window::full(m, n).unwrap();
                assert_eq!(p_count(&w), count_cells(&w), "C({m},{n})");
            }
        }
    }

    #[test]
    fn random_windows_of_random_bars_equal_the_cell_count() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..400 {
            let m = 1 + rng.below(2000);
            let n = 1 + rng.below(2000);
            let height = 1 + rng.below(m.min(60));
            let width = 1 + rng.below(n.min(60));
            let row0 = 1 + rng.below(m - height + 1);
            let col0 = 1 + rng.below(n - width + 1);
            let w = Window::new(m, n, row0, col0, height, width).unwrap();
            assert_eq!(p_count(&w), count_cells(&w), "{w:?}");
        }
    }

    #[test]
    fn whole_squares_equal_the_recurrence_up_to_u64_max() {
        let mut rng = Rng(12345);
        let mut sizes = vec![
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
            (1 << 63) + 1,
            4095,
            30001,
            65535,
        ];
        sizes.extend((0..200).map(|_| 1 + rng.next() % u64::MAX));
        sizes.extend((0..200).map(|_| 1 + rng.below(1 << 20)));
        for m in sizes {
            let w = Window::full(m, m).unwrap();
            assert_eq!(p_count(&w), g_recurrence(m).unwrap(), "g({m})");
        }
    }

    #[test]
    fn deep_windows_of_huge_bars_equal_the_cell_count() {
        let mut rng = Rng(777);
        for _ in 0..200 {
            let m = u64::MAX - rng.below(1 << 40);
            let n = [u64::MAX, 1_000_000_000_039, 1 + rng.next() % u64::MAX][rng.below(3) as usize];
            let (height, width) = (1 + rng.below(40), 1 + rng.below(40));
            let row0 = 1 + rng.below(m - height + 1);
            let col0 = 1 + rng.below(n - width + 1);
            let w = Window::new(m, n, row0, col0, height, width).unwrap();
            assert_eq!(p_count(&w), count_cells(&w), "{w:?}");
        }
    }

    #[test]
    fn block_counts_equal_per_block_cell_counts() {
        for (m, n, block) in [
            (777, 1235, 37),
            (30, 17, 4),
            (11, 11, 1),
            (100, 3, 7),
            (61, 61, 61),
        ] {
            let w = Window::full(m, n).unwrap();
            let counts = block_counts(&w, block);
            let across = n.div_ceil(block);
            assert_eq!(counts.len() as u64, across * m.div_ceil(block));
            for (k, &got) in counts.iter().enumerate() {
                let (br, bc) = (k as u64 / across, k as u64 % across);
                let row0 = 1 + br * block;
                let col0 = 1 + bc * block;
                let b = Window::new(
                    m,
                    n,
                    row0,
                    col0,
                    block.min(m - row0 + 1),
                    block.min(n - col0 + 1),
                )
                .unwrap();
                assert_eq!(got, count_cells(&b), "C({m},{n}) block {br},{bc}");
            }
            assert_eq!(counts.iter().sum::<u128>(), p_count(&w));
        }
        // A window that starts inside the bar.
        let w = Window::new(999, 1001, 123, 456, 300, 401).unwrap();
        let counts = block_counts(&w, 50);
        assert_eq!(counts.iter().sum::<u128>(), count_cells(&w));
    }
}
