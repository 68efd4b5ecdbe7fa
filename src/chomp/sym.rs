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
//! # Solving in this index
//! [`solve_forward`] is the forward solver of [`super::push`] on this index: a stored
//! position reached without a mark is P and marks every stored parent of itself and of its
//! transpose (a parent of λᵀ is the transpose of a parent of λ, so between them they mark the
//! stored one of every pair). The parents of one run of equal rows are a *fill* (those rows
//! refilled non-increasingly from a range), and a fill splits by the hooks it reaches: in a
//! colex block it is the colex fill of [`super::push`] (consecutive ranks in the last row, a
//! whole rank range when the rows to the end start from 0), in a child square it is again a
//! fill, one level down.
//!
//! A parent has a larger hook sum or the same hook, so the blocks of one hook sum are
//! independent. Steps: the empty diagram, then for each sum the prefix-volume layers of its
//! colex blocks (as in [`super::solve`]) side by side with the steps of its child square.
//!
//! Tests: this file's unit tests; tests/games/blocks.rs and tests/games/chomp/two_player.rs through
//! the tables it solves.

use super::diagram::binomial;
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

/// Fillings past which one fill's first row is shared out among the threads.
const PARALLEL_FILLINGS: u64 = 1 << 22;

/// What one block of a square holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The empty diagram of the square (index 0 of it).
    Empty,
    /// Interiors in the colex order of an r×c box.
    Colex { r: usize, c: u32 },
    /// The interiors of a diagonal hook (k, k), by the index of the (k-1)-square.
    Child { m: usize },
}

#[derive(Debug, Clone, Copy)]
struct Block {
    off: u64,
    len: u64,
    /// The hook sum a + b (0 for the empty diagram).
    sum: usize,
    kind: Kind,
}

/// A block of the whole square's index: the positions of one hook (or the empty diagram).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookBlock {
    /// Its first index.
    pub lo: u64,
    /// One past its last index.
    pub hi: u64,
    /// Its hook sum a + b, 0 for the empty diagram. Blocks of one sum do not depend on each
    /// other: an option of a position has a smaller hook sum or the same hook.
    pub sum: usize,
}

/// One piece of a step: the empty diagram, a prefix-volume layer of a colex block, or a step
/// of a child square; offsets relative to the square.
#[derive(Debug, Clone, Copy)]
enum Seg {
    Empty { off: u64 },
    Colex { off: u64, r: usize, c: u32, v: u64 },
    Child { off: u64, m: usize, step: usize },
}

/// The index of one square side m.
#[derive(Debug, Clone, Default)]
struct Square {
    len: u64,
    /// `at[a * (m+1) + b]`: the block of hook (a, b), a ≥ b.
    at: Vec<usize>,
    /// Blocks in index order.
    blocks: Vec<Block>,
    steps: Vec<Vec<Seg>>,
}

/// The hook index of an n×n box (see the module text).
#[derive(Debug, Clone)]
pub struct SymIndex {
    n: usize,
    min_child: usize,
    /// `w[(r * (n+1) + j) * (n+1) + len]` = C(len + r-1-j, r-j): the colex weights of r rows.
    w: Vec<u64>,
    squares: Vec<Square>,
}

impl SymIndex {
    /// The index of the n×n box with child squares of side ≥ [`min_child_for`].
    pub fn new(n: usize) -> Result<SymIndex> {
        SymIndex::with_min_child(n, min_child_for(n))
    }

    /// The index of the n×n box whose diagonal hooks keep child squares of side ≥ `min_child`
    /// (smaller ones store all their interiors).
    pub fn with_min_child(n: usize, min_child: usize) -> Result<SymIndex> {
        if n == 0 || n > MAX_SIDE {
            return Err(Error::invalid(format!(
                "the symmetric index takes squares of side 1 to {MAX_SIDE}, not {n}"
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
        let mut index = SymIndex {
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
        sq.steps.push(vec![Seg::Empty { off: 0 }]);
        let mut off = 1u64;
        for sum in 2..=2 * m {
            let mut group: Vec<Vec<Seg>> = Vec::new();
            let add = |steps: Vec<Seg>, group: &mut Vec<Vec<Seg>>| {
                for (i, seg) in steps.into_iter().enumerate() {
                    if group.len() <= i {
                        group.push(Vec::new());
                    }
                    group[i].push(seg);
                }
            };
            for a in (sum.div_ceil(2)..=m.min(sum - 1)).rev() {
                let b = sum - a;
                let kind = if a > b {
                    Kind::Colex {
                        r: b - 1,
                        c: a as u32 - 1,
                    }
                } else if a > self.min_child {
                    Kind::Child { m: a - 1 }
                } else {
                    Kind::Colex {
                        r: a - 1,
                        c: a as u32 - 1,
                    }
                };
                let (len, steps) = match kind {
                    Kind::Colex { r, c } => {
                        let len = binomial((r as u64) + c as u64, r as u64).expect("small");
                        let layers = (r / 2) as u64 * c as u64 + 1;
                        (
                            len,
                            (0..layers).map(|v| Seg::Colex { off, r, c, v }).collect(),
                        )
                    }
                    Kind::Child { m: mc } => (
                        self.squares[mc].len,
                        (0..self.squares[mc].steps.len())
                            .map(|step| Seg::Child { off, m: mc, step })
                            .collect(),
                    ),
                    Kind::Empty => unreachable!("hooks are not empty"),
                };
                sq.at[a * (m + 1) + b] = sq.blocks.len();
                sq.blocks.push(Block {
                    off,
                    len,
                    sum,
                    kind,
                });
                add(steps, &mut group);
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

    /// The smallest side of a child square (see [`SymIndex::with_min_child`]).
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

    /// The blocks of the whole square, in index order.
    pub fn hook_blocks(&self) -> Vec<HookBlock> {
        self.squares[self.n]
            .blocks
            .iter()
            .map(|b| HookBlock {
                lo: b.off,
                hi: b.off + b.len,
                sum: b.sum,
            })
            .collect()
    }

    /// Number of steps of the schedule.
    pub fn steps(&self) -> u64 {
        self.squares[self.n].steps.len() as u64
    }

    #[inline]
    fn weight(&self, r: usize, j: usize, len: u32) -> u64 {
        let s = self.n + 1;
        self.w[(r * s + j) * s + len as usize]
    }

    fn colex_rank(&self, r: usize, rows: &[u32]) -> u64 {
        (0..r).map(|j| self.weight(r, j, rows[j])).sum()
    }

    fn colex_unrank(&self, r: usize, c: u32, mut x: u64, out: &mut [u32]) {
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
    fn index_in(&self, m: usize, rows: &[u32]) -> Option<u64> {
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

    /// The stored position of index `x` (all n rows, zeros after the last).
    pub fn unrank(&self, x: u64) -> Rows {
        let mut out = [0u32; MAX_SIDE + 1];
        self.unrank_in(self.n, x, &mut out);
        out
    }

    fn unrank_in(&self, m: usize, x: u64, out: &mut [u32]) {
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
        match seg {
            Seg::Empty { off } => out.push((base + off, 1)),
            Seg::Child { off, m, step } => {
                for s in &self.squares[m].steps[step] {
                    self.seg_ranges(*s, base + off, out);
                }
            }
            Seg::Colex { off, r, c, v } => {
                let p = r / 2;
                let mut prefix = [0u32; MAX_SIDE + 1];
                self.prefixes(r, c, p, 0, v, c, base + off, &mut prefix, out);
            }
        }
    }

    /// The prefix blocks of p rows and volume `rem` of the colex r×c box: each a range of
    /// every filling of the last r-p rows under the prefix's last row.
    #[allow(clippy::too_many_arguments)]
    fn prefixes(
        &self,
        r: usize,
        c: u32,
        p: usize,
        j: usize,
        rem: u64,
        cap: u32,
        acc: u64,
        prefix: &mut [u32],
        out: &mut Vec<(u64, u64)>,
    ) {
        if j == p {
            if rem == 0 {
                let free = (r - p) as u64;
                let last = if p == 0 { c } else { prefix[p - 1] };
                out.push((acc, binomial(last as u64 + free, free).expect("small")));
            }
            return;
        }
        let left = (p - j) as u64;
        let hi = (cap as u64).min(rem);
        for len in rem.div_ceil(left)..=hi {
            prefix[j] = len as u32;
            let w = self.weight(r, j, len as u32);
            self.prefixes(r, c, p, j + 1, rem - len, len as u32, acc + w, prefix, out);
        }
    }

    /// Whether both a position and its transpose are stored (a diagonal hook whose interiors
    /// are all kept): a P found there counts once, not for its pair.
    pub fn both_stored(&self, rows: &[u32]) -> bool {
        self.index_in(self.n, &rows[..self.n]).is_some()
            && self
                .index_in(self.n, &transpose(rows, self.n)[..self.n])
                .is_some()
    }
}

/// The transpose of a position of the n-square (rows given to at least n entries).
pub fn transpose(rows: &[u32], n: usize) -> Rows {
    let mut t = [0u32; MAX_SIDE + 1];
    for (i, ti) in t.iter_mut().enumerate().take(n) {
        *ti = rows[..n].iter().take_while(|&&x| x as usize > i).count() as u32;
    }
    t
}

/// The part of a table a run holds in memory: indexes `lo..hi` of the hook index, bit
/// `r - base` of `words` standing for index `r`, where `base` is `lo` rounded down to a
/// multiple of 64 (the bits of a first or last word outside the window stay clear). A whole table is the window
/// `0..len`; a box larger than memory is solved one window after another (see
/// [`super::blocks`]).
#[derive(Debug, Clone, Copy)]
pub struct Window<'a> {
    /// First index held.
    pub lo: u64,
    /// One past the last index held.
    pub hi: u64,
    /// The window's bits.
    pub words: &'a [AtomicU64],
}

impl<'a> Window<'a> {
    /// The whole table of `index` in `words`.
    pub fn whole(index: &SymIndex, words: &'a [AtomicU64]) -> Window<'a> {
        Window {
            lo: 0,
            hi: index.len(),
            words,
        }
    }

    /// Indexes held.
    pub fn len(&self) -> u64 {
        self.hi - self.lo
    }

    /// The index of bit 0 of the first word: `lo` rounded down to a multiple of 64.
    pub fn base(&self) -> u64 {
        self.lo & !63
    }

    /// Words a window `lo..hi` takes.
    pub fn words_for(lo: u64, hi: u64) -> u64 {
        (hi - (lo & !63)).div_ceil(64)
    }

    /// Whether the window holds no index.
    pub fn is_empty(&self) -> bool {
        self.hi <= self.lo
    }

    /// `lo..hi` clipped to the window, if anything is left.
    fn clip(&self, lo: u64, hi: u64) -> Option<(u64, u64)> {
        let (a, b) = (lo.max(self.lo), hi.min(self.hi));
        (a < b).then_some((a, b))
    }
}

/// The forward solver's marks in the hook index, kept within one window: a parent outside it
/// is left for the window that holds it (which replays this window's P-positions). `W` says
/// whether the window is part of the table: the whole table's run compiles without the
/// window's checks.
struct SymPusher<'a, const W: bool> {
    index: &'a SymIndex,
    win: Window<'a>,
    parallel_above: u64,
}

impl<'a, const W: bool> SymPusher<'a, W> {
    fn new(index: &'a SymIndex, win: Window<'a>) -> SymPusher<'a, W> {
        debug_assert_eq!(W, !(win.lo == 0 && win.hi >= index.len()));
        SymPusher {
            index,
            win,
            parallel_above: PARALLEL_FILLINGS,
        }
    }

    #[inline]
    fn mark(&self, r: u64) {
        if !W {
            super::marks::mark(self.win.words, r);
        } else if r >= self.win.lo && r < self.win.hi {
            super::marks::mark(self.win.words, r - self.win.base());
        }
    }

    #[inline]
    fn mark_range(&self, lo: u64, hi: u64) {
        if !W {
            super::marks::mark_range(self.win.words, lo, hi);
        } else if let Some((a, b)) = self.win.clip(lo, hi) {
            super::marks::mark_range(self.win.words, a - self.win.base(), b - self.win.base());
        }
    }

    /// Whether indexes `lo..hi` miss the window (a fill there marks nothing here).
    fn outside(&self, lo: u64, hi: u64) -> bool {
        W && self.win.clip(lo, hi).is_none()
    }

    /// Mark the position `y` of the m-square at `off` when it is stored.
    fn mark_one(&self, m: usize, off: u64, y: &Rows) {
        if let Some(i) = self.index.index_in(m, &y[..m]) {
            self.mark(off + i);
        }
    }

    /// Mark every stored parent of the position `x` of the whole square.
    fn push_parents(&self, x: &Rows) {
        let n = self.index.n;
        let mut s = 0;
        while s < n {
            let t = x[s];
            let mut e = s;
            while e + 1 < n && x[e + 1] == t {
                e += 1;
            }
            let u = if s == 0 { n as u32 } else { x[s - 1] };
            if u > t {
                self.fill(n, 0, *x, s, e, t, u, true);
            }
            s = e + 1;
        }
    }

    /// Mark the stored positions among `x` (of the m-square at `off`) with rows s..=e refilled
    /// non-increasingly from [lo, hi], leaving out the filling all lo when `skip`. The rows
    /// above s are at least hi (hi ≤ m when s = 0), the rows below e at most lo.
    #[allow(clippy::too_many_arguments)]
    fn fill(&self, m: usize, off: u64, x: Rows, s: usize, e: usize, lo: u32, hi: u32, skip: bool) {
        if s == 0 {
            // The first row sets the hook's a.
            for a in lo..=hi {
                let mut y = x;
                y[0] = a;
                let sk = skip && a == lo;
                if e == 0 {
                    if !sk {
                        self.mark_one(m, off, &y);
                    }
                } else {
                    self.fill(m, off, y, 1, e, lo, a, sk);
                }
            }
            return;
        }
        if lo == 0 {
            // The rows below are empty: the number of rows filled sets the hook's b.
            let mut y = x;
            y[s..=e].iter_mut().for_each(|r| *r = 0);
            if !skip {
                self.mark_one(m, off, &y);
            }
            if hi == 0 {
                return;
            }
            for last in s..=e {
                self.fill_rows(m, off, y, s, last, 1, hi, false);
            }
            return;
        }
        self.fill_rows(m, off, x, s, e, lo, hi, skip);
    }

    /// [`SymPusher::fill`] with s ≥ 1 and lo ≥ 1: the hook is fixed, so the fill lies in one
    /// block.
    #[allow(clippy::too_many_arguments)]
    fn fill_rows(
        &self,
        m: usize,
        off: u64,
        mut x: Rows,
        s: usize,
        e: usize,
        lo: u32,
        hi: u32,
        skip: bool,
    ) {
        x[s..=e].iter_mut().for_each(|r| *r = lo);
        let a = x[0] as usize;
        let b = x[..m].iter().take_while(|&&v| v > 0).count();
        if a < b {
            return;
        }
        let sq = &self.index.squares[m];
        let blk = sq.blocks[sq.at[a * (m + 1) + b]];
        if self.outside(off + blk.off, off + blk.off + blk.len) {
            return;
        }
        let inner = if a > b { b - 1 } else { a - 1 };
        let mut mu = [0u32; MAX_SIDE + 1];
        for i in 0..inner {
            mu[i] = x[i + 1] - 1;
        }
        match blk.kind {
            Kind::Colex { r, c: _ } => {
                let base = off + blk.off + self.index.colex_rank(r, &mu);
                self.colex_fill(r, s - 1, e - 1, lo - 1, hi - 1, base, skip);
            }
            Kind::Child { m: mc } => {
                self.fill(mc, off + blk.off, mu, s - 1, e - 1, lo - 1, hi - 1, skip);
            }
            Kind::Empty => unreachable!("a ≥ 1"),
        }
    }

    /// Mark `base` moved by every non-increasing filling of rows f..=e of a colex box of r rows
    /// with values in [lo, cap] (`base` has those rows at lo), leaving out the filling all lo
    /// when `skip`.
    #[allow(clippy::too_many_arguments)]
    fn colex_fill(&self, r: usize, f: usize, e: usize, lo: u32, cap: u32, base: u64, skip: bool) {
        if W {
            // The fillings lie between `base` (all lo) and all rows at cap.
            let top: u64 = (f..=e)
                .map(|j| self.index.weight(r, j, cap) - self.index.weight(r, j, lo))
                .sum();
            if self.outside(base, base + top + 1) {
                return;
            }
        }
        if e + 1 == r {
            if lo == 0 {
                // Every filling of the rows to the end under cap: a contiguous range.
                let free = (r - f) as u64;
                let span = binomial(cap as u64 + free, free).unwrap_or(u64::MAX);
                self.mark_range(base + skip as u64, base + span);
                return;
            }
            if f == e {
                // The last row's weight is its length.
                self.mark_range(base + skip as u64, base + (cap - lo) as u64 + 1);
                return;
            }
        }
        let w0 = self.index.weight(r, f, lo);
        let body = |v: u32| {
            let moved = base + self.index.weight(r, f, v) - w0;
            let sk = skip && v == lo;
            if f == e {
                if !sk {
                    self.mark(moved);
                }
            } else {
                self.colex_fill(r, f + 1, e, lo, v, moved, sk);
            }
        };
        let len = (e - f + 1) as u64;
        if f < e && binomial(len + (cap - lo) as u64, len).unwrap_or(u64::MAX) > self.parallel_above
        {
            (lo..=cap).into_par_iter().for_each(body);
        } else {
            (lo..=cap).for_each(body);
        }
    }

    /// Walk indexes `base..base + len`: every unmarked one is P (index 0, the empty diagram,
    /// is not a position and is marked); it goes to `found` and marks the parents of its
    /// position and of that position's transpose.
    fn run_range(&self, base: u64, len: u64, found: &mut Vec<u64>) {
        let lo = self.win.base();
        let end = base + len - lo;
        let mut r = base - lo;
        while let Some(q) = super::marks::next_unmarked(self.win.words, r, end) {
            let (r0, q) = (q, q + lo);
            if q == 0 {
                self.mark(0);
            } else {
                found.push(q);
                self.push_both(q);
            }
            r = r0 + 1;
        }
    }

    /// The parents of the position of index `q` and of its transpose.
    fn push_both(&self, q: u64) {
        let x = self.index.unrank(q);
        self.push_parents(&x);
        let t = transpose(&x, self.index.n);
        if t != x {
            self.push_parents(&t);
        }
    }
}

use super::solve::Progress;

/// Solve the box of `index` by the forward schedule into `words` (one bit per index, all clear
/// except the P-bits of steps before `start`, a resumed run). `on_step(step, p_indexes,
/// progress)` follows every step. On success `words` hold the P-bits.
pub fn solve_forward(
    index: &SymIndex,
    words: &[AtomicU64],
    start: u64,
    on_step: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    solve_window(
        index,
        Window::whole(index, words),
        Resume::Bits { start },
        |_| Ok(()),
        on_step,
    )
}

/// A source of the P indexes below a window (the finished windows before it): it hands them
/// to the sink in slices, each slice's indexes pushed in parallel.
pub type Replay<'r> = &'r mut dyn FnMut(&[u64]) -> Result<()>;

/// Where a window's run starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resume {
    /// The window's bits are clear except the P-bits of its steps before `start` (0: a fresh
    /// run); those steps' P-positions mark their parents again after the replay.
    Bits {
        /// The first step to do.
        start: u64,
    },
    /// The window's bits are the marks of a snapshot taken before some step (the replay and
    /// every push before it done); `after` are the P indexes the steps from that one to
    /// `start` found, which mark their parents again. No replay.
    Marks {
        /// The first step to do.
        start: u64,
        /// The P indexes found since the snapshot.
        after: Vec<u64>,
    },
}

/// Solve the indexes of `win` by the forward schedule restricted to it. Every index below
/// `win.lo` must be final: `replay` hands their P indexes to its sink (each marks its parents
/// inside the window); `resume` says what the window's bits hold. `on_step(step, p_indexes, progress)` follows every step of the
/// schedule, those with nothing in the window included, so the records of a window are the
/// steps in order. On success the window's words hold its P-bits.
///
/// Why a window may start anywhere: every option of a stored position has a smaller index (a
/// smaller hook sum, or the same hook and an interior that is an option, smaller in colex rank
/// or, in a child square, by the same argument one level down), so the index order is a
/// topological order, and the schedule restricted to the window, after the P-positions below
/// it have marked their parents, decides each position after all its options.
pub fn solve_window(
    index: &SymIndex,
    win: Window,
    resume: Resume,
    replay: impl FnOnce(Replay) -> Result<()>,
    on_step: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    if win.lo == 0 && win.hi >= index.len() {
        solve_window_as::<false>(index, win, resume, replay, on_step)
    } else {
        solve_window_as::<true>(index, win, resume, replay, on_step)
    }
}

/// [`solve_window`] for a part of the table (`W`) or the whole of it.
fn solve_window_as<const W: bool>(
    index: &SymIndex,
    win: Window,
    resume: Resume,
    replay: impl FnOnce(Replay) -> Result<()>,
    mut on_step: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    let (start, after) = match resume {
        Resume::Bits { start } => (start, None),
        Resume::Marks { start, after } => (start, Some(after)),
    };
    let pusher = SymPusher::<W>::new(index, win);
    let steps = index.steps();
    let mut ranges = Vec::new();
    let clip = |ranges: &mut Vec<(u64, u64)>| {
        ranges.retain_mut(|(b, l)| match win.clip(*b, *b + *l) {
            Some((x, y)) => {
                (*b, *l) = (x, y - x);
                true
            }
            None => false,
        })
    };
    let mut done = 0u64;
    // Finished steps of this window: P-bits into marks, found a word at a time (inverted,
    // they are the unmarked indexes); they mark their parents again after the replay. From
    // a snapshot the marks are there already, and only the P-positions found since mark theirs.
    let mut ps = Vec::new();
    for step in 0..start {
        index.step_ranges(step, &mut ranges);
        clip(&mut ranges);
        for &(b, l) in &ranges {
            done += l;
            if after.is_some() {
                continue;
            }
            let (lo, hi) = (b - win.base(), b + l - win.base());
            super::marks::invert_range(win.words, lo, hi);
            let mut r = lo;
            while let Some(q) = super::marks::next_unmarked(win.words, r, hi) {
                ps.push(q + win.base());
                r = q + 1;
            }
        }
    }
    crate::cancel::check()?;
    match after {
        Some(after) => ps = after,
        None => replay(&mut |qs: &[u64]| {
            crate::cancel::check()?;
            qs.par_iter().for_each(|&q| pusher.push_both(q));
            Ok(())
        })?,
    }
    crate::cancel::check()?;
    ps.par_iter().for_each(|&q| pusher.push_both(q));
    drop(ps);
    let phase = crate::progress::phase("positions", Some(win.len()));
    phase.set(done);
    let token = crate::cancel::current();
    for step in start..steps {
        crate::cancel::check()?;
        index.step_ranges(step, &mut ranges);
        clip(&mut ranges);
        let mut found: Vec<u64> = ranges
            .par_iter()
            .with_min_len(4)
            .try_fold(Vec::new, |mut acc, &(b, l)| {
                if token.as_ref().is_some_and(|t| t.is_cancelled()) {
                    return Err(Error::Interrupted);
                }
                pusher.run_range(b, l, &mut acc);
                Ok(acc)
            })
            .try_reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                Ok(a)
            })?;
        found.sort_unstable();
        done += ranges.iter().map(|&(_, l)| l).sum::<u64>();
        phase.set(done);
        on_step(
            step,
            &found,
            Progress {
                done,
                total: win.len(),
                layers_done: step + 1,
                layers: steps,
            },
        )?;
    }
    super::marks::into_p_bits(win.words, win.lo - win.base(), win.hi - win.base());
    Ok(())
}

/// The P-positions of the box from its P indexes: two for a pair stored once, one for a
/// position equal to its transpose or stored beside it.
pub fn box_p_count(index: &SymIndex, words: &[AtomicU64]) -> u64 {
    window_p_count(index, Window::whole(index, words))
}

/// [`box_p_count`] of the P indexes in one window.
pub fn window_p_count(index: &SymIndex, win: Window) -> u64 {
    let base = win.base();
    win.words
        .par_iter()
        .enumerate()
        .map(|(i, w)| {
            let mut bits = w.load(Relaxed);
            let mut n = 0u64;
            while bits != 0 {
                let q = base + ((i as u64) << 6) + bits.trailing_zeros() as u64;
                bits &= bits - 1;
                let x = index.unrank(q);
                let t = transpose(&x, index.n);
                n += if t == x || index.both_stored(&x) {
                    1
                } else {
                    2
                };
            }
            n
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::diagram::{ChompBox, Diagram};

    fn all_positions(n: usize) -> Vec<Rows> {
        let rk = crate::chomp::Ranker::new(ChompBox {
            rows: n,
            cols: n as u32,
        })
        .unwrap();
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
                let ix = SymIndex::with_min_child(n, min_child).unwrap();
                let mut seen = vec![0u32; ix.len() as usize];
                for x in all_positions(n) {
                    let t = transpose(&x, n);
                    let i = ix.index(&x[..n]).unwrap();
                    if !ix.both_stored(&x) {
                        assert_eq!(Some(i), ix.index(&t[..n]), "{n}: {x:?} and its transpose");
                    }
                    assert!(ix
                        .index_in(n, &x[..n])
                        .or(ix.index_in(n, &t[..n]))
                        .is_some());
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
    fn squares_past_the_colex_limit_get_a_hook_index() {
        use crate::chomp::solve::TableIndex;
        // 21×21 and 22×22 have more than 2^38 positions; their hook tables are sized, not
        // allocated, here.
        for (n, bytes) in [(21usize, 33.6e9), (22, 132.0e9)] {
            let ix = TableIndex::for_box(ChompBox {
                rows: n,
                cols: n as u32,
            })
            .unwrap();
            assert!(ix.sym.is_some(), "{n}");
            let b = ix.bytes() as f64;
            assert!(b > bytes * 0.99 && b < bytes * 1.03, "{n}: {b}");
        }
        let too_big = TableIndex::for_box(ChompBox { rows: 23, cols: 23 }).unwrap_err();
        assert!(too_big.to_string().contains("2^42"), "{too_big}");
    }

    #[test]
    fn the_steps_cover_every_index_once() {
        for n in 1..=7 {
            for min_child in [0, 2, 100] {
                let ix = SymIndex::with_min_child(n, min_child).unwrap();
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

    #[test]
    fn the_stored_parents_pushed_are_those_of_the_position_and_its_transpose() {
        for n in 1..=7 {
            let all = all_positions(n);
            let mut parents: std::collections::HashMap<Vec<u32>, Vec<Rows>> = Default::default();
            for x in &all {
                let d = Diagram::new(x[..n].to_vec()).unwrap();
                for o in d.options() {
                    parents.entry(o.rows().to_vec()).or_default().push(*x);
                }
            }
            for min_child in [0, 1, 2, 100] {
                let ix = SymIndex::with_min_child(n, min_child).unwrap();
                let words: Vec<AtomicU64> = (0..ix.len().div_ceil(64))
                    .map(|_| AtomicU64::new(0))
                    .collect();
                for q in &all[1..] {
                    let dq = Diagram::new(q[..n].to_vec()).unwrap();
                    let mut want = vec![false; ix.len() as usize];
                    for x in parents.get(dq.rows()).into_iter().flatten() {
                        if let Some(i) = ix.index_in(n, &x[..n]) {
                            want[i as usize] = true;
                        }
                    }
                    for parallel_above in [PARALLEL_FILLINGS, 0] {
                        let mut p = SymPusher::<false>::new(&ix, Window::whole(&ix, &words));
                        p.parallel_above = parallel_above;
                        words.iter().for_each(|w| w.store(0, Relaxed));
                        p.push_parents(q);
                        for (i, &w) in want.iter().enumerate() {
                            let got = (words[i >> 6].load(Relaxed) >> (i & 63)) & 1 == 1;
                            assert_eq!(got, w, "{n}/{min_child}: parents of {dq}, index {i}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_symmetric_solver_agrees_with_the_colex_table() {
        for n in 1..=9 {
            for min_child in [0, 2, 100] {
                let ix = SymIndex::with_min_child(n, min_child).unwrap();
                let words: Vec<AtomicU64> = (0..ix.len().div_ceil(64))
                    .map(|_| AtomicU64::new(0))
                    .collect();
                solve_forward(&ix, &words, 0, |_, _, _| Ok(())).unwrap();
                let shape = ChompBox {
                    rows: n,
                    cols: n as u32,
                };
                let full = crate::chomp::solve::solve_by_rank_order(shape).unwrap();
                for x in all_positions(n) {
                    let i = ix.index(&x[..n]).unwrap();
                    let got = (words[(i >> 6) as usize].load(Relaxed) >> (i & 63)) & 1 == 1;
                    let r = full.ranker.rank_rows(&x[..n]);
                    assert_eq!(got, full.is_p_rank(r), "{n}/{min_child}: {x:?}");
                }
                assert_eq!(box_p_count(&ix, &words), full.p_count(), "{n}/{min_child}");
            }
        }
    }

    #[test]
    fn a_resumed_symmetric_run_ends_with_the_same_bits() {
        let ix = SymIndex::with_min_child(7, 2).unwrap();
        let fresh = || -> Vec<AtomicU64> {
            (0..ix.len().div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect()
        };
        let full = fresh();
        let mut records = Vec::new();
        solve_forward(&ix, &full, 0, |s, ps, _| {
            records.push((s, ps.to_vec()));
            Ok(())
        })
        .unwrap();
        let bits = |w: &[AtomicU64]| w.iter().map(|x| x.load(Relaxed)).collect::<Vec<_>>();
        for stop in [1, 5, ix.steps() / 2, ix.steps() - 1] {
            let t = fresh();
            for (_, ps) in &records[..stop as usize] {
                for &q in ps {
                    t[(q >> 6) as usize].fetch_or(1 << (q & 63), Relaxed);
                }
            }
            let mut rest = Vec::new();
            solve_forward(&ix, &t, stop, |s, ps, _| {
                rest.push((s, ps.to_vec()));
                Ok(())
            })
            .unwrap();
            assert_eq!(bits(&t), bits(&full), "resumed at {stop}");
            assert_eq!(rest[..], records[stop as usize..], "from {stop}");
        }
    }

    /// Solve the box window by window (each replaying the P indexes below it) and return the
    /// words and every step's records.
    fn solve_by_windows(ix: &SymIndex, window_words: u64) -> (Vec<u64>, Vec<(u64, Vec<u64>)>) {
        let len = ix.len();
        let mut all = vec![0u64; len.div_ceil(64) as usize];
        let mut records: Vec<(u64, Vec<u64>)> = (0..ix.steps()).map(|s| (s, Vec::new())).collect();
        let mut lo = 0;
        while lo < len {
            // Windows of about `window_words` words, most not starting on a word.
            let hi = (lo + window_words * 64 - 17).min(len);
            let words: Vec<AtomicU64> = (0..Window::words_for(lo, hi))
                .map(|_| AtomicU64::new(0))
                .collect();
            let win = Window {
                lo,
                hi,
                words: &words,
            };
            let below: Vec<u64> = (0..lo)
                .filter(|&q| (all[(q >> 6) as usize] >> (q & 63)) & 1 == 1)
                .collect();
            solve_window(
                ix,
                win,
                Resume::Bits { start: 0 },
                |sink| {
                    // Two slices, to see that a replay may come in pieces.
                    let (a, b) = below.split_at(below.len() / 2);
                    sink(a)?;
                    sink(b)
                },
                |s, ps, _| {
                    records[s as usize].1.extend_from_slice(ps);
                    Ok(())
                },
            )
            .unwrap();
            for (i, w) in words.iter().enumerate() {
                all[(lo / 64) as usize + i] |= w.load(Relaxed);
            }
            assert!(
                words.first().unwrap().load(Relaxed) & !(u64::MAX << (lo & 63)) == 0,
                "bits below the window stay clear"
            );
            lo = hi;
        }
        (all, records)
    }

    #[test]
    fn a_box_solved_window_by_window_has_the_same_bits_and_records() {
        for (n, min_child) in [(5, 0), (7, 2), (8, 100), (9, 3)] {
            let ix = SymIndex::with_min_child(n, min_child).unwrap();
            let whole: Vec<AtomicU64> = (0..ix.len().div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect();
            let mut records = Vec::new();
            solve_forward(&ix, &whole, 0, |s, ps, _| {
                records.push((s, ps.to_vec()));
                Ok(())
            })
            .unwrap();
            let whole: Vec<u64> = whole.iter().map(|w| w.load(Relaxed)).collect();
            // One word, a few words (windows cut blocks anywhere), and about a third.
            for ww in [1, 3, 7, (whole.len() as u64).div_ceil(3)] {
                let (bits, recs) = solve_by_windows(&ix, ww);
                assert_eq!(bits, whole, "{n}/{min_child} in windows of {ww} words");
                assert_eq!(recs, records, "{n}/{min_child}: records, {ww} words");
            }
        }
    }
}
