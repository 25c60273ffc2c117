//! The solver's threads (Lazy SMP with a simplified ABDADA): helpers search the same position
//! through the shared table, a move another thread is searching waits (the busy table), and the
//! first thread to finish answers for all.

use super::settings::{BUSY_BITS, MAX_THREADS};
use super::{Solver, Stopped};
use crate::bits::Bitboard;
use crate::board::Position;
use crate::control::{Limits, NodeBudget, SearchControl};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// Positions being searched by some thread: one word per slot holding the key, set on entry
/// and cleared on exit. A lost race only makes a thread search a move it could have deferred.
pub(super) struct Busy {
    slots: Vec<AtomicU64>,
}

impl Busy {
    pub(super) fn new() -> Busy {
        Busy {
            slots: (0..1 << BUSY_BITS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[(key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - BUSY_BITS)) as usize]
    }

    #[inline(always)]
    pub(super) fn enter<K: Bitboard>(&self, key: K) {
        let key = key.fold64();
        self.slot(key).store(key, Relaxed);
    }

    #[inline(always)]
    pub(super) fn leave<K: Bitboard>(&self, key: K) {
        let key = key.fold64();
        let s = self.slot(key);
        let _ = s.compare_exchange(key, 0, Relaxed, Relaxed);
    }

    #[inline(always)]
    pub(super) fn is_busy<K: Bitboard>(&self, key: K) -> bool {
        let key = key.fold64();
        self.slot(key).load(Relaxed) == key
    }
}

impl Solver {
    /// Solves with `threads` threads from now on (1..=[`MAX_THREADS`]): helpers search the same
    /// position at the same time through the shared table, and the first thread to finish gives
    /// the answer (Lazy SMP). All keep the same move order, but a move that another thread is
    /// searching waits until the others are done (simplified ABDADA, see [`Busy`]), so at the
    /// nodes where every move must be searched the threads share the moves out. (Varying the
    /// helpers' move order near the root instead, as before, gave no speed-up on the empty
    /// board: a helper's varied first move at a node that needs only one is wasted work.) The
    /// table is kept.
    pub fn set_threads(&mut self, threads: usize) {
        let n = threads.clamp(1, MAX_THREADS) - 1;
        self.helpers.truncate(n);
        while self.helpers.len() < n {
            let mut h = Solver::sharing(self.tt.clone());
            h.set_book(self.book.clone());
            self.helpers.push(h);
        }
        self.busy = (n > 0).then(|| Arc::new(Busy::new()));
        for h in &mut self.helpers {
            h.busy = self.busy.clone();
        }
    }

    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// How many nodes a search runs alone before its helpers join (default
    /// [`RACE_AFTER_NODES`]; 0 races every search, as the tests do).
    pub fn set_race_after(&mut self, nodes: u64) {
        self.race_after = nodes;
    }

    pub(super) fn solve_window<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        weak: bool,
    ) -> Result<i32, Stopped> {
        if self.helpers.is_empty() || p.is_game_over() || p.can_win_next() {
            return self.solve_window_alone(p, weak);
        }
        // Most positions take a few thousand nodes, less than starting the helpers costs: try
        // alone first, and race only if that was not enough (the table keeps the work).
        let outer = self.limits.budget;
        let cap = outer
            .remaining(self.nodes)
            .map_or(self.race_after, |r| r.min(self.race_after));
        self.limits.budget = NodeBudget::start(self.nodes, Some(cap));
        let alone = self.solve_window_alone(p, weak);
        self.limits.budget = outer;
        // not in a race here: the limits are the caller's alone
        let limited = self.limits.reached(self.nodes);
        match alone {
            Ok(v) => Ok(v),
            Err(Stopped) if limited => Err(Stopped),
            Err(Stopped) => self.race(|s| s.solve_window_alone(p, weak)),
        }
    }

    /// Runs `search` on this solver and on every helper at once; the first to finish answers
    /// and stops the others. Nodes and book hits add up.
    fn race<F>(&mut self, search: F) -> Result<i32, Stopped>
    where
        F: Fn(&mut Solver) -> Result<i32, Stopped> + Sync,
    {
        let race = SearchControl::unlimited();
        let first: std::sync::Mutex<Option<i32>> = std::sync::Mutex::new(None);
        let finish = |r: Result<i32, Stopped>| {
            if let Ok(v) = r {
                let mut f = first.lock().unwrap_or_else(|e| e.into_inner());
                f.get_or_insert(v);
                race.stop();
            }
        };
        let mut helpers = std::mem::take(&mut self.helpers);
        std::thread::scope(|scope| {
            for h in helpers.iter_mut() {
                h.limits = Limits {
                    control: self.limits.control.clone(),
                    group: Some(race.clone()),
                    budget: NodeBudget::start(h.nodes, self.limits.budget.remaining(self.nodes)),
                };
                let (search, finish) = (&search, &finish);
                scope.spawn(move || finish(search(h)));
            }
            self.limits.group = Some(race.clone());
            finish(search(self));
            self.limits.group = None;
        });
        for h in &mut helpers {
            self.nodes += std::mem::take(&mut h.nodes);
            self.book_hits += std::mem::take(&mut h.book_hits);
            h.limits = Limits::default();
        }
        self.helpers = helpers;
        let v = first.into_inner().unwrap_or_else(|e| e.into_inner());
        v.ok_or(Stopped)
    }

    #[inline(always)]
    pub(super) fn busy_do(&self, f: impl FnOnce(&Busy)) {
        if let Some(b) = &self.busy {
            f(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_marks_only_the_key_entered_and_leaving_clears_only_its_own_mark() {
        let b = Busy::new();
        let (k, other) = (0x1234_5678_9abc, 0x0fed_cba9_8765);
        assert!(!b.is_busy(k));
        b.enter(k);
        assert!(b.is_busy(k));
        assert!(!b.is_busy(other));
        // another key taking the slot: leaving the first key must not clear its mark
        let mut clash = other;
        while !std::ptr::eq(b.slot(clash), b.slot(k)) {
            clash += 1;
        }
        b.enter(clash);
        assert!(!b.is_busy(k));
        b.leave(k);
        assert!(b.is_busy(clash));
        b.leave(clash);
        assert!(!b.is_busy(clash));
    }
}
