//! The one step loop of every table that runs in parallel: it walks a [`Schedule`] from a
//! first step on, runs each step's ranges in parallel (rayon, a buffer per worker), keeps the
//! progress phase, stops between ranges when the caller's cancel token is cancelled, and tells
//! the caller after every step. Only the single-threaded sweeps in rank order (the slow twins,
//! and `multiplayer::classes`' every rule in one pass) keep a loop of their own.
//!
//! Tests: the solvers' tests, which all run through it; tests/engine/cancel.rs.

use super::schedule::{Progress, Schedule};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// One run of a schedule: the steps from `start` on, over the indexes `lo..hi` (every range is
/// clipped to them: a window of a table larger than memory, or the whole table).
#[derive(Debug, Clone, Copy)]
pub struct Run<'a, S> {
    /// The steps.
    pub schedule: &'a S,
    /// First index decided.
    pub lo: u64,
    /// One past the last index decided.
    pub hi: u64,
    /// The first step to do (the ones before are finished).
    pub start: u64,
}

impl<'a, S: Schedule> Run<'a, S> {
    /// The steps of `schedule` from `start` on over indexes `0..len`: 0 for a whole run, or
    /// the first step a checkpoint did not finish.
    pub fn new(schedule: &'a S, len: u64, start: u64) -> Run<'a, S> {
        Run {
            schedule,
            lo: 0,
            hi: len,
            start,
        }
    }

    /// The ranges of `step` clipped to the run's indexes, into `out`.
    pub fn ranges(&self, step: u64, out: &mut Vec<(u64, u64)>) {
        self.schedule.ranges(step, out);
        let (lo, hi) = (self.lo, self.hi);
        out.retain_mut(|(b, l)| {
            let (x, y) = ((*b).max(lo), (*b + *l).min(hi));
            (*b, *l) = (x, y.saturating_sub(x));
            x < y
        });
    }

    /// Visit the ranges of the finished steps (`0..start`), clipped; returns their positions.
    pub fn finished(&self, mut f: impl FnMut(u64, u64)) -> u64 {
        let mut ranges = Vec::new();
        let mut done = 0;
        for step in 0..self.start {
            self.ranges(step, &mut ranges);
            for &(b, l) in &ranges {
                f(b, l);
                done += l;
            }
        }
        done
    }
}

/// `range(scratch, base, len, found)` for every range in parallel, each worker with its own
/// scratch and list of found indexes; the indexes, sorted. Stops with [`Error::Interrupted`]
/// once the caller's cancel token is cancelled.
pub fn par_ranges<T: Send>(
    ranges: &[(u64, u64)],
    grain: usize,
    scratch: &(impl Fn() -> T + Sync + Send),
    range: &(impl Fn(&mut T, u64, u64, &mut Vec<u64>) + Sync),
) -> Result<Vec<u64>> {
    let token = crate::cancel::current();
    let mut found = ranges
        .par_iter()
        .with_min_len(grain)
        .try_fold(
            || (Vec::new(), scratch()),
            |(mut acc, mut s), &(b, l)| {
                if token.as_ref().is_some_and(|t| t.is_cancelled()) {
                    return Err(Error::Interrupted);
                }
                range(&mut s, b, l, &mut acc);
                Ok((acc, s))
            },
        )
        .map(|r| r.map(|(acc, _)| acc))
        .try_reduce(Vec::new, |mut a, mut b| {
            a.append(&mut b);
            Ok(a)
        })?;
    found.sort_unstable();
    Ok(found)
}

/// Run the steps of `run` in order: each step's ranges through [`par_ranges`], then
/// `on_step(step, found, progress)`, which may fail to stop the run. The progress counts the
/// finished steps' positions as done.
pub fn drive<S: Schedule, T: Send>(
    run: Run<S>,
    scratch: impl Fn() -> T + Sync + Send,
    range: impl Fn(&mut T, u64, u64, &mut Vec<u64>) + Sync,
    on_step: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    drive_steps(
        run,
        |_, ranges| par_ranges(ranges, S::GRAIN, &scratch, &range),
        on_step,
    )
}

/// [`drive`] with each step's ranges decided by `step(step, ranges)` (which returns the
/// indexes found) instead of on the CPU's threads: the GPU's layer dispatch.
pub fn drive_steps<S: Schedule>(
    run: Run<S>,
    mut step: impl FnMut(u64, &[(u64, u64)]) -> Result<Vec<u64>>,
    mut on_step: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    let total = run.hi - run.lo;
    let steps = run.schedule.steps();
    let mut done = run.finished(|_, _| ());
    let phase = crate::progress::phase("positions", Some(total));
    phase.set(done);
    let mut ranges = Vec::new();
    for s in run.start..steps {
        crate::cancel::check()?;
        run.ranges(s, &mut ranges);
        let found = step(s, &ranges)?;
        done += ranges.iter().map(|&(_, l)| l).sum::<u64>();
        phase.set(done);
        on_step(
            s,
            &found,
            Progress {
                done,
                total,
                steps_done: s + 1,
                steps,
            },
        )?;
    }
    Ok(())
}
