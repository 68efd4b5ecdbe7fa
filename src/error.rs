//! Error kinds that decide the process exit status.
//!
//! Library code returns `anyhow::Error`s (or typed errors wrapped in one); `main` looks for
//! these markers to pick the exit code: [`UsageError`] → 2, [`CheckFailed`] → 1, anything
//! else → 1.

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

/// Exit status for an error chain: 2 for usage errors, 1 otherwise.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    if err
        .chain()
        .any(|e| e.downcast_ref::<UsageError>().is_some())
    {
        2
    } else {
        1
    }
}
