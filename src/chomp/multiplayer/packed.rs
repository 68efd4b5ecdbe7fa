//! The packed ordinal table: every position's ordinal at ⌈log2(n+1)⌉ bits in colex rank
//! order, computed on the one driver with the colex schedule ([`Layers`]) as the Grundy table
//! is; or, for a square, one entry for each pair of transposed positions (they have the same
//! ordinal under every rule) in the hook index that keeps every diagonal hook whole
//! (`index::pairs`), about two thirds of the positions, on the index's steps. Entry r takes bits `r·b .. r·b + b` counted from bit 0 of u64 word 0 (so it may straddle
//! two words); words start at zero and an entry is written once, by OR, so two workers writing
//! neighbouring entries of one word never lose each other's bits.
//!
//! Tests: this file's unit tests (the hook table against the colex table, position by
//! position, on squares to 8×8 under several rules); tests/games/chomp/multiplayer.rs (the
//! byte engines, bit for bit, on boxes of many shapes and rules, and the CLI's default on
//! squares against `--engine general`).

use super::rule::{ordinal_at, Choice};
use crate::chomp::bits::zeroed_words;
use crate::chomp::engine::driver::{drive, Run};
use crate::chomp::engine::schedule::{for_each_in_range, Layers, Progress};
use crate::chomp::index::pairs::HookOptions;
use crate::chomp::index::{HookIndex, Ranker};
use crate::error::Result;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Ordinals 0..=n of `len` positions at [`PackedOrds::bits_for`] bits each.
#[derive(Debug)]
pub struct PackedOrds {
    bits: u32,
    len: u64,
    words: Vec<AtomicU64>,
}

impl PackedOrds {
    /// Bits an ordinal of an n-player rule takes: ⌈log2(n+1)⌉ (1 for 1 player, 2 for 2 or 3,
    /// 3 for 4 to 7, …).
    pub fn bits_for(players: u8) -> u32 {
        (players as u32 + 1)
            .next_power_of_two()
            .trailing_zeros()
            .max(1)
    }

    /// Bytes of the table of `len` positions under an n-player rule: whole words.
    pub fn bytes_for(len: u64, players: u8) -> u64 {
        (len * PackedOrds::bits_for(players) as u64).div_ceil(64) * 8
    }

    /// `len` zero entries (every ordinal 0) for n-player ordinals.
    pub fn zeroed(len: u64, players: u8) -> PackedOrds {
        PackedOrds {
            bits: PackedOrds::bits_for(players),
            len,
            words: zeroed_words(PackedOrds::bytes_for(len, players) as usize / 8),
        }
    }

    /// Bits an entry takes.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The words, entry r at bits r·b.. counted from bit 0 of word 0.
    pub fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// Entry `r`.
    #[inline]
    pub fn get(&self, r: u64) -> u8 {
        match self.bits {
            1 => entry::<1>(&self.words, r),
            2 => entry::<2>(&self.words, r),
            3 => entry::<3>(&self.words, r),
            4 => entry::<4>(&self.words, r),
            5 => entry::<5>(&self.words, r),
            _ => entry::<6>(&self.words, r),
        }
    }

    /// Set entry `r`, which must still be 0, to `o`, where the caller alone writes the bits
    /// `lo..hi` of the table (a range of a step): a word wholly inside them is updated by a
    /// plain load and store, any other by an atomic OR (a neighbouring range may write the
    /// rest of it meanwhile): an atomic read-modify-write a position cost 14×14 a sixth of its
    /// time.
    #[inline]
    pub fn set_owned(&self, r: u64, o: u8, lo: u64, hi: u64) {
        let b = self.bits as u64;
        let off = r * b;
        let (w, s) = ((off >> 6) as usize, off & 63);
        let v = o as u64;
        self.or_word(w, v << s, lo, hi);
        if s + b > 64 {
            self.or_word(w + 1, v >> (64 - s), lo, hi);
        }
    }

    #[inline]
    fn or_word(&self, w: usize, v: u64, lo: u64, hi: u64) {
        let first = (w as u64) << 6;
        let word = &self.words[w];
        if first >= lo && first + 64 <= hi {
            word.store(word.load(Relaxed) | v, Relaxed);
        } else {
            word.fetch_or(v, Relaxed);
        }
    }

    /// Set entry `r` to `o` whatever it held (no other worker may write its words meanwhile:
    /// entries read back from a checkpoint).
    pub fn put(&self, r: u64, o: u8) {
        let b = self.bits as u64;
        let off = r * b;
        let (w, s) = ((off >> 6) as usize, off & 63);
        let (v, mask) = (o as u64, (1u64 << b) - 1);
        self.words[w].fetch_and(!(mask << s), Relaxed);
        self.words[w].fetch_or(v << s, Relaxed);
        if s + b > 64 {
            self.words[w + 1].fetch_and(!(mask >> (64 - s)), Relaxed);
            self.words[w + 1].fetch_or(v >> (64 - s), Relaxed);
        }
    }

    /// How many entries equal each ordinal 0..=n, the entries of `hook` (a table by transposed
    /// pairs) weighted by its [`HookIndex::leaf_weights`].
    pub(crate) fn histogram(&self, players: u8, hook: Option<&HookIndex>) -> Vec<u64> {
        const CHUNK: u64 = 1 << 16;
        let n = players as usize + 1;
        let runs = hook.map_or_else(|| vec![(0, self.len, 1)], HookIndex::leaf_weights);
        let pieces: Vec<(u64, u64, u64)> = (runs.into_iter())
            .flat_map(|(lo, hi, w)| {
                (lo..hi)
                    .step_by(CHUNK as usize)
                    .map(move |x| (x, (x + CHUNK).min(hi), w))
            })
            .collect();
        let count = |(lo, hi, w)| {
            let mut h = vec![0u64; n];
            (lo..hi).for_each(|r| h[self.get(r) as usize] += w);
            h
        };
        pieces.into_par_iter().map(count).reduce(
            || vec![0u64; n],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
    }

    /// The entries of `bytes` packed (each at most the n of `players`).
    pub fn from_bytes(bytes: &[u8], players: u8) -> PackedOrds {
        let t = PackedOrds::zeroed(bytes.len() as u64, players);
        for (r, &o) in bytes.iter().enumerate() {
            t.set_owned(r as u64, o, 0, 0);
        }
        t
    }

    /// Decide the ordinals of the box of `ranker` under `choice` by the steps of its schedule
    /// from `start` on (those before it read back from a checkpoint), calling
    /// `on_step(step, progress)` after each: by colex rank, or, given `hook` (the square's
    /// index that keeps every interior of its diagonal hooks), one entry a transposed pair.
    /// Stops with [`crate::Error::Interrupted`] when its [`crate::cancel`] token is cancelled.
    pub fn compute_from(
        &self,
        ranker: &Ranker,
        hook: Option<&HookIndex>,
        choice: &Choice,
        start: u64,
        on_step: impl FnMut(u64, Progress) -> Result<()>,
    ) -> Result<()> {
        debug_assert_eq!(self.len, hook.map_or(ranker.len(), HookIndex::len));
        // A constant width makes each option read a shift and a mask.
        match self.bits {
            1 => self.scan::<1>(ranker, hook, choice, start, on_step),
            2 => self.scan::<2>(ranker, hook, choice, start, on_step),
            3 => self.scan::<3>(ranker, hook, choice, start, on_step),
            4 => self.scan::<4>(ranker, hook, choice, start, on_step),
            5 => self.scan::<5>(ranker, hook, choice, start, on_step),
            _ => self.scan::<6>(ranker, hook, choice, start, on_step),
        }
    }

    /// [`PackedOrds::compute_from`] at `B` bits an entry.
    fn scan<const B: u64>(
        &self,
        ranker: &Ranker,
        hook: Option<&HookIndex>,
        choice: &Choice,
        start: u64,
        mut on_step: impl FnMut(u64, Progress) -> Result<()>,
    ) -> Result<()> {
        let words = &self.words[..];
        let on_step = |step, _: &[u64], progress| on_step(step, progress);
        if let Some(hook) = hook {
            let options = HookOptions::new(hook)?;
            let stop = choice.stop;
            let run = Run::new(hook, hook.len(), start);
            return drive(
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
                on_step,
            );
        }
        drive(
            Run::new(&Layers { ranker }, ranker.len(), start),
            || vec![0u32; ranker.shape.rows],
            |rows, base, len, _| {
                let (lo, hi) = (base * B, (base + len) * B);
                for_each_in_range(ranker, base, len, rows, |rows, rank| {
                    if rank != 0 {
                        let o = ordinal_at(ranker, rows, rank, |q| entry::<B>(words, q), choice);
                        self.set_owned(rank, o, lo, hi);
                    }
                });
            },
            on_step,
        )
    }

    /// Every ordinal of the box of `ranker` under `choice`, packed.
    pub fn compute(ranker: &Ranker, choice: &Choice) -> Result<PackedOrds> {
        let t = PackedOrds::zeroed(ranker.len(), choice.players());
        t.compute_from(ranker, None, choice, 0, |_, _| Ok(()))?;
        Ok(t)
    }
}

/// Entry `r` of words packed at `B` bits an entry.
#[inline(always)]
pub(crate) fn entry<const B: u64>(words: &[AtomicU64], r: u64) -> u8 {
    if 64 % B == 0 {
        // A whole number of entries a word: the word and the shift without a multiply, the
        // shift in 32 bits (the cheapest the compiler emits).
        let per = 64 / B;
        let v =
            words[(r / per) as usize].load(Relaxed) >> ((r as u32 & (per as u32 - 1)) * B as u32);
        return (v & ((1 << B) - 1)) as u8;
    }
    let off = r * B;
    let (w, s) = ((off >> 6) as usize, off & 63);
    let mut v = words[w].load(Relaxed) >> s;
    if s + B > 64 {
        v |= words[w + 1].load(Relaxed) << (64 - s);
    }
    (v & ((1 << B) - 1)) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::diagram::ChompBox;
    use crate::chomp::multiplayer::ordinal::{OrdEngine, OrdPlan};
    use crate::chomp::multiplayer::rule::Rule;

    #[test]
    fn bits_are_the_ceiling_of_log2_of_n_plus_one() {
        let got: Vec<u32> = (1..=9).map(PackedOrds::bits_for).collect();
        assert_eq!(got, [1, 2, 2, 3, 3, 3, 3, 4, 4]);
        assert_eq!(PackedOrds::bits_for(63), 6);
    }

    #[test]
    fn entries_round_trip_across_word_boundaries() {
        for players in [1u8, 2, 3, 4, 7, 8, 20, 63] {
            let max = players as u64;
            let bytes: Vec<u8> = (0..1000u64)
                .map(|r| ((r * 7 + r / 3) % (max + 1)) as u8)
                .collect();
            let t = PackedOrds::from_bytes(&bytes, players);
            let back: Vec<u8> = (0..1000).map(|r| t.get(r)).collect();
            assert_eq!(back, bytes, "{players} players");
            let mut h = vec![0u64; players as usize + 1];
            bytes.iter().for_each(|&o| h[o as usize] += 1);
            assert_eq!(t.histogram(players, None), h);
        }
    }

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
                let entries = table.hook().unwrap().len();
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
        let ranker = Ranker::new(ChompBox::square(6)).unwrap();
        assert!(ords
            .compute_from(&ranker, Some(&hook), &choice, 0, |_, _| Ok(()))
            .is_err());
    }
}
