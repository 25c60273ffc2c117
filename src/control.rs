//! The one stop rule: what ends a search, shared by whoever asks for it (the protocol loop, a
//! terminal game, a hint) and whoever works (the searcher's threads, the exact solver's, the
//! study's simple searches).
//!
//! A [`SearchControl`] holds the stop flag, the pondering state and the soft and hard deadlines
//! that [`crate::time`] computed. A worker holds [`Limits`]: the search's control, the control
//! of the group of threads it works in (a race of the solver's threads, the searcher's crew),
//! and its own node budget ([`NodeBudget`]). Every search loop counts its nodes and, when
//! [`poll_due`] says so (every [`SEARCH_POLL_NODES`] or [`SOLVER_POLL_NODES`]), asks its limits
//! one question: [`Limits::reached`]. The searcher starts no new iteration once
//! [`SearchControl::past_soft`].

use crate::clock;
use crate::time::Deadlines;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How often, in nodes, the searcher's loops ask their [`Limits`]: a few microseconds of work,
/// so a deadline or `stop` is honoured at once, and the check costs nothing measurable.
pub const SEARCH_POLL_NODES: u64 = 1024;
/// How often the exact solver asks: its nodes are cheaper, so it asks less often for the same
/// latency. A node budget is only seen to be spent at a poll, so budgets round up to a multiple
/// of this; the book's selection thresholds were measured that way (changing it changes which
/// positions a budget selects, and the solver's node counts under a budget).
pub const SOLVER_POLL_NODES: u64 = 4096;

/// Whether a loop that has counted `nodes` is due to ask its limits (`every`: one of the poll
/// intervals above, a power of two).
#[inline(always)]
pub fn poll_due(nodes: u64, every: u64) -> bool {
    debug_assert!(every.is_power_of_two());
    nodes & (every - 1) == 0
}

/// Shared between the side that asks for a search and the side that runs it: stop flag,
/// pondering state, deadlines.
#[derive(Debug)]
pub struct SearchControl {
    stop: AtomicBool,
    pondering: AtomicBool,
    /// When it started, on [`clock::now`]'s scale.
    start: Duration,
    /// Nanoseconds from `start`; `u64::MAX` = none.
    soft_ns: AtomicU64,
    hard_ns: AtomicU64,
    /// Progress for whoever shows it (`vier solve`, issue 60): the polls of [`Limits::reached`]
    /// under this control, all threads together, and the exact solver's root window (two i32s;
    /// [`NO_WINDOW`] before its first test).
    polls: AtomicU64,
    window: AtomicU64,
    /// A control this one also stops with (see [`SearchControl::beneath`]).
    parent: Option<Arc<SearchControl>>,
}

/// [`SearchControl::window`] before the solver's first root test.
const NO_WINDOW: u64 = u64::MAX;

impl SearchControl {
    /// A fresh control starting now; while `pondering`, `deadlines` are ignored until
    /// [`SearchControl::ponderhit`].
    pub fn new(deadlines: Deadlines, pondering: bool) -> Arc<SearchControl> {
        let c = SearchControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            start: clock::now(),
            soft_ns: AtomicU64::new(u64::MAX),
            hard_ns: AtomicU64::new(u64::MAX),
            polls: AtomicU64::new(0),
            window: AtomicU64::new(NO_WINDOW),
            parent: None,
        };
        if !pondering {
            c.set_deadlines(Duration::ZERO, deadlines);
        }
        Arc::new(c)
    }

    /// A control with no deadline of its own that must stop when it is stopped or when
    /// `parent` must (its flag, its hard deadline): the searcher's prover works under one
    /// beneath the search's control, stopped when the search ends, and stops at the search's
    /// deadline by itself, not once the search, which may be waiting for a core, tells it so.
    pub fn beneath(parent: Arc<SearchControl>) -> Arc<SearchControl> {
        let mut c = SearchControl::new(Deadlines::default(), false);
        Arc::get_mut(&mut c).expect("a new control").parent = Some(parent);
        c
    }

    /// A control with no deadline: only [`SearchControl::stop`] ends the work.
    pub fn unlimited() -> Arc<SearchControl> {
        SearchControl::new(Deadlines::default(), false)
    }

    /// A control whose hard deadline is `budget` from now.
    pub fn within(budget: Duration) -> Arc<SearchControl> {
        SearchControl::new(
            Deadlines {
                soft: Some(budget),
                hard: Some(budget),
            },
            false,
        )
    }

    fn set_deadlines(&self, offset: Duration, d: Deadlines) {
        let ns = |x: Option<Duration>| {
            x.map_or(u64::MAX, |x| {
                (offset + x).as_nanos().min(u64::MAX as u128 - 1) as u64
            })
        };
        self.soft_ns.store(ns(d.soft), Ordering::SeqCst);
        self.hard_ns.store(ns(d.hard), Ordering::SeqCst);
    }

    /// Asks the search to finish as soon as possible.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The opponent played the expected move: the deadlines now count from this moment.
    pub fn ponderhit(&self, deadlines: Deadlines) {
        self.set_deadlines(self.elapsed(), deadlines);
        self.pondering.store(false, Ordering::SeqCst);
    }

    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }

    /// The hard deadline from the start (none while pondering, or without one).
    pub fn budget(&self) -> Option<Duration> {
        let ns = self.hard_ns.load(Ordering::Relaxed);
        (ns != u64::MAX).then(|| Duration::from_nanos(ns))
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        clock::now().saturating_sub(self.start)
    }

    fn past(&self, which: &AtomicU64) -> bool {
        let ns = which.load(Ordering::Relaxed);
        ns != u64::MAX && self.elapsed().as_nanos() >= ns as u128
    }

    /// The stop rule: the flag is set or the hard deadline has passed. Whatever runs answers
    /// with what it has.
    pub fn must_stop(&self) -> bool {
        self.is_stopped()
            || self.past(&self.hard_ns)
            || self.parent.as_ref().is_some_and(|p| p.must_stop())
    }

    /// Past the soft deadline: finish, start nothing new.
    pub fn past_soft(&self) -> bool {
        self.past(&self.soft_ns)
    }

    /// How often the workers under this control have asked it (each poll stands for the
    /// poll interval's nodes of one worker).
    pub fn polls(&self) -> u64 {
        self.polls.load(Ordering::Relaxed)
    }

    /// The exact solver notes the window of root scores still open, `min..max` (the score is
    /// at least `min`, at most `max`), before each of its root tests.
    pub fn note_window(&self, min: i32, max: i32) {
        let w = ((min as u32 as u64) << 32) | max as u32 as u64;
        self.window.store(w, Ordering::Relaxed);
    }

    /// The window last noted, if any.
    pub fn window(&self) -> Option<(i32, i32)> {
        let w = self.window.load(Ordering::Relaxed);
        (w != NO_WINDOW).then_some(((w >> 32) as u32 as i32, w as u32 as i32))
    }
}

/// How much work one call may do, besides what its [`SearchControl`] allows: counted in nodes
/// since [`NodeBudget::start`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeBudget {
    start: u64,
    max: u64,
}

impl Default for NodeBudget {
    fn default() -> Self {
        NodeBudget::UNLIMITED
    }
}

impl NodeBudget {
    pub const UNLIMITED: NodeBudget = NodeBudget {
        start: 0,
        max: u64::MAX,
    };

    /// At most `max` nodes (none: no limit) from a counter now at `nodes`.
    pub fn start(nodes: u64, max: Option<u64>) -> NodeBudget {
        NodeBudget {
            start: nodes,
            max: max.unwrap_or(u64::MAX),
        }
    }

    /// What is left of the budget for a counter at `nodes` (`None`: no limit).
    pub fn remaining(&self, nodes: u64) -> Option<u64> {
        (self.max != u64::MAX).then(|| self.max.saturating_sub(nodes.wrapping_sub(self.start)))
    }

    /// Whether a counter at `nodes` has used the budget up.
    #[inline(always)]
    pub fn spent(&self, nodes: u64) -> bool {
        nodes.wrapping_sub(self.start) >= self.max
    }
}

/// Everything that may end one worker's search, asked as one question ([`Limits::reached`]).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// The search's stop flag and deadlines (none: only the rest can end it).
    pub control: Option<Arc<SearchControl>>,
    /// The group this worker works in: stopped when another thread of a race has answered, or
    /// when the searcher's main thread has finished.
    pub group: Option<Arc<SearchControl>>,
    /// This worker's share of the work, counted in its own nodes.
    pub budget: NodeBudget,
}

impl Limits {
    /// Limits of a worker on its own: the search's control and a budget.
    pub fn new(control: Option<Arc<SearchControl>>, budget: NodeBudget) -> Limits {
        Limits {
            control,
            group: None,
            budget,
        }
    }

    /// The one question every search loop asks: must the worker, at `nodes`, stop now?
    #[cold]
    #[inline(never)]
    pub fn reached(&self, nodes: u64) -> bool {
        if let Some(c) = &self.control {
            c.polls.fetch_add(1, Ordering::Relaxed);
        }
        self.control.as_ref().is_some_and(|c| c.must_stop())
            || self.group.as_ref().is_some_and(|g| g.must_stop())
            || self.budget.spent(nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_rule() {
        let c = SearchControl::unlimited();
        assert!(!c.must_stop() && !c.past_soft());
        c.stop();
        assert!(c.must_stop());
        let c = SearchControl::within(Duration::ZERO);
        assert!(c.must_stop() && c.past_soft() && !c.is_stopped());
        // pondering ignores the deadlines until ponderhit
        let c = SearchControl::new(
            Deadlines {
                soft: Some(Duration::ZERO),
                hard: Some(Duration::ZERO),
            },
            true,
        );
        assert!(!c.must_stop());
        c.ponderhit(Deadlines {
            soft: None,
            hard: Some(Duration::ZERO),
        });
        assert!(c.must_stop() && !c.past_soft() && !c.is_pondering());
    }

    #[test]
    fn a_control_beneath_another_stops_with_it_or_alone() {
        let parent = SearchControl::unlimited();
        let child = SearchControl::beneath(parent.clone());
        assert!(!child.must_stop());
        child.stop();
        assert!(child.must_stop() && !parent.must_stop());
        let child = SearchControl::beneath(parent.clone());
        parent.stop();
        assert!(child.must_stop() && !child.is_stopped());
        // the parent's hard deadline, not only its flag
        let child = SearchControl::beneath(SearchControl::within(Duration::ZERO));
        assert!(child.must_stop());
        // a pondering parent's deadlines wait for ponderhit
        let deadlines = Deadlines {
            soft: Some(Duration::ZERO),
            hard: Some(Duration::ZERO),
        };
        let pondering = SearchControl::new(deadlines, true);
        let child = SearchControl::beneath(pondering.clone());
        assert!(!child.must_stop());
        pondering.ponderhit(deadlines);
        assert!(child.must_stop());
    }

    #[test]
    fn progress_counts_the_polls_and_keeps_the_window() {
        let c = SearchControl::unlimited();
        assert_eq!((c.polls(), c.window()), (0, None));
        let l = Limits::new(Some(c.clone()), NodeBudget::UNLIMITED);
        l.reached(4096);
        l.reached(8192);
        assert_eq!(c.polls(), 2);
        c.note_window(-18, 3);
        assert_eq!(c.window(), Some((-18, 3)));
        c.note_window(0, -1);
        assert_eq!(c.window(), Some((0, -1)));
    }

    #[test]
    fn budgets_count_from_their_start() {
        let b = NodeBudget::start(1000, Some(10));
        assert!(!b.spent(1009));
        assert!(b.spent(1010));
        assert!(!NodeBudget::UNLIMITED.spent(u64::MAX - 1));
    }

    #[test]
    fn limits_are_reached_by_the_control_the_group_or_the_budget() {
        let unlimited = Limits::default();
        assert!(!unlimited.reached(u64::MAX - 1));
        let control = SearchControl::unlimited();
        let group = SearchControl::unlimited();
        let l = Limits {
            control: Some(control.clone()),
            group: Some(group.clone()),
            budget: NodeBudget::start(100, Some(50)),
        };
        assert!(!l.reached(149));
        assert!(l.reached(150));
        group.stop();
        assert!(l.reached(0));
        let l = Limits::new(Some(control.clone()), NodeBudget::UNLIMITED);
        assert!(!l.reached(1 << 40));
        control.stop();
        assert!(l.reached(0));
    }

    #[test]
    fn polls_fall_due_at_multiples_of_the_interval() {
        assert!(poll_due(0, SOLVER_POLL_NODES) && poll_due(8192, SOLVER_POLL_NODES));
        assert!(!poll_due(1024, SOLVER_POLL_NODES) && poll_due(1024, SEARCH_POLL_NODES));
    }
}
