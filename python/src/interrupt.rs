//! Calls that may take long, run so that Python stays in charge (issues 60 and 68): the work
//! runs on a thread of its own while the calling thread waits without the GIL and looks for
//! signals every [`SIGNAL_POLL`]. Ctrl-C raises `KeyboardInterrupt` at once, in every call that
//! searches or solves (a search with a movetime of minutes included) and in the first call of
//! a process, which sets up the built-in book and the tables; an exact call's budget
//! (`budget_ms=`) raises `TimeoutError`. The work is stopped either way: it ends at its next
//! poll, or, while it sets up what cannot be cut short (the book, a few hundred ms, once a
//! process), right after that, on its own.

use crossbeam_channel::{bounded, RecvTimeoutError};
use pyo3::exceptions::{PyRuntimeError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use std::time::Duration;
use vier::engine::settings::BUDGET;
use vier::engine::{EngineError, Handle};

/// How often the calling thread, waiting without the GIL, looks for a signal.
const SIGNAL_POLL: Duration = Duration::from_millis(20);
/// How long a call a signal ended waits for its stopped work to end: work still setting up is
/// left to end on its own, so that the signal's exception comes at once.
const STOPPED_WAIT: Duration = Duration::from_millis(20);

/// A `budget_ms` argument, checked: Python callers may pass 0 or a negative number.
pub fn budget(budget_ms: Option<i64>) -> PyResult<Option<Duration>> {
    budget_ms
        .map(|t| {
            let ms = BUDGET
                .check_as("budget_ms", t.into())
                .map_err(PyValueError::new_err)?;
            Ok(Duration::from_millis(ms))
        })
        .transpose()
}

/// Runs `work` under a handle whose budget is `budget` (see [`run_under`]); a budget that ran
/// out raises `TimeoutError`.
pub fn run<T: Send + 'static>(
    py: Python<'_>,
    budget: Option<Duration>,
    work: impl FnOnce(&Handle) -> Result<T, EngineError> + Send + 'static,
) -> PyResult<T> {
    run_under(py, Handle::within(budget), work)
}

/// Runs `work` on a thread of its own under `handle`, while the calling thread waits without
/// the GIL and looks for signals every [`SIGNAL_POLL`]. A signal's handler that raises (Ctrl-C:
/// `KeyboardInterrupt`) stops the handle and raises at once; the work, stopped, is waited for
/// [`STOPPED_WAIT`] at most. A budget that ran out raises `TimeoutError`, a refusal of the work
/// (a finished game) `ValueError`.
pub fn run_under<T: Send + 'static>(
    py: Python<'_>,
    handle: Handle,
    work: impl FnOnce(&Handle) -> Result<T, EngineError> + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = bounded(1);
    let h = handle.clone();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(work(&h));
    });
    let result = loop {
        match py.allow_threads(|| rx.recv_timeout(SIGNAL_POLL)) {
            Ok(r) => break Ok(r),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    // a search or a proof ends at its next poll
                    handle.stop();
                    if py.allow_threads(|| rx.recv_timeout(STOPPED_WAIT)).is_ok() {
                        let _ = py.allow_threads(|| worker.join());
                    }
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                break Err(PyRuntimeError::new_err(
                    "the solver failed on this position",
                ))
            }
        }
    };
    // joined, not only finished: no thread of the call outlives it
    let _ = py.allow_threads(|| worker.join());
    result?.map_err(|e| match e {
        EngineError::OutOfTime { .. } | EngineError::OutOfNodes { .. } => {
            PyTimeoutError::new_err(e.to_string())
        }
        EngineError::Invalid(why) => PyValueError::new_err(why),
        // only a signal stops it, and its exception was raised above
        EngineError::Stopped => PyRuntimeError::new_err(e.to_string()),
    })
}
