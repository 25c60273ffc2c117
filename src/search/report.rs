//! What a search is asked (its limits besides time) and what it reports: every finished depth
//! as an [`Iteration`] to a [`Reporter`], and a [`SearchResult`] at the end.

use crate::score::Value;
use std::time::Duration;

/// One scored line (`multipv` lines per report, best first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The value of the line's first move, with its bound.
    pub value: Value,
    /// 0-based columns, starting with the root move.
    pub pv: Vec<usize>,
}

/// What one finished depth (or a solver success) found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iteration {
    pub depth: u32,
    pub seldepth: u32,
    /// Best first; at least one line.
    pub lines: Vec<Line>,
    /// Search plus solver nodes since the search started.
    pub nodes: u64,
    pub time: Duration,
    /// Permille of the searcher's table in use.
    pub hashfull: u32,
    /// True once the root's value is proven.
    pub solved: bool,
    /// Positions the opening book answered since the search started.
    pub book_hits: u64,
}

/// Receives each finished depth. Implemented for closures.
pub trait Reporter {
    fn report(&mut self, it: &Iteration);
}

impl<F: FnMut(&Iteration)> Reporter for F {
    fn report(&mut self, it: &Iteration) {
        self(it)
    }
}

/// Limits of one search besides time (time comes through [`SearchControl`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// Stop after this depth (plies).
    pub depth: Option<u32>,
    /// Stop after about this many nodes (search plus solver); depth 1 always finishes.
    pub nodes: Option<u64>,
    /// Search until stopped: having finished (solved, depth or node limit), idle until `stop`.
    pub infinite: bool,
    /// Root moves to consider, 0-based columns; empty or none legal = all.
    pub searchmoves: Vec<usize>,
    /// Lines to report, 1.. (clamped to the legal moves).
    pub multipv: usize,
}

/// What a search ends with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// 0-based column to play; `None` when the game is already over.
    pub best: Option<usize>,
    /// The final report (nodes and time as of the end); for a finished game a depth-0 report.
    pub last: Iteration,
}
