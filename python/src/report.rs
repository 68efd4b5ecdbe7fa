//! The one place the module turns the library's report structs into Python objects: the same
//! `Serialize` structs the CLI prints as JSON become dicts and lists, with the counts that JSON
//! writes as strings as Python ints (exact at any size).
//!
//! Tests: python/tests/test_chomp_solve.py, python/tests/test_theorems.py.

use pyo3::prelude::*;
use serde::Serialize;

/// `value` as Python objects: a struct is a dict of its fields, a list a list.
pub fn to_python<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    chompute::json::exact_integers(|| pythonize::pythonize(py, value))
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))
}
