//! Progress of long library work, reported to an [`Observer`]: the phase, the steps done out
//! of a total, and whether to stop. The library draws nothing; each face decides what a
//! report means to its user (the binary draws indicatif bars on a terminal, the Python module
//! calls a `progress=` callable, the server ignores them).
//!
//! Like [`crate::cancel`], the observer is the one of the calling thread's innermost
//! [`observe`] scope, so the library's signatures stay as they are. A long loop opens a
//! [`Phase`] and reports to it between chunks of work; outside a scope that costs one
//! thread-local read. [`crate::cancel::check`] also asks the observer whether to stop.
//!
//! ```
//! use chompute::progress::{observe, Observer};
//! use std::sync::{Arc, Mutex};
//!
//! #[derive(Default)]
//! struct Log(Mutex<Vec<(String, u64, Option<u64>)>>);
//! impl Observer for Log {
//!     fn begin(&self, phase: &str, total: Option<u64>) {
//!         self.0.lock().unwrap().push((phase.to_string(), 0, total));
//!     }
//!     fn progress(&self, done: u64) {
//!         let mut log = self.0.lock().unwrap();
//!         let (phase, total) = (log[0].0.clone(), log[0].2);
//!         log.push((phase, done, total));
//!     }
//! }
//! let log = Arc::new(Log::default());
//! let table = observe(log.clone(), || chompute::pass::gp::GpTable::compute(100))?;
//! let log = log.0.lock().unwrap();
//! assert_eq!(log[0], ("rows".to_string(), 0, Some(100)));
//! assert_eq!(log.last().unwrap().1, 100);
//! # Ok::<(), chompute::Error>(())
//! ```
//!
//! Tests: tests/engine/cancel.rs (stopping long work), python/tests/test_runtime.py (`progress=`).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the library tells a face about long work. Every method has a default that ignores
/// the report, so an observer implements only what it shows.
pub trait Observer: Send + Sync {
    /// A phase of `total` steps (`None`: not known in advance) begins; `phase` names the
    /// steps ("rows", "positions", "lines", "tiles").
    fn begin(&self, phase: &str, total: Option<u64>) {
        let _ = (phase, total);
    }

    /// `done` steps of the current phase are finished (it only grows).
    fn progress(&self, done: u64) {
        let _ = done;
    }

    /// The current phase is over (finished, failed or stopped).
    fn end(&self) {}

    /// Whether anyone sees the reports (a bar on a terminal): work that could run in one
    /// piece is then cut into pieces of about 1% so that the reports move.
    fn shown(&self) -> bool {
        true
    }

    /// Whether the work should stop: [`crate::cancel::check`] then returns
    /// [`crate::Error::Interrupted`] at the next chunk of work.
    fn cancelled(&self) -> bool {
        false
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<dyn Observer>>> = const { RefCell::new(None) };
}

/// Run `work` on this thread with `observer` as the thread's current one, then restore the
/// one before (scopes nest).
pub fn observe<T>(observer: Arc<dyn Observer>, work: impl FnOnce() -> T) -> T {
    struct Restore(Option<Arc<dyn Observer>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = before);
        }
    }
    let before = CURRENT.with(|c| c.borrow_mut().replace(observer));
    let _restore = Restore(before);
    work()
}

/// The observer of this thread's innermost [`observe`] scope, if any.
pub fn current() -> Option<Arc<dyn Observer>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Whether this thread has an observer whose reports are seen ([`Observer::shown`]).
pub fn shown() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(|o| o.shown()))
}

/// Whether this thread's observer asks the work to stop.
pub fn cancelled() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(|o| o.cancelled()))
}

/// One phase of long work, reported to the observer current when it began (if any); ended
/// when dropped. It may be shared by the threads that do the work.
pub struct Phase {
    observer: Option<Arc<dyn Observer>>,
    done: AtomicU64,
}

/// Begin a phase of `total` steps named `name` ("rows", "positions").
pub fn phase(name: &str, total: Option<u64>) -> Phase {
    let observer = current();
    if let Some(o) = &observer {
        o.begin(name, total);
    }
    Phase {
        observer,
        done: AtomicU64::new(0),
    }
}

impl Phase {
    /// `k` more steps are done.
    pub fn inc(&self, k: u64) {
        if let Some(o) = &self.observer {
            let done = self.done.fetch_add(k, Ordering::Relaxed) + k;
            o.progress(done);
        }
    }

    /// `done` steps in all are done.
    pub fn set(&self, done: u64) {
        if let Some(o) = &self.observer {
            self.done.store(done, Ordering::Relaxed);
            o.progress(done);
        }
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        if let Some(o) = &self.observer {
            o.end();
        }
    }
}
