//! `chompute bench` figures for the digit method: block counts of two `--fit 2048` pictures,
//! one pixel a block, on the CPU ([`BlockGrid::counts`]) and with `block_count.wgsl` on the
//! GPU, checked equal: C(2^64-1), whose blocks of 2^53 cells over the whole bar the CPU counts
//! in O(1) each (`chocolate::dyadic`), and C(10^19), whose blocks share no low bits, so every
//! corner runs the whole programme.
//!
//! Tests: `bench --quick` in tests/pictures/cli_outputs.rs and the device script's full run.

use super::{BenchEnv, Measurement};
use chompute::chocolate::grid::Window;
use chompute::chocolate::window::{BlockGrid, BlockRect};
use chompute::gpu::block_count::BlockCountGpu;

/// A band of rows of 2048 blocks from the middle of each picture.
pub fn bench_block_counts(env: &BenchEnv, out: &mut Vec<Measurement>) -> anyhow::Result<()> {
    for (m, name) in [
        (u64::MAX, "C(2^64-1)"),
        (10_000_000_000_000_000_000, "C(10^19)"),
    ] {
        let grid = BlockGrid::new(Window::full(m, m)?, m.div_ceil(2048))?;
        let rows = if env.quick { 4 } else { 64 };
        let by0 = grid.down / 2 - rows / 2;
        // The size names the picture; the band's exact pixels are the work.
        let size = format!("{name} fit {}", grid.across);
        let pixels = |rows: u64| (rows * grid.across) as u128;
        let cpu = env.measure(
            out,
            "block counts",
            &size,
            "cpu",
            "pixels",
            pixels(rows),
            || Ok(grid.counts(BlockRect::new(by0, rows, 0, grid.across))?),
        )?;
        if let Some(ctx) = &env.gpu {
            // A software adapter takes about 0.2 ms a block: a smaller band there.
            let rows = if ctx.is_software() { rows.min(2) } else { rows };
            let kernel = BlockCountGpu::new(ctx.clone());
            let gpu = env.measure(
                out,
                "block counts",
                &size,
                "gpu",
                "pixels",
                pixels(rows),
                || Ok(kernel.counts(&grid, BlockRect::new(by0, rows, 0, grid.across))?),
            )?;
            anyhow::ensure!(
                gpu[..] == cpu[..gpu.len()],
                "bench: GPU and CPU block counts differ for {} ({rows} rows)",
                size
            );
        }
    }
    Ok(())
}
