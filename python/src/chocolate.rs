//! The chocolate game C(m,n): counts, P-grids, the automaton, the paper's claims, pictures.
//!
//! Tests: python/tests/.

use crate::args::{bar_window, engine, u64_arg};
use crate::errors::{bad_argument, invalid, to_py, CheckFailed, OrRaise};
use crate::report::to_python;
use crate::run::{in_background_reporting, in_pieces};
use chompute::chocolate::count::{CountMethod, CountPlan};
use chompute::chocolate::grid::{unpack_rows, Window};
use chompute::chocolate::rows::p_cells;
use chompute::chocolate::theorems::{check_claims, select};
use chompute::gpu::{Engine, Job};
use numpy::{PyArray2, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// Cells generated between two looks for Ctrl-C.
const PIECE_CELLS: u64 = 1 << 24;
/// Largest `max_m` of `theorems` (the per-cell claims cost about M³/3 checks each).
const THEOREMS_MAX_M: u64 = 1 << 13;

/// A window's rows `start..start+len`.
fn band(w: &Window, start: u64, len: u64) -> Window {
    w.rows(start, len)
}

/// Rows per piece of about [`PIECE_CELLS`] cells.
fn rows_per_piece(w: &Window) -> u64 {
    (PIECE_CELLS / w.width.max(1)).max(1)
}

/// Generate and count the window with the engine's P-grid backend (the CPU's submask
/// generator and popcounts, or the WGSL kernels), in pieces.
fn count_generated(py: Python<'_>, engine: &Engine, w: &Window) -> PyResult<u128> {
    let grid = engine.p_grid();
    let piece = match engine {
        Engine::Cpu => rows_per_piece(w),
        Engine::Gpu(_) => 16 * rows_per_piece(w),
    };
    let mut total = 0u128;
    in_pieces(py, w.height, piece, |start, len| {
        total += grid.count(&band(w, start, len)).or_raise()?;
        Ok(())
    })?;
    Ok(total)
}

/// The exact number of P-positions of the chocolate bar C(m, n) (n defaults to m), or of the
/// part of it inside `window=(row, col, height, width)` (1-based, rows row..row+height-1).
/// The count is an exact Python int at any size up to 2**64-1 a side.
///
/// Methods:
///
/// - "auto": the fastest exact one, the digit method (as `chompute count` without --method).
/// - "recurrence": g(2m) = 4g(m), g(2m+1) = g(m) + g(m+1); whole square bars; O(log m).
/// - "histogram": g(m,n) = sum over v of hr[v]*hc[v], r(i) = (i-1) xor (m-i); whole bars up
///   to 2**28 on the smaller side, 2**34 on the larger; O(m+n).
/// - "digits": a 16-state programme over the 64 bits of the window's corners; any window of
///   any bar; O(64).
/// - "cpu", "gpu": generate the bit-packed grid (CPU generator or WGSL kernels) and count its
///   bits; at most 2**40 cells.
/// - "all": every method feasible at this size; raises chompute.CheckFailed if two disagree.
///
/// >>> chompute.count(11)
/// 29
/// >>> chompute.count(2**64 - 1)
/// 113427455640312821154458202477256070485
/// >>> chompute.count(777, 1235)
/// 605
/// >>> chompute.count(30001, window=(1000, 1000, 500, 777), method="all")
/// 8255
///
/// Raises ValueError for a size of 0, a window outside the bar or a method that cannot count
/// this bar, OverflowError for a size beyond 2**64-1. Generating methods release the GIL and
/// stop with KeyboardInterrupt on Ctrl-C.
#[pyfunction]
#[pyo3(signature = (m, n=None, *, window=None, method="auto"))]
pub fn count(
    py: Python<'_>,
    m: &Bound<'_, PyAny>,
    n: Option<&Bound<'_, PyAny>>,
    window: Option<&Bound<'_, PyAny>>,
    method: &str,
) -> PyResult<u128> {
    let (w, _) = bar_window(m, n, window)?;
    let method = match method {
        "auto" => None,
        name => Some(name.parse::<CountMethod>().or_raise()?),
    };
    let gpu = chompute::gpu::count_gpu(chompute::gpu::BackendChoice::Auto);
    let plan = CountPlan::new(w, method, gpu).or_raise()?;
    // The generating methods run here, in pieces between which Ctrl-C is looked for; an
    // error of the binding's own (KeyboardInterrupt) is kept aside while the library's passes.
    let mut raised: Option<PyErr> = None;
    let counts = plan.run(|method, w| {
        let name = if method == CountMethod::Gpu {
            "gpu"
        } else {
            "cpu"
        };
        let counted = engine(name, Job::Count).and_then(|e| count_generated(py, &e, w));
        counted.map_err(|e| {
            raised = Some(e);
            chompute::Error::Interrupted
        })
    });
    if let Some(e) = raised {
        return Err(e);
    }
    let counts = counts.or_raise()?;
    plan.verdict(&counts).or_raise()?;
    Ok(counts[0].count)
}

/// A new `height × width` bool array (zeroed by the allocator, so untouched pages cost
/// nothing), and its cells as bytes for the library to write 0 or 1 into.
fn bool_array<'py>(
    py: Python<'py>,
    height: u64,
    width: u64,
    what: &str,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    let cells = height as u128 * width as u128;
    if cells > isize::MAX as u128 {
        return Err(invalid(format!(
            "{what} has {cells} cells, more than an array can hold"
        )));
    }
    chompute::memory::ensure_available(
        cells as u64,
        &format!("{what} ({height}×{width} bools)"),
        "ask for a window",
    )
    .or_raise()?;
    Ok(PyArray2::<bool>::zeros(
        py,
        [height as usize, width as usize],
        false,
    ))
}

/// A bool slice as the bytes it is made of (a NumPy bool is one byte, 0 or 1).
///
/// # Safety
/// Only 0 and 1 may be written through the bytes.
unsafe fn as_bytes(cells: &mut [bool]) -> &mut [u8] {
    &mut *(cells as *mut [bool] as *mut [u8])
}

/// The P-grid of C(m, n) (n defaults to m) as a NumPy bool array of shape (height, width),
/// True at P-positions: cell [r, c] is cell (row + r, col + c) of the bar, whose poisoned
/// square (i, j) is P iff (i-1) ^ (j-1) ^ (m-i) ^ (n-j) == 0.
///
/// `window=(row, col, height, width)` (1-based) takes part of the bar, deep inside bars up to
/// 2**64-1 a side. `backend` is "auto" (per job, the faster side on this machine; never a
/// software adapter), "cpu" or "gpu". The array is written in place, row by row, from the
/// library's bit-packed rows, with the GIL released; Ctrl-C stops it with KeyboardInterrupt.
///
/// >>> int(chompute.p_grid(11).sum())
/// 29
/// >>> chompute.p_grid(10**12 + 39, window=(4 * 10**11, 4 * 10**11, 3, 5)).shape
/// (3, 5)
///
/// Raises ValueError for a size of 0, a window outside the bar or an array larger than the
/// memory available.
#[pyfunction]
#[pyo3(signature = (m, n=None, *, window=None, backend="auto"))]
pub fn p_grid<'py>(
    py: Python<'py>,
    m: &Bound<'py, PyAny>,
    n: Option<&Bound<'py, PyAny>>,
    window: Option<&Bound<'py, PyAny>>,
    backend: &str,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    let (w, _) = bar_window(m, n, window)?;
    let engine = engine(backend, Job::Generate)?;
    let array = bool_array(
        py,
        w.height,
        w.width,
        &format!("the P-grid of C({},{})", w.m, w.n),
    )?;
    // SAFETY: the array was just made here and is not yet returned, so nothing else reads or
    // writes it while `out` lives; the generators write only 0 and 1.
    let out = unsafe { as_bytes(array.as_slice_mut().map_err(|e| invalid(e.to_string()))?) };
    let width = w.width as usize;
    match &engine {
        Engine::Cpu => in_pieces(py, w.height, rows_per_piece(&w), |start, len| {
            let rows = &mut out[start as usize * width..(start + len) as usize * width];
            p_cells(&band(&w, start, len), rows);
            Ok(())
        })?,
        Engine::Gpu(_) => {
            let grid = engine.p_grid();
            let mut words = Vec::new();
            in_pieces(py, w.height, 16 * rows_per_piece(&w), |start, len| {
                let b = band(&w, start, len);
                words.resize(b.total_words().or_raise()?, 0);
                grid.p_rows(&b, &mut words).or_raise()?;
                let rows = &mut out[start as usize * width..(start + len) as usize * width];
                unpack_rows(&words, w.width, rows);
                Ok(())
            })?
        }
    }
    Ok(array)
}

/// Generation `steps` of the second-order cellular automaton
/// b[n+1](i,j) = b[n](i,j) ^ b[n](i-1,j) ^ b[n](i,j-1) ^ b[n](i-1,j-1) ^ b[n-1](i-1,j-1),
/// from b[0] = {(0,0)}, as a bool array of shape (steps+1, steps+1). Generation n is the
/// P-grid of C(n+1, n+1), which the tests check.
///
/// `backend` is "auto", "cpu" or "gpu" (the WGSL step or blocked kernel). The steps run with
/// the GIL released, in batches between which Ctrl-C raises KeyboardInterrupt.
///
/// >>> bool((chompute.automaton(10) == chompute.p_grid(11)).all())
/// True
///
/// Raises ValueError for more than 262143 steps or more than the memory available.
#[pyfunction]
#[pyo3(signature = (steps, *, backend="auto"))]
pub fn automaton<'py>(
    py: Python<'py>,
    steps: &Bound<'py, PyAny>,
    backend: &str,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    use chompute::chocolate::automaton::{check_steps, Automaton};
    let steps = u64_arg(steps, "steps", "at least 0")?;
    check_steps(steps).map_err(to_py)?;
    let engine = engine(backend, Job::Automaton)?;
    let side = steps + 1;
    // Everything the call will hold, checked by the library before the first step.
    Automaton::ensure_room_for_bytes(steps, matches!(engine, Engine::Cpu)).or_raise()?;
    // Steps per batch: about 2^28 cell updates, at least one step.
    let batch = ((1u64 << 28) / (side * side).max(1)).max(1);
    let mut automaton = engine.automaton(steps).or_raise()?;
    in_pieces(py, steps, batch, |_, k| {
        automaton.advance(k).or_raise()?;
        automaton.finish().or_raise()
    })?;
    let words = py.detach(move || automaton.current_u32()).or_raise()?;
    let array = bool_array(py, side, side, &format!("generation {steps}"))?;
    // SAFETY: the array was just made here and is not yet returned, so nothing else reads or
    // writes it while `out` lives; unpacking writes only 0 and 1.
    let out = unsafe { as_bytes(array.as_slice_mut().map_err(|e| invalid(e.to_string()))?) };
    py.detach(|| unpack_rows(&words, side, out));
    Ok(array)
}

/// Check every claim of the chocolate paper (symmetries, diagonals, Thm 3.3 and 3.4, the
/// counting recurrences and sums, the automaton, the octahedron) for all m <= max_m, and
/// beyond it on sampled m through the recursions. Returns one dict per claim, as
/// `chompute theorems --json` prints them: name, statement, kind ("theorem" or "property"),
/// range, checked (an int), pass, counterexample (None or the first disagreement) and
/// seconds.
///
/// claims: the names of the claims to check, as `chompute theorems --claim NAME`
/// (e.g. ["g-odd", "octahedron"]); they are checked in the table's order, each once. None or
/// an empty list: every claim.
///
/// >>> [c["name"] for c in chompute.theorems(20, claims=["sum-odd", "g-odd"])]
/// ['g-odd', 'sum-odd']
///
/// Raises chompute.CheckFailed if a claim fails (its `claims` attribute holds the list),
/// ValueError for max_m outside 1..8192 or a name that is not a claim's (the message lists
/// them all). Ctrl-C raises KeyboardInterrupt. `progress`, a callable
/// `progress(done, total, phase)` or a tqdm bar, hears of the claims done.
#[pyfunction]
#[pyo3(signature = (max_m, *, claims=None, progress=None))]
pub fn theorems<'py>(
    py: Python<'py>,
    max_m: &Bound<'py, PyAny>,
    claims: Option<&Bound<'py, PyAny>>,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let max_m = u64_arg(max_m, "max_m", "between 1 and 8192")?;
    if max_m == 0 || max_m > THEOREMS_MAX_M {
        return Err(bad_argument("max_m", max_m, "between 1 and 8192"));
    }
    let selected = select(&claim_names(claims)?).or_raise()?;
    let results =
        in_background_reporting(py, progress, move || check_claims(max_m, &selected, |_| {}))?
            .or_raise()?;
    let list = to_python(py, &results)?;
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| !r.pass)
        .map(|r| r.name.as_str())
        .collect();
    if !failed.is_empty() {
        let err = CheckFailed::new_err(format!("claims failed: {}", failed.join(", ")));
        err.value(py).setattr("claims", &list)?;
        return Err(err);
    }
    Ok(list)
}

/// `claims`: a sequence of names. One name alone is a `TypeError` that says so, rather than a
/// sequence of its letters.
fn claim_names(claims: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    let Some(claims) = claims else {
        return Ok(Vec::new());
    };
    let refuse = |why: &str| -> PyResult<Vec<String>> {
        Err(PyTypeError::new_err(format!(
            "claims must be a sequence of claim names such as ['g-odd']{why} (got {})",
            claims.repr()?
        )))
    };
    if claims.is_instance_of::<PyString>() {
        return refuse(", not one string");
    }
    claims.extract().or_else(|_| refuse(""))
}

/// `colors`: "P,N" ("#5b2a86,#f4efe6", read by the library's parser, as `--colors` is) or a
/// pair of colour strings.
fn colours(obj: &Bound<'_, PyAny>) -> PyResult<chompute::render::picture::Colours> {
    use chompute::render::{parse_colour, parse_colours};
    if let Ok(s) = obj.extract::<String>() {
        return Ok(Some(parse_colours(&s).or_raise()?));
    }
    let (p, n): (String, String) = obj.extract().map_err(|_| {
        invalid("colors must be two colours: 'P,N' or a pair ('#5b2a86', '#f4efe6')")
    })?;
    Ok(Some([
        parse_colour(p.trim()).or_raise()?,
        parse_colour(n.trim()).or_raise()?,
    ]))
}

/// Write the P-grid of C(m, n) (or of `window=(row, col, height, width)`) as a picture at
/// `path`, as `chompute render -o` does, with the same checks: 1 bit a pixel, black P-cells on
/// white; `scale=K` draws each cell as K×K pixels; `fit=PIXELS` fits the bar into PIXELS on its
/// longer side, each pixel shaded by its block's exact fraction of P-cells (8-bit), `shade`
/// "linear", "sqrt" or "log"; `colors="P,N"` (or a pair of colours) makes an indexed PNG. The
/// extension picks the format: .png streams at any size; .tif, .tiff, .webp, .bmp, .jpg,
/// .jpeg and .gif are made in memory, for pictures up to 2**27 pixels; any other is refused.
/// `compression` is "fast", "balanced" or "best"; `verify=True` compares every generated tile
/// with a second method and raises chompute.CheckFailed on a disagreement.
///
/// Everything is checked before anything is drawn or created: sizes, the format, and the
/// memory the encoder will hold (ValueError). The file is written under a temporary name and
/// renamed when complete: an error or Ctrl-C (KeyboardInterrupt) leaves neither. `progress`,
/// a callable `progress(done, total, phase)` or a tqdm bar, hears of the rows done. Returns a
/// dict with the path, the picture's width and height, the window and the backend used.
///
/// >>> chompute.render("r11.png", 11, scale=16, colors="#5b2a86,#f4efe6")["width"]
/// 176
#[pyfunction]
#[pyo3(signature = (path, m, n=None, *, window=None, fit=None, scale=None, shade=None, colors=None, compression="balanced", verify=false, backend="auto", progress=None))]
#[allow(clippy::too_many_arguments)]
pub fn render<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    m: &Bound<'py, PyAny>,
    n: Option<&Bound<'py, PyAny>>,
    window: Option<&Bound<'py, PyAny>>,
    fit: Option<&Bound<'py, PyAny>>,
    scale: Option<&Bound<'py, PyAny>>,
    shade: Option<&str>,
    colors: Option<&Bound<'py, PyAny>>,
    compression: &str,
    verify: bool,
    backend: &str,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    use chompute::render::picture::source::CellSource;
    use chompute::render::plan::Request;

    let (w, _) = bar_window(m, n, window)?;
    let mut request = Request::new(w);
    request.fit = fit
        .filter(|f| !f.is_none())
        .map(|f| u64_arg(f, "fit", "at least 1"))
        .transpose()?;
    request.scale = scale
        .filter(|s| !s.is_none())
        .map(|s| u64_arg(s, "scale", "at least 1"))
        .transpose()?;
    request.shade = shade.map(|s| s.parse()).transpose().or_raise()?;
    request.colours = match colors {
        Some(c) if !c.is_none() => colours(c)?,
        _ => None,
    };
    request.compression = compression.parse().or_raise()?;
    request.output = Some(path.clone());
    request.made_by = Some(format!("chompute {} (Python)", env!("CARGO_PKG_VERSION")));
    let job = if request.fit.is_some() {
        Job::Fit
    } else {
        Job::Render
    };
    let cells = CellSource::new(engine(backend, job)?, verify);
    write_picture(py, request, cells, progress)
}

/// Plan the render (every check, before anything is made), then draw it on a worker thread
/// (Ctrl-C cancels it, and the temporary file goes); the dict `render` returns.
fn write_picture<'py>(
    py: Python<'py>,
    request: chompute::render::plan::Request,
    cells: chompute::render::picture::source::CellSource,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    use chompute::render::plan::Plan;

    let path = request.output.clone();
    let plan = Plan::new(request).or_raise()?;
    let backend = cells.backend().to_string();
    let (plan, done) = in_background_reporting(py, progress, move || {
        let done = plan.run(&cells);
        (plan, done)
    })?;
    done.or_raise()?;
    let pic = &plan.picture;
    let w = pic.window;
    let d = PyDict::new(py);
    d.set_item("path", path)?;
    d.set_item("m", w.m)?;
    d.set_item("n", w.n)?;
    d.set_item("window", (w.row0, w.col0, w.height, w.width))?;
    d.set_item("width", pic.width)?;
    d.set_item("height", pic.height)?;
    d.set_item("backend", backend)?;
    Ok(d)
}

/// The CPU generator with one cell of every window flipped: what `render`'s verification
/// must catch.
struct Corrupted(chompute::render::picture::source::EngineRows);

impl chompute::render::picture::source::RowSource for Corrupted {
    fn p_rows(&self, w: &Window, out: &mut [u32]) -> chompute::Result<()> {
        self.0.p_rows(w, out)?;
        out[0] ^= 0x8000_0000;
        Ok(())
    }

    fn name(&self) -> &str {
        "corrupted generator"
    }
}

/// Not part of the API: `render(path, m, verify=True)` from a generator that flips one cell
/// of every window, for the test that verification raises chompute.CheckFailed and leaves
/// no file.
#[pyfunction]
#[pyo3(name = "_render_corrupted")]
pub fn render_corrupted<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    m: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    use chompute::render::picture::source::{CellSource, EngineRows};
    use chompute::render::plan::Request;

    let (w, _) = bar_window(m, None, None)?;
    let mut request = Request::new(w);
    request.compression = chompute::render::Compression::Fast;
    request.output = Some(path);
    let cells = CellSource::with_source(Box::new(Corrupted(EngineRows::new(&Engine::Cpu))), true);
    write_picture(py, request, cells, None)
}
