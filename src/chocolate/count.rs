//! Exact counts g(m,n) = #P-cells of C(m,n).

use super::ptest::row_key;
use crate::{Error, Result};
use rayon::prelude::*;
use std::collections::HashMap;

/// g(m) for the square bar by the recurrences of §4 of the chocolate paper:
/// g(1) = 1, g(2k) = 4g(k), g(2k+1) = g(k) + g(k+1). Memoised; each level of the recursion
/// touches at most two consecutive arguments, so this is O(log m) for every u64 m.
/// g(m) ≤ m² < 2^128, so u128 is exact.
pub fn g_recurrence(m: u64) -> Result<u128> {
    if m == 0 {
        return Err(Error::bad_argument("m", m, "at least 1"));
    }
    fn go(m: u64, memo: &mut HashMap<u64, u128>) -> u128 {
        if m == 1 {
            return 1;
        }
        if let Some(&g) = memo.get(&m) {
            return g;
        }
        let k = m / 2;
        let g = if m % 2 == 0 {
            4 * go(k, memo)
        } else {
            go(k, memo) + go(k + 1, memo)
        };
        memo.insert(m, g);
        g
    }
    Ok(go(m, &mut HashMap::new()))
}

/// S(n) = Σ_{m=1}^{n} g(m), exactly, in O(log² n), from the same recurrences: with g(0) = 0,
/// Σ_{m=1}^{M} g(2m) = 4S(M) and Σ_{m=0}^{M-1} g(2m+1) = Σ (g(m) + g(m+1)) = S(M-1) + S(M), so
/// S(2M) = 5S(M) + S(M-1), S(2M-1) = S(M) + 5S(M-1) and S(2M+1) = S(2M) + g(M) + g(M+1).
/// Returns (S(n-1), S(n)) (S(-1) = 0), or an error past u128 (n beyond about 2^49).
pub fn g_prefix_sums(n: u64) -> Result<(u128, u128)> {
    let overflow = || Error::too_large(format!("Σ g(m) for m ≤ {n}"), "more than u128 holds");
    let lin = |a: u128, x: u128, b: u128, y: u128| -> Option<u128> {
        a.checked_mul(x)?.checked_add(b.checked_mul(y)?)
    };
    match n {
        0 => Ok((0, 0)),
        1 => Ok((0, 1)),
        _ => {
            let m = n / 2;
            let (before, at) = g_prefix_sums(m)?;
            let even = lin(5, at, 1, before).ok_or_else(overflow)?;
            if n % 2 == 0 {
                Ok((lin(1, at, 5, before).ok_or_else(overflow)?, even))
            } else {
                let g_m1 = g_recurrence(m + 1)?;
                let odd = even
                    .checked_add(at - before)
                    .and_then(|s| s.checked_add(g_m1))
                    .ok_or_else(overflow)?;
                Ok((even, odd))
            }
        }
    }
}

/// The largest side for which [`g_histogram`] builds a histogram (its memory is
/// 4 bytes × the next power of two of the smaller side).
pub const HISTOGRAM_MAX_SMALL_SIDE: u64 = 1 << 28;
/// The largest side [`g_histogram`] will sweep (its time is linear in it).
pub const HISTOGRAM_MAX_LARGE_SIDE: u64 = 1 << 34;

/// Whether [`g_histogram`] accepts C(m,n).
pub fn histogram_feasible(m: u64, n: u64) -> bool {
    m.min(n) <= HISTOGRAM_MAX_SMALL_SIDE && m.max(n) <= HISTOGRAM_MAX_LARGE_SIDE
}

/// `g(m,n) = Σ_v hr[v]·hc[v]` (SPEC §1), for any rectangle: histogram the row keys of the
/// smaller side, then sweep the larger side's keys through it. O(m+n) time.
pub fn g_histogram(m: u64, n: u64) -> Result<u128> {
    if m == 0 || n == 0 {
        return Err(Error::bad_argument(
            "the bar",
            format!("{m}×{n}"),
            "at least 1×1",
        ));
    }
    if !histogram_feasible(m, n) {
        return Err(Error::too_large(
            format!("C({m},{n})"),
            "the histogram method takes a smaller side ≤ 2^28 and a larger ≤ 2^34",
        ));
    }
    let (small, large) = if m <= n { (m, n) } else { (n, m) };
    // Keys of a side s are a ^ (s-1-a) with both terms < 2^bits(s-1).
    let bits = 64 - (small - 1).leading_zeros();
    let mut hist = vec![0u32; 1usize << bits];
    for i in 1..=small {
        hist[row_key(small, i) as usize] += 1;
    }
    if small == large {
        // Square bar: hr = hc, so the sum is Σ_v hr[v]².
        return Ok(hist.iter().map(|&h| h as u128 * h as u128).sum());
    }
    let total: u128 = (1..large + 1)
        .into_par_iter()
        .map(|j| {
            let k = row_key(large, j);
            hist.get(k as usize).copied().unwrap_or(0) as u64
        })
        .fold(|| 0u128, |acc, x| acc + x as u128)
        .sum();
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chocolate::ptest::p_cell;

    const G_1_TO_14: [u128; 14] = [1, 4, 5, 16, 9, 20, 21, 64, 25, 36, 29, 80, 41, 84];

    #[test]
    fn prefix_sums_equal_running_sums() {
        // Running sums of g by the histogram count (not the recurrence), every n ≤ 3000.
        let mut sum = 0u128;
        for n in 1..=3000u64 {
            let before = sum;
            sum += g_histogram(n, n).unwrap();
            assert_eq!(g_prefix_sums(n).unwrap(), (before, sum), "S({n})");
        }
        assert_eq!(g_prefix_sums(0).unwrap(), (0, 0));
        // 2^49 fits u128; far beyond it is an error, not a wrapped number.
        assert!(g_prefix_sums(1 << 49).is_ok());
        assert!(g_prefix_sums(u64::MAX).is_err());
    }

    fn g_brute(m: u64, n: u64) -> u128 {
        let mut c = 0;
        for i in 1..=m {
            for j in 1..=n {
                c += p_cell(m, n, i, j) as u128;
            }
        }
        c
    }

    #[test]
    fn first_values() {
        for (k, &g) in G_1_TO_14.iter().enumerate() {
            let m = k as u64 + 1;
            assert_eq!(g_recurrence(m).unwrap(), g, "recurrence g({m})");
            assert_eq!(g_histogram(m, m).unwrap(), g, "histogram g({m})");
            assert_eq!(g_brute(m, m), g, "brute g({m})");
        }
    }

    #[test]
    fn histogram_equals_brute_on_rectangles() {
        for m in 1..40 {
            for n in [1, 2, 7, 13, 31, 33, 50] {
                assert_eq!(g_histogram(m, n).unwrap(), g_brute(m, n), "C({m},{n})");
            }
        }
    }

    #[test]
    fn recurrence_at_the_top_of_u64() {
        // g(2^k) = 4^k, and the recurrence must not overflow at u64::MAX.
        assert_eq!(g_recurrence(1 << 63).unwrap(), 1u128 << 126);
        let g = g_recurrence(u64::MAX).unwrap();
        assert_eq!(
            g,
            g_recurrence(u64::MAX / 2).unwrap() + g_recurrence(u64::MAX / 2 + 1).unwrap()
        );
        assert!(g <= (u64::MAX as u128) * (u64::MAX as u128));
    }
}
