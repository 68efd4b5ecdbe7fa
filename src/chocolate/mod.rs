//! The chocolate game C(m,n) (docs/mathematics.md §1): an m×n bar with one poisoned cell (i,j) is
//! the four-pile Nim position (i-1, j-1, m-i, n-j).
//!
//! Tests: benches/, tests/, tests/engine/, tests/pictures/.

pub mod automaton;
pub mod backend;
pub mod count;
pub mod dyadic;
pub mod grid;
pub mod octahedron;
pub mod ptest;
pub mod recursive;
pub mod rows;
pub mod theorems;
pub mod window;

pub use count::{g_histogram, g_prefix_sums, g_recurrence};
pub use grid::{p_rows_cpu, p_rows_naive, words_per_row, Window};
pub use ptest::{col_key, p_cell, row_key};
pub use window::{block_counts, p_count, p_prefix, BlockGrid};
