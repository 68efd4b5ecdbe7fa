//! Exact P-counts of the aligned 2^k × 2^k blocks of C(m,n) in O(1) a block, for every level
//! of a Deep Zoom pyramid of any bar up to 2^64-1: the digit method split at bit k.
//!
//! Write a = i-1 and c = j-1 (0-based cells), M = m-1, N = n-1; the cell is P iff
//! a ⊕ (M-a) ⊕ c ⊕ (N-c) = 0 (Thm 2.3). In the block (A, C) of side 2^k, a = A·2^k + a' with
//! a' < 2^k. Subtracting bit by bit from the least significant, the low k bits of M-a are
//! those of (M mod 2^k) - a' and the high bits are (M >> k) - A - β, where β is the borrow out
//! of the low part; likewise for N-c with borrow δ. The nim-sum's low k bits depend only on
//! a', c' (and M, N), its high bits only on A, C, β and δ. So
//!
//! ```text
//! count(A, C) = Σ over β, δ ∈ {0,1} of  low[β][δ] · [A ⊕ (Mₕ-A-β) ⊕ C ⊕ (Nₕ-C-δ) = 0]
//! ```
//!
//! where `low[β][δ]` is the number of (a', c') in the block whose low nim-sum bits are zero and
//! whose borrows are β and δ: the same for every block of a full size, so it is computed once
//! per level (and once more for the cut last block row and column) by the digit programme of
//! [`super::window`] run over the low k bits, and each block then costs four P-tests of its
//! high parts. [`super::window::p_count`] and cell-by-cell counts are its references.
//!
//! Tests: this file's unit tests.

use super::window::digit_states;
use crate::{Error, Result};

/// The P-counts of the blocks of side 2^k of C(m,n) (k ≤ 64), block (A, C) covering rows
/// A·2^k+1 ..= min((A+1)·2^k, m) and the columns likewise; the last block row and column are
/// cut to the bar.
#[derive(Debug, Clone)]
pub struct DyadicBlocks {
    m: u64,
    n: u64,
    k: u32,
    /// M >> k and N >> k: the high parts of the largest 0-based row and column.
    m_high: u64,
    n_high: u64,
    /// Index of the last block row and column.
    last_row: u64,
    last_col: u64,
    /// `low[row cut][column cut][β | δ<<1]`: the low-part counts for blocks of full size (0)
    /// or of the last block row or column (1).
    low: [[[u128; 4]; 2]; 2],
}

impl DyadicBlocks {
    /// The blocks of side 2^k of C(m,n).
    pub fn new(m: u64, n: u64, k: u32) -> Result<DyadicBlocks> {
        if m == 0 || n == 0 {
            return Err(Error::bad_argument(
                "the bar",
                format!("{m}×{n}"),
                "at least 1×1",
            ));
        }
        if k > 64 {
            return Err(Error::bad_argument("the block exponent k", k, "at most 64"));
        }
        let (big_m, big_n) = (m - 1, n - 1);
        let high = |v: u64| v.checked_shr(k).unwrap_or(0);
        let (m_high, n_high) = (high(big_m), high(big_n));
        // The low bits of the last row (column) bound its block; a full block's bound is all
        // ones.
        let low_mask = if k == 64 { u64::MAX } else { (1u64 << k) - 1 };
        let bounds = |big: u64| [low_mask, big & low_mask];
        let (rows, cols) = (bounds(big_m), bounds(big_n));
        let mut low = [[[0u128; 4]; 2]; 2];
        for (rc, row_bound) in rows.iter().enumerate() {
            for (cc, col_bound) in cols.iter().enumerate() {
                let states = digit_states(big_m, big_n, *row_bound, *col_bound, k);
                // States 0..4: both bounds kept (a' ≤ bound, c' ≤ bound), any borrows.
                low[rc][cc].copy_from_slice(&states[..4]);
            }
        }
        Ok(DyadicBlocks {
            m,
            n,
            k,
            m_high,
            n_high,
            last_row: m_high,
            last_col: n_high,
            low,
        })
    }

    /// The block side's exponent k.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// Block rows and block columns: ⌈m / 2^k⌉ and ⌈n / 2^k⌉.
    pub fn blocks(&self) -> (u64, u64) {
        (self.last_row + 1, self.last_col + 1)
    }

    /// Cells in block (A, C) (0-based block indices inside the bar).
    pub fn cells(&self, a: u64, c: u64) -> u128 {
        self.side(a, self.m) * self.side(c, self.n)
    }

    /// The length of block `i` along an axis of `len` cells: 2^k, or what is left of the bar.
    fn side(&self, i: u64, len: u64) -> u128 {
        let start = (i as u128) << self.k;
        (1u128 << self.k).min(len as u128 - start)
    }

    /// The exact P-count of block (A, C) (0-based block indices inside the bar).
    #[inline]
    pub fn count(&self, a: u64, c: u64) -> u128 {
        debug_assert!(a <= self.last_row && c <= self.last_col);
        let low = &self.low[(a == self.last_row) as usize][(c == self.last_col) as usize];
        let mut total = 0u128;
        for (state, &ways) in low.iter().enumerate() {
            if ways == 0 {
                continue;
            }
            let (beta, delta) = ((state & 1) as u64, (state >> 1) as u64);
            // The high parts of M-a and N-c; a borrow past the bar's last row cannot occur
            // for a block inside the bar (low[β][·] is then zero), but is skipped safely.
            let (Some(b), Some(d)) = (
                self.m_high.checked_sub(a).and_then(|v| v.checked_sub(beta)),
                self.n_high
                    .checked_sub(c)
                    .and_then(|v| v.checked_sub(delta)),
            ) else {
                continue;
            };
            if a ^ b ^ c ^ d == 0 {
                total = total.wrapping_add(ways);
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chocolate::grid::Window;
    use crate::chocolate::ptest::p_cell;
    use crate::chocolate::window::p_count;

    /// A small deterministic generator (splitmix64) for random blocks.
    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn block_window(blocks: &DyadicBlocks, a: u64, c: u64) -> Window {
        // Block a starts at a·2^k; at k = 64 only block 0 exists (a shift by 64 overflows).
        let start = |a: u64| a.checked_shl(blocks.k).unwrap_or(0);
        Window::new(
            blocks.m,
            blocks.n,
            start(a) + 1,
            start(c) + 1,
            blocks.side(a, blocks.m) as u64,
            blocks.side(c, blocks.n) as u64,
        )
        .unwrap()
    }

    #[test]
    fn every_block_of_small_bars_equals_its_cell_count() {
        for (m, n) in [
            (1, 1),
            (1, 9),
            (11, 11),
            (30, 17),
            (64, 64),
            (77, 123),
            (100, 100),
        ] {
            let top = 64 - (m.max(n) - 1u64).leading_zeros();
            for k in 0..=top + 1 {
                let blocks = DyadicBlocks::new(m, n, k).unwrap();
                let (down, across) = blocks.blocks();
                assert_eq!(down, m.div_ceil(1 << k));
                assert_eq!(across, n.div_ceil(1 << k));
                for a in 0..down {
                    for c in 0..across {
                        let w = block_window(&blocks, a, c);
                        let mut cells = 0u128;
                        for i in w.row0..w.row0 + w.height {
                            for j in w.col0..w.col0 + w.width {
                                cells += p_cell(m, n, i, j) as u128;
                            }
                        }
                        assert_eq!(
                            blocks.count(a, c),
                            cells,
                            "C({m},{n}) k={k} block ({a},{c})"
                        );
                        assert_eq!(blocks.cells(a, c), w.cells());
                    }
                }
            }
        }
    }

    #[test]
    fn random_blocks_of_random_bars_equal_the_digit_method() {
        let mut s = 12345u64;
        for _ in 0..300 {
            let m = splitmix(&mut s) >> (splitmix(&mut s) % 64);
            let n = splitmix(&mut s) >> (splitmix(&mut s) % 64);
            let (m, n) = (m.max(1), n.max(1));
            let k = (splitmix(&mut s) % 65) as u32;
            let blocks = DyadicBlocks::new(m, n, k).unwrap();
            let (down, across) = blocks.blocks();
            for pick in 0..6 {
                // The corners of the block grid, then random blocks.
                let (a, c) = match pick {
                    0 => (0, 0),
                    1 => (down - 1, across - 1),
                    2 => (down - 1, 0),
                    _ => (splitmix(&mut s) % down, splitmix(&mut s) % across),
                };
                let w = block_window(&blocks, a, c);
                assert_eq!(
                    blocks.count(a, c),
                    p_count(&w),
                    "C({m},{n}) k={k} ({a},{c})"
                );
            }
        }
    }

    #[test]
    fn the_largest_bar_at_every_level() {
        let m = u64::MAX;
        // Same-parity rectangles and squares; k = 64 is the whole bar in one block.
        for (m, n) in [(m, m), (m, m - 2), (m - 1, (1 << 40) + 2)] {
            for k in [0, 1, 5, 31, 32, 33, 60, 63, 64] {
                let blocks = DyadicBlocks::new(m, n, k).unwrap();
                let (down, across) = blocks.blocks();
                for (a, c) in [(0, 0), (down - 1, across - 1), (down / 3, across / 2)] {
                    let w = block_window(&blocks, a, c);
                    assert_eq!(
                        blocks.count(a, c),
                        p_count(&w),
                        "C({m},{n}) k={k} ({a},{c})"
                    );
                }
            }
        }
        let whole = DyadicBlocks::new(m, m, 64).unwrap();
        assert_eq!(whole.blocks(), (1, 1));
        assert_eq!(
            whole.count(0, 0),
            crate::chocolate::count::g_recurrence(m).unwrap()
        );
    }

    #[test]
    fn bad_arguments_are_errors() {
        assert!(DyadicBlocks::new(0, 5, 1).is_err());
        assert!(DyadicBlocks::new(5, 5, 65).is_err());
    }
}
