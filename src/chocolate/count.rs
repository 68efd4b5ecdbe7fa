//! Exact counts g(m,n) = #P-cells of C(m,n).
//!
//! Tests: this file's unit tests; benches/kernels.rs, tests/engine/foundation.rs.

use super::grid::Window;
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
        let g = if m.is_multiple_of(2) {
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
            if n.is_multiple_of(2) {
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

/// `g(m,n) = Σ_v hr[v]·hc[v]` (docs/mathematics.md §1), for any rectangle: histogram the row keys
/// of the smaller side, then sweep the larger side's keys through it. O(m+n) time.
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

/// A way of counting the P-cells of a window ([`CountPlan`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum CountMethod {
    /// The digit method: a programme over the 64 bits of M, N and the window's corners,
    /// O(log) for every window of every bar up to 2^64-1 (the default).
    Digits,
    /// g(2m) = 4g(m), g(2m+1) = g(m)+g(m+1): O(log m), whole square bars only.
    Recurrence,
    /// `Σ_v hr[v]·hc[v]` over row and column key histograms: O(M+N), whole bars only.
    Histogram,
    /// Generate the grid on the CPU and count it.
    Cpu,
    /// Generate the grid on the GPU and count it there.
    Gpu,
    /// Every feasible method; a disagreement is a failed check.
    All,
}

impl CountMethod {
    /// Every method with its name.
    pub const ALL: [(&'static str, CountMethod); 6] = [
        ("digits", CountMethod::Digits),
        ("recurrence", CountMethod::Recurrence),
        ("histogram", CountMethod::Histogram),
        ("cpu", CountMethod::Cpu),
        ("gpu", CountMethod::Gpu),
        ("all", CountMethod::All),
    ];

    /// The method's name: "digits", "recurrence", …
    pub fn name(self) -> &'static str {
        CountMethod::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("digits", |(name, _)| name)
    }
}

impl std::str::FromStr for CountMethod {
    type Err = Error;

    fn from_str(s: &str) -> Result<CountMethod> {
        CountMethod::ALL
            .iter()
            .find(|(name, _)| *name == s)
            .map(|&(_, m)| m)
            .ok_or_else(|| {
                Error::bad_input(
                    crate::Input::Method,
                    format!("'{s}'"),
                    "digits, recurrence, histogram, cpu, gpu or all",
                )
            })
    }
}

/// Most cells `cpu` or `gpu` generates (about a minute on two cores).
pub const GENERATE_MAX_CELLS: u128 = 1 << 40;
/// Most cells `all` generates on the CPU.
pub const ALL_CPU_MAX_CELLS: u128 = 1 << 36;
/// Most cells `all` generates on a software GPU (real GPUs get [`GENERATE_MAX_CELLS`]).
pub const ALL_SOFTWARE_GPU_MAX_CELLS: u128 = 1 << 32;

/// The GPU a count may use, as far as the policy cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountGpu {
    /// None (or not to be used).
    None,
    /// A software adapter (lavapipe): `all` generates on it only up to
    /// [`ALL_SOFTWARE_GPU_MAX_CELLS`].
    Software,
    /// A real GPU.
    Real,
}

/// The methods of a count, checked before any runs: each one can count this window, and
/// `all` expanded to every method feasible at its size. Generating methods (`cpu`, `gpu`) are
/// run by the face ([`CountPlan::run`]'s `generate`), which knows how to pace them.
#[derive(Debug, Clone)]
pub struct CountPlan {
    /// The window counted.
    pub window: Window,
    /// The methods, in the order they run; the first one's count is the answer.
    pub methods: Vec<CountMethod>,
}

/// One method's count and how long it took.
#[derive(Debug, Clone, Copy)]
pub struct MethodCount {
    /// The method.
    pub method: CountMethod,
    /// Its count.
    pub count: u128,
    /// Seconds it took.
    pub seconds: f64,
}

/// Whether `w` is the whole bar (the recurrence and the histogram count only whole bars).
pub fn is_whole(w: &Window) -> bool {
    w.row0 == 1 && w.col0 == 1 && w.height == w.m && w.width == w.n
}

/// "C(m,n)" or "rows r..+h, columns c..+w of C(m,n)", for messages.
pub fn describe(w: &Window) -> String {
    if is_whole(w) {
        format!("C({},{})", w.m, w.n)
    } else {
        format!(
            "rows {}..+{}, columns {}..+{} of C({},{})",
            w.row0, w.height, w.col0, w.width, w.m, w.n
        )
    }
}

impl CountPlan {
    /// The plan for counting `window` by `method` (`None`: the fastest exact one, the digit
    /// method: one prefix for a whole bar, about 0.3 µs at 2^64-1 against 5 µs for the
    /// recurrence, four for a window), `gpu` being the GPU `all` may use. An error, naming
    /// [`Input::Method`](crate::Input::Method), when the method cannot count this window.
    pub fn new(window: Window, method: Option<CountMethod>, gpu: CountGpu) -> Result<CountPlan> {
        let methods = match method {
            Some(CountMethod::All) => all_methods(&window, gpu),
            Some(one) => {
                check_method(one, &window)?;
                vec![one]
            }
            None => vec![CountMethod::Digits],
        };
        Ok(CountPlan { window, methods })
    }

    /// Run every method; `generate` counts by a generating method (`cpu`, `gpu`). The counts
    /// in order; [`CountPlan::verdict`] says whether they agree.
    pub fn run(
        &self,
        mut generate: impl FnMut(CountMethod, &Window) -> Result<u128>,
    ) -> Result<Vec<MethodCount>> {
        let w = &self.window;
        self.methods
            .iter()
            .map(|&method| {
                let start = std::time::Instant::now();
                let count = match method {
                    CountMethod::Digits => super::window::p_count(w),
                    CountMethod::Recurrence => g_recurrence(w.m)?,
                    CountMethod::Histogram => g_histogram(w.m, w.n)?,
                    CountMethod::Cpu | CountMethod::Gpu => generate(method, w)?,
                    CountMethod::All => unreachable!("expanded by CountPlan::new"),
                };
                Ok(MethodCount {
                    method,
                    count,
                    seconds: start.elapsed().as_secs_f64(),
                })
            })
            .collect()
    }

    /// [`Error::CheckFailed`] naming every method's count when two disagree.
    pub fn verdict(&self, counts: &[MethodCount]) -> Result<()> {
        let first = counts.first().map(|c| c.count);
        if counts.iter().all(|c| Some(c.count) == first) {
            return Ok(());
        }
        let list: Vec<String> = counts
            .iter()
            .map(|c| format!("{}={}", c.method.name(), c.count))
            .collect();
        Err(Error::CheckFailed(format!(
            "count methods disagree for {}: {}",
            describe(&self.window),
            list.join(", ")
        )))
    }
}

/// Whether `method` can count `w`.
fn check_method(method: CountMethod, w: &Window) -> Result<()> {
    let refuse = |why: String| Err(Error::conflict(&[crate::Input::Method], why));
    match method {
        CountMethod::Recurrence if w.m != w.n || !is_whole(w) => refuse(format!(
            "the recurrence counts whole square bars only (got {}); use {{0}}=digits",
            describe(w)
        )),
        CountMethod::Histogram if !is_whole(w) => refuse(format!(
            "the histogram counts whole bars only (got {}); use {{0}}=digits",
            describe(w)
        )),
        CountMethod::Cpu | CountMethod::Gpu if w.cells() > GENERATE_MAX_CELLS => refuse(format!(
            "{} has {} cells, more than {{0}}={} generates (2^40); use {{0}}=digits",
            describe(w),
            w.cells(),
            method.name()
        )),
        _ => Ok(()),
    }
}

/// The methods `all` runs for `w`: every one feasible at this size.
fn all_methods(w: &Window, gpu: CountGpu) -> Vec<CountMethod> {
    let cells = w.cells();
    let mut v = vec![CountMethod::Digits];
    if w.m == w.n && is_whole(w) {
        v.push(CountMethod::Recurrence);
    }
    if is_whole(w) && histogram_feasible(w.m, w.n) {
        v.push(CountMethod::Histogram);
    }
    if cells <= ALL_CPU_MAX_CELLS {
        v.push(CountMethod::Cpu);
    }
    let gpu_limit = match gpu {
        CountGpu::None => 0,
        CountGpu::Software => ALL_SOFTWARE_GPU_MAX_CELLS,
        CountGpu::Real => GENERATE_MAX_CELLS,
    };
    if cells <= gpu_limit {
        v.push(CountMethod::Gpu);
    }
    v
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
