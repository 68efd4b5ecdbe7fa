//! Long work without the GIL, interruptible with Ctrl-C.
//!
//! Python runs its signal handlers only when a thread holding the GIL asks, so long work is
//! cut into pieces: each piece runs with the GIL released (other Python threads go on), and
//! between pieces [`Python::check_signals`] raises `KeyboardInterrupt` if Ctrl-C was pressed.
//! Work the library does in one call is run on a worker thread while the calling thread waits
//! for it in short slices, checking signals between them; on Ctrl-C it cancels the worker's
//! [`chompute::cancel::Cancel`] token, and the library's loop stops at its next chunk.
//!
//! Tests: python/tests/test_runtime.py.

use chompute::cancel::Cancel;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Run `work(start, len)` over `0..total` in pieces of at most `piece` units, each with the
/// GIL released, checking for Ctrl-C between pieces.
pub fn in_pieces<F>(py: Python<'_>, total: u64, piece: u64, mut work: F) -> PyResult<()>
where
    F: FnMut(u64, u64) -> PyResult<()> + Send,
{
    let piece = piece.max(1);
    let mut start = 0;
    while start < total {
        let len = piece.min(total - start);
        py.detach(|| work(start, len))?;
        py.check_signals()?;
        start += len;
    }
    Ok(())
}

/// How often a thread waiting for a worker looks for Ctrl-C.
const SIGNAL_POLL: Duration = Duration::from_millis(20);

/// Run `work` (one library call that cannot be cut into pieces) on a worker thread, with the
/// GIL released, inside the scope of a cancellation token. Ctrl-C raises `KeyboardInterrupt`
/// within [`SIGNAL_POLL`] and cancels the token: the library call stops at its next chunk of
/// work (a row, a layer, 2^16 positions, a claim) and its result is dropped.
pub fn in_background<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    // The worker's result, or None while it works; the worker also says when it is gone
    // without one (a panic), through `Done`'s drop.
    struct Done<T>(Arc<(Mutex<Slot<T>>, Condvar)>);
    enum Slot<T> {
        Working,
        Finished(T),
        Gone,
    }
    impl<T> Drop for Done<T> {
        fn drop(&mut self) {
            let (slot, ready) = &*self.0;
            if let Ok(mut s) = slot.lock() {
                if matches!(*s, Slot::Working) {
                    *s = Slot::Gone;
                }
            }
            ready.notify_all();
        }
    }
    let shared = Arc::new((Mutex::new(Slot::Working), Condvar::new()));
    let done = Done(Arc::clone(&shared));
    let stop = Cancel::new();
    let worker_stop = stop.clone();
    std::thread::Builder::new()
        .name("chompute".into())
        .spawn(move || {
            let value = worker_stop.scope(work);
            if let Ok(mut s) = done.0 .0.lock() {
                *s = Slot::Finished(value);
            }
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a worker thread: {e}")))?;
    let gone = || PyRuntimeError::new_err("chompute's worker thread stopped without a result");
    loop {
        let taken = py.detach(|| {
            let (slot, ready) = &*shared;
            let guard = slot.lock().ok()?;
            let (mut guard, _) = ready
                .wait_timeout_while(guard, SIGNAL_POLL, |s| matches!(s, Slot::Working))
                .ok()?;
            match *guard {
                Slot::Working => Some(None),
                _ => Some(Some(std::mem::replace(&mut *guard, Slot::Gone))),
            }
        });
        match taken {
            Some(None) => py.check_signals().inspect_err(|_| stop.cancel())?,
            Some(Some(Slot::Finished(value))) => return Ok(value),
            _ => return Err(gone()),
        }
    }
}

/// The library's progress reports for a `progress=` argument: a callable, called as
/// `progress(done, total, phase)` (total None when not known), or an object with `update(n)`
/// and a `total` attribute, such as a `tqdm` bar, whose total is set and which is advanced by
/// the steps done since its last update. Calls are at most every [`REPORT_EVERY`] and once at
/// the end of each phase. An exception raised by it stops the work and is raised in its place.
struct Progress {
    target: Py<PyAny>,
    tqdm: bool,
    state: Mutex<ProgressState>,
}

#[derive(Default)]
struct ProgressState {
    phase: String,
    total: Option<u64>,
    done: u64,
    shown: u64,
    last: Option<std::time::Instant>,
    failed: Option<PyErr>,
}

/// Least time between two calls of a `progress=` callable.
const REPORT_EVERY: Duration = Duration::from_millis(100);

impl Progress {
    fn report(&self, force: bool) {
        let Ok(mut s) = self.state.lock() else { return };
        if s.failed.is_some() {
            return;
        }
        let due = s.last.is_none_or(|t| t.elapsed() >= REPORT_EVERY);
        if !force && !due {
            return;
        }
        s.last = Some(std::time::Instant::now());
        let (done, total, shown) = (s.done, s.total, s.shown);
        let phase = s.phase.clone();
        let result = Python::attach(|py| -> PyResult<()> {
            let target = self.target.bind(py);
            if self.tqdm {
                if total.is_some() && shown == 0 {
                    target.setattr("total", total)?;
                }
                target.call_method1("update", (done.saturating_sub(shown),))?;
            } else {
                target.call1((done, total, phase))?;
            }
            Ok(())
        });
        match result {
            Ok(()) => s.shown = done,
            Err(e) => s.failed = Some(e),
        }
    }
}

impl chompute::progress::Observer for Progress {
    fn begin(&self, phase: &str, total: Option<u64>) {
        if let Ok(mut s) = self.state.lock() {
            s.phase = phase.to_string();
            s.total = total;
            s.done = 0;
            s.shown = 0;
            s.last = None;
        }
        self.report(true);
    }

    fn progress(&self, done: u64) {
        if let Ok(mut s) = self.state.lock() {
            s.done = done;
        }
        self.report(false);
    }

    fn end(&self) {
        self.report(true);
    }

    fn cancelled(&self) -> bool {
        self.state.lock().map_or(true, |s| s.failed.is_some())
    }
}

/// [`in_background`], with the library's progress reported to `progress` (see [`Progress`])
/// when it is given and not None.
pub fn in_background_reporting<T, F>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    work: F,
) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let Some(target) = progress.filter(|p| !p.is_none()) else {
        return in_background(py, work);
    };
    let tqdm = !target.is_callable() && target.hasattr("update")?;
    if !tqdm && !target.is_callable() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "progress must be a callable progress(done, total, phase) or a bar with update(n), such as tqdm's",
        ));
    }
    let observer = Arc::new(Progress {
        target: target.clone().unbind(),
        tqdm,
        state: Mutex::new(ProgressState::default()),
    });
    let shared: Arc<dyn chompute::progress::Observer> = observer.clone();
    let value = in_background(py, move || chompute::progress::observe(shared, work))?;
    if let Some(e) = observer.state.lock().ok().and_then(|mut s| s.failed.take()) {
        return Err(e);
    }
    Ok(value)
}
