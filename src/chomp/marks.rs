//! The N-marks of the forward solvers ([`super::push`], [`super::sym`]): one bit per index in
//! a table of atomic words, set when a position is known to be N, while the run goes on.
//!
//! Tests: the forward solvers' tests in src/chomp/push.rs and src/chomp/sym.rs, which use it.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Mark index `r`.
#[inline]
pub(super) fn mark(words: &[AtomicU64], r: u64) {
    words[(r >> 6) as usize].fetch_or(1 << (r & 63), Relaxed);
}

/// Mark indexes `lo..hi`, a word at a time where whole words are covered (every bit of such a
/// word is in the range, so storing all ones loses no other thread's mark).
pub(super) fn mark_range(words: &[AtomicU64], lo: u64, hi: u64) {
    if lo >= hi {
        return;
    }
    let (wl, wh) = ((lo >> 6) as usize, ((hi - 1) >> 6) as usize);
    let low_mask = u64::MAX << (lo & 63);
    let high_mask = u64::MAX >> (63 - ((hi - 1) & 63));
    if wl == wh {
        words[wl].fetch_or(low_mask & high_mask, Relaxed);
        return;
    }
    words[wl].fetch_or(low_mask, Relaxed);
    for w in &words[wl + 1..wh] {
        w.store(u64::MAX, Relaxed);
    }
    words[wh].fetch_or(high_mask, Relaxed);
}

/// Invert the bits of indexes `lo..hi` (the P-bits of finished work into marks).
pub(super) fn invert_range(words: &[AtomicU64], lo: u64, hi: u64) {
    let mut r = lo;
    while r < hi {
        let wi = (r >> 6) as usize;
        let top = (hi - ((wi as u64) << 6)).min(64);
        let mask = (u64::MAX << (r & 63)) & (u64::MAX >> (64 - top));
        words[wi].fetch_xor(mask, Relaxed);
        r = (wi as u64 + 1) << 6;
    }
}

/// The first unmarked index in `from..end`, skipping whole marked words.
#[inline]
pub(super) fn next_unmarked(words: &[AtomicU64], from: u64, end: u64) -> Option<u64> {
    let mut r = from;
    while r < end {
        let wi = (r >> 6) as usize;
        let lo = r & 63;
        let hi = (end - ((wi as u64) << 6)).min(64);
        let mask = (u64::MAX << lo) & (u64::MAX >> (64 - hi));
        let free = !words[wi].load(Relaxed) & mask;
        if free != 0 {
            return Some(((wi as u64) << 6) + free.trailing_zeros() as u64);
        }
        r = (wi as u64 + 1) << 6;
    }
    None
}

/// Marks into P-bits at the end of a run: every index in `from..to` inverted, the bits
/// outside clear.
pub(super) fn into_p_bits(words: &[AtomicU64], from: u64, to: u64) {
    words.par_iter().enumerate().for_each(|(i, w)| {
        let first = (i as u64) << 6;
        let keep_to = if first + 64 <= to {
            u64::MAX
        } else if first >= to {
            0
        } else {
            u64::MAX >> (64 - (to - first))
        };
        let keep_from = if from <= first {
            u64::MAX
        } else if from >= first + 64 {
            0
        } else {
            u64::MAX << (from - first)
        };
        w.store(!w.load(Relaxed) & keep_to & keep_from, Relaxed);
    });
}
