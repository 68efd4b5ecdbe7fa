//! Transpose symmetry for square boxes: one bit for each pair of transposed positions.
//!
//! A position and its transpose have the same outcome, so the table of an n×n box needs only
//! one of every pair. The index here, the *hook index*, keeps the forward solver's runs of
//! consecutive ranks.
//!
//! # The hook index
//! A non-empty position λ has a first row of a cells and b rows (its *hook* (a, b)); under the
//! hook lies its *interior* μ = (λ_2 - 1, …, λ_b - 1), a diagram of at most b-1 rows of at
//! most a-1 cells. Transposing swaps a and b and transposes μ. So λ is *stored* when
//! - a > b: every interior, ranked by the colex rank of the (b-1)×(a-1) box;
//! - a = b = k: the interior is a position of the (k-1)×(k-1) square, stored by this same
//!   index (a *child* square), or, for squares smaller than the index's `min_child`, all of
//!   them in colex order (the pairs there cost a few megabytes and keep the tree small);
//! - a < b: never (its transpose is stored).
//!
//! The square's index runs: the empty diagram (index 0), then the hooks by a + b ascending,
//! within one sum a descending, the diagonal hook (k, k) last. Each hook's positions are one
//! contiguous *block*.
//!
//! A parent has a larger hook sum or the same hook, so the blocks of one hook sum are
//! independent. Steps: the empty diagram, then for each sum the prefix-volume layers of its
//! colex blocks (`engine::schedule`) side by side with the steps of its child square. The
//! forward solver on this index: `two_player::hook_parents`.
//!
//! Tests: this file's unit tests; src/chomp/two_player/hook_parents.rs and tests/games/blocks.rs
//! through the tables solved in it.

use crate::chomp::bits;
use crate::chomp::diagram::binomial;
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Largest square side the index handles (row buffers live on the stack).
pub const MAX_SIDE: usize = 31;

/// Row lengths of a square position, zeros after its last row.
pub type Rows = [u32; MAX_SIDE + 1];

/// The smallest child square kept by index in a run of the n-square: n - 6. Smaller children
/// store both of each pair; each level below halves the position count and doubles the number
/// of steps, so six levels keep the 20×20 table within 1 % of half (8.67 GB) in 57,000 steps.
pub fn min_child_for(n: usize) -> usize {
    n.saturating_sub(6)
}

/// What one block of a square holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The empty diagram of the square (index 0 of it).
    Empty,
    /// Interiors in the colex order of an r×c box: the hook (c+1, r+1).
    Colex { r: usize, c: u32 },
    /// The interiors of a diagonal hook (k, k), by the index of the (k-1)-square.
    Child { m: usize },
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Block {
    pub(crate) off: u64,
    pub(crate) len: u64,
    /// The hook sum a + b (0 for the empty diagram). Blocks of one sum do not depend on each
    /// other: an option of a position has a smaller hook sum or the same hook.
    pub(crate) sum: usize,
    pub(crate) kind: Kind,
}

/// One piece of a step: step `step` of the block at `off` (relative to the square): the empty
/// diagram, a prefix-volume layer of a colex block, or a step of a child square.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seg {
    off: u64,
    kind: Kind,
    step: usize,
}

/// The index of one square side m.
#[derive(Debug, Clone, Default)]
pub(crate) struct Square {
    pub(crate) len: u64,
    /// `at[a * (m+1) + b]`: the block of hook (a, b), a ≥ b.
    pub(crate) at: Vec<usize>,
    /// Blocks in index order.
    pub(crate) blocks: Vec<Block>,
    pub(crate) steps: Vec<Vec<Seg>>,
}

/// The hook index of an n×n box (see the module text).
#[derive(Debug, Clone)]
pub struct HookIndex {
    pub(crate) n: usize,
    min_child: usize,
    /// `w[(r * (n+1) + j) * (n+1) + len]` = C(len + r-1-j, r-j): the colex weights of r rows.
    w: Vec<u64>,
    pub(crate) squares: Vec<Square>,
}

impl HookIndex {
    /// The index of the n×n box with child squares of side ≥ [`min_child_for`].
    pub fn new(n: usize) -> Result<HookIndex> {
        HookIndex::with_min_child(n, min_child_for(n))
    }

    /// The index of the n×n box whose diagonal hooks keep child squares of side ≥ `min_child`
    /// (smaller ones store all their interiors).
    pub fn with_min_child(n: usize, min_child: usize) -> Result<HookIndex> {
        if n == 0 || n > MAX_SIDE {
            return Err(Error::invalid(format!(
                "the hook index takes squares of side 1 to {MAX_SIDE}, not {n}"
            )));
        }
        let s = n + 1;
        let mut w = vec![0u64; s * s * s];
        for r in 0..=n {
            for j in 0..r {
                for len in 0..=n {
                    w[(r * s + j) * s + len] =
                        binomial((len + r - 1 - j) as u64, (r - j) as u64).expect("small");
                }
            }
        }
        let mut index = HookIndex {
            n,
            min_child,
            w,
            squares: Vec::new(),
        };
        for m in 0..=n {
            let sq = index.build_square(m);
            index.squares.push(sq);
        }
        Ok(index)
    }

    fn build_square(&self, m: usize) -> Square {
        let mut sq = Square {
            at: vec![usize::MAX; (m + 1) * (m + 1)],
            ..Square::default()
        };
        sq.blocks.push(Block {
            off: 0,
            len: 1,
            sum: 0,
            kind: Kind::Empty,
        });
        let kind = Kind::Empty;
        sq.steps.push(vec![Seg {
            off: 0,
            kind,
            step: 0,
        }]);
        let mut off = 1u64;
        for sum in 2..=2 * m {
            // Step i of the sum: step i of each of its blocks, side by side.
            let mut group: Vec<Vec<Seg>> = Vec::new();
            for a in (sum.div_ceil(2)..=m.min(sum - 1)).rev() {
                let b = sum - a;
                // A diagonal hook's interiors are a child square's (a > min_child), with its
                // steps, or, like every other hook's, the colex box of b-1 rows of a-1 cells,
                // with its prefix-volume layers.
                let (kind, len, steps) = if a == b && a > self.min_child {
                    let child = &self.squares[a - 1];
                    (Kind::Child { m: a - 1 }, child.len, child.steps.len())
                } else {
                    let (r, c) = (b - 1, a as u32 - 1);
                    let len = binomial(r as u64 + c as u64, r as u64).expect("small");
                    (Kind::Colex { r, c }, len, (r / 2) * c as usize + 1)
                };
                sq.at[a * (m + 1) + b] = sq.blocks.len();
                sq.blocks.push(Block {
                    off,
                    len,
                    sum,
                    kind,
                });
                group.resize_with(group.len().max(steps), Vec::new);
                for (step, g) in group.iter_mut().enumerate().take(steps) {
                    g.push(Seg { off, kind, step });
                }
                off += len;
            }
            sq.steps.extend(group);
        }
        sq.len = off;
        sq
    }

    /// The side n.
    pub fn side(&self) -> usize {
        self.n
    }

    /// The smallest side of a child square (see [`HookIndex::with_min_child`]).
    pub fn min_child(&self) -> usize {
        self.min_child
    }

    /// Number of indexes (stored positions, the empty diagram included).
    pub fn len(&self) -> u64 {
        self.squares[self.n].len
    }

    /// Never: the empty diagram is always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The blocks of the whole square (the positions of one hook each, or the empty diagram),
    /// in index order.
    pub(crate) fn blocks(&self) -> &[Block] {
        &self.squares[self.n].blocks
    }

    /// Number of steps of the schedule.
    pub fn steps(&self) -> u64 {
        self.squares[self.n].steps.len() as u64
    }

    #[inline]
    pub(crate) fn weight(&self, r: usize, j: usize, len: u32) -> u64 {
        let s = self.n + 1;
        self.w[(r * s + j) * s + len as usize]
    }

    pub(crate) fn colex_rank(&self, r: usize, rows: &[u32]) -> u64 {
        (0..r).map(|j| self.weight(r, j, rows[j])).sum()
    }

    pub(crate) fn colex_unrank(&self, r: usize, c: u32, mut x: u64, out: &mut [u32]) {
        let mut hi = c;
        for (j, row) in out.iter_mut().enumerate().take(r) {
            let mut len = hi;
            while self.weight(r, j, len) > x {
                len -= 1;
            }
            x -= self.weight(r, j, len);
            *row = len;
            hi = len;
        }
    }

    /// The index of `rows` (a position of the m-square, at least its non-empty rows) in that
    /// square, or `None` when it is not stored (its transpose is).
    pub(crate) fn index_in(&self, m: usize, rows: &[u32]) -> Option<u64> {
        let a = rows.first().copied().unwrap_or(0) as usize;
        if a == 0 {
            return Some(0);
        }
        let b = rows.iter().take_while(|&&x| x > 0).count();
        if a < b {
            return None;
        }
        let sq = &self.squares[m];
        let blk = sq.blocks[sq.at[a * (m + 1) + b]];
        let mut mu = [0u32; MAX_SIDE + 1];
        let inner = if a > b { b - 1 } else { a - 1 };
        for i in 0..inner {
            mu[i] = rows[i + 1] - 1;
        }
        match blk.kind {
            Kind::Colex { r, .. } => Some(blk.off + self.colex_rank(r, &mu)),
            Kind::Child { m: mc } => self.index_in(mc, &mu[..mc]).map(|x| blk.off + x),
            Kind::Empty => unreachable!("a ≥ 1"),
        }
    }

    /// The index of a position of the box (row lengths, non-increasing, at most n of them, each
    /// at most n): its own when stored, else its transpose's. `None` when it does not fit.
    pub fn index(&self, rows: &[u32]) -> Option<u64> {
        let n = self.n;
        let nz = rows.iter().take_while(|&&x| x > 0).count();
        if nz > n || rows.first().is_some_and(|&a| a as usize > n) {
            return None;
        }
        if rows[nz..].iter().any(|&x| x > 0) || rows.windows(2).any(|w| w[0] < w[1]) {
            return None;
        }
        let mut full = [0u32; MAX_SIDE + 1];
        full[..nz].copy_from_slice(&rows[..nz]);
        self.index_in(n, &full[..n])
            .or_else(|| self.index_in(n, &transpose(&full, n)[..n]))
    }

    /// The index of the position of colex rank `r` of the n×n box (`ranker` is the box's):
    /// its own, or its transpose's.
    pub fn index_of_rank(&self, ranker: &crate::chomp::index::Ranker, r: u64) -> u64 {
        let mut rows = [0u32; MAX_SIDE + 1];
        ranker.unrank_into(r, &mut rows[..self.n]);
        self.index(&rows[..self.n]).expect("a rank of the box")
    }

    /// The stored position of index `x` (all n rows, zeros after the last).
    pub fn unrank(&self, x: u64) -> Rows {
        let mut out = [0u32; MAX_SIDE + 1];
        self.unrank_in(self.n, x, &mut out);
        out
    }

    pub(crate) fn unrank_in(&self, m: usize, x: u64, out: &mut [u32]) {
        out[..m].iter_mut().for_each(|r| *r = 0);
        let sq = &self.squares[m];
        let i = sq.blocks.partition_point(|b| b.off <= x) - 1;
        let blk = sq.blocks[i];
        let mut mu = [0u32; MAX_SIDE + 1];
        let (a, b, inner) = match blk.kind {
            Kind::Empty => return,
            Kind::Colex { r, c } => {
                self.colex_unrank(r, c, x - blk.off, &mut mu);
                let a = c + 1;
                let b = if (c as usize) > r { r + 1 } else { a as usize };
                (a, b, r)
            }
            Kind::Child { m: mc } => {
                self.unrank_in(mc, x - blk.off, &mut mu);
                ((mc + 1) as u32, mc + 1, mc)
            }
        };
        out[0] = a;
        for i in 1..b {
            out[i] = if i - 1 < inner { mu[i - 1] + 1 } else { 1 };
        }
    }

    /// The ranges (first index, length) of step `step`, each walked in index order, the
    /// ranges of one step independent of each other.
    pub fn step_ranges(&self, step: u64, out: &mut Vec<(u64, u64)>) {
        out.clear();
        for seg in &self.squares[self.n].steps[step as usize] {
            self.seg_ranges(*seg, 0, out);
        }
    }

    fn seg_ranges(&self, seg: Seg, base: u64, out: &mut Vec<(u64, u64)>) {
        let off = base + seg.off;
        match seg.kind {
            Kind::Empty => out.push((off, 1)),
            Kind::Child { m } => {
                for s in &self.squares[m].steps[seg.step] {
                    self.seg_ranges(*s, off, out);
                }
            }
            Kind::Colex { r, c } => self.prefixes(r, 0, seg.step as u64, c, off, out),
        }
    }

    /// The prefix blocks of the colex box of r rows whose prefix (its first ⌊r/2⌋ rows) has
    /// `rem` cells in rows `j..`, each at most `cap`: each a range of every filling of the
    /// other rows under the prefix's last row (`cap` once the prefix is whole).
    fn prefixes(
        &self,
        r: usize,
        j: usize,
        rem: u64,
        cap: u32,
        acc: u64,
        out: &mut Vec<(u64, u64)>,
    ) {
        let p = r / 2;
        if j == p {
            if rem == 0 {
                let free = (r - p) as u64;
                out.push((acc, binomial(cap as u64 + free, free).expect("small")));
            }
            return;
        }
        for len in rem.div_ceil((p - j) as u64)..=(cap as u64).min(rem) {
            let w = self.weight(r, j, len as u32);
            self.prefixes(r, j + 1, rem - len, len as u32, acc + w, out);
        }
    }

    /// The P-positions of the box from P-bits in `words`, bit 0 standing for index `base`
    /// (a multiple of 64: a whole table, or one window of it), weighted by
    /// [`HookIndex::leaf_weights`].
    pub fn p_count(&self, words: &[AtomicU64], base: u64) -> u64 {
        let leaves = self.leaf_weights();
        let chunks = words.par_chunks(1 << 14).enumerate();
        chunks
            .map(|(c, w)| {
                let first = base + ((c as u64) << 20);
                weighted_count(&leaves, first, 64 * w.len() as u64, |i| w[i].load(Relaxed))
            })
            .sum()
    }

    /// The leaf blocks in index order: (first index, one past the last, how many positions of
    /// the square each index stands for: 2 in a colex block of a hook (a, b), a > b, at any
    /// depth, whose transposes are not stored; 1 elsewhere), adjacent ones of one weight
    /// merged. The P-count of a table is the weighted sum of its set bits, the histogram of an
    /// ordinal table by transposed pairs the weighted count of its entries.
    pub fn leaf_weights(&self) -> Vec<(u64, u64, u64)> {
        fn walk(hook: &HookIndex, m: usize, base: u64, out: &mut Vec<(u64, u64, u64)>) {
            for blk in &hook.squares[m].blocks {
                let lo = base + blk.off;
                let w = match blk.kind {
                    Kind::Child { m: mc } => {
                        walk(hook, mc, lo, out);
                        continue;
                    }
                    Kind::Colex { r, c } if c as usize > r => 2,
                    _ => 1,
                };
                match out.last_mut() {
                    Some(last) if last.1 == lo && last.2 == w => last.1 = lo + blk.len,
                    _ => out.push((lo, lo + blk.len, w)),
                }
            }
        }
        let mut out = Vec::new();
        walk(self, self.n, 0, &mut out);
        out
    }
}

/// The P-count of bits `first..first + len` of a table in a hook index, bit b (counted from
/// `first`) read from word b / 64 of `word`, weighted as `leaves` ([`HookIndex::leaf_weights`])
/// say: the one count of a table in memory, a file read in chunks or one read from a device.
pub fn weighted_count(
    leaves: &[(u64, u64, u64)],
    first: u64,
    len: u64,
    word: impl Fn(usize) -> u64,
) -> u64 {
    let end = first + len;
    let start = leaves.partition_point(|&(_, hi, _)| hi <= first);
    let leaves = leaves[start..].iter().take_while(|&&(lo, _, _)| lo < end);
    leaves
        .map(|&(lo, hi, w)| {
            w * bits::count_range(&word, lo.max(first) - first, hi.min(end) - first)
        })
        .sum()
}

/// The transpose of a position of the n-square (rows given to at least n entries).
pub fn transpose(rows: &[u32], n: usize) -> Rows {
    let mut t = [0u32; MAX_SIDE + 1];
    for (i, ti) in t.iter_mut().enumerate().take(n) {
        *ti = rows[..n].iter().take_while(|&&x| x as usize > i).count() as u32;
    }
    t
}
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::chomp::diagram::ChompBox;

    /// Every position of the n-square, in colex order.
    pub(crate) fn all_positions(n: usize) -> Vec<Rows> {
        let rk = crate::chomp::index::Ranker::new(ChompBox::square(n)).unwrap();
        let mut out = Vec::new();
        let mut rows = vec![0u32; n];
        for r in 0..rk.len() {
            rk.unrank_into(r, &mut rows);
            let mut x = [0u32; MAX_SIDE + 1];
            x[..n].copy_from_slice(&rows);
            out.push(x);
        }
        out
    }

    #[test]
    fn the_index_stores_one_of_every_pair_densely() {
        for n in 1..=8 {
            for min_child in [0, 1, 3, 100] {
                let ix = HookIndex::with_min_child(n, min_child).unwrap();
                let mut seen = vec![0u32; ix.len() as usize];
                for x in all_positions(n) {
                    let t = transpose(&x, n);
                    let i = ix.index(&x[..n]).unwrap();
                    if ix.index_in(n, &x[..n]).is_none() || ix.index_in(n, &t[..n]).is_none() {
                        assert_eq!(Some(i), ix.index(&t[..n]), "{n}: {x:?} and its transpose");
                    }
                    if let Some(own) = ix.index_in(n, &x[..n]) {
                        seen[own as usize] += 1;
                        assert_eq!(ix.unrank(own), x, "{n}/{min_child}: unrank");
                    }
                }
                assert!(seen.iter().all(|&c| c == 1), "{n}/{min_child}: a bijection");
                if min_child == 0 {
                    // Fully nested: exactly the pairs and the self-transposed positions.
                    let total = binomial(2 * n as u64, n as u64).unwrap();
                    assert_eq!(ix.len(), (total + (1 << n)) / 2, "{n}");
                }
            }
        }
    }

    #[test]
    fn the_steps_cover_every_index_once() {
        for n in 1..=7 {
            for min_child in [0, 2, 100] {
                let ix = HookIndex::with_min_child(n, min_child).unwrap();
                let mut seen = vec![0u32; ix.len() as usize];
                let mut ranges = Vec::new();
                for step in 0..ix.steps() {
                    ix.step_ranges(step, &mut ranges);
                    for &(b, l) in &ranges {
                        (b..b + l).for_each(|q| seen[q as usize] += 1);
                    }
                }
                assert!(seen.iter().all(|&c| c == 1), "{n}/{min_child}");
            }
        }
    }
}
