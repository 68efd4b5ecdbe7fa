//! `chomp solve` planned before any work: where the box is solved (the CPU, or a device's layer
//! kernel or square's hook solver through `super::device::solve_on`)
//! and whether whole in memory or to a resumable file (whole, or in blocks when it does not
//! fit), every refusal said up front. The command line and Python make a [`SolvePlan`]. A plan
//! of blocks in numbers ([`PlanSummary`], `chomp solve --plan`): its waves, their groups,
//! pieces and bits, and how much of each a checkpoint folder already holds.
//!
//! Tests: tests/games/chomp/two_player.rs and tests/games/blocks.rs through `chomp solve` (and
//! the plan printed, before and during a run in parts); tests/faults/ (refusals and exit codes).

use super::block_plan::{BlockPlan, Part, Split, MIN_MEMORY};
use super::blocks::{open_piece, solve_in_blocks};
use super::file;
use super::solve::solve_box;
use super::table::PTable;
use crate::chomp::diagram::ChompBox;
use crate::chomp::engine::lifecycle::{RunEvent, SNAPSHOT_FLOOR};
use crate::chomp::engine::schedule::Schedule;
use crate::chomp::index::BitLayout;
use crate::chomp::store::{self, blocks_dir, partial_path};
use crate::error::{Error, Input, Result};
use crate::memory::Room;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// A solve done: the table's index and P-positions, and how it ran in blocks when it did.
#[derive(Debug, Clone)]
pub struct Solved {
    /// The table's index.
    pub index: BitLayout,
    /// P-positions of the box.
    pub p_positions: u64,
    /// How it ran in blocks, when it did.
    pub blocks: Option<super::blocks::BlockRun>,
}

impl Solved {
    /// A table solved whole: its index and P-positions.
    pub(super) fn whole(index: &BitLayout, p_positions: u64) -> Solved {
        Solved {
            index: index.clone(),
            p_positions,
            blocks: None,
        }
    }
}

/// How a planned solve runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Whole in memory on the CPU, nothing saved.
    Memory,
    /// On the CPU to a table file, resumable: whole in memory when it fits, else in blocks
    /// (and with a part, only that share of the next wave).
    File,
    /// A device (`super::device::solve_on`), the table saved when a file is named.
    Gpu,
}

/// A solve of one box, checked before any work.
#[derive(Debug, Clone)]
pub struct SolvePlan {
    /// The box.
    pub shape: ChompBox,
    /// How its bits are numbered.
    pub layout: BitLayout,
    /// How it runs.
    pub route: Route,
    /// The table file, if any.
    pub output: Option<PathBuf>,
    /// Memory the table may take (default: what the machine has).
    pub memory: Option<u64>,
    /// A share of the next wave of blocks.
    pub part: Option<Part>,
}

impl SolvePlan {
    /// Plan the solve of `shape` on the GPU (`gpu`) or the CPU, to `output` when given, in at
    /// most `memory` bytes, refusing before any work what cannot run (a GPU table the host
    /// cannot hold or beside a CPU checkpoint, a target that is no file, a table too large).
    pub fn new(
        shape: ChompBox,
        gpu: bool,
        output: Option<&Path>,
        memory: Option<u64>,
        part: Option<Part>,
    ) -> Result<SolvePlan> {
        let layout = BitLayout::for_box(shape)?;
        let route = match output {
            Some(o) if o.as_os_str() == "-" => {
                return Err(Error::conflict(
                    &[Input::Output],
                    "a table is saved only to a file, which a run locks and resumes beside: name \
                     one with {0}",
                ));
            }
            _ if gpu => {
                if let Some(o) = output {
                    super::blocks::check_target(o)?;
                    memory.map_or(Room::SYSTEM, Room::assume).ensure(
                        layout.bytes(),
                        &format!("saving the GPU's table of the {shape} box"),
                        "the host reads it back whole to write it; solve it without a table \
                         file and read its winning bites on the device",
                    )?;
                    if let Some(c) = [partial_path(o), blocks_dir(o)]
                        .into_iter()
                        .find(|c| store::holds_checkpoint(c))
                    {
                        return Err(Error::conflict(
                            &[Input::Backend],
                            format!(
                                "{} is the checkpoint of a CPU run: resume it with {{0}} cpu",
                                c.display()
                            ),
                        ));
                    }
                }
                Route::Gpu
            }
            Some(o) => {
                super::blocks::check_target(o)?;
                Route::File
            }
            None => {
                let room = memory.map_or(Room::SYSTEM, Room::assume);
                let what = format!("the one-bit table of the {shape} box");
                if let Err(Error::TooLarge { what, needed }) =
                    room.ensure(layout.bytes(), &what, "")
                {
                    // Said in the face's words: the file that lets it run in blocks.
                    return Err(Error::conflict(
                        &[Input::Output],
                        format!(
                            "{what} is too large: {}; name a table file with {{0}} to solve it in \
                             blocks that fit",
                            needed.trim_end_matches(['.', ';', ' '])
                        ),
                    ));
                }
                Route::Memory
            }
        };
        Ok(SolvePlan {
            shape,
            layout,
            route,
            output: output.map(Path::to_path_buf),
            memory,
            part,
        })
    }

    /// The pieces a run of `shape` to `output` (or to no file yet) on the CPU in blocks follows,
    /// in numbers (the box need not fit in memory): its checkpoint folder's (with how much is
    /// done), else a new plan in `memory` (default: what the machine has), in waves for a part.
    pub fn pieces(
        shape: ChompBox,
        output: Option<&Path>,
        memory: Option<u64>,
        part: Option<Part>,
    ) -> Result<PlanSummary> {
        output.map_or(Ok(()), super::blocks::check_target)?;
        let layout = BitLayout::for_box(shape)?;
        let dir = output.map(blocks_dir).filter(|d| d.join("plan").exists());
        if let Some(dir) = dir {
            return Ok(BlockPlan::read(&dir.join("plan"), &layout)?.summary(Some(&dir)));
        }
        let split = part.map_or(Split::Windows, |_| Split::Waves);
        Ok(BlockPlan::new(layout, memory_limit(memory), split)?.summary(None))
    }

    /// The table of a plan that keeps it in memory on the CPU ([`Route::Memory`]), not saved
    /// (Python's `chomp_solve` takes it from here).
    pub fn table(&self) -> Result<PTable> {
        match self.route {
            Route::Memory => solve_box(self.shape),
            _ => Err(Error::invalid(
                "a plan on the GPU or to a table file keeps no table in this process's memory",
            )),
        }
    }

    /// Run the plan on the CPU (a plan on the GPU runs through `super::device::solve_on`);
    /// `report` hears a file run's events. A run to a file goes whole in memory when the table
    /// fits, else in blocks (also with a part, or a folder of pieces to resume): either way
    /// resumable and the same bytes.
    pub fn run(&self, mut report: impl FnMut(RunEvent)) -> Result<Solved> {
        let Some(out) = self.output.as_ref().filter(|_| self.route == Route::File) else {
            let table = self.table()?;
            return Ok(Solved::whole(table.layout(), table.p_count()));
        };
        let memory = memory_limit(self.memory);
        if self.part.is_none() && !blocks_dir(out).exists() && self.layout.bytes() <= memory {
            let table = super::run::solve_to_file(self.shape, out, &mut report)?;
            return Ok(Solved::whole(&self.layout, table.p_count()));
        }
        if self.memory.is_none() && memory < MIN_MEMORY {
            // No memory was asked for: the line names the machine's limit, not an input.
            return Err(Error::too_large(
                format!("the {} box in blocks", self.shape),
                format!(
                    "a block needs at least {}, but this process may take only {} more (its \
                     free memory, cgroup and address-space limit, ulimit -v); raise the limit",
                    crate::memory::human_bytes(MIN_MEMORY),
                    crate::memory::human_bytes(memory)
                ),
            ));
        }
        let run = solve_in_blocks(self.shape, out, memory, self.part, SNAPSHOT_FLOOR, report)?;
        Ok(Solved {
            index: self.layout.clone(),
            p_positions: run.p_positions,
            blocks: Some(run),
        })
    }
}

/// The memory a run may take: `memory` when asked for, else what the machine has (no limit
/// when that is unknown).
fn memory_limit(memory: Option<u64>) -> u64 {
    memory
        .or_else(crate::memory::available_bytes)
        .unwrap_or(u64::MAX)
}

/// One wave of a plan, as [`SolvePlan::pieces`] lists it.
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
    fn summary(&self, dir: Option<&Path>) -> PlanSummary {
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
    let whole = |&s: &u64| matches!(file::read_record(&mut r, n), Some((v, ..)) if v == s);
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
