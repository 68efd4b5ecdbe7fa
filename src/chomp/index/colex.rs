//! The colex rank (docs/mathematics.md §5): the dense numbering of the positions of an R×C
//! box that every colex table, the multiplayer ordinal tables and the Grundy tables use.
//!
//! A position inside an R-row × C-column box has a boundary that is a lattice path of R
//! up-steps and C right-steps; reading the up-steps bottom to top gives R strictly increasing
//! numbers `b_i = a_{R+1-i} + i - 1` in `0 .. R+C`, and the combinatorial number system
//! `rank = Σ_i C(b_i, i)` numbers the C(R+C, R) positions densely.
//!
//! Two properties carry the whole engine:
//! - rank is monotone in every row length, so every option Q of P (Q ⊂ P) has a smaller rank:
//!   rank order is an order in which options come first;
//! - rank does not depend on C, so the table of an R×C box is a prefix of the table of every
//!   wider R-row box.
//!
//! Tests: this file's unit tests.

use crate::chomp::diagram::{advance_rows, binomial, ChompBox, Diagram};

/// Dense ranking of the positions of a box: `weight(j, len) = C(len + R-1-j, R-j)` is what row j
/// (0-based) of length `len` adds to the rank.
#[derive(Debug, Clone)]
pub struct Ranker {
    /// The box ranked.
    pub shape: ChompBox,
    stride: usize,
    weight: Vec<u64>,
    total: u64,
}

/// Most positions a ranked table may have (each costs at least one byte).
pub const MAX_RANKED_POSITIONS: u64 = 1 << 34;
/// Most entries of the rank weight table (8 bytes each).
pub const MAX_RANK_WEIGHTS: u64 = 1 << 28;

impl Ranker {
    /// The ranker of a box, or [`crate::Error::TooLarge`] when it has too many positions.
    pub fn new(shape: ChompBox) -> crate::Result<Ranker> {
        Ranker::with_limit(shape, MAX_RANKED_POSITIONS, "more than 2^34 positions")
    }

    /// The ranker of a box of at most `max_positions` positions (`limit` says that bound in
    /// words for the error), for tables of less than a byte per position.
    pub fn with_limit(shape: ChompBox, max_positions: u64, limit: &str) -> crate::Result<Ranker> {
        let total = shape
            .positions()
            .filter(|&t| t <= max_positions)
            .ok_or_else(|| {
                crate::Error::too_large(
                    format!("the {shape} box"),
                    format!("{limit}; choose a smaller box"),
                )
            })?;
        let r = shape.rows;
        let stride = shape.cols as usize + 1;
        if (r as u64).saturating_mul(stride as u64) > MAX_RANK_WEIGHTS {
            return Err(crate::Error::too_large(
                format!("the {shape} box"),
                "too long and thin to rank (rows × (columns+1) > 2^28)",
            ));
        }
        let mut weight = vec![0u64; r * stride];
        for j in 0..r {
            let i = (r - j) as u64;
            for len in 0..stride {
                weight[j * stride + len] = binomial(len as u64 + i - 1, i)
                    .expect("weights are at most the position count");
            }
        }
        Ok(Ranker {
            shape,
            stride,
            weight,
            total,
        })
    }

    /// Number of positions in the box.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// Never: a box holds at least the empty position.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The weight table, row-major: `weights()[row * stride() + len]` is [`Ranker::weight`].
    #[inline]
    pub fn weights(&self) -> &[u64] {
        &self.weight
    }

    /// The row stride of [`Ranker::weights`]: columns + 1.
    #[inline]
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// The rank weight of row `row` having length `len`.
    #[inline]
    pub fn weight(&self, row: usize, len: u32) -> u64 {
        self.weight[row * self.stride + len as usize]
    }

    /// The rank of row lengths `rows` (at most R of them, each ≤ C, non-increasing).
    pub fn rank_rows(&self, rows: &[u32]) -> u64 {
        rows.iter()
            .enumerate()
            .map(|(j, &a)| self.weight(j, a))
            .sum()
    }

    /// The rank of a diagram, or `None` if it does not fit in the box.
    pub fn rank(&self, p: &Diagram) -> Option<u64> {
        self.shape.contains(p).then(|| self.rank_rows(p.rows()))
    }

    /// Fill `rows` (length R) with the position of rank `r`: greedy colex unranking, row 0 first.
    pub fn unrank_into(&self, mut r: u64, rows: &mut [u32]) {
        debug_assert!(r < self.total && rows.len() == self.shape.rows);
        let mut hi = self.shape.cols;
        for (j, row) in rows.iter_mut().enumerate() {
            // Largest len ≤ hi with weight(j, len) ≤ r; weight(j, ·) is increasing.
            let w = &self.weight[j * self.stride..j * self.stride + hi as usize + 1];
            let len = w.partition_point(|&x| x <= r) - 1;
            r -= w[len];
            *row = len as u32;
            hi = len as u32;
        }
    }

    /// The position of rank `r`.
    pub fn unrank(&self, r: u64) -> Diagram {
        let mut rows = vec![0u32; self.shape.rows];
        self.unrank_into(r, &mut rows);
        Diagram::new(rows).expect("unranked rows are non-increasing")
    }

    /// Step `rows` to the position of the next rank (colex successor): lengthen the deepest row
    /// that can grow and empty the rows below it. Returns false after the last position.
    #[inline]
    pub fn advance(&self, rows: &mut [u32]) -> bool {
        advance_rows(rows, 0, self.shape.cols)
    }

    /// Visit the rank of every option of the position `rows` (of rank `rank`), in the order of
    /// [`for_each_move`], with O(1) work each: for a fixed new length t the rank drops by
    /// `Σ (weight(x, a_x) - weight(x, t))` over the rows the bite cuts, accumulated from the
    /// deepest cut row up.
    ///
    /// [`for_each_move`]: crate::chomp::diagram::for_each_move
    #[inline]
    pub fn for_each_option(&self, rows: &[u32], rank: u64, mut f: impl FnMut(u64)) {
        self.for_each_option_until(rows, rank, |q| {
            f(q);
            true
        })
    }

    /// As [`Ranker::for_each_option`], but stops after the current column of bites once `f`
    /// has returned false.
    #[inline]
    pub fn for_each_option_until(&self, rows: &[u32], rank: u64, mut f: impl FnMut(u64) -> bool) {
        let first = rows.first().copied().unwrap_or(0);
        if first == 0 {
            return;
        }
        let mut last = rows.iter().rposition(|&a| a > 0).unwrap_or(0);
        for t in 0..first {
            while rows[last] <= t {
                last -= 1;
            }
            let mut delta = 0u64;
            let mut go_on = true;
            for x in (0..=last).rev() {
                let base = x * self.stride;
                delta += self.weight[base + rows[x] as usize] - self.weight[base + t as usize];
                go_on &= f(rank - delta);
            }
            if !go_on {
                return;
            }
        }
    }
}

/// How many leading rows make a block's prefix in an R-row box: ⌊R/2⌋ (0 for one row, so the
/// whole box is one block).
pub fn prefix_rows(rows: usize) -> usize {
    rows / 2
}

/// Visit the colex ranks `base..base + len`, a range of one block of [`Layers`] (or any run of
/// ranks inside one): `f(rows, rank)` for every position in rank order, `rows` holding all R
/// row lengths.
///
/// [`Layers`]: crate::chomp::engine::schedule::Layers
#[inline]
pub fn for_each_in_range(
    ranker: &Ranker,
    base: u64,
    len: u64,
    rows: &mut [u32],
    mut f: impl FnMut(&[u32], u64),
) {
    if len == 0 {
        return;
    }
    ranker.unrank_into(base, rows);
    let p = prefix_rows(ranker.shape.rows);
    let end = base + len;
    let mut rank = base;
    loop {
        f(rows, rank);
        rank += 1;
        if rank == end || !advance_rows(rows, p, ranker.shape.cols) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_is_a_bijection_in_successor_order() {
        for (r, c) in [(1, 5), (2, 7), (3, 4), (4, 3), (5, 6)] {
            let rk = Ranker::new(ChompBox { rows: r, cols: c }).unwrap();
            let mut rows = vec![0u32; r];
            let mut n = 0u64;
            loop {
                assert_eq!(rk.rank_rows(&rows), n, "{rows:?}");
                let mut back = vec![0; r];
                rk.unrank_into(n, &mut back);
                assert_eq!(back, rows);
                n += 1;
                let before = rows.clone();
                if !rk.advance(&mut rows) {
                    break;
                }
                assert!(before < rows, "rank order is lexicographic order of rows");
            }
            assert_eq!(n, rk.len());
            assert_eq!(n, binomial((r as u64) + c as u64, r as u64).unwrap());
        }
    }

    #[test]
    fn option_ranks_match_explicit_bites() {
        let rk = Ranker::new(ChompBox { rows: 4, cols: 5 }).unwrap();
        for r in 0..rk.len() {
            let p = rk.unrank(r);
            let mut from_ranks = Vec::new();
            let mut rows = vec![0; 4];
            rk.unrank_into(r, &mut rows);
            rk.for_each_option(&rows, r, |q| from_ranks.push(q));
            let explicit: Vec<u64> = p.options().iter().map(|q| rk.rank(q).unwrap()).collect();
            assert_eq!(from_ranks, explicit, "{p}");
            assert_eq!(explicit.len() as u64, p.volume(), "|Mov P| = |P| for {p}");
            assert!(
                explicit.iter().all(|&q| q < r),
                "options come first in rank order"
            );
            assert!(explicit.contains(&0) || p.is_empty());
        }
    }
}
