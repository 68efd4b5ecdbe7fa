//! The packed ordinal table of a square box in the hook index (`crate::chomp::index::hook`):
//! one entry for each pair of transposed positions. Transposing a position maps its options
//! onto its transpose's options, so a position and its transpose have the same ordinal under
//! every rule, and the table needs one of them.
//!
//! The index here keeps every interior of a diagonal hook (its `min_child` is the side n): the
//! blocks are then all colex boxes, and the table holds about two thirds of the box's positions
//! (404 million of 601 million on 16×16), the diagonal hooks (k, k) in full.
//!
//! # Options in the hook index
//! A stored position λ has a first row of a cells and b ≤ a rows, and under that hook the
//! interior μ, a position of the (b-1)×(a-1) box, kept at its colex rank in the hook's block.
//! Its |λ| options (one for each cell bitten) are, by where the bite falls:
//! - a cell of the interior (rows ≥ 1, columns ≥ 1): the same hook over an option of μ, the
//!   bite that empties μ included: the colex options of μ in the block;
//! - the cell (i, 0) of a row i ≥ 1: the first i rows, the hook (a, i) over μ's first i-1 rows;
//! - the cell (0, j), 1 ≤ j < a: every row cut to j cells, the hook (j, b) over μ cut to j-1
//!   columns when j ≥ b; when j < b that position is not stored but its transpose is, the hook
//!   (b, j) over the first j-1 columns of μ (as rows: μ's transpose);
//! - the cell (0, 0): the empty diagram, index 0.
//!
//! The interior's options come first (consecutive colex ranks, O(1) each); the others are
//! ranked from prefix sums of the colex weights, O(1) each after an O(b) start.
//!
//! Steps: those of the hook index (hook sums, within a sum the prefix-volume layers of its
//! colex blocks), on the one driver, exactly as the colex table runs its layers: an option
//! has a smaller hook sum (an earlier step) or the same hook (an earlier layer, or a smaller
//! rank in the same prefix block).
//!
//! Tests: this file's unit tests (the colex table, position by position, on squares to 8×8
//! under several rules); tests/games/chomp/multiplayer.rs (the CLI's default on squares
//! against `--engine general`).

use super::packed::{entry, PackedOrds};
use super::rule::Choice;
use crate::chomp::diagram::ChompBox;
use crate::chomp::index::hook::{Kind, MAX_SIDE};
use crate::chomp::index::{HookIndex, Ranker};
use crate::chomp::two_player::driver::{drive, Run};
use crate::chomp::two_player::schedule::{for_each_in_range, Progress};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// The hook index a square's ordinal table keeps: every interior of a diagonal hook stored.
pub fn ord_hook_index(n: usize) -> Result<HookIndex> {
    HookIndex::with_min_child(n, n)
}

/// What the scan of one square needs besides the table: the blocks' offsets by hook, a colex
/// ranking for each block's interior box, and prefix sums of the colex weights.
struct Blocks<'a> {
    hook: &'a HookIndex,
    n: usize,
    /// `off[a * (n+1) + b]`: the first index of the hook (a, b), a ≥ b ≥ 1.
    off: Vec<u64>,
    /// `rankers[r * n + c]`: the r×c box, r ≥ 1 (interiors of r + 1 rows under c + 1 cells).
    rankers: Vec<Option<Ranker>>,
    /// `pre[(r * (n+1) + len) * (n+1) + t]` = Σ_{k<t} weight(r, k, len): the first t of r rows
    /// all of `len` cells.
    pre: Vec<u64>,
}

impl<'a> Blocks<'a> {
    fn new(hook: &'a HookIndex) -> Result<Blocks<'a>> {
        let n = hook.side();
        if hook.min_child() < n {
            return Err(Error::invalid(format!(
                "the ordinal table of the {n}x{n} box keeps every interior of a diagonal hook \
                 (an index with child squares from side {} was given)",
                hook.min_child()
            )));
        }
        let s = n + 1;
        let sq = &hook.squares[n];
        let mut off = vec![0u64; s * s];
        let mut rankers: Vec<Option<Ranker>> = vec![None; n * n.max(1)];
        for blk in &sq.blocks {
            if let Kind::Colex { r, c } = blk.kind {
                let (a, b) = (c as usize + 1, r + 1);
                off[a * s + b] = blk.off;
                if r >= 1 && rankers[r * n + c as usize].is_none() {
                    rankers[r * n + c as usize] = Some(Ranker::new(ChompBox { rows: r, cols: c })?);
                }
            }
        }
        let mut pre = vec![0u64; s * s * s];
        for r in 1..=n {
            for len in 0..=n {
                let at = (r * s + len) * s;
                for t in 0..r {
                    pre[at + t + 1] = pre[at + t] + hook.weight(r, t, len as u32);
                }
            }
        }
        Ok(Blocks {
            hook,
            n,
            off,
            rankers,
            pre,
        })
    }

    #[inline]
    fn off(&self, a: usize, b: usize) -> u64 {
        self.off[a * (self.n + 1) + b]
    }

    #[inline]
    fn pre(&self, r: usize, len: u32, t: usize) -> u64 {
        let s = self.n + 1;
        self.pre[(r * s + len as usize) * s + t]
    }

    /// The options of the stored position with hook (a, b) and interior `mu` (b-1 rows) at
    /// colex rank `x` of its block, as indexes, to `f` until it returns false (it may be called
    /// a few more times after).
    #[inline]
    fn for_each_option_until(
        &self,
        a: usize,
        b: usize,
        mu: &[u32],
        x: u64,
        mut f: impl FnMut(u64) -> bool,
    ) {
        let r = b - 1;
        let own = self.off(a, b);
        // The interior's own options, the hook left whole.
        if r >= 1 {
            let mut go_on = true;
            self.rankers[r * self.n + a - 1]
                .as_ref()
                .expect("a ranker for every block of two or more rows")
                .for_each_option_until(&mu[..r], x, |q| {
                    go_on &= f(own + q);
                    go_on
                });
            if !go_on {
                return;
            }
        }
        // The bite at (0, 0): the empty diagram.
        if !f(0) {
            return;
        }
        // The bites at (i, 0), i ≥ 1: the first i rows, hook (a, i) over mu's first i-1 rows.
        for i in 1..b {
            let q = self.off(a, i) + self.hook.colex_rank(i - 1, mu);
            if !f(q) {
                return;
            }
        }
        // The bites at (0, j), j ≥ b: hook (j, b) over mu cut to j-1 columns. With mu
        // non-increasing, the rows cut are the first t(j) (those of ≥ j-1 cells): the rank is
        // the prefix sum of t(j) rows of j-1 cells plus the suffix of mu's own weights.
        let mut suffix = [0u64; MAX_SIDE + 1];
        for k in (0..r).rev() {
            suffix[k] = suffix[k + 1] + self.hook.weight(r, k, mu[k]);
        }
        let mut t = 0;
        for j in b..a {
            let cut = j as u32 - 1;
            while t > 0 && mu[t - 1] < cut {
                t -= 1;
            }
            while t < r && mu[t] >= cut {
                t += 1;
            }
            let q = self.off(j, b) + self.pre(r, cut, t) + suffix[t];
            if !f(q) {
                return;
            }
        }
        // The bites at (0, j), 1 ≤ j < b: stored as the transpose, hook (b, j) over the first
        // j-1 columns of mu, read as rows.
        let mut cols = [0u32; MAX_SIDE + 1];
        for (k, col) in cols.iter_mut().enumerate().take(a.min(b) - 1) {
            *col = mu[..r].iter().take_while(|&&len| len as usize > k).count() as u32;
        }
        for j in 1..b.min(a) {
            let q = self.off(b, j) + self.hook.colex_rank(j - 1, &cols);
            if !f(q) {
                return;
            }
        }
    }
}

impl PackedOrds {
    /// Decide the ordinals of the n×n box in `hook` ([`ord_hook_index`]) under `choice` by the
    /// index's steps from `start` on (the entries of the steps before it are in the table
    /// already), calling `on_step(step, progress)` after each. Stops with
    /// [`crate::Error::Interrupted`] when its [`crate::cancel`] token is cancelled.
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
        let blocks = Blocks::new(hook)?;
        let sq = &hook.squares[hook.side()];
        let words: &[AtomicU64] = self.words();
        let stop = choice.stop;
        let run = Run::whole(hook, hook.len());
        let run = Run { start, ..run };
        drive(
            run,
            || (),
            |_, base, len, _| {
                let (lo, hi) = (base * B, (base + len) * B);
                let blk = sq.blocks[sq.blocks.partition_point(|b| b.off <= base) - 1];
                let Kind::Colex { r, c } = blk.kind else {
                    // The empty diagram: ordinal 0, as the table starts.
                    return;
                };
                let (a, b) = (c as usize + 1, r + 1);
                let decide = |mu: &[u32], x: u64| {
                    let mut mask = 0u64;
                    blocks.for_each_option_until(a, b, mu, x, |q| {
                        mask |= 1u64 << entry::<B>(words, q);
                        mask & stop == 0
                    });
                    self.set_owned(blk.off + x, choice.choose(mask), lo, hi);
                };
                if r == 0 {
                    // A single row: one position a block.
                    decide(&[], 0);
                    return;
                }
                let ranker = blocks.rankers[r * blocks.n + c as usize]
                    .as_ref()
                    .expect("a ranker for every block of two or more rows");
                let mut rows = [0u32; MAX_SIDE + 1];
                for_each_in_range(ranker, base - blk.off, len, &mut rows[..r], decide);
            },
            |step, _, progress| on_step(step, progress),
        )
    }

    /// Every ordinal of the square in `hook` ([`ord_hook_index`]) under `choice`, packed.
    pub fn compute_hook(hook: &HookIndex, choice: &Choice) -> Result<PackedOrds> {
        let t = PackedOrds::zeroed(hook.len(), choice.players());
        t.compute_hook_from(hook, choice, 0, |_, _| Ok(()))?;
        Ok(t)
    }
}

/// How many positions of the square each stored index stands for, block by block: (first
/// index, one past the last, 2 for a hook (a, b) with a > b whose transposes are not stored,
/// else 1).
pub fn hook_weights(hook: &HookIndex) -> Vec<(u64, u64, u64)> {
    hook.squares[hook.side()]
        .blocks
        .iter()
        .map(|b| {
            let w = match b.kind {
                Kind::Colex { r, c } if c as usize > r => 2,
                _ => 1,
            };
            (b.off, b.off + b.len, w)
        })
        .collect()
}

/// The ordinals of a square box kept in the hook index: one entry for each transposed pair,
/// read by colex rank or by rows like every other table.
#[derive(Debug, Clone)]
pub struct HookOrds {
    /// The square's colex ranking (the rank every reader of a table speaks).
    pub ranker: Ranker,
    /// The index of the entries ([`ord_hook_index`]).
    pub hook: Arc<HookIndex>,
    /// The entries, by index.
    pub ords: PackedOrds,
}

impl HookOrds {
    /// An all-zero table of the square of `ranker` for n-player ordinals.
    pub fn zeroed(ranker: Ranker, players: u8) -> Result<HookOrds> {
        let hook = Arc::new(ord_hook_index(ranker.shape.rows)?);
        let ords = PackedOrds::zeroed(hook.len(), players);
        Ok(HookOrds { ranker, hook, ords })
    }

    /// Every ordinal of the square of `ranker` under `choice`.
    pub fn compute(ranker: Ranker, choice: &Choice) -> Result<HookOrds> {
        let t = HookOrds::zeroed(ranker, choice.players())?;
        t.ords
            .compute_hook_from(&t.hook, choice, 0, |_, _| Ok(()))?;
        Ok(t)
    }

    /// The ordinal of the position `rows` (row lengths), or `None` when it does not fit.
    #[inline]
    pub fn get_rows(&self, rows: &[u32]) -> Option<u8> {
        self.hook.index(rows).map(|x| self.ords.get(x))
    }

    /// The ordinal of colex rank `r`.
    pub fn get(&self, r: u64) -> u8 {
        let mut rows = [0u32; MAX_SIDE + 1];
        let n = self.ranker.shape.rows;
        self.ranker.unrank_into(r, &mut rows[..n]);
        self.get_rows(&rows[..n]).expect("a rank of the box")
    }

    /// How many positions of the square have each ordinal 0..=n (a pair stored once counts
    /// twice).
    pub fn histogram(&self, players: u8) -> Vec<u64> {
        weighted_histogram(&self.hook, players, |x| self.ords.get(x))
    }
}

/// How many positions of the square of `hook` have each ordinal 0..=n, the ordinal of index x
/// being `at(x)`: a pair stored once counts twice.
pub fn weighted_histogram(
    hook: &HookIndex,
    players: u8,
    at: impl Fn(u64) -> u8 + Sync,
) -> Vec<u64> {
    const CHUNK: u64 = 1 << 16;
    let n = players as usize + 1;
    let pieces: Vec<(u64, u64, u64)> = hook_weights(hook)
        .into_iter()
        .flat_map(|(lo, hi, w)| {
            (lo..hi)
                .step_by(CHUNK as usize)
                .map(move |x| (x, (x + CHUNK).min(hi), w))
        })
        .collect();
    pieces
        .into_par_iter()
        .fold(
            || vec![0u64; n],
            |mut h, (lo, hi, w)| {
                (lo..hi).for_each(|x| h[at(x) as usize] += w);
                h
            },
        )
        .reduce(
            || vec![0u64; n],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::multiplayer::rule::Rule;

    #[test]
    fn the_hook_table_equals_the_colex_table_on_every_position() {
        for rule in ["0,1", "0,1,2", "2,0,1", "1,2,0", "3,0,2,1", "0,1,2,3,4"] {
            let rule = Rule::parse(rule).unwrap();
            let choice = Choice::new(&rule);
            for n in 1..=8 {
                let shape = ChompBox {
                    rows: n,
                    cols: n as u32,
                };
                let ranker = Ranker::new(shape).unwrap();
                let colex = PackedOrds::compute(&ranker, &choice).unwrap();
                let hook = ord_hook_index(n).unwrap();
                // One entry a pair off the diagonal hooks; the empty diagram and the diagonal
                // hooks (k, k), C(2k-2, k-1) interiors each, in full.
                let diagonal: u64 = (1..=n as u64)
                    .map(|k| crate::chomp::diagram::binomial(2 * k - 2, k - 1).unwrap())
                    .sum();
                assert_eq!(hook.len(), 1 + (ranker.len() - 1 - diagonal) / 2 + diagonal);
                let got = PackedOrds::compute_hook(&hook, &choice).unwrap();
                let mut rows = vec![0u32; n];
                let mut h = vec![0u64; rule.players() + 1];
                for r in 0..ranker.len() {
                    ranker.unrank_into(r, &mut rows);
                    let x = hook.index(&rows).unwrap();
                    assert_eq!(got.get(x), colex.get(r), "{rule} on {n}x{n}: {rows:?}");
                    h[colex.get(r) as usize] += 1;
                }
                let weighted = weighted_histogram(&hook, rule.players() as u8, |x| got.get(x));
                assert_eq!(weighted, h, "{rule} on {n}x{n}: the histogram by weights");
                let table = HookOrds::compute(ranker.clone(), &choice).unwrap();
                assert_eq!(table.histogram(rule.players() as u8), h);
                assert!((0..ranker.len()).all(|r| table.get(r) == colex.get(r)));
            }
        }
    }

    #[test]
    fn an_index_with_child_squares_is_refused() {
        let hook = HookIndex::with_min_child(6, 2).unwrap();
        let choice = Choice::new(&Rule::parse("0,1,2").unwrap());
        assert!(PackedOrds::compute_hook(&hook, &choice).is_err());
    }
}
