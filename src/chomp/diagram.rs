//! Chomp positions (docs/mathematics.md §5): Young diagrams, the R×C box they live in, and the
//! dense colex ranking that indexes every table in this module.
//!
//! A position is a non-increasing tuple of row lengths a_1 ≥ a_2 ≥ … ≥ 0 with trailing zeros
//! dropped. Inside an R-row × C-column box its boundary is a lattice path of R up-steps and C
//! right-steps; reading the up-steps bottom to top gives R strictly increasing numbers
//! `b_i = a_{R+1-i} + i - 1` in `0 .. R+C`, and the combinatorial number system
//! `rank = Σ_i C(b_i, i)` numbers the C(R+C, R) positions densely.
//!
//! Two properties carry the whole engine:
//! - rank is monotone in every row length, so every option Q of P (Q ⊂ P) has a smaller rank:
//!   rank order is an order in which options come first;
//! - rank does not depend on C, so the table of an R×C box is a prefix of the table of every
//!   wider R-row box.
//!
//! Tests: this file's unit tests.

use std::fmt;

/// A Young diagram: row lengths, non-increasing, no trailing zeros. The empty diagram is (0).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Diagram(Vec<u32>);

impl Diagram {
    /// From row lengths; `None` unless they are non-increasing. Trailing zeros are dropped.
    pub fn new(mut rows: Vec<u32>) -> Option<Diagram> {
        if rows.windows(2).any(|w| w[0] < w[1]) {
            return None;
        }
        while rows.last() == Some(&0) {
            rows.pop();
        }
        Some(Diagram(rows))
    }

    /// The empty position (0).
    pub fn empty() -> Diagram {
        Diagram(Vec::new())
    }

    /// Row lengths, first row first, no trailing zeros.
    pub fn rows(&self) -> &[u32] {
        &self.0
    }

    /// Number of non-empty rows.
    pub fn height(&self) -> usize {
        self.0.len()
    }

    /// Length of the first row (0 for the empty position).
    pub fn width(&self) -> u32 {
        self.0.first().copied().unwrap_or(0)
    }

    /// |P|: the number of cells, which is also the number of moves (docs/mathematics.md §5).
    pub fn volume(&self) -> u64 {
        self.0.iter().map(|&a| a as u64).sum()
    }

    /// Whether this is the empty position (0).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Parse `a,b,c` (also `0` or an empty string for the empty position).
    pub fn parse(s: &str) -> Result<Diagram, String> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(Diagram::empty());
        }
        let mut rows = Vec::new();
        for part in s.split(',') {
            let p = part.trim();
            if p.is_empty() || !p.chars().all(|c| c.is_ascii_digit()) {
                return Err(format!(
                    "'{s}' is not a position: write row lengths like 3,2,2"
                ));
            }
            rows.push(
                p.parse::<u32>()
                    .map_err(|_| format!("row length '{p}' is too large"))?,
            );
        }
        Diagram::new(rows)
            .ok_or_else(|| format!("'{s}' is not a position: row lengths must not increase"))
    }

    /// The move that bites cell (row `x`, column `t+1`), 0-based row, 0 ≤ t < a_x: rows x, x+1, …
    /// are cut to length ≤ t (docs/mathematics.md §5: the paper's i ≤ x read as i < x).
    pub fn bite(&self, x: usize, t: u32) -> Diagram {
        let mut rows = self.0.clone();
        for r in rows.iter_mut().skip(x) {
            *r = (*r).min(t);
        }
        Diagram::new(rows).expect("a bite keeps rows non-increasing")
    }

    /// Every option of this position, in the order [`Ranker::for_each_option`] visits them.
    pub fn options(&self) -> Vec<Diagram> {
        let mut out = Vec::with_capacity(self.volume() as usize);
        for_each_move(&self.0, |x, t| out.push(self.bite(x, t)));
        out
    }
}

impl fmt::Display for Diagram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("0");
        }
        for (i, a) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{a}")?;
        }
        Ok(())
    }
}

/// Visit every move (x, t) of the position with row lengths `rows` (0-based row x, new length
/// t < a_x), without allocating: for each t ascending, the rows that the bite cuts, from the
/// deepest up. There are exactly |P| of them.
pub fn for_each_move(rows: &[u32], mut f: impl FnMut(usize, u32)) {
    let first = rows.first().copied().unwrap_or(0);
    let mut last = rows.iter().rposition(|&a| a > 0).unwrap_or(0);
    for t in 0..first {
        while rows[last] <= t {
            last -= 1;
        }
        for x in (0..=last).rev() {
            f(x, t);
        }
    }
}

/// Step the rows from `first` on to the colex successor that keeps `rows[..first]` (the
/// positions of `cols` columns): lengthen the deepest of those rows that can grow and empty
/// the rows below it. False after the last one. With `first` = 0 this walks a whole box in
/// rank order; with `first` = p, the block of one prefix of p rows.
#[inline]
pub fn advance_rows(rows: &mut [u32], first: usize, cols: u32) -> bool {
    for j in (first..rows.len()).rev() {
        let cap = if j == 0 { cols } else { rows[j - 1] };
        if rows[j] < cap {
            rows[j] += 1;
            rows[j + 1..].iter_mut().for_each(|r| *r = 0);
            return true;
        }
    }
    false
}

/// An R-row × C-column box of positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChompBox {
    /// Most rows R.
    pub rows: usize,
    /// Most columns C.
    pub cols: u32,
}

impl ChompBox {
    /// Parse `RxC` (also `R×C`).
    pub fn parse(s: &str) -> Result<ChompBox, String> {
        let t = s.trim();
        let (r, c) = t
            .split_once(['x', 'X', '×'])
            .ok_or_else(|| format!("'{s}' is not a box: write it as ROWSxCOLUMNS, e.g. 13x13"))?;
        let num = |p: &str| -> Result<u64, String> {
            let p = p.trim();
            if p.is_empty() || !p.chars().all(|c| c.is_ascii_digit()) {
                return Err(format!(
                    "'{s}' is not a box: write it as ROWSxCOLUMNS, e.g. 13x13"
                ));
            }
            p.parse::<u64>()
                .map_err(|_| format!("'{s}': side too large"))
        };
        let (r, c) = (num(r)?, num(c)?);
        if r == 0 || c == 0 {
            return Err(format!(
                "'{s}': a box needs at least one row and one column"
            ));
        }
        if r > 4096 || c > u32::MAX as u64 / 2 {
            return Err(format!("'{s}': at most 4096 rows and 2^31-1 columns"));
        }
        Ok(ChompBox {
            rows: r as usize,
            cols: c as u32,
        })
    }

    /// The smallest box holding `p` (at least 1×1).
    pub fn of(p: &Diagram) -> ChompBox {
        ChompBox {
            rows: p.height().max(1),
            cols: p.width().max(1),
        }
    }

    /// Whether `p` fits in the box.
    pub fn contains(&self, p: &Diagram) -> bool {
        p.height() <= self.rows && p.width() <= self.cols
    }

    /// Number of positions, C(R+C, R), exact; `None` past u64.
    pub fn positions(&self) -> Option<u64> {
        binomial(self.rows as u64 + self.cols as u64, self.rows as u64)
    }
}

/// A box serialises as its text, "RxC".
impl serde::Serialize for ChompBox {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl fmt::Display for ChompBox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

/// C(n, k) exactly, `None` if it passes u64.
pub fn binomial(n: u64, k: u64) -> Option<u64> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        // acc · (n-i) / (i+1) stays an integer at every step (it is C(n, i+1)).
        acc = acc.checked_mul((n - i) as u128)? / (i + 1) as u128;
        if acc > u64::MAX as u128 {
            return None;
        }
    }
    Some(acc as u64)
}

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
    /// deepest cut row up. `f` returns false to stop early (checked once per t).
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

    #[test]
    fn bites_follow_the_fixed_definition() {
        // (5,3,3) → (5,3,2) → (1,1,1) → (1) → (0), the paper's example chain.
        let p = Diagram::parse("5,3,3").unwrap();
        assert!(p.options().contains(&Diagram::parse("5,3,2").unwrap()));
        let q = Diagram::parse("5,3,2").unwrap();
        assert!(q.options().contains(&Diagram::parse("1,1,1").unwrap()));
        // Rows above the bitten row keep their length (i < x): biting row 2 at column 2.
        assert_eq!(p.bite(1, 1).to_string(), "5,1,1");
        assert_eq!(Diagram::parse("1,1,1").unwrap().options().len(), 3);
        assert!(Diagram::parse("1,2").is_err());
        assert_eq!(Diagram::parse("3,0,0").unwrap().to_string(), "3");
    }
}
