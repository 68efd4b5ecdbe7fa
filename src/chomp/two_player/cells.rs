//! Two-player Chomp by number of cells (docs/mathematics.md §5b): for every n ≤ N, the Young
//! diagrams of n cells (the partitions of n) and how many of them are P-positions, with no box.
//!
//! The partitions of m are ranked in lexicographic order of their parts: with rem_j = m -
//! (λ_1 + … + λ_{j-1}), `rank(λ) = Σ_j P(rem_j, λ_j - 1)`, P(n, k) the partitions of n into
//! parts ≤ k; one bit per partition says P. The *forward* engine ([`CellsEngine`], the
//! default) has each P-position mark its parents N and takes what nothing marked as P; the
//! *scan*, its twin, has each diagram read its options until one is P. P-positions are about
//! 1.5% of the diagrams, so the forward engine does far less work (13× at 100 cells).
//!
//! Tests: this file's unit tests; tests/games/chomp/two_player.rs.

use crate::chomp::engine::driver::{drive, Run};
use crate::chomp::engine::schedule::Schedule;
use crate::error::{Error, Result};
use std::sync::atomic::AtomicU64;

/// The work (a count of raised runs) from which [`CellsTable::raise`] shares a run's values
/// among the threads.
const PARALLEL_RAISES: u64 = 1 << 14;

/// Largest N `cells` accepts: p(N) must be a u64 index, and its tables far beyond memory.
pub const MAX_CELLS: u32 = 400;

/// P(n, k) for 0 ≤ n, k ≤ N: partitions of n into parts ≤ k.
#[derive(Debug, Clone)]
pub struct PartitionCounts {
    max: usize,
    table: Vec<u64>,
}

impl PartitionCounts {
    /// The counts up to `max`, or [`Error::TooLarge`] past u64.
    pub fn new(max: u32) -> Result<PartitionCounts> {
        let n = max as usize + 1;
        let mut table = vec![0u64; n * n];
        // P(0, k) = 1; P(n, k) = P(n, k-1) + P(n-k, k).
        table[..n].fill(1);
        for m in 1..n {
            for k in 1..n {
                let without = table[m * n + k - 1];
                let with = if k <= m { table[(m - k) * n + k] } else { 0 };
                table[m * n + k] = without.checked_add(with).ok_or_else(|| {
                    Error::too_large(format!("diagrams of {m} cells"), "more than 2^64 of them")
                })?;
            }
        }
        Ok(PartitionCounts {
            max: max as usize,
            table,
        })
    }

    /// P(n, k), k capped at n.
    #[inline]
    pub fn get(&self, n: u32, k: u32) -> u64 {
        let k = k.min(n) as usize;
        self.table[n as usize * (self.max + 1) + k]
    }

    /// p(n), the partitions of n.
    pub fn partitions(&self, n: u32) -> u64 {
        self.get(n, n)
    }

    /// The first word of the bit table of each n cells, n = 1, …, max, at index n (one bit a
    /// diagram, ⌈p(n)/64⌉ words a table); index max + 1 ends the last.
    pub fn word_offsets(&self) -> Vec<usize> {
        let at = self.offsets(|p| p.div_ceil(64));
        at.into_iter().map(|w| w as usize).collect()
    }

    /// Where the items of each n = 1, …, max cells start when n has `per(p(n))` of them, one
    /// kind after another (index n; index max + 1 ends the last).
    fn offsets(&self, per: impl Fn(u64) -> u64) -> Vec<u64> {
        let sizes = (1..=self.max as u32).map(|n| per(self.partitions(n)));
        let ends = sizes.scan(0, |end, k| {
            *end += k;
            Some(*end)
        });
        [0, 0].into_iter().chain(ends).collect()
    }

    /// The cells and the rank of the diagram with row lengths `parts`, when they do not
    /// increase and it has cells, at most the counts' largest number.
    pub fn cells_and_rank(&self, parts: &[u32]) -> Option<(u32, u64)> {
        let m: u32 = parts.iter().sum();
        let fits = m > 0 && m as usize <= self.max && parts.windows(2).all(|w| w[0] >= w[1]);
        fits.then(|| (m, self.rank(parts.iter().copied(), m)))
    }

    /// The rank of the parts `parts` (non-increasing, zeros ignored) among the partitions of
    /// their sum.
    #[inline]
    pub fn rank(&self, parts: impl Iterator<Item = u32>, sum: u32) -> u64 {
        let mut rem = sum;
        let mut rank = 0;
        for a in parts {
            if a == 0 || rem == 0 {
                break;
            }
            rank += self.get(rem, a - 1);
            rem -= a;
        }
        rank
    }
}

/// For every n ≤ N, one bit per diagram of n cells: P or not.
#[derive(Debug)]
pub struct CellsTable {
    counts: PartitionCounts,
    /// The bits of every table, those of n cells in `words[at[n]..at[n + 1]]`: N-marks for
    /// the forward engine (a set bit is an N-position: marks are only ever added, so any
    /// snapshot of them is a state to resume from), P-positions for the scan.
    words: Vec<AtomicU64>,
    at: Vec<usize>,
    /// Whether a set bit marks an N-position (the forward engine) rather than a P-position.
    marks: bool,
    p: Vec<u64>,
}

impl CellsTable {
    /// Decide every diagram of up to `max` cells. Refuses with [`Error::TooLarge`] before
    /// any work when the tables do not fit in memory.
    pub fn compute(max: u32) -> Result<CellsTable> {
        CellsTable::compute_with(max, CellsEngine::Forward)
    }

    /// [`CellsTable::compute`] by `engine`.
    pub fn compute_with(max: u32, engine: CellsEngine) -> Result<CellsTable> {
        let mut table = CellsTable::zeroed(max, engine)?;
        table.solve_from(0, |_, _| Ok(()))?;
        Ok(table)
    }

    /// The empty tables of up to `max` cells for `engine`: refused with [`Error::TooLarge`]
    /// before anything is allocated when they do not fit in memory.
    pub fn zeroed(max: u32, engine: CellsEngine) -> Result<CellsTable> {
        if max == 0 || max > MAX_CELLS {
            return Err(Error::bad_input(
                crate::Input::MaxCells,
                max,
                format!("from 1 to {MAX_CELLS}"),
            ));
        }
        let counts = PartitionCounts::new(max)?;
        let at = counts.word_offsets();
        crate::memory::ensure_available(
            at[max as usize + 1] as u64 * 8,
            &format!("the bit table of the diagrams of up to {max} cells"),
            "choose a smaller number of cells",
        )?;
        Ok(CellsTable {
            words: crate::chomp::bits::zeroed_words(at[max as usize + 1]),
            at,
            marks: engine == CellsEngine::Forward,
            p: vec![0],
            counts,
        })
    }

    /// The words of every table, those of n cells from [`CellsTable::word_offset`]`(n)` on.
    pub fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// The first word of the table of `n` cells in [`CellsTable::words`].
    pub fn word_offset(&self, n: u32) -> usize {
        self.at[n as usize]
    }

    /// The bits of the diagrams of `n` cells.
    fn table(&self, n: u32) -> &[AtomicU64] {
        &self.words[self.at[n as usize]..self.at[n as usize + 1]]
    }

    /// Decide the diagrams of up to the largest number of cells by the table's engine from
    /// `start_step` on (the diagrams of `start_step + 1` cells; the tables of fewer are final,
    /// and those of more hold every mark of them), calling `done(self, n)` after each n:
    /// between two calls no thread marks, so the words are a state to resume from. Then count
    /// the P-positions.
    pub fn solve_from(
        &mut self,
        start_step: u64,
        mut done: impl FnMut(&CellsTable, u32) -> Result<()>,
    ) -> Result<()> {
        let (max, forward) = (self.max(), self.marks);
        // Every diagram in one index space, those of n cells from offsets[n] on.
        let offsets = self.counts.offsets(|p| p);
        let schedule = ByCells(&self.counts, &offsets);
        let run = Run::new(&schedule, offsets[max as usize + 1], start_step);
        let this = &*self;
        drive(
            run,
            || (Vec::new(), Parents::default()),
            |(parts, parents), base, len, _| {
                this.walk_block(&offsets, parts, base, len, |parts, n, rank| match forward {
                    false => {
                        if this.decide(parts) {
                            crate::chomp::bits::mark(this.table(n), rank);
                        }
                    }
                    true => {
                        if !crate::chomp::bits::get(this.table(n), rank) {
                            this.mark_parents(parts, n, parents);
                        }
                    }
                })
            },
            // The P-positions are counted from the bits at the end, not listed (at 140 cells
            // a step has 2·10^8 of them).
            |step, _, _| done(this, step as u32 + 1),
        )?;
        self.p = (0..=max).map(|n| self.count_p(n)).collect();
        Ok(())
    }

    /// The P-positions of `n` cells, counted from the bits (0 for n = 0).
    pub fn count_p(&self, n: u32) -> u64 {
        if n == 0 {
            return 0;
        }
        let set = crate::chomp::bits::count(self.table(n));
        match self.marks {
            // The bits past p(n) in the last word are never marked.
            true => self.counts.partitions(n) - set,
            false => set,
        }
    }

    /// Walk the `len` diagrams from index `base` (a whole block of n cells and one first part:
    /// ranks P(n, a-1)..P(n, a)) in rank order, calling `each(parts, n, rank)` on each.
    fn walk_block(
        &self,
        offsets: &[u64],
        parts: &mut Vec<u32>,
        base: u64,
        len: u64,
        mut each: impl FnMut(&[u32], u32, u64),
    ) {
        let n = offsets.partition_point(|&o| o <= base) as u32 - 1;
        let mut rank = base - offsets[n as usize];
        let a = (1..=n)
            .find(|&a| self.counts.get(n, a) > rank)
            .expect("a rank below p(n)");
        debug_assert_eq!(self.counts.get(n, a - 1), rank, "a range starts a block");
        parts.clear();
        parts.resize(n as usize + 1, 0);
        // The first diagram of the block: a, then as many ones as the cells left.
        parts[0] = a;
        let mut l = fill_greedy(parts, 1, n - a);
        for i in 0..len {
            each(&parts[..l], n, rank);
            if i + 1 < len {
                l = next_in_block(parts, l).expect("the block holds len diagrams");
                rank += 1;
            }
        }
    }

    /// Mark N every parent of the P-position `q` of `m` cells: the diagrams of up to the
    /// table's largest number of cells with a move to `q`.
    ///
    /// A bite (x, t) of a parent λ leaves min(λ_r, t) in the rows r ≥ x, so it leaves `q` only
    /// when q_x = t: the parents come from a *run* of equal rows of `q` (value t ≥ 1, rows
    /// a..b) raised to any non-increasing values ≥ t, at most q_{a-1}, the top one above t;
    /// or, for t = 0, from rows appended below `q`, at most its last row. Each parent comes
    /// from one run (the cells a bite removes name it). With rem_j the cells of rows j and
    /// below, a diagram's rank is Σ_j P(rem_j, λ_j - 1), so for a parent of e more cells:
    /// the rows above the run add Σ_{j<a} P(rem_j(q) + e, q_j - 1) (`pre[e]`), the rows below
    /// it their part of `q`'s rank, and the run its own terms, summed row by row from the
    /// bottom up. The appended rows are a partition of e with parts ≤ q_{L-1}, whose terms
    /// are its rank among the partitions of e: a range of ranks, marked at once.
    fn mark_parents(&self, q: &[u32], m: u32, s: &mut Parents) {
        let budget = (self.at.len() - 2) as u32 - m;
        if budget == 0 {
            return;
        }
        let l = q.len();
        s.rem.clear();
        s.rem.resize(l + 1, 0);
        s.below.clear();
        s.below.resize(l + 1, 0);
        for j in (0..l).rev() {
            s.rem[j] = s.rem[j + 1] + q[j];
            s.below[j] = s.below[j + 1] + self.counts.get(s.rem[j], q[j] - 1);
        }
        s.pre.clear();
        s.pre.resize(budget as usize + 1, 0);
        let mut a = 0;
        while a < l {
            let t = q[a];
            let b = a + q[a..].iter().take_while(|&&v| v == t).count();
            let run = RaisedRun {
                m,
                t,
                cap: if a == 0 { u32::MAX } else { q[a - 1] },
                budget,
                below: s.below[b],
            };
            self.raise(&run, &s.pre, b - a, t, s.rem[b], 0, 0);
            // The run's rows join the rows above the next run.
            for (&rem, &v) in s.rem[a..b].iter().zip(&q[a..b]) {
                for (e, pre) in s.pre.iter_mut().enumerate().skip(1) {
                    *pre += self.counts.get(rem + e as u32, v - 1);
                }
            }
            a = b;
        }
        // Rows appended below: for e more cells, the partitions of e with parts ≤ q_{L-1}.
        for e in 1..=budget {
            let start = s.pre[e as usize];
            let len = self.counts.get(e, q[l - 1]);
            crate::chomp::bits::mark_range(self.table(m + e), start, start + len);
        }
    }

    /// The parents from one run: its `rows` lowest rows still to choose, the one below them
    /// at least `lower` (t for the run's bottom row), `rem` cells below, `acc` the rank terms
    /// of the run's rows chosen, `extra` the cells they added.
    #[allow(clippy::too_many_arguments)]
    fn raise(
        &self,
        run: &RaisedRun,
        pre: &[u64],
        rows: usize,
        lower: u32,
        rem: u32,
        acc: u64,
        extra: u32,
    ) {
        let t = run.t;
        if rows == 1 {
            // The top row of the run: above t, at most the row above it.
            let mut v = lower.max(t + 1);
            while v <= run.cap && extra + (v - t) <= run.budget {
                let e = extra + (v - t);
                let rank = pre[e as usize] + acc + self.counts.get(rem + v, v - 1) + run.below;
                crate::chomp::bits::mark(self.table(run.m + e), rank);
                v += 1;
            }
            return;
        }
        // This row and every row above it add at least v - t cells, and the top one 1 more.
        let fits =
            |v: u32| v <= run.cap && extra + (v - t) * rows as u32 + (v == t) as u32 <= run.budget;
        let each = |v: u32| {
            let term = self.counts.get(rem + v, v - 1);
            self.raise(run, pre, rows - 1, v, rem + v, acc + term, extra + (v - t));
        };
        // A long run raised by many cells has up to ~10^8 parents (the P-positions of few
        // cells, whose parents reach the largest tables): its values are shared out among
        // the threads, or one P-position would hold a step up. The partitions of the cells
        // left into at most `rows` parts measure the work below.
        if rows >= 3 && self.counts.get(run.budget - extra, rows as u32) >= PARALLEL_RAISES {
            use rayon::prelude::*;
            let end = (lower..)
                .find(|&v| !fits(v))
                .expect("a value past the cap or budget");
            (lower..end).into_par_iter().for_each(each);
            return;
        }
        let mut v = lower;
        while fits(v) {
            each(v);
            v += 1;
        }
    }

    /// Whether the diagram `parts` is P: no option of it is (the bite (0, 0) is the poison).
    fn decide(&self, parts: &[u32]) -> bool {
        let mut p = true;
        crate::chomp::diagram::for_each_move(parts, |x, t| {
            if p && (x, t) != (0, 0) {
                let q = (0..parts.len()).map(|r| if r < x { parts[r] } else { parts[r].min(t) });
                let m = q.clone().sum();
                p = !self.is_p_rank(m, self.counts.rank(q, m));
            }
        });
        p
    }

    /// Whether the diagram of rank `rank` among those of `m` cells is P.
    #[inline]
    pub fn is_p_rank(&self, m: u32, rank: u64) -> bool {
        crate::chomp::bits::get(self.table(m), rank) != self.marks
    }

    /// Whether the diagram with row lengths `parts` is P; `None` when it has more cells than
    /// the table or none.
    pub fn is_p(&self, parts: &[u32]) -> Option<bool> {
        let (m, rank) = self.counts.cells_and_rank(parts)?;
        Some(self.is_p_rank(m, rank))
    }

    /// The largest n computed.
    pub fn max(&self) -> u32 {
        self.at.len() as u32 - 2
    }

    /// The counts of every n from 1 to the largest.
    pub fn rows(&self) -> Vec<CellsRow> {
        (1..self.p.len() as u32)
            .map(|n| CellsRow {
                n,
                diagrams: self.counts.partitions(n),
                p_positions: self.p[n as usize],
            })
            .collect()
    }
}

/// How [`CellsTable::compute_with`] decides the diagrams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum CellsEngine {
    /// Each diagram reads its options until one is P: the twin.
    Scan,
    /// Each P-position marks its parents N; a diagram nothing marked is P.
    Forward,
}

/// A worker's buffers for [`CellsTable::mark_parents`].
#[derive(Debug, Default)]
struct Parents {
    /// `rem[j]`: the cells of rows j and below of the P-position.
    rem: Vec<u32>,
    /// `below[j]`: the rank terms of its rows j and below.
    below: Vec<u64>,
    /// `pre[e]`: the rank terms of the rows above the run, for a parent of e more cells.
    pre: Vec<u64>,
}

/// One run of equal rows being raised ([`CellsTable::raise`]).
struct RaisedRun {
    /// Cells of the P-position.
    m: u32,
    /// The run's value.
    t: u32,
    /// The row above the run (no bound for the first row).
    cap: u32,
    /// Cells a parent may add.
    budget: u32,
    /// The rank terms of the rows below the run.
    below: u64,
}

/// The diagrams of n cells and how many of them are P (the counts are JSON strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CellsRow {
    /// Cells.
    pub n: u32,
    /// p(n), the diagrams of n cells.
    #[serde(serialize_with = "crate::json::count")]
    pub diagrams: u64,
    /// How many of them are P.
    #[serde(serialize_with = "crate::json::count")]
    pub p_positions: u64,
}

/// The schedule of the diagrams of up to N cells by their counts and offsets: step n - 1 is
/// every diagram of n cells, a range for each first part a (ranks P(n, a-1)..P(n, a) from
/// `offsets[n]`). A bite removes a cell, so the diagrams of n cells read only earlier steps.
struct ByCells<'a>(&'a PartitionCounts, &'a [u64]);

impl Schedule for ByCells<'_> {
    // The blocks are very unequal (one diagram for a = n, most of them near a = √n).
    const GRAIN: usize = 1;

    fn steps(&self) -> u64 {
        self.1.len() as u64 - 2
    }

    fn ranges(&self, step: u64, out: &mut Vec<(u64, u64)>) {
        out.clear();
        let (n, ByCells(counts, offsets)) = (step as u32 + 1, self);
        let at = offsets[n as usize];
        out.extend((1..=n).map(|a| {
            let lo = counts.get(n, a - 1);
            (at + lo, counts.get(n, a) - lo)
        }));
    }
}

/// Lay out the first diagram of a block in rank order after `parts[..from]`: the rest `rem`
/// of the cells as ones (ascending lexicographic order starts with the smallest next part).
/// Returns the number of non-zero parts.
fn fill_greedy(parts: &mut [u32], from: usize, rem: u32) -> usize {
    let end = from + rem as usize;
    parts[from..end].iter_mut().for_each(|p| *p = 1);
    parts[end..].iter_mut().for_each(|p| *p = 0);
    end
}

/// Step to the next partition in ascending lexicographic order with the same first part, or
/// `None` after the last one. `len` is the number of non-zero parts; returns the new length.
/// The rightmost part that can grow by one (staying ≤ the part before it) takes a cell from
/// the parts after it, which are then laid out as ones, the smallest way.
fn next_in_block(parts: &mut [u32], len: usize) -> Option<usize> {
    let mut tail: u32 = 0; // cells in parts[j+1..len]
    for j in (1..len).rev() {
        if parts[j] < parts[j - 1] && tail >= 1 {
            parts[j] += 1;
            return Some(fill_greedy(parts, j + 1, tail - 1));
        }
        tail += parts[j];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forward_engine_equals_the_scan_bit_for_bit_and_a_conjugate_has_the_same_status() {
        for max in [1, 2, 3, 7, 18, 33, 45] {
            let scan = CellsTable::compute_with(max, CellsEngine::Scan).unwrap();
            let forward = CellsTable::compute_with(max, CellsEngine::Forward).unwrap();
            assert_eq!(forward.rows(), scan.rows(), "{max}");
            for n in 1..=max {
                let p = |t: &CellsTable| -> Vec<bool> {
                    let ranks = 0..t.counts.partitions(n);
                    ranks.map(|r| t.is_p_rank(n, r)).collect()
                };
                assert_eq!(p(&forward), p(&scan), "{n} cells of {max}");
            }
        }
        // Transposition maps the game onto itself: a check on the table, not its input.
        let t = CellsTable::compute(36).unwrap();
        for rows in (1..=36).flat_map(super::super::grundy_cells::partitions) {
            let conj: Vec<u32> = (0..rows[0])
                .map(|c| rows.iter().filter(|&&r| r > c).count() as u32)
                .collect();
            assert_eq!(t.is_p(&rows), t.is_p(&conj), "{rows:?}");
        }
    }

    #[test]
    fn blocks_walk_every_partition_in_rank_order() {
        let t = CellsTable::zeroed(30, CellsEngine::Scan).unwrap();
        let (c, offsets) = (&t.counts, t.counts.offsets(|p| p));
        let mut parts = Vec::new();
        for n in 1..=30u32 {
            let mut next = 0;
            for a in 1..=n {
                let (lo, base) = (c.get(n, a - 1), offsets[n as usize]);
                t.walk_block(
                    &offsets,
                    &mut parts,
                    base + lo,
                    c.get(n, a) - lo,
                    |q, m, rank| {
                        assert_eq!((m, q.iter().sum::<u32>(), q[0]), (n, n, a), "{q:?}");
                        assert!(q.windows(2).all(|w| w[0] >= w[1]), "{q:?}");
                        assert_eq!((c.rank(q.iter().copied(), n), rank), (next, next), "{q:?}");
                        next += 1;
                    },
                );
            }
            assert_eq!(next, c.partitions(n));
        }
    }
}
