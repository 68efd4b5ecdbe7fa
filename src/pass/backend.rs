//! Nim with a pass as a trait, implemented by the CPU here and by the GPU in
//! `crate::gpu::nimpass::NimPassGpu`; `gpu::Engine::nim_pass` hands out the one its backend
//! picks. Plain Rust: the mathematics does not know what a GPU is.
//!
//! ```
//! use chompute::pass::backend::{NimPassBackend, NimPassCpu};
//!
//! // Heaps 0..3: the P-positions with the pass available.
//! let table = NimPassCpu.four_heaps(3).unwrap();
//! assert!(table.is_p(&[0, 0, 0, 0]));
//! assert!(!table.is_p(&[1, 1, 0, 0])); // nim-sum zero, but the pass moves to P
//! ```
//!
//! Tests: its doc test; tests/engine/foundation.rs (the GPU kernel against the CPU),
//! tests/games/pass.rs.

use super::nimpass::NimPass;
use crate::error::Result;

/// The P-positions of four-heap Nim with one shared pass. Build one per backend and keep it:
/// the GPU's pools its buffers between calls.
pub trait NimPassBackend: Send + Sync {
    /// "cpu" or "gpu".
    fn backend(&self) -> &'static str;

    /// The table for four heaps of sizes 0..side.
    fn four_heaps(&self, side: usize) -> Result<NimPass>;
}

/// Nim with a pass on the CPU: one bit per line ([`NimPass::compute`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct NimPassCpu;

impl NimPassBackend for NimPassCpu {
    fn backend(&self) -> &'static str {
        "cpu"
    }

    fn four_heaps(&self, side: usize) -> Result<NimPass> {
        NimPass::compute(4, side)
    }
}
