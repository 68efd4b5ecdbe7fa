//! Errors, and the exit status each kind means to the binary.
//!
//! Library code returns [`Error`] (or, where it has not moved to it yet, an `anyhow::Error`
//! carrying one of the markers below); `main` turns any error into one line on stderr and an
//! exit status by [`exit_code`]: 1 only when a check or verification ran and found a
//! disagreement ([`CheckFailed`], [`Error::CheckFailed`]), 130 for [`Error::Interrupted`],
//! and 2 for every other error (bad input, I/O, no GPU, too large).

use std::fmt;

/// Bad input from the user: a size of zero, a malformed option, a grid that cannot fit.
/// Exit status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A verification that ran and found a disagreement (two methods, GPU against CPU, a theorem
/// against the table). Exit status 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckFailed(pub String);

impl fmt::Display for CheckFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckFailed {}

/// Shorthand: `return Err(usage!("M must be at least 1"))`.
#[macro_export]
macro_rules! usage {
    ($($arg:tt)*) => {
        ::anyhow::Error::new($crate::error::UsageError(format!($($arg)*)))
    };
}

/// The process exit status for an error chain: 1 when a check found a disagreement, 130 when
/// the work was interrupted, 2 for anything else.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    for cause in err.chain() {
        if cause.downcast_ref::<CheckFailed>().is_some() {
            return 1;
        }
        match cause.downcast_ref::<Error>() {
            Some(Error::CheckFailed(_)) => return 1,
            Some(Error::Interrupted) => return 130,
            _ => {}
        }
    }
    2
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_disagreement_exits_with_1() {
        let io = || std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(exit_code(&anyhow::Error::new(CheckFailed("x".into()))), 1);
        assert_eq!(exit_code(&Error::CheckFailed("x".into()).into()), 1);
        let wrapped = anyhow::Error::new(CheckFailed("x".into())).context("while rendering");
        assert_eq!(exit_code(&wrapped), 1);
        assert_eq!(exit_code(&Error::Interrupted.into()), 130);
        assert_eq!(exit_code(&Error::io("x.png", io()).into()), 2);
        assert_eq!(exit_code(&anyhow::Error::new(io())), 2);
        assert_eq!(exit_code(&crate::usage!("bad")), 2);
        assert_eq!(exit_code(&anyhow::anyhow!("a tile is missing")), 2);
        assert_eq!(exit_code(&Error::NoAdapter("none".into()).into()), 2);
    }
}
