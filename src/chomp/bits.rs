//! Atomic bit operations on a one-bit table's words: read, set, count, and the forward
//! solver's N-marks (`two_player::forward`: set while a run goes on, inverted into P-bits at
//! its end). A [`Window`] is the part of a table a run holds in memory.
//!
//! Tests: this file's unit tests; the forward solvers' tests in src/chomp/two_player/.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// `n` zero words for a table, backed by transparent huge pages where the kernel offers them
/// on request (`madvise` mode): a table of gigabytes read at random through 4 KiB pages spends
/// much of its time in page walks.
pub fn zeroed_words(n: usize) -> Vec<AtomicU64> {
    let mut words: Vec<AtomicU64> = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = words.as_ptr() as usize;
        let end = start + n * 8;
        let (lo, hi) = (start.next_multiple_of(HUGE), end & !(HUGE - 1));
        if hi > lo {
            // SAFETY: [lo, hi) lies inside the allocation just made and not yet touched; the
            // advice changes only how its pages are backed, never their contents.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    words.resize_with(n, || AtomicU64::new(0));
    words
}

/// Whether bit `r` is set.
#[inline]
pub fn get(words: &[AtomicU64], r: u64) -> bool {
    (words[(r >> 6) as usize].load(Relaxed) >> (r & 63)) & 1 == 1
}

/// Whether bit `r` of plain (saved or copied) words is set.
#[inline]
pub fn get_plain(words: &[u64], r: u64) -> bool {
    (words[(r >> 6) as usize] >> (r & 63)) & 1 == 1
}

/// The set bits of all `words`.
pub fn count(words: &[AtomicU64]) -> u64 {
    words
        .par_iter()
        .map(|w| w.load(Relaxed).count_ones() as u64)
        .sum()
}

/// The set bits of indexes `lo..hi`, bit r read from word r / 64 of `word`.
pub fn count_range(word: impl Fn(usize) -> u64, lo: u64, hi: u64) -> u64 {
    masks(lo, hi)
        .map(|(w, m)| (word(w) & m).count_ones() as u64)
        .sum()
}

/// Mark index `r`.
#[inline]
pub fn mark(words: &[AtomicU64], r: u64) {
    words[(r >> 6) as usize].fetch_or(1 << (r & 63), Relaxed);
}

/// The bits of the word whose bit 0 is index `first` that stand for indexes in `lo..hi`.
#[inline]
fn mask(first: u64, lo: u64, hi: u64) -> u64 {
    let below = |x: u64| match x.saturating_sub(first) {
        64.. => u64::MAX,
        d => (1 << d) - 1,
    };
    below(hi) & !below(lo)
}

/// The words that hold indexes `lo..hi` (none when it is empty), with the mask of each.
#[inline]
fn masks(lo: u64, hi: u64) -> impl Iterator<Item = (usize, u64)> {
    let words = match lo < hi {
        true => lo >> 6..((hi - 1) >> 6) + 1,
        false => 0..0,
    };
    words.map(move |w| (w as usize, mask(w << 6, lo, hi)))
}

/// Mark indexes `lo..hi`, a word at a time where whole words are covered (every bit of such a
/// word is in the range, so storing all ones loses no other thread's mark).
pub fn mark_range(words: &[AtomicU64], lo: u64, hi: u64) {
    for (w, m) in masks(lo, hi) {
        match m {
            u64::MAX => words[w].store(m, Relaxed),
            _ => _ = words[w].fetch_or(m, Relaxed),
        }
    }
}

/// Invert the bits of indexes `lo..hi` (the P-bits of finished work into marks).
pub fn invert_range(words: &[AtomicU64], lo: u64, hi: u64) {
    masks(lo, hi).for_each(|(w, m)| _ = words[w].fetch_xor(m, Relaxed));
}

/// The first unmarked index in `from..end`, skipping whole marked words.
#[inline]
pub fn next_unmarked(words: &[AtomicU64], from: u64, end: u64) -> Option<u64> {
    masks(from, end).find_map(|(w, m)| {
        let free = !words[w].load(Relaxed) & m;
        (free != 0).then(|| ((w as u64) << 6) + free.trailing_zeros() as u64)
    })
}

/// Marks into P-bits at the end of a run: every index in `from..to` inverted, the bits
/// outside clear.
pub fn into_p_bits(words: &[AtomicU64], from: u64, to: u64) {
    words.par_iter().enumerate().for_each(|(i, w)| {
        w.store(!w.load(Relaxed) & mask((i as u64) << 6, from, to), Relaxed);
    });
}

/// The part of a table a run holds in memory: indexes `lo..hi` of its bit layout, bit
/// `r - base` of `words` standing for index `r`, `base` being `lo` rounded down to a multiple
/// of 64 (the bits of a first or last word outside the window stay clear). A whole table is
/// the window `0..len`; a box larger than memory is solved one window after another
/// (`two_player::blocks`).
#[derive(Debug, Clone, Copy)]
pub struct Window<'a> {
    /// First index held.
    pub lo: u64,
    /// One past the last index held.
    pub hi: u64,
    /// The window's bits.
    pub words: &'a [AtomicU64],
}

impl<'a> Window<'a> {
    /// The whole table of `bits` bits in `words`.
    pub fn whole(bits: u64, words: &'a [AtomicU64]) -> Window<'a> {
        Window {
            lo: 0,
            hi: bits,
            words,
        }
    }

    /// The index of bit 0 of the first word: `lo` rounded down to a multiple of 64.
    pub fn base(&self) -> u64 {
        self.lo & !63
    }

    /// Words a window `lo..hi` takes.
    pub fn words_for(lo: u64, hi: u64) -> u64 {
        (hi - (lo & !63)).div_ceil(64)
    }

    /// Mark index `r` N when the window holds it. `PART` says whether the window may be part
    /// of the table: a whole table's run compiles without the checks.
    #[inline]
    pub fn mark<const PART: bool>(&self, r: u64) {
        if !PART {
            mark(self.words, r);
        } else if r >= self.lo && r < self.hi {
            mark(self.words, r - self.base());
        }
    }

    /// Mark the indexes of `lo..hi` the window holds N ([`Window::mark`]'s `PART`).
    #[inline]
    pub fn mark_range<const PART: bool>(&self, lo: u64, hi: u64) {
        if !PART {
            mark_range(self.words, lo, hi);
        } else if let Some((a, b)) = self.clip(lo, hi) {
            mark_range(self.words, a - self.base(), b - self.base());
        }
    }

    /// Whether indexes `lo..hi` all miss a window that may be part of the table (`PART`).
    #[inline]
    pub fn misses<const PART: bool>(&self, lo: u64, hi: u64) -> bool {
        PART && self.clip(lo, hi).is_none()
    }

    /// `lo..hi` clipped to the window, if anything is left.
    pub fn clip(&self, lo: u64, hi: u64) -> Option<(u64, u64)> {
        let (a, b) = (lo.max(self.lo), hi.min(self.hi));
        (a < b).then_some((a, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_ranges_inversions_and_counts_agree_with_a_bool_per_bit() {
        let n = 300u64;
        let words = zeroed_words(n.div_ceil(64) as usize);
        let mut plain = vec![false; n as usize];
        for (lo, hi) in [(3, 7), (60, 130), (128, 192), (250, 251), (0, 1)] {
            mark_range(&words, lo, hi);
            (lo..hi).for_each(|r| plain[r as usize] = true);
        }
        mark(&words, 299);
        plain[299] = true;
        invert_range(&words, 100, 260);
        (100..260).for_each(|r| plain[r as usize] = !plain[r as usize]);
        for r in 0..n {
            assert_eq!(get(&words, r), plain[r as usize], "{r}");
        }
        assert_eq!(count(&words), plain.iter().filter(|&&b| b).count() as u64);
        let first_clear = plain.iter().position(|&b| !b).map(|r| r as u64);
        assert_eq!(next_unmarked(&words, 0, n), first_clear);
        let copy: Vec<u64> = words.iter().map(|w| w.load(Relaxed)).collect();
        assert!((0..n).all(|r| get_plain(&copy, r) == plain[r as usize]));
    }
}
