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
//! ([`block_counts`], [`BlockGrid`]).
//!
//! Of the 16 states only 8 are alive at each bit: the nim-sum's bit k is 0 only when
//! β ⊕ δ = Mₖ ⊕ Nₖ, so δ is implied by β. Each bit's transitions between the 8 live states
//! depend on five bits (Mₖ, Nₖ, xₖ, yₖ and Mₖ₊₁ ⊕ Nₖ₊₁, which says which targets are alive at
//! the next bit) and are tabulated once, at compile time, as lists of (source, target) pairs;
//! a bit is then about 16 additions without a branch on the state. The low 31 bits run in u64
//! (after k bits the states hold at most 4^k pairs in all), the rest in u128.
//! [`p_prefix_reference`] is the straightforward 16-state programme, kept to check it.
//!
//! Counts are u128: a bar has fewer than 2^128 cells. The programmes only add, so they run in
//! wrapping arithmetic: a state that is never accepted may pass 2^128 at the last bit, but
//! the accepted total is exact because it is below 2^128 and every step is a sum.
//!
//! Tests: this file's unit tests; benches/kernels.rs, tests/engine/foundation.rs,
//! tests/pictures/window.rs, tests/serve.rs.

use super::grid::Window;
use crate::{Error, Result};
use rayon::prelude::*;

/// The transitions of one bit between the 8 live states (β, gx, gy) — β the borrow of M-a,
/// gx and gy whether a's (c's) low bits exceed x's (y's); the borrow of N-c is β ⊕ Mₖ ⊕ Nₖ.
#[derive(Clone, Copy)]
struct BitStep {
    len: usize,
    /// (source, target) state pairs; each (aₖ, cₖ) choice that keeps the target alive is one.
    pairs: [(u8, u8); 32],
}

/// Index of a bit's table: Mₖ, Nₖ, xₖ, yₖ, and whether Mₖ₊₁ ⊕ Nₖ₊₁ is 1.
const fn step_index(mk: u64, nk: u64, xk: u64, yk: u64, t_next: u64) -> usize {
    (mk | nk << 1 | xk << 2 | yk << 3 | t_next << 4) as usize
}

const fn build_steps() -> [BitStep; 32] {
    let mut tables = [BitStep {
        len: 0,
        pairs: [(0, 0); 32],
    }; 32];
    let mut idx = 0;
    while idx < 32 {
        let (mk, nk, xk, yk, t_next) =
            (idx & 1, idx >> 1 & 1, idx >> 2 & 1, idx >> 3 & 1, idx >> 4);
        let tk = mk ^ nk;
        let mut s = 0;
        while s < 8 {
            let (beta_a, gx, gy) = (s & 1, s >> 1 & 1, s >> 2 & 1);
            let beta_c = beta_a ^ tk;
            let mut ak = 0;
            while ak < 2 {
                // M-a borrows out of bit k iff Mₖ < aₖ + β: aₖ | β when Mₖ = 0, aₖ & β when 1.
                let next_a = if mk == 1 { ak & beta_a } else { ak | beta_a };
                // a's low bits exceed x's: set by aₖ > xₖ, cleared by aₖ < xₖ, else kept.
                let next_gx = if xk == 1 { ak & gx } else { ak | gx };
                let mut ck = 0;
                while ck < 2 {
                    let next_c = if nk == 1 { ck & beta_c } else { ck | beta_c };
                    let next_gy = if yk == 1 { ck & gy } else { ck | gy };
                    // The target is alive at bit k+1 iff its borrows differ by Mₖ₊₁ ⊕ Nₖ₊₁.
                    if next_a ^ next_c == t_next {
                        let t = &mut tables[idx];
                        t.pairs[t.len] = (s as u8, (next_a | next_gx << 1 | next_gy << 2) as u8);
                        t.len += 1;
                    }
                    ck += 1;
                }
                ak += 1;
            }
            s += 1;
        }
        idx += 1;
    }
    tables
}

const STEPS: [BitStep; 32] = build_steps();

/// The count types the programme runs in: u64 for the low bits, u128 above.
trait Count: Copy + Default {
    fn add(self, other: Self) -> Self;
}
impl Count for u64 {
    #[inline(always)]
    fn add(self, other: u64) -> u64 {
        self.wrapping_add(other)
    }
}
impl Count for u128 {
    #[inline(always)]
    fn add(self, other: u128) -> u128 {
        self.wrapping_add(other)
    }
}

/// One bit by table `I`, unrolled at compile time: the state stays in registers.
#[inline(always)]
fn step<const I: usize, T: Count>(count: &[T; 8]) -> [T; 8] {
    let table = const { &STEPS[I] };
    let mut next = [T::default(); 8];
    let mut p = 0;
    while p < table.len {
        let (s, t) = table.pairs[p];
        next[t as usize] = next[t as usize].add(count[s as usize]);
        p += 1;
    }
    next
}

/// Bit `k` of the programme: one jump to the unrolled code of its table.
#[inline(always)]
fn step_bit<T: Count>(count: &[T; 8], index: usize) -> [T; 8] {
    macro_rules! arms {
        ($($i:literal)*) => {
            match index {
                $($i => step::<$i, T>(count),)*
                _ => unreachable!("a table index has five bits"),
            }
        };
    }
    arms!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
}

/// Bits run in u64 before the counts move to u128: after k bits at most 4^k pairs are counted.
const U64_BITS: u32 = 31;

/// Run bits `from..to` of the programme on `count`.
#[inline(always)]
fn run_bits<T: Count>(
    mut count: [T; 8],
    bits: std::ops::Range<u32>,
    m: u64,
    n: u64,
    x: u64,
    y: u64,
) -> [T; 8] {
    for k in bits {
        let bit = |v: u64| (v >> k) & 1;
        let t_next = ((m ^ n) >> k >> 1) & 1;
        count = step_bit(&count, step_index(bit(m), bit(n), bit(x), bit(y), t_next));
    }
    count
}

/// The number of pairs (a, c) with 0 ≤ a ≤ x, 0 ≤ c ≤ y whose cell (a+1, c+1) of C(m,n) is P,
/// for x ≤ m-1 and y ≤ n-1 (a bound past the bar counts only the bar's cells).
pub fn p_prefix(m: u64, n: u64, x: u64, y: u64) -> u128 {
    debug_assert!(m >= 1 && n >= 1);
    let (big_m, big_n) = (m - 1, n - 1);
    let (x, y) = (x.min(big_m), y.min(big_n));
    // Bit 0 of a ⊕ (M-a) is M₀: bars whose M and N differ in parity have no P-cell.
    if (big_m ^ big_n) & 1 == 1 {
        return 0;
    }
    // Above the highest set bit of M, N, x and y every remaining bit of a and c must be 0
    // (a ≤ x, c ≤ y), which changes no state; so the programme stops there.
    let bits = 64 - (big_m | big_n | x | y).leading_zeros();
    let mut start = [0u64; 8];
    start[0] = 1;
    let low = run_bits(start, 0..bits.min(U64_BITS), big_m, big_n, x, y);
    let count = if bits <= U64_BITS {
        low.map(u128::from)
    } else {
        run_bits(low.map(u128::from), U64_BITS..bits, big_m, big_n, x, y)
    };
    // a ≤ x ≤ M and c ≤ y ≤ N: no borrow out of either subtraction, neither bound exceeded.
    count[0]
}

/// The programme's state after the low `low` bits of M = m-1, N = n-1, x and y: where every
/// prefix whose bounds agree with x and y on those bits starts ([`p_prefix_resume`]). Corners
/// of blocks of 2^k cells share their low k bits, so a picture row of them shares this work.
pub fn p_prefix_low(m: u64, n: u64, x: u64, y: u64, low: u32) -> [u128; 8] {
    let (big_m, big_n) = (m - 1, n - 1);
    let (x, y) = (x.min(big_m), y.min(big_n));
    let mut start = [0u64; 8];
    if (big_m ^ big_n) & 1 == 0 {
        start[0] = 1;
    }
    let low = low.min(64);
    let head = run_bits(start, 0..low.min(U64_BITS), big_m, big_n, x, y);
    if low <= U64_BITS {
        head.map(u128::from)
    } else {
        run_bits(head.map(u128::from), U64_BITS..low, big_m, big_n, x, y)
    }
}

/// [`p_prefix`] from the state after the low `low` bits ([`p_prefix_low`] of bounds with the
/// same low bits as x and y).
pub fn p_prefix_resume(state: &[u128; 8], low: u32, m: u64, n: u64, x: u64, y: u64) -> u128 {
    let (big_m, big_n) = (m - 1, n - 1);
    let (x, y) = (x.min(big_m), y.min(big_n));
    let low = low.min(64);
    let bits = 64 - (big_m | big_n | x | y).leading_zeros();
    // Past `bits` all bits are 0, which keeps the accepted state as it is.
    run_bits(*state, low..bits.max(low), big_m, big_n, x, y)[0]
}

/// [`p_prefix`] by the straightforward programme over all 16 states, branching on each; the
/// reference the tabulated programme is tested against.
pub fn p_prefix_reference(m: u64, n: u64, x: u64, y: u64) -> u128 {
    debug_assert!(m >= 1 && n >= 1);
    let (big_m, big_n) = (m - 1, n - 1);
    let (x, y) = (x.min(big_m), y.min(big_n));
    // Above the highest set bit of M, N, x and y every remaining bit of a and c must be 0
    // (a ≤ x, c ≤ y), which changes no state; so the programme stops there.
    let bits = 64 - (big_m | big_n | x | y).leading_zeros();
    // a ≤ x ≤ M and c ≤ y ≤ N: no borrow out of either subtraction, neither bound exceeded.
    digit_states(big_m, big_n, x, y, bits)[0]
}

/// The straightforward digit programme over the low `bits` bits (at most 64) of M = m-1,
/// N = n-1 and the bounds x, y: the number of pairs (a, c) of `bits`-bit numbers whose nim-sum
/// bits a ⊕ (M-a) ⊕ c ⊕ (N-c) are all zero there, by end state. State bit 0 = borrow out of
/// M-a, bit 1 = borrow out of N-c, bit 2 = a > x, bit 3 = c > y (all on those low bits).
/// [`p_prefix_reference`] reads state 0 after the highest bit; [`super::dyadic`] reads the
/// four borrow states of aligned blocks.
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
    p_count_with(w, p_prefix)
}

/// [`p_count`] by [`p_prefix_reference`].
pub fn p_count_reference(w: &Window) -> u128 {
    p_count_with(w, p_prefix_reference)
}

fn p_count_with(w: &Window, prefix: fn(u64, u64, u64, u64) -> u128) -> u128 {
    let (r0, c0) = (w.row0 - 1, w.col0 - 1);
    let (r1, c1) = (r0 + (w.height - 1), c0 + (w.width - 1));
    let f = |x: Option<u64>, y: Option<u64>| match (x, y) {
        (Some(x), Some(y)) => prefix(w.m, w.n, x, y),
        _ => 0,
    };
    let (below_r, below_c) = (r0.checked_sub(1), c0.checked_sub(1));
    // Inclusion–exclusion over the four corners; the sum is exact in wrapping arithmetic.
    f(Some(r1), Some(c1))
        .wrapping_sub(f(below_r, Some(c1)))
        .wrapping_sub(f(Some(r1), below_c))
        .wrapping_add(f(below_r, below_c))
}

/// A window cut into `block`×`block` blocks of cells (the last row and column of blocks cut
/// to the window): the pixels of a fitted picture. Block (by, bx) covers the window's rows
/// `by·block ..` and columns `bx·block ..`, 0-based offsets from its first row and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockGrid {
    /// The window cut into blocks.
    pub window: Window,
    /// The side of a block, in cells.
    pub block: u64,
    /// Blocks down: ⌈height/block⌉.
    pub down: u64,
    /// Blocks across: ⌈width/block⌉.
    pub across: u64,
}

impl BlockGrid {
    /// The blocks of `window`; `block` must be at least 1.
    pub fn new(window: Window, block: u64) -> Result<BlockGrid> {
        if block == 0 {
            return Err(Error::bad_argument("the block side", 0, "at least 1"));
        }
        Ok(BlockGrid {
            window,
            block,
            down: window.height.div_ceil(block),
            across: window.width.div_ceil(block),
        })
    }

    /// Corner k along an axis whose window starts at 1-based `start` and has `len` cells: the
    /// 0-based index of the last cell of block k-1 (k = 0: the cell before the window, None
    /// when the window starts at the bar's edge), k ≤ ⌈len/block⌉. Exact for every u64.
    fn corner(&self, start: u64, len: u64, k: u64) -> Option<u64> {
        let covered = (k as u128 * self.block as u128).min(len as u128) as u64;
        (start - 1 + covered).checked_sub(1)
    }

    /// Every block of the grid.
    pub fn all(&self) -> BlockRect {
        BlockRect::new(0, self.down, 0, self.across)
    }

    /// The row corners: 0-based index of the last row of block row k-1, k = 0..=down.
    pub fn corner_row(&self, k: u64) -> Option<u64> {
        self.corner(self.window.row0, self.window.height, k)
    }

    /// The column corners: 0-based index of the last column of block column k-1.
    pub fn corner_col(&self, k: u64) -> Option<u64> {
        self.corner(self.window.col0, self.window.width, k)
    }

    /// Rows and columns of cells in block (by, bx).
    pub fn block_shape(&self, by: u64, bx: u64) -> (u64, u64) {
        let side = |k: u64, len: u64| self.block.min(len - k * self.block);
        (side(by, self.window.height), side(bx, self.window.width))
    }

    /// Cells in block (by, bx), exact.
    pub fn block_cells(&self, by: u64, bx: u64) -> u128 {
        let (h, w) = self.block_shape(by, bx);
        h as u128 * w as u128
    }

    /// Check that the blocks `blocks` exist and are not empty.
    pub fn check_range(&self, blocks: BlockRect) -> Result<()> {
        let BlockRect {
            row0: by0,
            rows,
            col0: bx0,
            cols,
        } = blocks;
        let inside = |start: u64, len: u64, size: u64| {
            len >= 1 && start.checked_add(len).is_some_and(|end| end <= size)
        };
        if inside(by0, rows, self.down) && inside(bx0, cols, self.across) {
            Ok(())
        } else {
            Err(Error::bad_argument(
                "the blocks",
                format!("rows {by0}..+{rows}, columns {bx0}..+{cols}"),
                format!(
                    "inside the {}×{} blocks of the window",
                    self.down, self.across
                ),
            ))
        }
    }

    /// Exact P-counts of the blocks of `blocks`, row-major, by the digit method. The (rows+1)·(cols+1) corner prefixes are computed once each, in parallel, and
    /// each block is the inclusion–exclusion of its four corners. Memory: 16 bytes a corner.
    /// Blocks of 2^k cells over the whole bar cost O(1) each ([`super::dyadic`]); elsewhere,
    /// when the corners all agree on their low bits (blocks of 2^k cells from an aligned
    /// corner), the programme runs those bits once for all of them.
    pub fn counts(&self, blocks: BlockRect) -> Result<Vec<u128>> {
        self.counts_with(blocks, false)
    }

    /// [`BlockGrid::counts`] by [`p_prefix_reference`], every corner on its own.
    pub fn counts_reference(&self, blocks: BlockRect) -> Result<Vec<u128>> {
        self.counts_with(blocks, true)
    }

    fn counts_with(&self, blocks: BlockRect, reference: bool) -> Result<Vec<u128>> {
        let BlockRect {
            row0: by0,
            rows,
            col0: bx0,
            cols,
        } = blocks;
        self.check_range(blocks)?;
        let (w, wide) = (&self.window, cols as usize + 1);
        // Aligned blocks of 2^k over the whole bar: O(1) each ([`super::dyadic`]).
        let whole = w.row0 == 1 && w.col0 == 1 && w.height == w.m && w.width == w.n;
        if whole && self.block.is_power_of_two() && !reference {
            let dyadic = super::dyadic::DyadicBlocks::new(w.m, w.n, self.block.trailing_zeros())?;
            return Ok((0..rows * cols)
                .into_par_iter()
                .map(|i| dyadic.count(by0 + i / cols, bx0 + i % cols))
                .collect());
        }
        let corner_rows: Vec<Option<u64>> = (0..=rows).map(|k| self.corner_row(by0 + k)).collect();
        let corner_cols: Vec<Option<u64>> = (0..=cols).map(|k| self.corner_col(bx0 + k)).collect();
        // The low bits the corners share — the trailing zeros of their differences — leaving
        // out the last corner of each axis, which the window's edge may have cut short; a
        // corner that does not share them gets a programme of its own.
        let body = |v: &[Option<u64>]| {
            v[..v.len() - 1]
                .iter()
                .flatten()
                .copied()
                .collect::<Vec<u64>>()
        };
        let (xs, ys) = (body(&corner_rows), body(&corner_cols));
        let shared = match (xs.first(), ys.first()) {
            (Some(&x0), Some(&y0)) if !reference => {
                let spread = xs.iter().fold(0, |d, &x| d | (x ^ x0))
                    | ys.iter().fold(0, |d, &y| d | (y ^ y0));
                let low = spread.trailing_zeros();
                let mask = u64::MAX.checked_shr(64 - low).unwrap_or(0);
                // Worth it when it saves a quarter of the bits or more.
                (low >= 16).then(|| (x0, y0, mask, low, p_prefix_low(w.m, w.n, x0, y0, low)))
            }
            _ => None,
        };
        let prefix = |x: u64, y: u64| match &shared {
            _ if reference => p_prefix_reference(w.m, w.n, x, y),
            Some((x0, y0, mask, low, state)) if (x ^ x0) & mask == 0 && (y ^ y0) & mask == 0 => {
                p_prefix_resume(state, *low, w.m, w.n, x, y)
            }
            _ => p_prefix(w.m, w.n, x, y),
        };
        let corners: Vec<u128> = (0..(rows as usize + 1) * wide)
            .into_par_iter()
            .map(|i| match (corner_rows[i / wide], corner_cols[i % wide]) {
                (Some(x), Some(y)) => prefix(x, y),
                _ => 0,
            })
            .collect();
        Ok(corners
            .par_chunks(wide)
            .zip(corners[wide..].par_chunks(wide))
            .flat_map_iter(|(above, here)| {
                (0..cols as usize).map(move |k| {
                    // Inclusion–exclusion, exact in wrapping arithmetic.
                    here[k + 1]
                        .wrapping_sub(here[k])
                        .wrapping_sub(above[k + 1])
                        .wrapping_add(above[k])
                })
            })
            .collect())
    }
}

/// A rectangle of blocks of a [`BlockGrid`]: block rows `row0 .. row0+rows` and block columns
/// `col0 .. col0+cols`, 0-based; [`BlockGrid::check_range`] says whether a grid has them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRect {
    /// First block row, 0-based.
    pub row0: u64,
    /// Block rows.
    pub rows: u64,
    /// First block column, 0-based.
    pub col0: u64,
    /// Block columns.
    pub cols: u64,
}

impl BlockRect {
    /// Block rows `row0 .. row0+rows` × block columns `col0 .. col0+cols`.
    pub fn new(row0: u64, rows: u64, col0: u64, cols: u64) -> BlockRect {
        BlockRect {
            row0,
            rows,
            col0,
            cols,
        }
    }

    /// The blocks in the rectangle, exact.
    pub fn len(&self) -> u128 {
        self.rows as u128 * self.cols as u128
    }

    /// Whether it holds no block.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Exact P-counts of all the blocks of `w` cut into `block`×`block` cells (the last row and
/// column of blocks cut to the window), row-major, `⌈height/block⌉ × ⌈width/block⌉` values.
/// Neighbouring blocks share corners, so each corner prefix is computed once.
pub fn block_counts(w: &Window, block: u64) -> Result<Vec<u128>> {
    let grid = BlockGrid::new(*w, block)?;
    grid.counts(grid.all())
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

    use crate::claim::Xorshift as Rng;

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
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
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
        let mut rng = Rng::new(12345);
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
        let mut rng = Rng::new(777);
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
            let counts = block_counts(&w, block).unwrap();
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
        let counts = block_counts(&w, 50).unwrap();
        assert_eq!(counts.iter().sum::<u128>(), count_cells(&w));
    }
    #[test]
    fn tabulated_programme_equals_the_reference() {
        let mut rng = Rng::new(0xC0FF_EE11);
        let mut cases: Vec<(u64, u64, u64, u64)> = vec![
            (1, 1, 0, 0),
            (u64::MAX, u64::MAX, u64::MAX, u64::MAX),
            (u64::MAX, u64::MAX, 0, u64::MAX),
            (1 << 63, 1 << 63, (1 << 62) + 5, 1 << 32),
            ((1 << 32) + 1, (1 << 32) - 1, 1 << 31, 12345),
        ];
        for _ in 0..20_000 {
            // Sizes of every bit length, so both the u64 and the u128 stretches run.
            let bits = |r: &mut Rng| r.next() >> r.below(64);
            let (m, n) = (bits(&mut rng).max(1), bits(&mut rng).max(1));
            let (x, y) = (rng.next() % m, rng.next() % n);
            cases.push((m, n, x, y));
            // Same parity, so that the count is rarely zero.
            let n2 = if (n ^ m) & 1 == 1 { n ^ 1 } else { n }.max(1);
            cases.push((m, n2, x, rng.next() % n2));
        }
        for (m, n, x, y) in cases {
            assert_eq!(
                p_prefix(m, n, x, y),
                p_prefix_reference(m, n, x, y),
                "F({x},{y}) of C({m},{n})"
            );
        }
    }

    #[test]
    fn block_grids_of_huge_bars_add_up() {
        // Blocks so large that k·block passes 2^64, and a band in the middle of a grid.
        for (m, n, block) in [
            (u64::MAX, u64::MAX, 1u64 << 63),
            (u64::MAX, u64::MAX, (1 << 53) + 3),
            (u64::MAX, 3, 1 << 62),
            ((1 << 63) + 1, (1 << 63) + 1, 777_777_777_777),
        ] {
            let w = Window::full(m, n).unwrap();
            let grid = BlockGrid::new(w, block).unwrap();
            let rows = grid.down.min(5);
            let cols = grid.across.min(7);
            let counts = grid.counts(BlockRect::new(0, rows, 0, cols)).unwrap();
            assert_eq!(
                counts,
                grid.counts_reference(BlockRect::new(0, rows, 0, cols))
                    .unwrap()
            );
            if rows == grid.down && cols == grid.across {
                assert_eq!(
                    counts.iter().fold(0u128, |a, &c| a.wrapping_add(c)),
                    p_count(&w)
                );
            }
            let (by, bx) = (grid.down - 1, grid.across - 1);
            let last = grid.counts(BlockRect::new(by, 1, bx, 1)).unwrap()[0];
            let (h, wd) = grid.block_shape(by, bx);
            let b = Window::new(m, n, 1 + by * block, 1 + bx * block, h, wd).unwrap();
            assert_eq!(last, p_count_reference(&b), "C({m},{n}) block {block}");
        }
        let grid = BlockGrid::new(Window::new(999, 1001, 123, 456, 300, 401).unwrap(), 7).unwrap();
        let all = grid.counts(grid.all()).unwrap();
        let part = grid.counts(BlockRect::new(10, 3, 20, 9)).unwrap();
        for r in 0..3 {
            for c in 0..9 {
                assert_eq!(
                    part[r * 9 + c],
                    all[(10 + r) * grid.across as usize + 20 + c]
                );
            }
        }
        assert!(grid.counts(BlockRect::new(grid.down, 1, 0, 1)).is_err());
        assert!(grid.counts(BlockRect::new(0, 1, 0, 0)).is_err());
        assert!(grid.counts(BlockRect::new(0, 1, u64::MAX, 2)).is_err());
        assert!(BlockGrid::new(grid.window, 0).is_err());
    }
    #[test]
    fn resumed_programmes_equal_whole_ones() {
        let mut rng = Rng::new(0xAB5E);
        for _ in 0..5000 {
            let (m, n) = (
                (rng.next() >> rng.below(64)).max(1),
                (rng.next() >> rng.below(64)).max(1),
            );
            let n = if (m ^ n) & 1 == 1 { n ^ 1 } else { n }.max(1);
            let (x, y) = (rng.next() % m, rng.next() % n);
            let low = rng.below(65) as u32;
            let state = p_prefix_low(m, n, x, y, low);
            // Other bounds with the same low bits.
            let mask = u64::MAX.checked_shr(64 - low).unwrap_or(0);
            let (x2, y2) = (
                (x & mask) | (rng.next() & !mask),
                (y & mask) | (rng.next() & !mask),
            );
            for (a, c) in [(x, y), (x2.min(m - 1), y2.min(n - 1))] {
                if (a ^ x) & mask == 0 && (c ^ y) & mask == 0 {
                    assert_eq!(
                        p_prefix_resume(&state, low, m, n, a, c),
                        p_prefix(m, n, a, c),
                        "C({m},{n}) ({a},{c}) from the low {low} bits of ({x},{y})"
                    );
                }
            }
        }
    }

    #[test]
    fn power_of_two_blocks_share_their_low_bits() {
        // The picture C(2^64-1) --fit 2048 (blocks of 2^53) and a window's grid of 2^40.
        for (w, block) in [
            (Window::full(u64::MAX, u64::MAX).unwrap(), 1u64 << 53),
            (
                Window::new(
                    u64::MAX,
                    u64::MAX - 2,
                    1 << 41,
                    12345,
                    u64::MAX >> 2,
                    1 << 60,
                )
                .unwrap(),
                1 << 40,
            ),
        ] {
            let grid = BlockGrid::new(w, block).unwrap();
            for (by0, rows, bx0, cols) in [
                (0, 3, 0, grid.across.min(50)),
                (grid.down - 2, 2, grid.across - 9, 9),
                (5, 1, 7, 1),
            ] {
                let blocks = BlockRect::new(by0, rows, bx0, cols);
                assert_eq!(
                    grid.counts(blocks).unwrap(),
                    grid.counts_reference(blocks).unwrap(),
                    "{w:?} blocks of {block}"
                );
            }
        }
    }
}
