//! How a box larger than memory is cut into pieces ([`BlockPlan`]): equal windows for one
//! process, or a square's hook blocks in waves of independent blocks shared among the parts of
//! a wave ([`Part`]); and the plan's file `FILE.blocks/plan` (docs/formats.md), which a resumed
//! run keeps whatever memory it is given now (the pieces must not move).
//!
//! Tests: this file's unit tests; src/chomp/two_player/blocks.rs (runs of every plan);
//! tests/games/blocks.rs.

use super::file;
use crate::chomp::bits::Window;
use crate::chomp::engine::lifecycle::SNAPSHOT_FLOOR;
use crate::chomp::engine::schedule::Schedule;
use crate::chomp::index::BitLayout;
use crate::chomp::store::{self, blocks_dir};
use crate::error::{Error, Input, Result};
use crate::output::AtomicFile;
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::Path;

const PLAN_MAGIC: &str = "chompute chomp blocks 1";

/// The smallest `--memory` a run in blocks takes: a piece of 84 KiB of bits and the smallest
/// buffers (1/8 of the memory, at most 1.5 MiB, for the words read and the P indexes replayed).
pub const MIN_MEMORY: u64 = 96 << 10;

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

impl Split {
    /// Its word in the plan's file and in `chomp solve --plan`.
    pub fn name(self) -> &'static str {
        match self {
            Split::Windows => "windows",
            Split::Waves => "waves",
        }
    }
}

/// One piece of a plan: indexes `lo..hi`, solved in one window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// First index.
    pub lo: u64,
    /// One past the last index.
    pub hi: u64,
    /// The wave: a piece depends only on earlier waves and the earlier pieces of its group.
    pub wave: u64,
    /// Its group of hook blocks of its wave (solved in order, by one part).
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
    /// The least time between snapshots of a window's marks ([`SNAPSHOT_FLOOR`]); zero: at
    /// every step.
    pub snapshot_every: std::time::Duration,
}

impl BlockPlan {
    /// The pieces for `memory` bytes: 7/8 of it for a piece's bits, the rest for the buffers
    /// and the step records. Waves need a square's hook blocks.
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

    pub(super) fn with(index: BitLayout, split: Split, piece_bits: u64) -> BlockPlan {
        let len = index.len();
        let mut pieces = Vec::new();
        match split {
            Split::Windows => {
                let starts = (0..len).step_by(piece_bits as usize).zip(0..);
                pieces.extend(starts.map(|(lo, k)| Piece {
                    lo,
                    hi: (lo + piece_bits).min(len),
                    wave: k,
                    block: k,
                }));
            }
            Split::Waves => {
                let hook = index.hook_index().expect("a block plan has a hook index");
                // Groups: a hook block, or consecutive small blocks of one wave (which then do
                // not each replay the table before them), under an eighth of the wave (so it
                // still shares out) or 2^20 indexes.
                let mut wave_bits = std::collections::HashMap::new();
                for b in hook.blocks() {
                    *wave_bits.entry(b.sum).or_insert(0u64) += b.len;
                }
                let mut groups: Vec<(u64, u64, usize)> = Vec::new();
                for b in hook.blocks() {
                    let cap = piece_bits.min((wave_bits[&b.sum] / 8).max(1 << 20));
                    let hi = b.off + b.len;
                    match groups.last_mut() {
                        Some((lo, end, sum)) if *sum == b.sum && hi - *lo <= cap => *end = hi,
                        _ => groups.push((b.off, hi, b.sum)),
                    }
                }
                for (group, &(glo, ghi, sum)) in groups.iter().enumerate() {
                    // Sum 0 (the empty diagram) is wave 0, sum s ≥ 2 wave s - 1.
                    let wave = sum.saturating_sub(1) as u64;
                    let parts = (ghi - glo).div_ceil(piece_bits);
                    let step = (ghi - glo).div_ceil(parts);
                    pieces.extend((glo..ghi).step_by(step as usize).map(|lo| Piece {
                        lo,
                        hi: (lo + step).min(ghi),
                        wave,
                        block: group as u64,
                    }));
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
    /// [`BlockPlan::chunk_words`] words (read, replayed, written).
    pub fn window_bytes(&self) -> u64 {
        self.piece_bits.div_ceil(64) * 8 + 8 + 24 * self.chunk_words() as u64
    }

    /// Bytes on disk at the run's peak: every piece's file, the largest again (in progress,
    /// snapshot or being assembled) with records bounded as [`super::run::p_record_bound`]
    /// bounds a whole table's, the plan and the journal.
    pub fn disk_bytes(&self) -> u64 {
        let file = |words: u64| super::run::file_bytes(8 * words);
        let words = |k| {
            let (lo, hi) = self.window(k);
            Window::words_for(lo, hi)
        };
        let pieces: u64 = (0..self.windows()).map(|k| file(words(k))).sum();
        let largest = (0..self.windows()).map(words).max().unwrap_or(0);
        let records = 8 * (largest * 64 / 32 + 4096) + 28 * self.index.steps();
        let journal = 64 * 1024 + 32 * self.windows();
        pieces + file(largest) + records + journal
    }

    /// Words a buffer holds: the plan's memory (8/7 of a piece's bytes) / 192, from 512 to
    /// 65536.
    pub fn chunk_words(&self) -> usize {
        (self.piece_bits / 1344).clamp(512, 1 << 16) as usize
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

    /// The plan a checkpoint folder names, checked against `index` (one without a `layout`
    /// line is of windows of `window-bits`, as the first runs in blocks wrote).
    pub(super) fn read(path: &Path, index: &BitLayout) -> Result<BlockPlan> {
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
        let num = |x: &str| x.trim().parse::<u64>().map_err(|_| bad());
        let (part, parts) = (num(i)?, num(n)?);
        let ok = (1..=parts).contains(&part);
        ok.then_some(Part { part, parts }).ok_or_else(bad)
    }
}

/// Start `out`'s checkpoint folder with `plan`.
pub(super) fn write_plan(plan: &BlockPlan, out: &Path) -> Result<()> {
    let dir = blocks_dir(out);
    let plan_path = dir.join("plan");
    crate::output::create_dir_inside(&dir)?;
    let text = file::header_text(
        PLAN_MAGIC,
        &plan.index,
        &[
            ("layout", plan.split.name().to_string()),
            ("piece-bits", plan.piece_bits.to_string()),
            ("pieces", plan.windows().to_string()),
        ],
    );
    let mut f = AtomicFile::create_piece(&plan_path)?;
    f.write_all(text.as_bytes())
        .map_err(|e| Error::io(&plan_path, e))?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::diagram::ChompBox;

    #[test]
    fn plans_cut_the_table_into_equal_windows_that_fit() {
        let index = BitLayout::for_box(ChompBox::square(14)).unwrap();
        let plan = BlockPlan::new(index.clone(), 1 << 20, Split::Windows).unwrap();
        assert!(plan.piece_bits / 8 <= (1 << 20) / 8 * 7);
        assert_eq!(plan.piece_bits % 64, 0);
        assert_eq!(plan.window(plan.windows() - 1).1, index.len());
        assert!(plan.windows() >= 3, "{}", plan.windows());
        assert_eq!(plan.waves(), plan.windows());
        let whole = BlockPlan::new(index.clone(), 1 << 30, Split::Windows).unwrap();
        assert_eq!(whole.windows(), 1);
        // A box that is not square is cut into windows (its refusal of waves, and of memory
        // below a block: tests/games/blocks.rs).
        let colex = BitLayout::for_box(ChompBox { rows: 9, cols: 14 }).unwrap();
        let plan = BlockPlan::new(colex.clone(), MIN_MEMORY, Split::Windows).unwrap();
        assert!(plan.windows() >= 2 && plan.window(plan.windows() - 1).1 == colex.len());
        // A piece and its buffers fit in the memory asked for.
        for memory in [MIN_MEMORY, 200 << 10, 2 << 20, 20 << 20, 14 << 30] {
            for n in [14, 21] {
                let ix = BitLayout::for_box(ChompBox::square(n)).unwrap();
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
    fn parts_are_read_as_i_of_n() {
        assert_eq!(Part::parse("2/3"), Ok(Part { part: 2, parts: 3 }));
        for bad in ["0/3", "4/3", "3", "a/b", "/", "1/0"] {
            assert!(Part::parse(bad).is_err(), "{bad}");
        }
    }
}
