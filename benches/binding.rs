//! The work of the Python module's `p_grid(30001)` and `gp_table(4096)` done through the
//! library in Rust, for the binding-overhead figures in BENCHMARKS.md (the Python side is
//! `python/bench.py`). Best of several runs each, in seconds.
//!
//! `cargo bench --bench binding` (or `-- 7` for seven runs each).

use chompute::chocolate::grid::Window;
use chompute::chocolate::rows::p_cells;
use chompute::pass::gp::GpTable;
use std::hint::black_box;
use std::time::Instant;

fn best(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let runs = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5);
    let w = Window::full(30001, 30001).expect("a bar");
    // As p_grid does: a zeroed array of one byte per cell, written in place.
    let grid = best(runs, || {
        let mut cells = vec![0u8; w.cells() as usize];
        p_cells(&w, &mut cells);
        black_box(&cells);
    });
    println!("p_cells C(30001,30001) into a new 900 MB byte grid: best of {runs}: {grid:.4} s");
    let gp = best(runs, || {
        black_box(GpTable::compute(4096).expect("a table").into_values());
    });
    println!("GpTable::compute(4096): best of {runs}: {gp:.4} s");
}
