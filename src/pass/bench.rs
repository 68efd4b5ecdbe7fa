//! `chompute bench` entries for games with a pass (CPU only: there is no pass kernel).

use super::gp::GpTable;
use super::nimpass::NimPass;
use crate::bench::{BenchEnv, Measurement};

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
        || GpTable::compute(n),
    )?;
    let m: usize = if env.quick { 40 } else { 256 };
    let side = m + 1;
    env.measure(
        out,
        "nim with a pass K=4",
        &format!("0..={m}"),
        "cpu",
        "positions",
        (side as u128).pow(4),
        || NimPass::compute(4, side).map(|t| t.count()),
    )?;
    Ok(())
}
