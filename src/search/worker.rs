//! One thread's depth-limited search (negamax with PVS, killers, history and threat ordering,
//! heuristic at the horizon), and what the threads of one search share (the [`Crew`]).

use super::line::{self, Lines};
use super::{INF, MAX_PLY, NO_MOVE};
use crate::bits::Bitboard;
use crate::board::{Geometry, Position};
use crate::control::{poll_due, Limits, NodeBudget, SearchControl, SEARCH_POLL_NODES};
use crate::eval;
use crate::ordering::{column_order, History, MoveSorter};
use crate::score;
use crate::tt::{Bound, TransTable};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Helper threads order moves differently within this many plies of the root (see
/// [`Worker::lazy`]).
const JITTER_PLIES: usize = 3;

/// One thread's depth-limited search: the shared table, its own history, killers and lines.
pub(super) struct Worker {
    pub(super) tt: Arc<TransTable>,
    pub(super) history: History,
    pub(super) killers: [[u8; 2]; MAX_PLY + 1],
    pub(super) lines: Lines,
    pub(super) prev_pv: Vec<u8>,
    /// This thread's nodes in the running search (the main thread's include the solver's).
    pub(super) nodes: u64,
    pub(super) seldepth: usize,
    pub(super) stopped: bool,
    /// False during depth 1, which always completes (there must be a move).
    pub(super) can_stop: bool,
    /// The search's control, the crew's end (helpers), the node limit (the main thread).
    pub(super) limits: Limits,
    /// 0 for the main thread; a helper's number, which varies its move order near the root.
    pub(super) id: u32,
    /// The threads of the running search, when there are helpers.
    pub(super) crew: Option<Arc<Crew>>,
    /// The part of `nodes` a helper has added to its crew's count.
    pub(super) flushed: u64,
}

/// What the threads of one search share besides the table. The helpers end by the search's own
/// stop rule or when `done` is stopped (the main thread's search has ended: they run the same
/// [`SearchControl`] rule as the solver's racing helpers). While the main thread runs the exact
/// solver the helpers wait, so that the solver's own threads have the cores.
pub(super) struct Crew {
    pub(super) done: Arc<SearchControl>,
    /// Helpers' nodes, added at every poll and at their end.
    pub(super) nodes: AtomicU64,
    pub(super) paused: AtomicBool,
    pub(super) lock: Mutex<()>,
    pub(super) resume: Condvar,
}

impl Crew {
    #[cfg(feature = "threads")]
    pub(super) fn new() -> Crew {
        Crew {
            done: SearchControl::unlimited(),
            nodes: AtomicU64::new(0),
            paused: AtomicBool::new(false),
            lock: Mutex::new(()),
            resume: Condvar::new(),
        }
    }

    pub(super) fn pause(&self) {
        self.paused.store(true, Ordering::SeqCst);
    }

    pub(super) fn resume(&self) {
        // under the lock: a helper between its check and its wait cannot miss the wake-up
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.paused.store(false, Ordering::SeqCst);
        self.resume.notify_all();
    }

    /// The main thread's search has ended: the helpers stop.
    #[cfg(feature = "threads")]
    pub(super) fn finish(&self) {
        self.done.stop();
        self.resume();
    }

    /// A helper waits here while the crew is paused; the timeout lets it see the search's stop
    /// rule (nobody notifies a deadline).
    pub(super) fn wait_while_paused(&self, control: Option<&SearchControl>) {
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while self.paused.load(Ordering::SeqCst)
            && !self.done.must_stop()
            && !control.is_some_and(|c| c.must_stop())
        {
            g = match self.resume.wait_timeout(g, Duration::from_millis(1)) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }
}

/// Ends the helpers even if the main thread's search unwinds, so the scope joining them ends.
#[cfg(feature = "threads")]
pub(super) struct FinishOnDrop<'a>(pub(super) &'a Crew);

#[cfg(feature = "threads")]
impl Drop for FinishOnDrop<'_> {
    fn drop(&mut self) {
        self.0.finish();
    }
}

/// A completed root move of one iteration: column, value, line.
pub(super) type RootMove = (usize, i32, Vec<u8>);

/// The next iteration's root order: this one's ranking (`done`, best first), then the moves it
/// did not reach, in their old order.
pub(super) fn next_order(done: &[RootMove], order: &[usize]) -> Vec<usize> {
    let mut next: Vec<usize> = done.iter().map(|m| m.0).collect();
    let rest: Vec<usize> = order
        .iter()
        .copied()
        .filter(|c| !next.contains(c))
        .collect();
    next.extend(rest);
    next
}

impl Worker {
    pub(super) fn new(tt: Arc<TransTable>, id: u32) -> Worker {
        Worker {
            tt,
            history: History::default(),
            killers: [[NO_MOVE; 2]; MAX_PLY + 1],
            lines: Lines::new(),
            prev_pv: Vec::new(),
            nodes: 0,
            seldepth: 0,
            stopped: false,
            can_stop: false,
            limits: Limits::default(),
            id,
            crew: None,
            flushed: 0,
        }
    }

    /// Forgets what earlier searches taught this thread (the table is cleared by its owner).
    pub(super) fn forget(&mut self) {
        self.history = History::default();
        self.killers = [[NO_MOVE; 2]; MAX_PLY + 1];
        self.prev_pv.clear();
    }

    /// Ready for a new search under `control` and within `budget`, with `crew` when threads
    /// search together (a helper then also ends when the crew is done).
    pub(super) fn start(
        &mut self,
        control: Option<Arc<SearchControl>>,
        crew: Option<Arc<Crew>>,
        budget: NodeBudget,
    ) {
        self.nodes = 0;
        self.flushed = 0;
        self.seldepth = 0;
        self.stopped = false;
        self.can_stop = false;
        let group = crew
            .as_ref()
            .filter(|_| self.id > 0)
            .map(|c| c.done.clone());
        self.limits = Limits {
            control,
            group,
            budget,
        };
        self.crew = crew;
        self.prev_pv.clear();
    }

    /// The nodes of the running search: the main thread's own and, while they run, what its
    /// helpers have counted so far.
    pub(super) fn all_nodes(&self) -> u64 {
        match &self.crew {
            Some(c) if self.id == 0 => self.nodes + c.nodes.load(Ordering::Relaxed),
            _ => self.nodes,
        }
    }

    /// A helper's search: iterative deepening of the same root, reporting nothing, until the
    /// crew or the search's stop rule ends it, the depth limit is reached or the root is
    /// proven. Odd helpers start one ply deeper than the main thread, and every helper orders
    /// moves near the root a little differently (see [`Worker::negamax`]), so that the threads
    /// search different subtrees first and fill the shared table for each other.
    #[cfg(feature = "threads")]
    pub(super) fn lazy<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        root: &Position<W, H, B>,
        order: &[usize],
        max_depth: u32,
    ) {
        self.can_stop = true;
        let mut order = order.to_vec();
        let mut depth = (1 + (self.id & 1)).min(max_depth);
        while depth <= max_depth {
            let (mut done, complete) = self.root_search(root, depth as i32, &order, 1);
            if !complete {
                break;
            }
            done.sort_by_key(|m| std::cmp::Reverse(m.1));
            // a win or a loss found is only a bound (score::search_value): go on deepening
            self.prev_pv = done[0].2.clone();
            order = next_order(&done, &order);
            depth += 1;
        }
        self.flush();
        self.crew = None;
        self.limits = Limits::default();
    }

    /// Adds a helper's new nodes to its crew's count.
    fn flush(&mut self) {
        if let Some(c) = &self.crew {
            c.nodes
                .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
            self.flushed = self.nodes;
        }
    }

    /// One iteration at the root: the completed moves (all of them unless interrupted) with
    /// their values and lines, and whether every move was completed.
    pub(super) fn root_search<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        depth: i32,
        order: &[usize],
        multipv: usize,
    ) -> (Vec<RootMove>, bool) {
        let cells = (W * H) as i32;
        let moves = p.moves() as i32;
        self.nodes += 1;
        let mut alpha = -INF;
        let mut done = Vec::with_capacity(order.len());
        for (i, &col) in order.iter().enumerate() {
            let v = if p.is_winning_move(col) {
                self.lines.clear(1);
                score::proven_value(score::win_now(cells, moves))
            } else {
                let mut child = *p;
                child.play_col(col);
                let on_pv = i == 0 && self.prev_pv.first() == Some(&(col as u8));
                if multipv > 1 || i == 0 {
                    -self.negamax(&child, depth - 1, 1, -INF, INF, on_pv)
                } else {
                    let s = -self.negamax(&child, depth - 1, 1, -alpha - 1, -alpha, false);
                    if s > alpha && !self.stopped {
                        -self.negamax(&child, depth - 1, 1, -INF, -alpha, false)
                    } else {
                        s
                    }
                }
            };
            if self.stopped {
                return (done, false);
            }
            let mut line = vec![col as u8];
            line.extend_from_slice(self.lines.below_root());
            if v > alpha && multipv == 1 {
                alpha = v;
            }
            done.push((col, v, line));
        }
        (done, true)
    }

    /// Asks the stop rule (a helper first adds its nodes to the crew's and waits while the crew
    /// is paused).
    #[cold]
    fn poll(&mut self) {
        if !self.can_stop {
            return;
        }
        if self.id > 0 {
            self.flush();
            if let Some(crew) = &self.crew {
                if crew.paused.load(Ordering::Relaxed) {
                    crew.wait_while_paused(self.limits.control.as_deref());
                }
            }
        }
        if self.limits.reached(self.all_nodes()) {
            self.stopped = true;
        }
    }

    /// Depth-limited negamax, fail-soft, from the side to move's view.
    fn negamax<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        on_pv: bool,
    ) -> i32 {
        self.lines.clear(ply);
        self.nodes += 1;
        if poll_due(self.nodes, SEARCH_POLL_NODES) {
            self.poll();
        }
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let cells = (W * H) as i32;
        let moves = p.moves() as i32;
        if moves == cells {
            // only the root's last move can fill the board (deeper, two empty cells are a draw
            // already), and the root takes wins before recursing: a draw
            return 0;
        }
        if p.can_win_next() {
            return score::proven_value(score::win_now(cells, moves));
        }
        let next = p.non_losing_moves();
        if next.is_zero() {
            // every move lets the opponent connect four with its next disc
            return score::proven_value(score::loss_next(cells, moves));
        }
        if moves >= cells - 2 {
            return 0;
        }
        // the opponent wins with its second disc from now at the earliest, we with our second
        let lo = score::proven_value(score::worst_without_loss_next(cells, moves));
        let hi = score::proven_value(score::best_without_win_now(cells, moves));
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        if alpha >= beta {
            return alpha;
        }
        if depth <= 0 {
            return eval::evaluate(p);
        }
        let pv_node = beta - alpha > 1;
        let key = p.key();
        let mut tt_move = NO_MOVE;
        if let Some(e) = self.tt.probe(key) {
            tt_move = e.best_move.unwrap_or(NO_MOVE);
            if let Some(h) = e.heuristic {
                let v = h.value as i32;
                if !pv_node && h.depth as i32 >= depth {
                    match h.bound {
                        Bound::Exact => return v,
                        Bound::Lower if v >= beta => return v,
                        Bound::Upper if v <= alpha => return v,
                        _ => {}
                    }
                }
            }
        }

        let side = (moves & 1) as usize;
        let hint = if on_pv {
            self.prev_pv.get(ply).copied().unwrap_or(NO_MOVE)
        } else {
            NO_MOVE
        };
        let killers = self.killers[ply];
        let mut sorter = MoveSorter::<B, W>::new();
        for &col in column_order::<W>().iter().rev() {
            let bit = next & Geometry::<W, H, B>::column_mask(col);
            if bit.is_zero() {
                continue;
            }
            let c = col as u8;
            let score = if c == hint {
                1 << 30
            } else if c == tt_move {
                1 << 29
            } else if c == killers[0] {
                1 << 28
            } else if c == killers[1] {
                (1 << 28) - 1
            } else {
                let threats = Position::<W, H, B>::winning_cells(p.current() | bit, p.mask() | bit)
                    .count_ones() as i32;
                let mut s =
                    (threats << 20) + (self.history.get(side, bit).min((1 << 20) - 1) as i32);
                if self.id > 0 && ply <= JITTER_PLIES {
                    // a helper: up to one threat's worth of noise, different for each helper
                    s += (((col as u32 * 3 + self.id) % 5) as i32) << 18;
                }
                s
            };
            sorter.add(bit, col, score);
        }
        // a forced move does not use up depth
        let child_depth = if (next & (next - B::ONE)).is_zero() {
            depth
        } else {
            depth - 1
        };

        let alpha_orig = alpha;
        let nodes_before = self.nodes;
        let mut best = -INF;
        let mut best_col = NO_MOVE;
        let mut first = true;
        for (bit, col) in sorter {
            let child = p.after(bit);
            let child_pv = on_pv && col as u8 == hint;
            let s = if first {
                -self.negamax(&child, child_depth, ply + 1, -beta, -alpha, child_pv)
            } else {
                let s = -self.negamax(&child, child_depth, ply + 1, -alpha - 1, -alpha, false);
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax(&child, child_depth, ply + 1, -beta, -alpha, false)
                } else {
                    s
                }
            };
            first = false;
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                best_col = col as u8;
            }
            if s > alpha {
                alpha = s;
                self.lines.update(ply, col as u8);
                if s >= beta {
                    if killers[0] != col as u8 {
                        self.killers[ply] = [col as u8, killers[0]];
                    }
                    self.history
                        .reward(side, bit, (depth * depth).max(1) as u32);
                    self.store(key, s, depth, Bound::Lower, best_col, nodes_before);
                    return s;
                }
            }
        }
        let bound = if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.store(key, best, depth, bound, best_col, nodes_before);
        best
    }

    #[inline]
    fn store<K: Bitboard>(
        &mut self,
        key: K,
        value: i32,
        depth: i32,
        bound: Bound,
        col: u8,
        before: u64,
    ) {
        line::store(&self.tt, key, value, depth, bound, col, self.nodes - before);
    }
}
