//! Tables by transposed pairs: the options of a position in the hook index of a square
//! (`super::hook`) whose diagonal hooks keep every interior ([`pairs_index`]), for the tables
//! that pull their options' values (n-player ordinals, Grundy values). Transposing a position
//! maps its options onto its transpose's, so any value defined from the options alone is the
//! same for both.
//!
//! With every diagonal hook kept whole, every block is a colex box and the index holds about
//! two thirds of the square's positions (405 million of 601 million on 16×16).
//!
//! # Options in the hook index
//! A stored position λ has a first row of a cells and b ≤ a rows, and under that hook the
//! interior μ, a position of the (b-1)×(a-1) box, kept at its colex rank in the hook's block.
//! Its |λ| options (one for each cell bitten) are, by where the bite falls:
//! - a cell of the interior (rows ≥ 1, columns ≥ 1): the same hook over an option of μ, the
//!   bite that empties μ included: the colex options of μ in the block;
//! - the cell (i, 0) of a row i ≥ 1: the first i rows, the hook (a, i) over μ's first i-1 rows;
//! - the cell (0, j), 1 ≤ j < a: every row cut to j cells, the hook (j, b) over μ cut to j-1
//!   columns when j ≥ b; when j < b that position is not stored but its transpose is, the hook
//!   (b, j) over the first j-1 columns of μ (as rows: μ's transpose);
//! - the cell (0, 0): the empty diagram, index 0.
//!
//! The interior's options come first (consecutive colex ranks, O(1) each); the others are
//! ranked from prefix sums of the colex weights, O(1) each after an O(b) start.
//!
//! Tests: this file's unit tests.

use super::hook::{Kind, MAX_SIDE};
use super::{HookIndex, Ranker};
use crate::chomp::diagram::ChompBox;
use crate::chomp::index::colex::for_each_in_range;
use crate::error::{Error, Result};
use std::cell::RefCell;

/// Whether a table of `shape` can keep one entry for each transposed pair: a square of side at
/// most [`MAX_SIDE`].
pub fn square_for_pairs(shape: ChompBox) -> bool {
    shape.rows == shape.cols as usize && shape.rows <= MAX_SIDE
}

/// The hook index of a table by transposed pairs: every interior of a diagonal hook stored.
pub fn pairs_index(n: usize) -> Result<HookIndex> {
    HookIndex::with_min_child(n, n)
}

/// A stored position met by [`HookOptions::walk`]: its hook (a, b), a ≥ b, its interior
/// `mu` (b-1 rows, at most a-1 cells each), its colex rank `x` in the hook's block and its
/// index.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stored<'r> {
    pub(crate) a: usize,
    pub(crate) b: usize,
    pub(crate) mu: &'r [u32],
    pub(crate) x: u64,
    pub(crate) index: u64,
    /// The walk's ranks of the prefixes of an interior, brought up to `mu` when asked.
    ranks: &'r RefCell<Ranks>,
}

/// The colex ranks of the prefixes of an interior's rows and of its columns, followed from
/// one position of a walk to the next: a step of the walk lengthens one row and empties the
/// rows below it, which changes the ranks of the longer prefixes by one weight each and a few
/// columns, so a position costs O(rows + columns) on average instead of O(rows²). Any two
/// interiors of a block can follow each other (the ranks are brought up row by row), so a
/// table that skips the positions whose options stop early stays right.
#[derive(Debug)]
pub(crate) struct Ranks {
    rows: usize,
    /// The interior the ranks are of.
    mu: [u32; MAX_SIDE + 1],
    /// Its columns: `cols[k]` rows longer than k.
    cols: [u32; MAX_SIDE + 1],
    /// `prefix[s]`: the colex rank of the first s rows in an s-row box.
    prefix: [u64; MAX_SIDE + 1],
    /// `column[s]`: the colex rank of the first s columns, read as rows, in an s-row box.
    column: [u64; MAX_SIDE + 1],
    /// Column prefixes kept: 0..columns.
    columns: usize,
}

impl Ranks {
    /// The ranks of the empty interior of `rows` rows (all 0), column prefixes to `columns`.
    fn new(rows: usize, columns: usize) -> Ranks {
        Ranks {
            rows,
            mu: [0; MAX_SIDE + 1],
            cols: [0; MAX_SIDE + 1],
            prefix: [0; MAX_SIDE + 1],
            column: [0; MAX_SIDE + 1],
            columns,
        }
    }

    /// Move to the interior `mu` (any: the rows that differ are changed one by one).
    #[inline]
    fn follow(&mut self, hook: &HookIndex, mu: &[u32]) {
        for (u, &new) in mu.iter().enumerate().take(self.rows) {
            let old = self.mu[u];
            if old == new {
                continue;
            }
            self.mu[u] = new;
            // The prefixes that hold row u: lengths s > u.
            for s in u + 1..self.rows {
                self.prefix[s] = self.prefix[s] + hook.weight(s, u, new) - hook.weight(s, u, old);
            }
            // The columns k the row's change covers gain or lose a cell.
            let (lo, hi, up) = if new > old {
                (old, new, true)
            } else {
                (new, old, false)
            };
            for k in lo as usize..hi as usize {
                let c = self.cols[k];
                let d = if up { c + 1 } else { c - 1 };
                self.cols[k] = d;
                for s in k + 1..self.columns {
                    self.column[s] = self.column[s] + hook.weight(s, k, d) - hook.weight(s, k, c);
                }
            }
        }
    }
}

/// What the scan of one square needs besides the table: the blocks' offsets by hook, a colex
/// ranking for each block's interior box, and prefix sums of the colex weights.
pub(crate) struct HookOptions<'a> {
    hook: &'a HookIndex,
    n: usize,
    /// `off[a * (n+1) + b]`: the first index of the hook (a, b), a ≥ b ≥ 1.
    off: Vec<u64>,
    /// `rankers[r * n + c]`: the r×c box, r ≥ 1 (interiors of r + 1 rows under c + 1 cells).
    rankers: Vec<Option<Ranker>>,
    /// `pre[(r * (n+1) + len) * (n+1) + t]` = Σ_{k<t} weight(r, k, len): the first t of r rows
    /// all of `len` cells.
    pre: Vec<u64>,
}

impl<'a> HookOptions<'a> {
    /// The options of `hook`, which must keep every interior of its diagonal hooks
    /// ([`pairs_index`]).
    pub(crate) fn new(hook: &'a HookIndex) -> Result<HookOptions<'a>> {
        let n = hook.side();
        if hook.min_child() < n {
            return Err(Error::invalid(format!(
                "a table by transposed pairs of the {n}x{n} box keeps every interior of a \
                 diagonal hook (an index with child squares from side {} was given)",
                hook.min_child()
            )));
        }
        let s = n + 1;
        let sq = &hook.squares[n];
        let mut off = vec![0u64; s * s];
        let mut rankers: Vec<Option<Ranker>> = vec![None; n * n.max(1)];
        for blk in &sq.blocks {
            if let Kind::Colex { r, c } = blk.kind {
                let (a, b) = (c as usize + 1, r + 1);
                off[a * s + b] = blk.off;
                if r >= 1 && rankers[r * n + c as usize].is_none() {
                    rankers[r * n + c as usize] = Some(Ranker::new(ChompBox { rows: r, cols: c })?);
                }
            }
        }
        let mut pre = vec![0u64; s * s * s];
        for r in 1..=n {
            for len in 0..=n {
                let at = (r * s + len) * s;
                for t in 0..r {
                    pre[at + t + 1] = pre[at + t] + hook.weight(r, t, len as u32);
                }
            }
        }
        Ok(HookOptions {
            hook,
            n,
            off,
            rankers,
            pre,
        })
    }

    #[inline]
    fn off(&self, a: usize, b: usize) -> u64 {
        self.off[a * (self.n + 1) + b]
    }

    #[inline]
    fn pre(&self, r: usize, len: u32, t: usize) -> u64 {
        let s = self.n + 1;
        self.pre[(r * s + len as usize) * s + t]
    }

    /// The options of the stored position with hook (a, b) and interior `mu` (b-1 rows) at
    /// colex rank `x` of its block, as indexes, to `f` until it returns false (it may be called
    /// a few more times after). The empty diagram (index 0) is among them.
    #[inline]
    pub(crate) fn of_until(&self, p: &Stored, mut f: impl FnMut(u64) -> bool) {
        let Stored { a, b, mu, x, .. } = *p;
        let r = b - 1;
        let own = self.off(a, b);
        // The interior's own options, the hook left whole.
        if r >= 1 {
            let mut go_on = true;
            self.rankers[r * self.n + a - 1]
                .as_ref()
                .expect("a ranker for every block of two or more rows")
                .for_each_option_until(&mu[..r], x, |q| {
                    go_on &= f(own + q);
                    go_on
                });
            if !go_on {
                return;
            }
        }
        // The bite at (0, 0): the empty diagram.
        if !f(0) {
            return;
        }
        // The ranks of mu's row and column prefixes, brought up to this position only now: a
        // table that stops early (the ordinals) rarely needs them.
        let mut ranks = p.ranks.borrow_mut();
        ranks.follow(self.hook, mu);
        // The bites at (i, 0), i ≥ 1: the first i rows, hook (a, i) over mu's first i-1 rows.
        for i in 1..b {
            let q = self.off(a, i) + ranks.prefix[i - 1];
            if !f(q) {
                return;
            }
        }
        // The bites at (0, j), j ≥ b: hook (j, b) over mu cut to j-1 columns. With mu
        // non-increasing, the rows cut are the first t(j) (those of ≥ j-1 cells): the rank is
        // the prefix sum of t(j) rows of j-1 cells plus the suffix of mu's own weights.
        let mut suffix = [0u64; MAX_SIDE + 1];
        for k in (0..r).rev() {
            suffix[k] = suffix[k + 1] + self.hook.weight(r, k, mu[k]);
        }
        let mut t = 0;
        for j in b..a {
            let cut = j as u32 - 1;
            while t > 0 && mu[t - 1] < cut {
                t -= 1;
            }
            while t < r && mu[t] >= cut {
                t += 1;
            }
            let q = self.off(j, b) + self.pre(r, cut, t) + suffix[t];
            if !f(q) {
                return;
            }
        }
        // The bites at (0, j), 1 ≤ j < b: stored as the transpose, hook (b, j) over the first
        // j-1 columns of mu, read as rows.
        for j in 1..b.min(a) {
            let q = self.off(b, j) + ranks.column[j - 1];
            if !f(q) {
                return;
            }
        }
    }

    /// Every stored position of the range `base..base + len` (inside one block, as the steps
    /// give them) in index order, as `f(&Stored)`; the empty diagram is left out.
    #[inline]
    pub(crate) fn walk(&self, base: u64, len: u64, mut f: impl FnMut(&Stored)) {
        let sq = &self.hook.squares[self.n];
        let blk = sq.blocks[sq.blocks.partition_point(|b| b.off <= base) - 1];
        let Kind::Colex { r, c } = blk.kind else {
            return;
        };
        let (a, b) = (c as usize + 1, r + 1);
        if r == 0 {
            // A single row: one position a block.
            f(&Stored {
                a,
                b,
                mu: &[],
                x: 0,
                index: blk.off,
                ranks: &RefCell::new(Ranks::new(0, 0)),
            });
            return;
        }
        let ranker = self.rankers[r * self.n + c as usize]
            .as_ref()
            .expect("a ranker for every block of two or more rows");
        let mut rows = [0u32; MAX_SIDE + 1];
        let ranks = RefCell::new(Ranks::new(r, a.min(b) - 1));
        for_each_in_range(ranker, base - blk.off, len, &mut rows[..r], |mu, x| {
            f(&Stored {
                a,
                b,
                mu,
                x,
                index: blk.off + x,
                ranks: &ranks,
            })
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_options_are_the_positions_the_bites_leave() {
        for n in 1..=7 {
            let hook = pairs_index(n).unwrap();
            let opts = HookOptions::new(&hook).unwrap();
            let mut walked = 0u64;
            for step in 0..hook.steps() {
                let mut ranges = Vec::new();
                hook.step_ranges(step, &mut ranges);
                for &(base, len) in &ranges {
                    opts.walk(base, len, |p| {
                        walked += 1;
                        let rows = hook.unrank(p.index);
                        assert_eq!(rows[0] as usize, p.a, "{n}: {rows:?}");
                        let d = crate::chomp::diagram::Diagram::new(rows[..n].to_vec()).unwrap();
                        let mut want: Vec<u64> = d
                            .options()
                            .iter()
                            .map(|q| hook.index(q.rows()).unwrap())
                            .collect();
                        let mut got = Vec::new();
                        opts.of_until(p, |q| {
                            got.push(q);
                            true
                        });
                        want.sort_unstable();
                        got.sort_unstable();
                        assert_eq!(got, want, "{n}: the options of {d}");
                        assert!(
                            got.iter().all(|&q| q < p.index),
                            "{n}: {d} after its options"
                        );
                    });
                }
            }
            assert_eq!(
                walked,
                hook.len() - 1,
                "{n}: every stored position but the empty one"
            );
        }
    }
}
