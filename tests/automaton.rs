//! The automaton: GPU == CPU == P-test on sizes that are not powers of two, and `chompute ca`
//! through the built binary.

mod common;

use chompute::chocolate::automaton::Automaton;
use chompute::chocolate::grid::{p_rows_cpu, Window};
use chompute::gpu::ca::CaGpu;
use common::*;

fn p_grid(m: u64) -> Vec<u32> {
    let w = Window::full(m, m).unwrap();
    let mut out = vec![0u32; w.total_words().unwrap()];
    p_rows_cpu(&w, &mut out);
    out
}

#[test]
fn gpu_equals_cpu_equals_p_test() {
    let Some(ctx) = gpu_or_skip("gpu_equals_cpu_equals_p_test") else { return };
    let steps = 203;
    let align = ctx.limits.min_storage_buffer_offset_alignment as u64;
    // Whole-binding bands and bands of a few rows (many bands, halo rows between them).
    for tile_bytes in [ctx.max_binding_bytes(), 5 * align.max(32)] {
        let mut gpu = CaGpu::with_tile_bytes(&ctx, steps, tile_bytes).unwrap();
        if tile_bytes < 1 << 20 {
            assert!(gpu.bands().len() > 3, "small tiles give several bands");
        }
        let mut cpu = Automaton::new(steps).unwrap();
        // Uneven batches: 1, 2, 30, 70 (more than one word of growth), then to the end.
        for k in [1, 2, 30, 70, 100] {
            gpu.advance(k).unwrap();
            cpu.run(k);
            let n = cpu.generation();
            assert_eq!(gpu.generation(), n);
            let g = gpu.current_u32().unwrap();
            assert_eq!(g, cpu.current_u32(), "GPU b_{n} != CPU");
            assert_eq!(g, p_grid(n + 1), "b_{n} != P({})", n + 1);
            assert_eq!(gpu.previous_u32().unwrap(), cpu.previous_u32(), "GPU b_{} != CPU", n - 1);
            assert_eq!(gpu.live_cells().unwrap(), cpu.live_cells());
        }
        gpu.reset().unwrap();
        gpu.advance(57).unwrap();
        assert_eq!(gpu.current_u32().unwrap(), p_grid(58));
    }
}
