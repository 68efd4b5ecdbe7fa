//! Two-heap Nim with a pass [Def 12]: G_P(0,0) = 0 and otherwise
//! `G_P(x,y) = mex({G_P(x',y) : x' < x} ∪ {G_P(x,y') : y' < y} ∪ {x ^ y})`.
//!
//! The table is filled row by row. Each row and each column keeps a bitset of the values
//! already in it and the least value missing from it; G_P(x,y) is the first value at or above
//! the larger of those two that neither bitset holds and that is not x ^ y, found by scanning
//! 64-bit words. Values are at most x + y + 1 (the mex of x + y + 1 numbers), so a table of
//! side N needs values below 2N and is stored in the narrowest unsigned integer that holds
//! 2N - 1.
//!
//! Tests: this file's unit tests; benches/binding.rs, tests/engine/cancel.rs, tests/games/pass.rs.

/// Largest table side accepted (the table alone is 2 GiB of u16 there).
pub const MAX_SIDE: u64 = 32768;

/// The stored values, in the narrowest type that holds every G_P(x,y) with x, y < N.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpValues {
    /// Every value below 256.
    U8(Vec<u8>),
    /// Every value below 65536.
    U16(Vec<u16>),
    /// Larger values.
    U32(Vec<u32>),
}

/// The table G_P(x,y) for 0 ≤ x, y < n, row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpTable {
    n: usize,
    values: GpValues,
}

/// A growable-free bitset of `words` u64 words; bit v of the set is bit v%64 of word v/64.
struct BitRows {
    words_per_set: usize,
    words: Vec<u64>,
    /// Least value not in each set.
    least_missing: Vec<u32>,
}

impl BitRows {
    fn new(sets: usize, bits: usize) -> BitRows {
        let words_per_set = bits.div_ceil(64);
        BitRows {
            words_per_set,
            words: vec![0; sets * words_per_set],
            least_missing: vec![0; sets],
        }
    }

    fn set(&self, s: usize) -> &[u64] {
        &self.words[s * self.words_per_set..(s + 1) * self.words_per_set]
    }

    /// Insert v into set s and keep `least_missing` exact (amortised: it only moves up).
    fn insert(&mut self, s: usize, v: u32) {
        let base = s * self.words_per_set;
        self.words[base + v as usize / 64] |= 1 << (v % 64);
        if self.least_missing[s] == v {
            let words = &self.words[base..base + self.words_per_set];
            self.least_missing[s] = first_zero(words, &[], u32::MAX, v);
        }
    }
}

/// The first value ≥ `from` missing from both bitsets (`b` may be empty, meaning no values)
/// and not equal to `also_excluded`.
#[inline]
fn first_zero(a: &[u64], b: &[u64], also_excluded: u32, from: u32) -> u32 {
    first_zero_by(
        |w| a.get(w).copied().unwrap_or(0) | b.get(w).copied().unwrap_or(0),
        also_excluded,
        from,
    )
}

/// The first value ≥ `from` whose bit is clear in the bitset whose word w is `taken(w)`, and
/// not equal to `also_excluded`: the mex scan, one word at a time.
#[inline]
fn first_zero_by(taken: impl Fn(usize) -> u64, also_excluded: u32, from: u32) -> u32 {
    let mut w = from as usize / 64;
    let mut below = (1u64 << (from % 64)) - 1;
    loop {
        let mut t = taken(w) | below;
        if also_excluded as usize / 64 == w {
            t |= 1 << (also_excluded % 64);
        }
        if t != u64::MAX {
            return (w * 64) as u32 + t.trailing_ones();
        }
        below = 0;
        w += 1;
    }
}

impl GpTable {
    /// Compute G_P on the n×n corner (n ≥ 1, at most [`MAX_SIDE`]).
    pub fn compute(n: u64) -> crate::Result<GpTable> {
        if n == 0 || n > MAX_SIDE {
            return Err(crate::Error::bad_input(
                crate::Input::GpSide,
                n,
                format!("between 1 and {MAX_SIDE}"),
            ));
        }
        let n = n as usize;
        let largest = 2 * n as u64 - 1;
        let values = if largest <= u8::MAX as u64 {
            GpValues::U8(fill(n, |v| v as u8)?)
        } else if largest <= u16::MAX as u64 {
            GpValues::U16(fill(n, |v| v as u16)?)
        } else {
            GpValues::U32(fill(n, |v| v)?)
        };
        Ok(GpTable { n, values })
    }

    /// Side of the table.
    pub fn side(&self) -> usize {
        self.n
    }

    /// G_P(x,y) for x, y < side.
    #[inline]
    pub fn get(&self, x: usize, y: usize) -> u32 {
        let i = x * self.n + y;
        match &self.values {
            GpValues::U8(v) => v[i] as u32,
            GpValues::U16(v) => v[i] as u32,
            GpValues::U32(v) => v[i],
        }
    }

    /// Bits per stored value: 8, 16 or 32.
    pub fn value_bits(&self) -> u32 {
        match &self.values {
            GpValues::U8(_) => 8,
            GpValues::U16(_) => 16,
            GpValues::U32(_) => 32,
        }
    }

    /// Bytes held by the table itself.
    pub fn table_bytes(&self) -> u64 {
        (self.n * self.n) as u64 * self.value_bits() as u64 / 8
    }

    /// Row x as u32 values.
    pub fn row(&self, x: usize) -> impl Iterator<Item = u32> + '_ {
        (0..self.n).map(move |y| self.get(x, y))
    }

    /// The stored values, row-major (value of (x,y) at x·side + y), handed over without a copy.
    pub fn into_values(self) -> GpValues {
        self.values
    }

    /// Largest value in the table.
    pub fn max_value(&self) -> u32 {
        (0..self.n).flat_map(|x| self.row(x)).max().unwrap_or(0)
    }
}

/// One bitset per column, word-interleaved: word w of column y sits at `w * n + y`. The sweep
/// goes along a row, and the columns' least missing values move together, so consecutive
/// cells read consecutive words instead of one page per column.
struct ColumnBits {
    n: usize,
    words: Vec<u64>,
    least_missing: Vec<u32>,
}

impl ColumnBits {
    fn new(n: usize, bits: usize) -> ColumnBits {
        ColumnBits {
            n,
            words: vec![0; bits.div_ceil(64) * n],
            least_missing: vec![0; n],
        }
    }

    #[inline]
    fn word(&self, y: usize, w: usize) -> u64 {
        self.words[w * self.n + y]
    }

    #[inline]
    fn insert(&mut self, y: usize, v: u32) {
        self.words[v as usize / 64 * self.n + y] |= 1 << (v % 64);
        if self.least_missing[y] == v {
            let mut w = v as usize / 64;
            let mut below = (1u64 << (v % 64)) - 1;
            loop {
                let taken = self.word(y, w) | below;
                if taken != u64::MAX {
                    self.least_missing[y] = (w * 64) as u32 + taken.trailing_ones();
                    break;
                }
                below = 0;
                w += 1;
            }
        }
    }
}

/// Fill an n×n table row by row with per-row and per-column bitsets.
fn fill<T: Copy + Default>(n: usize, narrow: impl Fn(u32) -> T) -> crate::Result<Vec<T>> {
    let bits = 2 * n;
    let mut out = vec![T::default(); n * n];
    let mut cols = ColumnBits::new(n, bits);
    let phase = crate::progress::phase("rows", Some(n as u64));
    for x in 0..n {
        crate::cancel::check()?;
        let mut row = BitRows::new(1, bits);
        for y in 0..n {
            let v = if x == 0 && y == 0 {
                0 // Def 12: no pass from the terminal position.
            } else {
                // mex(A ∪ B ∪ {x^y}) is at least max(mex A, mex B): start the scan there.
                let from = row.least_missing[0].max(cols.least_missing[y]);
                let excluded = (x ^ y) as u32;
                first_zero_by(|w| row.words[w] | cols.word(y, w), excluded, from)
            };
            out[x * n + y] = narrow(v);
            row.insert(0, v);
            cols.insert(y, v);
        }
        phase.inc(1);
    }
    Ok(out)
}

/// The reference: Def 12 as a memoised recursion, every mex taken over the whole row and
/// column prefix. O(n^3); for tests on small n.
pub fn gp_naive(n: usize) -> Vec<Vec<u32>> {
    fn go(x: usize, y: usize, memo: &mut Vec<Vec<Option<u32>>>) -> u32 {
        if let Some(v) = memo[x][y] {
            return v;
        }
        let v = if x == 0 && y == 0 {
            0
        } else {
            let mut options: Vec<u32> = (0..x).map(|x2| go(x2, y, memo)).collect();
            options.extend((0..y).map(|y2| go(x, y2, memo)));
            options.push((x ^ y) as u32);
            super::mex::mex_of(options)
        };
        memo[x][y] = Some(v);
        v
    }
    let mut memo = vec![vec![None; n]; n];
    (0..n)
        .map(|x| (0..n).map(|y| go(x, y, &mut memo)).collect())
        .collect()
}

use crate::claim::Claim;

/// Lemma 6: G_P = 0 iff (x,y) = (0,0), (2n,2n-1) or (2n-1,2n).
pub fn lemma6(x: u64, y: u64) -> bool {
    (x == 0 && y == 0)
        || (x >= 2 && x.is_multiple_of(2) && y == x - 1)
        || (x % 2 == 1 && y == x + 1)
}

/// Lemma 7: G_P = 1 iff x + y = 2 or x = y > 2.
pub fn lemma7(x: u64, y: u64) -> bool {
    x + y == 2 || (x == y && x > 2)
}

/// Lemma 8: G_P = 2 iff (x,y) is one of nine small pairs or (x-1)^(y-1) = 3 with x, y ≥ 9.
pub fn lemma8(x: u64, y: u64) -> bool {
    const SMALL: [(u64, u64); 9] = [
        (0, 1),
        (1, 0),
        (2, 2),
        (3, 5),
        (4, 7),
        (5, 3),
        (6, 8),
        (7, 4),
        (8, 6),
    ];
    SMALL.contains(&(x, y)) || (x >= 9 && y >= 9 && (x - 1) ^ (y - 1) == 3)
}

/// (name, statement, the value it characterises, the closed form).
type Lemma = (&'static str, &'static str, u32, fn(u64, u64) -> bool);

/// Check Lemmas 6, 7, 8 and the distinctness of every row and column over the whole table.
pub fn check(t: &GpTable) -> Vec<Claim> {
    let start = std::time::Instant::now();
    let n = t.n;
    let cells = n as u128 * n as u128;
    let range = format!("0 <= x,y < {n}");
    let lemmas: [Lemma; 3] = [
        ("Lemma 6", "G_P(x,y) = 0 iff (x,y) = (0,0), (2n,2n-1) or (2n-1,2n)", 0, lemma6),
        ("Lemma 7", "G_P(x,y) = 1 iff x + y = 2 or x = y > 2", 1, lemma7),
        (
            "Lemma 8",
            "G_P(x,y) = 2 iff (x,y) in {(0,1),(1,0),(2,2),(3,5),(4,7),(5,3),(6,8),(7,4),(8,6)} or (x-1)^(y-1) = 3 with x,y >= 9",
            2,
            lemma8,
        ),
    ];
    let mut first_bad: [Option<String>; 3] = [None, None, None];
    // Distinctness, checked independently of how the table was built.
    let bits = 2 * n;
    let mut col_seen = ColumnBits::new(n, bits);
    let mut row_bad: Option<String> = None;
    let mut col_bad: Option<String> = None;
    for x in 0..n {
        let mut row_seen = BitRows::new(1, bits);
        for y in 0..n {
            let v = t.get(x, y);
            for (k, &(_, _, value, formula)) in lemmas.iter().enumerate() {
                if first_bad[k].is_none() && ((v == value) != formula(x as u64, y as u64)) {
                    first_bad[k] = Some(format!("G_P({x},{y}) = {v}"));
                }
            }
            let (vw, vb) = (v as usize / 64, 1u64 << (v % 64));
            if row_seen.set(0)[vw] & vb != 0 && row_bad.is_none() {
                row_bad = Some(format!("row x = {x} holds {v} twice (again at y = {y})"));
            }
            if col_seen.word(y, vw) & vb != 0 && col_bad.is_none() {
                col_bad = Some(format!("column y = {y} holds {v} twice (again at x = {x})"));
            }
            row_seen.words[vw] |= vb;
            col_seen.words[vw * n + y] |= vb;
        }
    }
    let mut claims: Vec<Claim> = lemmas
        .iter()
        .zip(first_bad)
        .map(|(&(name, statement, _, _), bad)| Claim::theorem(name, statement, &range, cells, bad))
        .collect();
    claims.push(Claim::theorem(
        "Rows distinct",
        "each row of G_P holds distinct values",
        &range,
        cells,
        row_bad,
    ));
    claims.push(Claim::theorem(
        "Columns distinct",
        "each column of G_P holds distinct values",
        &range,
        cells,
        col_bad,
    ));
    // One pass checked every claim: each gets its time.
    claims.into_iter().map(|c| c.took(start)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitset_table_matches_recursive_mex() {
        for n in [1usize, 2, 7, 13, 45, 70] {
            let t = GpTable::compute(n as u64).unwrap();
            let naive = gp_naive(n);
            for (x, row) in naive.iter().enumerate() {
                for (y, &v) in row.iter().enumerate() {
                    assert_eq!(t.get(x, y), v, "G_P({x},{y}) for n = {n}");
                }
            }
        }
    }

    #[test]
    fn narrowest_storage() {
        assert_eq!(GpTable::compute(128).unwrap().value_bits(), 8);
        assert_eq!(GpTable::compute(129).unwrap().value_bits(), 16);
    }

    #[test]
    fn wider_storage_agrees_with_narrow() {
        // 129 needs u16; its 128-corner must equal the u8 table of side 128.
        let (a, b) = (
            GpTable::compute(128).unwrap(),
            GpTable::compute(129).unwrap(),
        );
        for x in 0..128 {
            for y in 0..128 {
                assert_eq!(a.get(x, y), b.get(x, y));
            }
        }
    }

    #[test]
    fn lemmas_hold_on_a_table_not_a_power_of_two() {
        let t = GpTable::compute(301).unwrap();
        for c in check(&t) {
            assert!(c.pass, "{}: {:?}", c.name, c.counterexample);
        }
    }

    #[test]
    fn check_reports_a_broken_table() {
        let mut t = GpTable::compute(20).unwrap();
        if let GpValues::U8(v) = &mut t.values {
            v[3 * 20 + 4] = 0; // G_P(3,4) = 0 by Lemma 6; make (3,5) a second zero in row 3.
            v[3 * 20 + 5] = 0;
        }
        let claims = check(&t);
        assert!(!claims[0].pass);
        assert!(!claims[3].pass);
    }
}
