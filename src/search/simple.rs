//! The simple searches the study compares the engine with: minimax, alpha-beta, ordering by
//! the heuristic, iterative deepening with the table, each a switch of [`Techniques`] (the
//! engine's own searcher, [`super::worker`], keeps its hot path free of per-node switches).
//!
//! They know the rules only: a move that connects four wins (found one ply ahead with
//! [`Position::can_win_next`], as in the engine's searcher), a full board is a draw. Without the
//! table they still deepen one ply at a time, so that they can answer a time limit, but each
//! depth starts from scratch (nothing is learnt from the last); reported nodes add up all
//! depths. They search on one thread and report one line.

use super::job::Job;
use super::line::{self, Lines};
use super::{Iteration, Line, Reporter, Techniques};
use super::{INF, MAX_PLY, NO_MOVE};
use crate::bits::Bitboard;
use crate::board::Position;
use crate::control::{poll_due, Limits, NodeBudget, SEARCH_POLL_NODES};
use crate::eval;
use crate::score;
use crate::tt::{Bound, TransTable};

/// Iterative deepening of the job with `techniques` (their `engine` off) over its root moves,
/// up to its depth, reporting every completed depth; the last completed one is the result.
/// `tt` is used with `techniques.table`.
pub(super) fn deepen<const W: usize, const H: usize, B: Bitboard>(
    techniques: Techniques,
    job: &Job<W, H, B>,
    tt: &TransTable,
    reporter: &mut dyn Reporter,
) -> Iteration {
    let (root, control) = (job.root, job.control);
    let cells = (W * H) as i32;
    let moves = root.moves() as i32;
    let t = techniques;
    let mut w = Walker {
        t,
        tt,
        nodes: 0,
        limits: Limits::new(
            Some(control.clone()),
            NodeBudget::start(0, job.limits.nodes),
        ),
        stopped: false,
        can_stop: false,
        lines: Lines::new(),
    };
    // without ordering the columns stay left to right whatever the caller's order
    let mut order: Vec<usize> = if !t.ordering {
        (0..W).filter(|c| job.order.contains(c)).collect()
    } else {
        job.order.clone()
    };
    let mut last: Option<Iteration> = None;
    for depth in 1..=job.max_depth {
        w.can_stop = depth > 1;
        // with the table, only the first depth needs the heuristic: then the best move leads
        if t.ordering && (!t.table || depth == 1) {
            order = w.by_heuristic(root, &order);
        }
        let Some((col, v, pv)) = w.root(root, depth as i32, &order) else {
            break;
        };
        if t.table {
            // the best move first next time; the rest keep their order
            order.retain(|&c| c != col);
            order.insert(0, col);
        }
        // without extensions every line of a win or loss found ends within the depth, and so
        // would every line of a faster win: these searches' proven values are exact
        let full_depth = depth as i32 >= cells - moves;
        let solved = full_depth || score::is_proven(v);
        let it = Iteration {
            depth,
            seldepth: depth,
            lines: vec![Line {
                value: score::Value::exact(score::from_value(cells, moves, v, full_depth)),
                pv,
            }],
            nodes: w.nodes,
            time: control.elapsed(),
            hashfull: if t.table { tt.hashfull() } else { 0 },
            solved,
            book_hits: 0,
        };
        reporter.report(&it);
        last = Some(it);
        if solved || w.limits.reached(w.nodes) || control.past_soft() {
            break;
        }
    }
    let mut last = last.expect("depth 1 always completes");
    last.nodes = w.nodes;
    last
}

/// One depth-limited search with a set of techniques.
struct Walker<'a> {
    t: Techniques,
    tt: &'a TransTable,
    nodes: u64,
    limits: Limits,
    stopped: bool,
    /// False during depth 1, which always completes (there must be a move).
    can_stop: bool,
    lines: Lines,
}

impl Walker<'_> {
    /// `cols` ordered by the heuristic value of the position each leads to (best first; a
    /// stable sort keeps the given order among equals).
    fn by_heuristic<const W: usize, const H: usize, B: Bitboard>(
        &self,
        p: &Position<W, H, B>,
        cols: &[usize],
    ) -> Vec<usize> {
        let mut scored: Vec<(usize, i32)> = cols
            .iter()
            .map(|&c| {
                let mut child = *p;
                child.play_col(c);
                (c, -eval::evaluate(&child))
            })
            .collect();
        scored.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
        scored.into_iter().map(|(c, _)| c).collect()
    }

    /// One depth at the root: the best column, its value and line; `None` if interrupted.
    fn root<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        depth: i32,
        order: &[usize],
    ) -> Option<(usize, i32, Vec<usize>)> {
        let cells = (W * H) as i32;
        let moves = p.moves() as i32;
        self.nodes += 1;
        let mut alpha = -INF;
        let mut best: Option<(usize, i32, Vec<usize>)> = None;
        for &col in order {
            let v = if p.is_winning_move(col) {
                self.lines.clear(1);
                score::proven_value(score::win_now(cells, moves))
            } else {
                let mut child = *p;
                child.play_col(col);
                // minimax searches every move with the full window
                let a = if self.t.pruning { alpha } else { -INF };
                -self.node(&child, depth - 1, 1, -INF, -a)
            };
            if self.stopped {
                return None;
            }
            if best.as_ref().is_none_or(|b| v > b.1) {
                let mut line = vec![col];
                line.extend(self.lines.below_root().iter().map(|&c| c as usize));
                best = Some((col, v, line));
            }
            alpha = alpha.max(v);
        }
        best
    }

    /// Depth-limited negamax, fail-soft, from the side to move's view. Without pruning the
    /// window stays full and nothing is cut.
    fn node<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.lines.clear(ply);
        self.nodes += 1;
        if poll_due(self.nodes, SEARCH_POLL_NODES)
            && self.can_stop
            && self.limits.reached(self.nodes)
        {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        let cells = (W * H) as i32;
        let moves = p.moves() as i32;
        if p.can_win_next() {
            return score::proven_value(score::win_now(cells, moves));
        }
        if moves == cells {
            return 0;
        }
        if depth <= 0 || ply >= MAX_PLY {
            return eval::evaluate(p);
        }
        let key = p.key();
        let mut tt_move = NO_MOVE;
        if self.t.table {
            if let Some(e) = self.tt.probe(key) {
                tt_move = e.best_move.unwrap_or(NO_MOVE);
                if let Some(h) = e.heuristic {
                    let v = h.value as i32;
                    if h.depth as i32 >= depth {
                        match h.bound {
                            Bound::Exact => return v,
                            Bound::Lower if v >= beta => return v,
                            Bound::Upper if v <= alpha => return v,
                            _ => {}
                        }
                    }
                }
            }
        }
        // the children, in this search's order
        let mut list = [(0usize, 0i32); 16];
        let mut n = 0;
        for col in 0..W {
            if !p.can_play(col) {
                continue;
            }
            let s = if self.t.ordering {
                let mut child = *p;
                child.play_col(col);
                if col as u8 == tt_move {
                    INF
                } else {
                    -eval::evaluate(&child)
                }
            } else {
                0
            };
            list[n] = (col, s);
            n += 1;
        }
        // stable: equals stay left to right
        list[..n].sort_by_key(|&(_, s)| std::cmp::Reverse(s));

        let alpha_orig = alpha;
        let nodes_before = self.nodes;
        let mut best = -INF;
        let mut best_col = NO_MOVE;
        for &(col, _) in &list[..n] {
            let mut child = *p;
            child.play_col(col);
            let v = if self.t.pruning {
                -self.node(&child, depth - 1, ply + 1, -beta, -alpha)
            } else {
                -self.node(&child, depth - 1, ply + 1, -INF, INF)
            };
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_col = col as u8;
                self.lines.update(ply, col as u8);
            }
            if self.t.pruning {
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
        }
        if self.t.table {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > alpha_orig {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let nodes = self.nodes - nodes_before;
            line::store(self.tt, key, best, depth, bound, best_col, nodes);
        }
        best
    }
}
