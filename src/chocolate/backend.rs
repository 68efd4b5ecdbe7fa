//! The kernel families of the chocolate game as traits, each implemented by the CPU here and by
//! the GPU in `crate::gpu` (`PGridGpu`, `CaGpu`, `BlockCountGpu`); `gpu::Engine` hands out the one its backend
//! picks. Plain Rust: the mathematics does not know what a GPU is.
//!
//! ```
//! use chompute::chocolate::backend::{PGridBackend, PGridCpu};
//! use chompute::chocolate::Window;
//!
//! let grid = PGridCpu;
//! let w = Window::full(11, 11).unwrap();
//! let mut words = vec![0u32; w.total_words().unwrap()];
//! grid.p_rows(&w, &mut words).unwrap();
//! assert_eq!(grid.count(&w).unwrap(), 29); // g(11)
//! assert_eq!(words.iter().map(|x| x.count_ones() as u128).sum::<u128>(), 29);
//! ```
//!
//! Tests: tests/engine/automaton.rs, tests/engine/foundation.rs, tests/pictures/window.rs.

use super::automaton::{u64_row_to_u32, Automaton};
use super::grid::{count_cpu, Window};
use super::rows::p_rows_submask;
use super::window::{BlockGrid, BlockRect};
use crate::error::{Error, Result};

/// Packed P-grids and exact P-counts of windows of C(m,n). Build one per backend and keep it:
/// the GPU's pools its buffers, so thousands of calls allocate nothing after the first.
pub trait PGridBackend: Send + Sync {
    /// "cpu" or "gpu".
    fn backend(&self) -> &'static str;

    /// The P-grid of `w` into `out`: `w.height` rows of `w.words_per_row()` u32 words, bit 31
    /// the leftmost cell, rows padded with zeros to whole words.
    fn p_rows(&self, w: &Window, out: &mut [u32]) -> Result<()>;

    /// The number of P-cells in `w`, exact.
    fn count(&self, w: &Window) -> Result<u128>;
}

/// The second-order automaton of docs/mathematics.md §3 (b_n = P(n+1)), built for generations
/// 0..=[`AutomatonBackend::capacity`].
pub trait AutomatonBackend: Send {
    /// "cpu" or "gpu".
    fn backend(&self) -> &'static str;

    /// The last generation it has room for.
    fn capacity(&self) -> u64;

    /// The generation n held now.
    fn generation(&self) -> u64;

    /// Back to b_0 = {(0,0)}, keeping its memory.
    fn reset(&mut self) -> Result<()>;

    /// Advance `k` generations (an error past the capacity). May return before the work is
    /// done; reading a result, or [`AutomatonBackend::finish`], waits for it.
    fn advance(&mut self, k: u64) -> Result<()>;

    /// Wait for the steps advanced so far.
    fn finish(&self) -> Result<()>;

    /// b_n in the P-grid's u32 layout: n+1 rows of `words_per_row(n+1)` words, equal to the
    /// packed P-grid of C(n+1,n+1).
    fn current_u32(&self) -> Result<Vec<u32>>;

    /// b_{n-1} in the same layout (empty for n = 0).
    fn previous_u32(&self) -> Result<Vec<u32>>;

    /// Row `i` (0-based, at most n) of b_n alone: `words_per_row(n+1)` words, the same as that
    /// row of [`AutomatonBackend::current_u32`], without reading the rest of the grid.
    fn row_u32(&self, i: u64) -> Result<Vec<u32>>;

    /// Live cells of b_n (= g(n+1)).
    fn live_cells(&self) -> Result<u64>;
}

/// The P-grid on the CPU: rows by the submask generator, counts by generating and popcounting
/// row by row, both in parallel.
#[derive(Debug, Clone, Copy, Default)]
pub struct PGridCpu;

impl PGridBackend for PGridCpu {
    fn backend(&self) -> &'static str {
        "cpu"
    }

    fn p_rows(&self, w: &Window, out: &mut [u32]) -> Result<()> {
        let need = w.words_per_row() as u128 * w.height as u128;
        if out.len() as u128 != need {
            return Err(Error::bad_argument(
                "the output",
                format!("{} words", out.len()),
                format!("{need} words, the packed window"),
            ));
        }
        p_rows_submask(w, out);
        Ok(())
    }

    fn count(&self, w: &Window) -> Result<u128> {
        Ok(count_cpu(w))
    }
}

impl AutomatonBackend for Automaton {
    fn backend(&self) -> &'static str {
        "cpu"
    }

    fn capacity(&self) -> u64 {
        Automaton::capacity(self)
    }

    fn generation(&self) -> u64 {
        Automaton::generation(self)
    }

    fn reset(&mut self) -> Result<()> {
        Automaton::reset(self);
        Ok(())
    }

    fn advance(&mut self, k: u64) -> Result<()> {
        let n = Automaton::generation(self);
        if n + k > Automaton::capacity(self) {
            return Err(Error::bad_argument(
                "the generation",
                n + k,
                format!(
                    "at most {}, the capacity it was built for",
                    Automaton::capacity(self)
                ),
            ));
        }
        self.run(k);
        Ok(())
    }

    fn finish(&self) -> Result<()> {
        Ok(())
    }

    fn current_u32(&self) -> Result<Vec<u32>> {
        Ok(Automaton::current_u32(self))
    }

    fn row_u32(&self, i: u64) -> Result<Vec<u32>> {
        let n = Automaton::generation(self);
        if i > n {
            return Err(Error::bad_argument(
                "the row",
                i,
                format!("at most {n}, the generation held"),
            ));
        }
        let mut row = vec![0u32; (n as usize + 1).div_ceil(32)];
        u64_row_to_u32(self.row(i as usize), &mut row);
        Ok(row)
    }

    fn previous_u32(&self) -> Result<Vec<u32>> {
        Ok(Automaton::previous_u32(self))
    }

    fn live_cells(&self) -> Result<u64> {
        Ok(Automaton::live_cells(self))
    }
}

/// Exact P-counts of the blocks of a fitted picture ([`BlockGrid`]) by the digit method: on the
/// CPU by [`BlockGrid::counts`], on the GPU by `block_count.wgsl` (`gpu::block_count`), its
/// twin with the same corners and the same programme.
pub trait BlockCountBackend: Send + Sync {
    /// "cpu" or "gpu".
    fn backend(&self) -> &'static str;

    /// The counts of blocks `blocks` of `grid`, row-major.
    fn counts(&self, grid: &BlockGrid, blocks: BlockRect) -> Result<Vec<u128>>;

    /// Blocks worth asking for at a time: enough to keep the backend busy, few enough that
    /// their counts and corners (16 bytes each) take a few MB.
    fn chunk_blocks(&self) -> u64;
}

/// Block counts on the CPU, corners in parallel.
#[derive(Debug, Clone, Copy, Default)]
pub struct BlockCountCpu;

impl BlockCountBackend for BlockCountCpu {
    fn backend(&self) -> &'static str {
        "cpu"
    }

    fn counts(&self, grid: &BlockGrid, blocks: BlockRect) -> Result<Vec<u128>> {
        grid.counts(blocks)
    }

    fn chunk_blocks(&self) -> u64 {
        1 << 16
    }
}
