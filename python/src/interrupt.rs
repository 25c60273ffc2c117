//! Exact calls that may take long, run so that Python stays in charge (issue 60): a budget
//! (`budget_ms=`) past which the call raises `TimeoutError`, and Ctrl-C, which raises
//! `KeyboardInterrupt` within [`SIGNAL_POLL`] and the solver's poll. Either way the solver has
//! stopped when the call returns: nothing is left running.

use crossbeam_channel::{bounded, RecvTimeoutError};
use pyo3::exceptions::{PyRuntimeError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use std::time::Duration;
use vier::engine::settings::BUDGET;
use vier::engine::{EngineError, Handle};

/// How often the calling thread, waiting without the GIL, looks for a signal.
const SIGNAL_POLL: Duration = Duration::from_millis(20);

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

/// Runs `work` on a thread of its own under a handle whose budget is `budget`, while the
/// calling thread waits without the GIL and looks for signals every [`SIGNAL_POLL`]. A
/// signal's handler that raises (Ctrl-C: `KeyboardInterrupt`) stops the handle, waits for the
/// work to end and raises; a budget that ran out raises `TimeoutError`; a refusal of the work
/// (a finished game) raises `ValueError`.
pub fn run<T: Send>(
    py: Python<'_>,
    budget: Option<Duration>,
    work: impl FnOnce(&Handle) -> Result<T, EngineError> + Send,
) -> PyResult<T> {
    let handle = Handle::within(budget);
    let (tx, rx) = bounded(1);
    std::thread::scope(|scope| {
        let h = handle.clone();
        let worker = scope.spawn(move || {
            let _ = tx.send(work(&h));
        });
        let result = loop {
            match py.allow_threads(|| rx.recv_timeout(SIGNAL_POLL)) {
                Ok(r) => break Ok(r),
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        // the solver stops within its poll
                        handle.stop();
                        break Err(e);
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
    })
}
