//! Boxes larger than memory: a table solved one window of indexes at a time.
//!
//! Both bit layouts order positions so that every option of a position has a smaller index
//! (the colex rank, and the hook index of a square; see [`solve_window`]). So the table splits into windows `lo..hi` of consecutive
//! indexes, each small enough for memory, solved in order: a window first replays the P
//! indexes of the windows before it (each marks its parents inside the window), then walks the
//! schedule restricted to itself. Its finished bits go to disk; the final table is assembled
//! from them and is byte for byte the table an in-memory run writes. This is external sorting's
//! idea (a `-S SIZE` buffer, runs on disk, one merge): the result does not depend on the
//! buffer.
//!
//! # The checkpoint folder `FILE.blocks/`
//! - `plan`: `chompute chomp blocks 1`, `box`, `rank`, `layout windows|waves`, `piece-bits W`,
//!   `pieces K`, an empty line. The pieces follow from these ([`BlockPlan`]). A resumed run
//!   keeps the plan it finds, whatever `--memory` says now (the pieces must not move).
//! - `window-K.bits`: a finished piece ([`piece`]'s format: `chompute chomp window 1`, `box`,
//!   `rank`, `lo`, `hi`, `p-positions` of the piece, a pair stored once counting two, `crc32`
//!   of the words, then the words from index lo rounded down to 64). Written under a
//!   temporary name and renamed, so it is whole or absent.
//! - `window-K.partial`: the checkpoint of the piece in progress, in the format of
//!   [`Checkpoint`] (one record per step of the schedule, the P indexes it found in the
//!   piece), and `window-K.marks`, a snapshot of its marks ([`piece::save_marks`]).
//! - `table`: once every piece is finished, the table file being assembled in place
//!   ([`assemble`]): each piece's words go into it in index order and the piece's file is
//!   removed, so the disk holds the bits about once plus one piece. A run that finds it
//!   resumes the assembly with the first piece still on disk.
//!
//! When the table is saved the folder is removed.
//!
//! Tests: this file's unit tests; tests/games/blocks.rs (identical files whatever the memory),
//! tests/games/tables.rs, scripts/slurm-ci.sh (waves as a job array).

use super::assembly::{Assembled, Assembly, Pieces};
use super::file;
use super::forward::Resume;
use super::piece::{self, Span, WINDOW_MAGIC};
use super::solve::{solve_window, step_ranges, steps};
use crate::chomp::bits::{self, Window};
use crate::chomp::diagram::ChompBox;
use crate::chomp::engine::lifecycle::{run_to_file, Cadence, Job, RunEvent};
use crate::chomp::index::BitLayout;
use crate::chomp::store;
use crate::chomp::store::Checkpoint;
use crate::error::{Error, Input, Result};
use crate::output::AtomicFile;
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;

const PLAN_MAGIC: &str = "chompute chomp blocks 1";

/// The smallest `--memory` a run in blocks takes: a piece of 84 KiB of bits and the smallest
/// buffers (1/8 of the memory, at most 1.5 MiB, for the words read and the P indexes replayed).
pub const MIN_MEMORY: u64 = 96 << 10;

/// The least time between two snapshots of a window's marks; they come by the window's
/// piece's time so far ([`Cadence`](crate::chomp::engine::lifecycle::Cadence)). A snapshot
/// writes the window's bits (11 GB for a third of 21×21, about 35 s), so they are also at
/// least 10 times the last one's writing time apart.
pub use crate::chomp::engine::lifecycle::SNAPSHOT_FLOOR;

/// Words read from a finished piece at a time (when its P indexes are replayed or the table
/// is written) at most.
const REPLAY_WORDS: usize = 1 << 16;

pub use crate::chomp::store::blocks_dir;

/// How the pieces of a plan are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// Windows of equal size, each depending on all before it: for one process, the fewest
    /// replays.
    Windows,
    /// The hook blocks (split where larger than memory), a wave per hook sum: the blocks of
    /// one wave do not depend on each other, so the parts of a wave may run at once.
    Waves,
}

/// One piece of a plan: indexes `lo..hi`, solved in one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// First index.
    pub lo: u64,
    /// One past the last index.
    pub hi: u64,
    /// The wave: a piece depends only on pieces of earlier waves and on the earlier pieces of
    /// its own group.
    pub wave: u64,
    /// The group of hook blocks of its wave it is a piece of (pieces of one group are solved
    /// in order, by one part).
    pub block: u64,
}

/// How a square box is cut into pieces that fit in memory.
#[derive(Debug, Clone)]
pub struct BlockPlan {
    /// The table's index (the hook index of a square box).
    pub index: BitLayout,
    /// How the pieces are cut.
    pub split: Split,
    /// Indexes per piece at most.
    pub piece_bits: u64,
    /// The pieces, in index order.
    pub pieces: Vec<Piece>,
    /// The least time between snapshots of a window's marks (they come by the expected run
    /// time, so that a resume costs the work since the last), see [`SNAPSHOT_FLOOR`]; zero:
    /// at every step.
    pub snapshot_every: std::time::Duration,
}

impl BlockPlan {
    /// The pieces for `memory` bytes: 7/8 of it for a piece's bits, the rest for the replay
    /// buffer and the step records. [`Split::Windows`] cuts the table into equal windows,
    /// [`Split::Waves`] into its hook blocks, each split into equal pieces where larger.
    /// Waves need the hook blocks of a square box: the colex rank of any other box is one
    /// chain of windows, solved by one process.
    pub fn new(index: BitLayout, memory: u64, split: Split) -> Result<BlockPlan> {
        let shape = index.shape();
        if split == Split::Waves && index.hook_index().is_none() {
            return Err(Error::conflict(
                &[Input::Part],
                format!(
                    "the {shape} box is not square: only a square's table splits into waves of \
                     independent blocks ({{0}}); solve it in one process"
                ),
            ));
        }
        if memory < MIN_MEMORY {
            return Err(Error::conflict(
                &[Input::Memory],
                format!(
                    "{{0}} {} is below the smallest block: {} works",
                    crate::memory::human_bytes(memory),
                    crate::memory::human_bytes(MIN_MEMORY)
                ),
            ));
        }
        // Bits of a piece, less one word for a piece that does not start on a word.
        let cap_bits = (memory / 8 * 7) * 8 - 64;
        let piece_bits = match split {
            Split::Windows => {
                let len = index.len();
                let windows = len.div_ceil(cap_bits).max(1);
                len.div_ceil(windows).div_ceil(64) * 64
            }
            Split::Waves => cap_bits,
        };
        Ok(BlockPlan::with(index, split, piece_bits))
    }

    fn with(index: BitLayout, split: Split, piece_bits: u64) -> BlockPlan {
        let len = index.len();
        let mut pieces = Vec::new();
        match split {
            Split::Windows => {
                let mut lo = 0;
                while lo < len {
                    let k = pieces.len() as u64;
                    let hi = (lo + piece_bits).min(len);
                    pieces.push(Piece {
                        lo,
                        hi,
                        wave: k,
                        block: k,
                    });
                    lo = hi;
                }
            }
            Split::Waves => {
                let hook = index.hook_index().expect("a block plan has a hook index");
                // Groups: a hook block, or consecutive small blocks of one wave (so that the
                // many small early blocks do not each replay the table before them); a group
                // stays under an eighth of its wave (so a wave still shares out) unless that
                // is under 2^20 indexes.
                let blocks = hook.hook_blocks();
                let mut wave_bits = std::collections::HashMap::new();
                for b in &blocks {
                    *wave_bits.entry(b.sum).or_insert(0u64) += b.hi - b.lo;
                }
                let mut groups: Vec<(u64, u64, usize)> = Vec::new();
                for b in &blocks {
                    let cap = piece_bits.min((wave_bits[&b.sum] / 8).max(1 << 20));
                    match groups.last_mut() {
                        Some((lo, hi, sum)) if *sum == b.sum && b.hi - *lo <= cap => *hi = b.hi,
                        _ => groups.push((b.lo, b.hi, b.sum)),
                    }
                }
                for (group, &(glo, ghi, sum)) in groups.iter().enumerate() {
                    // Sum 0 (the empty diagram) is wave 0, sum s ≥ 2 wave s - 1.
                    let wave = sum.saturating_sub(1) as u64;
                    let parts = (ghi - glo).div_ceil(piece_bits);
                    let step = (ghi - glo).div_ceil(parts);
                    let mut lo = glo;
                    while lo < ghi {
                        let hi = (lo + step).min(ghi);
                        pieces.push(Piece {
                            lo,
                            hi,
                            wave,
                            block: group as u64,
                        });
                        lo = hi;
                    }
                }
            }
        }
        BlockPlan {
            index,
            split,
            piece_bits,
            pieces,
            snapshot_every: SNAPSHOT_FLOOR,
        }
    }

    /// Number of pieces.
    pub fn windows(&self) -> u64 {
        self.pieces.len() as u64
    }

    /// Number of waves.
    pub fn waves(&self) -> u64 {
        self.pieces.last().map_or(0, |p| p.wave + 1)
    }

    /// Piece `k` as a span of the table.
    pub fn span(&self, k: u64) -> Span<'_> {
        let (lo, hi) = self.window(k);
        Span {
            index: &self.index,
            lo,
            hi,
        }
    }

    /// Piece `k`: its indexes `lo..hi`.
    pub fn window(&self, k: u64) -> (u64, u64) {
        let p = self.pieces[k as usize];
        (p.lo, p.hi)
    }

    /// Whether piece `k` needs the P-positions of piece `j` (replayed into it).
    pub fn depends(&self, k: u64, j: u64) -> bool {
        let (a, b) = (self.pieces[k as usize], self.pieces[j as usize]);
        b.wave < a.wave || (b.block == a.block && b.lo < a.lo)
    }

    /// Bytes of memory a piece takes at most: its bits and three buffers of
    /// [`BlockPlan::chunk_words`] words (read, replayed, written), together at most 1/8 of the
    /// `--memory` the plan was made for.
    pub fn window_bytes(&self) -> u64 {
        self.piece_bits.div_ceil(64) * 8 + 8 + 24 * self.chunk_words() as u64
    }

    /// Bytes on disk at the run's peak: every piece's file (its words, chunk CRCs and
    /// header), and beside them either the piece in progress (its checkpoint's records,
    /// bounded as [`p_record_bound`](super::run::p_record_bound) bounds a whole table's, and
    /// the snapshot of its marks) or, during the assembly, the first piece's words in the
    /// table; the plan and the journal.
    pub fn disk_bytes(&self) -> u64 {
        let file = |words: u64| 8 * words + (8 * words).div_ceil(store::CHUNK_BYTES) * 4 + 8192;
        let words = |k| {
            let (lo, hi) = self.window(k);
            Window::words_for(lo, hi)
        };
        let pieces: u64 = (0..self.windows()).map(|k| file(words(k))).sum();
        let largest = (0..self.windows()).map(words).max().unwrap_or(0);
        let steps = steps(&self.index);
        let records = 8 * (largest * 64 / 32 + 4096) + 28 * steps;
        let running = file(largest) + records;
        let journal = 64 * 1024 + 32 * self.windows();
        pieces + running.max(file(largest)) + journal
    }

    /// Words a buffer holds: the plan's memory (8/7 of a piece's bytes) / 192, from 512 to
    /// 65536.
    pub fn chunk_words(&self) -> usize {
        (self.piece_bits / 1344).clamp(512, REPLAY_WORDS as u64) as usize
    }

    /// The pieces of `wave` that part `part` of `parts` (from 1) solves: the wave's blocks,
    /// largest first, each to the part with the fewest indexes so far (the lowest on a tie).
    pub fn part_pieces(&self, wave: u64, part: u64, parts: u64) -> Vec<u64> {
        let mut blocks: Vec<(u64, u64)> = Vec::new();
        for p in self.pieces.iter().filter(|p| p.wave == wave) {
            match blocks.iter_mut().find(|(b, _)| *b == p.block) {
                Some((_, len)) => *len += p.hi - p.lo,
                None => blocks.push((p.block, p.hi - p.lo)),
            }
        }
        blocks.sort_by_key(|&(b, len)| (std::cmp::Reverse(len), b));
        // More parts than blocks: the parts past the blocks' number have no share.
        let mut load = vec![0u64; (parts as usize).min(blocks.len()).max(1)];
        let mut mine = Vec::new();
        for (b, len) in blocks {
            let i = (0..load.len())
                .min_by_key(|&i| (load[i], i))
                .expect("parts ≥ 1");
            load[i] += len;
            if i as u64 + 1 == part {
                mine.push(b);
            }
        }
        (0..self.windows())
            .filter(|&k| mine.contains(&self.pieces[k as usize].block))
            .collect()
    }

    fn plan_text(&self) -> String {
        file::header_text(
            PLAN_MAGIC,
            &self.index,
            &[
                (
                    "layout",
                    match self.split {
                        Split::Windows => "windows",
                        Split::Waves => "waves",
                    }
                    .to_string(),
                ),
                ("piece-bits", self.piece_bits.to_string()),
                ("pieces", self.windows().to_string()),
            ],
        )
    }

    /// The plan a checkpoint folder names, checked against `index`. (A plan without a
    /// `layout` line is of windows of `window-bits`, as the first runs in blocks wrote.)
    fn read(path: &Path, index: &BitLayout) -> Result<BlockPlan> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let (pairs, _) = store::read_header(path, &mut BufReader::new(file), PLAN_MAGIC)?;
        let got = store::header_index(path, &pairs)?;
        if got.shape() != index.shape() || got.scheme() != index.scheme() {
            return Err(Error::invalid(format!(
                "{} is the plan of the {} box numbered '{}', not of this run's {} box ('{}'); \
                 remove its folder to start afresh",
                path.display(),
                got.shape(),
                got.scheme(),
                index.shape(),
                index.scheme()
            )));
        }
        let bad = |what: &str| Error::invalid(format!("{}: {what}", path.display()));
        let (split, key) = match store::field(path, &pairs, "layout") {
            Err(_) => (Split::Windows, "window-bits"),
            Ok("windows") => (Split::Windows, "piece-bits"),
            Ok("waves") => (Split::Waves, "piece-bits"),
            Ok(other) => {
                return Err(bad(&format!(
                    "layout '{other}' is neither windows nor waves"
                )))
            }
        };
        let piece_bits: u64 = store::field(path, &pairs, key)?
            .parse()
            .ok()
            .filter(|&w: &u64| w > 0 && (split == Split::Waves || w % 64 == 0))
            .ok_or_else(|| bad(&format!("'{key}' is not a valid piece size")))?;
        Ok(BlockPlan::with(index.clone(), split, piece_bits))
    }
}

/// One wave of a plan, as [`BlockPlan::summary`] lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
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
    /// Its indexes decided so far: the finished pieces', and those of the steps a piece in
    /// progress has recorded.
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
    /// The plan in numbers; `done(k)` says how many of piece `k`'s indexes are decided.
    pub fn summary(&self, done: impl Fn(u64) -> u64) -> PlanSummary {
        let mut waves: Vec<WaveSummary> = Vec::new();
        let mut block_bits: Vec<(u64, u64, u64)> = Vec::new(); // (wave, block, bits)
        for (k, p) in self.pieces.iter().enumerate() {
            if waves.last().is_none_or(|w| w.wave != p.wave + 1) {
                waves.push(WaveSummary {
                    wave: p.wave + 1,
                    groups: 0,
                    pieces: 0,
                    bits: 0,
                    largest_group_bits: 0,
                    pieces_done: 0,
                    bits_done: 0,
                });
            }
            let w = waves.last_mut().expect("pushed");
            w.pieces += 1;
            w.bits += p.hi - p.lo;
            let d = done(k as u64);
            w.pieces_done += (d == p.hi - p.lo) as u64;
            w.bits_done += d;
            match block_bits.last_mut() {
                Some((_, b, bits)) if *b == p.block => *bits += p.hi - p.lo,
                _ => block_bits.push((p.wave, p.block, p.hi - p.lo)),
            }
        }
        for (wave, _, bits) in block_bits {
            let i = waves.partition_point(|w| w.wave < wave + 1);
            let w = &mut waves[i];
            w.groups += 1;
            w.largest_group_bits = w.largest_group_bits.max(bits);
        }
        PlanSummary {
            shape: self.index.shape().to_string(),
            layout: match self.split {
                Split::Windows => "windows",
                Split::Waves => "waves",
            },
            bits: self.index.len(),
            bytes: self.index.bytes(),
            piece_bytes: self.window_bytes(),
            steps: steps(&self.index),
            pieces: self.windows(),
            waves,
        }
    }
}

/// The plan a run of `shape` to `out` follows: the one in `out`'s checkpoint folder when there
/// is one (with its finished pieces counted), else a new one for `memory` bytes, in waves when
/// `waves`.
pub fn plan_for(
    shape: ChompBox,
    out: Option<&Path>,
    memory: u64,
    waves: bool,
) -> Result<PlanSummary> {
    let index = BitLayout::for_box(shape)?;
    if let Some(out) = out {
        let dir = blocks_dir(out);
        let plan_path = dir.join("plan");
        if plan_path.exists() {
            let plan = BlockPlan::read(&plan_path, &index)?;
            return Ok(plan.summary(|k| bits_done(&dir, &plan, k)));
        }
    }
    let split = if waves { Split::Waves } else { Split::Windows };
    Ok(BlockPlan::new(index, memory, split)?.summary(|_| 0))
}

/// Indexes of piece `k` decided: all when its file is there, else those of the steps its
/// checkpoint records (read only: a run may be appending to it).
fn bits_done(dir: &Path, plan: &BlockPlan, k: u64) -> u64 {
    let (lo, hi) = plan.window(k);
    if window_p_positions(dir, plan, k).is_ok() {
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
    let mut steps = 0;
    while let Ok(Some((v, _, _))) = file::read_record(&mut r, plan.index.len()) {
        if v != steps {
            break;
        }
        steps += 1;
    }
    let mut ranges = Vec::new();
    (0..steps)
        .map(|s| {
            step_ranges(&plan.index, s, &mut ranges);
            ranges
                .iter()
                .map(|&(b, l)| (b + l).min(hi).saturating_sub(b.max(lo)))
                .sum::<u64>()
        })
        .sum()
}

/// What a run in blocks did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRun {
    /// P-positions of the box (0 for a part that left the table unfinished).
    pub p_positions: u64,
    /// Pieces in all.
    pub windows: u64,
    /// Pieces already finished when this run started.
    pub windows_resumed: u64,
    /// P indexes replayed into later pieces, in all.
    pub replayed: u64,
    /// Waves in all.
    pub waves: u64,
    /// Waves whose every piece is finished, when this run ended.
    pub waves_done: u64,
    /// The wave a part worked on (from 0), if it was a part.
    pub wave: Option<u64>,
    /// Whether the table was written.
    pub saved: bool,
}

/// One share of the work: part `part` (from 1) of `parts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// This share, from 1.
    pub part: u64,
    /// Shares in all.
    pub parts: u64,
}

impl Part {
    /// `I/N` with 1 ≤ I ≤ N.
    pub fn parse(s: &str) -> std::result::Result<Part, String> {
        let bad = || format!("'{s}' is not a part I/N with 1 ≤ I ≤ N, such as 2/3");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (part, parts): (u64, u64) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if part == 0 || part > parts {
            return Err(bad());
        }
        Ok(Part { part, parts })
    }
}

/// Solve `shape` in windows of at most `memory` bytes into `out`, keeping finished windows in
/// `FILE.blocks/` (resuming from it when it exists), then write `out` and remove the folder.
pub fn solve_in_blocks(
    shape: ChompBox,
    out: &Path,
    memory: u64,
    report: impl FnMut(RunEvent),
) -> Result<BlockRun> {
    solve_in_blocks_with(shape, out, memory, None, SNAPSHOT_FLOOR, report)
}

/// [`solve_in_blocks`], or with `part` only that share of the next unfinished wave (planned
/// in waves when the folder is new), snapshotting a window's marks every `snapshot_every`.
/// A run without a part finishes every piece left, in wave order, and writes the table; a
/// part keeps the folder for the run that does. Through the engine's one lifecycle
/// ([`run_to_file`]): the target, the disk, the lock, the pieces, the assembly published.
pub fn solve_in_blocks_with(
    shape: ChompBox,
    out: &Path,
    memory: u64,
    part: Option<Part>,
    snapshot_every: std::time::Duration,
    report: impl FnMut(RunEvent),
) -> Result<BlockRun> {
    let job = || BlocksJob::new(shape, out, memory, part, snapshot_every);
    run_to_file(out, job, report)
}

/// A run in blocks: the mode's part of the run to a file. Its checkpoint is the folder
/// `FILE.blocks`; its disk peak the plan's; its resume the plan's lock, the pieces already
/// finished and the assembly begun; its steps the pieces, then the assembly in place; its
/// publishing the assembled table's rename.
struct BlocksJob {
    plan: BlockPlan,
    /// Whether the plan is new: written once the disk is checked.
    new_plan: bool,
    part: Option<Part>,
    dir: PathBuf,
    /// The plan file, locked: exclusively by a plain run, shared by the parts.
    lock: Option<File>,
    assembly: Option<Assembly>,
    /// Each piece's P-positions, once finished.
    counts: Vec<Option<u64>>,
    run: BlockRun,
}

impl BlocksJob {
    /// The plan a run of `shape` to `out` follows: its folder's, else a new one for `memory`
    /// (in waves for a part), checked before the folder exists: a plan that cannot run is
    /// never written.
    fn new(
        shape: ChompBox,
        out: &Path,
        memory: u64,
        part: Option<Part>,
        snapshot_every: std::time::Duration,
    ) -> Result<BlocksJob> {
        check_target(out)?;
        let index = BitLayout::for_box(shape)?;
        let dir = blocks_dir(out);
        let plan_path = dir.join("plan");
        let new_plan = !plan_path.exists();
        let mut plan = match new_plan {
            false => BlockPlan::read(&plan_path, &index)?,
            true if part.is_some() => BlockPlan::new(index, memory, Split::Waves)?,
            true => BlockPlan::new(index, memory, Split::Windows)?,
        };
        if part.is_some() && plan.split != Split::Waves {
            return Err(Error::conflict(
                &[Input::Part],
                format!(
                    "{} was planned in windows, for one process: finish it without {{0}}, or \
                     remove it to plan waves",
                    dir.display()
                ),
            ));
        }
        crate::memory::ensure_available(
            plan.window_bytes(),
            &format!("a piece of the {shape} box"),
            "the folder's plan keeps its pieces; remove it to plan smaller ones",
        )?;
        plan.snapshot_every = snapshot_every;
        let windows = plan.windows();
        Ok(BlocksJob {
            run: BlockRun {
                p_positions: 0,
                windows,
                windows_resumed: 0,
                replayed: 0,
                waves: plan.waves(),
                waves_done: 0,
                wave: None,
                saved: false,
            },
            plan,
            new_plan,
            part,
            dir,
            lock: None,
            assembly: None,
            counts: Vec::new(),
        })
    }
}

impl Job for BlocksJob {
    type Output = BlockRun;

    fn disk_bytes(&self) -> u64 {
        self.plan.disk_bytes()
    }

    fn checkpoints(&self, _out: &Path) -> Vec<PathBuf> {
        vec![self.dir.clone()]
    }

    fn resume(&mut self, out: &Path) -> Result<Vec<RunEvent>> {
        let dir = &self.dir;
        if self.new_plan {
            write_plan(&self.plan, out)?;
        }
        // One plain run at a time on a folder, beside any number of parts (a part locks its
        // pieces).
        let plan_path = dir.join("plan");
        let plan_file = File::open(&plan_path).map_err(|e| Error::io(&plan_path, e))?;
        store::flock_now(&plan_file, self.part.is_some()).map_err(|_| {
            Error::invalid(format!(
                "{} is being solved by another process (its folder {} is locked)",
                out.display(),
                dir.display()
            ))
        })?;
        self.lock = Some(plan_file);
        // A run of the table whole in memory (or on a device) holds FILE.partial: one in
        // progress is refused; one stopped is of no use to the pieces and goes, with its marks.
        let partial = store::partial_path(out);
        if store::locked_elsewhere(&partial) {
            return Err(Error::invalid(format!(
                "{} is being solved by another process (its checkpoint {} is locked)",
                out.display(),
                partial.display()
            )));
        }
        for stale in [partial, store::marks_path(out)] {
            if stale.is_file() {
                std::fs::remove_file(&stale).map_err(|e| Error::io(&stale, e))?;
            }
        }
        crate::output::remove_stale_temps(dir);
        // The pieces already in the table being assembled (each checked against its record
        // as it is read) have left the folder; the others are on disk or solved (again) now.
        if self.part.is_none() && Assembly::begun(dir) {
            self.assembly = Some(Assembly::reopen(&self.plan, dir)?);
        }
        let in_table = self.assembly.as_ref().map_or(0, |a| a.pieces.len() as u64);
        self.counts = (0..self.plan.windows())
            .map(|k| match &self.assembly {
                Some(a) if k < in_table => Some(a.pieces[k as usize].p),
                _ => window_p_positions(dir, &self.plan, k).ok(),
            })
            .collect();
        self.run.windows_resumed = self.counts.iter().filter(|c| c.is_some()).count() as u64;
        Ok(Vec::new())
    }

    fn run(&mut self, report: &mut dyn FnMut(RunEvent)) -> Result<()> {
        let (plan, dir) = (&self.plan, &self.dir);
        let todo = pieces_to_solve(plan, dir, self.part, &self.counts, &mut self.run);
        for k in todo {
            // Every piece this one depends on must be finished (another part's, in waves).
            let missing = (0..plan.windows())
                .find(|&j| plan.depends(k, j) && self.counts[j as usize].is_none());
            if let Some(j) = missing {
                return Err(Error::invalid(format!(
                    "piece {k} of {} needs piece {j}, which is not finished: run the parts of \
                     wave {} first",
                    dir.display(),
                    plan.pieces[j as usize].wave + 1
                )));
            }
            let (p, replayed) = solve_one(plan, dir, k, self.assembly.as_ref(), report)?;
            self.run.replayed += replayed;
            self.counts[k as usize] = Some(p);
        }
        if let (Some(Part { part, parts }), Some(w)) = (self.part, self.run.wave) {
            let done = part_done_path(dir, w, part, parts);
            std::fs::write(&done, b"").map_err(|e| Error::io(&done, e))?;
        }
        self.run.waves_done = (0..plan.waves())
            .take_while(|&w| {
                let mut pieces = plan.pieces.iter().zip(&self.counts);
                pieces.all(|(p, c)| p.wave != w || c.is_some())
            })
            .count() as u64;
        if self.part.is_some() {
            return Ok(());
        }
        let mut assembly = match self.assembly.take() {
            Some(a) => a,
            None => {
                let p = self
                    .counts
                    .iter()
                    .map(|c| c.expect("every piece solved"))
                    .sum();
                Assembly::create(plan, dir, p)?
            }
        };
        report(RunEvent::Assembling);
        assemble(plan, dir, &mut assembly, report)?;
        self.assembly = Some(assembly);
        Ok(())
    }

    fn discard(&mut self) -> Result<()> {
        // Finished pieces serve any rerun: nothing is discarded.
        Ok(())
    }

    fn publishes(&self) -> bool {
        self.part.is_none()
    }

    fn publish(mut self, out: &Path) -> Result<BlockRun> {
        let Some(assembly) = self.assembly.take().filter(|_| self.part.is_none()) else {
            return Ok(self.run);
        };
        self.run.p_positions = assembly.finish(&self.plan, &self.dir, out)?;
        std::fs::remove_dir_all(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        self.run.saved = true;
        Ok(self.run)
    }
}

/// The pieces this run solves: every unfinished one, or with `part` its share of the next
/// wave it has not marked done (set in `run.wave`).
fn pieces_to_solve(
    plan: &BlockPlan,
    dir: &Path,
    part: Option<Part>,
    counts: &[Option<u64>],
    run: &mut BlockRun,
) -> Vec<u64> {
    match part {
        None => (0..plan.windows())
            .filter(|&k| counts[k as usize].is_none())
            .collect(),
        Some(Part { part, parts }) => {
            // This part's next wave: the first it has not marked done. (Not "the first with
            // pieces left": a part whose share of a wave is empty, or done, must not take a
            // share of the next wave, which that wave's own run of this part will take.)
            let next = (0..plan.waves()).find(|&w| !part_done_path(dir, w, part, parts).exists());
            run.wave = next;
            match next {
                Some(w) => plan
                    .part_pieces(w, part, parts)
                    .into_iter()
                    .filter(|&k| counts[k as usize].is_none())
                    .collect(),
                None => Vec::new(),
            }
        }
    }
}

/// Put every finished piece not yet in the table into it, in index order (each piece's file
/// removed once its words are in the table, durable and recorded: [`Assembly::append`]).
fn assemble(
    plan: &BlockPlan,
    dir: &Path,
    assembly: &mut Assembly,
    report: &mut dyn FnMut(RunEvent),
) -> Result<()> {
    let windows = plan.windows();
    for k in assembly.pieces.len() as u64..windows {
        // The piece whole in memory (as when it was solved) and its CRC checked before any of
        // it goes into the table.
        let mut words = Vec::new();
        let (crc, p) = for_each_window_slice(dir, plan, k, None, |ws| {
            words.extend_from_slice(ws);
            Ok(())
        })?;
        assembly.append(plan, k, words, Assembled { crc, p })?;
        let done = window_path(dir, k);
        std::fs::remove_file(&done).map_err(|e| Error::io(&done, e))?;
        report(RunEvent::Assembled {
            piece: k,
            pieces: windows,
        });
        crate::cancel::check()?;
    }
    Ok(())
}

impl Pieces for BlockPlan {
    fn index(&self) -> &BitLayout {
        &self.index
    }

    fn windows(&self) -> u64 {
        BlockPlan::windows(self)
    }

    fn window(&self, k: u64) -> (u64, u64) {
        BlockPlan::window(self, k)
    }
}

/// Refuse, before any work, a table file that a resumable run cannot write: anything but a
/// regular file or a new path in a folder of files, or one whose folder of pieces
/// (`FILE.blocks`) is taken by something that is not a folder.
pub fn check_target(out: &Path) -> Result<()> {
    store::check_resumable_target(out)?;
    let dir = blocks_dir(out);
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| !m.is_dir()) {
        return Err(Error::invalid(format!(
            "{}: the folder of pieces of {} would go there, but it is not a folder; move it",
            dir.display(),
            out.display()
        )));
    }
    Ok(())
}

/// Start `out`'s checkpoint folder with `plan`.
fn write_plan(plan: &BlockPlan, out: &Path) -> Result<()> {
    let dir = blocks_dir(out);
    let plan_path = dir.join("plan");
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let mut f = AtomicFile::create_piece(&plan_path)?;
    f.write_all(plan.plan_text().as_bytes())
        .map_err(|e| Error::io(&plan_path, e))?;
    f.commit()
}

/// The mark that part `part` of `parts` has finished its share of wave `w`.
fn part_done_path(dir: &Path, w: u64, part: u64, parts: u64) -> PathBuf {
    dir.join(format!("wave-{w}.part-{part}-of-{parts}"))
}

fn window_path(dir: &Path, k: u64) -> PathBuf {
    dir.join(format!("window-{k}.bits"))
}

/// Solve window `k` (resuming from its checkpoint) and save it: its P-positions and the P
/// indexes replayed into it.
fn solve_one(
    plan: &BlockPlan,
    dir: &Path,
    k: u64,
    assembly: Option<&Assembly>,
    report: &mut dyn FnMut(RunEvent),
) -> Result<(u64, u64)> {
    let (lo, hi) = plan.window(k);
    let words = bits::zeroed_words(Window::words_for(lo, hi) as usize);
    let win = Window {
        lo,
        hi,
        words: &words,
    };
    let base = win.base();
    let partial = dir.join(format!("window-{k}.partial"));
    let _lock = lock_piece(&dir.join(format!("window-{k}.lock")), k)?;
    let marks_path = dir.join(format!("window-{k}.marks"));
    // A snapshot of the marks, when there is a whole one, saves redoing the steps before it.
    let snapshot = match piece::load_marks(&marks_path, plan.span(k), &words, plan.chunk_words()) {
        Ok(s) => Some(s),
        Err(_) => {
            words.iter().for_each(|w| w.store(0, Relaxed));
            None
        }
    };
    let mut after = Vec::new();
    let (mut checkpoint, start) =
        Checkpoint::open_for(&partial, &plan.index, |step, r| match snapshot {
            Some(s) if step >= s => after.push(r),
            Some(_) => {}
            None if r >= lo && r < hi => {
                words[((r - base) >> 6) as usize].fetch_or(1 << ((r - base) & 63), Relaxed);
            }
            None => {}
        })?;
    let resume = match snapshot {
        Some(_) => Resume::Marks { start, after },
        None => Resume::Bits { start },
    };
    report(RunEvent::Piece {
        piece: k,
        pieces: plan.windows(),
        lo,
        hi,
        resumed_steps: start,
        dropped_bytes: checkpoint.dropped_bytes,
    });
    let mut replayed = 0u64;
    // The replay and the steps both report.
    let report = std::cell::RefCell::new(report);
    let mut snapshot_done = 0u64;
    // Until one is written, a snapshot is taken to write at 300 MB/s.
    let mut cadence = Cadence::new(
        plan.snapshot_every,
        std::time::Duration::from_millis(words.len() as u64 * 8 / 300_000),
    );
    solve_window(
        &plan.index,
        win,
        resume,
        |sink| {
            let chunk = plan.chunk_words();
            let mut qs = Vec::with_capacity(chunk);
            let deps: Vec<u64> = (0..k).filter(|&j| plan.depends(k, j)).collect();
            // On a terminal, a bar of the words of the pieces replayed.
            let words_in_all = deps
                .iter()
                .map(|&j| {
                    let (lo, hi) = plan.window(j);
                    Window::words_for(lo, hi)
                })
                .sum();
            let phase = crate::progress::phase("replay (words)", Some(words_in_all));
            let mut words_read = 0u64;
            for j in deps {
                let mut at = plan.window(j).0 & !63;
                for_each_window_slice(dir, plan, j, assembly, |ws| {
                    words_read += ws.len() as u64;
                    phase.set(words_read);
                    for (i, &w) in ws.iter().enumerate() {
                        // Bits outside piece j are clear in its file.
                        let mut bits = w;
                        while bits != 0 {
                            qs.push(at + ((i as u64) << 6) + bits.trailing_zeros() as u64);
                            bits &= bits - 1;
                        }
                    }
                    at += (ws.len() as u64) << 6;
                    if qs.len() >= chunk {
                        sink(&qs)?;
                        replayed += qs.len() as u64;
                        qs.clear();
                        (report.borrow_mut())(RunEvent::Replayed(replayed));
                    }
                    Ok(())
                })?;
            }
            sink(&qs)?;
            replayed += qs.len() as u64;
            Ok(())
        },
        |step, ps, progress| {
            checkpoint.append(step, ps)?;
            // Between steps no thread marks: the words are a consistent snapshot. One is
            // taken only when the window moved on since the last ([`Cadence`]).
            let snapshot =
                cadence.due(progress.done, progress.total) && progress.done > snapshot_done;
            if snapshot {
                cadence.take(|| {
                    piece::save_marks(
                        &marks_path,
                        plan.span(k),
                        step + 1,
                        &words,
                        plan.chunk_words(),
                    )
                })?;
                snapshot_done = progress.done;
                (report.borrow_mut())(RunEvent::Snapshot { step: step + 1 });
            }
            (report.borrow_mut())(RunEvent::Step(progress));
            Ok(())
        },
    )?;
    let p = plan.index.p_count(win.words, win.base());
    piece::save_window(
        &window_path(dir, k),
        plan.span(k),
        p,
        &words,
        plan.chunk_words(),
    )?;
    checkpoint.remove()?;
    if marks_path.exists() {
        std::fs::remove_file(&marks_path).map_err(|e| Error::io(&marks_path, e))?;
    }
    Ok((p, replayed))
}

/// Hold piece `k`'s lock (an flock on `path`, released when the file is closed, so also when
/// the process dies): a second process on the same piece is refused at once.
fn lock_piece(path: &Path, k: u64) -> Result<File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    if store::flock_now(&file, false).is_err() {
        return Err(Error::invalid(format!(
            "piece {k} of {} is being solved by another process",
            path.parent().unwrap_or(path).display()
        )));
    }
    Ok(file)
}

/// The P-positions a finished window's header names.
fn window_p_positions(dir: &Path, plan: &BlockPlan, k: u64) -> Result<u64> {
    let path = window_path(dir, k);
    let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
    Ok(piece::read_piece_header(&path, &file, plan.span(k), WINDOW_MAGIC)?.number)
}

/// Every word of finished piece `k` (from its `lo` rounded down, other pieces' bits clear), in
/// slices, then its CRC checked: from the table being assembled when `assembly` holds it, else
/// from its file. Returns the piece's CRC-32 and P-positions. A piece whose file fails its CRC
/// is removed, so that the same command solves it again.
fn for_each_window_slice(
    dir: &Path,
    plan: &BlockPlan,
    k: u64,
    assembly: Option<&Assembly>,
    each: impl FnMut(&[u64]) -> Result<()>,
) -> Result<(u32, u64)> {
    if let Some(a) = assembly.filter(|a| k < a.pieces.len() as u64) {
        a.for_each_piece_slice(plan, k, plan.chunk_words(), each)?;
        let rec = a.pieces[k as usize];
        return Ok((rec.crc, rec.p));
    }
    let path = window_path(dir, k);
    let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
    let h = piece::read_piece_header(&path, &file, plan.span(k), WINDOW_MAGIC)?;
    match piece::read_piece_words(&path, &file, &h, plan.chunk_words(), each) {
        Ok(()) => Ok((h.crc(), h.number)),
        Err(Error::Invalid(why)) => {
            drop(file);
            std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            Err(Error::invalid(format!(
                "{why}; it is removed, and the same command solves piece {k} again"
            )))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn shape(n: usize) -> ChompBox {
        ChompBox {
            rows: n,
            cols: n as u32,
        }
    }

    /// Bytes the files under `p` (a folder, or a file) take.
    fn bytes_under(p: &Path) -> u64 {
        crate::chomp::store::files::dir_bytes(p)
    }

    #[test]
    fn the_disk_a_run_in_blocks_is_checked_for_is_at_least_what_it_takes() {
        // Sampled at every step and every piece assembled, snapshots at every step: the
        // pieces, the window's checkpoint and marks, then the table assembled in place.
        let dir = std::env::temp_dir().join(format!("chompute-blocks-d-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (n, memory) in [(12, MIN_MEMORY), (13, MIN_MEMORY), (13, 200 << 10)] {
            let out = dir.join(format!("d{n}-{memory}.tbl"));
            let index = BitLayout::for_box(shape(n)).unwrap();
            let plan = BlockPlan::new(index, memory, Split::Windows).unwrap();
            assert!(plan.windows() >= 2, "{n}: {} windows", plan.windows());
            let folder = blocks_dir(&out);
            let mut peak = 0;
            solve_in_blocks_with(shape(n), &out, memory, None, Duration::ZERO, |_| {
                peak = peak.max(bytes_under(&folder));
            })
            .unwrap();
            peak = peak.max(bytes_under(&out));
            assert!(
                peak <= plan.disk_bytes(),
                "{n}x{n} in {} pieces: {peak} B on disk, checked for {}",
                plan.windows(),
                plan.disk_bytes()
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_disk_a_whole_run_is_checked_for_is_at_least_what_it_takes() {
        // The checkpoint and the marks, sampled after every step (a snapshot at each), and
        // the table written beside them at the end.
        let dir = std::env::temp_dir().join(format!("chompute-whole-d-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for b in [shape(9), shape(12), ChompBox { rows: 7, cols: 11 }] {
            let out = dir.join(format!("w{b}.tbl"));
            let (partial, marks) = (store::partial_path(&out), store::marks_path(&out));
            let mut peak = 0;
            let t = super::super::run::solve_to_file_every(b, &out, Duration::ZERO, |_| {
                peak = peak.max(bytes_under(&partial) + bytes_under(&marks));
            })
            .unwrap();
            peak += bytes_under(&out);
            let bound = super::super::run::disk_bytes(t.layout());
            assert!(peak <= bound, "{b}: {peak} B on disk, checked for {bound}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_whole_tables_checkpoint_records_are_within_their_bound() {
        // 8 bytes a P-position: the bound takes at most 1 in 32 positions plus 4,096 as P,
        // which every box to 12x12 keeps (the share falls as boxes grow: 0.42% on 18x18).
        for rows in 1..=12usize {
            for cols in rows as u32..=12 {
                let b = ChompBox { rows, cols };
                let table = crate::chomp::two_player::solve::solve(b).unwrap();
                let layout = table.layout();
                let records = 8 * table.p_count() + 28 * steps(layout);
                assert!(
                    records <= super::super::run::p_record_bound(layout),
                    "{b}: {} P of {}",
                    table.p_count(),
                    layout.len()
                );
            }
        }
    }

    #[test]
    fn plans_cut_the_table_into_equal_windows_that_fit() {
        let index = BitLayout::for_box(shape(14)).unwrap();
        let plan = BlockPlan::new(index.clone(), 1 << 20, Split::Windows).unwrap();
        assert!(plan.piece_bits / 8 <= (1 << 20) / 8 * 7);
        assert_eq!(plan.piece_bits % 64, 0);
        assert_eq!(plan.window(plan.windows() - 1).1, index.len());
        assert!(plan.windows() >= 3, "{}", plan.windows());
        assert_eq!(plan.waves(), plan.windows());
        let whole = BlockPlan::new(index.clone(), 1 << 30, Split::Windows).unwrap();
        assert_eq!(whole.windows(), 1);
        let small = BlockPlan::new(index.clone(), MIN_MEMORY - 1, Split::Windows).unwrap_err();
        assert!(small.to_string().contains("96.0 KiB works"), "{small}");
        // A box that is not square is cut into windows, never into waves.
        let colex = BitLayout::for_box(ChompBox { rows: 9, cols: 14 }).unwrap();
        let plan = BlockPlan::new(colex.clone(), MIN_MEMORY, Split::Windows).unwrap();
        assert!(plan.windows() >= 2 && plan.window(plan.windows() - 1).1 == colex.len());
        let waves = BlockPlan::new(colex, 1 << 20, Split::Waves).unwrap_err();
        assert!(waves.to_string().contains("not square"), "{waves}");
        // A piece and its buffers fit in the memory asked for.
        for memory in [MIN_MEMORY, 200 << 10, 2 << 20, 20 << 20, 14 << 30] {
            for n in [14, 21] {
                let ix = BitLayout::for_box(shape(n)).unwrap();
                for split in [Split::Windows, Split::Waves] {
                    let plan = BlockPlan::new(ix.clone(), memory, split).unwrap();
                    assert!(plan.window_bytes() <= memory, "{n}, {memory}, {split:?}");
                }
            }
        }
        // Waves: 2n of them, the pieces cover the table in order, none larger than asked.
        let waves = BlockPlan::new(index.clone(), MIN_MEMORY, Split::Waves).unwrap();
        assert_eq!(waves.waves(), 28);
        let mut at = 0;
        for p in &waves.pieces {
            assert_eq!(p.lo, at);
            assert!(p.hi - p.lo <= waves.piece_bits);
            at = p.hi;
        }
        assert_eq!(at, index.len());
        assert!(waves.pieces.iter().any(|p| p.lo % 64 != 0));
        // Every piece goes to exactly one part of its wave.
        for parts in [1, 2, 3, 5] {
            let mut seen = vec![0; waves.pieces.len()];
            for w in 0..waves.waves() {
                for part in 1..=parts {
                    for k in waves.part_pieces(w, part, parts) {
                        assert_eq!(waves.pieces[k as usize].wave, w);
                        seen[k as usize] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "{parts} parts");
        }
    }

    #[test]
    fn a_box_solved_in_blocks_writes_the_in_memory_file() {
        let dir = std::env::temp_dir().join(format!("chompute-blocks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let not_square = |rows, cols| ChompBox { rows, cols };
        for (b, memory, several) in [
            (shape(9), MIN_MEMORY, false),
            (shape(12), MIN_MEMORY, true),
            (shape(13), 200 << 10, true),
            (not_square(10, 14), MIN_MEMORY, true),
            (not_square(14, 10), MIN_MEMORY, true),
        ] {
            let n = b.to_string();
            let whole = dir.join(format!("{n}.tbl"));
            crate::chomp::two_player::run::solve_to_file(b, &whole, |_| {}).unwrap();
            let blocks = dir.join(format!("{n}-blocks.tbl"));
            let mut windows = 0;
            let run = solve_in_blocks(b, &blocks, memory, |e| {
                if let RunEvent::Piece { .. } = e {
                    windows += 1;
                }
            })
            .unwrap();
            assert_eq!(run.windows, windows);
            assert!(!several || windows > 1, "{n}: {windows} windows");
            assert_eq!(
                std::fs::read(&whole).unwrap(),
                std::fs::read(&blocks).unwrap(),
                "{n} in {windows} windows"
            );
            assert!(!blocks_dir(&blocks).exists());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_interrupted_run_in_blocks_resumes_to_the_same_file() {
        use crate::cancel::Cancel;
        let dir = std::env::temp_dir().join(format!("chompute-blocks-r-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = 9;
        let whole = dir.join("whole.tbl");
        crate::chomp::two_player::run::solve_to_file(shape(n), &whole, |_| {}).unwrap();
        let want = std::fs::read(&whole).unwrap();
        let index = BitLayout::for_box(shape(n)).unwrap();
        let plan = BlockPlan::with(index, Split::Windows, 64 * 64);
        assert!(plan.windows() >= 4, "{}", plan.windows());
        let mut steps_in_all = 0u64;
        {
            let out = dir.join("count.tbl");
            write_plan(&plan, &out).unwrap();
            solve_in_blocks_with(shape(n), &out, 0, None, Duration::ZERO, |e| {
                if let RunEvent::Step(_) = e {
                    steps_in_all += 1;
                }
            })
            .unwrap();
            assert_eq!(std::fs::read(&out).unwrap(), want);
        }
        // Stops early, mid-window with and without a snapshot, and at a window's end.
        for (i, stop) in [3, steps_in_all / 3, steps_in_all / 2 + 7, steps_in_all - 2]
            .into_iter()
            .enumerate()
        {
            for every in [Duration::ZERO, Duration::from_secs(3600)] {
                let out = dir.join(format!("r{i}-{}.tbl", every.as_secs()));
                write_plan(&plan, &out).unwrap();
                let token = Cancel::new();
                let mut seen = 0u64;
                let got = token.scope(|| {
                    solve_in_blocks_with(shape(n), &out, 0, None, every, |e| {
                        if let RunEvent::Step(_) = e {
                            seen += 1;
                            if seen == stop {
                                token.cancel();
                            }
                        }
                    })
                });
                assert!(
                    matches!(got, Err(Error::Interrupted)),
                    "stop {stop}: {got:?}"
                );
                let snapshots = std::fs::read_dir(blocks_dir(&out))
                    .unwrap()
                    .filter(|e| {
                        let name = e.as_ref().unwrap().file_name();
                        name.to_string_lossy().ends_with(".marks")
                    })
                    .count();
                if i == 1 || i == 2 {
                    // Mid-window: a snapshot when they are taken at every step, else none.
                    assert_eq!(snapshots, every.is_zero() as usize, "stop {stop}");
                }
                let mut resumed = 0;
                let mut rest = 0u64;
                solve_in_blocks_with(shape(n), &out, 0, None, SNAPSHOT_FLOOR, |e| match e {
                    RunEvent::Piece { resumed_steps, .. } => resumed += resumed_steps,
                    RunEvent::Step(_) => rest += 1,
                    _ => {}
                })
                .unwrap();
                assert_eq!(std::fs::read(&out).unwrap(), want, "stop {stop}, {every:?}");
                // The resumed run does only the steps still to do.
                assert_eq!(rest + stop, steps_in_all, "stop {stop}");
                assert!(resumed <= stop, "stop {stop}: {resumed}");
                assert!(!blocks_dir(&out).exists());
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_assembly_interrupted_after_any_piece_resumes_to_the_same_file_in_place() {
        use crate::cancel::Cancel;
        let dir = std::env::temp_dir().join(format!("chompute-blocks-a-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = 9;
        let whole = dir.join("whole.tbl");
        crate::chomp::two_player::run::solve_to_file(shape(n), &whole, |_| {}).unwrap();
        let want = std::fs::read(&whole).unwrap();
        let index = BitLayout::for_box(shape(n)).unwrap();
        // Windows start on words; waves' pieces mostly do not (their first word is shared).
        for plan in [
            BlockPlan::with(index.clone(), Split::Windows, 64 * 64),
            BlockPlan::with(index.clone(), Split::Waves, 700),
        ] {
            let pieces = plan.windows();
            assert!(pieces >= 4, "{pieces}");
            for stop in [0, 1, pieces / 2, pieces - 1] {
                // 0: stopped; 1: and torn after the synced words; 2: and a bit of the first
                // piece's words flipped on disk (its file gone: solved again).
                for damage in 0..3 {
                    let out = dir.join(format!("a-{:?}-{stop}-{damage}.tbl", plan.split));
                    write_plan(&plan, &out).unwrap();
                    let folder = blocks_dir(&out);
                    let token = Cancel::new();
                    let got = token.scope(|| {
                        solve_in_blocks_with(shape(n), &out, 0, None, SNAPSHOT_FLOOR, |e| {
                            if let RunEvent::Assembled { piece: window, .. } = e {
                                // The pieces in the table are gone from the disk, the
                                // others wait: the bits are on disk about once.
                                for k in 0..pieces {
                                    assert_eq!(window_path(&folder, k).exists(), k > window);
                                }
                                if window == stop {
                                    token.cancel();
                                }
                            }
                        })
                    });
                    assert!(matches!(got, Err(Error::Interrupted)), "{got:?}");
                    assert!(!out.exists());
                    let table = super::super::assembly::table_path(&folder);
                    if damage == 2 {
                        let mut bytes = std::fs::read(&table).unwrap();
                        let body = bytes.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
                        bytes[body] ^= 1;
                        std::fs::write(&table, &bytes).unwrap();
                    }
                    if damage == 1 {
                        // Killed while the next piece was going in: part of it, and a torn
                        // word, after the synced words.
                        use std::io::Write;
                        let mut f = std::fs::OpenOptions::new()
                            .append(true)
                            .open(&table)
                            .unwrap();
                        f.write_all(&[0xff; 13]).unwrap();
                    }
                    let before = std::fs::read_dir(&folder).unwrap().count();
                    let mut solved = 0;
                    let mut assembled = 0;
                    let run =
                        solve_in_blocks_with(
                            shape(n),
                            &out,
                            0,
                            None,
                            SNAPSHOT_FLOOR,
                            |e| match e {
                                RunEvent::Piece { .. } => solved += 1,
                                RunEvent::Assembled { .. } => assembled += 1,
                                _ => {}
                            },
                        )
                        .unwrap();
                    match damage {
                        2 => {
                            // Every piece that had left the folder is solved again.
                            assert_eq!(solved, stop + 1);
                            assert_eq!(assembled, pieces);
                        }
                        _ => {
                            assert_eq!(solved, 0, "no piece is solved again");
                            assert_eq!(assembled, pieces - stop - 1);
                        }
                    }
                    assert!(before >= 2);
                    assert_eq!(
                        run.p_positions,
                        file::TableFile::open(&whole).unwrap().p_positions
                    );
                    assert_eq!(
                        std::fs::read(&out).unwrap(),
                        want,
                        "{:?}, stopped after piece {stop}, damage {damage}",
                        plan.split
                    );
                    assert!(!folder.exists());
                }
            }
            // A piece lost from the folder during the assembly is solved again.
            let out = dir.join(format!("lost-{:?}.tbl", plan.split));
            write_plan(&plan, &out).unwrap();
            let token = Cancel::new();
            let _ = token.scope(|| {
                solve_in_blocks_with(shape(n), &out, 0, None, SNAPSHOT_FLOOR, |e| {
                    if let RunEvent::Assembled { .. } = e {
                        token.cancel();
                    }
                })
            });
            std::fs::remove_file(window_path(&blocks_dir(&out), pieces - 1)).unwrap();
            let mut solved = 0;
            solve_in_blocks_with(shape(n), &out, 0, None, SNAPSHOT_FLOOR, |e| {
                if let RunEvent::Piece { .. } = e {
                    solved += 1;
                }
            })
            .unwrap();
            assert_eq!(solved, 1);
            assert_eq!(std::fs::read(&out).unwrap(), want);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_parts_of_each_wave_then_a_plain_run_write_the_one_process_file() {
        let dir = std::env::temp_dir().join(format!("chompute-blocks-w-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (n, piece_bits) in [(9usize, 700u64), (10, 3000)] {
            let whole = dir.join(format!("{n}.tbl"));
            crate::chomp::two_player::run::solve_to_file(shape(n), &whole, |_| {}).unwrap();
            let want = std::fs::read(&whole).unwrap();
            let out = dir.join(format!("{n}-waves.tbl"));
            let index = BitLayout::for_box(shape(n)).unwrap();
            write_plan(&BlockPlan::with(index, Split::Waves, piece_bits), &out).unwrap();
            let waves = 2 * n as u64;
            let run = |part: Option<Part>| {
                solve_in_blocks_with(shape(n), &out, 0, part, SNAPSHOT_FLOOR, |_| {}).unwrap()
            };
            // Parts of a wave in any order; stop three waves early.
            for w in 0..waves - 3 {
                for part in [3, 1, 2] {
                    let r = run(Some(Part { part, parts: 3 }));
                    assert_eq!(r.wave, Some(w), "{n}: wave {w}, part {part}");
                    assert!(!r.saved);
                    assert_eq!(r.waves, waves);
                    // The wave is done once its parts with pieces are, at the latest after
                    // its last part.
                    let range = if part == 2 { w + 1..=w + 1 } else { w..=w + 1 };
                    assert!(range.contains(&r.waves_done), "{n}: {w}/{part}");
                }
            }
            // A plain run finishes the rest and writes the table.
            let r = run(None);
            assert!(r.saved);
            assert_eq!(r.waves_done, waves);
            assert_eq!(std::fs::read(&out).unwrap(), want, "{n}x{n} in waves");
            assert!(!blocks_dir(&out).exists());
        }
        // A part on a folder planned in windows is refused.
        let out = dir.join("windows.tbl");
        let index = BitLayout::for_box(shape(9)).unwrap();
        write_plan(&BlockPlan::with(index, Split::Windows, 640), &out).unwrap();
        let e = solve_in_blocks_with(
            shape(9),
            &out,
            0,
            Some(Part { part: 1, parts: 2 }),
            SNAPSHOT_FLOOR,
            |_| {},
        )
        .unwrap_err();
        assert!(e.to_string().contains("planned in windows"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn parts_are_read_as_i_of_n() {
        assert_eq!(Part::parse("2/3"), Ok(Part { part: 2, parts: 3 }));
        for bad in ["0/3", "4/3", "3", "a/b", "/", "1/0"] {
            assert!(Part::parse(bad).is_err(), "{bad}");
        }
    }
}
