//! Bit-packed P-grids of windows of C(m,n) on the CPU.
//!
//! Word layout (shared with `shaders/ptest.wgsl`): each row of the window is
//! `words_per_row(width)` u32 words; bit 31 of word 0 is the window's leftmost cell, and the
//! padding bits past the last column are zero. A word's big-endian bytes are therefore a
//! 1-bit PNG row.
//!
//! Tests: this file's unit tests; benches/, tests/, tests/engine/.

use super::ptest::{col_key, p_cell, row_key};
use crate::{Error, Result};
use rayon::prelude::*;

/// A rectangular window of C(m,n): rows `row0 .. row0+height`, columns
/// `col0 .. col0+width`, 1-based, all in u64 so a window deep inside a bar with
/// m = 10^12 is addressable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Rows of the bar.
    pub m: u64,
    /// Columns of the bar.
    pub n: u64,
    /// First row of the window, 1-based.
    pub row0: u64,
    /// First column of the window, 1-based.
    pub col0: u64,
    /// Rows in the window.
    pub height: u64,
    /// Columns in the window.
    pub width: u64,
}

/// The part of a bar a window asks for, before the bar is known: first row and column
/// (1-based), height and width, as `--window ROW,COL,HEIGHT,WIDTH` gives them. Parsed from
/// that text by [`std::str::FromStr`]; [`Window::of_bar`] places it in a bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowRect {
    /// First row, 1-based.
    pub row0: u64,
    /// First column, 1-based.
    pub col0: u64,
    /// Rows.
    pub height: u64,
    /// Columns.
    pub width: u64,
}

impl std::str::FromStr for WindowRect {
    type Err = crate::Error;

    /// `ROW,COL,HEIGHT,WIDTH`: four positive integers (underscores allowed as separators),
    /// nothing around them: one rule with the server's `window`, so `' 1,1,1,1'` is refused.
    fn from_str(s: &str) -> Result<WindowRect> {
        let positive = |p: &str| -> Option<u64> {
            let digits: String = p.chars().filter(|&c| c != '_').collect();
            if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            digits.parse().ok().filter(|&v| v > 0)
        };
        let parts: Option<Vec<u64>> = s.split(',').map(positive).collect();
        match parts.as_deref() {
            Some(&[row0, col0, height, width]) => Ok(WindowRect {
                row0,
                col0,
                height,
                width,
            }),
            _ => Err(crate::Error::bad_input(
                crate::Input::Window,
                format!("'{s}'"),
                "ROW,COL,HEIGHT,WIDTH, four positive integers",
            )),
        }
    }
}

impl Window {
    /// The whole bar C(m,n).
    pub fn full(m: u64, n: u64) -> Result<Window> {
        Window::new(m, n, 1, 1, m, n)
    }

    /// The window `rect` asks for of C(m,n), validated: non-empty and inside the bar.
    pub fn of_bar(m: u64, n: u64, rect: WindowRect) -> Result<Window> {
        Window::new(m, n, rect.row0, rect.col0, rect.height, rect.width)
    }

    /// A window, validated: non-empty and inside the bar.
    pub fn new(m: u64, n: u64, row0: u64, col0: u64, height: u64, width: u64) -> Result<Window> {
        if m == 0 || n == 0 {
            return Err(Error::bad_argument(
                "the bar",
                format!("{m}×{n}"),
                "at least 1×1",
            ));
        }
        if height == 0 || width == 0 {
            return Err(Error::bad_argument(
                "the window",
                format!("{height}×{width}"),
                "at least 1×1",
            ));
        }
        let fits = |start: u64, len: u64, size: u64| {
            start >= 1 && start.checked_add(len - 1).is_some_and(|end| end <= size)
        };
        if !fits(row0, height, m) || !fits(col0, width, n) {
            return Err(Error::bad_argument(
                "the window",
                format!("rows {row0}..+{height}, columns {col0}..+{width}, which reach outside"),
                format!("inside C({m},{n})"),
            ));
        }
        Ok(Window {
            m,
            n,
            row0,
            col0,
            height,
            width,
        })
    }

    /// Number of cells, exact.
    pub fn cells(&self) -> u128 {
        self.height as u128 * self.width as u128
    }

    /// The same window restricted to `rows` (offsets relative to `row0`).
    pub fn rows(&self, start: u64, count: u64) -> Window {
        debug_assert!(start + count <= self.height);
        Window {
            row0: self.row0 + start,
            height: count,
            ..*self
        }
    }

    /// The same window restricted to columns `start .. start+count` (offsets from `col0`).
    pub fn cols(&self, start: u64, count: u64) -> Window {
        debug_assert!(start + count <= self.width);
        Window {
            col0: self.col0 + start,
            width: count,
            ..*self
        }
    }

    /// u32 words in one packed row of this window.
    pub fn words_per_row(&self) -> usize {
        words_per_row(self.width)
    }

    /// u32 words for the whole packed window, or an error if that cannot be addressed here.
    pub fn total_words(&self) -> Result<usize> {
        let words = (self.words_per_row() as u128) * self.height as u128;
        usize::try_from(words)
            .ok()
            .filter(|w| (*w as u128) * 4 <= isize::MAX as u128)
            .ok_or_else(|| {
                Error::too_large(
                    format!("a {}×{} window", self.height, self.width),
                    "more words than this machine can address",
                )
            })
    }
}

/// u32 words needed for `width` cells.
pub fn words_per_row(width: u64) -> usize {
    usize::try_from(width.div_ceil(32)).expect("row width fits in memory")
}

/// Whether cell (i,j) (0-based) of a packed grid `width` cells wide is set.
pub fn p_bit(words: &[u32], width: u64, i: u64, j: u64) -> bool {
    words[i as usize * words_per_row(width) + (j / 32) as usize] >> (31 - j % 32) & 1 == 1
}

/// The first cell (row, column), 0-based in reading order, where two packed grids `width`
/// cells wide differ; `None` when they agree on every word both have.
pub fn first_difference(width: u64, a: &[u32], b: &[u32]) -> Option<(u64, u64)> {
    let wpr = words_per_row(width);
    let k = a.iter().zip(b).position(|(x, y)| x != y)?;
    let bit = (a[k] ^ b[k]).leading_zeros() as u64;
    Some(((k / wpr) as u64, (k % wpr) as u64 * 32 + bit))
}

/// One packed row (the word layout above) as one byte per cell, 1 for a P-cell and 0 for an
/// N-cell: `out.len()` cells from the row's first cell on (`words` must hold at least that many
/// bits). This is the layout of a NumPy `bool` array, so a P-grid can be unpacked straight into
/// one. Each byte of a word is spread into eight cells by one table lookup.
pub fn unpack_row(words: &[u32], out: &mut [u8]) {
    debug_assert!(words.len() * 32 >= out.len());
    let spread = |byte: u8| SPREAD_BYTE[byte as usize].to_le_bytes();
    let last = words.get(out.len() / 32).copied();
    let mut cells = out.chunks_exact_mut(32);
    for (dst, &word) in (&mut cells).zip(words) {
        for (d, byte) in dst.chunks_exact_mut(8).zip(word.to_be_bytes()) {
            d.copy_from_slice(&spread(byte));
        }
    }
    let tail = cells.into_remainder();
    if let (Some(word), false) = (last, tail.is_empty()) {
        for (d, byte) in tail.chunks_mut(8).zip(word.to_be_bytes()) {
            d.copy_from_slice(&spread(byte)[..d.len()]);
        }
    }
}

/// `SPREAD_BYTE[b]`: the eight bits of b, most significant first, as the eight little-endian
/// bytes of a u64, each 0 or 1.
const SPREAD_BYTE: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut t = 0;
        while t < 8 {
            table[b] |= (((b >> (7 - t)) & 1) as u64) << (8 * t);
            t += 1;
        }
        b += 1;
    }
    table
};

/// A packed grid of rows of `words_per_row(width)` words as one byte per cell (1 = P), rows in
/// parallel: `out` holds `rows × width` bytes.
pub fn unpack_rows(words: &[u32], width: u64, out: &mut [u8]) {
    let (wpr, width) = (words_per_row(width), width as usize);
    if width == 0 {
        return;
    }
    debug_assert_eq!(words.len() / wpr, out.len() / width);
    out.par_chunks_mut(width)
        .zip(words.par_chunks(wpr))
        .for_each(|(dst, src)| unpack_row(src, dst));
}

/// The naive reference: test every cell with the four-pile P-test. Slow and obviously right;
/// it exists to check the fast generators.
pub fn p_rows_naive(w: &Window) -> Vec<u32> {
    let wpr = w.words_per_row();
    let mut out = vec![0u32; wpr * w.height as usize];
    for r in 0..w.height {
        for c in 0..w.width {
            if p_cell(w.m, w.n, w.row0 + r, w.col0 + c) {
                out[r as usize * wpr + (c / 32) as usize] |= 1 << (31 - (c % 32));
            }
        }
    }
    out
}

/// Column keys of a window sorted by key, so that the P-columns of a row with key r are one
/// contiguous run found by binary search (docs/mathematics.md §1: cell (i,j) is P iff
/// r(i) == c(j)).
pub struct ColumnIndex {
    /// (c(j), offset of j from col0), sorted.
    keyed: Vec<(u64, u32)>,
}

impl ColumnIndex {
    /// The sorted column keys of `w`.
    pub fn new(w: &Window) -> ColumnIndex {
        assert!(
            w.width <= u32::MAX as u64,
            "window width must fit in u32 offsets"
        );
        let mut keyed: Vec<(u64, u32)> = (0..w.width)
            .map(|c| (col_key(w.n, w.col0 + c), c as u32))
            .collect();
        keyed.sort_unstable();
        ColumnIndex { keyed }
    }

    /// Offsets (from col0) of the columns whose key equals `key`, ascending.
    pub fn columns_with_key(&self, key: u64) -> impl Iterator<Item = u32> + '_ {
        let lo = self.keyed.partition_point(|&(k, _)| k < key);
        self.keyed[lo..]
            .iter()
            .take_while(move |&&(k, _)| k == key)
            .map(|&(_, c)| c)
    }

    /// Scatter row i's P-cells into a zeroed packed row.
    pub fn scatter_row(&self, m: u64, i: u64, row: &mut [u32]) {
        row.fill(0);
        for c in self.columns_with_key(row_key(m, i)) {
            row[(c / 32) as usize] |= 1 << (31 - (c % 32));
        }
    }
}

/// The fast CPU generator, twin of `ptest.wgsl`: fills `out` (which must hold
/// `w.height * w.words_per_row()` words) by scattering each row's P-columns into a zeroed
/// row, rows in parallel.
pub fn p_rows_cpu(w: &Window, out: &mut [u32]) {
    let index = ColumnIndex::new(w);
    p_rows_cpu_with(&index, w, out);
}

/// As [`p_rows_cpu`], reusing a column index built for a window with the same columns.
pub fn p_rows_cpu_with(index: &ColumnIndex, w: &Window, out: &mut [u32]) {
    let wpr = w.words_per_row();
    assert_eq!(
        out.len(),
        wpr * w.height as usize,
        "output holds the packed window"
    );
    out.par_chunks_mut(wpr)
        .enumerate()
        .for_each(|(r, row)| index.scatter_row(w.m, w.row0 + r as u64, row));
}

/// Count the P-cells of a window by generating it row by row with the submask generator
/// ([`super::rows::p_row_words`]) and popcounting each word; no grid is kept.
pub fn count_cpu(w: &Window) -> u128 {
    let wpr = w.words_per_row();
    (0..w.height)
        .into_par_iter()
        .map(|r| {
            let v = row_key(w.m, w.row0 + r);
            if super::rows::p_column_base(w.n, v).is_none() {
                return 0; // the generator writes an all-zero row
            }
            let mut ones = 0u64;
            super::rows::p_row_words(w.n, w.col0, w.width, v, wpr, |_, word| {
                ones += word.count_ones() as u64
            });
            ones as u128
        })
        .sum()
}

/// The same count by the scatter generator, kept as a second, independent generate-and-count.
pub fn count_cpu_scatter(w: &Window) -> u128 {
    let index = ColumnIndex::new(w);
    let wpr = w.words_per_row();
    (0..w.height)
        .into_par_iter()
        .map_init(
            || vec![0u32; wpr],
            |row, r| {
                index.scatter_row(w.m, w.row0 + r, row);
                row.iter().map(|x| x.count_ones() as u64).sum::<u64>()
            },
        )
        .map(|c| c as u128)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_equals_naive_on_odd_windows() {
        for (m, n, r0, c0, h, wd) in [
            (11, 11, 1, 1, 11, 11),
            (30001, 4095, 12345, 1000, 37, 70),
            (
                1_000_000_000_039,
                1_000_000_000_039,
                400_000_000_000,
                399_999_999_990,
                9,
                100,
            ),
            (65535, 3, 1, 1, 65, 3),
        ] {
            let w = Window::new(m, n, r0, c0, h, wd).unwrap();
            let mut fast = vec![0; w.total_words().unwrap()];
            p_rows_cpu(&w, &mut fast);
            assert_eq!(fast, p_rows_naive(&w), "window {w:?}");
            let naive_count: u128 = fast.iter().map(|x| x.count_ones() as u128).sum();
            assert_eq!(count_cpu(&w), naive_count);
            assert_eq!(count_cpu_scatter(&w), naive_count);
        }
    }

    #[test]
    fn window_validation() {
        assert!(Window::new(0, 5, 1, 1, 1, 1).is_err());
        assert!(Window::new(5, 5, 5, 1, 2, 1).is_err());
        assert!(Window::new(5, 5, 0, 1, 1, 1).is_err());
        assert!(Window::new(u64::MAX, u64::MAX, u64::MAX, 1, 1, 1).is_ok());
        assert!(Window::new(u64::MAX, u64::MAX, u64::MAX, 1, 2, 1).is_err());
    }
}
