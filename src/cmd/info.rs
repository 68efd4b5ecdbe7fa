//! `chompute info`: the adapter and limits, or why there is no GPU, and what `auto` picks for
//! each job and why.
//!
//! Tests: the command as users run it in tests/faults/backend.rs, tests/faults/pipes.rs,
//! tests/pictures/cli_foundation.rs.

use super::out::{print_report, Report, Stdout};
use crate::cli::InfoArgs;
use chompute::gpu::ca::CaKernel;
use chompute::gpu::choice::{decide_all, rates_path, saved_rates, Decision, KernelReason};
use chompute::gpu::context::AdapterReport;
use chompute::gpu::engine::adapter_view;
use chompute::gpu::GpuContext;
use serde::Serialize;
use std::io::Write;

/// The adapter in use, or why there is none, and what `--backend auto` picks. The JSON keeps
/// its keys in alphabetical order, as it always had.
#[derive(Serialize)]
struct InfoReport {
    #[serde(serialize_with = "sorted_keys")]
    adapter: Option<AdapterReport>,
    /// Per job, what `--backend auto` picks and why.
    auto: Vec<Decision>,
    /// "gpu" when `auto` may use the adapter at all (a real one), else "cpu".
    auto_selects: &'static str,
    /// The kernel `ca --kernel auto` steps the automaton with on the adapter, and why
    /// (null without one).
    automaton_kernel: Option<KernelChoice>,
    /// Where `bench --save` keeps the measured rates (null without a cache directory).
    rates_file: Option<String>,
    reason: Option<String>,
    /// The bytes of one P-grid tile (the text's last limit).
    #[serde(skip)]
    tile_bytes: u64,
}

/// The automaton kernel `ca --kernel auto` picks.
#[derive(Serialize)]
struct KernelChoice {
    kernel: String,
    reason: KernelReason,
}

/// The adapter as a JSON object with its keys sorted.
fn sorted_keys<S: serde::Serializer>(a: &Option<AdapterReport>, s: S) -> Result<S::Ok, S::Error> {
    let value = serde_json::to_value(a).map_err(serde::ser::Error::custom)?;
    value.serialize(s)
}

impl Report for InfoReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let Some(r) = &self.adapter else {
            let reason = self.reason.as_deref().unwrap_or_default();
            writeln!(out, "no GPU: {reason}")?;
            return self.choices(out);
        };
        let software = if r.software { " (software)" } else { "" };
        writeln!(out, "adapter:      {}", r.name)?;
        writeln!(out, "backend:      {}", r.backend)?;
        writeln!(out, "device type:  {}{software}", r.device_type)?;
        writeln!(out, "driver:       {} {}", r.driver, r.driver_info)?;
        writeln!(out, "limits in use:")?;
        let limits = [
            (
                "max storage binding:       ",
                format!("{} bytes", r.max_storage_buffer_binding_size),
            ),
            (
                "max buffer:                ",
                format!("{} bytes", r.max_buffer_size),
            ),
            (
                "max workgroups / dimension:",
                r.max_compute_workgroups_per_dimension.to_string(),
            ),
            (
                "max invocations / group:   ",
                r.max_compute_invocations_per_workgroup.to_string(),
            ),
            (
                "workgroup storage:         ",
                format!("{} bytes", r.max_compute_workgroup_storage_size),
            ),
            (
                "P-grid tile:               ",
                format!("{} bytes", self.tile_bytes),
            ),
        ];
        for (name, value) in limits {
            writeln!(out, "  {name} {value}")?;
        }
        let subgroups = match r.subgroup_sizes {
            Some([min, max]) => format!("{min} to {max} lanes"),
            None => "none".into(),
        };
        writeln!(out, "  subgroups:                  {subgroups}")?;
        if let Some(k) = &self.automaton_kernel {
            let why = match k.reason {
                KernelReason::Measured => "the fastest measured rate",
                KernelReason::Rule => "no measured rate",
            };
            writeln!(out, "ca --kernel auto: {} ({why})", k.kernel)?;
        }
        self.choices(out)
    }
}

impl InfoReport {
    /// What `auto` picks for each job, and why.
    fn choices(&self, out: &mut Stdout) -> std::io::Result<()> {
        writeln!(out, "--backend auto selects, per job:")?;
        for d in &self.auto {
            let (job, side) = (d.job.name(), d.side.name());
            writeln!(out, "  {job:<10} {side}  {}", d.reason.describe())?;
        }
        if let Some(path) = &self.rates_file {
            writeln!(out, "rates file: {path}")?;
        }
        Ok(())
    }
}

pub fn run(args: &InfoArgs) -> anyhow::Result<()> {
    let shared = GpuContext::shared();
    let auto = decide_all(&adapter_view(shared.as_deref().ok()), saved_rates());
    let rates_file = rates_path().map(|p| p.display().to_string());
    let report = match shared {
        Ok(ctx) => {
            let r = ctx.report();
            let (kernel, reason) = CaKernel::best_with_reason(&ctx, saved_rates());
            InfoReport {
                auto_selects: if r.software { "cpu" } else { "gpu" },
                automaton_kernel: Some(KernelChoice {
                    kernel: kernel.name(),
                    reason,
                }),
                adapter: Some(r),
                auto,
                rates_file,
                reason: None,
                tile_bytes: ctx.max_binding_bytes(),
            }
        }
        Err(e) => InfoReport {
            adapter: None,
            auto,
            rates_file,
            reason: Some(match e {
                chompute::Error::NoAdapter(why) => format!("{why} or use --backend cpu"),
                other => other.to_string(),
            }),
            auto_selects: "cpu",
            automaton_kernel: None,
            tile_bytes: 0,
        },
    };
    print_report(&report, args.format.get())
}
