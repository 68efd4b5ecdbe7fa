//! Where the parents of a position lie in the colex table: the [`Marker`] of the forward solver
//! (`super::forward`) for a box of every position, decided in the prefix-volume [`Layers`].
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
//! A parent lies in the same block at a higher rank, or in a block of larger prefix volume,
//! so a block is complete once the layers before it are done and its own lower ranks are.
//!
//! Tests: this file's unit tests.

use super::forward::Marker;
use crate::chomp::bits::Window;
use crate::chomp::diagram::binomial;
use crate::chomp::engine::schedule::Layers;
use crate::chomp::index::Ranker;
use rayon::prelude::*;
use std::sync::atomic::Ordering::Relaxed;

/// Fillings past which one fill's first row is shared out among the threads (in both layouts).
pub(super) const PARALLEL_FILLINGS: u64 = 1 << 22;

/// The rank arithmetic of a colex box and where its marks go: all that one fill needs. The
/// colex table is one such box ([`ColexMarker`]); the hook index is made of many (its blocks
/// of hooks a > b, `super::hook_parents`).
pub trait ColexTarget: Sync {
    /// Rows of the box.
    fn rows(&self) -> usize;
    /// What row `j` of length `len` adds to a rank.
    fn weight(&self, j: usize, len: u32) -> u64;
    /// Mark index `x` N (when the run holds it).
    fn mark(&self, x: u64);
    /// Mark indexes `lo..hi` N (those the run holds).
    fn mark_range(&self, lo: u64, hi: u64);
    /// Whether the run holds only part of the table, so that fills may miss it.
    fn prunes(&self) -> bool;
    /// Whether indexes `lo..hi` all lie outside the part the run holds.
    fn outside(&self, lo: u64, hi: u64) -> bool;
    /// Fillings past which a fill's first row is shared out among the threads.
    fn parallel_above(&self) -> u64;
    /// The fillings of rows `f..` to the last with values at most `cap`: C(cap + R - f, R - f).
    fn span(&self, f: usize, cap: u32) -> u64 {
        let free = (self.rows() - f) as u64;
        binomial(cap as u64 + free, free).unwrap_or(u64::MAX)
    }
    /// The fill of the last two rows (`f` = R-2) at once, when the target can: false, having
    /// marked nothing, otherwise.
    fn mark_last_two(&self, _f: usize, _lo: u32, _cap: u32, _base: u64, _skip: bool) -> bool {
        false
    }
}

/// Mark `base` moved by every non-increasing filling of rows `f..=e` of the box of `to` with
/// values in [lo, cap] (`base` has those rows at lo; each row's weight counted from lo),
/// leaving out the filling all lo when `skip`. The one fill of the forward solver: the parents
/// of a run of equal rows, in the colex table and in every colex block of the hook index.
pub fn fill<T: ColexTarget>(to: &T, f: usize, e: usize, lo: u32, cap: u32, base: u64, skip: bool) {
    fill_at::<T, true>(to, f, e, lo, cap, base, skip)
}

/// [`fill`] at its first row (`TOP`), where a fill with very many fillings is shared out, or
/// below it, where the count of fillings is not computed again (it costs a binomial a call).
fn fill_at<T: ColexTarget, const TOP: bool>(
    to: &T,
    f: usize,
    e: usize,
    lo: u32,
    cap: u32,
    base: u64,
    skip: bool,
) {
    let r = to.rows();
    if to.prunes() {
        // The fillings lie between `base` (all lo) and all rows at cap.
        let top: u64 = (f..=e).map(|j| to.weight(j, cap) - to.weight(j, lo)).sum();
        if to.outside(base, base + top + 1) {
            return;
        }
    }
    if e + 1 == r {
        if lo == 0 {
            // Every filling of the rows to the end under cap: a contiguous range.
            to.mark_range(base + skip as u64, base + to.span(f, cap));
            return;
        }
        if f == e {
            // The last row's weight is its length: consecutive ranks.
            to.mark_range(base + skip as u64, base + (cap - lo) as u64 + 1);
            return;
        }
        if f + 2 == r && to.mark_last_two(f, lo, cap, base, skip) {
            return;
        }
    }
    let w0 = to.weight(f, lo);
    let body = |v: u32| {
        let moved = base + to.weight(f, v) - w0;
        let sk = skip && v == lo;
        if f == e {
            if !sk {
                to.mark(moved);
            }
        } else {
            fill_at::<T, false>(to, f + 1, e, lo, v, moved, sk);
        }
    };
    let len = (e - f + 1) as u64;
    // One P-position with billions of parents (the L (C, 1, …, 1) has C(38, 19) in 20×20)
    // would hold up its step on one thread: its first row's lengths go to the pool.
    if TOP
        && f < e
        && binomial(len + (cap - lo) as u64, len).unwrap_or(u64::MAX) > to.parallel_above()
    {
        (lo..=cap).into_par_iter().for_each(body);
    } else {
        (lo..=cap).for_each(body);
    }
}

/// The colex layout's marker: the words of the window the run holds. A parent outside the window is left for the
/// window that holds it (which replays this window's P-positions). `W` says whether the
/// window is part of the table: the whole table's run compiles without the window's checks.
pub struct ColexMarker<'a, const W: bool> {
    ranker: &'a Ranker,
    layers: Layers<'a>,
    win: Window<'a>,
    rows: usize,
    /// `spans[s * (C + 1) + u]` = C(u + R - s, R - s).
    spans: Vec<u64>,
    /// Runs with more fillings than this share them out ([`PARALLEL_FILLINGS`]).
    parallel_above: u64,
}

impl<'a, const W: bool> ColexMarker<'a, W> {
    /// The marker of `win` of the table of `ranker`'s box.
    pub fn new(ranker: &'a Ranker, win: Window<'a>) -> ColexMarker<'a, W> {
        debug_assert_eq!(W, !(win.lo == 0 && win.hi >= ranker.len()));
        let (r, c) = (ranker.shape.rows, ranker.shape.cols as usize);
        let mut spans = vec![0u64; (r + 1) * (c + 1)];
        for s in 0..=r {
            for u in 0..=c {
                spans[s * (c + 1) + u] = binomial((u + r - s) as u64, (r - s) as u64)
                    .expect("a span is at most the box's position count");
            }
        }
        ColexMarker {
            ranker,
            layers: Layers { ranker },
            win,
            rows: ranker.shape.rows,
            spans,
            parallel_above: PARALLEL_FILLINGS,
        }
    }

    /// Mark every parent of the position `q` (rank `rank`, all R row lengths).
    fn push_parents(&self, q: &[u32], rank: u64) {
        let r_n = self.rows;
        let cols = self.ranker.shape.cols;
        let mut s = 0;
        while s < r_n {
            let t = q[s];
            let mut e = s;
            while e + 1 < r_n && q[e + 1] == t {
                e += 1;
            }
            let u = if s == 0 { cols } else { q[s - 1] };
            if u > t {
                // Rows s..=e refilled from [t, u], not all t; a run of empty rows (t = 0)
                // reaches the last row and is the rank range just after q's own.
                fill(self, s, e, t, u, rank, true);
            }
            s = e + 1;
        }
    }
}

impl<const W: bool> ColexTarget for ColexMarker<'_, W> {
    fn rows(&self) -> usize {
        self.rows
    }

    #[inline]
    fn weight(&self, j: usize, len: u32) -> u64 {
        self.ranker.weight(j, len)
    }

    #[inline]
    fn mark_range(&self, lo: u64, hi: u64) {
        self.win.mark_range::<W>(lo, hi)
    }

    #[inline]
    fn mark(&self, r: u64) {
        self.win.mark::<W>(r)
    }

    fn prunes(&self) -> bool {
        W
    }

    fn outside(&self, lo: u64, hi: u64) -> bool {
        self.win.misses::<W>(lo, hi)
    }

    fn parallel_above(&self) -> u64 {
        self.parallel_above
    }

    #[inline]
    fn span(&self, f: usize, cap: u32) -> u64 {
        self.spans[f * (self.ranker.shape.cols as usize + 1) + cap as usize]
    }

    /// [`fill`] of the last two rows (`r` = R-2, lengths b ≥ l in [t, cap]) through a
    /// buffer on the stack: filling (b, l) is `base` + w(r, b) - w(r, t) + l - t, so every b is
    /// a run of consecutive ranks and the runs lie close together (b(b+1)/2 apart). They are
    /// gathered into words here and each word is marked once, instead of one atomic update a
    /// run. False, having marked nothing, when the span is too wide for the buffer.
    fn mark_last_two(&self, r: usize, t: u32, cap: u32, base: u64, all_t: bool) -> bool {
        const WORDS: usize = 32;
        let rk = self.ranker;
        let w0 = rk.weight(r, t);
        let shift = base & 63;
        let span = rk.weight(r, cap) - w0 + (cap - t) as u64 + 1;
        if shift + span > (WORDS * 64) as u64
            || W && (base < self.win.lo || base + span > self.win.hi)
        {
            // Too wide for the buffer, or reaching past the window (whose outer bits must
            // stay clear): marked a run at a time.
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
        let words = self.win.words;
        let w = ((base - self.win.base()) >> 6) as usize;
        let used = (shift + span).div_ceil(64) as usize;
        for (i, &bits) in buf[..used].iter().enumerate() {
            if bits != 0 {
                words[w + i].fetch_or(bits, Relaxed);
            }
        }
        true
    }
}

impl<'a, const W: bool> Marker for ColexMarker<'a, W> {
    type Steps = Layers<'a>;
    type Scratch = Vec<u32>;

    fn steps(&self) -> &Layers<'a> {
        &self.layers
    }

    fn window(&self) -> Window<'_> {
        self.win
    }

    fn scratch(&self) -> Vec<u32> {
        vec![0; self.rows]
    }

    fn push(&self, q: u64, rows: &mut Vec<u32>) {
        self.ranker.unrank_into(q, rows);
        self.push_parents(rows, q);
    }
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
    use crate::chomp::bits;
    use crate::chomp::diagram::ChompBox;

    #[test]
    fn the_parents_pushed_are_exactly_the_positions_with_that_option() {
        // For every position q of several boxes, the ranks push_parents marks on an empty
        // table are the positions that have q among their options.
        // 2×70 has last-two-row spans wider than mark_last_two's buffer.
        for (r, c) in [(1, 6), (2, 5), (3, 4), (4, 4), (5, 3), (3, 7), (2, 70)] {
            let rk = Ranker::new(ChompBox { rows: r, cols: c }).unwrap();
            let n = rk.len();
            let words = bits::zeroed_words(n.div_ceil(64) as usize);
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
                for parallel_above in [PARALLEL_FILLINGS, 0] {
                    let marker = ColexMarker::<false> {
                        parallel_above,
                        ..ColexMarker::new(&rk, Window::whole(rk.len(), &words))
                    };
                    words.iter().for_each(|w| w.store(0, Relaxed));
                    marker.push(q, &mut rows);
                    let got: Vec<u64> = (0..n).filter(|&x| bits::get(&words, x)).collect();
                    assert_eq!(got, want, "{r}x{c} parents of {rows:?}, {parallel_above}");
                }
            }
        }
    }
}
