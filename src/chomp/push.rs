//! The forward solver of two-player Chomp: each P-position marks its parents N.
//!
//! The scan of [`super::solve::PTable::decide`] asks of every position whether one of its
//! options is P, reading about 17 option bits per position on the 14×14 box. This schedule
//! turns the question round. The table holds *N-marks* while it runs: when a position is
//! reached and no mark is on it, every one of its options has been decided and none of them is
//! P (a P option would have marked it), so it is P; it then marks every position that can move
//! to it. P-positions are rare (0.6 % of the 14×14 box, 0.33 % of 20×20) and an N-position has
//! 1.8 P options on average, so the work follows the P-positions, and most parents come in
//! runs of consecutive ranks, marked a word at a time.
//!
//! # The parents of a position
//! A bite (x, t) cuts every row from x down to at most t. If it leaves q, the rows of q from
//! x down are at most t, and the rows it actually cut now have length exactly t. So the
//! parents of q come from the runs of equal rows of q: for a run of value t on rows s..=e
//! (the rows above longer, the rows below shorter, the empty rows below the diagram a run of
//! value 0), the parents by bites in column t are q with rows s..=e replaced by any
//! non-increasing lengths in [t, U] other than all t, U being the row above (C for the top
//! row). The bite is (s, t) and nothing else: a bite lower in the run would leave row s
//! unchanged at t, and with it the rows below. When the run reaches the last row its last
//! length runs over consecutive ranks (the last row's weight is its length), and for the run
//! of empty rows the parents are the whole rank range of q's first s rows.
//!
//! # Schedule and resuming
//! The blocks and layers are those of [`super::solve::solve_layers`]: a parent lies in the
//! same block at a higher rank, or in a block of larger prefix volume, so a block is complete
//! once the layers before it are done and its own lower ranks are. Inside a block the solver
//! walks the words of its rank range and stops only at unmarked bits. At the end the marks
//! are inverted into the P-bits [`PTable`] keeps. A resumed run starts from P-bits of finished
//! layers: those blocks are inverted into marks and their P-positions mark their parents
//! again (a pass as long as the pushes of the finished layers), then the run goes on.
//!
//! Tests: this file's unit tests.

use super::diagram::Ranker;
use super::solve::{drive_layers, par_blocks, prefix_rows, Layer, PTable, Progress};
use crate::error::Result;
use rayon::prelude::*;
use std::sync::atomic::Ordering::Relaxed;

/// Parents past which one run's fillings are shared out among the threads.
const PARALLEL_FILLINGS: u64 = 1 << 22;

/// The non-increasing fillings of `len` rows with lengths in a range of `span + 1` values:
/// C(len + span, len), saturating.
fn fillings(len: usize, span: u32) -> u64 {
    super::diagram::binomial((len as u64) + span as u64, len as u64).unwrap_or(u64::MAX)
}

/// What the forward solver needs besides the table: for every row s and bound U, how many
/// ways the rows s.. can be filled with lengths at most U (the size of the rank range that a
/// fixed first s rows leave).
struct Pusher<'a> {
    table: &'a PTable,
    rows: usize,
    /// `spans[s * (C + 1) + u]` = C(u + R - s, R - s).
    spans: Vec<u64>,
    /// Runs with more fillings than this share them out ([`PARALLEL_FILLINGS`]).
    parallel_above: u64,
}

impl<'a> Pusher<'a> {
    fn new(table: &'a PTable) -> Pusher<'a> {
        let shape = table.ranker.shape;
        let (r, c) = (shape.rows, shape.cols as usize);
        let mut spans = vec![0u64; (r + 1) * (c + 1)];
        for s in 0..=r {
            for u in 0..=c {
                spans[s * (c + 1) + u] =
                    super::diagram::binomial((u + r - s) as u64, (r - s) as u64)
                        .expect("a span is at most the box's position count");
            }
        }
        Pusher {
            table,
            rows: r,
            spans,
            parallel_above: PARALLEL_FILLINGS,
        }
    }

    fn ranker(&self) -> &Ranker {
        &self.table.ranker
    }

    /// Mark ranks `lo..hi` N.
    fn mark_range(&self, lo: u64, hi: u64) {
        super::marks::mark_range(self.table.raw_words(), lo, hi);
    }

    /// Mark one rank N.
    #[inline]
    fn mark(&self, r: u64) {
        super::marks::mark(self.table.raw_words(), r);
    }

    /// Mark every parent of the position `q` (rank `rank`, all R row lengths).
    fn push_parents(&self, q: &[u32], rank: u64) {
        let r_n = self.rows;
        let cols = self.ranker().shape.cols;
        let mut s = 0;
        while s < r_n {
            let t = q[s];
            let mut e = s;
            while e + 1 < r_n && q[e + 1] == t {
                e += 1;
            }
            let u = if s == 0 { cols } else { q[s - 1] };
            if u > t {
                if t == 0 {
                    // Rows s.. are empty: every filling of them under q[s-1] (s ≥ 1, as q is
                    // not empty) is a parent, the ranks just after q's own.
                    let span = self.spans[s * (cols as usize + 1) + u as usize];
                    self.mark_range(rank + 1, rank + span);
                } else if s < r_n - 1 && fillings(e - s + 1, u - t) > self.parallel_above {
                    // One P-position with billions of parents (the L (C, 1, …, 1) has
                    // C(38, 19) in 20×20) would hold up its layer on one thread: its first
                    // row's lengths go to the pool.
                    (t..=u).into_par_iter().for_each(|a| {
                        let moved = rank + self.ranker().weight(s, a) - self.ranker().weight(s, t);
                        self.fill_from(s, e, t, a, moved);
                    });
                } else {
                    self.fill(s, e, t, u, rank, true);
                }
            }
            s = e + 1;
        }
    }

    /// The fillings of [`Pusher::fill`] whose row `s` has length `a` (`moved` is `base`
    /// moved by that row): the rest of the run below it, or the single mark when row `s` is
    /// the whole run.
    fn fill_from(&self, s: usize, e: usize, t: u32, a: u32, moved: u64) {
        if s == e {
            if a != t {
                self.mark(moved);
            }
        } else {
            self.fill(s + 1, e, t, a, moved, a == t);
        }
    }

    /// Mark `base` moved by every non-increasing filling of rows `r..=e` with lengths in
    /// [t, cap] (each row's weight counted from t), except the filling that is all t when
    /// `all_t` says the rows above in the run are all t.
    fn fill(&self, r: usize, e: usize, t: u32, cap: u32, base: u64, all_t: bool) {
        let rk = self.ranker();
        if r == self.rows - 1 {
            // The last row: its weight is its length, so the fillings are consecutive ranks.
            let first = base + all_t as u64;
            self.mark_range(first, base + (cap - t) as u64 + 1);
            return;
        }
        let w0 = rk.weight(r, t);
        if r + 2 == self.rows && e == r + 1 && self.mark_last_two(r, t, cap, base, all_t) {
            return;
        }
        for a in t..=cap {
            let moved = base + rk.weight(r, a) - w0;
            if r == e {
                if !(all_t && a == t) {
                    self.mark(moved);
                }
            } else {
                self.fill(r + 1, e, t, a, moved, all_t && a == t);
            }
        }
    }

    /// [`Pusher::fill`] of the last two rows (`r` = R-2, lengths b ≥ l in [t, cap]) through a
    /// buffer on the stack: filling (b, l) is `base` + w(r, b) - w(r, t) + l - t, so every b is
    /// a run of consecutive ranks and the runs lie close together (b(b+1)/2 apart). They are
    /// gathered into words here and each word is marked once, instead of one atomic update a
    /// run. False, having marked nothing, when the span is too wide for the buffer.
    fn mark_last_two(&self, r: usize, t: u32, cap: u32, base: u64, all_t: bool) -> bool {
        const WORDS: usize = 32;
        let rk = self.ranker();
        let w0 = rk.weight(r, t);
        let shift = base & 63;
        let span = rk.weight(r, cap) - w0 + (cap - t) as u64 + 1;
        if shift + span > (WORDS * 64) as u64 {
            return false;
        }
        let mut buf = [0u64; WORDS];
        for b in t..=cap {
            let off = shift + rk.weight(r, b) - w0;
            let first = off + (all_t && b == t) as u64;
            let last = off + (b - t) as u64;
            if first <= last {
                set_bits(&mut buf, first, last);
            }
        }
        let words = self.table.raw_words();
        let w = (base >> 6) as usize;
        let used = (shift + span).div_ceil(64) as usize;
        for (i, &bits) in buf[..used].iter().enumerate() {
            if bits != 0 {
                words[w + i].fetch_or(bits, Relaxed);
            }
        }
        true
    }

    /// Walk the block of ranks `base..base + len`: every unmarked rank is P (rank 0, the empty
    /// diagram, is not a position and is marked); its rank goes to `found` (when given) and
    /// it marks its parents.
    fn run_block(&self, base: u64, len: u64, rows: &mut [u32], mut found: Option<&mut Vec<u64>>) {
        let words = self.table.raw_words();
        let end = base + len;
        let mut r = base;
        while let Some(q) = super::marks::next_unmarked(words, r, end) {
            if q == 0 {
                self.mark(0);
            } else {
                self.ranker().unrank_into(q, rows);
                if let Some(f) = found.as_deref_mut() {
                    f.push(q);
                }
                self.push_parents(rows, q);
            }
            r = q + 1;
        }
    }

    /// The first rank and size of block `i` of `layer`.
    fn block_range(&self, layer: &Layer, i: usize) -> (u64, u64) {
        let p = prefix_rows(self.rows);
        let (base, prefix) = layer.block(i, p);
        let cap = if p == 0 {
            self.ranker().shape.cols
        } else {
            prefix[p - 1]
        };
        (base, super::solve::block_len(self.ranker(), p, cap))
    }

    /// Decide every block of `layer` in parallel; returns its P ranks, sorted.
    fn run_layer(&self, layer: &Layer, record: bool) -> Result<Vec<u64>> {
        par_blocks(layer, self.rows, |i, rows, acc| {
            let (base, len) = self.block_range(layer, i);
            self.run_block(base, len, rows, record.then_some(acc));
        })
    }

    /// Turn the P-bits of layers `0..start` into marks and let their P-positions mark their
    /// parents again, so that the run can go on from layer `start`.
    fn restore(&self, start: u64) -> Result<()> {
        let p = prefix_rows(self.rows);
        let layers: Vec<Layer> = (0..start)
            .map(|v| Layer::of_volume(self.ranker(), p, v))
            .collect();
        // All blocks first: a parent's mark must not be inverted by its block's turn.
        for layer in &layers {
            (0..layer.len()).into_par_iter().for_each(|i| {
                let (base, len) = self.block_range(layer, i);
                super::marks::invert_range(self.table.raw_words(), base, base + len);
            });
        }
        for layer in &layers {
            crate::cancel::check()?;
            self.run_layer(layer, false)?;
        }
        Ok(())
    }
}

/// Solve a whole box by prefix layers with the forward schedule, reporting after every layer.
/// Layers before `start_layer` must already be in `table` as P-bits (a resumed run), and the
/// rest of the table clear; `on_layer(v, p_ranks, progress)` is called after each layer with
/// the P ranks it found, and may fail to stop the run. On success `table` holds the P-bits of
/// the whole box; after an error its bits are unspecified.
pub fn solve_layers_forward(
    table: &PTable,
    start_layer: u64,
    on_layer: impl FnMut(u64, &[u64], Progress) -> Result<()>,
) -> Result<()> {
    let pusher = Pusher::new(table);
    if start_layer > 0 {
        // The finished layers mark their parents again first (as long as they took).
        pusher.restore(start_layer)?;
    }
    drive_layers(
        &table.ranker,
        start_layer,
        |layer| pusher.run_layer(layer, true),
        on_layer,
    )?;
    super::marks::into_p_bits(table.raw_words(), 0, table.ranker.len());
    Ok(())
}

/// Set bits `lo..=hi` of a little-endian bit buffer.
fn set_bits(buf: &mut [u64], lo: u64, hi: u64) {
    let (wl, wh) = ((lo >> 6) as usize, (hi >> 6) as usize);
    let low = u64::MAX << (lo & 63);
    let high = u64::MAX >> (63 - (hi & 63));
    if wl == wh {
        buf[wl] |= low & high;
        return;
    }
    buf[wl] |= low;
    buf[wl + 1..wh].iter_mut().for_each(|w| *w = u64::MAX);
    buf[wh] |= high;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::solve::tests::bx;
    use crate::chomp::solve::{solve_by_rank_order, solve_layers_by_scan};
    use crate::chomp::ChompBox;

    #[test]
    fn the_parents_pushed_are_exactly_the_positions_with_that_option() {
        // For every position q of several boxes, the ranks push_parents marks on an empty
        // table are the positions that have q among their options.
        // 2×70 has last-two-row spans wider than mark_last_two's buffer.
        for (r, c) in [(1, 6), (2, 5), (3, 4), (4, 4), (5, 3), (3, 7), (2, 70)] {
            let table = PTable::empty(PTable::ranker_for(bx(r, c)).unwrap()).unwrap();
            let rk = table.ranker.clone();
            let n = rk.len();
            let mut parents = vec![Vec::new(); n as usize];
            let mut rows = vec![0u32; r];
            for rank in 1..n {
                rk.advance(&mut rows);
                rk.for_each_option(&rows, rank, |q| parents[q as usize].push(rank));
            }
            for q in 1..n {
                let mut want = parents[q as usize].clone();
                want.sort_unstable();
                want.dedup();
                rk.unrank_into(q, &mut rows);
                for parallel_above in [PARALLEL_FILLINGS, 0] {
                    let pusher = Pusher {
                        parallel_above,
                        ..Pusher::new(&table)
                    };
                    pusher.raw_clear();
                    pusher.push_parents(&rows, q);
                    let got: Vec<u64> = (0..n).filter(|&x| table.is_p_rank(x)).collect();
                    assert_eq!(got, want, "{r}x{c} parents of {rows:?}, {parallel_above}");
                }
            }
        }
    }

    /// The per-layer P ranks a solver reports.
    type Records = Vec<(u64, Vec<u64>)>;
    /// What a solver calls after each layer.
    type OnLayer<'a> = &'a mut dyn FnMut(u64, &[u64], Progress) -> Result<()>;

    /// The table and the per-layer P ranks of one solver of `solve_layers`' signature.
    fn records(
        shape: ChompBox,
        solver: fn(&PTable, u64, OnLayer) -> Result<()>,
    ) -> (Vec<u64>, Records) {
        let t = PTable::empty(PTable::ranker_for(shape).unwrap()).unwrap();
        let mut layers = Vec::new();
        solver(&t, 0, &mut |v, ranks, _| {
            layers.push((v, ranks.to_vec()));
            Ok(())
        })
        .unwrap();
        (t.words(), layers)
    }

    #[test]
    fn forward_equals_the_scan_and_rank_order() {
        for (r, c) in [
            (1, 1),
            (1, 6),
            (2, 5),
            (3, 7),
            (5, 5),
            (6, 4),
            (7, 7),
            (4, 11),
            (9, 3),
        ] {
            let forward = records(bx(r, c), |t, s, f| solve_layers_forward(t, s, f));
            let scan = records(bx(r, c), |t, s, f| solve_layers_by_scan(t, s, f));
            assert_eq!(forward.0, scan.0, "{r}x{c}");
            assert_eq!(forward.1, scan.1, "{r}x{c}: the P ranks of every layer");
            assert_eq!(forward.0, solve_by_rank_order(bx(r, c)).unwrap().words());
        }
    }

    #[test]
    fn a_resumed_forward_run_ends_with_the_same_table() {
        for (r, c) in [(4, 5), (6, 6), (7, 3)] {
            let full = PTable::empty(PTable::ranker_for(bx(r, c)).unwrap()).unwrap();
            let mut records = Vec::new();
            solve_layers_forward(&full, 0, |v, ranks, _| {
                records.push((v, ranks.to_vec()));
                Ok(())
            })
            .unwrap();
            for stop in [1, 3, records.len() as u64 / 2, records.len() as u64 - 1] {
                let t = PTable::empty(PTable::ranker_for(bx(r, c)).unwrap()).unwrap();
                for (_, ranks) in &records[..stop as usize] {
                    ranks.iter().for_each(|&q| t.set_p_rank(q));
                }
                let mut rest = Vec::new();
                solve_layers_forward(&t, stop, |v, ranks, _| {
                    rest.push((v, ranks.to_vec()));
                    Ok(())
                })
                .unwrap();
                assert_eq!(t.words(), full.words(), "{r}x{c} resumed at layer {stop}");
                assert_eq!(rest[..], records[stop as usize..], "{r}x{c} from {stop}");
            }
        }
    }

    impl Pusher<'_> {
        fn raw_clear(&self) {
            self.table
                .raw_words()
                .iter()
                .for_each(|w| w.store(0, Relaxed));
        }
    }
}
