//! Boxes larger than memory: a table solved one window of indexes at a time.
//!
//! Every option of a position has a smaller index ([`solve_window`]), so the table splits into
//! windows `lo..hi` solved in order: a window replays the P indexes of the windows it depends
//! on (each marks its parents inside it), then walks the schedule restricted to itself. Its
//! bits go to disk; the table assembled from them (`two_player::assembly`) is byte for byte the
//! in-memory run's, whatever the memory. The checkpoint of this [`Job`] is the folder
//! `FILE.blocks/` (docs/formats.md); a part does its share of a wave and publishes nothing.
//!
//! Tests: this file's unit tests; tests/games/blocks.rs, tests/faults/tables.rs.

use super::assembly::{table_path, Assembled, Assembly};
use super::block_plan::{write_plan, BlockPlan, Part, Split};
use super::forward::Resume;
use super::piece::{self, PieceHeader, WINDOW};
use super::solve::solve_window;
use crate::chomp::bits::{self, Window};
use crate::chomp::diagram::ChompBox;
use crate::chomp::engine::lifecycle::{run_to_file, Cadence, Job, RunEvent};
use crate::chomp::index::BitLayout;
use crate::chomp::store::{self, blocks_dir};
use crate::error::{Error, Input, Result};
use std::fs::File;
use std::path::{Path, PathBuf};

/// What a run in blocks did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockRun {
    /// P-positions of the box (0 for a part that left the table unfinished).
    pub p_positions: u64,
    /// Pieces in all.
    pub windows: u64,
    /// Pieces already finished when this run started.
    pub windows_resumed: u64,
    /// Waves in all.
    pub waves: u64,
    /// Waves whose every piece is finished, when this run ended.
    pub waves_done: u64,
    /// The wave a part worked on (from 0), if it was a part.
    pub wave: Option<u64>,
    /// Whether the table was written.
    pub saved: bool,
}
/// Solve `shape` in windows of at most `memory` bytes into `out`, resuming from `FILE.blocks/`,
/// or with `part` only that share of the next unfinished wave (the folder kept). A window's
/// marks are snapshotted at most every `snapshot_every`.
pub fn solve_in_blocks(
    shape: ChompBox,
    out: &Path,
    memory: u64,
    part: Option<Part>,
    snapshot_every: std::time::Duration,
    report: impl FnMut(RunEvent),
) -> Result<BlockRun> {
    // The folder's plan, else a new one for `memory` (in waves for a part), checked before it
    // is written.
    let job = || {
        check_target(out)?;
        let index = BitLayout::for_box(shape)?;
        let dir = blocks_dir(out);
        let plan_path = dir.join("plan");
        let new_plan = !plan_path.exists();
        let mut plan = match new_plan {
            false => BlockPlan::read(&plan_path, &index)?,
            true => BlockPlan::new(index, memory, part.map_or(Split::Windows, |_| Split::Waves))?,
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
        Ok(BlocksJob {
            run: BlockRun {
                windows: plan.windows(),
                waves: plan.waves(),
                ..BlockRun::default()
            },
            plan,
            new_plan,
            part,
            dir,
            lock: None,
            assembly: None,
            counts: Vec::new(),
        })
    };
    run_to_file(out, job, report)
}

/// A run in blocks: the pieces, then the assembly in place.
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
        // One plain run at a time on a folder, beside any number of parts.
        let plan_path = dir.join("plan");
        let plan_file = File::open(&plan_path).map_err(|e| Error::io(&plan_path, e))?;
        store::flock_now(&plan_file, self.part.is_some())
            .map_err(|_| store::being_solved(out, &plan_path))?;
        self.lock = Some(plan_file);
        // A whole run's FILE.partial: refused while held, else of no use here and removed.
        let partial = store::partial_path(out);
        store::refuse_if_held(out, &partial)?;
        for stale in [partial, store::marks_path(out)] {
            if stale.is_file() {
                std::fs::remove_file(&stale).map_err(|e| Error::io(&stale, e))?;
            }
        }
        crate::output::remove_stale_temps(dir);
        // The pieces already in the table (checked against their records) left the folder.
        if self.part.is_none() && table_path(dir).exists() {
            self.assembly = Some(Assembly::reopen(&self.plan, dir)?);
        }
        let in_table = self.assembly.as_ref().map_or(0, |a| a.pieces.len() as u64);
        self.counts = (0..self.plan.windows())
            .map(|k| match &self.assembly {
                Some(a) if k < in_table => Some(a.pieces[k as usize].p),
                _ => open_piece(dir, &self.plan, k)
                    .ok()
                    .map(|(_, _, h)| h.number),
            })
            .collect();
        self.run.windows_resumed = self.counts.iter().filter(|c| c.is_some()).count() as u64;
        Ok(Vec::new())
    }

    fn run(&mut self, report: &mut dyn FnMut(RunEvent)) -> Result<()> {
        let (plan, dir) = (&self.plan, &self.dir);
        // Every unfinished piece, or a part's share of the first wave it has not marked done
        // (not the first wave with pieces left, which may be the next wave's run's share).
        let mut todo: Vec<u64> = match self.part {
            None => (0..plan.windows()).collect(),
            Some(Part { part, parts }) => {
                let done = |&w: &u64| part_done_path(dir, w, part, parts).exists();
                self.run.wave = (0..plan.waves()).find(|w| !done(w));
                let pieces = self.run.wave.map(|w| plan.part_pieces(w, part, parts));
                pieces.unwrap_or_default()
            }
        };
        todo.retain(|&k| self.counts[k as usize].is_none());
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
            let p = solve_one(plan, dir, k, self.assembly.as_ref(), report)?;
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
        // Every piece is solved: the table starts with their P-positions.
        let mut assembly = match self.assembly.take() {
            Some(a) => a,
            None => Assembly::create(plan, dir, self.counts.iter().flatten().sum())?,
        };
        report(RunEvent::Assembling);
        // The pieces not yet in the table go in, in order, each whole in memory and checked;
        // its file goes once its words are durable and recorded ([`Assembly::append`]).
        for k in assembly.pieces.len() as u64..plan.windows() {
            let mut words = Vec::new();
            let (crc, p) = for_each_window_slice(dir, plan, k, None, |ws| {
                words.extend_from_slice(ws);
                Ok(())
            })?;
            assembly.append(plan, k, words, Assembled { crc, p })?;
            let done = window_path(dir, k);
            std::fs::remove_file(&done).map_err(|e| Error::io(&done, e))?;
            let pieces = plan.windows();
            report(RunEvent::Assembled { piece: k, pieces });
            crate::cancel::check()?;
        }
        self.assembly = Some(assembly);
        Ok(())
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

/// Refuse a table file that `store::check_resumable_target` refuses, or one whose folder of
/// pieces (`FILE.blocks`) is taken by something that is not a folder.
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

fn part_done_path(dir: &Path, w: u64, part: u64, parts: u64) -> PathBuf {
    dir.join(format!("wave-{w}.part-{part}-of-{parts}"))
}

fn window_path(dir: &Path, k: u64) -> PathBuf {
    dir.join(format!("window-{k}.bits"))
}

/// Solve window `k` (resuming from its checkpoint) and save it: its P-positions.
fn solve_one(
    plan: &BlockPlan,
    dir: &Path,
    k: u64,
    assembly: Option<&Assembly>,
    report: &mut dyn FnMut(RunEvent),
) -> Result<u64> {
    let ((lo, hi), chunk) = (plan.window(k), plan.chunk_words());
    let words = bits::zeroed_words(Window::words_for(lo, hi) as usize);
    let win = Window {
        lo,
        hi,
        words: &words,
    };
    let partial = dir.join(format!("window-{k}.partial"));
    // Held while the piece is solved: a second process on the same piece is refused at once.
    let _lock = store::open_checkpoint_file(&dir.join(format!("window-{k}.lock")), "solved")?;
    let marks_path = dir.join(format!("window-{k}.marks"));
    let (mut checkpoint, resume, _) =
        piece::resume_window(&partial, &marks_path, &plan.index, win, chunk)?;
    let (Resume::Marks { start, .. } | Resume::Bits { start }) = resume;
    report(RunEvent::Piece {
        piece: k,
        pieces: plan.windows(),
        lo,
        hi,
        resumed_steps: start,
        dropped_bytes: checkpoint.dropped_bytes,
    });
    // Until one is written, a snapshot is taken to write at 300 MB/s.
    let cadence = Cadence::new(
        plan.snapshot_every,
        std::time::Duration::from_millis(words.len() as u64 * 8 / 300_000),
    );
    solve_window(
        &plan.index,
        win,
        resume,
        |sink| {
            let mut qs = Vec::with_capacity(chunk);
            let deps: Vec<u64> = (0..k).filter(|&j| plan.depends(k, j)).collect();
            // On a terminal, a bar of the words of the pieces replayed.
            let words_in_all = deps.iter().map(|&j| plan.window(j));
            let words_in_all = words_in_all.map(|(lo, hi)| Window::words_for(lo, hi)).sum();
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
                        qs.clear();
                    }
                    Ok(())
                })?;
            }
            sink(&qs)
        },
        piece::record_step(
            &plan.index,
            (win, chunk),
            &mut checkpoint,
            &marks_path,
            cadence,
            report,
        ),
    )?;
    let p = plan.index.p_count(win.words, win.base());
    piece::save_piece(&window_path(dir, k), &plan.index, win, WINDOW, p, chunk)?;
    checkpoint.remove()?;
    if marks_path.exists() {
        std::fs::remove_file(&marks_path).map_err(|e| Error::io(&marks_path, e))?;
    }
    Ok(p)
}

/// Finished piece `k`'s file, open, and its header (checked; the words are not).
pub(super) fn open_piece(
    dir: &Path,
    plan: &BlockPlan,
    k: u64,
) -> Result<(PathBuf, File, PieceHeader)> {
    let path = window_path(dir, k);
    let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
    let h = piece::read_piece_header(&path, &file, &plan.index, plan.window(k), WINDOW)?;
    Ok((path, file, h))
}

/// Every word of finished piece `k` (from its `lo` rounded down, other pieces' bits clear), in
/// slices, from `assembly` when it holds it, else from its file (removed when it fails its
/// CRC, to be solved again). Returns the piece's CRC-32 and P-positions.
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
    let (path, file, h) = open_piece(dir, plan, k)?;
    match piece::read_piece_words(&path, &file, &h, plan.chunk_words(), each) {
        Ok(()) => Ok((h.crc, h.number)),
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
    use super::super::block_plan::MIN_MEMORY;
    use super::super::run::{self, p_record_bound, solve_to_file, solve_to_file_every};
    use super::*;
    use crate::cancel::Cancel;
    use crate::chomp::engine::lifecycle::SNAPSHOT_FLOOR;
    use crate::chomp::engine::schedule::Schedule;
    use crate::chomp::store::files::dir_bytes;
    use std::time::Duration;

    /// A fresh folder for a test's files.
    fn scratch(tag: &str) -> PathBuf {
        let pid = std::process::id();
        let dir = std::env::temp_dir().join(format!("chompute-blocks-{tag}-{pid}"));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The file an in-memory run of `b` writes (in `dir`), and its P-positions.
    fn whole_file(dir: &Path, b: ChompBox) -> (Vec<u8>, u64) {
        let whole = dir.join(format!("{b}.tbl"));
        let p = solve_to_file(b, &whole, |_| {}).unwrap().p_count();
        (std::fs::read(&whole).unwrap(), p)
    }

    /// `dir/name`, its checkpoint folder begun with `plan`.
    fn planned(dir: &Path, name: String, plan: &BlockPlan) -> PathBuf {
        let out = dir.join(name);
        write_plan(plan, &out).unwrap();
        out
    }

    fn layout9() -> BitLayout {
        BitLayout::for_box(ChompBox::square(9)).unwrap()
    }

    /// The 9×9 box to `out` in blocks (as its folder's plan says), stopped when `stop` says so
    /// of an event.
    fn run9(
        out: &Path,
        every: Duration,
        mut stop: impl FnMut(RunEvent) -> bool,
    ) -> Result<BlockRun> {
        let token = Cancel::new();
        token.scope(|| {
            solve_in_blocks(ChompBox::square(9), out, 0, None, every, |e| {
                if stop(e) {
                    token.cancel();
                }
            })
        })
    }

    #[test]
    fn whole_and_in_blocks_a_run_writes_one_file_within_its_disk_bound() {
        // The disk sampled at every event, snapshots at every step: a whole run's checkpoint
        // and marks, then the table beside them; in blocks, the pieces, the window's
        // checkpoint and marks, then the table assembled in place.
        let dir = scratch("m");
        for ((rows, cols), memory) in [
            ((7, 11), MIN_MEMORY),
            ((9, 9), MIN_MEMORY),
            ((12, 12), MIN_MEMORY),
            ((13, 13), MIN_MEMORY),
            ((13, 13), 200 << 10),
            ((10, 14), MIN_MEMORY),
            ((14, 10), MIN_MEMORY),
        ] {
            let b = ChompBox { rows, cols };
            let whole = dir.join(format!("w{b}-{memory}.tbl"));
            let (partial, marks) = (store::partial_path(&whole), store::marks_path(&whole));
            // Snapshots at every step of a whole run to 12x12 (past it, too slow for a test).
            let every = Duration::from_secs((rows * cols as usize > 144) as u64);
            let mut peak = 0;
            let t = solve_to_file_every(b, &whole, every, |_| {
                peak = peak.max(dir_bytes(&partial) + dir_bytes(&marks));
            });
            let bound = run::disk_bytes(t.unwrap().layout());
            peak += dir_bytes(&whole);
            assert!(peak <= bound, "{b}: {peak} B on disk, checked for {bound}");
            let out = dir.join(format!("{b}-{memory}.tbl"));
            let plan = BlockPlan::new(BitLayout::for_box(b).unwrap(), memory, Split::Windows);
            let (pieces, bound) = (plan.as_ref().unwrap().windows(), plan.unwrap().disk_bytes());
            let (folder, mut peak, mut windows) = (blocks_dir(&out), 0, 0);
            let run = solve_in_blocks(b, &out, memory, None, Duration::ZERO, |e| {
                peak = peak.max(dir_bytes(&folder));
                windows += matches!(e, RunEvent::Piece { .. }) as u64;
            });
            peak = peak.max(dir_bytes(&out));
            assert_eq!((run.unwrap().windows, windows), (pieces, pieces));
            assert!(rows < 10 || windows > 1, "{b}: {windows} windows");
            assert!(
                peak <= bound,
                "{b} in {pieces} pieces: {peak} B, checked for {bound}"
            );
            let want = std::fs::read(&whole).unwrap();
            assert_eq!(
                want,
                std::fs::read(&out).unwrap(),
                "{b} in {windows} windows"
            );
            assert!(!folder.exists());
        }
        std::fs::remove_dir_all(&dir).unwrap();
        // 8 bytes a P-position: the bound takes at most 1 in 32 positions plus 4,096 as P,
        // which every box to 12x12 keeps (the share falls as boxes grow: 0.42% on 18x18).
        for rows in 1..=12usize {
            for cols in rows as u32..=12 {
                let b = ChompBox { rows, cols };
                let table = crate::chomp::two_player::solve::solve(b).unwrap();
                let (layout, p) = (table.layout(), table.p_count());
                let records = 8 * p + 28 * layout.steps();
                let len = layout.len();
                assert!(records <= p_record_bound(layout), "{b}: {p} P of {len}");
            }
        }
    }

    #[test]
    fn an_interrupted_run_in_blocks_resumes_to_the_same_file() {
        let dir = scratch("r");
        let (want, _) = whole_file(&dir, ChompBox::square(9));
        let plan = BlockPlan::with(layout9(), Split::Windows, 64 * 64);
        assert!(plan.windows() >= 4, "{}", plan.windows());
        let out = planned(&dir, "count.tbl".into(), &plan);
        let mut steps_in_all = 0u64;
        let counted = run9(&out, Duration::ZERO, |e| {
            steps_in_all += matches!(e, RunEvent::Step(_)) as u64;
            false
        });
        assert!(counted.is_ok() && std::fs::read(&out).unwrap() == want);
        // Stops early, mid-window with and without a snapshot, and at a window's end.
        let stops = [3, steps_in_all / 3, steps_in_all / 2 + 7, steps_in_all - 2];
        for (i, stop) in stops.into_iter().enumerate() {
            for every in [Duration::ZERO, Duration::from_secs(3600)] {
                let out = planned(&dir, format!("r{i}-{}.tbl", every.as_secs()), &plan);
                let mut seen = 0u64;
                let got = run9(&out, every, |e| {
                    seen += matches!(e, RunEvent::Step(_)) as u64;
                    seen == stop
                });
                assert!(
                    matches!(got, Err(Error::Interrupted)),
                    "stop {stop}: {got:?}"
                );
                let snapshots = std::fs::read_dir(blocks_dir(&out))
                    .unwrap()
                    .filter(|e| e.as_ref().unwrap().path().extension() == Some("marks".as_ref()))
                    .count();
                if i == 1 || i == 2 {
                    // Mid-window: a snapshot when they are taken at every step, else none.
                    assert_eq!(snapshots, every.is_zero() as usize, "stop {stop}");
                }
                let (mut resumed, mut rest) = (0, 0u64);
                let got = run9(&out, SNAPSHOT_FLOOR, |e| {
                    match e {
                        RunEvent::Piece { resumed_steps, .. } => resumed += resumed_steps,
                        RunEvent::Step(_) => rest += 1,
                        _ => {}
                    }
                    false
                });
                assert!(got.is_ok(), "stop {stop}: {got:?}");
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
        let dir = scratch("a");
        let (want, p_positions) = whole_file(&dir, ChompBox::square(9));
        // Windows start on words; waves' pieces mostly do not (their first word is shared).
        for plan in [
            BlockPlan::with(layout9(), Split::Windows, 64 * 64),
            BlockPlan::with(layout9(), Split::Waves, 700),
        ] {
            let (pieces, split) = (plan.windows(), plan.split);
            assert!(pieces >= 4, "{pieces}");
            // Counts the pieces solved and assembled by a run to the end.
            let finish = |out: &Path| {
                let (mut solved, mut assembled) = (0, 0);
                let run = run9(out, SNAPSHOT_FLOOR, |e| {
                    solved += matches!(e, RunEvent::Piece { .. }) as u64;
                    assembled += matches!(e, RunEvent::Assembled { .. }) as u64;
                    false
                });
                assert_eq!(std::fs::read(out).unwrap(), want, "{split:?}");
                assert!(!blocks_dir(out).exists());
                (run.unwrap().p_positions, solved, assembled)
            };
            for stop in [0, 1, pieces / 2, pieces - 1] {
                // 0: stopped; 1: and torn after the synced words; 2: and a bit of the first
                // piece's words flipped on disk (its file gone: solved again).
                for damage in 0..3 {
                    let out = planned(&dir, format!("a-{split:?}-{stop}-{damage}.tbl"), &plan);
                    let folder = blocks_dir(&out);
                    let got = run9(&out, SNAPSHOT_FLOOR, |e| match e {
                        RunEvent::Assembled { piece, .. } => {
                            // The pieces in the table are gone from the disk, the others
                            // wait: the bits are on disk about once.
                            for k in 0..pieces {
                                assert_eq!(window_path(&folder, k).exists(), k > piece);
                            }
                            piece == stop
                        }
                        _ => false,
                    });
                    assert!(matches!(got, Err(Error::Interrupted)), "{got:?}");
                    assert!(!out.exists());
                    let table = table_path(&folder);
                    let mut bytes = std::fs::read(&table).unwrap();
                    if damage == 2 {
                        let body = bytes.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
                        bytes[body] ^= 1;
                    }
                    if damage == 1 {
                        // Killed while the next piece was going in: part of it, and a torn
                        // word, after the synced words.
                        bytes.extend_from_slice(&[0xff; 13]);
                    }
                    std::fs::write(&table, &bytes).unwrap();
                    assert!(std::fs::read_dir(&folder).unwrap().count() >= 2);
                    // With a flipped bit every piece that had left the folder is solved again.
                    let again = if damage == 2 { stop + 1 } else { 0 };
                    let why = format!("{split:?}, stopped after piece {stop}, damage {damage}");
                    let got = (p_positions, again, pieces - stop - 1 + again);
                    assert_eq!(finish(&out), got, "{why}");
                }
            }
            // A piece lost from the folder during the assembly is solved again.
            let out = planned(&dir, format!("lost-{split:?}.tbl"), &plan);
            let _ = run9(&out, SNAPSHOT_FLOOR, |e| {
                matches!(e, RunEvent::Assembled { .. })
            });
            std::fs::remove_file(window_path(&blocks_dir(&out), pieces - 1)).unwrap();
            assert_eq!(finish(&out).1, 1);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_parts_of_each_wave_then_a_plain_run_write_the_one_process_file() {
        let dir = scratch("w");
        for (n, piece_bits) in [(9usize, 700u64), (10, 3000)] {
            let b = ChompBox::square(n);
            let (want, _) = whole_file(&dir, b);
            let index = BitLayout::for_box(b).unwrap();
            let out = planned(
                &dir,
                format!("{n}-waves.tbl"),
                &BlockPlan::with(index, Split::Waves, piece_bits),
            );
            let waves = 2 * n as u64;
            let run = |part| solve_in_blocks(b, &out, 0, part, SNAPSHOT_FLOOR, |_| {}).unwrap();
            // Parts of a wave in any order; stop three waves early.
            for w in 0..waves - 3 {
                for part in [3, 1, 2] {
                    let r = run(Some(Part { part, parts: 3 }));
                    let why = format!("{n}: {w}/{part}");
                    assert_eq!((r.wave, r.saved, r.waves), (Some(w), false, waves), "{why}");
                    // The wave is done once its parts with pieces are, at the latest after
                    // its last part.
                    let range = if part == 2 { w + 1..=w + 1 } else { w..=w + 1 };
                    assert!(range.contains(&r.waves_done), "{why}");
                }
            }
            // A plain run finishes the rest and writes the table.
            let r = run(None);
            assert_eq!((r.saved, r.waves_done), (true, waves));
            assert_eq!(std::fs::read(&out).unwrap(), want, "{n}x{n} in waves");
            assert!(!blocks_dir(&out).exists());
        }
        // A part on a folder planned in windows is refused.
        let out = planned(
            &dir,
            "windows.tbl".into(),
            &BlockPlan::with(layout9(), Split::Windows, 640),
        );
        let part = Some(Part { part: 1, parts: 2 });
        let e = solve_in_blocks(ChompBox::square(9), &out, 0, part, SNAPSHOT_FLOOR, |_| {});
        let e = e.unwrap_err();
        assert!(e.to_string().contains("planned in windows"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
