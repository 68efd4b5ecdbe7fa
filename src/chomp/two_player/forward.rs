//! The forward solver of two-player Chomp, for every bit layout: each P-position marks its
//! parents N.
//!
//! A scan would ask of every position whether one of its options is P, reading about 17
//! option bits per position on the 14×14 box. The forward solver turns the question round.
//! The table holds *N-marks* while it runs: when a position is reached and no mark is on it,
//! every one of its options has been decided and none of them is P (a P option would have
//! marked it), so it is P; it then marks every position that can move to it. P-positions are
//! rare (0.6 % of the 14×14 box, 0.33 % of 20×20) and an N-position has 1.8 P options on
//! average, so the work follows the P-positions, and most parents come in runs of consecutive
//! indexes, marked a word at a time.
//!
//! What differs between layouts is only where a position's parents lie: a [`Marker`]
//! (`super::colex_parents`, `super::hook_parents`) marks them, and names the [`Schedule`] its
//! layout is decided in. Everything else is here, once: the walk of a range (every unmarked
//! index is P), the resume, the replay of earlier windows, and the final inversion of marks
//! into P-bits; the steps themselves run in the one driver.
//!
//! # Resuming and windows
//! A run may hold only a [`Window`] of the table: indexes `lo..hi`, everything below final.
//! Then the P-positions below it (`replay`) mark their parents inside it first. A run may also
//! start at a later step: the P-bits of the finished steps are inverted into marks, all of them
//! before any push (a parent's mark must not be inverted by its range's turn), and their
//! unmarked indexes, the P-positions, mark their parents again (a pass as long as the pushes
//! of the finished steps). From a snapshot of the marks ([`Resume::Marks`]) only the
//! P-positions found since mark theirs again.
//!
//! Tests: the unit tests of `super::solve` (both layouts, resumed and in windows);
//! tests/games/blocks.rs.

use crate::chomp::bits::{self, Window};
use crate::chomp::engine::driver::{drive, par_ranges, Run};
use crate::chomp::engine::schedule::{Progress, Schedule};
use crate::error::Result;
use rayon::prelude::*;

/// Where a layout's parents lie: everything the forward solver needs to know of a layout.
pub trait Marker: Sync {
    /// The steps of the layout.
    type Steps: Schedule;
    /// A worker's buffer.
    type Scratch: Send;

    /// The steps.
    fn steps(&self) -> &Self::Steps;
    /// The bits the run holds.
    fn window(&self) -> Window<'_>;
    /// A fresh buffer for one worker.
    fn scratch(&self) -> Self::Scratch;
    /// Mark N every parent of the position of index `q` that lies in the window.
    fn push(&self, q: u64, scratch: &mut Self::Scratch);
}

/// A source of the P indexes below a window (the finished windows before it): it hands them
/// to the sink in slices, each slice's indexes pushed in parallel.
pub type Replay<'r> = &'r mut dyn FnMut(&[u64]) -> Result<()>;

/// Where a window's run starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resume {
    /// The window's bits are clear except the P-bits of its steps before `start` (0: a fresh
    /// run); those steps' P-positions mark their parents again after the replay.
    Bits {
        /// The first step to do.
        start: u64,
    },
    /// The window's bits are the marks of a snapshot taken before some step (the replay and
    /// every push before it done); `after` are the P indexes the steps from that one to
    /// `start` found, which mark their parents again. No replay.
    Marks {
        /// The first step to do.
        start: u64,
        /// The P indexes found since the snapshot.
        after: Vec<u64>,
    },
}

/// Walk indexes `b..b + l` of the window: every unmarked one is P (index 0, the empty diagram,
/// is not a position and is marked); it goes to `found` (when given) and marks its parents.
fn walk<M: Marker>(m: &M, s: &mut M::Scratch, b: u64, l: u64, mut found: Option<&mut Vec<u64>>) {
    let win = m.window();
    let base = win.base();
    let end = b + l - base;
    let mut r = b - base;
    while let Some(local) = bits::next_unmarked(win.words, r, end) {
        let q = local + base;
        if q == 0 {
            bits::mark(win.words, local);
        } else {
            if let Some(f) = found.as_deref_mut() {
                f.push(q);
            }
            m.push(q, s);
        }
        r = local + 1;
    }
}

/// Solve the indexes of `m`'s window by the forward schedule restricted to it. Every index
/// below the window must be final: `replay` hands their P indexes to its sink (each marks its
/// parents inside the window); `resume` says what the window's bits hold. `on_step(step,
/// p_indexes, progress)` follows every step of the schedule, those with nothing in the window
/// included, so the records of a window are the steps in order. On success the window's words
/// hold its P-bits; after an error they are unspecified.
pub fn forward<M: Marker>(
    m: &M,
    resume: Resume,
    replay: impl FnOnce(Replay) -> Result<()>,
    on_step: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    let win = m.window();
    let (start, after) = match resume {
        Resume::Bits { start } => (start, None),
        Resume::Marks { start, after } => (start, Some(after)),
    };
    let run = Run {
        schedule: m.steps(),
        lo: win.lo,
        hi: win.hi,
        start,
    };
    if after.is_none() {
        run.finished(|b, l| bits::invert_range(win.words, b - win.base(), b + l - win.base()));
    }
    crate::cancel::check()?;
    match after {
        Some(after) => after
            .par_iter()
            .for_each_init(|| m.scratch(), |s, &q| m.push(q, s)),
        None => {
            replay(&mut |qs: &[u64]| {
                crate::cancel::check()?;
                qs.par_iter()
                    .for_each_init(|| m.scratch(), |s, &q| m.push(q, s));
                Ok(())
            })?;
            let mut ranges = Vec::new();
            for step in 0..start {
                crate::cancel::check()?;
                run.ranges(step, &mut ranges);
                par_ranges(&ranges, M::Steps::GRAIN, &|| m.scratch(), &|s, b, l, _| {
                    walk(m, s, b, l, None)
                })?;
            }
        }
    }
    drive(
        run,
        || m.scratch(),
        |s, b, l, found| walk(m, s, b, l, Some(found)),
        on_step,
    )?;
    bits::into_p_bits(win.words, win.lo - win.base(), win.hi - win.base());
    Ok(())
}
