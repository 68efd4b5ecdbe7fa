//! A box solved whole in memory to a table file, resumable (`chomp solve -o FILE` when the
//! table fits): every step's P bits go to `FILE.partial`, snapshots of the N-marks to
//! `FILE.marks` (a piece of `super::piece`) at the engine's [`Cadence`]. A rerun resumes from
//! the last whole snapshot (the P-positions found since push their parents again), else from
//! the P bits.
//!
//! Tests: tests/games/chomp/two_player.rs (resumed runs write the one file, from a snapshot
//! and from the records alone); src/chomp/two_player/blocks.rs.

use super::file::save_table;
use super::forward::Resume;
use super::piece;
use super::solve::solve_window;
use super::table::PTable;
use crate::chomp::bits::Window;
use crate::chomp::diagram::ChompBox;
use crate::chomp::engine::lifecycle::{run_to_file, Cadence, Job, RunEvent, SNAPSHOT_FLOOR};
use crate::chomp::engine::schedule::Schedule;
use crate::chomp::index::BitLayout;
use crate::chomp::store::{self, marks_path, partial_path, Checkpoint};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Words a snapshot is written and read by.
const CHUNK_WORDS: usize = 1 << 16;

/// Solve `shape` to `out`, resuming from `FILE.partial` and `FILE.marks` when they exist: the
/// file is the same, byte for byte, however often the run was stopped.
pub fn solve_to_file(shape: ChompBox, out: &Path, report: impl FnMut(RunEvent)) -> Result<PTable> {
    solve_to_file_every(shape, out, SNAPSHOT_FLOOR, report)
}

/// [`solve_to_file`] with snapshots never closer than `floor` (zero: after every step).
pub fn solve_to_file_every(
    shape: ChompBox,
    out: &Path,
    floor: Duration,
    report: impl FnMut(RunEvent),
) -> Result<PTable> {
    let job = || {
        Ok(Whole {
            table: PTable::empty(BitLayout::for_box(shape)?)?,
            partial: partial_path(out),
            marks: marks_path(out),
            floor,
            checkpoint: None,
            resume: Resume::Bits { start: 0 },
        })
    };
    run_to_file(out, job, report)
}

/// The one-bit table solved whole in memory: the kind's part of the run to a file.
struct Whole {
    table: PTable,
    partial: PathBuf,
    marks: PathBuf,
    floor: Duration,
    checkpoint: Option<Checkpoint>,
    resume: Resume,
}

impl Job for Whole {
    type Output = PTable;

    fn disk_bytes(&self) -> u64 {
        disk_bytes(self.table.layout())
    }

    fn checkpoints(&self, _out: &Path) -> Vec<PathBuf> {
        vec![self.partial.clone(), self.marks.clone()]
    }

    fn resume(&mut self, out: &Path) -> Result<Vec<RunEvent>> {
        let (t, partial, marks) = (&self.table, &self.partial, &self.marks);
        let win = Window::whole(t.len(), t.raw_words());
        let (checkpoint, resume, snapshot) =
            piece::resume_window(partial, marks, t.layout(), win, CHUNK_WORDS)?;
        // A run in blocks of the same table holds its folder's plan: refused while it runs.
        store::refuse_if_held(out, &store::blocks_dir(out).join("plan"))?;
        crate::output::remove_stale_temps(&self.marks);
        let (Resume::Marks { start, .. } | Resume::Bits { start }) = resume;
        let steps = (start, self.table.layout().steps());
        let said = RunEvent::resumed(&self.partial, checkpoint.dropped_bytes, steps, snapshot);
        self.resume = resume;
        self.checkpoint = Some(checkpoint);
        Ok(said)
    }

    fn run(&mut self, report: &mut dyn FnMut(RunEvent)) -> Result<()> {
        let resume = std::mem::replace(&mut self.resume, Resume::Bits { start: 0 });
        let checkpoint = self.checkpoint.as_mut().expect("resumed before it runs");
        let table = &self.table;
        let win = Window::whole(table.len(), table.raw_words());
        let cadence = Cadence::new(self.floor, Duration::ZERO);
        let index = table.layout();
        let on_step = piece::record_step(
            index,
            (win, CHUNK_WORDS),
            checkpoint,
            &self.marks,
            cadence,
            report,
        );
        solve_window(index, win, resume, |_| Ok(()), on_step)
    }

    fn publish(mut self, out: &Path) -> Result<PTable> {
        save_table(&self.table, out)?;
        Checkpoint::remove_held(&mut self.checkpoint)?;
        if self.marks.exists() {
            std::fs::remove_file(&self.marks).map_err(|e| Error::io(&self.marks, e))?;
        }
        Ok(self.table)
    }
}

/// Solve a table without a checkpoint (on a device) and write it to `out`, both by `publish`,
/// through the engine's one lifecycle, under the lock every mode takes ([`store::TableLock`]).
pub(super) fn solve_unresumable<O>(
    out: &Path,
    layout: &BitLayout,
    publish: impl FnOnce(&Path) -> Result<O>,
) -> Result<O> {
    let bytes = file_bytes(layout.bytes());
    let job = || {
        Ok(Unresumable {
            bytes,
            lock: None,
            publish,
        })
    };
    run_to_file(out, job, |_| {})
}

/// A table solved without a checkpoint: the lock, then the solve and the file in one step.
struct Unresumable<P> {
    bytes: u64,
    lock: Option<store::TableLock>,
    publish: P,
}

impl<O, P: FnOnce(&Path) -> Result<O>> Job for Unresumable<P> {
    type Output = O;

    fn disk_bytes(&self) -> u64 {
        self.bytes
    }

    fn resume(&mut self, out: &Path) -> Result<Vec<RunEvent>> {
        self.lock = Some(store::lock_table(out)?);
        Ok(Vec::new())
    }

    fn run(&mut self, _report: &mut dyn FnMut(RunEvent)) -> Result<()> {
        Ok(())
    }

    fn publish(self, out: &Path) -> Result<O> {
        // The lock goes with the rest of `self`, once the file is written.
        (self.publish)(out)
    }
}

/// Bytes on disk of a table file of `bytes` of bits at most: with its chunk CRCs and header.
pub(super) fn file_bytes(bytes: u64) -> u64 {
    bytes + bytes.div_ceil(store::CHUNK_BYTES) * 4 + 8192
}

/// Bytes on disk at the peak of a whole run of `layout`'s table, at most: the table and the
/// snapshot of the marks (each the bits, their chunk CRCs and a header) and the checkpoint's
/// records ([`p_record_bound`]), all there while the table is written.
pub fn disk_bytes(layout: &BitLayout) -> u64 {
    2 * file_bytes(layout.bytes()) + p_record_bound(layout)
}

/// Bytes of the step records of a one-bit table's checkpoint, at most: 8 bytes a P-position
/// and 28 a step. The P-positions are not known before the run; the bound takes them as at
/// most 1 in 32 of the positions plus 4,096 (measured: 2,612 of 184,756 on 10x10, 1.4%;
/// 37,993,832 of 9,075,135,300 on 18x18, 0.42%; the share falls as the box grows).
pub fn p_record_bound(layout: &BitLayout) -> u64 {
    8 * (layout.len() / 32 + 4096) + 28 * layout.steps()
}
