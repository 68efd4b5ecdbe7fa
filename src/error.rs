//! The library's typed errors.
//!
//! Every fallible function of the library returns [`Result`]; the binary (or the Python
//! module, or the server) decides what each [`Error`] kind means to its user: an exit status,
//! an exception, an HTTP status. Messages speak the library's words ("the cell size", "m"),
//! never a command-line flag's.

/// The library's typed error: every fallible function of `chocolate`, `pass`, `chomp`,
/// `render` and `gpu` returns [`Result`], and the binary (or the Python module, or the server)
/// decides what each kind means to its user: an exit status, an exception, an HTTP status.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An argument outside its allowed values, e.g. `m must be at least 1 (got 0)`.
    #[error("{what} must be {allowed} (got {value})")]
    BadArgument {
        /// What the argument is, in the library's words ("m", "the window", "the scale").
        what: String,
        /// The value given.
        value: String,
        /// What is allowed ("at least 1", "inside C(11,11)").
        allowed: String,
    },
    /// Input that is malformed or inconsistent in a way a range cannot say.
    #[error("{0}")]
    Invalid(String),
    /// A job larger than what can hold it: memory, u64 or u128 arithmetic, a PNG, a binding.
    #[error("{what} is too large: {needed}")]
    TooLarge {
        /// What is too large.
        what: String,
        /// What it would need, and what there is.
        needed: String,
    },
    /// An I/O error on a named path.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: std::path::PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A verification ran and found a disagreement; the message names the first one.
    #[error("{0}")]
    CheckFailed(String),
    /// A GPU was required and none could be had; the message says why.
    #[error("no GPU: {0}")]
    NoAdapter(String),
    /// The GPU driver reported an error (validation, out of memory, lost device).
    #[error("GPU: {0}")]
    Gpu(String),
    /// The work was stopped by an interrupt (Ctrl-C, SIGTERM) before it finished.
    #[error("interrupted")]
    Interrupted,
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// [`Error::BadArgument`] from anything displayable.
    pub fn bad_argument(
        what: impl Into<String>,
        value: impl std::fmt::Display,
        allowed: impl Into<String>,
    ) -> Error {
        Error::BadArgument {
            what: what.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// [`Error::Invalid`] from anything displayable.
    pub fn invalid(message: impl std::fmt::Display) -> Error {
        Error::Invalid(message.to_string())
    }

    /// [`Error::TooLarge`].
    pub fn too_large(what: impl Into<String>, needed: impl std::fmt::Display) -> Error {
        Error::TooLarge {
            what: what.into(),
            needed: needed.to_string(),
        }
    }

    /// [`Error::Io`] for `path`.
    pub fn io(path: impl Into<std::path::PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
