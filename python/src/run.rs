//! Long work without the GIL, interruptible with Ctrl-C.
//!
//! Python runs its signal handlers only when a thread holding the GIL asks, so long work is
//! cut into pieces: each piece runs with the GIL released (other Python threads go on), and
//! between pieces [`Python::check_signals`] raises `KeyboardInterrupt` if Ctrl-C was pressed.
//! Work the library does in one call is run on a worker thread while the calling thread waits
//! for it in short slices, checking signals between them; on Ctrl-C it cancels the worker's
//! [`chompute::cancel::Cancel`] token, and the library's loop stops at its next chunk.

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
