//! The one place where the library's errors become Python exceptions.
//!
//! | library error                         | Python exception                    |
//! |---------------------------------------|-------------------------------------|
//! | `BadArgument`, `Invalid`, `TooLarge`  | `ValueError`                        |
//! | `CheckFailed`                         | `chompute.CheckFailed`              |
//! | `Io`                                  | `OSError` (with errno and filename) |
//! | `Interrupted`                         | `KeyboardInterrupt`                 |
//! | `NoAdapter`, `Gpu`, any later kind    | `RuntimeError`                      |
//!
//! Integers beyond 2^64-1 are refused before the library sees them, with `OverflowError`
//! (see `args`).

use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    chompute,
    CheckFailed,
    PyException,
    "A verification ran and found a disagreement: two counting methods, the GPU against the \
     CPU, a theorem against the computed table. The message names the first disagreement."
);

/// A library error as the Python exception that says the same thing.
pub fn to_py(err: chompute::Error) -> PyErr {
    use chompute::Error as E;
    match err {
        E::CheckFailed(message) => CheckFailed::new_err(message),
        e @ (E::BadArgument { .. } | E::Invalid(_) | E::TooLarge { .. }) => {
            PyValueError::new_err(e.to_string())
        }
        E::Io { path, source } => {
            let path = path.display().to_string();
            match source.raw_os_error() {
                // OSError(errno, strerror, filename) picks the subclass (FileNotFoundError, …).
                Some(errno) => {
                    let text = source.to_string();
                    let strerror = text
                        .strip_suffix(&format!(" (os error {errno})"))
                        .unwrap_or(&text)
                        .to_string();
                    PyOSError::new_err((errno, strerror, path))
                }
                None => PyOSError::new_err(format!("{path}: {source}")),
            }
        }
        E::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        e => PyRuntimeError::new_err(e.to_string()),
    }
}

/// Errors that can be raised in Python: the library's typed [`chompute::Error`], and, for the
/// parts of the library that still return `anyhow::Error`, that error with the typed one (or
/// one of the older markers) looked for inside it.
pub trait IntoPyErr {
    fn into_py_err(self) -> PyErr;
}

impl IntoPyErr for chompute::Error {
    fn into_py_err(self) -> PyErr {
        to_py(self)
    }
}

impl IntoPyErr for anyhow::Error {
    fn into_py_err(self) -> PyErr {
        match self.downcast::<chompute::Error>() {
            Ok(e) => to_py(e),
            Err(e) => match e
                .chain()
                .find_map(|c| c.downcast_ref::<std::io::Error>())
                .map(std::io::Error::raw_os_error)
            {
                // OSError(errno, strerror) picks the subclass (FileNotFoundError, …).
                Some(Some(errno)) => PyOSError::new_err((errno, format!("{e:#}"))),
                Some(None) => PyOSError::new_err(format!("{e:#}")),
                None => to_py(chompute::Error::from_anyhow(e)),
            },
        }
    }
}

/// `result.or_raise()?`: the error of any library call as its Python exception.
pub trait OrRaise<T> {
    fn or_raise(self) -> PyResult<T>;
}

impl<T, E: IntoPyErr> OrRaise<T> for Result<T, E> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(IntoPyErr::into_py_err)
    }
}

/// `ValueError` with the library's wording for bad input found by the binding itself.
pub fn invalid(message: impl std::fmt::Display) -> PyErr {
    to_py(chompute::Error::invalid(message))
}

/// `ValueError`: `what must be allowed (got value)`, as the library words it.
pub fn bad_argument(what: &str, value: impl std::fmt::Display, allowed: &str) -> PyErr {
    to_py(chompute::Error::bad_argument(what, value, allowed))
}
