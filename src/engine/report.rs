//! What a search reports: every finished depth as a [`Report`], and the answer as a
//! [`Thought`]. Each line's value carries its bound, and its exact score is there only when the
//! value is proven, computed once here (by [`Value::exact_score`]), so that no front end turns
//! a score into an exact one itself.

use crate::board::AnyPosition;
pub use crate::score::{wdl_permille, Score, ScoreBound, Value};
use crate::search::Iteration;
use std::time::Duration;

/// The proven value of an exact score `s` (Pons') at `p`: as [`SolverPool`](super::SolverPool)
/// answers are shown in the words of wins and losses.
pub fn proven(p: &AnyPosition, s: i32) -> Value {
    Value::proven(p.size().cells() as i32, p.discs() as i32, s)
}

/// One scored line of a report, best first.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "page", derive(serde::Serialize, serde::Deserialize))]
pub struct Line {
    /// The value of the line's first move for the side to move, with its bound.
    pub value: Value,
    /// Pons' exact score of the first move, only when its value is proven.
    pub exact: Option<i32>,
    /// 0-based columns, starting with the root move.
    pub pv: Vec<usize>,
}

impl Line {
    /// The line `pv` from `p` with its first move's `value`: the exact score is set here, only
    /// for a proven value.
    pub fn new(p: &AnyPosition, value: Value, pv: Vec<usize>) -> Line {
        Line {
            exact: value.exact_score(p.size().cells() as i32, p.discs() as i32),
            value,
            pv,
        }
    }

    /// The 0-based column the line starts with.
    pub fn column(&self) -> Option<usize> {
        self.pv.first().copied()
    }
}

/// One finished depth of a search (or its proof by the solver or the book). The page's worker
/// sends it to the page's game as JSON (the `page` feature).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "page", derive(serde::Serialize, serde::Deserialize))]
pub struct Report {
    pub depth: u32,
    pub seldepth: u32,
    /// Best first; at least one (none for a finished game's search).
    pub lines: Vec<Line>,
    /// Search plus solver nodes of every thread since the search started.
    pub nodes: u64,
    pub time: Duration,
    /// Permille of the search's table in use.
    pub hashfull: u32,
    /// The root's value is proven (by the solver, the book or a search to the end).
    pub solved: bool,
    /// Positions the opening book answered since the search started.
    pub book_hits: u64,
}

impl Report {
    /// The report of a search's iteration from the root `p`.
    pub(super) fn of(p: &AnyPosition, it: &Iteration) -> Report {
        Report {
            depth: it.depth,
            seldepth: it.seldepth,
            lines: it
                .lines
                .iter()
                .map(|l| Line::new(p, l.value, l.pv.clone()))
                .collect(),
            nodes: it.nodes,
            time: it.time,
            hashfull: it.hashfull,
            solved: it.solved,
            book_hits: it.book_hits,
        }
    }

    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let ms = self.time.as_millis() as u64;
        self.nodes.saturating_mul(1000) / ms.max(1)
    }

    /// The best line's first move.
    pub fn best(&self) -> Option<&Line> {
        self.lines.first()
    }
}

/// What a search answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thought {
    /// The 0-based column to play; `None` only for a finished game.
    pub column: Option<usize>,
    /// The last report: depth, nodes, time, the lines best first, whether the root is proven.
    pub last: Report,
    /// The skill level that chose the column (it may not be the best), if one did.
    pub chosen_by: Option<u64>,
}

impl Thought {
    /// The line of the column played (`None` when the search has none for it: a skill level
    /// may play a column the last report does not score); for a finished game, its one line.
    pub fn line(&self) -> Option<&Line> {
        match self.column {
            Some(c) => self.last.lines.iter().find(|l| l.column() == Some(c)),
            None => self.last.lines.first(),
        }
    }

    /// The value of the column played, from the side to move's view, with its bound.
    pub fn value(&self) -> Option<Value> {
        self.line().map(|l| l.value)
    }

    /// Pons' exact score of the column played, when it is proven (never for a bound).
    pub fn exact(&self) -> Option<i32> {
        self.line().and_then(|l| l.exact)
    }
}
