//! P-rows in O(words): the P-test solved for the columns of one row.
//!
//! Column j of C(m,n) has piles a = j-1 and b = n-j with a + b = n-1 =: S. A row of key v
//! (SPEC §1: cell (i,j) is P iff r(i) = c(j) = a ^ b) needs a ^ b = v, and since
//! a + b = (a ^ b) + 2(a & b), also a & b = (S - v)/2 =: A. So the row has P-cells only when
//! S - v is even and non-negative and A & v = 0, and then exactly at a = A + x for every
//! submask x of v (the bits of v split between a and b; b = A + (v - x) ≥ 0 always).
//!
//! The submasks of v, as a bitmap over x, are word by word either zero or one fixed
//! 32-bit pattern (word q of the bitmap is non-zero iff the high bits 32q are a submask of
//! v), so a row is two table-free word reads and a shift per output word, however dense the
//! row. The scatter generator ([`super::grid::p_rows_cpu`]) costs one write per P-cell,
//! which is slow on dense bars such as m = 2^k - 1, where a third of all cells are P.

use super::grid::Window;
use super::ptest::row_key;
use rayon::prelude::*;

/// The offset A of the P-columns of a row of key `v` in a bar of `n` columns
/// (P-columns j = 1 + A + x, x a submask of v), or `None` when the row has no P-cell.
pub fn p_column_base(n: u64, v: u64) -> Option<u64> {
    let s = n - 1;
    if v > s || (s - v) % 2 != 0 {
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
/// words) with the P-cells of row key `v`.
pub fn p_row_of_key(n: u64, col0: u64, width: u64, v: u64, row: &mut [u32]) {
    p_row_words(n, col0, width, v, row.len(), |k, word| row[k] = word);
}

/// As [`p_row_of_key`], handing each of the row's `words` words to `put(k, word)` instead of
/// storing it (so a caller can write PNG bytes directly).
#[inline]
pub fn p_row_words(
    n: u64,
    col0: u64,
    width: u64,
    v: u64,
    words: usize,
    mut put: impl FnMut(usize, u32),
) {
    let tail = (width % 32) as u32;
    let last_mask = if tail == 0 {
        u32::MAX
    } else {
        !(u32::MAX >> tail)
    };
    let Some(base) = p_column_base(n, v) else {
        (0..words).for_each(|k| put(k, 0));
        return;
    };
    let low = (0..32u32)
        .filter(|&t| t as u64 & !v == 0)
        .fold(0u32, |m, t| m | 0x8000_0000 >> t);
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
