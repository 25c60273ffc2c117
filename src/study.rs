//! The study's levels (`tools/study.py`, the protocol's `SearchLevel`): the lecture's techniques
//! switched on one at a time, so that the study can measure what each buys. A level is a value
//! of [`Techniques`]; the search knows nothing of levels.
//!
//! | level | name | adds |
//! |---|---|---|
//! | 1 | [`MINIMAX`] | negamax without pruning, heuristic at the horizon, columns left to right |
//! | 2 | [`ALPHA_BETA`] | alpha-beta pruning (fail-soft), same fixed column order |
//! | 3 | [`ORDERING`] | children ordered by the heuristic evaluation of the position they lead to |
//! | 4 | [`DEEPENING`] | iterative deepening that learns: the transposition table's move first, its bounds cut |
//! | 5 | [`PVS`] | the engine's searcher without solver and book: PVS, killers, history, threats, forced moves |
//! | 6 | [`SOLVER`] | + the exact solver interleaved between iterations |
//! | 7 | [`FULL`] | + the opening book: the full engine (the default) |
//!
//! Levels 1 to 4 run the simple searches of [`crate::search::simple`], so that the engine's
//! searcher keeps its hot path free of per-node switches; levels 5 and 6 are the engine's
//! searcher with the solver or the book left out, decided once per search.

use crate::search::Techniques;

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

/// The techniques of `level` (clamped to [`MINIMAX`]..=[`FULL`]): each level has those of the
/// level below and one more.
pub fn techniques(level: u8) -> Techniques {
    let level = level.clamp(MINIMAX, FULL);
    Techniques {
        pruning: level >= ALPHA_BETA,
        ordering: level >= ORDERING,
        table: level >= DEEPENING,
        engine: level >= PVS,
        solver: level >= SOLVER,
        book: level >= FULL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use crate::control::SearchControl;
    use crate::score::Score;
    use crate::search::{Iteration, SearchLimits, SearchResult, Searcher};
    use crate::time::Deadlines;

    type P = Position<7, 6>;

    /// A search of `p` at `level` to `depth`: the result and every report.
    fn at(level: u8, p: &P, depth: u32) -> (SearchResult, Vec<Iteration>) {
        let mut s = Searcher::new(8);
        s.set_techniques(techniques(level));
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

    #[test]
    fn the_levels_add_one_technique_each_from_none_to_all() {
        assert_eq!(techniques(MINIMAX), Techniques::NONE);
        assert_eq!(techniques(FULL), Techniques::ALL);
        assert_eq!(techniques(0), techniques(MINIMAX));
        assert_eq!(techniques(99), techniques(FULL));
        let count = |t: Techniques| {
            [t.pruning, t.ordering, t.table, t.engine, t.solver, t.book]
                .iter()
                .filter(|&&b| b)
                .count()
        };
        for level in MINIMAX..=FULL {
            assert_eq!(
                count(techniques(level)),
                usize::from(level - 1),
                "level {level}"
            );
        }
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
                let value = |i: usize| runs[i].1[d].lines[0].value.score;
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
            assert_eq!(r.last.lines[0].value.score, Score::Win(1), "level {level}");
        }
    }

    /// Levels 1 to 3 give the same value as the normal searcher where the game ends within
    /// the horizon (`3141`: x wins with its second disc from now), and a time limit stops them.
    #[test]
    fn levels_prove_short_wins_and_stop_in_time() {
        for level in MINIMAX..=DEEPENING {
            let (r, its) = at(level, &P::from_moves("3141").unwrap(), 5);
            assert_eq!(
                r.last.lines[0].value.score,
                Score::Win(2),
                "{level}: {its:?}"
            );
            assert_eq!(r.best, Some(4), "level {level}");
        }
        let mut s = Searcher::new(8);
        s.set_techniques(techniques(MINIMAX));
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
