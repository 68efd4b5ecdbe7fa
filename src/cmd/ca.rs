//! `chompute ca STEPS`: the second-order automaton of SPEC §3, on the GPU or the CPU, with
//! verification against the P-test, PNG frames and a stacked voxel mesh.

use super::{describe_pictures, print_json};
use crate::chocolate::automaton::{cell_updates, Automaton, MAX_STEPS};
use crate::chocolate::grid::{p_rows_cpu, p_rows_naive, Window};
use crate::chocolate::{g_recurrence, words_per_row};
use crate::cli::{CaArgs, CaKernelChoice};
use crate::error::CheckFailed;
use crate::gpu::ca::{CaGpu, CaKernel};
use crate::gpu::{BackendChoice, Engine};
use crate::render::mesh::{check_mesh_path, write_mesh, BitLayer, VoxelSurface};
use crate::render::picture::words_to_bytes;
use crate::render::png::{write_png, Compression, PixelFormat, PngSpec};
use crate::usage;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Generations compared whole with the P-test up to this side; beyond it, sampled rows
/// (plus the last generation whole).
pub const VERIFY_WHOLE_UP_TO: u64 = 1024;
/// Rows sampled per generation beyond [`VERIFY_WHOLE_UP_TO`]: the first, the last, the middle
/// and pseudo-random ones.
pub const VERIFY_SAMPLED_ROWS: u64 = 6;
/// On the GPU with --verify, compare with the CPU twin at least this often (in steps).
pub const GPU_COMPARE_EVERY: u64 = 64;

/// Background and P-cell colours of frames and sections: cream and dark chocolate.
pub const PALETTE: [u8; 6] = [0xf7, 0xf1, 0xe3, 0x3b, 0x1f, 0x0e];

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
}

#[derive(Serialize)]
struct StackReport {
    file: String,
    vertices: usize,
    triangles: usize,
    voxels: u128,
}

/// Write a generation (`side`×`side` packed rows) into a `canvas`×`canvas` 1-bit PNG, P-cells in
/// chocolate on cream, the rest of the canvas empty.
pub fn write_generation_png(
    path: &Path,
    canvas: u64,
    side: u64,
    words: &[u32],
) -> anyhow::Result<()> {
    let spec = PngSpec {
        width: u32::try_from(canvas).map_err(|_| usage!("frame too large"))?,
        height: u32::try_from(canvas).map_err(|_| usage!("frame too large"))?,
        format: PixelFormat::Indexed {
            bits: 1,
            palette: PALETTE.to_vec(),
        },
        compression: Compression::Fast,
    };
    let wpr = words_per_row(side);
    write_png(path, &spec, |y, row| {
        row.fill(0);
        if (y as u64) < side {
            // The generation's words are a 1-bit PNG row; the canvas past it stays empty.
            let take = row.len().min(4 * wpr);
            words_to_bytes(
                &words[y as usize * wpr..(y as usize + 1) * wpr],
                &mut row[..take],
                0,
            );
        }
        Ok(())
    })
}

/// The first cell where two packed grids of the same side differ, 0-based.
fn first_difference(side: u64, a: &[u32], b: &[u32]) -> Option<(u64, u64)> {
    let wpr = words_per_row(side);
    let k = a.iter().zip(b).position(|(x, y)| x != y)?;
    let (row, word) = (k / wpr, k % wpr);
    let bit = (a[k] ^ b[k]).leading_zeros() as u64;
    Some((row as u64, word as u64 * 32 + bit))
}

fn pcell(words: &[u32], side: u64, i: u64, j: u64) -> bool {
    words[(i as usize) * words_per_row(side) + (j / 32) as usize] >> (31 - j % 32) & 1 == 1
}

/// Compare generation n of the CPU automaton with the P-test grid of C(n+1,n+1): whole when
/// small or `whole`, else sampled rows. Returns the cells compared.
fn verify_against_p_test(a: &Automaton, whole: bool) -> anyhow::Result<u64> {
    let n = a.generation();
    let m = n + 1;
    let mismatch = |i: u64, j: u64, live: bool| -> anyhow::Error {
        CheckFailed(format!(
            "generation {n}: cell ({i},{j}) is {} in the automaton but cell ({},{}) of C({m},{m}) is {} by the P-test",
            if live { "live" } else { "dead" },
            i + 1,
            j + 1,
            if live { "not P" } else { "P" }
        ))
        .into()
    };
    if whole || m <= VERIFY_WHOLE_UP_TO {
        let w = Window::full(m, m)?;
        let mut p = vec![0u32; w.total_words()?];
        p_rows_cpu(&w, &mut p);
        let b = a.current_u32();
        if let Some((i, j)) = first_difference(m, &b, &p) {
            return Err(mismatch(i, j, pcell(&b, m, i, j)));
        }
        return Ok(m * m);
    }
    // Sampled rows: the first, the last, the middle and pseudo-random ones (splitmix of n).
    let mut rows = vec![0, n, n / 2];
    let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    while (rows.len() as u64) < VERIFY_SAMPLED_ROWS {
        x = (x ^ (x >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x ^= x >> 27;
        rows.push(x % m);
    }
    let wpr = words_per_row(m);
    let mut row32 = vec![0u32; wpr];
    for &i in &rows {
        let want = p_rows_naive(&Window::new(m, m, i + 1, 1, 1, m)?);
        crate::chocolate::automaton::u64_row_to_u32(a.row(i as usize), &mut row32);
        if let Some((_, j)) = first_difference(m, &row32, &want) {
            return Err(mismatch(i, j, pcell(&row32, m, 0, j)));
        }
    }
    Ok(rows.len() as u64 * m)
}

/// What runs the steps.
enum Runner<'a> {
    Cpu(Automaton),
    Gpu(CaGpu<'a>),
}

pub fn run(backend: BackendChoice, args: &CaArgs) -> anyhow::Result<()> {
    let steps = args.steps;
    if steps > MAX_STEPS {
        return Err(usage!(
            "the automaton runs at most {MAX_STEPS} steps (got {steps})"
        ));
    }
    if args.every.is_some() && args.frames.is_none() {
        return Err(usage!("--every K needs --frames DIR"));
    }
    let every = args.every.unwrap_or(1);
    if let Some(dir) = &args.frames {
        if dir.exists() && !dir.is_dir() {
            return Err(usage!("--frames {}: not a directory", dir.display()));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| usage!("--frames {}: cannot create it: {e}", dir.display()))?;
    }
    if let Some(path) = &args.mesh {
        check_mesh_path(path, true)?;
    }
    if args.frames.is_some() {
        describe_pictures(&format!(
            "generations of the automaton of SPEC §3 (generation n is P(n+1)), on a {0}×{0} canvas",
            steps + 1
        ));
    }
    let engine = Engine::select(backend)?;
    let ctx = match &engine {
        Engine::Gpu(ctx) => Some(ctx.clone()),
        Engine::Cpu => None,
    };
    let mut runner = match &ctx {
        Some(ctx) => {
            let kernel = match args.kernel {
                CaKernelChoice::Auto => CaKernel::best(ctx),
                CaKernelChoice::Step => CaKernel::Step,
                CaKernelChoice::Block => CaKernel::block(ctx).ok_or_else(|| {
                    usage!("--kernel block: this GPU has too little workgroup memory for a tile")
                })?,
            };
            Runner::Gpu(CaGpu::with_options(
                ctx,
                steps,
                kernel,
                ctx.max_binding_bytes(),
            )?)
        }
        None => Runner::Cpu(Automaton::new(steps)?),
    };
    // On the GPU, --verify runs the CPU twin beside it.
    let mut twin = match (&runner, args.verify) {
        (Runner::Gpu(_), true) => Some(Automaton::new(steps)?),
        _ => None,
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
    let mut cells_verified = 0u64;
    let mut frames = 0u64;
    let mut compute_seconds = 0.0f64;
    let progress = crate::progress::bar(steps, "steps");

    let mut n = 0u64;
    loop {
        // Generation n is ready: frames, stack, verification.
        let current = || -> anyhow::Result<Vec<u32>> {
            match &runner {
                Runner::Cpu(a) => Ok(a.current_u32()),
                Runner::Gpu(g) => g.current_u32(),
            }
        };
        if args.frames.is_some() && n.is_multiple_of(every) {
            write_generation_png(&frame_path(n), steps + 1, n + 1, &current()?)?;
            frames += 1;
        }
        if let Some(s) = surface.as_mut() {
            let layer = BitLayer {
                side: n + 1,
                words: current()?,
            };
            if let Some(z) = layers.1.take() {
                s.add_layer(n - 1, layers.0.as_ref(), &z, Some(&layer));
                layers.0 = Some(z);
            }
            layers.1 = Some(layer);
        }
        if args.verify {
            match (&runner, twin.as_ref()) {
                (Runner::Cpu(a), _) => cells_verified += verify_against_p_test(a, n == steps)?,
                (Runner::Gpu(g), Some(t)) => {
                    debug_assert_eq!(t.generation(), n);
                    if n.is_multiple_of(GPU_COMPARE_EVERY) || n == steps {
                        for (which, gpu, cpu) in [
                            (n, g.current_u32()?, t.current_u32()),
                            (n.saturating_sub(1), g.previous_u32()?, t.previous_u32()),
                        ] {
                            if let Some((i, j)) = first_difference(which + 1, &gpu, &cpu) {
                                return Err(CheckFailed(format!(
                                    "generation {which}: cell ({i},{j}) (0-based) differs between GPU and CPU"
                                ))
                                .into());
                            }
                            cells_verified += gpu.len() as u64 * 32;
                        }
                    }
                }
                (Runner::Gpu(_), None) => unreachable!("twin built for --verify"),
            }
        }
        if n == steps {
            break;
        }
        // Run to the next generation anything needs.
        let mut stop = steps;
        if args.frames.is_some() {
            stop = stop.min((n / every + 1) * every);
        }
        if surface.is_some() || (args.verify && matches!(runner, Runner::Cpu(_))) {
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
        match &mut runner {
            Runner::Cpu(a) => a.run(stop - n),
            Runner::Gpu(g) => {
                g.advance(stop - n)?;
                g.finish()?;
            }
        }
        compute_seconds += start.elapsed().as_secs_f64();
        if let Some(t) = twin.as_mut() {
            // The twin checks each of its generations against the P-test as it goes.
            while t.generation() < stop {
                t.step();
                cells_verified += verify_against_p_test(t, t.generation() == steps)?;
            }
        }
        progress.set_position(stop);
        crate::progress::set_rate(&progress, cell_updates(0, stop) as f64, "cell updates");
        n = stop;
    }
    progress.finish_and_clear();

    let live = match &runner {
        Runner::Cpu(a) => a.live_cells(),
        Runner::Gpu(g) => g.live_cells()?,
    };
    let g = g_recurrence(steps + 1)?;
    if args.verify && live as u128 != g {
        return Err(CheckFailed(format!(
            "generation {steps} has {live} live cells but g({}) = {g}",
            steps + 1
        ))
        .into());
    }
    let stack = match (surface, &args.mesh) {
        (Some(mut s), Some(path)) => {
            if let Some(z) = layers.1.take() {
                s.add_layer(steps, layers.0.as_ref(), &z, None);
            }
            let voxels = s.voxels();
            // Layer z (generation z) is centred under the apex and stands z/2 below it: the
            // stack becomes the half octahedron in the rotated frame of SPEC §2, where a layer
            // is half as thick as a cell is wide. Mirroring z reverses the orientation.
            let top = (steps + 1) as f32;
            let mesh = s.into_mesh(
                |p| {
                    let [x2, y2, z2] = p.map(|v| v as f32);
                    [
                        x2 / 2.0 - z2 / 4.0 - 0.25,
                        y2 / 2.0 - z2 / 4.0 - 0.25,
                        (top - z2 / 2.0) / 2.0,
                    ]
                },
                true,
            );
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
    let kernel_name = match &runner {
        Runner::Gpu(g) => Some(g.kernel().name()),
        Runner::Cpu(_) => None,
    };
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
        });
    }
    println!(
        "generation {steps}: {live} live cells = g({}) = P-positions of C({},{})",
        steps + 1,
        steps + 1,
        steps + 1
    );
    println!(
        "{steps} steps, {updates} cell updates in {compute_seconds:.3} s on the {}{}: {rate:.3e} cell updates/s",
        engine.name().to_uppercase(),
        kernel_name
            .map(|k| format!(" ({k} kernel)"))
            .unwrap_or_default()
    );
    if args.verify {
        println!(
            "verified: every generation agrees with the P-test ({cells_verified} cells compared)"
        );
    }
    if frames > 0 {
        println!(
            "{frames} frames in {}",
            args.frames.as_ref().expect("frames dir").display()
        );
    }
    if let Some(s) = &stack {
        println!(
            "stack: {} ({} vertices, {} triangles, {} voxels)",
            s.file, s.vertices, s.triangles, s.voxels
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_difference_names_the_cell() {
        let side = 70; // three words per row
        let a = vec![0u32; 3 * side as usize];
        let mut b = a.clone();
        assert_eq!(first_difference(side, &a, &b), None);
        // Row 5, column 64 + 3.
        b[5 * 3 + 2] |= 1 << (31 - 3);
        assert_eq!(first_difference(side, &a, &b), Some((5, 67)));
        assert!(pcell(&b, side, 5, 67) && !pcell(&b, side, 5, 66));
    }
}
