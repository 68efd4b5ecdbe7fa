//! The wgpu context and one small module per kernel (buffers, dispatch, readback). Each
//! kernel's CPU twin lives beside the mathematics it implements.
//!
//! Tests: benches/, tests/, tests/common/, tests/engine/, tests/games/chomp/, tests/pictures/.

pub mod block_count;
pub mod ca;
pub mod choice;
pub mod chomp;
pub mod chomp_hook;
pub mod context;
pub mod engine;
pub mod kernel;
pub mod nimpass;
pub mod ptest;

pub use choice::Job;
pub use context::GpuContext;
pub use engine::{count_gpu, BackendChoice, Engine};
