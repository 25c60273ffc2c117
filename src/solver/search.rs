//! One thread's search: the root's sequence of null-window searches that narrows the score
//! ([`Solver::solve_window_alone`]), and the negamax they run.

use super::keys::{column_cells, key_of, oriented};
use super::resolve::{Open, Resolved};
use super::settings::{EMPTY_BOARD_STEPS, STEP_RANGE};
use super::{Solver, Stopped};
use crate::bits::Bitboard;
use crate::board::{Geometry, Position};
use crate::control::{poll_due, SOLVER_POLL_NODES};
use crate::ordering::{column_order, MoveSorter};
use crate::score;
use crate::tt::TransTable;

use crate::bits::MAX_WIDTH;

impl Solver {
    pub(super) fn solve_window_alone<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        weak: bool,
        within: (i32, i32),
    ) -> Result<i32, Stopped> {
        if let Some(s) = score::terminal(p) {
            return Ok(s);
        }
        let cells = (W * H) as i32;
        let moves = p.moves() as i32;
        if p.can_win_next() {
            return Ok(score::win_now(cells, moves));
        }
        if let Some(s) = self.book_score(p) {
            return Ok(if weak { score::outcome(s) } else { s });
        }
        let (mut min, mut max) = score::range(cells, moves);
        if weak {
            min = min.max(-1);
            max = max.min(1);
        }
        // only the scores asked about are told apart: the tests stop at `within`'s ends
        min = min.max(within.0);
        max = max.min(within.1);
        self.stopped = false;
        let mut tests = 0;
        // Null-window searches; probing near 0 first (where most positions are), then halving.
        // A window close to the score costs most, one far from it little (a quick win or loss
        // is a shallow proof): once at most STEP_RANGE scores are left, the tests step out from
        // 0 instead of halving, which skips a test just beside the score more often than not.
        // The empty board's first EMPTY_BOARD_STEPS tests step too: its score is near 0.
        // In a race every thread starts from what all have proven (see `RootWindow`).
        loop {
            if let Some(w) = &self.window {
                let (lo, hi) = w.get();
                (min, max) = (min.max(lo), max.min(hi));
            }
            if min >= max {
                break;
            }
            // issue 60: progress for `vier solve` (read-only, no effect on the search)
            if let Some(c) = &self.limits.control {
                c.note_window(min, max);
            }
            let mut med = min + (max - min) / 2;
            if max - min <= STEP_RANGE
                || (self.steps_root && self.window.is_some())
                || (moves == 0 && tests < EMPTY_BOARD_STEPS)
            {
                med = if min >= 0 {
                    min
                } else if max <= 0 {
                    max - 1
                } else {
                    -1
                };
            } else if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            self.testing = med;
            tests += 1;
            let r = self.search(p, med, med + 1);
            if self.stopped {
                if self.window_answered() && !self.limits.reached(self.nodes) {
                    // another thread answered this test: go on from its bounds
                    self.stopped = false;
                    continue;
                }
                return Err(Stopped);
            }
            if r <= med {
                max = r;
            } else {
                min = r;
            }
            if let Some(w) = &self.window {
                w.narrow(min, max);
            }
        }
        Ok(min)
    }

    /// Whether another thread of the race has answered the root's test in progress.
    #[inline(always)]
    fn window_answered(&self) -> bool {
        self.window
            .as_ref()
            .is_some_and(|w| w.answers(self.testing))
    }

    /// Whether the exact score of `p` is at most `bound` (one null-window search).
    pub fn value_at_most<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        bound: i32,
    ) -> Result<bool, Stopped> {
        self.stopped = false;
        if let Some(s) = score::terminal(p) {
            return Ok(s <= bound);
        }
        if p.can_win_next() {
            return Ok(score::win_now((W * H) as i32, p.moves() as i32) <= bound);
        }
        if let Some(s) = self.book_score(p) {
            return Ok(s <= bound);
        }
        let r = self.search(p, bound, bound + 1);
        if self.stopped {
            return Err(Stopped);
        }
        Ok(r <= bound)
    }

    /// The value of a position whose side to move cannot win at once: static resolution
    /// first, then a search of what is left. Fail-soft, as [`Solver::negamax`].
    pub(super) fn search<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        // only the line of the last search cut short is kept (see `stop_line`)
        self.stop_line.clear();
        match self.resolve(*p, alpha, beta) {
            Resolved::Value(v) => v,
            Resolved::Search(o) if o.same => self.negamax(&o, alpha, beta),
            Resolved::Search(o) => -self.negamax(&o, -beta, -alpha),
        }
    }

    /// Alpha-beta search of a position [`Solver::resolve`] left to search: its side to move
    /// cannot win at once and has at least two moves that do not lose at once.
    /// Fail-soft: a result `<= alpha` is an upper bound, `>= beta` a lower bound, else exact.
    fn negamax<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        open: &Open<W, H, B>,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        let p = &open.p;
        debug_assert!(alpha < beta);
        debug_assert!(!p.can_win_next());
        self.nodes += 1;
        #[cfg(feature = "stats")]
        self.stats.node(p.moves());
        if poll_due(self.nodes, SOLVER_POLL_NODES)
            && (self.limits.reached(self.nodes) || self.window_answered())
        {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let cells = (W * H) as i32;
        let moves = p.moves() as i32;
        if (moves as u32) < self.book_moves {
            if let Some(s) = self.book_score(p) {
                return s;
            }
        }
        let next = open.next;
        debug_assert!(!(next & (next - B::ONE)).is_zero());
        let min = score::worst_without_loss_next(cells, moves);
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        if beta > open.max {
            beta = open.max;
            if alpha >= beta {
                return beta;
            }
        }

        let (key, mirrored) = (open.key, open.mirrored);
        // the table stores moves in the orientation of its key
        let orient = |c: usize| oriented::<W>(c, mirrored);
        let mut tt_move = None;
        if open.lower >= beta {
            return open.lower;
        }
        if open.upper <= alpha {
            return open.upper;
        }
        alpha = alpha.max(open.lower);
        beta = beta.min(open.upper);
        if alpha >= beta {
            return alpha;
        }
        // (a column past the board's: an entry of a table file no process of this size wrote)
        if let Some(c) = open.best_move.filter(|&c| (c as usize) < W) {
            tt_move = Some(orient(c as usize));
        }
        let alpha_orig = alpha;

        // Every child is resolved statically first (forced replies, the table: enhanced
        // transposition cutoffs). One that settles the window ends the node without a search;
        // the others are searched, ordered, from where their forced moves lead.
        let mut best = i32::MIN;
        let mut best_col = None;
        let mut ends = [None; W];
        // our threats right above an opponent threat can never be played first
        let opp_threats = open.opp_win;
        let mut sorter = MoveSorter::<B, W>::new();
        let order = column_order::<W>();
        // Children's entries in the large table are cache misses: ask for all of them before
        // resolving any, so that the misses overlap (their keys are kept for the resolution).
        let prefetch = (moves as u32) + 1 < self.near_plies;
        let mut keys = [(B::ZERO, false); W];
        if prefetch {
            for (col, k) in keys.iter_mut().enumerate() {
                let bit = next & column_cells::<W, H, B>(col);
                if !bit.is_zero() {
                    *k = key_of(&p.after(bit));
                    self.tt.prefetch(k.0);
                }
            }
        }
        for &col in order.iter().rev() {
            let bit = next & column_cells::<W, H, B>(col);
            if bit.is_zero() {
                continue;
            }
            // the cells where we connect four after the move: the child's opponent threats, and
            // what the move order counts
            let mask = p.mask() | bit;
            let ours = Position::<W, H, B>::winning_cells(p.current() | bit, mask);
            let child_key = prefetch.then_some(keys[col]);
            match self.resolve_with(p.after(bit), ours, child_key, -beta, -alpha) {
                Resolved::Value(v) => {
                    let s = -v;
                    if s > best {
                        best = s;
                        best_col = Some(col);
                    }
                    if s >= beta {
                        self.store(moves as u32, key, s, i32::MAX, Some(orient(col)), 1);
                        return s;
                    }
                    alpha = alpha.max(s);
                    continue;
                }
                Resolved::Search(o) => ends[col] = Some(o),
            }
            // The threats the move leaves us, and again those a disc above a playable cell,
            // which zugzwang most often turns into wins (measured: a weight for threats the
            // opponent must answer at once made ordering worse). The table's move breaks ties.
            let threats = ours & !(opp_threats << 1);
            let playable = (mask + Geometry::<W, H, B>::bottom()) & Geometry::<W, H, B>::board();
            let score = (4 * count_both(threats, threats & (playable << 1))
                + u32::from(Some(col) == tt_move)) as i32;
            sorter.add(bit, col, score);
        }
        if sorter.is_empty() {
            self.store_result(moves as u32, key, best, alpha_orig, best_col.map(orient), 1);
            return best;
        }
        // No child lost at once for the opponent (that would have settled the node): we cannot
        // win with our next disc either, at best with the one after.
        let max = score::best_without_win_soon(cells, moves);
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }

        let nodes_before = self.nodes;
        // With helpers, a move another thread is searching right now waits until the others are
        // done (simplified ABDADA): at a node where every move must be searched, the threads
        // share the moves out instead of searching the same ones side by side.
        let track = self.busy.is_some() && (moves as u32) < self.busy_plies;
        let mut cols = [0u8; 2 * MAX_WIDTH];
        let mut n = 0;
        for (_, col) in sorter {
            if ends[col].is_some() {
                cols[n] = col as u8;
                n += 1;
            }
        }
        let mut deferred = [false; MAX_WIDTH];
        if track {
            self.busy_do(|b| b.enter(key));
        }
        let mut first = true;
        let mut i = 0;
        while i < n {
            let col = cols[i] as usize;
            i += 1;
            let Some(mut o) = ends[col] else {
                continue;
            };
            if track
                && !first
                && !deferred[col]
                && self.busy.as_ref().is_some_and(|b| b.is_busy(o.key))
            {
                deferred[col] = true;
                cols[n] = col as u8;
                n += 1;
                continue;
            }
            let mut settled = None;
            if track && !first {
                // Another thread may have settled or bounded the move since this node
                // resolved it (a deferred move most of all): look again before searching.
                let bit = next & column_cells::<W, H, B>(col);
                match self.resolve(p.after(bit), -beta, -alpha) {
                    Resolved::Value(v) => settled = Some(-v),
                    Resolved::Search(fresh) => o = fresh,
                }
            }
            // the move's value, from the position its forced moves lead to
            let value = |s: &mut Self, a: i32, b: i32| {
                if o.same {
                    -s.negamax(&o, -b, -a)
                } else {
                    s.negamax(&o, a, b)
                }
            };
            let s = if let Some(s) = settled {
                s
            } else if first || beta - alpha == 1 {
                value(self, alpha, beta)
            } else {
                // principal variation search: prove the move is no better, re-search if it is
                let s = value(self, alpha, alpha + 1);
                if s > alpha && s < beta && !self.stopped {
                    value(self, alpha, beta)
                } else {
                    s
                }
            };
            first = false;
            if self.stopped {
                self.stop_line.push(col as u8);
                if track {
                    self.busy_do(|b| b.leave(key));
                }
                return 0;
            }
            if s > best {
                best = s;
                best_col = Some(col);
            }
            if s >= beta {
                if track {
                    self.busy_do(|b| b.leave(key));
                }
                let work = bit_length(self.nodes - nodes_before);
                self.store(moves as u32, key, s, i32::MAX, best_col.map(orient), work);
                return s;
            }
            alpha = alpha.max(s);
        }
        if track {
            self.busy_do(|b| b.leave(key));
        }
        let work = bit_length(self.nodes - nodes_before);
        self.store_result(
            moves as u32,
            key,
            best,
            alpha_orig,
            best_col.map(orient),
            work,
        );
        best
    }

    /// Stores a node's result that did not reach beta: exact above `alpha`, else an upper bound.
    #[inline(always)]
    fn store_result<K: Bitboard>(
        &self,
        moves: u32,
        key: K,
        best: i32,
        alpha: i32,
        best_col: Option<usize>,
        work: u32,
    ) {
        let lower = if best > alpha { best } else { i32::MIN };
        self.store(moves, key, lower, best, best_col, work);
    }

    #[inline(always)]
    pub(super) fn table_for(&self, moves: u32) -> &TransTable {
        if moves >= self.near_plies {
            &self.near
        } else {
            &self.tt
        }
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store<K: Bitboard>(
        &self,
        moves: u32,
        key: K,
        lower: i32,
        upper: i32,
        best_col: Option<usize>,
        work: u32,
    ) {
        self.table_for(moves)
            .store(key, lower, upper, best_col.map(|c| c as u8), work);
    }
}

/// `a.count_ones() + b.count_ones()`, counted together: a build for any x86-64 has no popcount
/// instruction, and the shared steps of two bit-parallel counts cost less than two counts.
#[inline(always)]
fn count_both<B: Bitboard>(a: B, b: B) -> u32 {
    let ((a0, a1), (b0, b1)) = (a.split(), b.split());
    count_pair(a0, b0) + count_pair(a1, b1)
}

#[inline(always)]
fn count_pair(a: u64, b: u64) -> u32 {
    const M1: u64 = 0x5555_5555_5555_5555;
    const M2: u64 = 0x3333_3333_3333_3333;
    const M4: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    let a = a - ((a >> 1) & M1);
    let b = b - ((b >> 1) & M1);
    // each nibble of the sum counts at most 8
    let s = (a & M2) + ((a >> 2) & M2) + (b & M2) + ((b >> 2) & M2);
    let s = (s & M4) + ((s >> 4) & M4);
    (s.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u32
}

#[inline(always)]
fn bit_length(x: u64) -> u32 {
    64 - x.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_two_boards_together_counts_both() {
        let mut rng = crate::rng::Rng::new(1);
        for _ in 0..1000 {
            let x = rng.next_u64();
            let (a, b) = (x, x.rotate_left(29) & x.rotate_right(5));
            assert_eq!(count_pair(a, b), a.count_ones() + b.count_ones());
            let (wa, wb) = ((a as u128) << 64 | b as u128, (b as u128) << 3);
            assert_eq!(count_both(wa, wb), wa.count_ones() + wb.count_ones());
        }
        assert_eq!(count_pair(u64::MAX, u64::MAX), 128);
    }
}
