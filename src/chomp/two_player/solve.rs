//! Solving a box in memory: the forward solver (`super::forward`) with the marker of the
//! table's layout, from a first step on, reporting every step (the records a checkpoint
//! keeps).
//!
//! Tests: this file's unit test (both layouts against the reference, step by step, resumed
//! and in windows); tests/engine/foundation.rs, tests/games/chomp/two_player.rs.

use super::colex_parents::ColexMarker;
use super::forward::{forward, Replay, Resume};
use super::hook_parents::HookMarker;
use super::table::PTable;
use crate::chomp::bits::Window;
use crate::chomp::diagram::ChompBox;
use crate::chomp::engine::schedule::Progress;
use crate::chomp::index::BitLayout;
use crate::error::Result;

/// [`forward`] on the window `win` of a table in `layout`, with the layout's marker (without
/// the window's checks when `win` is the whole table). Both layouts number positions in a
/// topological order (every option has a smaller index), so a window may start anywhere.
pub fn solve_window(
    layout: &BitLayout,
    win: Window,
    resume: Resume,
    replay: impl FnOnce(Replay) -> Result<()>,
    on_step: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    let whole = win.lo == 0 && win.hi >= layout.len();
    match layout {
        BitLayout::Hook { hook, .. } if whole => forward(
            &HookMarker::<false>::new(hook, win),
            resume,
            replay,
            on_step,
        ),
        BitLayout::Hook { hook, .. } => {
            forward(&HookMarker::<true>::new(hook, win), resume, replay, on_step)
        }
        BitLayout::Colex(ranker) if whole => forward(
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

/// The table of `layout`, solved whole in memory, no checkpoints.
pub fn solve_layers(layout: BitLayout) -> Result<PTable> {
    let table = PTable::empty(layout)?;
    let win = Window::whole(table.len(), table.raw_words());
    let fresh = Resume::Bits { start: 0 };
    solve_window(table.layout(), win, fresh, |_| Ok(()), |_, _, _| Ok(()))?;
    Ok(table)
}

/// Solve a box in the layout [`BitLayout::for_box`] chooses (one of each transposed pair for a
/// square), no checkpoints.
pub fn solve_box(shape: ChompBox) -> Result<PTable> {
    solve_layers(BitLayout::for_box(shape)?)
}

/// Solve a box in the colex layout (every position), no checkpoints.
pub fn solve(shape: ChompBox) -> Result<PTable> {
    solve_layers(BitLayout::colex_for(shape)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::bits;
    use crate::chomp::engine::schedule::Schedule;
    use crate::chomp::index::Ranker;
    use crate::chomp::two_player::reference::{solve_by_rank_order, solve_by_volume_layers};
    use std::sync::atomic::Ordering::Relaxed;

    /// Every step's P indexes.
    type Records = Vec<(u64, Vec<u64>)>;

    fn hook(n: usize, min_child: usize) -> BitLayout {
        BitLayout::hook_for(ChompBox::square(n), min_child).unwrap()
    }

    /// Solve the whole of `t` from step `start`; the records of the steps run.
    fn run(t: &PTable, start: u64) -> Records {
        let mut records = Vec::new();
        let on_step = |s, ps: &[u64], _| {
            records.push((s, ps.to_vec()));
            Ok(())
        };
        let win = Window::whole(t.len(), t.raw_words());
        solve_window(t.layout(), win, Resume::Bits { start }, |_| Ok(()), on_step).unwrap();
        records
    }

    /// Solve `layout` window by window of about `window_words` words (most not starting on a
    /// word), each replaying the P indexes below it in two slices; the bits and every step's
    /// records.
    fn solve_by_windows(layout: &BitLayout, window_words: u64) -> (Vec<u64>, Records) {
        let len = layout.len();
        let mut all = vec![0u64; len.div_ceil(64) as usize];
        let mut records: Records = (0..layout.steps()).map(|s| (s, Vec::new())).collect();
        let mut lo = 0;
        while lo < len {
            let hi = (lo + window_words * 64 - 17).min(len);
            let words = bits::zeroed_words(Window::words_for(lo, hi) as usize);
            let win = Window {
                lo,
                hi,
                words: &words,
            };
            let below: Vec<u64> = (0..lo).filter(|&q| bits::get_plain(&all, q)).collect();
            let replay = |sink: Replay| {
                let (a, b) = below.split_at(below.len() / 2);
                sink(a)?;
                sink(b)
            };
            solve_window(
                layout,
                win,
                Resume::Bits { start: 0 },
                replay,
                |s, ps, _| {
                    records[s as usize].1.extend_from_slice(ps);
                    Ok(())
                },
            )
            .unwrap();
            for (i, w) in words.iter().enumerate() {
                all[(lo / 64) as usize + i] |= w.load(Relaxed);
            }
            let first = words[0].load(Relaxed);
            assert_eq!(first & !(u64::MAX << (lo & 63)), 0, "bits below the window");
            lo = hi;
        }
        (all, records)
    }

    #[test]
    fn both_layouts_equal_the_reference_step_by_step_resumed_and_window_by_window() {
        let boxes = "1x1 1x6 2x5 3x7 5x5 6x4 7x7 4x11 9x3 4x5 6x6 7x3 4x9 7x5 3x30 9x4";
        let boxes = boxes.split(' ').map(|b| ChompBox::parse(b).unwrap());
        let colex = boxes.map(|b| BitLayout::Colex(Ranker::new(b).unwrap()));
        let squares = (1..=9).flat_map(|n| [0, 2, 3, 100].map(|m| hook(n, m)));
        for layout in colex.chain(squares) {
            let (shape, scheme) = (layout.shape(), layout.scheme());
            let t = PTable::empty(layout.clone()).unwrap();
            let records = run(&t, 0);
            let reference = solve_by_rank_order(shape).unwrap();
            if let BitLayout::Colex(_) = layout {
                assert_eq!(t.words(), reference.words(), "{shape}");
                let volume = solve_by_volume_layers(shape).unwrap();
                assert_eq!(volume.words(), reference.words(), "{shape} by volume");
            }
            assert_eq!(t.p_count(), reference.p_count(), "{shape}");
            let rk = reference.ranker();
            for q in 1..rk.len() {
                let d = rk.unrank(q);
                assert_eq!(t.is_p(&d), reference.is_p(&d), "{scheme} {shape} {d}");
            }
            // Every step reports exactly the P indexes of its ranges, in order.
            let n = layout.steps();
            assert_eq!(records.len() as u64, n);
            let mut ranges = Vec::new();
            for (s, ps) in &records {
                layout.ranges(*s, &mut ranges);
                let mut want: Vec<u64> = ranges
                    .iter()
                    .flat_map(|&(b, l)| (b..b + l).filter(|&q| t.is_p_bit(q)))
                    .collect();
                want.sort_unstable();
                assert_eq!(ps, &want, "{shape} step {s}");
            }
            // Resumed from the records of the first steps: the same bits and later records.
            for stop in [1, 3, 5, n / 2, n - 1].into_iter().filter(|&s| s <= n) {
                let resumed = PTable::empty(layout.clone()).unwrap();
                for (_, ps) in &records[..stop as usize] {
                    ps.iter().for_each(|&q| resumed.set_p_bit(q));
                }
                let rest = run(&resumed, stop);
                assert_eq!(resumed.words(), t.words(), "{scheme} resumed at {stop}");
                assert_eq!(rest[..], records[stop as usize..], "from {stop}");
            }
            // Windows of one word, a few (cut anywhere in a block), and about a third.
            let whole = t.words();
            for ww in [1, 2, 3, 5, 7, (whole.len() as u64).div_ceil(3)] {
                let (bits, recs) = solve_by_windows(&layout, ww);
                assert_eq!(bits, whole, "{scheme} in windows of {ww} words");
                assert_eq!(recs, records, "{scheme}: records, {ww} words");
            }
        }
    }
}
