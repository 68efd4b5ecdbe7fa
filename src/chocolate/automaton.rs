//! The second-order cellular automaton of SPEC §3, on the CPU: the twin of `shaders/ca_step.wgsl`
//! and the fast path where the GPU is software.
//!
//! State b_n on cells (i,j), 0-based, zero outside [0,n]²; b_{-1} = 0, b_0 = {(0,0)} and
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

use rayon::prelude::*;

/// Most steps an automaton is built for (three grids of (STEPS+1)² bits: 24 GiB at this size).
pub const MAX_STEPS: u64 = (1 << 18) - 1;

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
    pub fn new(capacity: u64) -> anyhow::Result<Automaton> {
        if capacity > MAX_STEPS {
            return Err(crate::usage!(
                "the automaton runs at most {MAX_STEPS} steps (got {capacity})"
            ));
        }
        let side = capacity as usize + 1;
        let stride = side.div_ceil(64);
        let words = side * stride;
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

    /// Row i of b_{n-1} (zero for n = 0).
    pub fn prev_row(&self, i: usize) -> &[u64] {
        let p = (self.cur + 2) % 3;
        &self.grids[p][i * self.stride..(i + 1) * self.stride]
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

/// The rule read cell by cell, straight from SPEC §3, on a dense 0/1 grid: the slow
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
    fn cell_update_count() {
        assert_eq!(cell_updates(0, 1), 4);
        assert_eq!(cell_updates(0, 3), 4 + 9 + 16);
        assert_eq!(cell_updates(2, 3), 16);
        let brute: u128 = (5..1000u128).map(|n| (n + 2) * (n + 2)).sum();
        assert_eq!(cell_updates(5, 1000), brute);
    }
}
