//! A box solved whole in memory to a table file, resumable: `chomp solve -o FILE` when the
//! table fits.
//!
//! While it runs, every finished step's P bits are appended to the checkpoint `FILE.partial`
//! (`super::file::Checkpoint`), and now and then the N-marks of the whole table are saved to
//! `FILE.marks` (a piece of `super::piece`): at most every [`SNAPSHOT_EVERY`], and never more
//! than a twentieth of the time. A rerun of the same command resumes: from the last snapshot
//! when there is a whole one (only the P-positions found since push their parents again),
//! else from the checkpoint's P bits (every finished step's P-positions push again, about as
//! long as those steps took). The table file is the same, byte for byte, however often the
//! run was stopped.
//!
//! Tests: tests/games/chomp/two_player.rs (resumed runs write the one file, from a snapshot
//! and from the records alone); src/chomp/two_player/blocks.rs.

use super::file::save_table;
use super::forward::Resume;
use super::piece::{self, Cadence, Span};
use super::schedule::Progress;
use super::solve::{solve_window, steps};
use super::table::PTable;
use crate::chomp::bits::Window;
use crate::chomp::diagram::ChompBox;
use crate::chomp::index::BitLayout;
use crate::chomp::store::{self, check_resumable_target, partial_path, Checkpoint};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The least time between snapshots of the marks.
pub const SNAPSHOT_EVERY: Duration = Duration::from_secs(10);

/// Words a snapshot is written and read by.
const CHUNK_WORDS: usize = 1 << 16;

pub use crate::chomp::store::marks_path;

/// What a run that keeps a checkpoint reports: where it starts and how far it has come.
pub enum RunEvent {
    /// Resuming from the checkpoint at `path` with `layers_done` of `layers` finished.
    Resumed {
        /// The checkpoint.
        path: PathBuf,
        /// Layers read back from it.
        layers_done: u64,
        /// Layers in all.
        layers: u64,
        /// Bytes of torn or damaged records after the last whole one, cut off.
        dropped_bytes: u64,
        /// The step the snapshot of the marks it resumes from was taken before, if any.
        snapshot: Option<u64>,
    },
    /// The marks were saved before step `step`.
    Snapshot {
        /// The first step the snapshot does not hold.
        step: u64,
    },
    /// A layer finished.
    Layer(Progress),
}

/// Solve `shape`, keep finished steps in `FILE.partial` and snapshots of the marks in
/// `FILE.marks` (resuming from them when they exist), save the table to `out` and remove the
/// checkpoint. The saved file is the same, byte for byte, however often the run was stopped
/// and resumed.
pub fn solve_to_file(shape: ChompBox, out: &Path, report: impl FnMut(RunEvent)) -> Result<PTable> {
    solve_to_file_with(shape, out, SNAPSHOT_EVERY, report)
}

/// [`solve_to_file`] with snapshots at most every `snapshot_every` (zero: after every step).
pub fn solve_to_file_with(
    shape: ChompBox,
    out: &Path,
    snapshot_every: Duration,
    mut report: impl FnMut(RunEvent),
) -> Result<PTable> {
    // The checkpoint lives beside the table, so the table must be a file (a device, a FIFO or
    // standard output has no "beside").
    check_resumable_target(out)?;
    let table = PTable::empty(BitLayout::for_box(shape)?)?;
    let partial = partial_path(out);
    let marks = marks_path(out);
    let span = Span {
        index: table.layout(),
        lo: 0,
        hi: table.len(),
    };
    let words = table.raw_words();
    // A whole snapshot saves redoing the steps before it; anything else is ignored.
    let snapshot = match marks.exists() {
        true => piece::load_marks(&marks, span, words, CHUNK_WORDS).ok(),
        false => None,
    };
    if snapshot.is_none() {
        words
            .iter()
            .for_each(|w| w.store(0, std::sync::atomic::Ordering::Relaxed));
    }
    let mut after = Vec::new();
    // Said to be kept from the moment it may exist: an interrupt line never misses it.
    crate::output::keep_checkpoint(&partial);
    crate::output::keep_checkpoint(&marks);
    let (mut checkpoint, start) =
        Checkpoint::open_for(&partial, table.layout(), |step, r| match snapshot {
            Some(s) if step >= s => after.push(r),
            Some(_) => {}
            None => table.set_p_bit(r),
        })?;
    // A run in blocks of the same table holds its folder's plan: refused while it runs.
    let plan = store::blocks_dir(out).join("plan");
    if store::locked_elsewhere(&plan) {
        return Err(Error::invalid(format!(
            "{} is being solved by another process (its folder {} is locked)",
            out.display(),
            plan.parent().unwrap_or(&plan).display()
        )));
    }
    crate::output::remove_stale_temps(out);
    crate::output::remove_stale_temps(&marks);
    let layers = steps(table.layout());
    if start > 0 || checkpoint.dropped_bytes > 0 {
        report(RunEvent::Resumed {
            path: partial.clone(),
            layers_done: start,
            layers,
            dropped_bytes: checkpoint.dropped_bytes,
            snapshot,
        });
    }
    let resume = match snapshot {
        Some(_) => Resume::Marks { start, after },
        None => Resume::Bits { start },
    };
    // The first snapshot comes after `snapshot_every`, whatever the table's size.
    let mut cadence = Cadence::new(snapshot_every, Duration::ZERO);
    solve_window(
        table.layout(),
        Window::whole(table.len(), words),
        resume,
        |_| Ok(()),
        |v, ranks, progress| {
            checkpoint.append(v, ranks)?;
            report(RunEvent::Layer(progress));
            // Between steps no thread marks: the words are a consistent snapshot.
            if cadence.due() && v + 1 < layers {
                cadence.take(|| piece::save_marks(&marks, span, v + 1, words, CHUNK_WORDS))?;
                report(RunEvent::Snapshot { step: v + 1 });
            }
            Ok(())
        },
    )?;
    save_table(&table, out)?;
    checkpoint.remove()?;
    if marks.exists() {
        std::fs::remove_file(&marks).map_err(|e| Error::io(&marks, e))?;
    }
    crate::output::drop_checkpoint(&partial);
    crate::output::drop_checkpoint(&marks);
    Ok(table)
}
