//! The host's share of a hook solve by whole steps (a hardware adapter's schedule, one
//! submission a step), on any adapter: the wall time, and this thread's CPU time (it splits
//! each step, encodes and submits its dispatches; the device runs on its own threads), with the
//! table in one buffer and in as many as the device binds, alternated, three times each.
//!
//! `CHOMPUTE_REQUIRE_GPU=1 cargo run --release --example chomp_host_cost -- 12`

use chompute::chomp::index::BitLayout;
use chompute::chomp::two_player::device::{ChompDevice, DeviceTable};
use chompute::chomp::ChompBox;
use chompute::gpu::chomp_hook::{ChompGpuDevice, HookTable};
use chompute::gpu::GpuContext;
use std::time::Instant;

/// This thread's time on a CPU, in nanoseconds (Linux's schedstat).
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn run(n: usize) -> chompute::Result<()> {
    let ctx = GpuContext::shared()?;
    let device = ChompGpuDevice::new(ctx.clone());
    let layout = BitLayout::for_box(ChompBox::square(n))?;
    let words = layout.len().div_ceil(32);
    let hook = layout
        .hook_index()
        .expect("a square's layout is the hook index");
    let most = device.preflight(&layout, None)?.table_bindings as u64;
    let dispatches = chompute::chomp::two_player::pull::split_stats(hook).levels;
    for k in [1, most, 1, most, 1, most] {
        let plan = device.preflight(&layout, Some(words.div_ceil(k).next_power_of_two()))?;
        let mut table = HookTable::new(ctx.clone(), hook.clone(), &plan)?;
        table.set_whole_steps(true);
        let (t, c) = (Instant::now(), thread_cpu_ns());
        table.solve(false)?;
        let wall = t.elapsed().as_secs_f64();
        let host = match (c, thread_cpu_ns()) {
            (Some(a), Some(b)) => format!(
                "{:.2} s, {:.1} µs a dispatch",
                (b - a) as f64 / 1e9,
                (b - a) as f64 / 1e3 / dispatches as f64
            ),
            _ => "unknown".into(),
        };
        println!(
            "{n}×{n}, {} table buffers: wall {wall:.2} s, host thread {host}; {} P-positions",
            plan.buffers,
            table.p_count()?
        );
    }
    Ok(())
}

fn main() {
    for arg in std::env::args().skip(1) {
        let Ok(n) = arg.parse::<usize>() else {
            eprintln!("chomp_host_cost: not a side: {arg}");
            std::process::exit(2);
        };
        if let Err(e) = run(n) {
            eprintln!("chomp_host_cost: {e}");
            std::process::exit(2);
        }
    }
}
