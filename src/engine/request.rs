//! What one search is asked: a time limit, the search's limits, pondering and a skill level.

pub use crate::levels::Skill;
/// Depth, nodes, lines to report, root moves, and whether to go on until stopped.
pub use crate::search::SearchLimits as Limits;
use crate::time::Deadlines;
pub use crate::time::{Clock, TimeLimit};

/// What one search is asked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// A movetime or a clock, and the overhead kept back from it; none: only the limits below
    /// or `stop` end the search.
    pub time: TimeLimit,
    /// Depth, nodes, lines to report, root moves, and whether to go on until stopped.
    pub limits: Limits,
    /// Start pondering: the time limit counts from [`super::Handle::ponderhit`].
    pub ponder: bool,
    /// Play as a weaker player would.
    pub skill: Option<Skill>,
}

impl Request {
    /// A search of `ms` milliseconds (no overhead kept back), one line.
    pub fn movetime(ms: u64) -> Request {
        Request {
            time: TimeLimit {
                movetime_ms: Some(ms.min(i64::MAX as u64) as i64),
                ..TimeLimit::default()
            },
            limits: Limits {
                multipv: 1,
                ..Limits::default()
            },
            ..Request::default()
        }
    }

    /// The deadlines the search starts with: none for an infinite search.
    pub fn deadlines(&self) -> Deadlines {
        if self.limits.infinite {
            Deadlines::default()
        } else {
            self.time.deadlines()
        }
    }
}
