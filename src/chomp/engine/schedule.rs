//! The order in which a table's positions are decided: steps of ranges of bits, every range of
//! a step independent of the others once the steps before it are done.
//!
//! [`Schedule`] is what the one driver (`super::driver`) walks. Two layouts give one:
//! - the colex table, by [`Layers`]: rank order is lexicographic order of rows, so fixing the
//!   first `p` rows (a *prefix*) leaves a contiguous range of ranks, the *block* of every way
//!   to fill the last R-p rows under the prefix's last row. A bite in one of the last R-p rows
//!   stays in the block; a bite in a prefix row removes at least one prefix cell, so it lands
//!   in a block whose prefix has fewer cells. Hence all blocks whose prefixes have v cells are
//!   independent once the blocks of prefix volume < v are done: layer v is one step. With
//!   p = ⌊R/2⌋ a 20×20 box has 3·10^7 blocks of about 4600 positions in 201 layers;
//! - the hook index (`crate::chomp::index::hook`), whose steps are hook sums and, inside them,
//!   these same layers for every colex block of the sum.
//!
//! Inside a range the positions run in order, where a bite in the last rows reads or marks
//! bits just written nearby: the table is used where it is hot.
//!
//! Tests: this file's unit tests.

use crate::chomp::diagram::binomial;
pub use crate::chomp::index::colex::{for_each_in_range, prefix_rows};
use crate::chomp::index::{BitLayout, Ranker};

/// Progress of a long table: `done` positions of `total` decided, after `steps_done` of
/// `steps` steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Positions decided so far (the empty diagram included).
    pub done: u64,
    /// Positions the run decides.
    pub total: u64,
    /// Steps finished.
    pub steps_done: u64,
    /// Steps in all.
    pub steps: u64,
}

/// Steps of ranges of bits (first index, length): a range depends only on the ranges of
/// earlier steps and on its own lower indexes.
pub trait Schedule: Sync {
    /// The least number of ranges a worker takes at once.
    const GRAIN: usize = 4;
    /// Steps in all.
    fn steps(&self) -> u64;
    /// The ranges of `step`, in index order, into `out` (cleared first).
    fn ranges(&self, step: u64, out: &mut Vec<(u64, u64)>);
}

/// The steps of a table in either layout, as the checkpoints that record a table step by step
/// number them: the colex prefix layers, or the steps of the hook index.
impl Schedule for BitLayout {
    fn steps(&self) -> u64 {
        match self {
            BitLayout::Colex(ranker) => Layers { ranker }.steps(),
            BitLayout::Hook { hook, .. } => hook.steps(),
        }
    }

    fn ranges(&self, step: u64, out: &mut Vec<(u64, u64)>) {
        match self {
            BitLayout::Colex(ranker) => Layers { ranker }.ranges(step, out),
            BitLayout::Hook { hook, .. } => hook.step_ranges(step, out),
        }
    }
}

/// The layers of a colex table. [`Layers`]: step v is the blocks whose prefix has v cells.
/// [`VolumeLayers`]: step s is every position of s + 1 cells, one index a range (a bite removes
/// cells, so they are independent), for the GPU kernel and the one-position-at-a-time twins.
#[derive(Debug, Clone, Copy)]
pub struct ColexLayers<'a, const BY_VOLUME: bool> {
    /// The box's ranking.
    pub ranker: &'a Ranker,
}

/// The prefix-volume layers of a colex table.
pub type Layers<'a> = ColexLayers<'a, false>;
/// The volume layers of a colex table, one position a range.
pub type VolumeLayers<'a> = ColexLayers<'a, true>;

impl<const BY_VOLUME: bool> Schedule for ColexLayers<'_, BY_VOLUME> {
    const GRAIN: usize = if BY_VOLUME { 2048 } else { 16 };

    fn steps(&self) -> u64 {
        let shape = self.ranker.shape;
        if BY_VOLUME {
            shape.rows as u64 * shape.cols as u64
        } else {
            prefix_rows(shape.rows) as u64 * shape.cols as u64 + 1
        }
    }

    fn ranges(&self, step: u64, out: &mut Vec<(u64, u64)>) {
        out.clear();
        let rows = self.ranker.shape.rows;
        // By volume every row is a prefix row: a block of no free rows is one position.
        let (p, v) = if BY_VOLUME {
            (rows, step + 1)
        } else {
            (prefix_rows(rows), step)
        };
        prefix_blocks(self.ranker, p, 0, v, self.ranker.shape.cols, 0, out);
    }
}

/// The blocks whose prefix (first `p` rows) has `rem` cells in rows `j..p`, each at most `cap`,
/// in rank order, as (first rank, positions) into `out`: a block is every filling of the R-p
/// free rows under the prefix's last row, C(last + R-p, R-p) positions.
fn prefix_blocks(
    rk: &Ranker,
    p: usize,
    j: usize,
    rem: u64,
    cap: u32,
    acc: u64,
    out: &mut Vec<(u64, u64)>,
) {
    if j == p {
        if rem == 0 {
            let free = (rk.shape.rows - p) as u64;
            out.push((acc, binomial(cap as u64 + free, free).unwrap_or(u64::MAX)));
        }
        return;
    }
    for len in rem.div_ceil((p - j) as u64)..=(cap as u64).min(rem) {
        let (len, next) = (len as u32, acc + rk.weight(j, len as u32));
        prefix_blocks(rk, p, j + 1, rem - len as u64, len, next, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::diagram::ChompBox;

    /// Every rank once (by volume, all but the empty diagram), in rank order within a range.
    fn covers_every_rank_once<const BY_VOLUME: bool>(rk: &Ranker) {
        let layers = ColexLayers::<BY_VOLUME> { ranker: rk };
        let mut seen = vec![0u8; rk.len() as usize];
        let mut rows = vec![0u32; rk.shape.rows];
        let mut ranges = Vec::new();
        for v in 0..layers.steps() {
            layers.ranges(v, &mut ranges);
            let mut n = 0;
            for &(base, len) in &ranges {
                for_each_in_range(rk, base, len, &mut rows, |rows, rank| {
                    assert_eq!(rk.rank_rows(rows), rank);
                    seen[rank as usize] += 1;
                    n += 1;
                });
            }
            let lens: u64 = ranges.iter().map(|&(_, l)| l).sum();
            assert_eq!(n, lens, "{} layer {v}", rk.shape);
        }
        seen[0] += BY_VOLUME as u8;
        assert!(seen.iter().all(|&s| s == 1), "{} {BY_VOLUME}", rk.shape);
    }

    #[test]
    fn layers_cover_every_rank_once_in_rank_order() {
        for (r, c) in [(1, 5), (2, 3), (3, 4), (4, 4), (5, 3), (6, 2)] {
            let rk = Ranker::new(ChompBox { rows: r, cols: c }).unwrap();
            covers_every_rank_once::<false>(&rk);
            covers_every_rank_once::<true>(&rk);
        }
    }
}
