//! Games with a pass: two-heap Nim with a pass G_P, the 3-D bars CB(F), K-heap Nim with a pass.
//!
//! Tests: python/tests/test_pass.py.

use crate::args::u64_arg;
use crate::errors::{bad_argument, invalid, OrRaise};
use crate::run::in_background_reporting;
use chompute::gpu::Engine;
use chompute::pass::cb::{plan_bar, Bar};
use chompute::pass::gp::{GpTable, GpValues};
use numpy::ndarray::Array2;
use numpy::{PyArray2, PyArrayMethods, PyUntypedArray};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Two-heap Nim with a pass: the table G_P(x, y) for 0 <= x, y < n as a 2-D NumPy array of
/// the narrowest unsigned type that holds 2n-1 (uint8 up to n = 128, uint16 up to 32768).
/// G_P(0,0) = 0 and otherwise G_P(x,y) is the mex of the values to its left, above it, and
/// x ^ y (the pass) [Def 12]; `gp_table(13)` is the paper's Table 2.
///
/// The library's table becomes the array without a copy. Computed with the GIL released;
/// Ctrl-C raises KeyboardInterrupt at once and stops the computation at its next row.
///
/// >>> chompute.gp_table(13)[2, :6].tolist()
/// [1, 0, 2, 5, 7, 3]
///
/// `progress`, a callable `progress(done, total, phase)` or a tqdm bar, hears of the rows
/// done. Raises ValueError for n outside 1..32768.
#[pyfunction]
#[pyo3(signature = (n, *, progress=None))]
pub fn gp_table<'py>(
    py: Python<'py>,
    n: &Bound<'py, PyAny>,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let n = u64_arg(n, "n", "between 1 and 32768")?;
    let table = in_background_reporting(py, progress, move || GpTable::compute(n))?.or_raise()?;
    let side = table.side();
    fn array<'py, T: numpy::Element>(
        py: Python<'py>,
        side: usize,
        values: Vec<T>,
    ) -> PyResult<Bound<'py, PyUntypedArray>> {
        let a = Array2::from_shape_vec((side, side), values)
            .map_err(|e| invalid(format!("the G_P table has the wrong shape: {e}")))?;
        Ok(PyArray2::from_owned_array(py, a).as_untyped().clone())
    }
    match table.into_values() {
        GpValues::U8(v) => array(py, side, v),
        GpValues::U16(v) => array(py, side, v),
        GpValues::U32(v) => array(py, side, v),
    }
}

/// Grundy numbers of the 3-D chocolate bar CB(F, x, y, z) for every position with
/// x <= x_max, z <= z_max and y <= F(x, z), by mex over the moves of Def 7: a dict
/// {(x, y, z): g}. With `pass_=True` the game with one pass [Def 9, 10]: a dict
/// {(x, y, z, p): g} with p = 1 while the pass is unused and p = 0 after it (the plain game).
///
/// `f` is written in the language of `chompute cb --f`: integers, x, z, + - * / % (floor
/// division), parentheses, min(a,b), max(a,b), floor(a/b), log2(a), pow2(a); e.g. "z // 2" is
/// "floor(z/2)" and the paper's 2^floor(log2 z) - 1 is "pow2(log2(max(z,1)))-1". With a pass,
/// F must be some h(z) with h(0) = 0 and h(z) < z.
///
/// >>> g = chompute.cb_grundy("floor(z/2)", 3, 3)
/// >>> g[(1, 1, 3)] == 1 ^ 1 ^ 3
/// True
///
/// Raises ValueError for an expression that does not parse or cannot be evaluated on the box
/// (the message names the column or the point), a box too large, or an F the pass game
/// refuses. Ctrl-C raises KeyboardInterrupt. `progress`, a callable `progress(done, total,
/// phase)` or a tqdm bar, hears of the planes x done ("planes", then "planes (with the pass)").
#[pyfunction]
#[pyo3(signature = (f, x_max, z_max, *, pass_=false, progress=None))]
pub fn cb_grundy<'py>(
    py: Python<'py>,
    f: &str,
    x_max: &Bound<'py, PyAny>,
    z_max: &Bound<'py, PyAny>,
    pass_: bool,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let x_max = u64_arg(x_max, "x_max", "at least 0")?;
    let z_max = u64_arg(z_max, "z_max", "at least 0")?;
    let (_, table) = plan_bar(f, x_max, z_max, pass_).or_raise()?;
    let bar =
        in_background_reporting(py, progress, move || Bar::compute(table, pass_))?.or_raise()?;
    let d = PyDict::new(py);
    for (k, (x, y, z)) in bar.positions().enumerate() {
        // The dict is built with the GIL held; look for Ctrl-C now and then.
        if k % (1 << 20) == 0 {
            py.check_signals()?;
        }
        let g = bar.grundy(x, y, z);
        match bar.grundy_pass(x, y, z) {
            Some(gp) => {
                d.set_item((x, y, z, 0u8), g)?;
                d.set_item((x, y, z, 1u8), gp)?;
            }
            None => d.set_item((x, y, z), g)?,
        }
    }
    Ok(d)
}

/// The P-positions, with the pass still available, of Nim on `heaps` heaps (2, 3 or 4) of
/// sizes 0..=max with one pass shared by both players (usable once, never from the terminal
/// position): an array of shape (k, heaps), dtype uint16, one position a row, in
/// lexicographic order. For two heaps these are the zeros of G_P (Lemma 6).
///
/// Four heaps run on the GPU when `backend` selects one ("auto": a real GPU where it is the
/// faster side). Computed with the GIL released; Ctrl-C raises KeyboardInterrupt.
///
/// >>> chompute.nimpass_p_positions(3, 6)[:3].tolist()
/// [[0, 0, 0], [0, 1, 2], [0, 2, 1]]
///
/// `progress`, a callable `progress(done, total, phase)` or a tqdm bar, hears of the lines
/// done (on the CPU). Raises ValueError for heaps outside 2..4, max beyond 65533 or a table
/// larger than 1 GiB.
#[pyfunction]
#[pyo3(signature = (heaps, max, *, backend="auto", progress=None))]
pub fn nimpass_p_positions<'py>(
    py: Python<'py>,
    heaps: &Bound<'py, PyAny>,
    max: &Bound<'py, PyAny>,
    backend: &str,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray2<u16>>> {
    let k = u64_arg(heaps, "heaps", "2, 3 or 4")?;
    let max = u64_arg(max, "max", "at least 0")?;
    if !(2..=4).contains(&k) {
        return Err(bad_argument("heaps", k, "2, 3 or 4"));
    }
    let k = k as usize;
    let choice = crate::args::backend(backend)?;
    // The library picks the engine: four heaps where `backend` says, others on the CPU.
    let table = in_background_reporting(py, progress, move || {
        Engine::for_nim_pass(choice, k)?.nim_pass_table(k, max)
    })?
    .or_raise()?;
    let rows = table.count() as usize;
    let array = PyArray2::<u16>::zeros(py, [rows, k], false);
    // SAFETY: the array is new, C-contiguous and not yet returned.
    let out = unsafe { array.as_slice_mut() }.map_err(|e| invalid(e.to_string()))?;
    py.detach(|| {
        let mut cells = out.chunks_exact_mut(k);
        table.for_each(|h| {
            if let Some(row) = cells.next() {
                for (d, &a) in row.iter_mut().zip(h) {
                    *d = a as u16;
                }
            }
            Ok(())
        })
    })
    .or_raise()?;
    Ok(array)
}
