//! The foundation: P-grid generators agree (GPU == CPU == naive), every kernel equals its CPU
//! twin, exact counts agree, and the propositions of §3 hold on generated grids.

use crate::common;

use chompute::chocolate::backend::{PGridBackend, PGridCpu};
use chompute::chocolate::count::{g_histogram, g_recurrence};
use chompute::chocolate::grid::{count_cpu, p_rows_cpu, p_rows_naive, Window};
use chompute::gpu::ptest::PGridGpu;
use chompute::gpu::Engine;
use rayon::prelude::*;

use chompute::claim::Xorshift as Rng;

/// Random windows of random bars, sizes deliberately not powers of two, plus a few large
/// coordinate windows.
fn random_windows(count: usize, seed: u64) -> Vec<Window> {
    let mut rng = Rng::new(seed);
    let mut v = Vec::new();
    for _ in 0..count {
        let m = 1 + rng.below(300);
        let n = 1 + rng.below(300);
        let h = 1 + rng.below(m);
        let w = 1 + rng.below(n);
        let r0 = 1 + rng.below(m - h + 1);
        let c0 = 1 + rng.below(n - w + 1);
        v.push(Window::new(m, n, r0, c0, h, w).unwrap());
    }
    for (m, n) in [
        (1_000_000_000_039u64, 1_000_000_000_039u64),
        (u64::MAX, u64::MAX - 6),
        (4_294_967_311, 30001),
    ] {
        for _ in 0..3 {
            let h = 1 + rng.below(40);
            let w = 1 + rng.below(150);
            let r0 = 1 + rng.below(m - h);
            let c0 = 1 + rng.below(n - w);
            v.push(Window::new(m, n, r0, c0, h, w).unwrap());
        }
    }
    // Windows straddling 2^32 in both coordinates exercise the shader's carries and borrows.
    v.push(Window::new(1 << 33, (1 << 33) + 5, (1 << 32) - 3, (1 << 32) - 40, 7, 90).unwrap());
    v
}

fn packed(w: &Window) -> Vec<u32> {
    let mut out = vec![0; w.total_words().unwrap()];
    p_rows_cpu(w, &mut out);
    out
}

#[test]
fn cpu_equals_naive_on_random_windows() {
    for w in random_windows(200, 0x9e3779b97f4a7c15) {
        assert_eq!(packed(&w), p_rows_naive(&w), "{w:?}");
    }
}

/// The backend's P-grid with tiles of at most `tile_bytes` on the GPU (the test asserts that
/// `w` takes several); the CPU has no tiles.
fn with_tiles(engine: &Engine, tile_bytes: u64, w: &Window) -> Box<dyn PGridBackend> {
    match engine {
        Engine::Gpu(ctx) => {
            let gpu = PGridGpu::with_tile_bytes(ctx.clone(), tile_bytes);
            assert!(gpu.tiles(w).len() > 1, "the test must use several tiles");
            Box::new(gpu)
        }
        Engine::Cpu => Box::new(PGridCpu),
    }
}

backend_tests! {
    /// One generator for every window, growing and shrinking: rows against the P-test cell by
    /// cell, counts against the rows' bits.
    fn p_rows_and_counts_equal_the_p_test_on_random_windows(engine) {
        let grid = engine.p_grid();
        for w in random_windows(60, 0x2545f4914f6cdd1d) {
            let mut out = vec![0xdead_beef; w.total_words().unwrap()];
            grid.p_rows(&w, &mut out).unwrap();
            assert_eq!(out, p_rows_naive(&w), "{} {w:?}", grid.backend());
            let expected: u128 = out.iter().map(|x| x.count_ones() as u128).sum();
            assert_eq!(grid.count(&w).unwrap(), expected, "count {w:?}");
        }
        // The wrong output length is an error, not a panic.
        assert!(grid.p_rows(&Window::full(37, 37).unwrap(), &mut [0; 3]).is_err());
    }

    /// Tiny tiles force many row bands and column runs (a row wider than one tile) on the GPU.
    fn multi_tile_paths_equal_the_cpu_twin(engine) {
        for (tile_bytes, w) in [
            (64, Window::full(301, 301).unwrap()),
            (12, Window::new(4095, 30001, 17, 100, 50, 777).unwrap()),
            (4, Window::new(999, 999, 1, 1, 9, 999).unwrap()),
            (
                1 << 10,
                Window::new(
                    1_000_000_000_039,
                    1_000_000_000_039,
                    400_000_000_000,
                    400_000_000_000,
                    130,
                    517,
                )
                .unwrap(),
            ),
        ] {
            let grid = with_tiles(&engine, tile_bytes, &w);
            let mut out = vec![0; w.total_words().unwrap()];
            grid.p_rows(&w, &mut out).unwrap();
            assert_eq!(out, packed(&w), "tile bytes {tile_bytes}, {w:?}");
            assert_eq!(
                grid.count(&w).unwrap(),
                count_cpu(&w),
                "count, tile bytes {tile_bytes}, {w:?}"
            );
        }
    }

    /// A bar of 4095² cells counted in tiles of 256 KiB against the recurrence.
    fn count_of_a_multi_tile_bar_matches_the_recurrence(engine) {
        let w = Window::full(4095, 4095).unwrap();
        let grid = with_tiles(&engine, 256 << 10, &w);
        assert_eq!(grid.count(&w).unwrap(), g_recurrence(4095).unwrap());
        // The same handle again, on a smaller bar: pooled buffers larger than needed.
        let small = Window::full(1235, 777).unwrap();
        assert_eq!(grid.count(&small).unwrap(), count_cpu(&small));
    }
}

#[test]
fn first_fourteen_values_of_g() {
    let expected = [1u128, 4, 5, 16, 9, 20, 21, 64, 25, 36, 29, 80, 41, 84];
    for (k, &g) in expected.iter().enumerate() {
        let m = k as u64 + 1;
        let naive: u128 = p_rows_naive(&Window::full(m, m).unwrap())
            .iter()
            .map(|x| x.count_ones() as u128)
            .sum();
        assert_eq!(naive, g, "naive g({m})");
        assert_eq!(g_recurrence(m).unwrap(), g, "recurrence g({m})");
        assert_eq!(g_histogram(m, m).unwrap(), g, "histogram g({m})");
    }
}

#[test]
fn recurrence_equals_histogram_up_to_100000() {
    let bad: Vec<u64> = (1..=100_000u64)
        .into_par_iter()
        .filter(|&m| g_recurrence(m).unwrap() != g_histogram(m, m).unwrap())
        .collect();
    assert!(
        bad.is_empty(),
        "recurrence and histogram disagree at m = {:?}",
        &bad[..bad.len().min(10)]
    );
}

#[test]
fn histogram_equals_generated_count_on_rectangles() {
    for (m, n) in [
        (4095, 30001),
        (30001, 777),
        (65535, 3),
        (1, 100_003),
        (12345, 6789),
    ] {
        assert_eq!(
            g_histogram(m, n).unwrap(),
            count_cpu(&Window::full(m, n).unwrap()),
            "C({m},{n})"
        );
    }
}

fn bit(grid: &[u32], wpr: usize, i: u64, j: u64) -> bool {
    // 1-based cell (i,j) of a whole-bar packed grid.
    let (r, c) = ((i - 1) as usize, (j - 1) as usize);
    grid[r * wpr + c / 32] >> (31 - c % 32) & 1 == 1
}

#[test]
fn prop_3_1_symmetries_and_prop_3_2_diagonals() {
    for m in [1u64, 2, 3, 5, 11, 12, 37, 100, 127, 255, 300, 513] {
        let w = Window::full(m, m).unwrap();
        let g = packed(&w);
        let wpr = w.words_per_row();
        for i in 1..=m {
            assert!(
                bit(&g, wpr, i, i) && bit(&g, wpr, i, m + 1 - i),
                "Prop 3.2: diagonals of P({m}) at row {i}"
            );
            for j in 1..=m {
                let v = bit(&g, wpr, i, j);
                assert_eq!(v, bit(&g, wpr, j, i), "Prop 3.1 transpose, m={m} ({i},{j})");
                assert_eq!(
                    v,
                    bit(&g, wpr, i, m + 1 - j),
                    "Prop 3.1 mirror j, m={m} ({i},{j})"
                );
                assert_eq!(
                    v,
                    bit(&g, wpr, m + 1 - i, j),
                    "Prop 3.1 mirror i, m={m} ({i},{j})"
                );
            }
        }
    }
}

#[test]
fn thm_3_3_doubling() {
    for m in [1u64, 3, 5, 6, 11, 37, 100, 301] {
        let small = packed(&Window::full(m, m).unwrap());
        let big = packed(&Window::full(2 * m, 2 * m).unwrap());
        let (ws, wb) = (words(m), words(2 * m));
        for i in 1..=m {
            for j in 1..=m {
                let v = bit(&small, ws, i, j);
                for (d, e) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                    assert_eq!(
                        bit(&big, wb, 2 * i - d, 2 * j - e),
                        v,
                        "Thm 3.3 m={m} ({i},{j}) δ={d} ε={e}"
                    );
                }
            }
        }
    }
}

fn words(width: u64) -> usize {
    width.div_ceil(32) as usize
}

#[test]
fn powers_of_two_are_all_p() {
    // Thm 3.3's consequence, and the reason other tests avoid powers of two.
    for k in 0..10 {
        let m = 1u64 << k;
        assert_eq!(g_recurrence(m).unwrap(), (m as u128) * (m as u128));
        assert_eq!(
            count_cpu(&Window::full(m, m).unwrap()),
            (m as u128) * (m as u128)
        );
    }
}

/// A size in lo..=hi that is not a power of two.
fn size(rng: &mut Rng, lo: u64, hi: u64) -> u64 {
    loop {
        let s = lo + rng.below(hi - lo + 1);
        if !s.is_power_of_two() {
            return s;
        }
    }
}

/// The conformance test of the kernels: every [`KernelId`] run on the GPU against its CPU twin
/// on random inputs whose sizes are not powers of two, small enough for a software adapter.
/// The match has no wildcard arm, so a new kernel does not compile here until it has its
/// comparison (docs/adding-a-kernel.md).
#[test]
fn every_kernel_equals_its_cpu_twin_on_random_inputs() {
    use chompute::chocolate::backend::AutomatonBackend;
    use chompute::chocolate::window::BlockGrid;
    use chompute::gpu::block_count::BlockCountGpu;
    use chompute::gpu::ca::{CaGpu, CaKernel};
    use chompute::gpu::kernel::KernelId;
    use chompute::gpu::nimpass::NimPassGpu;
    use chompute::pass::nimpass::{wavefront, NimPass};

    let Some(ctx) = common::gpu_or_skip("every_kernel_equals_its_cpu_twin_on_random_inputs") else {
        return;
    };
    let mut rng = Rng::new(0xC0F0_12E5);
    // The automaton on the GPU with `kernel` against the CPU automaton: every generation's
    // grid, the one before it and the live cells, with bands of a random height.
    let automaton = |kernel: CaKernel, steps: u64, band_rows: u64| {
        let align = ctx.limits.min_storage_buffer_offset_alignment as u64;
        let mut gpu =
            CaGpu::with_options(ctx.clone(), steps, kernel, band_rows * align.max(32)).unwrap();
        let mut cpu: Box<dyn AutomatonBackend> =
            Box::new(chompute::chocolate::automaton::Automaton::new(steps).unwrap());
        let mut done = 0;
        while done < steps {
            let k = (steps - done).min(1 + done % 7);
            gpu.advance(k).unwrap();
            cpu.advance(k).unwrap();
            done += k;
            let what = format!("{} at generation {done}", kernel.name());
            assert_eq!(
                gpu.current_u32().unwrap(),
                cpu.current_u32().unwrap(),
                "{what}"
            );
            assert_eq!(
                gpu.previous_u32().unwrap(),
                cpu.previous_u32().unwrap(),
                "{what}"
            );
            assert_eq!(
                gpu.live_cells().unwrap(),
                cpu.live_cells().unwrap(),
                "{what}"
            );
        }
    };
    for id in KernelId::ALL {
        match id {
            KernelId::PRows => {
                let gpu = PGridGpu::with_tile_bytes(ctx.clone(), 4 * size(&mut rng, 3, 900));
                for w in random_windows(12, rng.next()) {
                    let mut out = vec![0xdead_beef; w.total_words().unwrap()];
                    gpu.p_rows(&w, &mut out).unwrap();
                    assert_eq!(out, packed(&w), "p_rows {w:?}");
                }
            }
            KernelId::CountP => {
                let gpu = PGridGpu::with_tile_bytes(ctx.clone(), 4 * size(&mut rng, 3, 900));
                for w in random_windows(12, rng.next()) {
                    assert_eq!(gpu.count(&w).unwrap(), count_cpu(&w), "count_p {w:?}");
                }
            }
            KernelId::NimpassLevel => {
                let gpu = NimPassGpu::new(ctx.clone());
                for _ in 0..3 {
                    let side = size(&mut rng, 3, 45) as usize;
                    let twin = NimPass::from_wavefront(side, &wavefront::run_cpu(side));
                    assert_eq!(gpu.four_heaps(side).unwrap(), twin, "nimpass side {side}");
                }
            }
            KernelId::CaStep => automaton(
                CaKernel::Step,
                size(&mut rng, 20, 90),
                size(&mut rng, 3, 60),
            ),
            KernelId::CaBlock(shape) => automaton(
                CaKernel::Block(shape),
                size(&mut rng, 20, 90),
                size(&mut rng, 3, 60),
            ),
            // Without subgroups the register kernel cannot be built; with them it is checked.
            KernelId::CaRegs => {
                if let Some(kernel) = CaKernel::regs(&ctx) {
                    automaton(kernel, size(&mut rng, 20, 90), size(&mut rng, 20, 60));
                }
            }
            KernelId::BlockCounts => {
                for (k, w) in random_windows(8, rng.next()).into_iter().enumerate() {
                    let block = size(&mut rng, 2, w.height.max(w.width).max(3));
                    let grid = BlockGrid::new(w, block).unwrap();
                    let gpu = if k % 2 == 0 {
                        BlockCountGpu::new(ctx.clone())
                    } else {
                        BlockCountGpu::with_max_blocks(ctx.clone(), size(&mut rng, 3, 11))
                    };
                    assert_eq!(
                        gpu.counts(&grid, grid.all()).unwrap(),
                        grid.counts(grid.all()).unwrap(),
                        "block counts of {w:?} in blocks of {block}"
                    );
                }
            }
            KernelId::ChompLayer => {
                let gpu = chompute::gpu::chomp::ChompGpu::new(ctx.clone());
                for _ in 0..3 {
                    let shape = chompute::chomp::ChompBox {
                        rows: size(&mut rng, 2, 9) as usize,
                        cols: size(&mut rng, 2, 11) as u32,
                    };
                    let twin =
                        chompute::chomp::two_player::reference::solve_by_volume_layers(shape)
                            .unwrap();
                    assert_eq!(
                        gpu.solve(shape).unwrap().words(),
                        twin.words(),
                        "chomp layers of {shape}"
                    );
                }
            }
            KernelId::ChompHookStep(_, reads)
            | KernelId::ChompHookGather(_, reads)
            | KernelId::ChompHookProbe(_, reads) => {
                // The square's twin: the pull scan's kernel against the forward solver on a
                // side drawn here (every side to 12 in tests/engine/chomp_hook.rs).
                let n = size(&mut rng, 2, 9) as usize;
                let (gpu, cpu) = crate::chomp_hook::gpu_and_cpu(&ctx, n, None, reads);
                assert_eq!(gpu, cpu, "the hook kernel on the {n}x{n} box ({id:?})");
            }
        }
    }
}
