//! A plan of blocks in numbers (`chomp solve --plan`): its waves, their groups, pieces and
//! bits, and how much of each a checkpoint folder already holds.
//!
//! Tests: tests/games/blocks.rs (the plan printed, before and during a run in parts).

use super::block_plan::BlockPlan;
use super::blocks::open_piece;
use super::file;
use crate::chomp::engine::schedule::Schedule;
use crate::chomp::store;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

/// One wave of a plan, as [`BlockPlan::summary`] lists it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct WaveSummary {
    /// The wave, from 1.
    pub wave: u64,
    /// Its groups of hook blocks (independent of each other: a part takes whole groups).
    pub groups: u64,
    /// Its pieces.
    pub pieces: u64,
    /// Its indexes (bits).
    pub bits: u64,
    /// Its largest group's indexes: the most one part of the wave may have to do.
    pub largest_group_bits: u64,
    /// Pieces already finished in the checkpoint folder, when one was read.
    pub pieces_done: u64,
    /// Its indexes decided so far (those of the steps a piece in progress has recorded too).
    pub bits_done: u64,
}

/// A plan in numbers (`chomp solve --plan`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PlanSummary {
    /// The box.
    #[serde(rename = "box")]
    pub shape: String,
    /// `windows` or `waves`.
    pub layout: &'static str,
    /// Indexes of the table.
    pub bits: u64,
    /// Bytes of the table's bits.
    pub bytes: u64,
    /// Bytes a piece takes in memory at most.
    pub piece_bytes: u64,
    /// Steps of the schedule (each piece walks them).
    pub steps: u64,
    /// Pieces in all.
    pub pieces: u64,
    /// The waves.
    pub waves: Vec<WaveSummary>,
}

impl BlockPlan {
    /// The plan in numbers, with how much its checkpoint folder `dir` holds when given.
    pub(super) fn summary(&self, dir: Option<&Path>) -> PlanSummary {
        let mut waves: Vec<WaveSummary> = Vec::new();
        // The group the last piece is of (a group's pieces are consecutive, in one wave).
        let (mut block, mut group_bits) = (None, 0);
        for (k, p) in self.pieces.iter().enumerate() {
            if waves.last().is_none_or(|w| w.wave != p.wave + 1) {
                let wave = p.wave + 1;
                waves.push(WaveSummary {
                    wave,
                    ..WaveSummary::default()
                });
            }
            let w = waves.last_mut().expect("pushed");
            if block != Some(p.block) {
                (block, group_bits) = (Some(p.block), 0);
                w.groups += 1;
            }
            let (bits, d) = (p.hi - p.lo, dir.map_or(0, |d| bits_done(d, self, k as u64)));
            group_bits += bits;
            w.largest_group_bits = w.largest_group_bits.max(group_bits);
            w.pieces += 1;
            w.bits += bits;
            w.pieces_done += (d == bits) as u64;
            w.bits_done += d;
        }
        PlanSummary {
            shape: self.index.shape().to_string(),
            layout: self.split.name(),
            bits: self.index.len(),
            bytes: self.index.bytes(),
            piece_bytes: self.window_bytes(),
            steps: self.index.steps(),
            pieces: self.windows(),
            waves,
        }
    }
}

/// Indexes of piece `k` decided: all when its file is there, else those of the steps its
/// checkpoint records (read only: a run may be appending to it).
fn bits_done(dir: &Path, plan: &BlockPlan, k: u64) -> u64 {
    let (lo, hi) = plan.window(k);
    if open_piece(dir, plan, k).is_ok() {
        return hi - lo;
    }
    let path = dir.join(format!("window-{k}.partial"));
    let Ok(file) = File::open(&path) else {
        return 0;
    };
    let mut r = BufReader::with_capacity(1 << 20, file);
    let Ok(_) = store::read_header(&path, &mut r, file::PARTIAL_MAGIC) else {
        return 0;
    };
    let n = plan.index.len();
    let whole = |&s: &u64| matches!(file::read_record(&mut r, n), Ok(Some((v, ..))) if v == s);
    let steps = (0..).take_while(whole).count() as u64;
    let mut ranges = Vec::new();
    (0..steps)
        .map(|s| {
            plan.index.ranges(s, &mut ranges);
            ranges
                .iter()
                .map(|&(b, l)| (b + l).min(hi).saturating_sub(b.max(lo)))
                .sum::<u64>()
        })
        .sum()
}
