//! Python arguments to the library's types, checked once before anything runs.
//!
//! Tests: python/tests/.

use crate::errors::{bad_argument, invalid, OrRaise};
use chompute::chocolate::grid::Window;
use chompute::gpu::{BackendChoice, Engine, Job};
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};

/// A u64 argument. Negative values are a `ValueError` in the library's words (`m must be
/// at least 1 (got -3)`, with `allowed` for "at least 1"); values beyond 2^64-1 an
/// `OverflowError`; anything but an integer a `TypeError`, `True` and `False` included.
pub fn u64_arg(obj: &Bound<'_, PyAny>, what: &str, allowed: &str) -> PyResult<u64> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an integer (got bool)"
        )));
    }
    if let Ok(v) = obj.extract::<u64>() {
        return Ok(v);
    }
    // Python ints and anything with __index__ (NumPy integers).
    let int = obj.call_method0("__index__").map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be an integer (got {})",
            type_name(obj)
        ))
    })?;
    if int.lt(0)? {
        Err(bad_argument(what, int, allowed))
    } else {
        Err(PyOverflowError::new_err(format!(
            "{what} = {int} does not fit in 64 bits (at most 2^64-1 = {})",
            u64::MAX
        )))
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an object".into())
}

/// The bar C(m,n) (n defaults to m) and the window of it asked for: the whole bar, or
/// `(row, col, height, width)`, 1-based. Returns the window and whether it is the whole bar.
pub fn bar_window(
    m: &Bound<'_, PyAny>,
    n: Option<&Bound<'_, PyAny>>,
    window: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Window, bool)> {
    let m = u64_arg(m, "m", "at least 1")?;
    let n = match n {
        Some(n) if !n.is_none() => u64_arg(n, "n", "at least 1")?,
        _ => m,
    };
    match window {
        Some(w) if !w.is_none() => {
            let parts = window_parts(w)?;
            let [row, col, height, width] = parts;
            Ok((
                Window::new(m, n, row, col, height, width).or_raise()?,
                false,
            ))
        }
        _ => Ok((Window::full(m, n).or_raise()?, true)),
    }
}

fn window_parts(w: &Bound<'_, PyAny>) -> PyResult<[u64; 4]> {
    let wrong = || {
        invalid(format!(
            "window must be (row, col, height, width), four integers (got {})",
            w.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    };
    if w.is_instance_of::<PyString>() {
        return Err(wrong());
    }
    let items: Vec<Bound<'_, PyAny>> = w
        .try_iter()
        .map_err(|_| wrong())?
        .collect::<PyResult<_>>()?;
    if items.len() != 4 {
        return Err(wrong());
    }
    let names = ["window row", "window col", "window height", "window width"];
    let mut out = [0u64; 4];
    for (k, item) in items.iter().enumerate() {
        if !item.is_instance_of::<PyInt>() && item.call_method0("__index__").is_err() {
            return Err(wrong());
        }
        out[k] = u64_arg(item, names[k], "at least 1")?;
    }
    Ok(out)
}

/// `backend="auto" | "cpu" | "gpu"`, read by the library's parser, as `--backend` is.
pub fn backend(name: &str) -> PyResult<BackendChoice> {
    name.parse().or_raise()
}

/// The engine a `backend` name selects for `job` (`gpu` without a GPU is an error; `auto`
/// decides per job as the command line does, by the rates saved for this machine or the
/// default table).
pub fn engine(name: &str, job: Job) -> PyResult<Engine> {
    Engine::for_job(backend(name)?, job).or_raise()
}
