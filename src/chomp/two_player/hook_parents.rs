//! Where the parents of a position lie in the hook index of a square (`index::hook`): the
//! [`Marker`] of the forward solver (`super::forward`), within a window of the table.
//!
//! A stored position reached without a mark is P and marks every stored parent of itself and
//! of its transpose (a parent of λᵀ is the transpose of a parent of λ, so between them they
//! mark the stored one of every pair). The parents of one run of equal rows are a *fill*
//! (those rows refilled non-increasingly from a range), and a fill splits by the hooks it
//! reaches: in a colex block it is the colex fill of `super::colex_parents` (consecutive ranks
//! in the last row, a whole rank range when the rows to the end start from 0), in a child
//! square it is again a fill, one level down.
//!
//! Why a window may start anywhere: every option of a stored position has a smaller index (a
//! smaller hook sum, or the same hook and an interior that is an option, smaller in colex rank
//! or, in a child square, by the same argument one level down), so the index order is a
//! topological order, and the schedule restricted to the window, after the P-positions below
//! it have marked their parents, decides each position after all its options.
//!
//! Tests: this file's unit tests; tests/games/blocks.rs and tests/games/chomp/two_player.rs
//! through the tables it solves.

use super::colex_parents::{fill, ColexTarget, PARALLEL_FILLINGS};
use super::forward::Marker;
use crate::chomp::bits::Window;
use crate::chomp::engine::schedule::Schedule;
use crate::chomp::index::hook::{transpose, Kind, Rows, MAX_SIDE};
use crate::chomp::index::HookIndex;

impl Schedule for HookIndex {
    fn steps(&self) -> u64 {
        HookIndex::steps(self)
    }

    fn ranges(&self, step: u64, out: &mut Vec<(u64, u64)>) {
        self.step_ranges(step, out)
    }
}

/// The forward solver's marks in the hook index, kept within one window: a parent outside it
/// is left for the window that holds it (which replays this window's P-positions). `W` says
/// whether the window is part of the table: the whole table's run compiles without the
/// window's checks.
pub struct HookMarker<'a, const W: bool> {
    index: &'a HookIndex,
    win: Window<'a>,
    parallel_above: u64,
}

impl<'a, const W: bool> HookMarker<'a, W> {
    /// The marker of `win` of `index`'s table.
    pub fn new(index: &'a HookIndex, win: Window<'a>) -> HookMarker<'a, W> {
        debug_assert_eq!(W, !(win.lo == 0 && win.hi >= index.len()));
        HookMarker {
            index,
            win,
            parallel_above: PARALLEL_FILLINGS,
        }
    }

    /// Mark the position `y` of the m-square at `off` when it is stored.
    fn mark_one(&self, m: usize, off: u64, y: &Rows) {
        if let Some(i) = self.index.index_in(m, &y[..m]) {
            self.win.mark::<W>(off + i);
        }
    }

    /// Mark every stored parent of the position `x` of the whole square.
    fn push_parents(&self, x: &Rows) {
        let n = self.index.n;
        let mut s = 0;
        while s < n {
            let t = x[s];
            let mut e = s;
            while e + 1 < n && x[e + 1] == t {
                e += 1;
            }
            let u = if s == 0 { n as u32 } else { x[s - 1] };
            if u > t {
                self.fill(n, 0, *x, s, e, t, u, true);
            }
            s = e + 1;
        }
    }

    /// Mark the stored positions among `x` (of the m-square at `off`) with rows s..=e refilled
    /// non-increasingly from [lo, hi], leaving out the filling all lo when `skip`. The rows
    /// above s are at least hi (hi ≤ m when s = 0), the rows below e at most lo.
    #[allow(clippy::too_many_arguments)]
    fn fill(&self, m: usize, off: u64, x: Rows, s: usize, e: usize, lo: u32, hi: u32, skip: bool) {
        if s == 0 {
            // The first row sets the hook's a.
            for a in lo..=hi {
                let mut y = x;
                y[0] = a;
                let sk = skip && a == lo;
                if e == 0 {
                    if !sk {
                        self.mark_one(m, off, &y);
                    }
                } else {
                    self.fill(m, off, y, 1, e, lo, a, sk);
                }
            }
            return;
        }
        if lo == 0 {
            // The rows below are empty: the number of rows filled sets the hook's b.
            let mut y = x;
            y[s..=e].iter_mut().for_each(|r| *r = 0);
            if !skip {
                self.mark_one(m, off, &y);
            }
            if hi == 0 {
                return;
            }
            for last in s..=e {
                self.fill_rows(m, off, y, s, last, 1, hi, false);
            }
            return;
        }
        self.fill_rows(m, off, x, s, e, lo, hi, skip);
    }

    /// [`HookMarker::fill`] with s ≥ 1 and lo ≥ 1: the hook is fixed, so the fill lies in one
    /// block.
    #[allow(clippy::too_many_arguments)]
    fn fill_rows(
        &self,
        m: usize,
        off: u64,
        mut x: Rows,
        s: usize,
        e: usize,
        lo: u32,
        hi: u32,
        skip: bool,
    ) {
        x[s..=e].iter_mut().for_each(|r| *r = lo);
        let a = x[0] as usize;
        let b = x[..m].iter().take_while(|&&v| v > 0).count();
        if a < b {
            return;
        }
        let sq = &self.index.squares[m];
        let blk = sq.blocks[sq.at[a * (m + 1) + b]];
        if self.win.misses::<W>(off + blk.off, off + blk.off + blk.len) {
            return;
        }
        let inner = if a > b { b - 1 } else { a - 1 };
        let mut mu = [0u32; MAX_SIDE + 1];
        for i in 0..inner {
            mu[i] = x[i + 1] - 1;
        }
        match blk.kind {
            Kind::Colex { r, c: _ } => {
                let base = off + blk.off + self.index.colex_rank(r, &mu);
                let block = HookColex { marker: self, r };
                fill(&block, s - 1, e - 1, lo - 1, hi - 1, base, skip);
            }
            Kind::Child { m: mc } => {
                self.fill(mc, off + blk.off, mu, s - 1, e - 1, lo - 1, hi - 1, skip);
            }
            Kind::Empty => unreachable!("a ≥ 1"),
        }
    }

    /// The parents of the position of index `q` and of its transpose.
    fn push_both(&self, q: u64) {
        let x = self.index.unrank(q);
        self.push_parents(&x);
        let t = transpose(&x, self.index.n);
        if t != x {
            self.push_parents(&t);
        }
    }
}

/// A colex block of the hook index (the interiors of hooks a > b, a box of r rows) as the
/// target of the one colex fill: its weights are those of r rows, its marks the marker's.
struct HookColex<'m, 'a, const W: bool> {
    marker: &'m HookMarker<'a, W>,
    r: usize,
}

impl<const W: bool> ColexTarget for HookColex<'_, '_, W> {
    fn rows(&self) -> usize {
        self.r
    }

    #[inline]
    fn weight(&self, j: usize, len: u32) -> u64 {
        self.marker.index.weight(self.r, j, len)
    }

    #[inline]
    fn mark(&self, x: u64) {
        self.marker.win.mark::<W>(x)
    }

    #[inline]
    fn mark_range(&self, lo: u64, hi: u64) {
        self.marker.win.mark_range::<W>(lo, hi)
    }

    fn prunes(&self) -> bool {
        W
    }

    fn outside(&self, lo: u64, hi: u64) -> bool {
        self.marker.win.misses::<W>(lo, hi)
    }

    fn parallel_above(&self) -> u64 {
        self.marker.parallel_above
    }
}

impl<'a, const W: bool> Marker for HookMarker<'a, W> {
    type Steps = HookIndex;
    type Scratch = ();

    fn steps(&self) -> &HookIndex {
        self.index
    }

    fn window(&self) -> Window<'_> {
        self.win
    }

    fn scratch(&self) {}

    fn push(&self, q: u64, _: &mut ()) {
        self.push_both(q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chomp::bits;
    use crate::chomp::diagram::Diagram;
    use crate::chomp::index::hook::tests::all_positions;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn the_stored_parents_pushed_are_those_of_the_position_and_its_transpose() {
        for n in 1..=7 {
            let all = all_positions(n);
            let mut parents: std::collections::HashMap<Vec<u32>, Vec<Rows>> = Default::default();
            for x in &all {
                let d = Diagram::new(x[..n].to_vec()).unwrap();
                for o in d.options() {
                    parents.entry(o.rows().to_vec()).or_default().push(*x);
                }
            }
            for min_child in [0, 1, 2, 100] {
                let ix = HookIndex::with_min_child(n, min_child).unwrap();
                let words = bits::zeroed_words(ix.len().div_ceil(64) as usize);
                for q in &all[1..] {
                    let dq = Diagram::new(q[..n].to_vec()).unwrap();
                    let mut want = vec![false; ix.len() as usize];
                    for x in parents.get(dq.rows()).into_iter().flatten() {
                        if let Some(i) = ix.index_in(n, &x[..n]) {
                            want[i as usize] = true;
                        }
                    }
                    for parallel_above in [PARALLEL_FILLINGS, 0] {
                        let mut p = HookMarker::<false>::new(&ix, Window::whole(ix.len(), &words));
                        p.parallel_above = parallel_above;
                        words.iter().for_each(|w| w.store(0, Relaxed));
                        p.push_parents(q);
                        let got: Vec<bool> = (0..ix.len()).map(|i| bits::get(&words, i)).collect();
                        assert_eq!(got, want, "{n}/{min_child}: parents of {dq}");
                    }
                }
            }
        }
    }
}
