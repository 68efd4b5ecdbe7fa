//! `chompute ca STEPS`: the second-order automaton of SPEC §3, on the GPU or the CPU, with
//! verification against the P-test, PNG frames and a stacked voxel mesh.

use super::{describe_pictures, print_claims, print_json, verdict};
use crate::cli::{CaArgs, CaKernelChoice};
use anyhow::anyhow;
use chompute::chocolate::automaton::{cell_updates, Automaton, AutomatonCheck, MAX_STEPS};
use chompute::chocolate::backend::AutomatonBackend;
use chompute::chocolate::octahedron::stack_point;
use chompute::claim::Claim;
use chompute::gpu::ca::{CaGpu, CaKernel};
use chompute::gpu::{BackendChoice, Engine};
use chompute::render::figures::write_generation_png;
use chompute::render::mesh::{check_mesh_path, write_mesh, BitLayer, VoxelSurface};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// On the GPU with --verify, compare with the CPU twin at least this often (in steps).
pub const GPU_COMPARE_EVERY: u64 = 64;

#[derive(Serialize)]
struct Report {
    steps: u64,
    backend: &'static str,
    /// The GPU kernel (`step`, or `block KxR`: K steps per dispatch, R rows per tile); null on
    /// the CPU.
    kernel: Option<String>,
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
}

#[derive(Serialize)]
struct StackReport {
    file: String,
    vertices: usize,
    triangles: usize,
    voxels: u128,
}

pub fn run(backend: BackendChoice, args: &CaArgs) -> anyhow::Result<()> {
    let steps = args.steps;
    if steps > MAX_STEPS {
        return Err(anyhow!(
            "the automaton runs at most {MAX_STEPS} steps (got {steps})"
        ));
    }
    if args.every.is_some() && args.frames.is_none() {
        return Err(anyhow!("--every K needs --frames DIR"));
    }
    let every = args.every.unwrap_or(1);
    if let Some(dir) = &args.frames {
        if dir.exists() && !dir.is_dir() {
            return Err(anyhow!("--frames {}: not a directory", dir.display()));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow!("--frames {}: cannot create it: {e}", dir.display()))?;
    }
    if let Some(path) = &args.mesh {
        check_mesh_path(path, true)?;
    }
    let description = args.frames.is_some().then(|| {
        describe_pictures(&format!(
            "generations of the automaton of SPEC §3 (generation n is P(n+1)), on a {0}×{0} canvas",
            steps + 1
        ))
    });
    let engine = super::engine(backend)?;
    let ctx = match &engine {
        Engine::Gpu(ctx) => Some(ctx.clone()),
        Engine::Cpu => None,
    };
    // What runs the steps, and the GPU kernel's name (none on the CPU).
    let (mut runner, kernel_name): (Box<dyn AutomatonBackend>, Option<String>) = match &ctx {
        Some(ctx) => {
            let kernel = match args.kernel {
                CaKernelChoice::Auto => CaKernel::best(ctx),
                CaKernelChoice::Step => CaKernel::Step,
                CaKernelChoice::Block => CaKernel::block(ctx).ok_or_else(|| {
                    anyhow!("--kernel block: this GPU has too little workgroup memory for a tile")
                })?,
            };
            let gpu = CaGpu::with_options(ctx.clone(), steps, kernel, ctx.max_binding_bytes())
                .map_err(super::on_gpu)?;
            (Box::new(gpu), Some(kernel.name()))
        }
        None => (Box::new(Automaton::new(steps)?), None),
    };
    // On the GPU, --verify runs the CPU twin beside it; on the CPU the runner is checked itself.
    let mut twin = if ctx.is_some() && args.verify {
        Some(Automaton::new(steps)?)
    } else {
        None
    };
    let digits = steps.to_string().len();
    let frame_path = |n: u64| -> PathBuf {
        args.frames
            .as_ref()
            .expect("frames dir")
            .join(format!("gen-{n:0digits$}.png"))
    };
    let mut surface = args.mesh.as_ref().map(|_| VoxelSurface::new());
    // The stack meshes layer z once layer z+1 is known: keep (z-1, z).
    let mut layers: (Option<BitLayer>, Option<BitLayer>) = (None, None);
    let mut check = AutomatonCheck::new();
    if let Some(t) = twin.as_ref() {
        // The twin checks each generation against the P-test, its seed b_0 included.
        check.against_p_test(t, steps == 0)?;
    }
    let mut frames = 0u64;
    let mut compute_seconds = 0.0f64;
    let progress = crate::cmd::bars::bar(steps, "steps");

    let mut n = 0u64;
    loop {
        // Generation n is ready: frames, stack, verification.
        if args.frames.is_some() && n.is_multiple_of(every) {
            write_generation_png(
                &frame_path(n),
                steps + 1,
                n + 1,
                &runner.current_u32()?,
                description.as_deref(),
            )?;
            frames += 1;
        }
        if let Some(s) = surface.as_mut() {
            let layer = BitLayer {
                side: n + 1,
                words: runner.current_u32()?,
            };
            if let Some(z) = layers.1.take() {
                s.add_layer(n - 1, layers.0.as_ref(), &z, Some(&layer));
                layers.0 = Some(z);
            }
            layers.1 = Some(layer);
        }
        if args.verify {
            match twin.as_ref() {
                None => check.against_p_test(&*runner, n == steps)?,
                Some(t) => {
                    debug_assert_eq!(t.generation(), n);
                    if n.is_multiple_of(GPU_COMPARE_EVERY) || n == steps {
                        check.against_twin(n, &runner.current_u32()?, &t.current_u32());
                        if n > 0 {
                            check.against_twin(n - 1, &runner.previous_u32()?, &t.previous_u32());
                        }
                    }
                }
            }
        }
        // A disagreement ends the run: the report names the first.
        if n == steps || check.failed() {
            break;
        }
        // Run to the next generation anything needs.
        let mut stop = steps;
        if args.frames.is_some() {
            stop = stop.min((n / every + 1) * every);
        }
        if surface.is_some() || (args.verify && twin.is_none()) {
            stop = n + 1;
        }
        if twin.is_some() {
            stop = stop.min((n / GPU_COMPARE_EVERY + 1) * GPU_COMPARE_EVERY);
        }
        if !progress.is_hidden() {
            // On a terminal, run in pieces of about 1% of the steps so the bar moves.
            stop = stop.min(n + (steps / 100).max(1));
        }
        let start = Instant::now();
        runner.advance(stop - n)?;
        runner.finish()?;
        compute_seconds += start.elapsed().as_secs_f64();
        if let Some(t) = twin.as_mut() {
            // The twin checks each of its generations against the P-test as it goes.
            while t.generation() < stop && !check.failed() {
                t.step();
                check.against_p_test(t, t.generation() == steps)?;
            }
        }
        progress.set_position(stop);
        crate::cmd::bars::set_rate(&progress, cell_updates(0, stop) as f64, "cell updates");
        n = stop;
    }
    progress.finish_and_clear();

    let live = runner.live_cells()?;
    if args.verify && n == steps {
        check.live_cells(steps, live);
    }
    let cells_verified = check.cells_compared() as u64;
    let checks = args.verify.then(|| check.claims());
    if let Some(c) = checks.as_ref().filter(|c| c.iter().any(|c| !c.pass)) {
        // The run stopped early: report the claims, nothing else.
        if args.json {
            print_json(&serde_json::json!({ "steps": steps, "checks": c }))?;
        } else {
            print_claims(c, args.csv)?;
        }
        return verdict(c);
    }
    let stack = match (surface, &args.mesh) {
        (Some(mut s), Some(path)) => {
            if let Some(z) = layers.1.take() {
                s.add_layer(steps, layers.0.as_ref(), &z, None);
            }
            let voxels = s.voxels();
            // The half octahedron of SPEC §2; mirroring z reverses the orientation.
            let mesh = s.into_mesh(|p| stack_point(p, steps), true);
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
    if args.json {
        return print_json(&Report {
            steps,
            backend: engine.name(),
            kernel: kernel_name.clone(),
            live_cells: live,
            cell_updates: updates,
            seconds: compute_seconds,
            cell_updates_per_second: rate,
            verified: args.verify,
            cells_verified,
            frames,
            stack,
            checks,
        });
    }
    if let (Some(c), true) = (&checks, args.csv) {
        return print_claims(c, true);
    }
    crate::outln!(
        "generation {steps}: {live} live cells = g({}) = P-positions of C({},{})",
        steps + 1,
        steps + 1,
        steps + 1
    );
    crate::outln!(
        "{steps} steps, {updates} cell updates in {compute_seconds:.3} s on the {}{}: {rate:.3e} cell updates/s",
        engine.name().to_uppercase(),
        kernel_name
            .map(|k| format!(" ({k} kernel)"))
            .unwrap_or_default()
    );
    if let Some(c) = &checks {
        print_claims(c, false)?;
    }
    if frames > 0 {
        crate::outln!(
            "{frames} frames in {}",
            args.frames.as_ref().expect("frames dir").display()
        );
    }
    if let Some(s) = &stack {
        crate::outln!(
            "stack: {} ({} vertices, {} triangles, {} voxels)",
            s.file,
            s.vertices,
            s.triangles,
            s.voxels
        );
    }
    Ok(())
}
