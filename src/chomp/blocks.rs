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

/// The smallest `--memory` a run in blocks takes: one window of 32 KiB of bits and its
/// replay buffer.
pub const MIN_MEMORY: u64 = 64 << 10;

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
        Ok(BlockPlan { index, window_bits })
    }

    /// The hook index.
    pub fn sym(&self) -> &SymIndex {
        self.index.sym.as_deref().expect("a block plan has a hook index")
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
                Error::invalid(format!("{}: 'window-bits' is not a multiple of 64", path.display()))
            })?;
        Ok(BlockPlan {
            index: index.clone(),
            window_bits,
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
    mut report: impl FnMut(BlockEvent),
) -> Result<BlockRun> {
    let index = TableIndex::for_box(shape)?;
    let dir = blocks_dir(out);
    let plan_path = dir.join("plan");
    let plan = if plan_path.exists() {
        BlockPlan::read(&plan_path, &index)?
    } else {
        let plan = BlockPlan::new(index, memory)?;
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let mut f = AtomicFile::create(&plan_path)?;
        f.write_all(plan.plan_text().as_bytes())
            .map_err(|e| Error::io(&plan_path, e))?;
        f.commit()?;
        plan
    };
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
        let path = window_path(&dir, k);
        let p = match read_window_header(&path, &plan, k) {
            Ok(h) => {
                run.windows_resumed += 1;
                h.p_positions
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
    let (mut checkpoint, start) = Checkpoint::open_for(&partial, &plan.index, |r| {
        if r >= lo && r < hi {
            words[((r - lo) >> 6) as usize].fetch_or(1 << ((r - lo) & 63), Relaxed);
        }
    })?;
    report(BlockEvent::Window {
        window: k,
        windows: plan.windows(),
        lo,
        hi,
        resumed_steps: start,
    });
    let mut replayed = 0u64;
    sym::solve_window(
        sym,
        win,
        start,
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
                        report(BlockEvent::Replay { replayed });
                    }
                    Ok(())
                })?;
            }
            sink(&qs)?;
            replayed += qs.len() as u64;
            Ok(())
        },
        |step, ps, _| checkpoint.append(step, ps),
    )?;
    let p = sym::window_p_count(sym, win);
    save_window(&window_path(dir, k), plan, k, p, &words)?;
    checkpoint.remove()?;
    Ok((p, replayed))
}

/// The header of a finished window.
struct WindowHeader {
    p_positions: u64,
    crc: u32,
    data_start: u64,
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

fn save_window(path: &Path, plan: &BlockPlan, k: u64, p: u64, words: &[AtomicU64]) -> Result<()> {
    // The CRC is written last, over a placeholder of the same width.
    let mut file = AtomicFile::create(path)?;
    let io = |e| Error::io(path, e);
    let mut crc = crc32fast::Hasher::new();
    {
        let mut out = BufWriter::with_capacity(1 << 20, &mut file);
        out.write_all(window_header_text(plan, k, p, 0).as_bytes())
            .map_err(io)?;
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
    file.rewrite_start(window_header_text(plan, k, p, crc.finalize()).as_bytes())?;
    file.commit()
}

/// The header of window `k`'s file, checked against the plan and the file's length (not the
/// CRC, which is checked as the bits are read).
fn read_window_header(path: &Path, plan: &BlockPlan, k: u64) -> Result<WindowHeader> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let (pairs, data_start) = store::read_header(path, &mut BufReader::new(&file), WINDOW_MAGIC)?;
    let got = store::header_index(path, &pairs)?;
    let (lo, hi) = plan.window(k);
    let num = |key: &str| -> Result<u64> {
        store::field(path, &pairs, key)?
            .parse()
            .map_err(|_| Error::invalid(format!("{}: '{key}' is not a number", path.display())))
    };
    let damaged = || Error::invalid(format!("{}: not window {k} of this plan", path.display()));
    if got.shape() != plan.index.shape()
        || got.scheme() != plan.index.scheme()
        || num("lo")? != lo
        || num("hi")? != hi
        || len != data_start + (hi - lo).div_ceil(64) * 8
    {
        return Err(damaged());
    }
    let crc = u32::from_str_radix(store::field(path, &pairs, "crc32")?, 16).map_err(|_| damaged())?;
    Ok(WindowHeader {
        p_positions: num("p-positions")?,
        crc,
        data_start,
    })
}

/// Every word of finished window `k`, in slices, then its CRC checked: a damaged window is an
/// error (after its words were handed on, so a caller uses them only once this returns `Ok`).
fn for_each_window_slice(
    dir: &Path,
    plan: &BlockPlan,
    k: u64,
    mut each: impl FnMut(&[u64]) -> Result<()>,
) -> Result<()> {
    let path = window_path(dir, k);
    let h = read_window_header(&path, plan, k)?;
    let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
    let (lo, hi) = plan.window(k);
    let end = h.data_start + (hi - lo).div_ceil(64) * 8;
    let mut at = h.data_start;
    let mut crc = crc32fast::Hasher::new();
    let mut buf = vec![0u8; REPLAY_WORDS * 8];
    let mut ws = Vec::with_capacity(REPLAY_WORDS);
    while at < end {
        let n = (end - at).min(buf.len() as u64) as usize;
        file.read_exact_at(&mut buf[..n], at)
            .map_err(|e| Error::io(&path, e))?;
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
            "{}: the bits do not match its crc32; the window is damaged: remove the file to \
             solve it again",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
