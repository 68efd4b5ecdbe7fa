//! `chompute info`: the adapter and limits, or why there is no GPU.

use super::print_json;
use crate::cli::InfoArgs;
use chompute::gpu::GpuContext;
use serde_json::json;

pub fn run(args: &InfoArgs) -> anyhow::Result<()> {
    match GpuContext::shared() {
        Ok(ctx) => {
            let r = ctx.report();
            let auto = if r.software { "cpu" } else { "gpu" };
            if args.json {
                print_json(&json!({ "adapter": r, "reason": null, "auto_selects": auto }))?;
            } else {
                println!("adapter:      {}", r.name);
                println!("backend:      {}", r.backend);
                println!(
                    "device type:  {}{}",
                    r.device_type,
                    if r.software { " (software)" } else { "" }
                );
                println!("driver:       {} {}", r.driver, r.driver_info);
                println!("limits in use:");
                println!(
                    "  max storage binding:        {} bytes",
                    r.max_storage_buffer_binding_size
                );
                println!("  max buffer:                 {} bytes", r.max_buffer_size);
                println!(
                    "  max workgroups / dimension: {}",
                    r.max_compute_workgroups_per_dimension
                );
                println!(
                    "  max invocations / group:    {}",
                    r.max_compute_invocations_per_workgroup
                );
                println!(
                    "  workgroup storage:          {} bytes",
                    r.max_compute_workgroup_storage_size
                );
                println!(
                    "  P-grid tile:                {} bytes",
                    ctx.max_binding_bytes()
                );
                println!("--backend auto selects: {auto}");
            }
        }
        Err(e) => {
            let reason = match e {
                chompute::Error::NoAdapter(why) => format!("{why} or use --backend cpu"),
                other => other.to_string(),
            };
            if args.json {
                print_json(&json!({ "adapter": null, "reason": reason, "auto_selects": "cpu" }))?;
            } else {
                println!("no GPU: {reason}");
                println!("--backend auto selects: cpu");
            }
        }
    }
    Ok(())
}
