//! P-rows in O(words): the P-test solved for the columns of one row.
//!
//! Column j of C(m,n) has piles a = j-1 and b = n-j with a + b = n-1 =: S. A row of key v
//! (docs/mathematics.md §1: cell (i,j) is P iff r(i) = c(j) = a ^ b) needs a ^ b = v, and since
//! a + b = (a ^ b) + 2(a & b), also a & b = (S - v)/2 =: A. So the row has P-cells only when
//! S - v is even and non-negative and A & v = 0, and then exactly at a = A + x for every
//! submask x of v (the bits of v split between a and b; b = A + (v - x) ≥ 0 always).
//!
//! The submasks of v, as a bitmap over x, are word by word either zero or one fixed
//! 32-bit pattern (word q of the bitmap is non-zero iff the high bits 32q are a submask of
//! v), and one level up the same holds for blocks of 32 words, so a row is a run of copies of
//! four precomputed 32-word blocks (`p_row_of_key`), however dense the row; `p_row_words`
//! computes the same row word by word and is its reference. The scatter generator ([`super::grid::p_rows_cpu`]) costs one write per P-cell,
//! which is slow on dense bars such as m = 2^k - 1, where a third of all cells are P.
//!
//! Tests: this file's unit tests; benches/binding.rs, benches/kernels.rs.

use super::grid::Window;
use super::ptest::row_key;
use rayon::prelude::*;

/// The offset A of the P-columns of a row of key `v` in a bar of `n` columns
/// (P-columns j = 1 + A + x, x a submask of v), or `None` when the row has no P-cell.
pub fn p_column_base(n: u64, v: u64) -> Option<u64> {
    let s = n - 1;
    if v > s || !(s - v).is_multiple_of(2) {
        return None;
    }
    let a = (s - v) / 2;
    (a & v == 0).then_some(a)
}

/// Word q of the submask bitmap of v: bit 31-t set iff 32q + t is a submask of v
/// (`low` is the pattern of the low five bits; |q| < 2^59 since |x| < 2^64).
#[inline]
fn submask_word(q: i64, v: u64, low: u32) -> u32 {
    let inside = q >= 0 && ((q as u64) << 5) & !v == 0;
    low & (inside as u32).wrapping_neg()
}

/// Fill one packed row (columns `col0 .. col0+width` of C(m,n), `words_per_row(width)`
/// words) with the P-cells of row key `v`, by blocks of 32 words.
///
/// Word q of the submask bitmap is non-zero iff q is a submask of M = v >> 5, and for
/// q = 32B + t that holds iff B is a submask of M >> 5 and t of M & 31. So, aligned on the
/// bitmap's blocks of 32 words, a row is a run of blocks that are each either all zero or one
/// fixed 32-word pattern; with the window's shift, an output block depends only on whether its
/// bitmap block and the next are non-zero. Four patterns, built once per row, then each block
/// is one copy: the row costs about a memory copy of itself, dense or sparse.
/// [`p_row_words`], word by word, is the reference it is tested against.
pub fn p_row_of_key(n: u64, col0: u64, width: u64, v: u64, row: &mut [u32]) {
    let words = row.len();
    let Some(base) = p_column_base(n, v) else {
        row.fill(0);
        return;
    };
    if words == 0 {
        return;
    }
    let low = low_submask_pattern(v);
    let (m5, blocks_mask) = ((v >> 5) & 31, v >> 10);
    // Bitmap word 32B + t for t in 0..=32 of a non-zero block (t = 32: the next block's first
    // word, non-zero iff that block is).
    let in_block = |t: u64| if t & !m5 == 0 { low } else { 0 };
    let x0 = (col0 - 1) as i128 - base as i128;
    // |x0| < 2^64, so q0 = floor(x0 / 32) fits i64, and block indices fit i64.
    let (q0, s) = (x0.div_euclid(32) as i64, x0.rem_euclid(32) as u32);
    let join = |hi: u32, lo: u32| if s == 0 { hi } else { hi << s | lo >> (32 - s) };
    // patterns[this non-zero][next non-zero][t]: output word for bitmap word 32B + t.
    let mut patterns = [[[0u32; 32]; 2]; 2];
    for (this, pair) in patterns.iter_mut().enumerate() {
        for (next, pattern) in pair.iter_mut().enumerate() {
            for (t, w) in pattern.iter_mut().enumerate() {
                let t = t as u64;
                let hi = if this == 1 { in_block(t) } else { 0 };
                let lo = match (t, this, next) {
                    (31, _, 1) => low,
                    (31, _, 0) => 0,
                    (_, 1, _) => in_block(t + 1),
                    _ => 0,
                };
                *w = join(hi, lo);
            }
        }
    }
    let nonzero = |b: i64| (b >= 0 && (b as u64) & !blocks_mask == 0) as usize;
    // Output word k shows bitmap word q0 + k.
    let (first, last) = (q0.div_euclid(32), (q0 + words as i64 - 1).div_euclid(32));
    let mut this = nonzero(first);
    for b in first..=last {
        let next = nonzero(b + 1);
        let q_start = (32 * b).max(q0);
        let q_end = (32 * b + 32).min(q0 + words as i64);
        let (t0, t1) = ((q_start - 32 * b) as usize, (q_end - 32 * b) as usize);
        let k0 = (q_start - q0) as usize;
        let pattern = &patterns[this][next];
        if t1 - t0 == 32 {
            // A whole block: a fixed-size copy, which compiles to a few vector moves.
            let dst: &mut [u32; 32] = (&mut row[k0..k0 + 32]).try_into().expect("32 words");
            *dst = *pattern;
        } else {
            row[k0..k0 + (t1 - t0)].copy_from_slice(&pattern[t0..t1]);
        }
        this = next;
    }
    row[words - 1] &= last_word_mask(width);
}

/// Bits of the last word that lie inside a row of `width` cells.
fn last_word_mask(width: u64) -> u32 {
    match (width % 32) as u32 {
        0 => u32::MAX,
        tail => !(u32::MAX >> tail),
    }
}

/// The pattern of submasks of v's low five bits: bit 31-t set iff t is a submask of v & 31.
fn low_submask_pattern(v: u64) -> u32 {
    (0..32u32)
        .filter(|&t| t as u64 & !v == 0)
        .fold(0u32, |m, t| m | 0x8000_0000 >> t)
}

/// The same row word by word, handing each of the row's `words` words to `put(k, word)`: the
/// reference for [`p_row_of_key`], and the counter's source (it popcounts words as they come).
#[inline]
pub fn p_row_words(
    n: u64,
    col0: u64,
    width: u64,
    v: u64,
    words: usize,
    mut put: impl FnMut(usize, u32),
) {
    let last_mask = last_word_mask(width);
    let Some(base) = p_column_base(n, v) else {
        (0..words).for_each(|k| put(k, 0));
        return;
    };
    let low = low_submask_pattern(v);
    // x of the window's first cell: a - A with a = col0 - 1. Output word k starts at
    // x0 + 32k = 32(q0 + k) + s: the high part of bitmap word q0+k shifted left by s, then
    // the low part of the next one.
    let x0 = (col0 - 1) as i128 - base as i128;
    let (q0, s) = (x0.div_euclid(32) as i64, x0.rem_euclid(32) as u32);
    let mut hi = submask_word(q0, v, low);
    for (k, q) in (0..words).zip(q0..) {
        let lo = submask_word(q + 1, v, low);
        let word = if s == 0 { hi } else { hi << s | lo >> (32 - s) };
        put(
            k,
            if k + 1 == words {
                word & last_mask
            } else {
                word
            },
        );
        hi = lo;
    }
}

/// The P-grid of a window by [`p_row_of_key`], rows in parallel: same word layout as
/// [`super::grid::p_rows_cpu`] and `ptest.wgsl`, O(words) whatever the density.
pub fn p_rows_submask(w: &Window, out: &mut [u32]) {
    let wpr = w.words_per_row();
    assert_eq!(
        out.len(),
        wpr * w.height as usize,
        "output holds the packed window"
    );
    out.par_chunks_mut(wpr).enumerate().for_each(|(r, row)| {
        p_row_of_key(w.n, w.col0, w.width, row_key(w.m, w.row0 + r as u64), row)
    });
}

/// The P-grid of a window as one byte per cell, 1 for a P-cell (row-major, `w.height × w.width`
/// bytes): each row by [`p_row_of_key`] into a per-thread word buffer and spread into bytes by
/// [`super::grid::unpack_row`]; a row without P-cells is one fill. Rows in parallel. This is what
/// a NumPy `bool` array of the window holds, written in place.
pub fn p_cells(w: &Window, out: &mut [u8]) {
    let (wpr, width) = (w.words_per_row(), w.width as usize);
    assert_eq!(
        out.len() as u128,
        w.cells(),
        "output holds one byte per cell"
    );
    out.par_chunks_mut(width).enumerate().for_each_init(
        || vec![0u32; wpr],
        |words, (r, dst)| {
            let v = row_key(w.m, w.row0 + r as u64);
            if p_column_base(w.n, v).is_none() {
                dst.fill(0);
            } else {
                p_row_of_key(w.n, w.col0, w.width, v, words);
                super::grid::unpack_row(words, dst);
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chocolate::grid::{p_rows_cpu, p_rows_naive};

    #[test]
    fn submask_rows_equal_the_p_test() {
        for (m, n, r0, c0, h, wd) in [
            (11, 11, 1, 1, 11, 11),
            (255, 255, 1, 1, 255, 255),
            (300, 77, 1, 1, 300, 77),
            (30001, 4095, 12345, 1000, 37, 70),
            (32767, 32767, 16000, 1, 5, 32767),
            (
                1_000_000_000_039,
                1_000_000_000_039,
                400_000_000_000,
                399_999_999_990,
                9,
                100,
            ),
            (u64::MAX, u64::MAX, u64::MAX - 40, u64::MAX - 99, 41, 100),
            (u64::MAX, 5, 1, 1, 33, 5),
        ] {
            let w = Window::new(m, n, r0, c0, h, wd).unwrap();
            let mut fast = vec![0; w.total_words().unwrap()];
            p_rows_submask(&w, &mut fast);
            assert_eq!(fast, p_rows_naive(&w), "window {w:?}");
            let mut scatter = vec![0; w.total_words().unwrap()];
            p_rows_cpu(&w, &mut scatter);
            assert_eq!(fast, scatter, "window {w:?}");
        }
    }

    #[test]
    fn cell_bytes_equal_the_p_test() {
        for (m, n, r0, c0, h, wd) in [
            (11, 11, 1, 1, 11, 11),
            (4095, 4095, 1, 1, 40, 4095),
            (30001, 777, 29000, 3, 100, 775),
            (777, 1235, 1, 1, 777, 1235),
            (u64::MAX, u64::MAX, u64::MAX - 40, u64::MAX - 99, 41, 100),
            (65535, 33, 1, 1, 70, 33),
        ] {
            let w = Window::new(m, n, r0, c0, h, wd).unwrap();
            let mut cells = vec![7u8; (h * wd) as usize];
            p_cells(&w, &mut cells);
            let mut expect = Vec::with_capacity(cells.len());
            for i in r0..=r0 + (h - 1) {
                for j in c0..=c0 + (wd - 1) {
                    expect.push(crate::chocolate::p_cell(m, n, i, j) as u8);
                }
            }
            assert_eq!(cells, expect, "window {w:?}");
            // The same bytes from the packed words of the other generator.
            let mut words = vec![0; w.total_words().unwrap()];
            p_rows_cpu(&w, &mut words);
            let mut unpacked = vec![7u8; cells.len()];
            crate::chocolate::grid::unpack_rows(&words, wd, &mut unpacked);
            assert_eq!(unpacked, expect, "window {w:?}");
        }
    }

    #[test]
    fn blocked_rows_equal_word_by_word_rows() {
        let mut rng = crate::claim::Xorshift::new(0x9E37_79B9_7F4A_7C15);
        let mut next = || rng.next();
        let mut rows_with_cells = 0;
        let mut check = |n: u64, col0: u64, width: u64, v: u64| {
            let words = width.div_ceil(32) as usize;
            let mut dense = vec![0u32; words];
            p_row_words(n, col0, width, v, words, |k, w| dense[k] = w);
            let mut blocked = vec![0xdead_beefu32; words];
            p_row_of_key(n, col0, width, v, &mut blocked);
            assert_eq!(blocked, dense, "n {n}, v {v}, columns {col0}+{width}");
            rows_with_cells += dense.iter().any(|&w| w != 0) as usize;
        };
        // Every row of a few bars, whole and in windows that start and end mid-word.
        for (n, col0, width) in [
            (4095u64, 1u64, 4095u64),
            (30001, 1, 30001),
            (30001, 777, 1000),
            (65535, 40000, 3),
        ] {
            for v in 0..=n {
                check(n, col0, width, v);
            }
        }
        // Rows of huge bars built to have P-cells: a key v, an offset A disjoint from it,
        // n = v + 2A + 1; windows placed around the P-columns 1 + A + x (x a submask of v) at
        // every shift mod 32 and across block boundaries.
        for _ in 0..20000 {
            let v = next() & next() & ((1 << 30) - 1);
            let a = (next() % (1 << 61)) & !v;
            let n = v + 2 * a + 1;
            let width = (1 + next() % 5000).min(n);
            let centre = 1 + a + (next() & v);
            let col0 = centre
                .saturating_sub(next() % (width + 2048))
                .clamp(1, n - width + 1);
            check(n, col0, width, v);
        }
        assert!(
            rows_with_cells > 10000,
            "{rows_with_cells} rows had P-cells"
        );
    }

    #[test]
    fn every_row_key_has_two_to_the_popcount_columns_or_none() {
        for n in [1u64, 2, 7, 64, 100, 1023] {
            for v in 0..2 * n {
                let w = Window::new(n, n, 1, 1, 1, n).unwrap();
                let mut row = vec![0; w.words_per_row()];
                p_row_of_key(n, 1, n, v, &mut row);
                let cells: u32 = row.iter().map(|x| x.count_ones()).sum();
                let expect = (1..=n).filter(|&j| row_key(n, j) == v).count() as u32;
                assert_eq!(cells, expect, "n {n} key {v}");
                assert!(cells == 0 || cells == 1 << v.count_ones());
            }
        }
    }
}
