//! The one lifecycle of a run to a file, for every table kind and run mode ([`run_to_file`]):
//! the target checked, the disk for the run's peak, the checkpoints registered (so an
//! interrupt line names them truthfully), opened under their lock and read back, the steps with
//! snapshots at a [`Cadence`], the file published and the checkpoints removed. A kind and mode
//! says only its [`Job`].
//!
//! Tests: tests/faults/tables.rs (every kind and mode killed or interrupted at random moments
//! resumes to the same bytes, with a truthful line); the kinds' tests.

use super::schedule::{Progress, Schedule};
use crate::chomp::index::BitLayout;
use crate::chomp::store;
use crate::error::{Error, Result};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a run to a file tells its caller.
#[derive(Debug, Clone)]
pub enum RunEvent {
    /// Resuming from the checkpoint at `path` with `steps_done` of `steps` finished.
    Resumed {
        /// The checkpoint.
        path: PathBuf,
        /// Steps read back from it (colex layers, hook steps or numbers of cells).
        steps_done: u64,
        /// Steps in all.
        steps: u64,
        /// Bytes of torn or damaged records after the last whole one, cut off.
        dropped_bytes: u64,
        /// The step the snapshot it resumes from was taken before, if any.
        snapshot: Option<u64>,
    },
    /// The checkpoint at `path` could not be resumed (`why`) and was begun again.
    Restarted {
        /// The checkpoint.
        path: PathBuf,
        /// Why it could not be resumed.
        why: String,
    },
    /// A snapshot was saved before step `step`.
    Snapshot {
        /// The first step the snapshot does not hold.
        step: u64,
    },
    /// A step finished.
    Step(Progress),
    /// A run in pieces begins piece `piece` (from 0) of `pieces`: indexes `lo..hi`.
    Piece {
        /// The piece, from 0.
        piece: u64,
        /// Pieces in all.
        pieces: u64,
        /// Its first index.
        lo: u64,
        /// One past its last index.
        hi: u64,
        /// Steps read back from its checkpoint.
        resumed_steps: u64,
        /// Bytes of torn or damaged records cut off its checkpoint.
        dropped_bytes: u64,
    },
    /// Every piece is solved: the table is being assembled from them.
    Assembling,
    /// Piece `piece` of `pieces` is in the table being assembled, and its file is removed.
    Assembled {
        /// The piece, from 0.
        piece: u64,
        /// Pieces in all.
        pieces: u64,
    },
}

/// One kind's run to a file: what [`run_to_file`] asks of it, in the order it asks.
pub trait Job {
    /// What a finished run returns (the table in memory).
    type Output;
    /// Bytes on disk at the run's peak beside `out`: the file, its chunk CRCs and every
    /// checkpoint while they all exist.
    fn disk_bytes(&self) -> u64;
    /// The checkpoint files the run keeps beside `out` (none by default).
    fn checkpoints(&self, _out: &Path) -> Vec<PathBuf> {
        Vec::new()
    }
    /// Open the checkpoints under their lock and read them back; the events that say what
    /// was resumed or begun again.
    fn resume(&mut self, out: &Path) -> Result<Vec<RunEvent>>;
    /// Run the steps still to do, keeping each in the checkpoints.
    fn run(&mut self, report: &mut dyn FnMut(RunEvent)) -> Result<()>;
    /// After the run failed with `e`: remove the checkpoints when they cannot serve a rerun,
    /// and say whether it did (by default they are kept).
    fn discard_after(&mut self, _e: &Error) -> Result<bool> {
        Ok(false)
    }
    /// Write the file to `out` (a temporary name, then renamed) and remove the checkpoints;
    /// a run that writes no file (a part of a wave of blocks) keeps them and returns what it did.
    fn publish(self, out: &Path) -> Result<Self::Output>;
}

/// Run the job that `job` makes (once the target is known to be usable, before any memory is
/// taken) to the file `out`, resuming from its checkpoints when they exist. The file is the
/// same, byte for byte, however often the run was stopped and resumed.
pub fn run_to_file<J: Job>(
    out: &Path,
    job: impl FnOnce() -> Result<J>,
    mut report: impl FnMut(RunEvent),
) -> Result<J::Output> {
    // The checkpoints live beside the table, so the table must be a file.
    store::check_resumable_target(out)?;
    let mut job = job()?;
    let kept = job.checkpoints(out);
    store::ensure_disk(out, job.disk_bytes(), &kept)?;
    // Said to be kept from the moment they may exist: an interrupt line never misses them.
    kept.iter().for_each(|k| crate::output::keep_checkpoint(k));
    let said = job.resume(out)?;
    crate::output::remove_stale_temps(out);
    said.into_iter().for_each(&mut report);
    if let Err(e) = job.run(&mut report) {
        if job.discard_after(&e)? {
            kept.iter().for_each(|k| crate::output::drop_checkpoint(k));
        }
        return Err(e);
    }
    let table = job.publish(out)?;
    // What a run that wrote no file kept stays said kept.
    let gone = kept.iter().filter(|k| !k.exists());
    gone.for_each(|k| crate::output::drop_checkpoint(k));
    Ok(table)
}

/// When to snapshot a run's state: when the time since the last snapshot (or the start) is
/// at least a quarter of the time the run has taken so far. A run stopped at any moment T then
/// loses at most a fifth of T, whatever the shape of its progress (the forward solver's first
/// quarter of steps can take 60% of its time, which no estimate from positions done foresees).
/// Never closer than `floor` (zero: at every step), nor taking more than a tenth of the time
/// (judged by the last write, or by `first_write` before the first).
#[derive(Debug, Clone, Copy)]
pub struct Cadence {
    floor: Duration,
    start: Instant,
    last: Option<Instant>,
    write_time: Duration,
}

/// The least time between snapshots of the runs that `chomp` starts.
pub const SNAPSHOT_FLOOR: Duration = Duration::from_secs(2);

impl Cadence {
    /// A cadence from now, the first snapshot assumed to take `first_write`.
    pub fn new(floor: Duration, first_write: Duration) -> Cadence {
        Cadence {
            floor,
            start: Instant::now(),
            last: None,
            write_time: first_write,
        }
    }

    /// Whether a snapshot is due with `done` of `total` units of work finished (none is taken
    /// before any work or after all of it).
    pub fn due(&self, done: u64, total: u64) -> bool {
        if self.floor.is_zero() {
            return true;
        }
        if done == 0 || done >= total {
            return false;
        }
        let elapsed = self.start.elapsed();
        let since = self.last.map_or(elapsed, |t| t.elapsed());
        let gap = (elapsed / 4).max(self.floor).max(10 * self.write_time);
        since >= gap
    }

    /// Take a snapshot by `save`, timing it.
    pub fn take(&mut self, save: impl FnOnce() -> Result<()>) -> Result<()> {
        let t = Instant::now();
        save()?;
        self.write_time = t.elapsed();
        self.last = Some(Instant::now());
        Ok(())
    }
}

impl RunEvent {
    /// What a run resuming from the checkpoint at `path` (`steps_done` of `steps` read back,
    /// `dropped_bytes` cut off) says: [`RunEvent::Resumed`] when it held a step or had bytes
    /// cut off, else nothing.
    pub(crate) fn resumed(
        path: &Path,
        dropped_bytes: u64,
        (steps_done, steps): (u64, u64),
        snapshot: Option<u64>,
    ) -> Vec<RunEvent> {
        (steps_done > 0 || dropped_bytes > 0)
            .then(|| RunEvent::Resumed {
                path: path.to_path_buf(),
                steps_done,
                steps,
                dropped_bytes,
                snapshot,
            })
            .into_iter()
            .collect()
    }
}

/// Open the step log at `path` (first line `magic`; `verb` names the run when another process
/// holds it) of a run of `layout`'s table whose header holds `box`, `rank` and `extra`: new, or
/// of the same run ([`check_fields`]) with its records read back in order by `read(reader,
/// step, its ranges)` (their bytes, or `None` to end there). Returns it and the first step to do.
pub(crate) fn open_step_log(
    path: &Path,
    (magic, verb): (&str, &str),
    layout: &BitLayout,
    extra: &[(&str, String)],
    mut read: impl FnMut(&mut dyn Read, u64, &[(u64, u64)]) -> Result<Option<u64>>,
) -> Result<(store::Checkpoint, u64)> {
    let (shape, scheme) = (layout.shape(), layout.scheme());
    let header = store::header_lines(magic, shape, &scheme, extra);
    let mut want = vec![("box", shape.to_string()), ("rank", scheme)];
    want.extend(extra.iter().cloned());
    let check = |pairs: &[(String, String)]| check_fields(path, pairs, &want);
    let mut ranges = Vec::new();
    let read = |reader: &mut dyn Read, step| {
        layout.ranges(step, &mut ranges);
        read(reader, step, &ranges)
    };
    store::Checkpoint::open_log(path, &header, magic, verb, check, layout.steps(), read)
}

/// Check a checkpoint's header fields against `want`, this run's: the first that differs is
/// refused, saying which run the checkpoint is of (a `value-bytes` as a conflict).
fn check_fields(path: &Path, pairs: &[(String, String)], want: &[(&str, String)]) -> Result<()> {
    for (key, value) in want {
        let got = store::field(path, pairs, key)?;
        let (this, that) = match *key {
            _ if got == *value => continue,
            "value-bytes" => {
                let why = format!(
                    "{} keeps values of {got} bytes, this run {value}; rerun with {{0}} {got} or \
                     remove it",
                    path.display()
                );
                return Err(Error::conflict(&[crate::error::Input::ValueBytes], why));
            }
            "box" => (format!("the {got} box"), value.clone()),
            "rank" => (format!("a table numbered by '{got}'"), format!("'{value}'")),
            _ => (format!("the {key} {got}"), value.clone()),
        };
        return Err(Error::invalid(format!(
            "{} is the checkpoint of {this}, not of {that}; remove it to start afresh, or run \
             what it was",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_is_due_a_quarter_of_the_run_so_far_after_the_last() {
        let mut c = Cadence::new(Duration::from_millis(100), Duration::ZERO);
        // 50 ms in: below the floor.
        c.start = Instant::now() - Duration::from_millis(50);
        assert!(!c.due(1, 10));
        // 300 ms in, none taken: due.
        c.start = Instant::now() - Duration::from_millis(300);
        assert!(c.due(1, 10));
        c.take(|| Ok(())).unwrap();
        // Just taken: not due.
        assert!(!c.due(2, 10));
        // 4 s in, the last 0.5 s ago: a quarter of the run is 1 s, not yet.
        c.start = Instant::now() - Duration::from_secs(4);
        c.last = Some(Instant::now() - Duration::from_millis(500));
        assert!(!c.due(2, 10));
        c.last = Some(Instant::now() - Duration::from_millis(1100));
        assert!(c.due(2, 10));
        // Nothing done, or everything: no snapshot.
        assert!(!c.due(0, 10) && !c.due(10, 10));
        // A slow write spaces them: ten write times at least.
        c.write_time = Duration::from_secs(1);
        assert!(!c.due(2, 10));
        // Zero floor: every step.
        assert!(Cadence::new(Duration::ZERO, Duration::ZERO).due(0, 1));
    }
}
