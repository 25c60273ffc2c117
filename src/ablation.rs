//! The study's lower search levels: the lecture's techniques switched on one at a time, so that
//! `tools/study.py` can measure what each buys (the protocol's `SearchLevel` option).
//!
//! | level | name | adds |
//! |---|---|---|
//! | 1 | [`MINIMAX`] | negamax without pruning, heuristic at the horizon, columns left to right |
//! | 2 | [`ALPHA_BETA`] | alpha-beta pruning (fail-soft), same fixed column order |
//! | 3 | [`ORDERING`] | children ordered by the heuristic evaluation of the position they lead to |
//! | 4 | [`DEEPENING`] | iterative deepening that learns: the transposition table's move first, its bounds cut |
//! | 5 | [`PVS`] | the normal searcher without solver and book: PVS, killers, history, threats, forced moves |
//! | 6 | [`SOLVER`] | + the exact solver interleaved between iterations |
//! | 7 | [`FULL`] | + the opening book: the full engine (the default) |
//!
//! Levels 1 to 4 live here, in their own small searcher, so that the normal searcher
//! ([`crate::search`]) keeps its hot path free of per-node switches; levels 5 and 6 are the
//! normal searcher with the solver or the book left out, decided once per search.
//!
//! Every level knows the rules only: a move that connects four wins (found one ply ahead with
//! [`Position::can_win_next`], as in the normal searcher), a full board is a draw. Levels 1 to 3
//! still deepen one ply at a time, so that they can answer a time limit, but each depth starts
//! from scratch (nothing is learnt from the last); reported nodes add up all depths, as every
//! level's do. They search on one thread and report one line.

use crate::board::Position;
use crate::control::SearchControl;
use crate::eval;
use crate::score;
use crate::search::{Iteration, Line, Reporter, ScoreBound, SearchLimits};
use crate::tt::{Bound, Heuristic, TransTable};

pub const MINIMAX: u8 = 1;
pub const ALPHA_BETA: u8 = 2;
pub const ORDERING: u8 = 3;
pub const DEEPENING: u8 = 4;
pub const PVS: u8 = 5;
pub const SOLVER: u8 = 6;
pub const FULL: u8 = 7;

/// A short name per level, 1-based (`NAMES[level - 1]`), for tables and plots.
pub const NAMES: [&str; 7] = [
    "minimax",
    "alpha-beta",
    "+ordering",
    "+deepening/TT",
    "+PVS/killers",
    "+solver",
    "+book",
];

const INF: i32 = 20_000;
const MAX_PLY: usize = 64;
const NO_MOVE: u8 = u8::MAX;

/// Iterative deepening at `level` (1..=[`DEEPENING`]) of `root` (not a finished game) over the
/// root moves `order`, up to `max_depth`, reporting every completed depth; the last completed
/// one is the result. `tt` is used from level [`DEEPENING`] on.
#[allow(clippy::too_many_arguments)]
pub fn deepen<const W: usize, const H: usize>(
    level: u8,
    root: &Position<W, H>,
    order: &[usize],
    max_depth: u32,
    limits: &SearchLimits,
    control: &SearchControl,
    tt: &TransTable,
    reporter: &mut dyn Reporter,
) -> Iteration {
    let cells = (W * H) as i32;
    let moves = root.moves() as i32;
    let mut w = Walker {
        level,
        tt,
        control,
        nodes: 0,
        node_limit: limits.nodes.unwrap_or(u64::MAX),
        stopped: false,
        can_stop: false,
        pv: Box::new([[NO_MOVE; MAX_PLY + 1]; MAX_PLY + 1]),
        pv_len: [0; MAX_PLY + 1],
    };
    // levels 1 and 2 keep the columns left to right whatever the caller's order
    let mut order: Vec<usize> = if level < ORDERING {
        (0..W).filter(|c| order.contains(c)).collect()
    } else {
        order.to_vec()
    };
    let mut last: Option<Iteration> = None;
    for depth in 1..=max_depth {
        w.can_stop = depth > 1;
        if level == ORDERING || (level == DEEPENING && depth == 1) {
            order = w.by_heuristic(root, &order);
        }
        let Some((col, v, pv)) = w.root(root, depth as i32, &order) else {
            break;
        };
        if level >= DEEPENING {
            // the best move first next time; the rest keep their order
            order.retain(|&c| c != col);
            order.insert(0, col);
        }
        let full_depth = depth as i32 >= cells - moves;
        let solved = full_depth || score::is_proven(v);
        let it = Iteration {
            depth,
            seldepth: depth,
            lines: vec![Line {
                score: score::from_value(cells, moves, v, full_depth),
                bound: ScoreBound::Exact,
                pv,
            }],
            nodes: w.nodes,
            time: control.elapsed(),
            hashfull: if level >= DEEPENING { tt.hashfull() } else { 0 },
            solved,
            book_hits: 0,
        };
        reporter.report(&it);
        last = Some(it);
        if solved || control.must_stop() || control.past_soft() || w.nodes >= w.node_limit {
            break;
        }
    }
    let mut last = last.expect("depth 1 always completes");
    last.nodes = w.nodes;
    last
}

/// One level's depth-limited search.
struct Walker<'a> {
    level: u8,
    tt: &'a TransTable,
    control: &'a SearchControl,
    nodes: u64,
    node_limit: u64,
    stopped: bool,
    /// False during depth 1, which always completes (there must be a move).
    can_stop: bool,
    pv: Box<[[u8; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
}

impl Walker<'_> {
    /// `cols` ordered by the heuristic value of the position each leads to (best first; a
    /// stable sort keeps the given order among equals).
    fn by_heuristic<const W: usize, const H: usize>(
        &self,
        p: &Position<W, H>,
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
    fn root<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
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
                self.pv_len[1] = 1;
                score::proven_value(score::win_now(cells, moves))
            } else {
                let mut child = *p;
                child.play_col(col);
                // minimax searches every move with the full window
                let a = if self.level == MINIMAX { -INF } else { alpha };
                -self.node(&child, depth - 1, 1, -INF, -a)
            };
            if self.stopped {
                return None;
            }
            if best.as_ref().is_none_or(|b| v > b.1) {
                let mut line = vec![col];
                line.extend(self.pv[1][1..self.pv_len[1]].iter().map(|&c| c as usize));
                best = Some((col, v, line));
            }
            alpha = alpha.max(v);
        }
        best
    }

    #[cold]
    fn poll(&mut self) {
        if self.can_stop && (self.control.must_stop() || self.nodes >= self.node_limit) {
            self.stopped = true;
        }
    }

    /// Depth-limited negamax, fail-soft, from the side to move's view. At [`MINIMAX`] the
    /// window stays full and nothing is cut.
    fn node<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.pv_len[ply] = ply;
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.poll();
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
        if self.level >= DEEPENING {
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
        // the children, in this level's order
        let mut list = [(0usize, 0i32); 16];
        let mut n = 0;
        for col in 0..W {
            if !p.can_play(col) {
                continue;
            }
            let s = if self.level >= ORDERING {
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
            let v = if self.level == MINIMAX {
                -self.node(&child, depth - 1, ply + 1, -INF, INF)
            } else {
                -self.node(&child, depth - 1, ply + 1, -beta, -alpha)
            };
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_col = col as u8;
                self.pv[ply][ply] = col as u8;
                let len = self.pv_len[ply + 1].max(ply + 1);
                let (a, b) = self.pv.split_at_mut(ply + 1);
                a[ply][ply + 1..len].copy_from_slice(&b[0][ply + 1..len]);
                self.pv_len[ply] = len;
            }
            if self.level > MINIMAX {
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
        }
        if self.level >= DEEPENING {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > alpha_orig {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let work = 64 - (self.nodes - nodes_before).leading_zeros();
            self.tt.store_heuristic(
                key,
                Heuristic {
                    value: best.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                    depth: depth.clamp(0, 63) as u8,
                    bound,
                },
                (best_col != NO_MOVE).then_some(best_col),
                work,
            );
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Score;
    use crate::search::{SearchResult, Searcher};
    use crate::time::Deadlines;

    type P = Position<7, 6>;

    /// A search of `p` at `level` to `depth`: the result and every report.
    fn at(level: u8, p: &P, depth: u32) -> (SearchResult, Vec<Iteration>) {
        let mut s = Searcher::new(8);
        s.set_level(level);
        let control = SearchControl::new(Deadlines::default(), false);
        let limits = SearchLimits {
            depth: Some(depth),
            multipv: 1,
            ..Default::default()
        };
        let mut its = Vec::new();
        let r = s.search(p, &limits, &control, &mut |it: &Iteration| {
            its.push(it.clone())
        });
        (r, its)
    }

    /// The theory's order of the first three levels: alpha-beta visits fewer nodes than
    /// minimax, and ordering by the heuristic fewer again; and pruning never changes the value.
    #[test]
    fn node_counts_follow_the_theory() {
        for moves in ["4453", "32164625", "274552224131661"] {
            let p = P::from_moves(moves).unwrap();
            let runs: Vec<(SearchResult, Vec<Iteration>)> =
                [MINIMAX, ALPHA_BETA, ORDERING].map(|l| at(l, &p, 6)).into();
            let nodes: Vec<u64> = runs.iter().map(|r| r.0.last.nodes).collect();
            assert!(
                nodes[0] > nodes[1] && nodes[1] > nodes[2],
                "{moves}: {nodes:?}"
            );
            // alpha-beta's value at every depth is minimax's
            for d in 0..6 {
                let value = |i: usize| runs[i].1[d].lines[0].score;
                assert_eq!(value(0), value(1), "{moves} depth {}", d + 1);
                assert_eq!(value(0), value(2), "{moves} depth {}", d + 1);
            }
            assert!(
                nodes[0] > 7u64.pow(5),
                "minimax sees the whole tree: {nodes:?}"
            );
        }
    }

    /// Every level plays a legal move, reports every depth it finishes, and finds a win in one.
    #[test]
    fn every_level_plays_and_reports() {
        for level in MINIMAX..=FULL {
            let p = P::from_moves("44").unwrap();
            let (r, its) = at(level, &p, 4);
            assert!(p.can_play(r.best.unwrap()), "level {level}");
            assert!(!its.is_empty(), "level {level}");
            let depths: Vec<u32> = its.iter().map(|i| i.depth).collect();
            if level <= PVS {
                assert_eq!(depths, [1, 2, 3, 4], "level {level}");
            }
            let (r, _) = at(level, &P::from_moves("414141").unwrap(), 3);
            assert_eq!(r.best, Some(3), "level {level}");
            assert_eq!(r.last.lines[0].score, Score::Win(1), "level {level}");
        }
    }

    /// Levels 1 to 3 give the same value as the normal searcher where the game ends within
    /// the horizon (`3141`: x wins with its second disc from now), and a time limit stops them.
    #[test]
    fn levels_prove_short_wins_and_stop_in_time() {
        for level in MINIMAX..=DEEPENING {
            let (r, its) = at(level, &P::from_moves("3141").unwrap(), 5);
            assert_eq!(r.last.lines[0].score, Score::Win(2), "{level}: {its:?}");
            assert_eq!(r.best, Some(4), "level {level}");
        }
        let mut s = Searcher::new(8);
        s.set_level(MINIMAX);
        let control = SearchControl::within(std::time::Duration::from_millis(20));
        let limits = SearchLimits {
            multipv: 1,
            ..Default::default()
        };
        let r = s.search(&P::new(), &limits, &control, &mut |_: &Iteration| {});
        assert!(r.best.is_some());
        assert!(r.last.depth < 42, "minimax cannot finish the empty board");
    }
}
