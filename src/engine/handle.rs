//! How whoever asked reaches work in progress, and why work ends unanswered.

use super::request::Request;
use crate::control::{SearchControl, SOLVER_POLL_NODES};
use crate::time::TimeLimit;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Why the engine gives no answer; the text is meant for the person who asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The question cannot be answered as asked (a finished game, a value out of range).
    Invalid(String),
    /// The budget ran out before the answer was proven.
    OutOfTime { budget: Duration },
    /// The node budget ran out before the answer was proven.
    OutOfNodes { budget: u64 },
    /// Whoever asked stopped it.
    Stopped,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Invalid(why) => f.write_str(why),
            EngineError::OutOfTime { budget } => {
                write!(f, "not solved within {} ms", budget.as_millis())
            }
            EngineError::OutOfNodes { budget } => write!(f, "not solved within {budget} nodes"),
            EngineError::Stopped => f.write_str("stopped before it was solved"),
        }
    }
}

impl std::error::Error for EngineError {}

/// The one refusal of a question about a finished game, in the words of what was asked
/// ("there is no move to find", "there is nothing to solve").
pub fn game_over(what: &str) -> EngineError {
    EngineError::Invalid(format!("the game is over: {what}"))
}

/// How whoever asked reaches a search or a proof in progress (from another thread): stop it,
/// tell it the pondered move was played, see how long it has run and how far it has got. Cheap
/// to clone.
#[derive(Clone, Debug)]
pub struct Handle {
    pub(super) control: Arc<SearchControl>,
    /// The limit applied again at `ponderhit`.
    time: TimeLimit,
    /// The budget it was made with, for the error that says it ran out.
    budget: Option<Duration>,
    /// The most nodes an exact answer may take, all its threads together: with one thread,
    /// the same answer on every run and machine.
    pub(super) nodes: Option<u64>,
}

impl Handle {
    /// The handle of a search asked `request`: its deadlines count from now (from
    /// [`Handle::ponderhit`] when pondering).
    pub fn new(request: &Request) -> Handle {
        Handle {
            control: SearchControl::new(request.deadlines(), request.ponder),
            time: request.time,
            budget: None,
            nodes: None,
        }
    }

    /// Work that ends only when stopped.
    pub fn unlimited() -> Handle {
        Handle::within(None)
    }

    /// Work that must end within `budget` of wall time from now (`None`: only when stopped).
    pub fn within(budget: Option<Duration>) -> Handle {
        Handle {
            control: match budget {
                Some(b) => SearchControl::within(b),
                None => SearchControl::unlimited(),
            },
            time: TimeLimit::default(),
            budget,
            nodes: None,
        }
    }

    /// This handle, its exact answers bounded to `nodes` too (`None`: by time alone).
    pub fn with_nodes(self, nodes: Option<u64>) -> Handle {
        Handle { nodes, ..self }
    }

    /// Asks the work to end as soon as it can; it answers with what it has.
    pub fn stop(&self) {
        self.control.stop();
    }

    pub fn is_stopped(&self) -> bool {
        self.control.is_stopped()
    }

    pub fn is_pondering(&self) -> bool {
        self.control.is_pondering()
    }

    /// The opponent played the pondered move: the time limit counts from now.
    pub fn ponderhit(&self) {
        if self.control.is_pondering() {
            self.control.ponderhit(self.time.deadlines());
        }
    }

    /// Time since the work started.
    pub fn elapsed(&self) -> Duration {
        self.control.elapsed()
    }

    /// How far a proof in progress has got, as its threads last told the stop rule: the nodes
    /// searched (to a poll interval) and the window of exact scores still open, once its first
    /// test is under way.
    pub fn progress(&self) -> Progress {
        Progress {
            nodes: self.control.polls() * SOLVER_POLL_NODES,
            window: self.control.window(),
            elapsed: self.elapsed(),
        }
    }

    /// Why work under this handle ended unanswered after `nodes`.
    pub(super) fn ended(&self, nodes: u64) -> EngineError {
        match (self.nodes, self.budget) {
            _ if self.is_stopped() => EngineError::Stopped,
            (Some(budget), _) if nodes >= budget => EngineError::OutOfNodes { budget },
            (_, Some(budget)) => EngineError::OutOfTime { budget },
            _ => EngineError::Stopped,
        }
    }
}

/// A proof in progress, seen from outside ([`Handle::progress`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub nodes: u64,
    /// The exact scores still open: `lo..=hi`.
    pub window: Option<(i32, i32)>,
    pub elapsed: Duration,
}
