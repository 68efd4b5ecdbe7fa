//! The automaton: GPU == CPU == P-test on sizes that are not powers of two, and `chompute ca`
//! through the built binary.

use crate::common;
use crate::meshes;

use chompute::chocolate::automaton::Automaton;
use chompute::chocolate::automaton::{BlockShape, RegsShape};
use chompute::chocolate::backend::AutomatonBackend;
use chompute::chocolate::grid::{p_rows_cpu, Window};
use chompute::gpu::ca::{CaGpu, CaKernel};
use chompute::gpu::Engine;
use common::*;
use meshes::*;

fn p_grid(m: u64) -> Vec<u32> {
    let w = Window::full(m, m).unwrap();
    let mut out = vec![0u32; w.total_words().unwrap()];
    p_rows_cpu(&w, &mut out);
    out
}

/// Every kernel the device can run: the step kernel, the block kernel with the device's largest
/// tile, block shapes with 8, 16 and 32 steps per block and short tiles (many tiles per band),
/// and where the device has subgroups the register kernel, dispatched for its smallest subgroup
/// and for subgroups of 4 lanes (more workgroups than the grid needs, the extra ones idle).
fn kernels(ctx: &chompute::gpu::GpuContext) -> Vec<CaKernel> {
    let limit = ctx.limits.max_compute_workgroup_storage_size;
    let largest = BlockShape::for_workgroup_bytes(limit).expect("16 KiB of workgroup memory");
    let mut out = vec![CaKernel::Step, CaKernel::Block(largest)];
    for (steps_max, tile_rows) in [(8, 5), (16, 10), (32, 6)] {
        let shape = BlockShape {
            steps_max,
            tile_rows,
        };
        if shape.workgroup_bytes() <= limit as u64 {
            out.push(CaKernel::Block(shape));
        }
    }
    out.extend(regs_kernels(ctx));
    out
}

/// The register kernel for the device's smallest subgroup, and for subgroups of 4 lanes when
/// that is smaller; none without subgroups.
fn regs_kernels(ctx: &chompute::gpu::GpuContext) -> Vec<CaKernel> {
    let Some(best) = CaKernel::regs(ctx) else {
        return Vec::new();
    };
    let four = CaKernel::Regs(RegsShape::for_lanes(4));
    if best == four {
        vec![best]
    } else {
        vec![best, four]
    }
}

/// Every automaton of the backend: on the CPU the automaton; on the GPU every kernel, each with
/// whole-binding bands and, with `small_bands`, with bands of about 40 rows (several bands,
/// halo rows between).
fn automata(
    engine: &Engine,
    steps: u64,
    small_bands: bool,
) -> Vec<(String, Box<dyn AutomatonBackend>)> {
    match engine {
        Engine::Cpu => vec![("cpu".into(), Box::new(Automaton::new(steps).unwrap()))],
        Engine::Gpu(ctx) => {
            let align = ctx.limits.min_storage_buffer_offset_alignment as u64;
            let mut out: Vec<(String, Box<dyn AutomatonBackend>)> = Vec::new();
            for kernel in kernels(ctx) {
                let small = small_bands.then_some(40 * align.max(32));
                for tile_bytes in std::iter::once(ctx.max_binding_bytes()).chain(small) {
                    let gpu = CaGpu::with_options(ctx.clone(), steps, kernel, tile_bytes).unwrap();
                    if tile_bytes < 1 << 20 {
                        assert!(gpu.bands().len() > 3, "small tiles give several bands");
                    }
                    let name = format!("{}, {} bands", kernel.name(), gpu.bands().len());
                    out.push((name, Box::new(gpu)));
                }
            }
            out
        }
    }
}

/// Generation n (n+1 rows) and the one before it against the P-test, and its live cells
/// against the recurrence: b_n = P(n+1) (docs/mathematics.md §3).
fn assert_generation_is_the_p_grid(name: &str, a: &dyn AutomatonBackend) {
    let n = a.generation();
    assert_eq!(
        a.current_u32().unwrap(),
        p_grid(n + 1),
        "{name}: b_{n} != P({})",
        n + 1
    );
    // Each row read alone is that row of the whole generation; past row n is an error.
    let wpr = (n as usize + 1).div_ceil(32);
    let whole = a.current_u32().unwrap();
    for i in [0, n / 3, n / 2, n] {
        let row = a.row_u32(i).unwrap();
        assert_eq!(
            row,
            whole[i as usize * wpr..][..wpr],
            "{name}: row {i} of b_{n}"
        );
    }
    assert!(a.row_u32(n + 1).is_err(), "{name}: row {} of b_{n}", n + 1);
    let previous = if n == 0 { Vec::new() } else { p_grid(n) };
    assert_eq!(
        a.previous_u32().unwrap(),
        previous,
        "{name}: b_{} != P({n})",
        n.wrapping_sub(1)
    );
    assert_eq!(
        a.live_cells().unwrap() as u128,
        chompute::chocolate::g_recurrence(n + 1).unwrap(),
        "{name}: live cells of b_{n}"
    );
}

backend_tests! {
    /// 203 steps in uneven batches, on every automaton of the backend, then a reset.
    fn automaton_equals_the_p_test(engine) {
        let steps = 203;
        for (name, mut a) in automata(&engine, steps, true) {
            assert_eq!(a.capacity(), steps);
            assert_generation_is_the_p_grid(&name, a.as_ref());
            // 1, 2, 30, 70 (more than one word of growth), then to the end.
            for k in [1, 2, 30, 70, 100] {
                let n = a.generation();
                a.advance(k).unwrap();
                assert_eq!(a.generation(), n + k, "{name}");
                assert_generation_is_the_p_grid(&name, a.as_ref());
            }
            assert!(a.advance(1).is_err(), "{name}: past its capacity");
            a.reset().unwrap();
            a.advance(57).unwrap();
            a.finish().unwrap();
            assert_eq!(a.current_u32().unwrap(), p_grid(58), "{name} after reset");
        }
    }

    /// Several submissions in one call (the GPU's parameter buffer is rewritten while earlier
    /// batches may still run), then the result.
    fn automaton_over_several_submissions(engine) {
        let steps = 2 * chompute::gpu::ca::STEPS_PER_SUBMISSION + 77;
        // The step kernel and the block kernel with the device's largest tile.
        for (name, mut a) in automata(&engine, steps, false).into_iter().take(2) {
            a.advance(steps).unwrap();
            assert_generation_is_the_p_grid(&name, a.as_ref());
        }
    }

    /// 63 output words per tile of the block kernel: 2200 cells are 69 words, two tile
    /// columns, and a tile column boundary inside the active square for every generation past
    /// 2015 (on the CPU the same run of the automaton).
    fn automaton_across_block_tile_columns(engine) {
        let steps = 2199;
        let chosen: Vec<(String, Box<dyn AutomatonBackend>)> = match &engine {
            Engine::Cpu => automata(&engine, steps, false),
            Engine::Gpu(ctx) => kernels(ctx)
                .into_iter()
                .skip(1)
                .take(2)
                .map(|k| {
                    let gpu = CaGpu::with_options(ctx.clone(), steps, k, ctx.max_binding_bytes());
                    let gpu: Box<dyn AutomatonBackend> = Box::new(gpu.unwrap());
                    (k.name(), gpu)
                })
                .collect(),
        };
        for (name, mut a) in chosen {
            a.advance(2100).unwrap();
            a.advance(steps - 2100).unwrap();
            assert_generation_is_the_p_grid(&name, a.as_ref());
        }
    }

    /// The register kernel (CPU: the same run of the automaton) across subgroup tiles (7 words
    /// each with 8 lanes, 3 with 4) and row tiles (32 rows) and bands (small ones, 16 halo rows
    /// each), in launches that stop at generations not multiples of its 16 steps and go on from
    /// there, every stop compared with the CPU automaton.
    fn register_kernel_across_tiles_and_bands(engine) {
        let steps = 777;
        let mut chosen: Vec<(String, Box<dyn AutomatonBackend>)> = Vec::new();
        match &engine {
            Engine::Cpu => chosen = automata(&engine, steps, false),
            Engine::Gpu(ctx) => {
                if std::env::var_os("CHOMPUTE_REQUIRE_GPU").is_some() {
                    assert!(ctx.has_subgroups(), "the adapter has no subgroup operations");
                }
                // Bands of 37 rows below 16 halo rows: band edges fall inside row tiles.
                let align_words = (ctx.limits.min_storage_buffer_offset_alignment as u64 / 4).max(1);
                let row_bytes = 4 * (steps + 1).div_ceil(32).div_ceil(align_words) * align_words;
                for kernel in regs_kernels(ctx) {
                    for tile_bytes in [ctx.max_binding_bytes(), (16 + 37) * row_bytes] {
                        let gpu = CaGpu::with_options(ctx.clone(), steps, kernel, tile_bytes);
                        let gpu = gpu.unwrap();
                        let name = format!("{}, {} bands", kernel.name(), gpu.bands().len());
                        chosen.push((name, Box::new(gpu)));
                    }
                }
            }
        }
        for (name, mut a) in chosen {
            let mut twin = Automaton::new(steps).unwrap();
            for k in [5, 16, 11, 33, 1, 47, 64, 100, 200, 300] {
                a.advance(k).unwrap();
                twin.run(k);
                let n = a.generation();
                assert_eq!(a.current_u32().unwrap(), twin.current_u32(), "{name}: b_{n}");
                assert_eq!(a.previous_u32().unwrap(), twin.previous_u32(), "{name}: b_{}", n - 1);
            }
            assert_generation_is_the_p_grid(&name, a.as_ref());
        }
    }

    /// The backend's own automaton, as `Engine::automaton` hands it out.
    fn engine_automaton_is_the_p_grid(engine) {
        let mut a = engine.automaton(300).unwrap();
        assert_eq!(a.backend(), engine.name());
        a.advance(299).unwrap();
        assert_generation_is_the_p_grid(a.backend(), a.as_ref());
    }
}

#[test]
fn ca_verify_on_the_cpu() {
    let steps = 150u64;
    let v = json_of(&chompute(&[
        "--backend",
        "cpu",
        "ca",
        "150",
        "--verify",
        "--json",
    ]));
    assert_eq!(v["steps"], steps);
    assert_eq!(v["backend"], "cpu");
    assert_eq!(v["verified"], true);
    let g = chompute::chocolate::g_recurrence(steps + 1).unwrap() as u64;
    assert_eq!(v["live_cells"], g);
    let updates: u64 = (0..steps).map(|n| (n + 2) * (n + 2)).sum();
    assert_eq!(v["cell_updates"], updates);
    // Every generation whole (all are ≤ 1024 a side): Σ (n+1)² cells, and the live cells.
    let cells: u64 = (1..=steps + 1).map(|m| m * m).sum();
    let checks = v["checks"].as_array().unwrap();
    let names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["automaton", "automaton-live-cells"]);
    assert!(checks.iter().all(|c| c["pass"] == true), "{checks:?}");
    assert_eq!(checks[0]["checked"], cells.to_string());
    assert_eq!(v["cells_verified"], cells);
    // Text output names the generation and its count, and the claims.
    let o = chompute(&["--backend", "cpu", "ca", "99", "--verify"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains(&format!(
        "{} live cells",
        chompute::chocolate::g_recurrence(100).unwrap()
    )));
    assert!(text
        .lines()
        .any(|l| l.starts_with("automaton ") && l.contains(" pass ")));
    // --csv: the claims.
    let o = chompute(&["--backend", "cpu", "ca", "20", "--verify", "--csv"]);
    assert!(o.status.success());
    assert!(stdout(&o)
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("automaton,theorem,pass,"));
}

#[test]
fn ca_verify_on_the_gpu() {
    if gpu_or_skip("ca_verify_on_the_gpu").is_none() {
        return;
    }
    let subgroups = gpu_or_skip("ca_verify_on_the_gpu").is_some_and(|ctx| ctx.has_subgroups());
    let kernels: &[&str] = if subgroups {
        &["step", "block", "regs"]
    } else {
        &["step", "block"]
    };
    for &kernel in kernels {
        let v = json_of(&chompute(&[
            "--backend",
            "gpu",
            "ca",
            "131",
            "--verify",
            "--json",
            "--kernel",
            kernel,
        ]));
        assert_eq!(v["backend"], "gpu");
        assert!(v["kernel"].as_str().unwrap().starts_with(kernel));
        assert_eq!(v["verified"], true);
        assert_eq!(
            v["live_cells"],
            chompute::chocolate::g_recurrence(132).unwrap() as u64
        );
        let checks = v["checks"].as_array().unwrap();
        let names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            ["automaton", "automaton-twin", "automaton-live-cells"]
        );
        assert!(checks.iter().all(|c| c["pass"] == true), "{checks:?}");
    }
    // Without --verify the block kernel takes whole blocks of steps.
    let v = json_of(&chompute(&[
        "--backend",
        "gpu",
        "ca",
        "1000",
        "--json",
        "--kernel",
        "block",
    ]));
    assert_eq!(
        v["live_cells"],
        chompute::chocolate::g_recurrence(1001).unwrap() as u64
    );
}

#[test]
fn ca_frames_are_the_p_grids() {
    let dir = scratch_dir("ca_frames");
    let frames = dir.join("frames");
    let o = chompute(&[
        "--backend",
        "cpu",
        "ca",
        "77",
        "--frames",
        frames.to_str().unwrap(),
        "--every",
        "20",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut names: Vec<String> = std::fs::read_dir(&frames)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["gen-00.png", "gen-20.png", "gen-40.png", "gen-60.png"]
    );
    for n in [0u64, 20, 60] {
        let bits = common::read_bits_png(&frames.join(format!("gen-{n:02}.png")));
        assert_eq!((bits.len(), bits[0].len()), (78, 78));
        for (i, row) in bits.iter().enumerate() {
            for (j, &b) in row.iter().enumerate() {
                let (i, j) = (i as u64, j as u64);
                let want =
                    i <= n && j <= n && chompute::chocolate::p_cell(n + 1, n + 1, i + 1, j + 1);
                assert_eq!(b, want, "frame {n} pixel ({i},{j})");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ca_stack_is_a_closed_mesh_of_the_half_octahedron() {
    let dir = scratch_dir("ca_stack");
    let path = dir.join("stack.ply");
    let steps = 45u64;
    let o = chompute(&[
        "--backend",
        "cpu",
        "ca",
        "45",
        "--stack",
        path.to_str().unwrap(),
        "--json",
    ]);
    let v = json_of(&o);
    let ply = read_ply(&path);
    assert_eq!(v["stack"]["triangles"], ply.faces.len() as u64);
    assert_eq!(v["stack"]["vertices"], ply.vertices.len() as u64);
    assert!(ply.faces.iter().all(|f| f.len() == 3));
    assert_closed(&ply.faces);
    // Volume: one voxel per live cell of every generation, layers half a cell thick.
    let voxels: u128 = (1..=steps + 1)
        .map(|m| chompute::chocolate::g_recurrence(m).unwrap())
        .sum();
    assert_eq!(v["stack"]["voxels"], voxels as u64);
    // The pre-flight's count, Σ g(m) by the prefix-sum recurrences, is the stack's.
    let room = chompute::memory::Room::assume(u64::MAX);
    assert_eq!(
        chompute::render::mesh::check_stack_memory(steps, room).unwrap(),
        voxels
    );
    let vol = signed_volume(&ply.vertices, &ply.faces);
    assert!(
        (vol - voxels as f64 / 2.0).abs() < 1e-6 * voxels as f64,
        "volume {vol}, voxels {voxels}"
    );
    // The apex (generation 0) is the top layer, centred over the origin.
    let top = ply.vertices.iter().map(|p| p[2]).fold(f32::MIN, f32::max);
    assert_eq!(top, (steps + 1) as f32 / 2.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ca_frames_and_stack_from_the_gpu_match_the_cpu() {
    if gpu_or_skip("ca_frames_and_stack_from_the_gpu_match_the_cpu").is_none() {
        return;
    }
    let dir = scratch_dir("ca_gpu_files");
    let mut outputs = Vec::new();
    for backend in ["cpu", "gpu"] {
        let frames = dir.join(format!("frames-{backend}"));
        let stack = dir.join(format!("stack-{backend}.ply"));
        let o = chompute(&[
            "--backend",
            backend,
            "ca",
            "70",
            "--frames",
            frames.to_str().unwrap(),
            "--every",
            "33",
            "--mesh",
            stack.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{backend}: {}", stderr(&o));
        // The pixels (the PNG's Description names the command, so its bytes differ).
        let frame = common::read_bits_png(&frames.join("gen-66.png"));
        outputs.push((frame, std::fs::read(&stack).unwrap()));
    }
    assert!(
        outputs[0] == outputs[1],
        "GPU frames have the CPU's pixels and the stacks are byte-identical"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ca_bad_input() {
    assert_usage_error(&chompute(&["ca", "0"]), "at least 1");
    assert_usage_error(&chompute(&["ca", "ten"]), "not a positive integer");
    assert_usage_error(&chompute(&["ca", "10", "--every", "3"]), "--frames");
    assert_usage_error(&chompute(&["ca", "10", "--mesh", "x.obj"]), ".ply or .stl");
    assert_usage_error(&chompute(&["ca", "10", "--kernel", "warp"]), "--kernel");
    assert_usage_error(
        &chompute(&["--backend", "cpu", "ca", "999999999"]),
        "at most",
    );
    // `bench` refuses the same steps by its flag, before it measures anything.
    assert_usage_error(
        &chompute(&["bench", "--quick", "--ca-steps", "262144"]),
        "invalid value '262144' for '--ca-steps <STEPS>': the automaton runs at most 262143 steps",
    );
    let dir = scratch_dir("ca_bad");
    let file = dir.join("plain");
    std::fs::write(&file, b"x").unwrap();
    assert_usage_error(
        &chompute(&["ca", "5", "--frames", file.to_str().unwrap()]),
        "not a directory",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A stack too large for memory is refused before the first step, with nothing written:
/// the mesh of 46 generations takes at most 1 KiB a voxel.
#[test]
fn ca_mesh_too_large_for_memory_is_refused_before_any_step() {
    let dir = scratch_dir("ca_mesh_memory");
    let path = dir.join("stack.stl");
    let voxels = chompute::chocolate::count::g_prefix_sums(46).unwrap().1 as u64;
    let bound = voxels * chompute::render::mesh::STACK_BYTES_PER_VOXEL;
    let run = |room: u64| {
        let args = [
            "--backend",
            "cpu",
            "ca",
            "45",
            "--mesh",
            path.to_str().unwrap(),
        ];
        chompute_env(
            &args,
            &[("CHOMPUTE_TEST_MEMORY_AVAILABLE", &room.to_string())],
        )
    };
    let o = run(bound - 1);
    assert_usage_error(
        &o,
        &format!("the mesh of 46 generations ({voxels} voxels) is too large"),
    );
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "nothing written"
    );
    assert!(run(bound).status.success());
    assert!(path.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ca_too_large_for_memory_is_one_clear_error() {
    // Three grids of 2^36 bits each at the largest size: 24 GiB.
    let need = 3u64 << 33;
    match chompute::memory::available_bytes() {
        Some(room) if room < need => {
            let o = chompute(&["--backend", "cpu", "ca", "262143"]);
            assert_usage_error(&o, "of memory but only");
        }
        room => eprintln!(
            "ca_too_large_for_memory_is_one_clear_error: not run, {room:?} bytes available is enough for ca 262143"
        ),
    }
}

#[test]
fn bench_reports_the_automaton() {
    let have_gpu = gpu_or_skip("bench_reports_the_automaton").is_some();
    let v = json_of(&chompute(&[
        "bench",
        "--quick",
        "--json",
        "--ca-steps",
        "300",
    ]));
    let ms = v["measurements"].as_array().unwrap();
    let find = |k: &str, b: &str| ms.iter().find(|m| m["kernel"] == k && m["backend"] == b);
    let updates: u64 = (0..300u64).map(|n| (n + 2) * (n + 2)).sum();
    let cpu = find("ca steps", "cpu").expect("CPU automaton row");
    assert_eq!(cpu["work"], updates);
    assert_eq!(cpu["unit"], "cell updates");
    assert!(find("memory copy", "cpu").is_some());
    if have_gpu {
        assert_eq!(
            find("ca steps", "gpu").expect("GPU automaton row")["work"],
            updates
        );
        let tail = find("ca steps (last quarter)", "gpu").expect("GPU large-square row");
        assert!(tail["per_second"].as_f64().unwrap() > 0.0);
        // The other kernels, tagged, beside it (two rows each): the block kernel, and the
        // register kernel where the device has subgroups.
        let tagged = |m: &&serde_json::Value| {
            m["backend"] == "gpu" && m["kernel"].as_str().unwrap().starts_with("ca steps [")
        };
        let ctx = chompute::gpu::GpuContext::shared().unwrap();
        let kernels = if ctx.has_subgroups() { 3 } else { 2 };
        assert_eq!(ms.iter().filter(tagged).count(), 2 * (kernels - 1));
        // Each kernel's traffic per cell update by its tile arithmetic: the step kernel 12
        // bytes per 32 updates, the register kernel past 8 updates per byte.
        let traffic = v["ca_traffic"].as_array().unwrap();
        assert_eq!(traffic.len(), kernels);
        let of = |name: &str| {
            traffic
                .iter()
                .find(|t| t["kernel"].as_str().unwrap().starts_with(name))
                .unwrap()["updates_per_byte"]
                .as_f64()
                .unwrap()
        };
        assert!((of("step") - 32.0 / 12.0).abs() < 1e-9);
        if ctx.has_subgroups() {
            assert!(of("regs") >= 8.0, "{traffic:?}");
        }
    }
}
