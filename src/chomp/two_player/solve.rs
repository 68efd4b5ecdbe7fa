//! Solving a box in memory: the forward solver (`super::forward`) with the marker of the
//! table's layout, from a first step on, reporting every step (the records a checkpoint
//! keeps).
//!
//! Tests: tests/engine/foundation.rs, tests/games/chomp/two_player.rs; the unit tests of
//! `super::colex` and `super::hook` run the same solver.

use super::colex_parents::ColexMarker;
use super::forward::{forward, Replay, Resume};
use super::table::PTable;
use crate::chomp::bits::Window;
use crate::chomp::diagram::ChompBox;
use crate::chomp::engine::schedule::{Layers, Progress, Schedule};
use crate::chomp::index::BitLayout;
use crate::error::Result;

/// Solve a whole table step by step, in its layout's schedule. Steps before `start_layer` must
/// already be in `table` as P-bits (a resumed run) and the rest of it clear;
/// `on_layer(step, p_bits, progress)` is called after each step with the P bits it found, and
/// may fail to stop the run (a checkpoint that cannot be written). On success `table` holds
/// the P-bits of the whole box; after an error its bits are unspecified.
pub fn solve_layers(
    table: &PTable,
    start_layer: u64,
    on_layer: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    let win = Window::whole(table.len(), table.raw_words());
    solve_window(
        table.layout(),
        win,
        Resume::Bits { start: start_layer },
        |_| Ok(()),
        on_layer,
    )
}

/// Solve the indexes of `win` of a table in `layout` by the forward schedule restricted to
/// it (`super::forward::forward`, with the marker of the layout): every index below `win.lo`
/// must be final, and `replay` hands their P indexes to its sink. Both layouts number
/// positions in a topological order (every option has a smaller index), so a window may start
/// anywhere.
pub fn solve_window(
    layout: &BitLayout,
    win: Window,
    resume: Resume,
    replay: impl FnOnce(Replay) -> Result<()>,
    on_step: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    match layout {
        BitLayout::Hook { hook, .. } => {
            super::hook_parents::solve_window(hook, win, resume, replay, on_step)
        }
        BitLayout::Colex(ranker) if win.lo == 0 && win.hi >= ranker.len() => forward(
            &ColexMarker::<false>::new(ranker, win),
            resume,
            replay,
            on_step,
        ),
        BitLayout::Colex(ranker) => forward(
            &ColexMarker::<true>::new(ranker, win),
            resume,
            replay,
            on_step,
        ),
    }
}

/// The ranges of bits of `step` of a run in `layout`, into `out`.
pub fn step_ranges(layout: &BitLayout, step: u64, out: &mut Vec<(u64, u64)>) {
    match layout {
        BitLayout::Colex(ranker) => Layers { ranker }.ranges(step, out),
        BitLayout::Hook { hook, .. } => hook.ranges(step, out),
    }
}

/// Steps (checkpoint records) of a run in `layout`.
pub fn steps(layout: &BitLayout) -> u64 {
    match layout {
        BitLayout::Colex(ranker) => crate::chomp::engine::schedule::layer_count(ranker.shape),
        BitLayout::Hook { hook, .. } => hook.steps(),
    }
}

/// Solve a box in the layout [`BitLayout::for_box`] chooses (one of each transposed pair for a
/// square), no checkpoints.
pub fn solve_box(shape: ChompBox) -> Result<PTable> {
    let table = PTable::empty(BitLayout::for_box(shape)?)?;
    solve_layers(&table, 0, |_, _, _| Ok(()))?;
    Ok(table)
}

/// Solve a box in the colex layout (every position), no checkpoints.
pub fn solve(shape: ChompBox) -> Result<PTable> {
    let table = PTable::empty(BitLayout::colex_for(shape)?)?;
    solve_layers(&table, 0, |_, _, _| Ok(()))?;
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::two_player::reference::solve_by_rank_order;

    #[test]
    fn both_layouts_equal_the_reference() {
        for (r, c) in [
            (1, 1),
            (1, 6),
            (2, 5),
            (3, 7),
            (5, 5),
            (6, 4),
            (7, 7),
            (8, 8),
        ] {
            let shape = ChompBox { rows: r, cols: c };
            let reference = solve_by_rank_order(shape).unwrap();
            assert_eq!(solve(shape).unwrap().words(), reference.words(), "{r}x{c}");
            let boxed = solve_box(shape).unwrap();
            assert_eq!(boxed.p_count(), reference.p_count(), "{r}x{c}");
            let rk = reference.ranker();
            for q in 1..rk.len() {
                let d = rk.unrank(q);
                assert_eq!(boxed.is_p(&d), reference.is_p(&d), "{r}x{c} {d}");
            }
        }
    }
}
