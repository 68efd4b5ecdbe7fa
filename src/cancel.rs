//! Stopping long library calls from outside: a [`Cancel`] token.
//!
//! A caller that may want to stop a long computation (a Python `KeyboardInterrupt`, a server
//! whose client went away, a GUI's stop button) makes a token, runs the call inside
//! [`Cancel::scope`] on the thread that makes it, and calls [`Cancel::cancel`] from anywhere.
//! The long loops of the library ([`GpTable::compute`](crate::pass::gp::GpTable::compute),
//! [`OrdTable::compute`](crate::chomp::OrdTable::compute), the CB and Nim-with-a-pass tables,
//! rule classes, the theorem checks) look at the token of their thread between chunks of work
//! (a row, a layer, a line, 2^16 positions, a claim) through [`check`] and return
//! [`Error::Interrupted`] once it is cancelled. Outside a scope, [`check`] costs one
//! thread-local read and never stops anything, so the functions' signatures stay as they are.
//!
//! ```
//! use chompute::cancel::Cancel;
//! use chompute::pass::gp::GpTable;
//!
//! let stop = Cancel::new();
//! stop.cancel(); // e.g. from another thread, while the table is being computed
//! let result = stop.scope(|| GpTable::compute(4096));
//! assert!(matches!(result, Err(chompute::Error::Interrupted)));
//! // Without a scope (or with a token not cancelled) the same call runs to the end.
//! assert_eq!(GpTable::compute(64)?.get(2, 1), 0);
//! # Ok::<(), chompute::Error>(())
//! ```
//!
//! Tests: this file's unit tests; tests/engine/cancel.rs, tests/games/chomp/two_player.rs.

use crate::error::{Error, Result};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A cancellation flag shared by the code that runs a computation and the code that may stop
/// it. Clones share the flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A token not cancelled.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Ask every computation running under this token (or a clone) to stop at its next
    /// check. It cannot be undone.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`Cancel::cancel`] has been called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// [`Error::Interrupted`] once cancelled.
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            Err(Error::Interrupted)
        } else {
            Ok(())
        }
    }

    /// Run `work` on this thread with this token as the thread's current one (the one
    /// [`check`] reads), then restore the one before (scopes nest).
    pub fn scope<T>(&self, work: impl FnOnce() -> T) -> T {
        struct Restore(Option<Cancel>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let before = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = before);
            }
        }
        let before = CURRENT.with(|c| c.borrow_mut().replace(self.clone()));
        let _restore = Restore(before);
        work()
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Cancel>> = const { RefCell::new(None) };
}

/// The token of this thread's innermost [`Cancel::scope`], if any: work that fans out to other
/// threads (rayon) takes it along and checks it there.
pub fn current() -> Option<Cancel> {
    CURRENT.with(|c| c.borrow().clone())
}

/// [`Error::Interrupted`] when this thread runs inside the scope of a cancelled token, or of
/// an observer that asks to stop; `Ok` otherwise. The library's long loops call it between chunks of work.
pub fn check() -> Result<()> {
    CURRENT.with(|c| match &*c.borrow() {
        Some(t) => t.check(),
        None => Ok(()),
    })?;
    // The observer of this thread may ask to stop as well ([`crate::progress::Observer`]).
    if crate::progress::cancelled() {
        return Err(Error::Interrupted);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_nest_and_restore() {
        assert!(check().is_ok(), "no scope: never stops");
        let outer = Cancel::new();
        let inner = Cancel::new();
        outer.scope(|| {
            inner.cancel();
            assert!(check().is_ok(), "the outer token is not cancelled");
            inner.scope(|| assert!(matches!(check(), Err(Error::Interrupted))));
            assert!(check().is_ok(), "the outer token is current again");
            outer.cancel();
            assert!(matches!(check(), Err(Error::Interrupted)));
            assert!(current().is_some_and(|t| t.is_cancelled()));
        });
        assert!(check().is_ok() && current().is_none(), "no scope after it");
    }

    #[test]
    fn a_panicking_scope_restores_the_token_before() {
        let t = Cancel::new();
        t.cancel();
        let caught = std::panic::catch_unwind(|| t.scope(|| panic!("inside")));
        assert!(caught.is_err());
        assert!(
            check().is_ok(),
            "the cancelled token did not outlive its scope"
        );
    }

    #[test]
    fn other_threads_see_only_their_own_scope() {
        let t = Cancel::new();
        t.cancel();
        t.scope(|| {
            assert!(check().is_err());
            std::thread::spawn(|| assert!(check().is_ok()))
                .join()
                .unwrap();
            let taken = current().unwrap();
            std::thread::spawn(move || assert!(taken.check().is_err()))
                .join()
                .unwrap();
        });
    }
}
