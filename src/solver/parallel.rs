//! The solver's threads (Lazy SMP with ABDADA): helpers search the same position through the
//! shared table, a move another thread is searching waits (the busy table), the threads share
//! the root's window (a test one thread answered, the others drop), and the first thread to
//! finish answers for all.

use super::settings::{
    tuned, NearPlies, BUSY_BITS, BUSY_PLIES, MAX_THREADS, SPLIT_ROOT_TESTS_FROM,
};
use super::{Solver, Stopped};
use crate::bits::Bitboard;
use crate::board::Position;
use crate::control::{Limits, NodeBudget, SearchControl};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// Positions being searched by some thread, ABDADA's "busy" marks: one word per slot holding
/// the key's high bits and, in its low byte, how many threads are inside that position.
/// Counting matters: with one mark per key, the first thread to leave would clear it while
/// others still search there. A key that takes an occupied slot overwrites it, and a lost race
/// only makes a thread search a move it could have deferred: the marks steer, never decide.
pub(super) struct Busy {
    slots: Vec<AtomicU64>,
}

/// The low byte of a slot counts the threads inside; the rest is the key's tag.
const COUNT: u64 = 0xFF;

impl Busy {
    pub(super) fn new() -> Busy {
        Busy {
            slots: (0..1 << BUSY_BITS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The slot of a key and the tag stored there (never 0: 0 is an empty slot).
    #[inline(always)]
    fn slot<K: Bitboard>(&self, key: K) -> (&AtomicU64, u64) {
        let key = key.fold64();
        let i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - BUSY_BITS)) as usize;
        (&self.slots[i], (key & !COUNT) | (COUNT + 1))
    }

    #[inline(always)]
    pub(super) fn enter<K: Bitboard>(&self, key: K) {
        let (s, tag) = self.slot(key);
        let _ = s.fetch_update(Relaxed, Relaxed, |w| {
            Some(if w & !COUNT == tag {
                (w + 1).min(tag | COUNT)
            } else {
                tag | 1
            })
        });
    }

    #[inline(always)]
    pub(super) fn leave<K: Bitboard>(&self, key: K) {
        let (s, tag) = self.slot(key);
        let _ = s.fetch_update(Relaxed, Relaxed, |w| {
            (w & !COUNT == tag).then(|| if w & COUNT <= 1 { 0 } else { w - 1 })
        });
    }

    #[inline(always)]
    pub(super) fn is_busy<K: Bitboard>(&self, key: K) -> bool {
        let (s, tag) = self.slot(key);
        s.load(Relaxed) & !COUNT == tag
    }
}

/// The root's window, shared by the threads of a race: the bounds on the root's score that
/// some thread has proven. Every thread narrows it with each null-window result and starts its
/// next test from it; a thread whose test it has answered meanwhile drops that test at its next
/// poll, instead of finishing a proof another thread has already made.
pub(super) struct RootWindow(AtomicU64);

impl RootWindow {
    pub(super) fn new(min: i32, max: i32) -> RootWindow {
        RootWindow(AtomicU64::new(Self::pack(min, max)))
    }

    fn pack(min: i32, max: i32) -> u64 {
        (u64::from(min as u32) << 32) | u64::from(max as u32)
    }

    fn unpack(w: u64) -> (i32, i32) {
        ((w >> 32) as u32 as i32, w as u32 as i32)
    }

    /// The bounds: the root's score is in `min..=max`.
    pub(super) fn get(&self) -> (i32, i32) {
        Self::unpack(self.0.load(Relaxed))
    }

    /// Adds what a thread proved: the score is in `min..=max`.
    pub(super) fn narrow(&self, min: i32, max: i32) {
        let _ = self.0.fetch_update(Relaxed, Relaxed, |w| {
            let (lo, hi) = Self::unpack(w);
            Some(Self::pack(lo.max(min), hi.min(max)))
        });
    }

    /// Whether the bounds already say if the score is above `med`.
    pub(super) fn answers(&self, med: i32) -> bool {
        let (lo, hi) = self.get();
        lo > med || hi <= med
    }
}

impl Solver {
    /// Solves with `threads` threads from now on (1..=[`MAX_THREADS`]): helpers search the same
    /// position at the same time through the shared table, and the first thread to finish gives
    /// the answer (Lazy SMP). All keep the same move order, but a move that another thread is
    /// searching waits until the others are done (simplified ABDADA, see [`Busy`]), so at the
    /// nodes where every move must be searched the threads share the moves out, while at a node
    /// that needs only one move none of them spends its work on a worse first move. The root's
    /// null-window tests are shared too ([`RootWindow`]), and with enough threads every other
    /// helper runs a different one ([`SPLIT_ROOT_TESTS_FROM`]); the shared table takes deeper
    /// positions than with one thread ([`NearPlies::SHARED`]). The table is kept.
    pub fn set_threads(&mut self, threads: usize) {
        let n = threads.clamp(1, MAX_THREADS) - 1;
        self.helpers.truncate(n);
        while self.helpers.len() < n {
            let mut h = Solver::sharing(self.tt.clone());
            h.set_book(self.book.clone());
            self.helpers.push(h);
        }
        self.busy = (n > 0).then(|| Arc::new(Busy::new()));
        self.near_from = NearPlies::for_threads(n > 0);
        self.busy_plies = tuned("BUSY_PLIES", BUSY_PLIES);
        let split = n + 1 >= tuned("SPLIT_ROOT_TESTS_FROM", SPLIT_ROOT_TESTS_FROM as u32) as usize;
        for (i, h) in self.helpers.iter_mut().enumerate() {
            h.busy = self.busy.clone();
            h.near_from = self.near_from;
            h.busy_plies = self.busy_plies;
            h.steps_root = split && i % 2 == 0;
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
        within: (i32, i32),
    ) -> Result<i32, Stopped> {
        self.near_plies = self.near_from.on(W);
        for h in &mut self.helpers {
            h.near_plies = self.near_plies;
        }
        if self.helpers.is_empty() || p.is_game_over() || p.can_win_next() {
            return self.solve_window_alone(p, weak, within);
        }
        // Most positions take a few thousand nodes, less than starting the helpers costs: try
        // alone first, and race only if that was not enough (the table keeps the work).
        let outer = self.limits.budget;
        let cap = outer
            .remaining(self.nodes)
            .map_or(self.race_after, |r| r.min(self.race_after));
        self.limits.budget = NodeBudget::start(self.nodes, Some(cap));
        let alone = self.solve_window_alone(p, weak, within);
        self.limits.budget = outer;
        // not in a race here: the limits are the caller's alone
        let limited = self.limits.reached(self.nodes);
        match alone {
            Ok(v) => Ok(v),
            Err(Stopped) if limited => Err(Stopped),
            Err(Stopped) => self.race(|s| s.solve_window_alone(p, weak, within)),
        }
    }

    /// Runs `search` on this solver and on every helper at once, sharing one [`RootWindow`];
    /// the first to finish answers and stops the others. Nodes and book hits add up.
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
        let window = Arc::new(RootWindow::new(i32::MIN, i32::MAX));
        let mut helpers = std::mem::take(&mut self.helpers);
        // A node budget counts every thread's nodes: each gets its share, so that a budget
        // lasts as long with any number of threads (and the caller's next step has its rest).
        let outer = self.limits.budget;
        let share = outer
            .remaining(self.nodes)
            .map(|r| r / (helpers.len() as u64 + 1));
        let window_main = window.clone();
        let race_main = race.clone();
        let run_main = |s: &mut Solver| {
            s.limits.group = Some(race_main);
            s.limits.budget = NodeBudget::start(s.nodes, share);
            s.window = Some(window_main);
            finish(search(s));
            s.window = None;
            s.limits.group = None;
            s.limits.budget = outer;
        };
        #[cfg(feature = "threads")]
        std::thread::scope(|scope| {
            for h in helpers.iter_mut() {
                h.limits = Limits {
                    control: self.limits.control.clone(),
                    group: Some(race.clone()),
                    budget: NodeBudget::start(h.nodes, share),
                };
                h.window = Some(window.clone());
                let (search, finish) = (&search, &finish);
                scope.spawn(move || finish(search(h)));
            }
            run_main(self);
        });
        // without threads there are no helpers (MAX_THREADS is 1): the race is this thread's
        #[cfg(not(feature = "threads"))]
        run_main(self);
        for h in &mut helpers {
            h.window = None;
            self.nodes += std::mem::take(&mut h.nodes);
            #[cfg(feature = "stats")]
            self.stats.absorb(&mut h.stats);
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
    fn helpers_share_deeper_positions_and_alternate_root_tests_until_one_thread_again() {
        let mut s = Solver::new(1);
        assert_eq!(s.near_from, NearPlies::ALONE);
        s.set_threads(4);
        assert_eq!(s.near_from, NearPlies::SHARED);
        assert!(s.helpers.iter().all(|h| h.near_from == NearPlies::SHARED));
        assert!(s.helpers.iter().all(|h| h.busy_plies == BUSY_PLIES));
        assert!(
            s.helpers.iter().all(|h| !h.steps_root),
            "below 8 threads all halve"
        );
        s.set_threads(SPLIT_ROOT_TESTS_FROM);
        assert!(!s.steps_root, "the main thread halves");
        let steps: Vec<bool> = s.helpers.iter().map(|h| h.steps_root).collect();
        let alternate: Vec<bool> = (0..SPLIT_ROOT_TESTS_FROM - 1).map(|i| i % 2 == 0).collect();
        assert_eq!(steps, alternate);
        // one thread again is the single-thread solver `vier bench` measures
        s.set_threads(1);
        assert_eq!(s.near_from, NearPlies::ALONE);
        assert!(s.helpers.is_empty());
    }

    #[test]
    fn each_solve_starts_the_small_table_where_its_board_wants_it_in_every_thread() {
        let mut s = Solver::new(1);
        s.set_threads(2);
        let near = s.near_from;
        assert_ne!(near.wide, near.narrow);
        // positions the side to move wins at once: the solve answers without a search
        let mut wide = Position::<11, 4, u64>::new();
        let mut narrow = Position::<7, 6, u64>::new();
        for c in [0, 1, 0, 1, 0, 1] {
            wide.play_col(c);
            narrow.play_col(c);
        }
        s.solve(&wide).unwrap();
        assert_eq!(s.near_plies, near.wide);
        assert!(s.helpers.iter().all(|h| h.near_plies == near.wide));
        s.solve(&narrow).unwrap();
        assert_eq!(s.near_plies, near.narrow);
        assert!(s.helpers.iter().all(|h| h.near_plies == near.narrow));
    }

    #[test]
    fn busy_marks_only_the_key_entered_and_leaving_clears_only_its_own_mark() {
        let b = Busy::new();
        let (k, other) = (0x1234_5678_9abc_u64, 0x0fed_cba9_8765_u64);
        assert!(!b.is_busy(k));
        b.enter(k);
        assert!(b.is_busy(k));
        assert!(!b.is_busy(other));
        // another key taking the slot: leaving the first key must not clear its mark
        let mut clash = other;
        while !std::ptr::eq(b.slot(clash).0, b.slot(k).0) {
            clash += 1;
        }
        b.enter(clash);
        assert!(!b.is_busy(k));
        b.leave(k);
        assert!(b.is_busy(clash));
        b.leave(clash);
        assert!(!b.is_busy(clash));
    }

    #[test]
    fn a_position_stays_busy_until_the_last_thread_inside_leaves() {
        let b = Busy::new();
        let k = 0xdead_beef_1234_u64;
        b.enter(k);
        b.enter(k);
        b.leave(k);
        assert!(b.is_busy(k), "one thread is still inside");
        b.leave(k);
        assert!(!b.is_busy(k));
        // a leave too many changes nothing
        b.leave(k);
        assert!(!b.is_busy(k));
    }

    #[test]
    fn the_root_window_keeps_the_tightest_bounds_any_thread_proved() {
        let w = RootWindow::new(-21, 21);
        assert_eq!(w.get(), (-21, 21));
        w.narrow(-3, 21);
        w.narrow(-21, 5);
        // a weaker result from a slower thread widens nothing
        w.narrow(-10, 12);
        assert_eq!(w.get(), (-3, 5));
        assert!(!w.answers(0), "0 < score is still open");
        assert!(w.answers(-4) && w.answers(5));
        w.narrow(1, 5);
        assert!(w.answers(0), "the score is above 0");
    }

    #[test]
    fn a_busy_count_saturates_instead_of_wrapping_into_the_tag() {
        let b = Busy::new();
        let k = 0x5555_aaaa_0000_u64;
        for _ in 0..300 {
            b.enter(k);
        }
        assert!(b.is_busy(k));
        let (s, tag) = b.slot(k);
        assert_eq!(s.load(Relaxed) & !COUNT, tag);
    }
}
