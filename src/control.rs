//! The one stop rule: what ends a search, shared by whoever asks for it (the protocol loop, a
//! terminal game, a hint) and whoever works (the searcher and the exact solver).
//!
//! A [`SearchControl`] holds the stop flag, the pondering state and the soft and hard deadlines
//! that [`crate::time`] computed. Work ends when [`SearchControl::must_stop`] says so (the flag
//! is set or the hard deadline has passed), or when its own node budget ([`NodeBudget`]) is
//! spent; the searcher starts no new iteration once [`SearchControl::past_soft`]. Both the
//! searcher and the solver poll the same rule, every few thousand nodes.

use crate::time::Deadlines;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Shared between the side that asks for a search and the side that runs it: stop flag,
/// pondering state, deadlines.
#[derive(Debug)]
pub struct SearchControl {
    stop: AtomicBool,
    pondering: AtomicBool,
    start: Instant,
    /// Nanoseconds from `start`; `u64::MAX` = none.
    soft_ns: AtomicU64,
    hard_ns: AtomicU64,
}

impl SearchControl {
    /// A fresh control starting now; while `pondering`, `deadlines` are ignored until
    /// [`SearchControl::ponderhit`].
    pub fn new(deadlines: Deadlines, pondering: bool) -> Arc<SearchControl> {
        let c = SearchControl {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            start: Instant::now(),
            soft_ns: AtomicU64::new(u64::MAX),
            hard_ns: AtomicU64::new(u64::MAX),
        };
        if !pondering {
            c.set_deadlines(Duration::ZERO, deadlines);
        }
        Arc::new(c)
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
        self.set_deadlines(self.start.elapsed(), deadlines);
        self.pondering.store(false, Ordering::SeqCst);
    }

    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }

    /// Time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    fn past(&self, which: &AtomicU64) -> bool {
        let ns = which.load(Ordering::Relaxed);
        ns != u64::MAX && self.start.elapsed().as_nanos() >= ns as u128
    }

    /// The stop rule: the flag is set or the hard deadline has passed. Whatever runs answers
    /// with what it has.
    pub fn must_stop(&self) -> bool {
        self.is_stopped() || self.past(&self.hard_ns)
    }

    /// Past the soft deadline: finish, start nothing new.
    pub fn past_soft(&self) -> bool {
        self.past(&self.soft_ns)
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
    fn budgets_count_from_their_start() {
        let b = NodeBudget::start(1000, Some(10));
        assert!(!b.spent(1009));
        assert!(b.spent(1010));
        assert!(!NodeBudget::UNLIMITED.spent(u64::MAX - 1));
    }
}
