//! The packed ordinal table of a square box in the hook index that keeps every diagonal hook
//! whole (`index::pairs`): one entry for each pair of transposed positions (a position and its
//! transpose have the same ordinal under every rule), about two thirds of the positions (405
//! million of 601 million on 16×16), computed by the index's steps on the one driver as the
//! colex table is.
//!
//! Tests: this file's unit tests (the colex table, position by position, on squares to 8×8
//! under several rules); tests/games/chomp/multiplayer.rs (the CLI's default on squares
//! against `--engine general`).

use super::packed::{entry, PackedOrds};
use super::rule::Choice;
use crate::chomp::engine::driver::{drive, Run};
use crate::chomp::engine::schedule::Progress;
use crate::chomp::index::pairs::HookOptions;
use crate::chomp::index::HookIndex;
use crate::error::Result;
use std::sync::atomic::AtomicU64;

impl PackedOrds {
    /// [`PackedOrds::compute_from`] on the n×n box in `hook`, which keeps every interior of its
    /// diagonal hooks.
    pub fn compute_hook_from(
        &self,
        hook: &HookIndex,
        choice: &Choice,
        start: u64,
        on_step: impl FnMut(u64, Progress) -> Result<()>,
    ) -> Result<()> {
        debug_assert_eq!(self.len(), hook.len());
        match self.bits() {
            1 => self.hook_scan::<1>(hook, choice, start, on_step),
            2 => self.hook_scan::<2>(hook, choice, start, on_step),
            3 => self.hook_scan::<3>(hook, choice, start, on_step),
            4 => self.hook_scan::<4>(hook, choice, start, on_step),
            5 => self.hook_scan::<5>(hook, choice, start, on_step),
            _ => self.hook_scan::<6>(hook, choice, start, on_step),
        }
    }

    fn hook_scan<const B: u64>(
        &self,
        hook: &HookIndex,
        choice: &Choice,
        start: u64,
        mut on_step: impl FnMut(u64, Progress) -> Result<()>,
    ) -> Result<()> {
        let options = HookOptions::new(hook)?;
        let words: &[AtomicU64] = self.words();
        let stop = choice.stop;
        let run = Run::from_step(hook, hook.len(), start);
        drive(
            run,
            || (),
            |_, base, len, _| {
                let (lo, hi) = (base * B, (base + len) * B);
                options.walk(base, len, |p| {
                    let mut mask = 0u64;
                    options.of_until(p, |q| {
                        mask |= 1u64 << entry::<B>(words, q);
                        mask & stop == 0
                    });
                    self.set_owned(p.index, choice.choose(mask), lo, hi);
                });
            },
            |step, _, progress| on_step(step, progress),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::diagram::ChompBox;
    use crate::chomp::index::Ranker;
    use crate::chomp::multiplayer::ordinal::{OrdEngine, OrdPlan};
    use crate::chomp::multiplayer::rule::Rule;

    #[test]
    fn the_hook_table_equals_the_colex_table_on_every_position() {
        for rule in ["0,1", "0,1,2", "2,0,1", "1,2,0", "3,0,2,1", "0,1,2,3,4"] {
            let rule = Rule::parse(rule).unwrap();
            let choice = Choice::new(&rule);
            for n in 1..=8 {
                let shape = ChompBox::square(n);
                let ranker = Ranker::new(shape).unwrap();
                let colex = PackedOrds::compute(&ranker, &choice).unwrap();
                let plan = OrdPlan::new(shape, OrdEngine::Packed).unwrap();
                let table = plan.table(&rule).unwrap();
                // One entry a pair off the diagonal hooks; the empty diagram and the diagonal
                // hooks (k, k), C(2k-2, k-1) interiors each, in full.
                let diagonal: u64 = (1..=n as u64)
                    .map(|k| crate::chomp::diagram::binomial(2 * k - 2, k - 1).unwrap())
                    .sum();
                let entries = table.hook.as_ref().unwrap().len();
                assert_eq!(entries, 1 + (ranker.len() - 1 - diagonal) / 2 + diagonal);
                let mut h = vec![0u64; rule.players() + 1];
                for r in 0..ranker.len() {
                    let o = table.ordinal(&ranker.unrank(r)).unwrap();
                    assert_eq!(o, colex.get(r), "{rule} on {n}x{n}: {}", ranker.unrank(r));
                    assert_eq!(table.ordinal_rank(r), o);
                    h[o as usize] += 1;
                }
                assert_eq!(table.histogram(), h, "{rule} on {n}x{n}");
            }
        }
    }

    #[test]
    fn an_index_with_child_squares_is_refused() {
        let hook = HookIndex::with_min_child(6, 2).unwrap();
        let choice = Choice::new(&Rule::parse("0,1,2").unwrap());
        let ords = PackedOrds::zeroed(hook.len(), 3);
        assert!(ords
            .compute_hook_from(&hook, &choice, 0, |_, _| Ok(()))
            .is_err());
    }
}
