//! `chompute ca STEPS`: the second-order automaton of docs/mathematics.md §3, on the GPU or the
//! CPU, with verification against the P-test, PNG frames and a stacked voxel mesh.
//!
//! Tests: the command as users run it in tests/engine/, tests/faults/, tests/pictures/.

use super::out::{print_report, Report, Stdout};
use super::{describe_pictures, verdict};
use crate::cli::{CaArgs, CaKernelChoice};
use anyhow::anyhow;
use chompute::chocolate::automaton::{cell_updates, Automaton, Run, Verification, Watcher};
use chompute::chocolate::backend::AutomatonBackend;
use chompute::claim::Claim;
use chompute::gpu::ca::{CaGpu, CaKernel};
use chompute::gpu::{BackendChoice, Engine};
use chompute::render::figures::FrameWriter;
use chompute::render::mesh::{check_mesh_path, check_stack_memory, write_mesh, StackWriter};
use serde::Serialize;
use std::io::Write;

#[derive(Serialize)]
struct CaReport {
    steps: u64,
    backend: &'static str,
    /// The GPU kernel (`step`, or `block KxR`: K steps per dispatch, R rows per tile); null on
    /// the CPU.
    kernel: Option<String>,
    /// Bytes of grid traffic (read and written) per cell update by the GPU kernel's tile
    /// arithmetic; null on the CPU.
    bytes_per_update: Option<f64>,
    /// Live cells of generation STEPS, = g(STEPS+1).
    live_cells: u64,
    cell_updates: u64,
    seconds: f64,
    cell_updates_per_second: f64,
    verified: bool,
    /// Cells compared with the P-test (and, on the GPU, words compared with the CPU twin).
    cells_verified: u64,
    frames: u64,
    stack: Option<StackReport>,
    /// With --verify: the claims checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    checks: Option<Vec<Claim>>,
    /// Where the frames went, for the text.
    #[serde(skip)]
    frames_dir: Option<String>,
}

impl Report for CaReport {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        let (steps, live, updates) = (self.steps, self.live_cells, self.cell_updates);
        let side = steps + 1;
        writeln!(
            out,
            "generation {steps}: {live} live cells = g({side}) = P-positions of C({side},{side})"
        )?;
        let kernel = self.kernel.as_ref().map(|k| {
            let bytes = self.bytes_per_update.unwrap_or_default();
            format!(" ({k} kernel, {bytes:.3} bytes per update)")
        });
        writeln!(
            out,
            "{steps} steps, {updates} cell updates in {:.3} s on the {}{}: {:.3e} cell updates/s",
            self.seconds,
            self.backend.to_uppercase(),
            kernel.unwrap_or_default(),
            self.cell_updates_per_second
        )?;
        if let Some(c) = &self.checks {
            chompute::claim::write_text(out, c)?;
        }
        if let Some(dir) = &self.frames_dir {
            writeln!(out, "{} frames in {dir}", self.frames)?;
        }
        if let Some(s) = &self.stack {
            writeln!(
                out,
                "stack: {} ({} vertices, {} triangles, {} voxels)",
                s.file, s.vertices, s.triangles, s.voxels
            )?;
        }
        Ok(())
    }

    /// The verification's claims (`--csv` needs `--verify`).
    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        chompute::claim::write_csv(out, self.checks.as_deref().unwrap_or_default())
    }
}

/// A run stopped by a failed check: its claims, nothing else.
#[derive(Serialize)]
struct StoppedReport<'a> {
    checks: &'a [Claim],
    steps: u64,
}

impl Report for StoppedReport<'_> {
    fn text(&self, out: &mut Stdout) -> std::io::Result<()> {
        chompute::claim::write_text(out, self.checks)
    }

    fn csv(&self, out: &mut Stdout) -> std::io::Result<()> {
        chompute::claim::write_csv(out, self.checks)
    }
}

#[derive(Serialize)]
struct StackReport {
    file: String,
    vertices: usize,
    triangles: usize,
    voxels: u128,
}

/// Every check of `ca`'s arguments before any work (the frames directory is made here).
fn check_args(args: &CaArgs) -> anyhow::Result<()> {
    if args.every.is_some() && args.frames.is_none() {
        return Err(anyhow!("--every K needs --frames DIR"));
    }
    if let Some(dir) = &args.frames {
        if dir.exists() && !dir.is_dir() {
            return Err(anyhow!("--frames {}: not a directory", dir.display()));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow!("--frames {}: cannot create it: {e}", dir.display()))?;
    }
    if let Some(path) = &args.mesh {
        check_mesh_path(path, true)?;
        check_stack_memory(args.steps, super::room())?;
    }
    Ok(())
}

/// What runs the steps (the GPU kernel `--kernel` picks, or the CPU), and the kernel's name
/// (none on the CPU).
fn runner(
    ctx: Option<&std::sync::Arc<chompute::gpu::GpuContext>>,
    choice: CaKernelChoice,
    steps: u64,
) -> anyhow::Result<(Box<dyn AutomatonBackend>, Option<CaKernel>)> {
    Ok(match ctx {
        Some(ctx) => {
            let kernel = match choice {
                CaKernelChoice::Auto => CaKernel::best(ctx),
                CaKernelChoice::Step => CaKernel::Step,
                CaKernelChoice::Block => CaKernel::block(ctx).ok_or_else(|| {
                    anyhow!("--kernel block: this GPU has too little workgroup memory for a tile")
                })?,
                CaKernelChoice::Regs => CaKernel::regs(ctx).ok_or_else(|| {
                    anyhow!("--kernel regs: this GPU has no subgroup operations; use --kernel step")
                })?,
            };
            let gpu = CaGpu::with_options(ctx.clone(), steps, kernel, ctx.max_binding_bytes())
                .map_err(super::on_gpu)?;
            (Box::new(gpu), Some(kernel))
        }
        None => (Box::new(Automaton::new(steps)?), None),
    })
}

pub fn run(backend: BackendChoice, args: &CaArgs) -> anyhow::Result<()> {
    let steps = args.steps;
    check_args(args)?;
    let every = args.every.unwrap_or(1);
    let description = args.frames.is_some().then(|| {
        describe_pictures(&format!(
            "generations of the second-order automaton (generation n is P(n+1), docs/mathematics.md §3), on a {0}×{0} canvas",
            steps + 1
        ))
    });
    let engine = super::engine(backend, chompute::gpu::Job::Automaton)?;
    let ctx = match &engine {
        Engine::Gpu(ctx) => Some(ctx.clone()),
        Engine::Cpu => None,
    };
    let (mut runner, kernel) = runner(ctx.as_ref(), args.kernel, steps)?;
    // The watchers of the run, in the order they see each generation: frames, the stack,
    // the verification (on the GPU with a CPU twin beside it; on the CPU the runner itself).
    let mut frame_writer = match &args.frames {
        Some(dir) => Some(FrameWriter::new(dir, every, steps, description)?),
        None => None,
    };
    let mut stack = args.mesh.as_ref().map(|_| StackWriter::new());
    let mut verification = if args.verify {
        Some(Verification::new(steps, ctx.is_some())?)
    } else {
        None
    };
    let mut watchers: Vec<&mut dyn Watcher> = Vec::new();
    if let Some(f) = frame_writer.as_mut() {
        watchers.push(f);
    }
    if let Some(s) = stack.as_mut() {
        watchers.push(s);
    }
    if let Some(v) = verification.as_mut() {
        watchers.push(v);
    }
    let done = Run::new(steps)?.drive(runner.as_mut(), &mut watchers)?;
    drop(watchers);
    let compute_seconds = done.compute_seconds;
    let frames = frame_writer.map_or(0, |f| f.written);

    let live = runner.live_cells()?;
    let check = verification.map(|v| v.finish(done.reached, live));
    let cells_verified = check.as_ref().map_or(0, |c| c.cells_compared() as u64);
    let checks = check.map(|c| c.claims());
    if let Some(c) = checks.as_ref().filter(|c| c.iter().any(|c| !c.pass)) {
        // The run stopped early: report the claims, nothing else.
        print_report(&StoppedReport { checks: c, steps }, args.format.get())?;
        return verdict(c);
    }
    let stack = match (stack, &args.mesh) {
        (Some(s), Some(path)) => {
            let (mesh, voxels) = s.into_mesh();
            write_mesh(path, &mesh)?;
            Some(StackReport {
                file: path.display().to_string(),
                vertices: mesh.vertices.len(),
                triangles: mesh.triangles.len(),
                voxels,
            })
        }
        _ => None,
    };
    let updates = cell_updates(0, steps) as u64;
    let rate = if compute_seconds > 0.0 {
        updates as f64 / compute_seconds
    } else {
        0.0
    };
    let frames_dir = (frames > 0)
        .then(|| args.frames.as_ref().map(|d| d.display().to_string()))
        .flatten();
    let report = CaReport {
        steps,
        backend: engine.name(),
        kernel: kernel.map(|k| k.name()),
        bytes_per_update: kernel.map(|k| k.traffic().bytes_per_update()),
        live_cells: live,
        cell_updates: updates,
        seconds: compute_seconds,
        cell_updates_per_second: rate,
        verified: args.verify,
        cells_verified,
        frames,
        stack,
        checks,
        frames_dir,
    };
    print_report(&report, args.format.get())
}
