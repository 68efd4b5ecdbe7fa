//! The second-order cellular automaton of docs/mathematics.md §3, on the CPU: the twin of
//! `shaders/ca_step.wgsl` and the fast path where the GPU is software, and [`ca_block`], the twin
//! of the temporally blocked `shaders/ca_block.wgsl`.
//!
//! State b_n on cells (i,j), 0-based, zero outside `[0,n]²`; b_{-1} = 0, b_0 = {(0,0)} and
//!
//! ```text
//! b_{n+1}(i,j) = b_n(i,j) ^ b_n(i-1,j) ^ b_n(i,j-1) ^ b_n(i-1,j-1) ^ b_{n-1}(i-1,j-1)
//! ```
//!
//! so that b_n = P(n+1) (cell (i,j) of b_n is cell (i+1,j+1) of C(n+1,n+1)).
//!
//! Bit-packed, a row is a run of words, bit 63 of word 0 the leftmost cell (the u32 layout of
//! STYLE with twice the word: the high half of a u64 word is the u32 word 2k, the low half word
//! 2k+1). With t = row_i(b_n) ^ row_{i-1}(b_n) and s = t ^ row_{i-1}(b_{n-1}), the new row is
//! `t ^ (s shifted one cell right)`: a shift by one row and a shift by one bit.
//!
//! Tests: this file's unit tests; benches/kernels.rs, tests/engine/automaton.rs,
//! tests/engine/foundation.rs.

use super::backend::AutomatonBackend;
use super::grid::{first_difference, p_bit, p_rows_cpu, p_rows_naive, words_per_row, Window};
use crate::claim::{Claim, ClaimKind, Tally};
use crate::error::Result;
use rayon::prelude::*;
use std::time::Instant;

/// Most steps an automaton is built for (three grids of (STEPS+1)² bits: 24 GiB at this size).
pub const MAX_STEPS: u64 = (1 << 18) - 1;

/// Refuse more than [`MAX_STEPS`] steps, naming the input ([`Input::Steps`](crate::Input::Steps)).
pub fn check_steps(steps: u64) -> crate::Result<()> {
    if steps > MAX_STEPS {
        return Err(crate::Error::bad_input(
            crate::Input::Steps,
            steps,
            format!("at most {MAX_STEPS}"),
        ));
    }
    Ok(())
}

/// Cell updates done by the steps from generation `from` to generation `to`: the step that
/// makes b_{n+1} updates its whole active square [0,n+1]², (n+2)² cells.
pub fn cell_updates(from: u64, to: u64) -> u128 {
    // Σ_{k=a}^{b} k² with k = n+2 for n in from..to.
    let sq = |k: u128| k * (k + 1) * (2 * k + 1) / 6;
    if to <= from {
        return 0;
    }
    sq(to as u128 + 1) - sq(from as u128 + 1)
}

/// One row of one step, word by word: `out[w] = t[w] ^ (s[w] >> 1) ^ (s[w-1] << 63)` where
/// t = a ^ b (rows i and i-1 of b_n) and s = t ^ p (p: row i-1 of b_{n-1}).
#[inline(always)]
fn ca_row(a: &[u64], b: &[u64], p: &[u64], out: &mut [u64]) {
    let len = out.len();
    let (a, b, p) = (&a[..len], &b[..len], &p[..len]);
    if len == 0 {
        return;
    }
    let t0 = a[0] ^ b[0];
    out[0] = t0 ^ ((t0 ^ p[0]) >> 1);
    // Indexed (not carried) neighbours so the loop vectorises.
    for w in 1..len {
        let t = a[w] ^ b[w];
        let s = t ^ p[w];
        let sl = a[w - 1] ^ b[w - 1] ^ p[w - 1];
        out[w] = t ^ (s >> 1) ^ (sl << 63);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn ca_row_avx2(a: &[u64], b: &[u64], p: &[u64], out: &mut [u64]) {
    ca_row(a, b, p, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn ca_row_avx512(a: &[u64], b: &[u64], p: &[u64], out: &mut [u64]) {
    ca_row(a, b, p, out)
}

/// The widest vector unit this processor has, chosen once.
/// A row step: rows i and i-1 of b_n, row i-1 of b_{n-1}, the output row.
type RowKernel = fn(&[u64], &[u64], &[u64], &mut [u64]);

fn row_kernel() -> RowKernel {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the feature was detected at run time.
            return |a, b, p, o| unsafe { ca_row_avx512(a, b, p, o) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the feature was detected at run time.
            return |a, b, p, o| unsafe { ca_row_avx2(a, b, p, o) };
        }
    }
    ca_row
}

/// One step of the automaton on u64 rows of `stride` words, the twin of `ca_step.wgsl`:
/// from b_{n-1} (`prev`) and b_n (`cur`) write b_{n+1} into `next`, touching only the active
/// square [0,n+1]² (rows 0..=n+1, the words that hold columns 0..=n+1). Outside it `next` must
/// already be zero (it held an older, smaller generation or nothing).
pub fn ca_step(prev: &[u64], cur: &[u64], next: &mut [u64], stride: usize, n: u64) {
    let rows = n as usize + 2;
    let words = (rows).div_ceil(64);
    debug_assert!(words <= stride && rows * stride <= next.len());
    let kernel = row_kernel();
    let zero = vec![0u64; words];
    let row = |i: usize, out: &mut [u64]| {
        let a = &cur[i * stride..i * stride + words];
        if i == 0 {
            kernel(a, &zero, &zero, &mut out[..words]);
        } else {
            let up = (i - 1) * stride;
            kernel(
                a,
                &cur[up..up + words],
                &prev[up..up + words],
                &mut out[..words],
            );
        }
    };
    let region = &mut next[..rows * stride];
    // Small squares are not worth a thread hand-off.
    if rows * words < 1 << 14 {
        region
            .chunks_mut(stride)
            .enumerate()
            .for_each(|(i, out)| row(i, out));
    } else {
        let per_task = ((1usize << 13) / words).max(1);
        region
            .par_chunks_mut(stride * per_task)
            .enumerate()
            .for_each(|(c, band)| {
                for (k, out) in band.chunks_mut(stride).enumerate() {
                    row(c * per_task + k, out);
                }
            });
    }
}

/// The automaton on the CPU: three grids of (capacity+1)² cells that rotate, so a step
/// allocates nothing.
pub struct Automaton {
    side: usize,
    stride: usize,
    /// Grids holding b_{n-1}, b_n and the slot b_{n+1} will be written to.
    grids: [Vec<u64>; 3],
    /// Index in `grids` of b_n.
    cur: usize,
    n: u64,
    capacity: u64,
}

impl Automaton {
    /// Room for generations 0..=capacity, starting at b_0 = {(0,0)}.
    pub fn new(capacity: u64) -> crate::Result<Automaton> {
        check_steps(capacity)?;
        let side = capacity as usize + 1;
        let stride = side.div_ceil(64);
        let words = side * stride;
        // Three grids of 2^33 bytes near MAX_STEPS: refuse at once rather than be killed later.
        crate::memory::ensure_available(
            Automaton::memory_bytes(capacity),
            &format!("the automaton for {capacity} steps (three grids)"),
            "use fewer steps",
        )?;
        let mut a = Automaton {
            side,
            stride,
            grids: [vec![0; words], vec![0; words], vec![0; words]],
            cur: 1,
            n: 0,
            capacity,
        };
        a.grids[1][0] = 1 << 63;
        Ok(a)
    }

    /// The bytes [`Automaton::new`] allocates for `capacity` steps: three grids of
    /// (capacity+1)² bits, in rows of u64 words.
    pub fn memory_bytes(capacity: u64) -> u64 {
        let side = capacity.saturating_add(1);
        3u64.saturating_mul(8)
            .saturating_mul(side)
            .saturating_mul(side.div_ceil(64))
    }

    /// Check, before the first step, that the machine can hold a run of `steps` steps whose
    /// last generation is handed out as (steps+1)² bytes (a face's bool array): the three grids
    /// of [`Automaton::new`] when the CPU runs it (`cpu_grids`), the generation's packed u32
    /// rows, and the bytes. [`crate::Error::TooLarge`] names the job and says to use fewer steps.
    pub fn ensure_room_for_bytes(steps: u64, cpu_grids: bool) -> crate::Result<()> {
        let side = steps.saturating_add(1);
        let grids = if cpu_grids {
            Automaton::memory_bytes(steps)
        } else {
            0
        };
        let words = side.saturating_mul(side.div_ceil(32)).saturating_mul(4);
        crate::memory::ensure_available(
            grids
                .saturating_add(words)
                .saturating_add(side.saturating_mul(side)),
            &format!("generation {steps} ({side}×{side} bools and the grids that make it)"),
            "use fewer steps",
        )
    }

    /// Back to b_0 without reallocating.
    pub fn reset(&mut self) {
        for g in &mut self.grids {
            g.fill(0);
        }
        self.cur = 1;
        self.n = 0;
        self.grids[1][0] = 1 << 63;
    }

    /// The generation n held now.
    pub fn generation(&self) -> u64 {
        self.n
    }

    /// The last generation this automaton has room for.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// u64 words per row.
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Advance one generation.
    pub fn step(&mut self) {
        assert!(
            self.n < self.capacity,
            "automaton built for {} steps",
            self.capacity
        );
        let (p, c, x) = ((self.cur + 2) % 3, self.cur, (self.cur + 1) % 3);
        // Split borrows: the next grid is written, the other two are read.
        let [g0, g1, g2] = &mut self.grids;
        let (prev, cur, next): (&[u64], &[u64], &mut [u64]) = match (p, c, x) {
            (0, 1, 2) => (g0, g1, g2),
            (1, 2, 0) => (g1, g2, g0),
            (2, 0, 1) => (g2, g0, g1),
            _ => unreachable!("rotation of three"),
        };
        ca_step(prev, cur, next, self.stride, self.n);
        self.cur = x;
        self.n += 1;
    }

    /// Advance `k` generations.
    pub fn run(&mut self, k: u64) {
        for _ in 0..k {
            self.step();
        }
    }

    /// Row i of b_n (all `stride` words; cells past n are zero).
    pub fn row(&self, i: usize) -> &[u64] {
        &self.grids[self.cur][i * self.stride..(i + 1) * self.stride]
    }

    /// Cell (i,j) of b_n, 0-based.
    pub fn cell(&self, i: u64, j: u64) -> bool {
        if i as usize >= self.side || j as usize >= self.side {
            return false;
        }
        self.row(i as usize)[(j / 64) as usize] >> (63 - j % 64) & 1 == 1
    }

    /// Live cells of b_n (= g(n+1)).
    pub fn live_cells(&self) -> u64 {
        let rows = self.n as usize + 1;
        self.grids[self.cur][..rows * self.stride]
            .par_chunks(self.stride)
            .map(|r| r.iter().map(|w| w.count_ones() as u64).sum::<u64>())
            .sum()
    }

    /// b_n in the u32 layout of the P-grid generators: n+1 rows of `words_per_row(n+1)` words,
    /// directly comparable with `p_rows_cpu` of C(n+1,n+1).
    pub fn current_u32(&self) -> Vec<u32> {
        self.generation_u32(self.cur, self.n)
    }

    /// b_{n-1} in the u32 layout (for n = 0: an empty vector).
    pub fn previous_u32(&self) -> Vec<u32> {
        if self.n == 0 {
            return Vec::new();
        }
        self.generation_u32((self.cur + 2) % 3, self.n - 1)
    }

    fn generation_u32(&self, slot: usize, n: u64) -> Vec<u32> {
        let side = n as usize + 1;
        let wpr = side.div_ceil(32);
        let mut out = vec![0u32; wpr * side];
        for (i, dst) in out.chunks_exact_mut(wpr).enumerate() {
            let src = &self.grids[slot][i * self.stride..];
            u64_row_to_u32(src, dst);
        }
        out
    }
}

/// Copy a u64 row into a u32 row of `dst.len()` words (high half first).
pub fn u64_row_to_u32(src: &[u64], dst: &mut [u32]) {
    for (k, d) in dst.iter_mut().enumerate() {
        let w = src[k / 2];
        *d = if k % 2 == 0 {
            (w >> 32) as u32
        } else {
            w as u32
        };
    }
}

/// What watches an automaton run ([`Run::drive`]): which generation it needs to see next, and
/// what it does with each one it is shown (write a frame, add a mesh layer, verify).
pub trait Watcher {
    /// The first generation after `n` this watcher must see; `None` when it needs no more.
    fn next_after(&self, n: u64) -> Option<u64>;

    /// Generation `n` is the runner's current one (it may be shown generations it did not ask
    /// for).
    fn see(&mut self, n: u64, runner: &dyn AutomatonBackend) -> Result<()>;

    /// Whether the run should end now (a verification that found a disagreement).
    fn stops(&self) -> bool {
        false
    }
}

/// A run of the automaton to generation `steps`, checked before it starts, that stops at every
/// generation one of its watchers needs and nowhere else, reporting the steps done to the
/// thread's [`crate::progress::Observer`].
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// The last generation.
    pub steps: u64,
}

/// What a run did.
#[derive(Debug, Clone, Copy)]
pub struct RunReport {
    /// The last generation reached (`steps`, unless a watcher stopped the run).
    pub reached: u64,
    /// Seconds spent advancing the automaton (not watching it).
    pub compute_seconds: f64,
}

impl Run {
    /// A run of `steps` steps (at most [`MAX_STEPS`]).
    pub fn new(steps: u64) -> Result<Run> {
        check_steps(steps)?;
        Ok(Run { steps })
    }

    /// Advance `runner` (at generation 0) to `steps`, showing each watcher the generations it
    /// asks for (and generation 0 and the last to all).
    pub fn drive(
        &self,
        runner: &mut dyn AutomatonBackend,
        watchers: &mut [&mut dyn Watcher],
    ) -> Result<RunReport> {
        let steps = self.steps;
        let phase = crate::progress::phase("steps", Some(steps));
        let in_pieces = crate::progress::shown();
        let mut compute_seconds = 0.0f64;
        let mut n = 0u64;
        loop {
            for w in watchers.iter_mut() {
                w.see(n, &*runner)?;
            }
            if n == steps || watchers.iter().any(|w| w.stops()) {
                break;
            }
            let mut stop = watchers
                .iter()
                .filter_map(|w| w.next_after(n))
                .fold(steps, u64::min)
                .max(n + 1);
            if in_pieces {
                // Someone watches the progress: pieces of about 1% of the steps.
                stop = stop.min(n + (steps / 100).max(1));
            }
            let start = Instant::now();
            runner.advance(stop - n)?;
            runner.finish()?;
            compute_seconds += start.elapsed().as_secs_f64();
            crate::cancel::check()?;
            phase.set(stop);
            n = stop;
        }
        Ok(RunReport {
            reached: n,
            compute_seconds,
        })
    }
}

/// How often (in steps) [`Verification`] compares a GPU run with its CPU twin.
pub const TWIN_COMPARE_EVERY: u64 = 64;

/// The verification of a run as a [`Watcher`]: every generation of a CPU run against the
/// P-test; or, for another implementation (the GPU), a CPU twin run beside it, each of whose
/// generations is checked against the P-test, compared with it every
/// [`TWIN_COMPARE_EVERY`] steps and at the end.
pub struct Verification {
    check: AutomatonCheck,
    twin: Option<Automaton>,
    steps: u64,
}

impl Verification {
    /// Verify a run of `steps` steps, with a CPU twin when `with_twin` (the runner is not the
    /// CPU's).
    pub fn new(steps: u64, with_twin: bool) -> Result<Verification> {
        let mut check = AutomatonCheck::new();
        let twin = if with_twin {
            let t = Automaton::new(steps)?;
            // The twin checks each generation against the P-test, its seed b_0 included.
            check.against_p_test(&t, steps == 0)?;
            Some(t)
        } else {
            None
        };
        Ok(Verification { check, twin, steps })
    }

    /// The check, with the live cells of the last generation compared with g(steps+1) when
    /// the run reached it.
    pub fn finish(mut self, reached: u64, live: u64) -> AutomatonCheck {
        if reached == self.steps {
            self.check.live_cells(self.steps, live);
        }
        self.check
    }
}

impl Watcher for Verification {
    fn next_after(&self, n: u64) -> Option<u64> {
        Some(match self.twin {
            None => n + 1,
            Some(_) => ((n / TWIN_COMPARE_EVERY + 1) * TWIN_COMPARE_EVERY).min(self.steps),
        })
    }

    fn see(&mut self, n: u64, runner: &dyn AutomatonBackend) -> Result<()> {
        let steps = self.steps;
        let Some(t) = self.twin.as_mut() else {
            return self.check.against_p_test(runner, n == steps);
        };
        // The twin checks each of its generations against the P-test as it goes.
        while t.generation() < n && !self.check.failed() {
            t.step();
            self.check.against_p_test(t, t.generation() == steps)?;
        }
        if t.generation() == n && (n.is_multiple_of(TWIN_COMPARE_EVERY) || n == steps) {
            self.check
                .against_twin(n, &runner.current_u32()?, &t.current_u32());
            if n > 0 {
                self.check
                    .against_twin(n - 1, &runner.previous_u32()?, &t.previous_u32());
            }
        }
        Ok(())
    }

    fn stops(&self) -> bool {
        self.check.failed()
    }
}

/// Generations [`AutomatonCheck::against_p_test`] compares whole with the P-test up to this
/// side; beyond it, sampled rows (and the last generation whole).
pub const VERIFY_WHOLE_UP_TO: u64 = 1024;
/// Rows sampled per generation beyond [`VERIFY_WHOLE_UP_TO`]: the first, the last, the middle
/// and pseudo-random ones.
pub const VERIFY_SAMPLED_ROWS: u64 = 6;

/// The verification of an automaton run, as claims: every generation b_n against the P-test's
/// P(n+1) (docs/mathematics.md §3), the generations of a second implementation (the GPU) against
/// this CPU twin's, and the live cells of the last generation against g(n+1).
#[derive(Debug, Clone)]
pub struct AutomatonCheck {
    start: Instant,
    p_test: Tally,
    twin: Option<Tally>,
    live: Tally,
    last: u64,
}

impl Default for AutomatonCheck {
    fn default() -> AutomatonCheck {
        AutomatonCheck::new()
    }
}

impl AutomatonCheck {
    /// Nothing checked yet.
    pub fn new() -> AutomatonCheck {
        AutomatonCheck {
            start: Instant::now(),
            p_test: Tally::new(),
            twin: None,
            live: Tally::new(),
            last: 0,
        }
    }

    /// Compare the current generation b_n of `a` (either backend) with P(n+1) from the P-test
    /// generator: whole when `whole` or when n+1 ≤ [`VERIFY_WHOLE_UP_TO`], else on
    /// [`VERIFY_SAMPLED_ROWS`] rows, each from the cell-by-cell P-test and read alone. An error
    /// is a failure to read the generation, not a disagreement (that is recorded).
    pub fn against_p_test(&mut self, a: &dyn AutomatonBackend, whole: bool) -> Result<()> {
        let n = a.generation();
        self.last = self.last.max(n);
        let m = n + 1;
        let mismatch = |i: u64, j: u64, live: bool| {
            format!(
                "generation {n}: cell ({i},{j}) is {} in the automaton but cell ({},{}) of C({m},{m}) is {} by the P-test",
                if live { "live" } else { "dead" },
                i + 1,
                j + 1,
                if live { "not P" } else { "P" }
            )
        };
        if whole || m <= VERIFY_WHOLE_UP_TO {
            let w = Window::full(m, m).expect("m ≥ 1");
            let mut p = vec![0u32; words_per_row(m) * m as usize];
            p_rows_cpu(&w, &mut p);
            let b = a.current_u32()?;
            match first_difference(m, &b, &p) {
                Some((i, j)) => self.p_test.fail(mismatch(i, j, p_bit(&b, m, i, j))),
                None => self.p_test.checked += m as u128 * m as u128,
            }
            return Ok(());
        }
        // Sampled rows: the first, the last, the middle and pseudo-random ones (splitmix of n).
        let mut rows = vec![0, n, n / 2];
        let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
        while (rows.len() as u64) < VERIFY_SAMPLED_ROWS {
            x = (x ^ (x >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x ^= x >> 27;
            rows.push(x % m);
        }
        for &i in &rows {
            let want = p_rows_naive(&Window::new(m, m, i + 1, 1, 1, m).expect("a row of C(m,m)"));
            let row32 = a.row_u32(i)?;
            if let Some((_, j)) = first_difference(m, &row32, &want) {
                self.p_test.fail(mismatch(i, j, p_bit(&row32, m, 0, j)));
                return Ok(());
            }
            self.p_test.checked += m as u128;
        }
        Ok(())
    }

    /// Compare generation `n` of another implementation (`words`, the u32 layout) with the
    /// CPU twin's (`twin`).
    pub fn against_twin(&mut self, n: u64, words: &[u32], twin: &[u32]) {
        let t = self.twin.get_or_insert_with(Tally::new);
        match first_difference(n + 1, words, twin) {
            Some((i, j)) => t.fail(format!(
                "generation {n}: cell ({i},{j}) (0-based) differs from the CPU twin"
            )),
            None => t.checked += (n as u128 + 1) * (n as u128 + 1),
        }
    }

    /// Compare the live cells of the last generation `n` with g(n+1) by the recurrence.
    pub fn live_cells(&mut self, n: u64, live: u64) {
        self.last = self.last.max(n);
        let g = super::count::g_recurrence(n + 1).expect("n+1 ≥ 1");
        self.live.record(live as u128 == g, || {
            format!(
                "generation {n} has {live} live cells but g({}) = {g}",
                n + 1
            )
        });
    }

    /// Whether any comparison failed.
    pub fn failed(&self) -> bool {
        self.p_test.failed() || self.live.failed() || self.twin.as_ref().is_some_and(Tally::failed)
    }

    /// Cells compared with the P-test and with the twin.
    pub fn cells_compared(&self) -> u128 {
        self.p_test.checked + self.twin.as_ref().map_or(0, |t| t.checked)
    }

    /// The claims: `automaton` (every generation checked is P(n+1)), `automaton-twin` (when
    /// a twin was compared) and `automaton-live-cells` (when live cells were).
    pub fn claims(self) -> Vec<Claim> {
        let range = format!("n = 0..{}", self.last);
        let mut claims = vec![self.p_test.claim(
            ClaimKind::Theorem,
            "automaton",
            "generation n of the second-order automaton (docs/mathematics.md §3) is P(n+1)",
            &range,
        )];
        if let Some(t) = self.twin {
            claims.push(t.claim(
                ClaimKind::Theorem,
                "automaton-twin",
                "the GPU's generations equal the CPU twin's, cell for cell",
                &range,
            ));
        }
        if self.live.checked > 0 {
            claims.push(self.live.claim(
                ClaimKind::Theorem,
                "automaton-live-cells",
                "the last generation n has g(n+1) live cells",
                format!("n = {}", self.last),
            ));
        }
        let start = self.start;
        claims.into_iter().map(|c| c.took(start)).collect()
    }
}

/// Tile geometry of the temporally blocked kernel `ca_block.wgsl` and its twin [`ca_block`]: a
/// tile is [`BLOCK_COLS`] u32 words wide (the first a halo word, so [`BLOCK_COLS`]` - 1` output
/// words) and `steps_max + tile_rows` rows tall (the first `steps_max` a halo), and holds three
/// generations in workgroup memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockShape {
    /// Most steps one block takes (≤ 32, so the halo word's last bit stays exact).
    pub steps_max: u32,
    /// Output rows per tile.
    pub tile_rows: u32,
}

/// Words per tile row of `ca_block.wgsl` (its `COLS`), the first one a halo word.
pub const BLOCK_COLS: usize = 64;

impl BlockShape {
    /// The tallest tile whose three generations fit `bytes` of workgroup memory (capped at 128
    /// rows), with 16 steps per block when the tile is tall enough to keep most of its rows,
    /// else 8; `None` below 16 rows.
    pub fn for_workgroup_bytes(bytes: u32) -> Option<BlockShape> {
        let in_rows = (bytes as usize / (3 * BLOCK_COLS * 4)).min(128) as u32;
        let steps_max = match in_rows {
            48.. => 16,
            16.. => 8,
            _ => return None,
        };
        Some(BlockShape {
            steps_max,
            tile_rows: in_rows - steps_max,
        })
    }

    /// Rows of one tile generation, halo included.
    pub fn in_rows(&self) -> usize {
        (self.steps_max + self.tile_rows) as usize
    }

    /// Workgroup memory the kernel declares for this shape.
    pub fn workgroup_bytes(&self) -> u64 {
        (3 * BLOCK_COLS * self.in_rows() * 4) as u64
    }
}

/// `steps` steps at once (1 ≤ steps ≤ shape.steps_max), the twin of `ca_block.wgsl`, tile by
/// tile in the kernel's order of operations, on u32 rows of `stride` words (bit 31 = leftmost
/// cell): from b_{n-1} (`prev`) and b_n (`cur`) write b_{n+steps-1} into `prev_out` and
/// b_{n+steps} into `cur_out`, over the active square of b_{n+steps}. Each tile copies its
/// output rows plus `steps_max` rows above and one word to the left, steps the copy with no
/// data beyond it, and keeps only the output tile: the copy's edges go stale one row and one
/// bit per step, which never reaches the output.
#[allow(clippy::too_many_arguments)]
pub fn ca_block(
    prev: &[u32],
    cur: &[u32],
    prev_out: &mut [u32],
    cur_out: &mut [u32],
    stride: usize,
    n: u64,
    steps: u32,
    shape: BlockShape,
) {
    assert!((1..=shape.steps_max).contains(&steps) && shape.steps_max <= 32);
    let rows = (n + steps as u64 + 1) as usize;
    let words = rows.div_ceil(32);
    assert!(words <= stride && rows * stride <= cur_out.len());
    let (cols, out_cols) = (BLOCK_COLS, BLOCK_COLS - 1);
    let (k, tile_rows, in_rows) = (
        shape.steps_max as usize,
        shape.tile_rows as usize,
        shape.in_rows(),
    );
    let mut gens = vec![vec![0u32; cols * in_rows]; 3];
    for t0 in (0..rows).step_by(tile_rows) {
        for w0 in (0..words).step_by(out_cols) {
            // Column c is grid word w0 + c - 1; tile row r is grid row t0 + r - k.
            let word = |c: usize| (w0 + c).checked_sub(1).filter(|&w| w < words);
            let row = |r: usize| (t0 + r).checked_sub(k).filter(|&i| i < rows);
            for r in 0..in_rows {
                for c in 0..cols {
                    let (p, q) = match (row(r), word(c)) {
                        (Some(i), Some(w)) => (prev[i * stride + w], cur[i * stride + w]),
                        _ => (0, 0),
                    };
                    gens[0][r * cols + c] = p;
                    gens[1][r * cols + c] = q;
                }
            }
            let (mut pb, mut cb, mut nb) = (0, 1, 2);
            for _ in 0..steps {
                for r in 1..in_rows {
                    for c in 0..cols {
                        let at = r * cols + c;
                        let up = at - cols;
                        let (a, a_up, p_up) = (gens[cb][at], gens[cb][up], gens[pb][up]);
                        let sl = if c > 0 {
                            gens[cb][at - 1] ^ gens[cb][up - 1] ^ gens[pb][up - 1]
                        } else {
                            0
                        };
                        let t = a ^ a_up;
                        gens[nb][at] = t ^ ((t ^ p_up) >> 1) ^ (sl << 31);
                    }
                }
                (pb, cb, nb) = (cb, nb, pb);
            }
            for r in k..in_rows {
                for c in 1..cols {
                    if let (Some(i), Some(w)) = (row(r), word(c)) {
                        prev_out[i * stride + w] = gens[pb][r * cols + c];
                        cur_out[i * stride + w] = gens[cb][r * cols + c];
                    }
                }
            }
        }
    }
}

/// Tile geometry of the register-resident kernel `ca_regs.wgsl` and its twin [`ca_regs`]: each
/// invocation (a *lane*) holds one word column of `steps_max + out_rows` rows of b_{n-1} and
/// b_n in registers; the `lanes` lanes of one subgroup hold adjacent words, lane 0 the halo word
/// left of the other lanes' `lanes - 1` output words, and pass their left neighbour's bits along
/// by subgroup shuffle. The first `steps_max` rows are the halo above the output rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegsShape {
    /// Most steps one launch takes (≤ 32, so the halo word's last bit stays exact).
    pub steps_max: u32,
    /// Output rows per lane.
    pub out_rows: u32,
    /// Lanes of one subgroup (the device's subgroup size, 4 to 128).
    pub lanes: u32,
}

/// Steps per launch of `ca_regs.wgsl` (its `STEPS_MAX`).
pub const REGS_STEPS: u32 = 16;
/// Output rows per lane of `ca_regs.wgsl` (its `OUT_ROWS`).
pub const REGS_OUT_ROWS: u32 = 32;

/// Bytes of grid traffic and cell updates of one tile of a kernel that runs `steps` steps on
/// it: its own arithmetic, edges of the grid left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileTraffic {
    /// Bytes read and written by one tile.
    pub bytes: u64,
    /// Cell updates one tile makes.
    pub updates: u64,
}

impl TileTraffic {
    /// Cell updates per byte of traffic.
    pub fn updates_per_byte(&self) -> f64 {
        self.updates as f64 / self.bytes as f64
    }

    /// Bytes of traffic per cell update.
    pub fn bytes_per_update(&self) -> f64 {
        self.bytes as f64 / self.updates as f64
    }

    /// The step kernel `ca_step.wgsl`: per 32-cell word and step it reads the word of b_n and
    /// of b_{n-1} (their left neighbours and the row above come from the cache or registers)
    /// and writes the word of b_{n+1}: 12 bytes for 32 updates.
    pub fn step_kernel() -> TileTraffic {
        TileTraffic {
            bytes: 12,
            updates: 32,
        }
    }
}

impl BlockShape {
    /// One tile of `ca_block.wgsl`: it reads b_{n-1} and b_n over [`BLOCK_COLS`] words of
    /// `in_rows` rows and writes two generations over its output words and rows, for
    /// `steps_max` steps of its output cells.
    pub fn traffic(&self) -> TileTraffic {
        let (cols, out_cols) = (BLOCK_COLS as u64, BLOCK_COLS as u64 - 1);
        let (rows, out_rows) = (self.in_rows() as u64, self.tile_rows as u64);
        TileTraffic {
            bytes: 4 * (2 * cols * rows + 2 * out_cols * out_rows),
            updates: 32 * out_cols * out_rows * self.steps_max as u64,
        }
    }
}

impl RegsShape {
    /// The shape `ca_regs.wgsl` runs on a device whose subgroups have `lanes` lanes.
    pub fn for_lanes(lanes: u32) -> RegsShape {
        RegsShape {
            steps_max: REGS_STEPS,
            out_rows: REGS_OUT_ROWS,
            lanes,
        }
    }

    /// Rows each lane holds, halo included.
    pub fn held_rows(&self) -> usize {
        (self.steps_max + self.out_rows) as usize
    }

    /// Output words of one subgroup's tile.
    pub fn out_words(&self) -> usize {
        self.lanes as usize - 1
    }

    /// One subgroup's tile: every lane reads its `held_rows` words of b_{n-1} and b_n once;
    /// the `lanes - 1` output lanes write two generations over their `out_rows` rows; in
    /// between, `steps_max` steps of the output cells touch no memory.
    pub fn traffic(&self) -> TileTraffic {
        let (lanes, out) = (self.lanes as u64, self.out_words() as u64);
        let (held, out_rows) = (self.held_rows() as u64, self.out_rows as u64);
        TileTraffic {
            bytes: 4 * (2 * lanes * held + 2 * out * out_rows),
            updates: 32 * out * out_rows * self.steps_max as u64,
        }
    }
}

/// `steps` steps at once (1 ≤ steps ≤ shape.steps_max), the twin of `ca_regs.wgsl`, subgroup
/// tile by subgroup tile with the kernel's arithmetic, on u32 rows of `stride` words (bit 31 =
/// leftmost cell): from b_{n-1} (`prev`) and b_n (`cur`) write b_{n+steps-1} into `prev_out`
/// and b_{n+steps} into `cur_out`, over the active square of b_{n+steps}.
///
/// Subgroup tile g holds grid words `g·(lanes-1) - 1 ..` (lane l the word `g·(lanes-1) + l - 1`)
/// and grid rows `t0 - steps_max .. t0 + out_rows` for its tile row t0. A step walks each
/// lane's rows top to bottom; the held top row reads zero above it and lane 0 reads zero bits
/// to its left (the shuffle has no lane below 0), so staleness creeps one row down and one bit
/// right per step and never reaches the output rows and lanes.
#[allow(clippy::too_many_arguments)]
pub fn ca_regs(
    prev: &[u32],
    cur: &[u32],
    prev_out: &mut [u32],
    cur_out: &mut [u32],
    stride: usize,
    n: u64,
    steps: u32,
    shape: RegsShape,
) {
    assert!((1..=shape.steps_max).contains(&steps) && shape.steps_max <= 32);
    assert!((2..=128).contains(&shape.lanes));
    let rows = (n + steps as u64 + 1) as usize;
    let words = rows.div_ceil(32);
    assert!(words <= stride && rows * stride <= cur_out.len());
    let (k, held, lanes) = (
        shape.steps_max as usize,
        shape.held_rows(),
        shape.lanes as usize,
    );
    // p[lane][r], c[lane][r]: each lane's registers.
    let mut p = vec![vec![0u32; held]; lanes];
    let mut c = vec![vec![0u32; held]; lanes];
    let mut sv = vec![0u32; lanes];
    for t0 in (0..rows).step_by(shape.out_rows as usize) {
        for base in (0..words).step_by(shape.out_words()) {
            // Lane l is grid word base + l - 1; held row r is grid row t0 + r - k.
            let word = |l: usize| (base + l).checked_sub(1).filter(|&w| w < words);
            let row = |r: usize| (t0 + r).checked_sub(k).filter(|&i| i < rows);
            for l in 0..lanes {
                for r in 0..held {
                    (p[l][r], c[l][r]) = match (row(r), word(l)) {
                        (Some(i), Some(w)) => (prev[i * stride + w], cur[i * stride + w]),
                        _ => (0, 0),
                    };
                }
            }
            for _ in 0..steps {
                let mut up = vec![(0u32, 0u32); lanes];
                for r in 0..held {
                    for l in 0..lanes {
                        sv[l] = c[l][r] ^ up[l].0 ^ up[l].1;
                    }
                    for l in 0..lanes {
                        // subgroupShuffleUp(s, 1): the lane to the left; lane 0 has none.
                        let left = if l > 0 { sv[l - 1] } else { 0 };
                        let a = c[l][r];
                        let t = a ^ up[l].0;
                        up[l] = (a, p[l][r]);
                        p[l][r] = a;
                        c[l][r] = t ^ (sv[l] >> 1) ^ (left << 31);
                    }
                }
            }
            for l in 1..lanes {
                for r in k..held {
                    if let (Some(i), Some(w)) = (row(r), word(l)) {
                        prev_out[i * stride + w] = p[l][r];
                        cur_out[i * stride + w] = c[l][r];
                    }
                }
            }
        }
    }
}

/// The rule read cell by cell, straight from docs/mathematics.md §3, on a dense 0/1 grid: the slow
/// reference the packed step is checked against.
pub fn ca_generations_naive(steps: u64) -> Vec<Vec<Vec<bool>>> {
    let side = steps as usize + 1;
    let get =
        |g: &Vec<Vec<bool>>, i: isize, j: isize| i >= 0 && j >= 0 && g[i as usize][j as usize];
    let mut gens = vec![vec![vec![false; side]; side]];
    gens[0][0][0] = true;
    let mut before = vec![vec![false; side]; side];
    for _ in 0..steps {
        let cur = gens.last().expect("b_0 present").clone();
        let mut next = vec![vec![false; side]; side];
        for (i, row) in next.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                let (i, j) = (i as isize, j as isize);
                *cell = get(&cur, i, j)
                    ^ get(&cur, i - 1, j)
                    ^ get(&cur, i, j - 1)
                    ^ get(&cur, i - 1, j - 1)
                    ^ get(&before, i - 1, j - 1);
            }
        }
        before = cur;
        gens.push(next);
    }
    gens
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chocolate::grid::{p_rows_cpu, Window};
    use crate::chocolate::ptest::p_cell;

    #[test]
    fn packed_equals_naive_rule() {
        let steps = 140;
        let gens = ca_generations_naive(steps);
        let mut a = Automaton::new(steps).unwrap();
        for (n, g) in gens.iter().enumerate() {
            assert_eq!(a.generation(), n as u64);
            for i in 0..=steps {
                for j in 0..=steps {
                    assert_eq!(
                        a.cell(i, j),
                        g[i as usize][j as usize],
                        "b_{n} at ({i},{j})"
                    );
                }
            }
            if (n as u64) < steps {
                a.step();
            }
        }
    }

    #[test]
    fn every_generation_is_the_p_grid() {
        // Sizes crossing word boundaries (63, 64, 65, 127, 128, ...), not powers of two at the end.
        let steps = 300;
        let mut a = Automaton::new(steps).unwrap();
        loop {
            let n = a.generation();
            let w = Window::full(n + 1, n + 1).unwrap();
            let mut p = vec![0u32; w.total_words().unwrap()];
            p_rows_cpu(&w, &mut p);
            assert_eq!(a.current_u32(), p, "b_{n} != P({})", n + 1);
            assert_eq!(
                a.live_cells() as u128,
                crate::chocolate::g_recurrence(n + 1).unwrap()
            );
            if n == steps {
                break;
            }
            a.step();
        }
        // Reset starts over.
        a.reset();
        a.run(37);
        assert!((0..=37).all(|i| (0..=37).all(|j| a.cell(i, j) == p_cell(38, 38, i + 1, j + 1))));
    }

    #[test]
    fn blocked_steps_equal_single_steps() {
        // Shapes with tall and short tiles, 8, 16 and 32 steps per block; grids several tiles
        // wide and tall (63-word tiles: 4000 cells is 2 tiles across), blocks of every length.
        let p_grid = |n: u64, stride: usize| {
            let w = Window::full(n + 1, n + 1).unwrap();
            let wpr = w.words_per_row();
            let mut p = vec![0u32; w.total_words().unwrap()];
            p_rows_cpu(&w, &mut p);
            let mut out = vec![0u32; (n as usize + 1) * stride];
            for (dst, src) in out.chunks_mut(stride).zip(p.chunks(wpr)) {
                dst[..wpr].copy_from_slice(src);
            }
            out
        };
        for (shape, steps_list, capacity) in [
            (
                BlockShape::for_workgroup_bytes(32768).unwrap(),
                vec![1, 8, 3, 8, 5],
                25u64,
            ),
            (
                BlockShape {
                    steps_max: 16,
                    tile_rows: 5,
                },
                vec![16, 1, 16, 9, 16, 2],
                120,
            ),
            (
                BlockShape {
                    steps_max: 32,
                    tile_rows: 40,
                },
                vec![32, 7],
                2100,
            ),
            (
                BlockShape {
                    steps_max: 8,
                    tile_rows: 300,
                },
                vec![8, 3],
                4010,
            ),
        ] {
            let side = capacity as usize + 1;
            let stride = side.div_ceil(32) + 1;
            // Start from b_{n-1}, b_n read off the P-grids, so large n needs no long run.
            let mut n = capacity - steps_list.iter().sum::<u32>() as u64;
            let grid = |n: u64| {
                let mut g = vec![0u32; side * stride];
                let p = p_grid(n, stride);
                g[..p.len()].copy_from_slice(&p);
                g
            };
            let (mut prev, mut cur) = (
                if n == 0 {
                    vec![0; side * stride]
                } else {
                    grid(n - 1)
                },
                grid(n),
            );
            for steps in steps_list {
                let (mut po, mut co) = (vec![0u32; side * stride], vec![0u32; side * stride]);
                ca_block(&prev, &cur, &mut po, &mut co, stride, n, steps, shape);
                n += steps as u64;
                assert_eq!(co, grid(n), "{shape:?}: b_{n} after {steps} steps");
                assert_eq!(
                    po,
                    grid(n - 1),
                    "{shape:?}: b_{} after {steps} steps",
                    n - 1
                );
                (prev, cur) = (po, co);
            }
        }
    }

    /// b_n read off the P-grid of C(n+1,n+1) into rows of `stride` words of a grid of `side`
    /// rows (zero beyond it); for n = u64::MAX (b_{-1}) all zero.
    fn grid_of(n: u64, side: usize, stride: usize) -> Vec<u32> {
        let mut g = vec![0u32; side * stride];
        if n == u64::MAX {
            return g;
        }
        let w = Window::full(n + 1, n + 1).unwrap();
        let wpr = w.words_per_row();
        let mut p = vec![0u32; w.total_words().unwrap()];
        p_rows_cpu(&w, &mut p);
        for (dst, src) in g.chunks_mut(stride).zip(p.chunks(wpr)) {
            dst[..wpr].copy_from_slice(src);
        }
        g
    }

    #[test]
    fn register_steps_equal_single_steps() {
        // Subgroups of 8, 32, 4 and 128 lanes (7, 31, 3 and 127 output words) on grids of 10,
        // 35, 9 and 132 words: several tiles across each, the last one overhanging; tiles of
        // 32, 5 and 9 output rows; 16 and 32 steps per launch, launches of every length (not
        // multiples of the steps), starting at generations not multiples of them.
        let shapes = [
            (RegsShape::for_lanes(8), vec![16, 1, 16, 9, 3], 300u64),
            (RegsShape::for_lanes(32), vec![16, 16, 7], 1100),
            (
                RegsShape {
                    steps_max: 32,
                    out_rows: 5,
                    lanes: 4,
                },
                vec![32, 11, 32],
                263,
            ),
            (
                RegsShape {
                    steps_max: 16,
                    out_rows: 9,
                    lanes: 128,
                },
                vec![5, 16],
                4200,
            ),
        ];
        for (shape, steps_list, capacity) in shapes {
            let side = capacity as usize + 1;
            let stride = side.div_ceil(32) + 1;
            let mut n = capacity - steps_list.iter().sum::<u32>() as u64;
            let (mut prev, mut cur) = (
                grid_of(n.wrapping_sub(1), side, stride),
                grid_of(n, side, stride),
            );
            for steps in steps_list {
                let (mut po, mut co) = (vec![0u32; side * stride], vec![0u32; side * stride]);
                ca_regs(&prev, &cur, &mut po, &mut co, stride, n, steps, shape);
                n += steps as u64;
                assert_eq!(co, grid_of(n, side, stride), "{shape:?}: b_{n}");
                assert_eq!(po, grid_of(n - 1, side, stride), "{shape:?}: b_{}", n - 1);
                (prev, cur) = (po, co);
            }
        }
        // From b_0, in launches of 16 and 5 steps, each generation against single steps.
        let shape = RegsShape::for_lanes(8);
        let capacity = 150u64;
        let (side, stride) = (capacity as usize + 1, (capacity as usize + 1).div_ceil(32));
        let (mut prev, mut cur) = (vec![0u32; side * stride], vec![0u32; side * stride]);
        cur[0] = 1 << 31;
        let mut single = Automaton::new(capacity).unwrap();
        let mut n = 0;
        for steps in [16, 5, 16, 16, 13, 16, 16, 16, 16, 16, 4] {
            let (mut po, mut co) = (vec![0u32; side * stride], vec![0u32; side * stride]);
            ca_regs(&prev, &cur, &mut po, &mut co, stride, n, steps, shape);
            single.run(steps as u64);
            n += steps as u64;
            let wpr = (n as usize + 1).div_ceil(32);
            let rows: Vec<u32> = co
                .chunks(stride)
                .take(n as usize + 1)
                .flat_map(|r| r[..wpr].to_vec())
                .collect();
            assert_eq!(rows, single.current_u32(), "b_{n} from b_0");
            (prev, cur) = (po, co);
        }
        assert_eq!(n, capacity);
    }

    #[test]
    fn tile_traffic_by_the_kernels_arithmetic() {
        // The step kernel: 2.67 updates per byte; the register kernel with 32 and 8 lanes:
        // 25.1 and 23.6, past the 8 of the goal.
        assert!((TileTraffic::step_kernel().updates_per_byte() - 32.0 / 12.0).abs() < 1e-12);
        let regs = RegsShape::for_lanes(32).traffic();
        assert_eq!(
            regs,
            TileTraffic {
                bytes: 4 * (2 * 32 * 48 + 2 * 31 * 32),
                updates: 32 * 31 * 32 * 16,
            }
        );
        assert!(regs.updates_per_byte() >= 8.0);
        assert!(RegsShape::for_lanes(8).traffic().updates_per_byte() >= 8.0);
        assert!(RegsShape::for_lanes(4).traffic().updates_per_byte() >= 8.0);
        let block = BlockShape {
            steps_max: 16,
            tile_rows: 48,
        };
        assert_eq!(block.traffic().bytes, 4 * (2 * 64 * 64 + 2 * 63 * 48));
    }

    #[test]
    fn cell_update_count() {
        assert_eq!(cell_updates(0, 1), 4);
        assert_eq!(cell_updates(0, 3), 4 + 9 + 16);
        assert_eq!(cell_updates(2, 3), 16);
        let brute: u128 = (5..1000u128).map(|n| (n + 2) * (n + 2)).sum();
        assert_eq!(cell_updates(5, 1000), brute);
    }
}
