//! The one place where the library's errors become Python exceptions.
//!
//! | library error                         | Python exception                    |
//! |---------------------------------------|-------------------------------------|
//! | `BadArgument`, `Invalid`, `TooLarge`  | `ValueError`                        |
//! | `BadInput`, `Conflict`                | `ValueError`, inputs by keyword     |
//! | `CheckFailed`                         | `chompute.CheckFailed`              |
//! | `Io`                                  | `OSError` (with errno and filename) |
//! | `Interrupted`                         | `KeyboardInterrupt`                 |
//! | `NoAdapter`, `Gpu`, any later kind    | `RuntimeError`                      |
//!
//! Integers beyond 2^64-1 are refused before the library sees them, with `OverflowError`
//! (see `args`).
//!
//! Tests: python/tests/.

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
        e @ (E::BadInput { .. } | E::Conflict { .. }) => PyValueError::new_err(e.worded(&keyword)),
        E::Io { path, source } => {
            let path = path.display().to_string();
            // OSError(errno, strerror, filename) picks the subclass (FileNotFoundError, …).
            // Errors the library words itself (a missing directory found before anything is
            // created) carry no OS code, only a kind: the errno of that kind then.
            match source.raw_os_error().or_else(|| errno_of(source.kind())) {
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

/// The keyword argument that gives an input of the library's here (`scale`, `fit`).
pub fn keyword(input: chompute::Input) -> String {
    use chompute::Input as I;
    match input {
        I::Window => "window",
        I::CellSize => "scale",
        I::Fit => "fit",
        I::Shade => "shade",
        I::Colours => "colors",
        I::TileSize => "tile_size",
        I::Output => "path",
        I::Method => "method",
        I::Backend => "backend",
        I::Expression => "f",
        I::Pass => "pass_",
        I::Players => "players",
        I::Claim => "claims",
        I::Memory => "memory",
        I::ValueBytes => "value_bytes",
        I::HeapSize => "max",
        I::MaxCells => "max_n",
        I::Steps => "steps",
        I::GpSide => "n",
        other => return other.library_name().to_string(),
    }
    .to_string()
}

/// The errno Python maps to the OSError subclass of an I/O error kind (the same numbers on
/// Linux, macOS and Windows' C runtime), or `None` for kinds without one.
fn errno_of(kind: std::io::ErrorKind) -> Option<i32> {
    use std::io::ErrorKind as K;
    Some(match kind {
        K::NotFound => 2,          // ENOENT: FileNotFoundError
        K::PermissionDenied => 13, // EACCES: PermissionError
        K::AlreadyExists => 17,    // EEXIST: FileExistsError
        K::NotADirectory => 20,    // ENOTDIR: NotADirectoryError
        K::IsADirectory => 21,     // EISDIR: IsADirectoryError
        _ => return None,
    })
}

/// `result.or_raise()?`: the error of any library call as its Python exception.
pub trait OrRaise<T> {
    fn or_raise(self) -> PyResult<T>;
}

impl<T> OrRaise<T> for chompute::Result<T> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(to_py)
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
