//! The wgpu context and one small module per kernel (buffers, dispatch, readback). Each
//! kernel's CPU twin lives beside the mathematics it implements.

pub mod block_count;
pub mod ca;
pub mod chomp;
pub mod context;
pub mod kernel;
pub mod nimpass;
pub mod ptest;

pub use context::{BackendChoice, Engine, GpuContext};

/// The GPU `count`'s method `all` may add for a backend choice: none with `cpu` or without an
/// adapter; a software adapter (lavapipe, far slower than the CPU row) only when `gpu` asks for
/// it, since `auto` takes a GPU only when it is a real one.
pub fn count_gpu(backend: BackendChoice) -> crate::chocolate::count::CountGpu {
    use crate::chocolate::count::CountGpu;
    if backend == BackendChoice::Cpu {
        return CountGpu::None;
    }
    match GpuContext::shared() {
        Ok(ctx) if ctx.is_software() && backend == BackendChoice::Gpu => CountGpu::Software,
        Ok(ctx) if ctx.is_software() => CountGpu::None,
        Ok(_) => CountGpu::Real,
        Err(_) => CountGpu::None,
    }
}
