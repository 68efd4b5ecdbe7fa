//! Chomp positions (docs/mathematics.md §5): Young diagrams, non-increasing row lengths
//! a_1 ≥ a_2 ≥ … with trailing zeros dropped, and the R×C box they live in. The dense colex
//! ranking that numbers them is `index::colex`.
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
        let row = |p| {
            let bad = || format!("'{s}' is not a position: write row lengths like 3,2,2");
            let p = digits(p).ok_or_else(bad)?;
            p.parse()
                .map_err(|_| format!("row length '{p}' is too large"))
        };
        Diagram::new(s.split(',').map(row).collect::<Result<_, _>>()?)
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

    /// The cell a bite from this position to `option` takes: (row, column), 1-based from the
    /// poisoned corner (1,1). Each option is left by exactly one bite: its first row shorter
    /// than ours is the bitten row, and its length there plus one the bitten column. `None`
    /// when `option` is not an option of this position.
    pub fn bitten_cell(&self, option: &Diagram) -> Option<(usize, u32)> {
        let x = (0..self.height()).find(|&x| option.0.get(x).copied().unwrap_or(0) < self.0[x])?;
        let t = option.0.get(x).copied().unwrap_or(0);
        (self.bite(x, t) == *option).then_some((x + 1, t + 1))
    }

    /// Every option of this position, in the order `Ranker::for_each_option` visits them.
    pub fn options(&self) -> Vec<Diagram> {
        let mut out = Vec::with_capacity(self.volume() as usize);
        for_each_move(&self.0, |x, t| out.push(self.bite(x, t)));
        out
    }
}

impl fmt::Display for Diagram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some((first, rest)) = self.0.split_first() else {
            return f.write_str("0");
        };
        write!(f, "{first}")?;
        rest.iter().try_for_each(|a| write!(f, ",{a}"))
    }
}

/// `p` trimmed, when it is a non-empty run of decimal digits.
fn digits(p: &str) -> Option<&str> {
    let p = p.trim();
    (!p.is_empty() && p.bytes().all(|c| c.is_ascii_digit())).then_some(p)
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
    /// The n × n square.
    pub fn square(n: usize) -> ChompBox {
        ChompBox {
            rows: n,
            cols: n as u32,
        }
    }

    /// Parse `RxC` (also `R×C`).
    pub fn parse(s: &str) -> Result<ChompBox, String> {
        let bad = || format!("'{s}' is not a box: write it as ROWSxCOLUMNS, e.g. 13x13");
        let (r, c) = s.trim().split_once(['x', 'X', '×']).ok_or_else(bad)?;
        let num = |p| -> Result<u64, String> {
            let p = digits(p).ok_or_else(bad)?;
            p.parse().map_err(|_| format!("'{s}': side too large"))
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn each_option_names_the_cell_its_bite_takes() {
        // The 7x11 rectangle's winning bite leaves (11,11,11,11,6,6,6): row 5, column 7.
        let r = Diagram::new(vec![11; 7]).unwrap();
        let q = Diagram::parse("11,11,11,11,6,6,6").unwrap();
        assert_eq!(r.bitten_cell(&q), Some((5, 7)));
        assert_eq!(r.bitten_cell(&Diagram::empty()), Some((1, 1)));
        // Against every bite of every position of the 4x4 box, and nothing else is an option.
        let mut rows = vec![0u32; 4];
        while advance_rows(&mut rows, 0, 4) {
            let p = Diagram::new(rows.clone()).unwrap();
            let mut seen = std::collections::HashSet::new();
            for_each_move(p.rows(), |x, t| {
                assert_eq!(p.bitten_cell(&p.bite(x, t)), Some((x + 1, t + 1)), "{p}");
                assert!(
                    seen.insert(p.bite(x, t)),
                    "{p}: two bites leave one position"
                );
            });
            assert_eq!(p.bitten_cell(&p), None);
            let mut bigger = p.rows().to_vec();
            bigger.push(1);
            if let Some(b) = Diagram::new(bigger) {
                assert_eq!(p.bitten_cell(&b), None, "{p}");
            }
        }
    }
}
