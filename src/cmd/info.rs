//! `chompute info`: the adapter and limits, or why there is no GPU.
//!
//! Tests: the command as users run it in tests/faults/backend.rs, tests/faults/pipes.rs,
//! tests/pictures/cli_foundation.rs.

use super::print_json;
use crate::cli::Format;
use crate::cli::InfoArgs;
use chompute::gpu::GpuContext;
use serde_json::json;

pub fn run(args: &InfoArgs) -> anyhow::Result<()> {
    match GpuContext::shared() {
        Ok(ctx) => {
            let r = ctx.report();
            let auto = if r.software { "cpu" } else { "gpu" };
            if args.format.get() == Format::Json {
                print_json(&json!({ "adapter": r, "reason": null, "auto_selects": auto }))?;
            } else {
                crate::outln!("adapter:      {}", r.name);
                crate::outln!("backend:      {}", r.backend);
                crate::outln!(
                    "device type:  {}{}",
                    r.device_type,
                    if r.software { " (software)" } else { "" }
                );
                crate::outln!("driver:       {} {}", r.driver, r.driver_info);
                crate::outln!("limits in use:");
                crate::outln!(
                    "  max storage binding:        {} bytes",
                    r.max_storage_buffer_binding_size
                );
                crate::outln!("  max buffer:                 {} bytes", r.max_buffer_size);
                crate::outln!(
                    "  max workgroups / dimension: {}",
                    r.max_compute_workgroups_per_dimension
                );
                crate::outln!(
                    "  max invocations / group:    {}",
                    r.max_compute_invocations_per_workgroup
                );
                crate::outln!(
                    "  workgroup storage:          {} bytes",
                    r.max_compute_workgroup_storage_size
                );
                crate::outln!(
                    "  P-grid tile:                {} bytes",
                    ctx.max_binding_bytes()
                );
                crate::outln!("--backend auto selects: {auto}");
            }
        }
        Err(e) => {
            let reason = match e {
                chompute::Error::NoAdapter(why) => format!("{why} or use --backend cpu"),
                other => other.to_string(),
            };
            if args.format.get() == Format::Json {
                print_json(&json!({ "adapter": null, "reason": reason, "auto_selects": "cpu" }))?;
            } else {
                crate::outln!("no GPU: {reason}");
                crate::outln!("--backend auto selects: cpu");
            }
        }
    }
    Ok(())
}
