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
//! - the hook index (`crate::chomp::index::hook`), whose steps are hook sums and, inside them, these same
//!   layers for every colex block of the sum.
//!
//! [`VolumeLayers`] (every position of one number of cells, one index a range) is the
//! schedule of the GPU kernel and of the twins that decide one position at a time.
//!
//! Inside a range the positions run in order, where a bite in the last rows reads or marks
//! bits just written nearby: the table is used where it is hot.
//!
//! Tests: this file's unit tests.

use crate::chomp::diagram::{binomial, ChompBox};
use crate::chomp::index::colex::positions_of_volume;
pub use crate::chomp::index::colex::{for_each_in_range, prefix_rows};
use crate::chomp::index::{HookIndex, Ranker};

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
    const GRAIN: usize;
    /// Steps in all.
    fn steps(&self) -> u64;
    /// The ranges of `step`, in index order, into `out` (cleared first).
    fn ranges(&self, step: u64, out: &mut Vec<(u64, u64)>);
}

/// The steps of a table in either layout, for the checkpoints that record a table step by
/// step: the colex prefix layers, or the steps of the hook index (a square by transposed
/// pairs).
#[derive(Debug, Clone, Copy)]
pub enum TableSteps<'a> {
    /// The prefix-volume layers of a colex table.
    Colex(Layers<'a>),
    /// The steps of the hook index.
    Hook(&'a HookIndex),
}

impl TableSteps<'_> {
    /// Steps in all.
    pub fn steps(&self) -> u64 {
        match self {
            TableSteps::Colex(l) => l.steps(),
            TableSteps::Hook(h) => h.steps(),
        }
    }

    /// The ranges of `step`, in index order, into `out` (cleared first).
    pub fn ranges(&self, step: u64, out: &mut Vec<(u64, u64)>) {
        match self {
            TableSteps::Colex(l) => l.ranges(step, out),
            TableSteps::Hook(h) => h.step_ranges(step, out),
        }
    }
}

/// The layers of a colex table. [`Layers`] (`BY_VOLUME` false): step v is the blocks whose
/// prefix has v cells. [`VolumeLayers`] (`BY_VOLUME` true): step s is every position of s + 1
/// cells, each a range of one index (a bite removes cells, so the positions of one volume are
/// independent), the schedule of the GPU kernel and of the twins that decide one position at a
/// time.
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
            layer_count(shape)
        }
    }

    fn ranges(&self, step: u64, out: &mut Vec<(u64, u64)>) {
        out.clear();
        if BY_VOLUME {
            let mut ranks = Vec::new();
            positions_of_volume(self.ranker, step + 1, &mut ranks);
            out.extend(ranks.into_iter().map(|r| (r, 1)));
            return;
        }
        let p = prefix_rows(self.ranker.shape.rows);
        let layer = Layer::of_volume(self.ranker, p, step);
        out.extend((0..layer.len()).map(|i| {
            let (base, prefix) = layer.block(i, p);
            let cap = if p == 0 {
                self.ranker.shape.cols
            } else {
                prefix[p - 1]
            };
            (base, block_len(self.ranker, p, cap))
        }));
    }
}

/// Number of prefix-volume layers of a box: p·C + 1.
pub fn layer_count(shape: ChompBox) -> u64 {
    prefix_rows(shape.rows) as u64 * shape.cols as u64 + 1
}

/// The blocks of one layer: their first ranks and their prefixes, `p` rows each.
#[derive(Debug, Default, Clone)]
pub struct Layer {
    /// Prefix volume of every block in this layer.
    pub volume: u64,
    /// The first rank of each block.
    pub bases: Vec<u64>,
    /// The prefixes, `p` row lengths per block, flat.
    pub prefixes: Vec<u32>,
}

impl Layer {
    /// The blocks whose prefix (first `p` rows of the box) has `v` cells, in rank order.
    pub fn of_volume(ranker: &Ranker, p: usize, v: u64) -> Layer {
        let mut layer = Layer {
            volume: v,
            ..Layer::default()
        };
        let mut prefix = vec![0u32; p];
        layer.fill(ranker, &mut prefix, 0, v, ranker.shape.cols, 0);
        layer
    }

    fn fill(&mut self, rk: &Ranker, prefix: &mut [u32], j: usize, rem: u64, cap: u32, acc: u64) {
        let p = prefix.len();
        if j == p {
            if rem == 0 {
                self.bases.push(acc);
                self.prefixes.extend_from_slice(prefix);
            }
            return;
        }
        let left = (p - j) as u64;
        let hi = (cap as u64).min(rem);
        let lo = rem.div_ceil(left);
        for len in lo..=hi {
            prefix[j] = len as u32;
            self.fill(
                rk,
                prefix,
                j + 1,
                rem - len,
                len as u32,
                acc + rk.weight(j, len as u32),
            );
        }
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.bases.len()
    }

    /// Whether the layer has no block (a prefix volume the box cannot hold).
    pub fn is_empty(&self) -> bool {
        self.bases.is_empty()
    }

    /// Block `i`: its first rank and its prefix.
    pub fn block(&self, i: usize, p: usize) -> (u64, &[u32]) {
        (self.bases[i], &self.prefixes[i * p..(i + 1) * p])
    }
}

/// Positions in the block of a prefix whose last row is `cap` (C when p = 0), with R-p free
/// rows: C(cap + R - p, R - p).
pub fn block_len(ranker: &Ranker, p: usize, cap: u32) -> u64 {
    let free = (ranker.shape.rows - p) as u64;
    binomial(cap as u64 + free, free).unwrap_or(u64::MAX)
}

/// Positions of one colex layer, for progress and records.
pub fn layer_positions(ranker: &Ranker, v: u64) -> u64 {
    let mut ranges = Vec::new();
    Layers { ranker }.ranges(v, &mut ranges);
    ranges.iter().map(|&(_, l)| l).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_cover_every_rank_once_in_rank_order() {
        for (r, c) in [(1, 5), (2, 3), (3, 4), (4, 4), (5, 3), (6, 2)] {
            let rk = Ranker::new(ChompBox { rows: r, cols: c }).unwrap();
            let layers = Layers { ranker: &rk };
            let mut seen = vec![0u8; rk.len() as usize];
            let mut rows = vec![0u32; r];
            let mut ranges = Vec::new();
            for v in 0..layers.steps() {
                layers.ranges(v, &mut ranges);
                let mut n = 0;
                for &(base, len) in &ranges {
                    for_each_in_range(&rk, base, len, &mut rows, |rows, rank| {
                        assert_eq!(rk.rank_rows(rows), rank);
                        seen[rank as usize] += 1;
                        n += 1;
                    });
                }
                assert_eq!(n, layer_positions(&rk, v), "{r}x{c} layer {v}");
            }
            assert!(seen.iter().all(|&s| s == 1), "{r}x{c}");
        }
    }
}
