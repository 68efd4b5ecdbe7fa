//! `chompute bench` entries for games with a pass: the CPU methods and, when there is a GPU,
//! the four-heap kernel against them.
//!
//! Tests: `bench --quick` in tests/pictures/cli_outputs.rs and the device script's full run.

use super::{BenchEnv, Measurement};
use chompute::pass::gp::GpTable;
use chompute::pass::nimpass::NimPass;

/// G_P on an N×N table (bitset mex) and four-heap Nim with a pass (one bit per line).
pub fn bench_pass(env: &BenchEnv, out: &mut Vec<Measurement>) -> anyhow::Result<()> {
    let n: u64 = if env.quick { 1000 } else { 8191 };
    env.measure(
        out,
        "G_P table",
        &format!("{n}x{n}"),
        "cpu",
        "entries",
        (n * n) as u128,
        || Ok(GpTable::compute(n)?),
    )?;
    let m: usize = if env.quick { 40 } else { 256 };
    let side = m + 1;
    let size = format!("0..={m}");
    let work = (side as u128).pow(4);
    let cpu = env.measure(
        out,
        "nim with a pass K=4",
        &size,
        "cpu",
        "positions",
        work,
        || Ok(NimPass::compute(4, side)?),
    )?;
    if let Some(ctx) = &env.gpu {
        let nimpass = chompute::gpu::nimpass::NimPassGpu::new(ctx.clone());
        let gpu = env.measure(
            out,
            "nim with a pass K=4",
            &size,
            "gpu",
            "positions",
            work,
            || Ok(nimpass.four_heaps(side)?),
        )?;
        agree!(
            gpu == cpu,
            "bench: GPU and CPU Nim with a pass differ for heaps 0..={m}"
        );
    }
    Ok(())
}
