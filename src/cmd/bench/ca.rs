//! `chompute bench` figures for the automaton: every GPU kernel the device runs and the CPU,
//! with the host's memory bandwidth beside them and each kernel's grid traffic per cell update.
//!
//! Tests: `bench --quick` in tests/pictures/cli_outputs.rs and the device script's full run.

use super::{BenchEnv, Measurement};
use chompute::chocolate::automaton::{cell_updates, Automaton};
use chompute::chocolate::g_recurrence;
use chompute::gpu::ca::{CaGpu, CaKernel, STEPS_PER_SUBMISSION};
use serde::Serialize;

/// The automaton for `bench`: cell updates per second on the CPU and the GPU, each running
/// from b_0 for a number of steps that suits it (the GPU's scaled to the adapter: 32767 steps,
/// 1.2·10^13 cell updates, on a real GPU), and the host's memory bandwidth for comparison.
pub fn bench_ca(env: &BenchEnv, out: &mut Vec<Measurement>) -> anyhow::Result<Vec<Traffic>> {
    let cpu_steps = env
        .ca_steps
        .unwrap_or(if env.quick { 1023 } else { 4095 })
        .min(4095);
    let mut a = Automaton::new(cpu_steps)?;
    let size = format!("{cpu_steps} steps");
    let live = env.measure(
        out,
        "ca steps",
        &size,
        "cpu",
        "cell updates",
        cell_updates(0, cpu_steps),
        || {
            a.reset();
            a.run(cpu_steps);
            Ok(a.live_cells())
        },
    )?;
    agree!(
        live as u128 == g_recurrence(cpu_steps + 1)?,
        "bench: CPU automaton count is wrong"
    );
    // Memory bandwidth: copy a buffer much larger than the caches; bytes read + written.
    let words: usize = if env.quick { 1 << 23 } else { 1 << 26 };
    let src = vec![1u64; words];
    let mut dst = vec![0u64; words];
    env.measure(
        out,
        "memory copy",
        &format!("{} MiB", (words * 8) >> 20),
        "cpu",
        "bytes",
        2 * 8 * words as u128,
        || {
            use rayon::prelude::*;
            dst.par_chunks_mut(1 << 16)
                .zip(src.par_chunks(1 << 16))
                .for_each(|(d, s)| d.copy_from_slice(s));
            Ok(())
        },
    )?;
    let mut traffic = Vec::new();
    if let Some(ctx) = &env.gpu {
        let gpu_steps = env
            .ca_steps
            .unwrap_or(match (ctx.is_software(), env.quick) {
                (true, true) => 255,
                (true, false) => 1023,
                (false, true) => 4095,
                (false, false) => 32767,
            });
        // The kernel `ca` uses ([`CaKernel::best`]) in the rows `ca steps` and `ca steps (last
        // quarter)`; the others beside it, tagged, for comparison.
        let best = CaKernel::best(ctx);
        let mut kernels = vec![(best, String::new())];
        for other in [
            Some(CaKernel::Step),
            CaKernel::block(ctx),
            CaKernel::regs(ctx),
        ] {
            if let Some(k) = other.filter(|k| *k != best) {
                kernels.push((k, format!(" [{} kernel]", k.name())));
            }
        }
        for (kernel, tag) in kernels {
            traffic.push(Traffic::of(kernel));
            let mut g =
                CaGpu::with_options(ctx.clone(), gpu_steps, kernel, ctx.max_binding_bytes())?;
            let size = format!("{gpu_steps} steps, {}", kernel.name());
            env.measure(
                out,
                &format!("ca steps{tag}"),
                &size,
                "gpu",
                "cell updates",
                cell_updates(0, gpu_steps),
                || {
                    g.reset()?;
                    g.advance(gpu_steps)?;
                    Ok(g.finish()?)
                },
            )?;
            agree!(
                g.live_cells()? as u128 == g_recurrence(gpu_steps + 1)?,
                "bench: GPU automaton count is wrong ({} kernel)",
                kernel.name()
            );
            // The large-grid rate alone: the last quarter of the steps (at least one
            // submission), timed after an untimed run up to them, so launch overhead on small
            // squares is left out.
            let tail = (gpu_steps / 4).max(STEPS_PER_SUBMISSION.min(gpu_steps));
            let head = gpu_steps - tail;
            let mut best_seconds = f64::INFINITY;
            for _ in 0..env.reps.max(1) {
                g.reset()?;
                g.advance(head)?;
                g.finish()?;
                let start = std::time::Instant::now();
                g.advance(tail)?;
                g.finish()?;
                best_seconds = best_seconds.min(start.elapsed().as_secs_f64());
            }
            let work = cell_updates(head, gpu_steps);
            out.push(Measurement {
                kernel: format!("ca steps{tag} (last quarter)"),
                size: format!("{head}..{gpu_steps}, {}", kernel.name()),
                backend: "gpu".into(),
                unit: "cell updates".into(),
                work,
                seconds: best_seconds,
                per_second: work as f64 / best_seconds,
            });
        }
    }
    Ok(traffic)
}

/// One automaton kernel's grid traffic by its own tile arithmetic.
#[derive(Debug, Clone, Serialize)]
pub struct Traffic {
    /// The kernel's name, as `ca` reports it.
    pub kernel: String,
    /// Bytes read and written per cell update.
    pub bytes_per_update: f64,
    /// Cell updates per byte of traffic.
    pub updates_per_byte: f64,
}

impl Traffic {
    fn of(kernel: CaKernel) -> Traffic {
        let t = kernel.traffic();
        Traffic {
            kernel: kernel.name(),
            bytes_per_update: t.bytes_per_update(),
            updates_per_byte: t.updates_per_byte(),
        }
    }
}
