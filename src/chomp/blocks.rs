//! Boxes larger than memory: a square box's table solved one window of indexes at a time.
//!
//! The hook index orders positions so that every option of a position has a smaller index
//! (see [`sym::solve_window`]). So the table splits into windows `lo..hi` of consecutive
//! indexes, each small enough for memory, solved in order: a window first replays the P
//! indexes of the windows before it (each marks its parents inside the window), then walks the
//! schedule restricted to itself. Its finished bits go to disk; the final table is assembled
//! from them and is byte for byte the table an in-memory run writes. This is external sorting's
//! idea (a `-S SIZE` buffer, runs on disk, one merge): the result does not depend on the
//! buffer.
//!
//! # The checkpoint folder `FILE.blocks/`
//! - `plan`: `chompute chomp blocks 1`, `box`, `rank`, `window-bits W` (a multiple of 64),
//!   `windows K`, an empty line. Window k holds indexes `k·W .. min((k+1)·W, len)`. A resumed
//!   run keeps the plan it finds, whatever `--memory` says now (the windows must not move).
//! - `window-K.bits`: a finished window, `chompute chomp window 1`, `box`, `rank`, `lo`, `hi`,
//!   `p-positions` (of the box, a pair stored once counting two), `crc32` (of the words), an
//!   empty line, then the window's words (little-endian u64, bit i of word j is index
//!   lo + 64j + i). Written under a temporary name and renamed, so it is whole or absent.
//! - `window-K.partial`: the checkpoint of the window in progress, in the format of
//!   [`super::store::Checkpoint`] (one record per step of the schedule, the P indexes it found
//!   in the window).
//!
//! When the table is saved the folder is removed.

use super::diagram::ChompBox;
use super::solve::TableIndex;
use super::store::{self, Checkpoint};
use super::sym::{self, SymIndex, Window};
use crate::error::{Error, Result};
use crate::render::encode::atomic::AtomicFile;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const PLAN_MAGIC: &str = "chompute chomp blocks 1";
const WINDOW_MAGIC: &str = "chompute chomp window 1";
const MARKS_MAGIC: &str = "chompute chomp window marks 1";

/// The smallest `--memory` a run in blocks takes: one window of 32 KiB of bits and its
/// replay buffer.
pub const MIN_MEMORY: u64 = 64 << 10;

/// How often a window's marks are snapshot by default: a snapshot writes the window's bits
/// (16 GiB for half of 21×21, a minute or so), a resume then costs the steps since.
pub const SNAPSHOT_EVERY: std::time::Duration = std::time::Duration::from_secs(900);

/// Words read from a finished window at a time when its P indexes are replayed.
const REPLAY_WORDS: usize = 1 << 16;

/// The checkpoint folder of a table file: `FILE.blocks`.
pub fn blocks_dir(table: &Path) -> PathBuf {
    let mut s = table.as_os_str().to_owned();
    s.push(".blocks");
    PathBuf::from(s)
}

/// How a square box is cut into windows that fit in memory.
#[derive(Debug, Clone)]
pub struct BlockPlan {
    /// The table's index (the hook index of a square box).
    pub index: TableIndex,
    /// Indexes per window, a multiple of 64.
    pub window_bits: u64,
    /// How often a window's marks are snapshot (so that a resume costs the work since).
    pub snapshot_every: std::time::Duration,
}

impl BlockPlan {
    /// The windows for `memory` bytes: 7/8 of it for the window's bits, the rest for the
    /// replay buffer and the step records; windows of equal size. Only square boxes (the hook
    /// index) are solved in blocks.
    pub fn new(index: TableIndex, memory: u64) -> Result<BlockPlan> {
        let shape = index.shape();
        if index.sym.is_none() {
            return Err(Error::too_large(
                format!("the one-bit table of the {shape} box"),
                format!(
                    "it needs {} of memory, and only square boxes are solved in blocks; \
                     choose a smaller box",
                    crate::memory::human_bytes(index.bytes())
                ),
            ));
        }
        if memory < MIN_MEMORY {
            return Err(Error::invalid(format!(
                "--memory {} is below the smallest block: {} works",
                crate::memory::human_bytes(memory),
                crate::memory::human_bytes(MIN_MEMORY)
            )));
        }
        let len = index.len();
        let cap_bits = (memory / 8 * 7) * 8;
        let windows = len.div_ceil(cap_bits).max(1);
        let window_bits = len.div_ceil(windows).div_ceil(64) * 64;
        Ok(BlockPlan {
            index,
            window_bits,
            snapshot_every: SNAPSHOT_EVERY,
        })
    }

    /// The hook index.
    pub fn sym(&self) -> &SymIndex {
        self.index
            .sym
            .as_deref()
            .expect("a block plan has a hook index")
    }

    /// Number of windows.
    pub fn windows(&self) -> u64 {
        self.index.len().div_ceil(self.window_bits)
    }

    /// Window `k`: its indexes `lo..hi`.
    pub fn window(&self, k: u64) -> (u64, u64) {
        let lo = k * self.window_bits;
        (lo, (lo + self.window_bits).min(self.index.len()))
    }

    /// Bytes of memory a window takes (its bits and the replay buffer).
    pub fn window_bytes(&self) -> u64 {
        self.window_bits / 8 + (REPLAY_WORDS as u64) * 16
    }

    fn plan_text(&self) -> String {
        store::header_text(
            PLAN_MAGIC,
            &self.index,
            &[
                ("window-bits", self.window_bits.to_string()),
                ("windows", self.windows().to_string()),
            ],
        )
    }

    /// The plan a checkpoint folder names, checked against `index`.
    fn read(path: &Path, index: &TableIndex) -> Result<BlockPlan> {
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
        let window_bits: u64 = store::field(path, &pairs, "window-bits")?
            .parse()
            .ok()
            .filter(|&w: &u64| w > 0 && w % 64 == 0)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "{}: 'window-bits' is not a multiple of 64",
                    path.display()
                ))
            })?;
        Ok(BlockPlan {
            index: index.clone(),
            window_bits,
            snapshot_every: SNAPSHOT_EVERY,
        })
    }
}

/// What a run in blocks reports.
pub enum BlockEvent {
    /// Window `window` of `windows` starts (`done` windows were finished before this run).
    Window {
        /// The window, from 0.
        window: u64,
        /// Windows in all.
        windows: u64,
        /// Its first index and one past its last.
        lo: u64,
        /// One past its last index.
        hi: u64,
        /// Steps read back from its checkpoint.
        resumed_steps: u64,
    },
    /// The P indexes below the window are being replayed into it.
    Replay {
        /// P indexes replayed so far.
        replayed: u64,
    },
    /// A step of the schedule is finished in the window.
    Step {
        /// The step, from 0.
        step: u64,
        /// Whether a snapshot of the window's marks was saved after it.
        snapshot: bool,
    },
    /// All windows are finished; the table is being written.
    Assembling,
}

/// What a run in blocks did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRun {
    /// P-positions of the box.
    pub p_positions: u64,
    /// Windows in all.
    pub windows: u64,
    /// Windows already finished when this run started.
    pub windows_resumed: u64,
    /// P indexes replayed into later windows, in all.
    pub replayed: u64,
}

/// Solve `shape` in windows of at most `memory` bytes into `out`, keeping finished windows in
/// `FILE.blocks/` (resuming from it when it exists), then write `out` and remove the folder.
pub fn solve_in_blocks(
    shape: ChompBox,
    out: &Path,
    memory: u64,
    report: impl FnMut(BlockEvent),
) -> Result<BlockRun> {
    solve_in_blocks_with(shape, out, memory, SNAPSHOT_EVERY, report)
}

/// [`solve_in_blocks`] snapshotting a window's marks every `snapshot_every`.
pub fn solve_in_blocks_with(
    shape: ChompBox,
    out: &Path,
    memory: u64,
    snapshot_every: std::time::Duration,
    mut report: impl FnMut(BlockEvent),
) -> Result<BlockRun> {
    let index = TableIndex::for_box(shape)?;
    let dir = blocks_dir(out);
    let plan_path = dir.join("plan");
    let mut plan = if plan_path.exists() {
        BlockPlan::read(&plan_path, &index)?
    } else {
        let plan = BlockPlan::new(index, memory)?;
        write_plan(&plan, out)?;
        plan
    };
    plan.snapshot_every = snapshot_every;
    crate::memory::ensure_available(
        plan.window_bytes(),
        &format!("a window of the {shape} box"),
        "the folder's plan keeps its windows; remove it to plan smaller ones",
    )?;
    let windows = plan.windows();
    let mut run = BlockRun {
        p_positions: 0,
        windows,
        windows_resumed: 0,
        replayed: 0,
    };
    let mut counts = Vec::new();
    for k in 0..windows {
        let p = match window_p_positions(&dir, &plan, k) {
            Ok(p) => {
                run.windows_resumed += 1;
                p
            }
            Err(_) => {
                let (p, replayed) = solve_one(&plan, &dir, k, &mut report)?;
                run.replayed += replayed;
                p
            }
        };
        counts.push(p);
    }
    run.p_positions = counts.iter().sum();
    report(BlockEvent::Assembling);
    store::save_words(out, &plan.index, run.p_positions, |sink| {
        for k in 0..windows {
            for_each_window_slice(&dir, &plan, k, |ws| sink(ws))?;
        }
        Ok(())
    })?;
    std::fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    Ok(run)
}

/// What `chomp solve -o FILE` reports as it goes.
pub enum SolveEvent {
    /// The table is solved whole in memory: its checkpoint's events.
    Whole(store::RunEvent),
    /// The table is solved in blocks.
    Block(BlockEvent),
}

/// A table saved by [`solve_file`].
#[derive(Debug, Clone)]
pub struct Solved {
    /// The table's index.
    pub index: TableIndex,
    /// P-positions of the box.
    pub p_positions: u64,
    /// How it ran in blocks, when it did.
    pub blocks: Option<BlockRun>,
}

/// Whether a run of the table of `index` saved to `out` goes in blocks: when `out`'s block
/// folder exists (a run to resume), or when the table's bits exceed `memory` (default: what
/// the machine has, [`crate::memory::available_bytes`]).
pub fn in_blocks(index: &TableIndex, out: &Path, memory: Option<u64>) -> bool {
    blocks_dir(out).exists()
        || memory
            .or_else(crate::memory::available_bytes)
            .is_some_and(|m| index.bytes() > m)
}

/// Solve `shape` and save its table to `out`, whole in memory when it fits in `memory`
/// (default: what the machine has) and in blocks of at most `memory` otherwise (see
/// [`in_blocks`]); either way resumable, and either way the same bytes. Refused before any
/// work when the disk lacks room for the table and its checkpoint.
pub fn solve_file(
    shape: ChompBox,
    out: &Path,
    memory: Option<u64>,
    mut report: impl FnMut(SolveEvent),
) -> Result<Solved> {
    let index = TableIndex::for_box(shape)?;
    let blocks = in_blocks(&index, out, memory);
    // Blocks keep every finished window beside the table until it is written.
    let needed = index.bytes() * if blocks { 2 } else { 1 };
    ensure_disk(out, needed)?;
    if !blocks {
        let table = store::solve_to_file(shape, out, |e| report(SolveEvent::Whole(e)))?;
        return Ok(Solved {
            p_positions: table.p_count(),
            index,
            blocks: None,
        });
    }
    let memory = memory
        .or_else(crate::memory::available_bytes)
        .unwrap_or(u64::MAX);
    let run = solve_in_blocks(shape, out, memory, |e| report(SolveEvent::Block(e)))?;
    Ok(Solved {
        index,
        p_positions: run.p_positions,
        blocks: Some(run),
    })
}

/// [`Error::TooLarge`] when the file system of `out` has less than `bytes` free (statvfs);
/// nothing when it cannot be asked.
fn ensure_disk(out: &Path, bytes: u64) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return Ok(());
    };
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a statvfs to fill.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Ok(());
    }
    let free = (st.f_bavail as u64).saturating_mul(st.f_frsize as u64);
    // What is already there (a checkpoint being resumed) counts as room.
    let have = [blocks_dir(out), store::partial_path(out)]
        .iter()
        .map(|p| dir_bytes(p))
        .sum::<u64>();
    if bytes > free.saturating_add(have) {
        return Err(Error::too_large(
            format!("the table {}", out.display()),
            format!(
                "it needs {} of disk for the table and its checkpoint, but {} has {} free;                  choose another folder",
                crate::memory::human_bytes(bytes),
                dir.display(),
                crate::memory::human_bytes(free)
            ),
        ));
    }
    Ok(())
}

/// Bytes of a file, or of the files of a folder (one level), 0 when absent.
fn dir_bytes(p: &Path) -> u64 {
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => std::fs::read_dir(p)
            .map(|rd| {
                rd.filter_map(|e| e.ok()?.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
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

fn window_path(dir: &Path, k: u64) -> PathBuf {
    dir.join(format!("window-{k}.bits"))
}

/// Solve window `k` (resuming from its checkpoint) and save it: its P-positions and the P
/// indexes replayed into it.
fn solve_one(
    plan: &BlockPlan,
    dir: &Path,
    k: u64,
    report: &mut impl FnMut(BlockEvent),
) -> Result<(u64, u64)> {
    let (lo, hi) = plan.window(k);
    let sym = plan.sym();
    let words: Vec<AtomicU64> = (0..(hi - lo).div_ceil(64))
        .map(|_| AtomicU64::new(0))
        .collect();
    let win = Window {
        lo,
        hi,
        words: &words,
    };
    let partial = dir.join(format!("window-{k}.partial"));
    let marks_path = dir.join(format!("window-{k}.marks"));
    // A snapshot of the marks, when there is a whole one, saves redoing the steps before it.
    let snapshot = match load_marks(&marks_path, plan, k, &words) {
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
                words[((r - lo) >> 6) as usize].fetch_or(1 << ((r - lo) & 63), Relaxed);
            }
            None => {}
        })?;
    let resume = match snapshot {
        Some(_) => sym::Resume::Marks { start, after },
        None => sym::Resume::Bits { start },
    };
    report(BlockEvent::Window {
        window: k,
        windows: plan.windows(),
        lo,
        hi,
        resumed_steps: start,
    });
    let mut replayed = 0u64;
    // The replay and the steps both report.
    let report = std::cell::RefCell::new(report);
    let mut last_snapshot = std::time::Instant::now();
    let mut snapshot_done = 0u64;
    sym::solve_window(
        sym,
        win,
        resume,
        |sink| {
            let mut qs = Vec::with_capacity(REPLAY_WORDS);
            for j in 0..k {
                let (base, _) = plan.window(j);
                let mut at = base;
                for_each_window_slice(dir, plan, j, |ws| {
                    for (i, &w) in ws.iter().enumerate() {
                        let mut bits = w;
                        while bits != 0 {
                            qs.push(at + ((i as u64) << 6) + bits.trailing_zeros() as u64);
                            bits &= bits - 1;
                        }
                    }
                    at += (ws.len() as u64) << 6;
                    if qs.len() >= REPLAY_WORDS {
                        sink(&qs)?;
                        replayed += qs.len() as u64;
                        qs.clear();
                        (report.borrow_mut())(BlockEvent::Replay { replayed });
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
            // taken only when the window moved on since the last.
            let snapshot = last_snapshot.elapsed() >= plan.snapshot_every
                && progress.done > snapshot_done
                && progress.done < progress.total;
            if snapshot {
                save_marks(&marks_path, plan, k, step + 1, &words)?;
                last_snapshot = std::time::Instant::now();
                snapshot_done = progress.done;
            }
            (report.borrow_mut())(BlockEvent::Step { step, snapshot });
            Ok(())
        },
    )?;
    let p = sym::window_p_count(sym, win);
    save_window(&window_path(dir, k), plan, k, p, &words)?;
    checkpoint.remove()?;
    if marks_path.exists() {
        std::fs::remove_file(&marks_path).map_err(|e| Error::io(&marks_path, e))?;
    }
    Ok((p, replayed))
}

/// The header of a piece of a window.
struct PieceHeader {
    number: u64,
    crc: u32,
    data_start: u64,
    end: u64,
}

fn window_header_text(plan: &BlockPlan, k: u64, p: u64, crc: u32) -> String {
    let (lo, hi) = plan.window(k);
    store::header_text(
        WINDOW_MAGIC,
        &plan.index,
        &[
            ("lo", lo.to_string()),
            ("hi", hi.to_string()),
            ("p-positions", p.to_string()),
            ("crc32", format!("{crc:08x}")),
        ],
    )
}

fn marks_header_text(plan: &BlockPlan, k: u64, step: u64, crc: u32) -> String {
    let (lo, hi) = plan.window(k);
    store::header_text(
        MARKS_MAGIC,
        &plan.index,
        &[
            ("lo", lo.to_string()),
            ("hi", hi.to_string()),
            ("step", step.to_string()),
            ("crc32", format!("{crc:08x}")),
        ],
    )
}

fn save_window(path: &Path, plan: &BlockPlan, k: u64, p: u64, words: &[AtomicU64]) -> Result<()> {
    save_words_piece(path, words, |crc| window_header_text(plan, k, p, crc))
}

/// Snapshot the marks of window `k` before step `step`.
fn save_marks(path: &Path, plan: &BlockPlan, k: u64, step: u64, words: &[AtomicU64]) -> Result<()> {
    save_words_piece(path, words, |crc| marks_header_text(plan, k, step, crc))
}

/// Load a snapshot of window `k`'s marks into `words`: the step it was taken before. An
/// error (the words then unspecified) when it is absent, torn or not of this window.
fn load_marks(path: &Path, plan: &BlockPlan, k: u64, words: &[AtomicU64]) -> Result<u64> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let h = read_piece_header(path, &file, plan, k, MARKS_MAGIC)?;
    let mut i = 0;
    read_piece_words(path, &file, &h, |ws| {
        for &w in ws {
            words[i].store(w, Relaxed);
            i += 1;
        }
        Ok(())
    })?;
    Ok(h.number)
}

/// Write `words` under the header `header(crc)` to `path` (a temporary name renamed when
/// whole); the CRC is written last, over a placeholder of the same width.
fn save_words_piece(
    path: &Path,
    words: &[AtomicU64],
    header: impl Fn(u32) -> String,
) -> Result<()> {
    let mut file = AtomicFile::create_piece(path)?;
    let io = |e| Error::io(path, e);
    let mut crc = crc32fast::Hasher::new();
    {
        let mut out = BufWriter::with_capacity(1 << 20, &mut file);
        out.write_all(header(0).as_bytes()).map_err(io)?;
        let mut bytes = Vec::with_capacity(REPLAY_WORDS * 8);
        for chunk in words.chunks(REPLAY_WORDS) {
            bytes.clear();
            chunk
                .iter()
                .for_each(|w| bytes.extend_from_slice(&w.load(Relaxed).to_le_bytes()));
            crc.update(&bytes);
            out.write_all(&bytes).map_err(io)?;
        }
        out.flush().map_err(io)?;
    }
    file.rewrite_start(header(crc.finalize()).as_bytes())?;
    file.commit()
}

/// The header of a piece of window `k` (its finished bits or a snapshot of its marks),
/// checked against the plan and the file's length (not the CRC, which is checked as the words
/// are read). `number` is the window's P-positions or the snapshot's step.
fn read_piece_header(
    path: &Path,
    file: &File,
    plan: &BlockPlan,
    k: u64,
    magic: &str,
) -> Result<PieceHeader> {
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let (pairs, data_start) = store::read_header(path, &mut BufReader::new(file), magic)?;
    let got = store::header_index(path, &pairs)?;
    let (lo, hi) = plan.window(k);
    let num = |key: &str| -> Result<u64> {
        store::field(path, &pairs, key)?
            .parse()
            .map_err(|_| Error::invalid(format!("{}: '{key}' is not a number", path.display())))
    };
    let damaged = || Error::invalid(format!("{}: not window {k} of this plan", path.display()));
    let end = data_start + (hi - lo).div_ceil(64) * 8;
    if got.shape() != plan.index.shape()
        || got.scheme() != plan.index.scheme()
        || num("lo")? != lo
        || num("hi")? != hi
        || len != end
    {
        return Err(damaged());
    }
    let crc =
        u32::from_str_radix(store::field(path, &pairs, "crc32")?, 16).map_err(|_| damaged())?;
    let number = num(if magic == MARKS_MAGIC {
        "step"
    } else {
        "p-positions"
    })?;
    Ok(PieceHeader {
        number,
        crc,
        data_start,
        end,
    })
}

/// Every word of a piece, in slices, then its CRC checked: a damaged piece is an error (after
/// its words were handed on, so a caller uses them only once this returns `Ok`).
fn read_piece_words(
    path: &Path,
    file: &File,
    h: &PieceHeader,
    mut each: impl FnMut(&[u64]) -> Result<()>,
) -> Result<()> {
    let mut at = h.data_start;
    let mut crc = crc32fast::Hasher::new();
    let mut buf = vec![0u8; REPLAY_WORDS * 8];
    let mut ws = Vec::with_capacity(REPLAY_WORDS);
    while at < h.end {
        let n = (h.end - at).min(buf.len() as u64) as usize;
        file.read_exact_at(&mut buf[..n], at)
            .map_err(|e| Error::io(path, e))?;
        crc.update(&buf[..n]);
        ws.clear();
        ws.extend(
            buf[..n]
                .chunks_exact(8)
                .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes"))),
        );
        each(&ws)?;
        at += n as u64;
    }
    if crc.finalize() != h.crc {
        return Err(Error::CheckFailed(format!(
            "{}: the bits do not match its crc32; the piece is damaged: remove the file to \
             solve its window again",
            path.display()
        )));
    }
    Ok(())
}

/// The P-positions a finished window's header names.
fn window_p_positions(dir: &Path, plan: &BlockPlan, k: u64) -> Result<u64> {
    let path = window_path(dir, k);
    let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
    Ok(read_piece_header(&path, &file, plan, k, WINDOW_MAGIC)?.number)
}

/// Every word of finished window `k`, in slices, then its CRC checked.
fn for_each_window_slice(
    dir: &Path,
    plan: &BlockPlan,
    k: u64,
    each: impl FnMut(&[u64]) -> Result<()>,
) -> Result<()> {
    let path = window_path(dir, k);
    let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
    let h = read_piece_header(&path, &file, plan, k, WINDOW_MAGIC)?;
    read_piece_words(&path, &file, &h, each)
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

    #[test]
    fn plans_cut_the_table_into_equal_windows_that_fit() {
        let index = TableIndex::for_box(shape(14)).unwrap();
        let plan = BlockPlan::new(index.clone(), 1 << 20).unwrap();
        assert!(plan.window_bits / 8 <= (1 << 20) / 8 * 7);
        assert_eq!(plan.window_bits % 64, 0);
        assert_eq!(plan.window(plan.windows() - 1).1, index.len());
        assert!(plan.windows() >= 3, "{}", plan.windows());
        let whole = BlockPlan::new(index.clone(), 1 << 30).unwrap();
        assert_eq!(whole.windows(), 1);
        let small = BlockPlan::new(index, MIN_MEMORY - 1).unwrap_err();
        assert!(small.to_string().contains("64.0 KiB works"), "{small}");
        let colex = TableIndex::for_box(ChompBox { rows: 3, cols: 5 }).unwrap();
        assert!(BlockPlan::new(colex, 1 << 20).is_err());
    }

    #[test]
    fn a_box_solved_in_blocks_writes_the_in_memory_file() {
        let dir = std::env::temp_dir().join(format!("chompute-blocks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (n, memory) in [(9usize, MIN_MEMORY), (12, MIN_MEMORY), (13, 200 << 10)] {
            let whole = dir.join(format!("{n}.tbl"));
            store::solve_to_file(shape(n), &whole, |_| {}).unwrap();
            let blocks = dir.join(format!("{n}-blocks.tbl"));
            let mut windows = 0;
            let run = solve_in_blocks(shape(n), &blocks, memory, |e| {
                if let BlockEvent::Window { .. } = e {
                    windows += 1;
                }
            })
            .unwrap();
            assert_eq!(run.windows, windows);
            assert!(n < 12 || windows > 1, "{n}: {windows} windows");
            assert_eq!(
                std::fs::read(&whole).unwrap(),
                std::fs::read(&blocks).unwrap(),
                "{n}x{n} in {windows} windows"
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
        store::solve_to_file(shape(n), &whole, |_| {}).unwrap();
        let want = std::fs::read(&whole).unwrap();
        let index = TableIndex::for_box(shape(n)).unwrap();
        let plan = BlockPlan {
            window_bits: 64 * 64,
            ..BlockPlan::new(index, 1 << 30).unwrap()
        };
        assert!(plan.windows() >= 4, "{}", plan.windows());
        let mut steps_in_all = 0u64;
        {
            let out = dir.join("count.tbl");
            write_plan(&plan, &out).unwrap();
            solve_in_blocks_with(shape(n), &out, 0, Duration::ZERO, |e| {
                if let BlockEvent::Step { .. } = e {
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
                    solve_in_blocks_with(shape(n), &out, 0, every, |e| {
                        if let BlockEvent::Step { .. } = e {
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
                solve_in_blocks_with(shape(n), &out, 0, SNAPSHOT_EVERY, |e| match e {
                    BlockEvent::Window { resumed_steps, .. } => resumed += resumed_steps,
                    BlockEvent::Step { .. } => rest += 1,
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
}
