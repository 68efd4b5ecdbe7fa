//! `chompute bench`: GPU against CPU on chompute's kernels.
//!
//! Each kernel family contributes a function that appends [`Measurement`]s; [`run`] groups
//! them by kernel and size and prints the CPU and GPU rates side by side with their ratio.
//! Timings are wall-clock seconds (floats are fine here: they are measurements, not
//! mathematics); the work done is an exact count.
//!
//! Tests: `bench --quick` in tests/pictures/cli_outputs.rs, tests/faults/backend.rs,
//! tests/faults/pipes.rs.

/// `ensure!` for the cross-checks: two methods that disagree are a check failure (exit
/// status 1), not an error.
macro_rules! agree {
    ($cond:expr, $($arg:tt)*) => {
        if !$cond {
            return Err(chompute::Error::CheckFailed(format!($($arg)*)).into());
        }
    };
}

mod ca;
mod chomp;
mod pass;
mod render;
mod window;

use crate::cli::BenchArgs;
use crate::cmd::out::{print_report, Report, Stdout};
use chompute::chocolate::grid::{count_cpu, p_rows_cpu, Window};
use chompute::gpu::{ptest::PGridGpu, BackendChoice, GpuContext};
use serde::Serialize;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// One timed run of one kernel on one backend.
#[derive(Debug, Clone, Serialize)]
pub struct Measurement {
    /// Stable kernel name, e.g. "p-grid generate".
    pub kernel: String,
    /// Problem size in words, e.g. "30001x30001".
    pub size: String,
    /// "cpu" or "gpu".
    pub backend: String,
    /// What `work` counts: "cells", "cell updates", "positions", ...
    pub unit: String,
    /// Exact amount of work done.
    pub work: u128,
    /// Best wall-clock time over the repetitions.
    pub seconds: f64,
    /// work / seconds.
    pub per_second: f64,
}

/// What each benchmark function gets: the GPU (if any) and whether to use quick sizes.
pub struct BenchEnv {
    pub gpu: Option<Arc<GpuContext>>,
    pub quick: bool,
    pub reps: usize,
    /// `--ca-steps`: automaton steps (default scaled to the adapter).
    pub ca_steps: Option<u64>,
    /// Says which kernel is being timed, on a terminal ([`crate::cmd::bars::spinner`]).
    pub progress: indicatif::ProgressBar,
}

impl BenchEnv {
    /// Time `f` (best of `reps`, after one warm-up run) and record it.
    #[allow(clippy::too_many_arguments)]
    pub fn measure<T>(
        &self,
        out: &mut Vec<Measurement>,
        kernel: &str,
        size: &str,
        backend: &str,
        unit: &str,
        work: u128,
        mut f: impl FnMut() -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        self.progress.set_message(format!(
            "timing {kernel} {size} on the {backend} ({} measurements so far)",
            out.len()
        ));
        let mut value = f()?;
        let mut best = f64::INFINITY;
        for _ in 0..self.reps {
            let start = Instant::now();
            value = f()?;
            best = best.min(start.elapsed().as_secs_f64());
        }
        out.push(Measurement {
            kernel: kernel.into(),
            size: size.into(),
            backend: backend.into(),
            unit: unit.into(),
            work,
            seconds: best,
            per_second: work as f64 / best,
        });
        Ok(value)
    }
}

/// P-grid generation (packed words in memory) and counting, on sizes that are not powers of 2.
pub fn bench_p_grid(env: &BenchEnv, out: &mut Vec<Measurement>) -> anyhow::Result<()> {
    let gen_side: u64 = if env.quick { 4095 } else { 30001 };
    let count_side: u64 = if env.quick { 8191 } else { 65535 };
    let w = Window::full(gen_side, gen_side)?;
    let size = format!("{gen_side}x{gen_side}");
    let mut words = vec![0u32; w.total_words()?];
    env.measure(
        out,
        "p-grid generate",
        &size,
        "cpu",
        "cells",
        w.cells(),
        || {
            p_rows_cpu(&w, &mut words);
            Ok(())
        },
    )?;
    let cpu_words = words.clone();
    if let Some(ctx) = &env.gpu {
        let gpu = PGridGpu::new(ctx.clone());
        env.measure(
            out,
            "p-grid generate",
            &size,
            "gpu",
            "cells",
            w.cells(),
            || Ok(gpu.p_rows(&w, &mut words)?),
        )?;
        agree!(
            words == cpu_words,
            "bench: GPU and CPU P-grids differ for {size}"
        );
    }
    let cw = Window::full(count_side, count_side)?;
    let size = format!("{count_side}x{count_side}");
    let c_cpu = env.measure(
        out,
        "p-grid count",
        &size,
        "cpu",
        "cells",
        cw.cells(),
        || Ok(count_cpu(&cw)),
    )?;
    if let Some(ctx) = &env.gpu {
        let gpu = PGridGpu::new(ctx.clone());
        let c_gpu = env.measure(
            out,
            "p-grid count",
            &size,
            "gpu",
            "cells",
            cw.cells(),
            || Ok(gpu.count(&cw)?),
        )?;
        agree!(
            c_gpu == c_cpu,
            "bench: GPU count {c_gpu} != CPU count {c_cpu} for {size}"
        );
    }
    Ok(())
}

#[derive(Serialize)]
struct BenchReport<'a> {
    adapter: Option<chompute::gpu::context::AdapterReport>,
    gpu_skipped_because: Option<String>,
    measurements: &'a [Measurement],
    /// Each GPU automaton kernel's grid traffic per cell update, by its tile arithmetic.
    ca_traffic: Vec<ca::Traffic>,
    /// With --save: where the rates went and which jobs they decide.
    #[serde(skip_serializing_if = "Option::is_none")]
    saved: Option<Saved>,
}

/// The rates `bench --save` wrote.
#[derive(Serialize)]
struct Saved {
    file: String,
    jobs: Vec<String>,
}

impl Report for BenchReport<'_> {
    /// The GPU, then one row per kernel and size: the CPU's and the GPU's rate and their
    /// ratio, in columns as wide as their longest entry.
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        match &self.adapter {
            Some(r) => {
                let software = if r.software { ", software" } else { "" };
                writeln!(
                    out,
                    "GPU: {} ({}, {}{software})",
                    r.name, r.backend, r.device_type
                )?;
            }
            None => {
                let why = self.gpu_skipped_because.as_deref().unwrap_or_default();
                writeln!(out, "GPU: none ({why})")?;
            }
        }
        let ms = self.measurements;
        let kw = ms.iter().map(|m| m.kernel.len()).max().unwrap_or(0).max(22);
        let sw = ms.iter().map(|m| m.size.len()).max().unwrap_or(0).max(14);
        writeln!(
            out,
            "{:<kw$} {:>sw$} {:>12} {:>16} {:>16} {:>9}",
            "kernel", "size", "unit", "cpu /s", "gpu /s", "gpu/cpu"
        )?;
        let mut keys: Vec<(&str, &str)> = Vec::new();
        for m in ms {
            let k = (m.kernel.as_str(), m.size.as_str());
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        for (kernel, size) in keys {
            let find = |b: &str| {
                ms.iter()
                    .find(|m| m.kernel == kernel && m.size == size && m.backend == b)
            };
            let (cpu, gpu) = (find("cpu"), find("gpu"));
            let unit = cpu.or(gpu).map(|m| m.unit.as_str()).unwrap_or("");
            let rate = |m: Option<&Measurement>| {
                m.map(|m| format!("{:.3e}", m.per_second))
                    .unwrap_or_else(|| "-".into())
            };
            let ratio = match (cpu, gpu) {
                (Some(c), Some(g)) => format!("{:.2}x", g.per_second / c.per_second),
                _ => "-".into(),
            };
            writeln!(
                out,
                "{kernel:<kw$} {size:>sw$} {unit:>12} {:>16} {:>16} {ratio:>9}",
                rate(cpu),
                rate(gpu)
            )?;
        }
        if let Some(s) = &self.saved {
            writeln!(out, "rates saved to {} for: {}", s.file, s.jobs.join(", "))?;
        }
        for t in &self.ca_traffic {
            writeln!(
                out,
                "ca traffic: {} kernel, {:.4} bytes per cell update ({:.2} updates per byte)",
                t.kernel, t.bytes_per_update, t.updates_per_byte
            )?;
        }
        Ok(())
    }

    /// Every measurement, one row each.
    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        use crate::cmd::csv_field;
        writeln!(out, "kernel,size,backend,unit,work,seconds,per_second")?;
        for m in self.measurements {
            writeln!(
                out,
                "{},{},{},{},{},{:.6},{:.6e}",
                csv_field(&m.kernel),
                csv_field(&m.size),
                m.backend,
                csv_field(&m.unit),
                m.work,
                m.seconds,
                m.per_second
            )?;
        }
        Ok(())
    }
}

pub fn run(backend: BackendChoice, args: &BenchArgs) -> anyhow::Result<()> {
    let rates_file = match (args.save, chompute::gpu::choice::rates_path()) {
        (false, _) => None,
        (true, _) if backend == BackendChoice::Cpu => {
            return Err(anyhow::anyhow!(
                "--save keeps the GPU's rates beside the CPU's: drop --backend cpu"
            ))
        }
        (true, None) => {
            return Err(anyhow::anyhow!(
                "--save: no cache directory (set XDG_CACHE_HOME or HOME)"
            ))
        }
        (true, Some(path)) => {
            chompute::gpu::choice::check_rates_target(&path)?;
            Some(path)
        }
    };
    let (gpu, why_not) = match backend {
        BackendChoice::Cpu => (None, Some("--backend cpu".to_string())),
        _ => match GpuContext::shared() {
            Ok(ctx) => (Some(ctx), None),
            Err(e) if backend == BackendChoice::Gpu => return Err(crate::cmd::on_gpu(e)),
            Err(chompute::Error::NoAdapter(why)) => (None, Some(why)),
            Err(e) => (None, Some(e.to_string())),
        },
    };
    if let (Some(_), None) = (&rates_file, &gpu) {
        let why = why_not.unwrap_or_default();
        return Err(anyhow::anyhow!("--save needs a GPU adapter ({why})"));
    }
    let env = BenchEnv {
        gpu,
        quick: args.quick,
        reps: if args.quick { 1 } else { 3 },
        ca_steps: args.ca_steps,
        progress: crate::cmd::bars::spinner("starting"),
    };
    let mut out = Vec::new();
    bench_p_grid(&env, &mut out)?;
    render::bench_render(&env, &mut out)?;
    window::bench_block_counts(&env, &mut out)?;
    chomp::bench_chomp(&env, &mut out)?;
    pass::bench_pass(&env, &mut out)?;
    let ca_traffic = ca::bench_ca(&env, &mut out)?;
    env.progress.finish_and_clear();

    let saved = match (&rates_file, &env.gpu) {
        (Some(path), Some(ctx)) => Some(save(path, ctx, &out)?),
        _ => None,
    };
    let report = BenchReport {
        saved,
        adapter: env.gpu.as_ref().map(|c| c.report()),
        gpu_skipped_because: why_not,
        measurements: &out,
        ca_traffic,
    };
    print_report(&report, args.format.get())
}

/// Save each job's CPU and GPU rates from this run's rows (the rows [`Job::bench_rows`] names;
/// a job with either row missing is left out) for this machine.
fn save(path: &std::path::Path, ctx: &GpuContext, out: &[Measurement]) -> anyhow::Result<Saved> {
    use chompute::gpu::choice::{now_seconds, save_rates, JobRates, MachineKey, MachineRates};
    use chompute::gpu::Job;
    let rate = |kernel: &str, backend: &str, size: &str| {
        out.iter()
            .find(|m| m.kernel == kernel && m.backend == backend && m.size.starts_with(size))
            .map(|m| m.per_second)
            .filter(|r| r.is_finite() && *r > 0.0)
    };
    let mut jobs = std::collections::BTreeMap::new();
    for job in Job::ALL {
        let (cpu_row, gpu_row, size) = job.bench_rows();
        if let (Some(cpu), Some(gpu)) = (rate(cpu_row, "cpu", size), rate(gpu_row, "gpu", size)) {
            jobs.insert(job.name().to_string(), JobRates { cpu, gpu });
        }
    }
    // Each automaton kernel's large-grid rate (its `(last quarter)` row, whose size ends in the
    // kernel's name), for `ca --kernel auto`.
    let kernels = out
        .iter()
        .filter(|m| m.backend == "gpu" && m.kernel.starts_with("ca steps"))
        .filter(|m| m.kernel.ends_with("(last quarter)"))
        .filter(|m| m.per_second.is_finite() && m.per_second > 0.0)
        .filter_map(|m| {
            let name = m.size.rsplit(", ").next()?;
            Some((name.split(' ').next()?.to_string(), m.per_second))
        })
        .collect();
    let names = jobs.keys().cloned().collect();
    save_rates(
        path,
        MachineRates {
            key: MachineKey::of(ctx),
            measured_at: now_seconds(),
            jobs,
            kernels,
        },
    )?;
    Ok(Saved {
        file: path.display().to_string(),
        jobs: names,
    })
}
