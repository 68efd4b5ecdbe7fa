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

/// Zeroed bytes as NumPy allocates a large array on Linux: `calloc` (fresh zero pages that
/// cost nothing until touched) and `madvise(MADV_HUGEPAGE)` on the 2 MiB-aligned part, so
/// that both sides fault in the same kind of pages.
#[cfg(target_os = "linux")]
struct HugePageBytes {
    ptr: *mut u8,
    len: usize,
}

#[cfg(target_os = "linux")]
mod c {
    use std::ffi::{c_int, c_void};
    extern "C" {
        pub fn calloc(count: usize, size: usize) -> *mut c_void;
        pub fn free(ptr: *mut c_void);
        pub fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }
    pub const MADV_HUGEPAGE: c_int = 14;
}

#[cfg(target_os = "linux")]
impl HugePageBytes {
    fn zeroed(len: usize) -> HugePageBytes {
        const HUGE: usize = 2 << 20;
        // SAFETY: calloc returns len zeroed bytes or null; the advice only changes how the
        // pages inside the allocation are backed.
        let ptr = unsafe { c::calloc(len, 1) }.cast::<u8>();
        assert!(!ptr.is_null(), "out of memory");
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + len) / HUGE * HUGE;
        if end > start {
            unsafe { c::madvise(start as *mut _, end - start, c::MADV_HUGEPAGE) };
        }
        HugePageBytes { ptr, len }
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr holds len zeroed bytes owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

#[cfg(target_os = "linux")]
impl Drop for HugePageBytes {
    fn drop(&mut self) {
        // SAFETY: allocated by calloc in `zeroed`.
        unsafe { c::free(self.ptr.cast()) }
    }
}

fn main() {
    let runs = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5);
    let w = Window::full(30001, 30001).expect("a bar");
    #[cfg(target_os = "linux")]
    {
        // As `p_grid` runs: a new zeroed array as NumPy allocates it, written in bands of
        // about 2^24 cells, one library call each.
        let band = (1u64 << 24) / w.width;
        let width = w.width as usize;
        let pieces = best(runs, || {
            let mut cells = HugePageBytes::zeroed(w.cells() as usize);
            let out = cells.as_mut_slice();
            let mut start = 0;
            while start < w.height {
                let len = band.min(w.height - start);
                let rows = &mut out[start as usize * width..(start + len) as usize * width];
                p_cells(&w.rows(start, len), rows);
                start += len;
            }
            black_box(out);
        });
        println!("p_cells C(30001,30001), a new 900 MB grid in bands of 2^24 cells (as p_grid): best of {runs}: {pieces:.4} s");
        // The same in one call: the pages fault in across the whole grid at once.
        let whole = best(runs, || {
            let mut cells = HugePageBytes::zeroed(w.cells() as usize);
            p_cells(&w, cells.as_mut_slice());
            black_box(cells.as_mut_slice());
        });
        println!(
            "p_cells C(30001,30001), a new 900 MB grid in one call: best of {runs}: {whole:.4} s"
        );
    }
    // The generator alone: the same grid rewritten, its pages already mapped.
    let mut cells = vec![0u8; w.cells() as usize];
    p_cells(&w, &mut cells);
    let warm = best(runs, || {
        p_cells(&w, &mut cells);
        black_box(&cells);
    });
    println!(
        "p_cells C(30001,30001), rewriting a grid already in memory: best of {runs}: {warm:.4} s"
    );
    drop(cells);
    let gp = best(runs, || {
        black_box(GpTable::compute(4096).expect("a table").into_values());
    });
    println!("GpTable::compute(4096): best of {runs}: {gp:.4} s");
}
