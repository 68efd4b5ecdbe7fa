//! K-heap Nim with one shared pass (docs/mathematics.md §4), K = 2, 3, 4.
//!
//! A position is (heaps, p) with p = 1 while the pass is unused. (heaps, 0) is P iff the
//! nim-sum is 0. (heaps, 1) is P iff it is terminal, or its nim-sum is not 0 (else passing
//! wins) and no single-heap reduction reaches a P-position with p = 1.
//!
//! Along a line (all heaps fixed but one) there is at most one P-position with p = 1: from any
//! later point on the line the mover reduces to it. So "is there a P below me on this line" is
//! one bit per line. Positions are visited in lexicographic order, which finishes every
//! reduction first. For each prefix (all heaps but the last) the bits of the K-1 line
//! families whose lines cross the last heap's line are ORed one 64-bit word at a time, and the
//! P-position on the last heap's line is the first unblocked value whose nim-sum is not 0.
//! Its value is kept per prefix (u16), and its bit is set in the K-1 crossing families.
//!
//! Tests: this file's unit tests; tests/engine/cancel.rs, tests/engine/foundation.rs,
//! tests/games/pass.rs.

use super::mex::mex_of;
use crate::Error;
use std::collections::HashMap;

/// No P-position with p = 1 on this line.
const NONE: u16 = u16::MAX;
/// Most bytes for the per-line table and for the line bits, each.
pub const MAX_BYTES: u64 = 1 << 30;

/// P-positions with the pass available, for heaps 0 ≤ a_i < side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NimPass {
    k: usize,
    side: usize,
    /// For each prefix (a_0 … a_{K-2}), row-major, the a_{K-1} of the line's P-position.
    last: Vec<u16>,
}

/// side^e, or `None` past u128.
fn pow(side: usize, e: usize) -> Option<u128> {
    (side as u128).checked_pow(e as u32)
}

impl NimPass {
    /// The largest heap size a table holds: each line's P-position is kept as a u16, with
    /// `u16::MAX` for none.
    pub const MAX_HEAP: u64 = NONE as u64 - 2;

    /// The refusal of heaps of sizes up to `max`, past [`NimPass::MAX_HEAP`].
    pub fn heaps_too_large(max: u64) -> Error {
        Error::bad_input(
            crate::Input::HeapSize,
            max,
            format!("at most {}", Self::MAX_HEAP),
        )
    }

    /// Heaps per position and the number of values per heap. Stops with
    /// [`crate::Error::Interrupted`] when its [`crate::cancel`] token is cancelled.
    pub fn compute(k: usize, side: usize) -> crate::Result<NimPass> {
        if !(2..=4).contains(&k) {
            return Err(Error::bad_argument("the number of heaps", k, "2, 3 or 4"));
        }
        if side == 0 {
            return Err(Error::bad_argument(
                "the number of heap sizes",
                side,
                "at least 1",
            ));
        }
        // The memory first: for three and four heaps it binds long before the u16 values do.
        let wpr = side.div_ceil(64);
        let within = |count: u128, bytes_each: u128| {
            count
                .checked_mul(bytes_each)
                .is_some_and(|b| b <= MAX_BYTES as u128)
        };
        let line_bytes = (k as u128 - 1) * wpr as u128 * 8;
        let (prefixes, rows) = match (pow(side, k - 1), pow(side, k - 2)) {
            (Some(p), Some(r)) if within(p, 2) && within(r, line_bytes) => (p as usize, r as usize),
            _ => {
                return Err(Error::too_large(
                    format!("Nim with a pass on {k} heaps of size up to {}", side - 1),
                    format!(
                        "more than {} MiB; choose a smaller maximum",
                        MAX_BYTES >> 20
                    ),
                ))
            }
        };
        if side as u64 - 1 > Self::MAX_HEAP {
            return Err(Self::heaps_too_large(side as u64 - 1));
        }
        let mut lines: Vec<Vec<u64>> = (0..k - 1).map(|_| vec![0u64; rows * wpr]).collect();
        let mut last = vec![NONE; prefixes];
        let phase = crate::progress::phase("lines", Some(prefixes as u64));
        // 2^16 lines at a time, between them a look at the cancellation token. The lines are
        // their own function so that the check does not cost the loop registers.
        for start in (0..prefixes).step_by(1 << 16) {
            crate::cancel::check()?;
            phase.set(start as u64);
            let end = (start + (1 << 16)).min(prefixes);
            last_positions(k, side, start..end, &mut lines, &mut last[start..end]);
        }
        phase.set(prefixes as u64);
        Ok(NimPass { k, side, last })
    }

    /// Heaps K per position.
    pub fn heaps(&self) -> usize {
        self.k
    }

    /// Values per heap: sizes 0..side.
    pub fn side(&self) -> usize {
        self.side
    }

    /// Is (heaps, 1) a P-position? Every heap must be below `side`.
    pub fn is_p(&self, heaps: &[usize]) -> bool {
        debug_assert_eq!(heaps.len(), self.k);
        let p = heaps[..self.k - 1]
            .iter()
            .fold(0, |acc, &a| acc * self.side + a);
        self.last[p] as usize == heaps[self.k - 1]
    }

    /// Number of P-positions with the pass available.
    pub fn count(&self) -> u64 {
        self.last.iter().filter(|&&a| a != NONE).count() as u64
    }

    /// Every P-position with the pass available, in lexicographic order.
    /// `f` may stop the walk by returning an error, which is passed on.
    pub fn for_each<E>(&self, mut f: impl FnMut(&[usize]) -> Result<(), E>) -> Result<(), E> {
        let mut heaps = vec![0usize; self.k];
        for (p, &a) in self.last.iter().enumerate() {
            if a == NONE {
                continue;
            }
            let mut rest = p;
            for d in (0..self.k - 1).rev() {
                heaps[d] = rest % self.side;
                rest /= self.side;
            }
            heaps[self.k - 1] = a as usize;
            f(&heaps)?;
        }
        Ok(())
    }
}

/// The reference: Grundy numbers of (heaps, p) by the plain recursive mex, reductions of one
/// heap plus the pass (never from the terminal position).
pub fn grundy_naive(heaps: &[u8], pass: bool, memo: &mut HashMap<(Vec<u8>, bool), u32>) -> u32 {
    if let Some(&g) = memo.get(&(heaps.to_vec(), pass)) {
        return g;
    }
    let mut values = Vec::new();
    for i in 0..heaps.len() {
        for smaller in 0..heaps[i] {
            let mut h = heaps.to_vec();
            h[i] = smaller;
            values.push(grundy_naive(&h, pass, memo));
        }
    }
    if pass && heaps.iter().any(|&a| a > 0) {
        values.push(grundy_naive(heaps, false, memo));
    }
    let g = mex_of(values);
    memo.insert((heaps.to_vec(), pass), g);
    g
}

/// Every position of `k` heaps with sizes `0..side`, in lexicographic order (for checks and
/// tests that walk the whole table).
pub fn all_positions(k: usize, side: usize) -> Vec<Vec<usize>> {
    (0..side.pow(k as u32))
        .map(|mut p| {
            let mut h = vec![0; k];
            for d in (0..k).rev() {
                h[d] = p % side;
                p /= side;
            }
            h
        })
        .collect()
}

/// What cell (i,j) of C(m,m) is as the position (i-1, j-1, m-i, m-j) of four-heap Nim
/// (docs/mathematics.md §4): a plain Nim P-position (nim-sum 0, i.e. a P-cell of the chocolate
/// game), a P-position of Nim with the pass still available, both, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassCell {
    /// Neither kind of P-position.
    Neither,
    /// A plain Nim P-position only.
    Nim,
    /// A P-position with the pass available only.
    Pass,
    /// Both: only the lone cell of C(1,1), which is terminal.
    Both,
}

impl PassCell {
    /// Palette order of the picture: neither, Nim, pass, both.
    pub fn index(self) -> u8 {
        match self {
            PassCell::Neither => 0,
            PassCell::Nim => 1,
            PassCell::Pass => 2,
            PassCell::Both => 3,
        }
    }
}

/// Cell (i,j) (1-based) of C(m,m) as Nim with a pass, from the four-heap table `t`
/// (`t.side() ≥ m`).
pub fn pass_cell(t: &NimPass, m: u64, i: u64, j: u64) -> PassCell {
    let heaps = [
        (i - 1) as usize,
        (j - 1) as usize,
        (m - i) as usize,
        (m - j) as usize,
    ];
    match (crate::chocolate::p_cell(m, m, i, j), t.is_p(&heaps)) {
        (true, true) => PassCell::Both,
        (true, false) => PassCell::Nim,
        (false, true) => PassCell::Pass,
        (false, false) => PassCell::Neither,
    }
}

/// The P-cells of C(m,m) as Nim with a pass: (cells whose position is P with the pass
/// available, cells that are plain Nim P-positions), counted from the table and the P-test.
pub fn pass_cell_counts(t: &NimPass, m: u64) -> (u64, u64) {
    let (mut pass_p, mut nim_p) = (0, 0);
    for i in 1..=m {
        for j in 1..=m {
            let c = pass_cell(t, m, i, j);
            pass_p += matches!(c, PassCell::Pass | PassCell::Both) as u64;
            nim_p += matches!(c, PassCell::Nim | PassCell::Both) as u64;
        }
    }
    (pass_p, nim_p)
}

/// The last heap of the P-position on each line `p` of `lines_range` (`last[i]` for line
/// `lines_range.start + i`), marking each in the `lines` bitsets of the families it blocks.
#[inline(never)]
fn last_positions(
    k: usize,
    side: usize,
    lines_range: std::ops::Range<usize>,
    lines: &mut [Vec<u64>],
    last: &mut [u16],
) {
    let wpr = side.div_ceil(64);
    let mut prefix = [0usize; 3];
    let mut row = [0usize; 3];
    for (p, slot) in lines_range.zip(last.iter_mut()) {
        // prefix digits, most significant first
        let mut rest = p;
        for d in (0..k - 1).rev() {
            prefix[d] = rest % side;
            rest /= side;
        }
        // the row of family j: the prefix without heap j, as a base-`side` number
        for (j, r) in row.iter_mut().enumerate().take(k - 1) {
            *r = (0..k - 1)
                .filter(|&d| d != j)
                .fold(0, |acc, d| acc * side + prefix[d]);
        }
        let s = prefix[..k - 1].iter().fold(0, |acc, &a| acc ^ a);
        let terminal_line = prefix[..k - 1].iter().all(|&a| a == 0);
        let mut found = None;
        for w in 0..wpr {
            let mut blocked = 0u64;
            for (j, family) in lines.iter().enumerate() {
                blocked |= family[row[j] * wpr + w];
            }
            // nim-sum zero (a_{K-1} = s) is N: the pass reaches a P-position. Except the
            // terminal position, which is P.
            if s / 64 == w && !terminal_line {
                blocked |= 1 << (s % 64);
            }
            if w == wpr - 1 && !side.is_multiple_of(64) {
                blocked |= !0u64 << (side % 64);
            }
            if blocked != u64::MAX {
                found = Some(w * 64 + blocked.trailing_ones() as usize);
                break;
            }
        }
        if let Some(a) = found {
            *slot = a as u16;
            for (j, family) in lines.iter_mut().enumerate() {
                family[row[j] * wpr + a / 64] |= 1 << (a % 64);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pass::gp::GpTable;

    #[test]
    fn line_bits_match_recursive_mex() {
        for (k, side) in [(2usize, 37usize), (3, 11), (4, 7)] {
            let fast = NimPass::compute(k, side).unwrap();
            let mut memo = HashMap::new();
            let mut count = 0;
            for h in all_positions(k, side) {
                let small: Vec<u8> = h.iter().map(|&a| a as u8).collect();
                let p = grundy_naive(&small, true, &mut memo) == 0;
                assert_eq!(fast.is_p(&h), p, "{h:?}");
                count += p as u64;
            }
            assert_eq!(fast.count(), count);
            let mut listed = 0;
            fast.for_each(|h| {
                assert!(fast.is_p(h));
                listed += 1;
                Ok::<(), std::convert::Infallible>(())
            })
            .unwrap();
            assert_eq!(listed, count);
        }
    }

    #[test]
    fn two_heaps_are_the_zeros_of_g_p() {
        let side = 150;
        let fast = NimPass::compute(2, side).unwrap();
        let gp = GpTable::compute(side as u64).unwrap();
        for x in 0..side {
            for y in 0..side {
                assert_eq!(fast.is_p(&[x, y]), gp.get(x, y) == 0, "({x},{y})");
            }
        }
    }

    #[test]
    fn wavefront_twin_matches_the_lexicographic_method() {
        for side in [1usize, 2, 7, 37, 45] {
            let a = NimPass::compute(4, side).unwrap();
            let b = NimPass::from_wavefront(side, &wavefront::run_cpu(side));
            assert_eq!(a.last, b.last, "side {side}");
        }
    }

    #[test]
    fn pass_cells_of_the_bar_are_the_listed_positions() {
        // C(m,m)'s cells are the positions (a,b,c,d) with a+c = b+d = m-1: count those among
        // the listed P-positions, and the plain P-cells by the recurrence g(m).
        let t = NimPass::compute(4, 24).unwrap();
        for m in 1..=24u64 {
            let mut listed = 0u64;
            t.for_each(|h| {
                listed += (h[0] + h[2] == m as usize - 1 && h[1] + h[3] == m as usize - 1) as u64;
                Ok::<(), std::convert::Infallible>(())
            })
            .unwrap();
            let (pass_p, nim_p) = pass_cell_counts(&t, m);
            assert_eq!(pass_p, listed, "m = {m}");
            assert_eq!(
                nim_p as u128,
                crate::chocolate::g_recurrence(m).unwrap(),
                "m = {m}"
            );
        }
        assert_eq!(pass_cell(&t, 1, 1, 1), PassCell::Both);
    }

    #[test]
    fn a_smaller_table_is_a_corner_of_a_larger_one() {
        let (a, b) = (
            NimPass::compute(4, 13).unwrap(),
            NimPass::compute(4, 70).unwrap(),
        );
        for h in all_positions(4, 13) {
            assert_eq!(a.is_p(&h), b.is_p(&h), "{h:?}");
        }
    }
}

/// The four-heap wavefront, CPU twin of `shaders/nimpass.wgsl` with the same buffers.
///
/// Prefixes (a0,a1,a2) with the same sum t are independent: each reads the three line rows
/// through it, (a1,a2), (a0,a2) and (a0,a1), which only prefixes with a smaller sum have
/// written, and no two prefixes of one sum share a row. So the GPU runs one dispatch per sum.
/// Layout: `lines` holds 3 families × side² rows × `line_words(side)` u32 words, bit 31 of
/// word 0 = heap value 0; `last` packs one u16 per prefix (even prefixes in the low half of
/// a u32, odd in the high half; 0xFFFF = no P-position on the line). The prefixes 2k and
/// 2k+1 sharing a u32 never have the same sum (their a2 differ by one, or 2k ends a row of
/// odd side and the sums differ by side-2 > 0), so they never run in the same dispatch.
pub mod wavefront {
    /// u32 words in one line row.
    pub fn line_words(side: usize) -> usize {
        side.div_ceil(32)
    }

    /// u32 words of `last` for `side` values per heap.
    pub fn last_words(side: usize) -> usize {
        side.pow(3).div_ceil(2)
    }

    /// One prefix of one level: the body of the kernel `nimpass_level`.
    pub fn nimpass_level(side: usize, a: [usize; 3], lines: &mut [u32], last: &mut [u32]) {
        let wpr = line_words(side);
        let rows = [
            a[1] * side + a[2],
            side * side + a[0] * side + a[2],
            2 * side * side + a[0] * side + a[1],
        ];
        let s = a[0] ^ a[1] ^ a[2];
        let terminal = (a[0] | a[1] | a[2]) == 0;
        let mut found = None;
        for w in 0..wpr {
            let mut blocked =
                lines[rows[0] * wpr + w] | lines[rows[1] * wpr + w] | lines[rows[2] * wpr + w];
            if !terminal && s / 32 == w {
                blocked |= 0x8000_0000 >> (s % 32);
            }
            if w == wpr - 1 && !side.is_multiple_of(32) {
                blocked |= u32::MAX >> (side % 32);
            }
            if blocked != u32::MAX {
                found = Some(w * 32 + (!blocked).leading_zeros() as usize);
                break;
            }
        }
        let p = (a[0] * side + a[1]) * side + a[2];
        let value = match found {
            Some(v) => {
                for r in rows {
                    lines[r * wpr + v / 32] |= 0x8000_0000 >> (v % 32);
                }
                v as u32
            }
            None => 0xFFFF,
        };
        let shift = 16 * (p % 2);
        last[p / 2] = (last[p / 2] & !(0xFFFF << shift)) | (value << shift);
    }

    /// Every level in order, each prefix of a level in turn: the dispatch sequence of the GPU.
    pub fn run_cpu(side: usize) -> Vec<u32> {
        let mut lines = vec![0u32; 3 * side * side * line_words(side)];
        let mut last = vec![0u32; last_words(side)];
        for t in 0..=3 * (side - 1) {
            for a0 in 0..side {
                for a1 in 0..side {
                    if let Some(a2) = t.checked_sub(a0 + a1).filter(|&a2| a2 < side) {
                        nimpass_level(side, [a0, a1, a2], &mut lines, &mut last);
                    }
                }
            }
        }
        last
    }
}

impl NimPass {
    /// Four heaps from the packed per-prefix table of [`wavefront`] (CPU twin or GPU).
    pub fn from_wavefront(side: usize, packed: &[u32]) -> NimPass {
        let last = (0..side.pow(3))
            .map(|p| (packed[p / 2] >> (16 * (p % 2))) as u16)
            .collect();
        NimPass { k: 4, side, last }
    }
}
