//! The searcher's tests: what a search finds, reports and proves, on one thread and on several.

use super::*;
use crate::control::SearchControl;
use crate::score::{Score, ScoreBound, Value};
use crate::time::Deadlines;
use std::time::Duration;

type P = Position<7, 6>;

fn run(p: &P, limits: SearchLimits) -> (SearchResult, Vec<Iteration>) {
    run_on(&mut Searcher::new(8), p, limits)
}

fn run_on(s: &mut Searcher, p: &P, limits: SearchLimits) -> (SearchResult, Vec<Iteration>) {
    let control = SearchControl::new(Deadlines::default(), false);
    let mut its = Vec::new();
    let r = s.search(p, &limits, &control, &mut |it: &Iteration| {
        its.push(it.clone())
    });
    (r, its)
}

fn depth(d: u32) -> SearchLimits {
    SearchLimits {
        depth: Some(d),
        multipv: 1,
        ..Default::default()
    }
}

fn nodes(n: u64) -> SearchLimits {
    SearchLimits {
        nodes: Some(n),
        multipv: 1,
        ..Default::default()
    }
}

#[test]
fn mate_numbers() {
    // x to move wins at once in column 4
    let (r, _) = run(&P::from_moves("414141").unwrap(), depth(3));
    assert_eq!(r.best, Some(3));
    assert_eq!(r.last.lines[0].value.score, Score::Win(1));
    // o threatens column 1: x must block
    let (r, _) = run(&P::from_moves("414151").unwrap(), depth(2));
    assert_eq!(r.best, Some(0));
}

#[test]
fn proves_the_root_without_scoring_every_column() {
    // Won (+11, column 3): the root's proof takes about 2K nodes, the exact scores of the
    // six losing columns millions, so a search that scored every column stayed unproven.
    let p = P::from_moves("32163126").unwrap();
    let limits = nodes(20_000);
    let (r, its) = run(&p, limits);
    assert!(r.last.solved, "{its:?}");
    assert_eq!(r.best, Some(2));
    assert_eq!(r.last.lines[0].value.score, Score::from_exact(42, 8, 11));
}

#[test]
fn finds_forced_loss_and_win_in_two() {
    // x: 3,4 on the bottom, o: 1,1; x plays 5 and threatens both 2 and 6
    let (r, its) = run(&P::from_moves("3141").unwrap(), depth(5));
    assert_eq!(r.last.lines[0].value.score, Score::Win(2), "{its:?}");
    assert_eq!(r.best, Some(4));
    let (r, its) = run(&P::from_moves("31415").unwrap(), depth(5));
    assert_eq!(r.last.lines[0].value.score, Score::Loss(1), "{its:?}");
}

#[test]
fn last_cell_is_a_draw() {
    // a drawn full board less its top-left cell, o to move
    let p = P::from_board_string("1xoxoxo/oxoxoxo/xoxoxox/xoxoxox/oxoxoxo/xoxoxox o").unwrap();
    for d in [1, 2, 5] {
        let (r, its) = run(&p, depth(d));
        assert_eq!(r.best, Some(0));
        assert_eq!(r.last.lines[0].value.score, Score::Draw, "{its:?}");
    }
    // two cells left
    let p = P::from_board_string("2oxoxo/oxoxoxo/xoxoxox/xoxoxox/oxoxoxo/xoxoxox x").unwrap();
    let (r, its) = run(&p, depth(3));
    assert_eq!(r.last.lines[0].value.score, Score::Draw, "{its:?}");
}

#[test]
fn game_over_has_no_move() {
    let p = P::from_moves("4141414").unwrap();
    let (r, its) = run(&p, depth(3));
    assert_eq!(r.best, None);
    assert!(its.is_empty());
    assert_eq!(r.last.lines[0].value.score, Score::Loss(0));
}

#[test]
fn reproducible_nodes() {
    let p = P::from_moves("4453").unwrap();
    let a = run(&p, depth(8)).0.last.nodes;
    let b = run(&p, depth(8)).0.last.nodes;
    assert_eq!(a, b);
    assert!(a > 0);
}

#[test]
fn solves_endgames_exactly() {
    // Pons Test_L3_R1's first line: score 0? use the solver as the reference
    let moves = "2252576253462244111563365343671351441";
    let p = P::from_moves(moves).unwrap();
    let mut solver = Solver::new(8);
    let exact = solver.solve(&p).unwrap();
    let (r, its) = run(
        &p,
        SearchLimits {
            multipv: 1,
            ..Default::default()
        },
    );
    assert!(its.last().unwrap().solved);
    assert_eq!(
        r.last.lines[0].value.score,
        Score::from_exact(42, p.moves() as i32, exact),
        "{its:?}"
    );
    let scores = solver.analyse(&p, false).unwrap();
    assert_eq!(scores[r.best.unwrap()], Some(exact));
}

#[test]
fn multipv_and_searchmoves() {
    let p = P::from_moves("44").unwrap();
    let (r, _) = run(
        &p,
        SearchLimits {
            depth: Some(4),
            multipv: 3,
            ..Default::default()
        },
    );
    assert_eq!(r.last.lines.len(), 3);
    let (r, _) = run(
        &p,
        SearchLimits {
            depth: Some(4),
            multipv: 1,
            searchmoves: vec![0],
            ..Default::default()
        },
    );
    assert_eq!(r.best, Some(0));
}

/// An infinite search ends when its stop flag is raised, with a move: another thread
/// raises it once the search has reported its first depth.
fn assert_stops_on_flag(mut s: Searcher) {
    let control = SearchControl::new(Deadlines::default(), false);
    let c2 = control.clone();
    let (reported, first_report) = std::sync::mpsc::channel();
    let t = std::thread::spawn(move || {
        // the timeout only guards a hang: depth 1 is reported at once
        let _ = first_report.recv_timeout(Duration::from_secs(60));
        c2.stop();
    });
    let limits = SearchLimits {
        infinite: true,
        multipv: 1,
        ..Default::default()
    };
    let r = s.search(&P::new(), &limits, &control, &mut |_: &Iteration| {
        let _ = reported.send(());
    });
    t.join().unwrap();
    assert!(r.best.is_some());
}

#[test]
fn stops_on_flag() {
    assert_stops_on_flag(Searcher::new(8));
}

fn two_threads() -> Searcher {
    let mut s = Searcher::new(8);
    s.set_threads(2);
    s
}

/// Lazy SMP may change which line the main thread finds, but not what is proven: wins and
/// losses within the depth are found as with one thread, and the reported nodes are every
/// thread's (the helper always completes its first iteration, so it has some).
#[test]
fn two_threads_find_proven_wins_and_losses() {
    let mut s = two_threads();
    let (r, its) = run_on(&mut s, &P::from_moves("414141").unwrap(), depth(3));
    assert_eq!(
        (r.best, r.last.lines[0].value.score),
        (Some(3), Score::Win(1)),
        "{its:?}"
    );
    let (r, its) = run_on(&mut s, &P::from_moves("3141").unwrap(), depth(5));
    assert_eq!(
        (r.best, r.last.lines[0].value.score),
        (Some(4), Score::Win(2)),
        "{its:?}"
    );
    let (r, its) = run_on(&mut s, &P::from_moves("31415").unwrap(), depth(5));
    assert_eq!(r.last.lines[0].value.score, Score::Loss(1), "{its:?}");
    let (r, _) = run_on(&mut s, &P::from_moves("4453").unwrap(), depth(10));
    assert!(P::from_moves("4453").unwrap().can_play(r.best.unwrap()));
    // two threads: the search on one, the prover on the other; its nodes count
    assert!(s.helpers.is_empty());
    let proved = s.prover.as_ref().unwrap().nodes();
    assert!(proved > 0);
    assert!(r.last.nodes > proved);
    assert_eq!(r.last.nodes, s.main.nodes);
    // four: the search on two (a helper beside the main thread), the prover's race on two
    s.set_threads(4);
    let (r, _) = run_on(&mut s, &P::from_moves("4453").unwrap(), depth(10));
    let helpers: u64 = s.helpers.iter().map(|h| h.nodes).sum();
    assert!(helpers > 0);
    assert_eq!(r.last.nodes, s.main.nodes + helpers);
    assert_eq!(s.prover.as_ref().unwrap().threads(), 2);
    s.set_threads(2);
    assert_eq!(s.threads(), 2);
    s.set_hash(4).unwrap();
    assert_eq!(s.threads(), 2, "a new Hash keeps the threads");
    let size = s.main.tt.size_bytes();
    let too_much = crate::tt::machine_memory_mb().unwrap() + 2;
    assert!(matches!(
        s.set_hash(too_much),
        Err(TableError::MoreThanMachine { .. })
    ));
    assert_eq!(
        (s.main.tt.size_bytes(), s.threads()),
        (size, 2),
        "a refused Hash changes nothing"
    );
}

/// Two threads searching middle-game positions to a fixed depth play a legal move, and
/// whatever they report as proven agrees with the exact solver.
#[test]
fn two_threads_agree_with_the_solver() {
    let mut solver = Solver::new(8);
    let mut s = two_threads();
    let mut proven = 0;
    for moves in [
        "2252576253462244111563365343671351441",
        "5554224333234511764415115",
        "52753311433677442422121",
        "1233722555341451114725221333",
        "271713432331713132",
    ] {
        let p = P::from_moves(moves).unwrap();
        s.clear();
        let (r, its) = run_on(&mut s, &p, depth(12));
        let best = r.best.unwrap();
        assert!(p.can_play(best), "{moves}: {best}");
        if r.last.solved {
            proven += 1;
            let exact = solver.solve(&p).unwrap();
            let want = Score::from_exact(42, p.moves() as i32, exact);
            assert_eq!(r.last.lines[0].value.score, want, "{moves}: {its:?}");
            let scores = solver.analyse(&p, false).unwrap();
            assert_eq!(scores[best], Some(exact), "{moves}: {best}");
        }
    }
    assert!(proven > 0, "the endgames are proven within depth 12");
}

#[test]
fn two_threads_solve_endgames_exactly() {
    let moves = "2252576253462244111563365343671351441";
    let p = P::from_moves(moves).unwrap();
    let exact = Solver::new(8).solve(&p).unwrap();
    let limits = SearchLimits {
        multipv: 1,
        ..Default::default()
    };
    let (r, its) = run_on(&mut two_threads(), &p, limits);
    assert!(its.last().unwrap().solved);
    assert_eq!(
        r.last.lines[0].value.score,
        Score::from_exact(42, p.moves() as i32, exact),
        "{its:?}"
    );
}

/// With two threads the prover settles the root beside the search: `32163126` is won (+11)
/// in a proof of about 2,000 nodes that the search alone does not find within the limit.
#[test]
fn two_threads_play_the_provers_proof() {
    let p = P::from_moves("32163126").unwrap();
    let limits = nodes(400_000);
    let (r, its) = run_on(&mut two_threads(), &p, limits);
    assert!(r.last.solved, "{its:?}");
    assert_eq!(r.best, Some(2));
    assert_eq!(r.last.lines[0].value.score, Score::from_exact(42, 8, 11));
    let reported = its.last().unwrap();
    assert!(reported.solved && reported.lines == r.last.lines, "{its:?}");
}

/// A node limit counts the search's and the prover's nodes together (each has a share,
/// rounded up to its polls): the empty board is proven by neither within it.
#[test]
fn a_node_limit_is_the_search_and_the_provers_together() {
    for threads in [2, 4] {
        let mut s = Searcher::new(8);
        s.set_threads(threads);
        let limits = nodes(300_000);
        let (r, its) = run_on(&mut s, &P::new(), limits);
        assert!(!r.last.solved, "{its:?}");
        let polls = threads as u64 * (crate::control::SOLVER_POLL_NODES + 1024);
        assert!(
            r.last.nodes <= 300_000 + polls,
            "{threads}: {}",
            r.last.nodes
        );
        // the prover's count in the total (it ends when the search does, maybe before its
        // share is used)
        let proved = s.prover.as_ref().unwrap().nodes();
        assert!(proved > 0 && r.last.nodes > proved, "{threads}: {proved}");
    }
}

/// An infinite search on two threads ends with its stop flag: the helpers end with it (the
/// search waits for them).
#[test]
fn two_threads_stop_on_flag() {
    assert_stops_on_flag(two_threads());
}

/// Positions for the proven-value checks: issue 66's two (a win with the 8th disc reported as
/// mate 9 by two threads; a loss to the 8th reported as mate -9) and random games of 14 to 30
/// discs, which the solver settles in milliseconds.
fn positions_to_check() -> Vec<P> {
    let mut out: Vec<P> = ["7475624217322456553344346", "1561515373554441144"]
        .iter()
        .map(|m| P::from_moves(m).unwrap())
        .collect();
    let mut rng = crate::rng::Rng::new(66);
    while out.len() < 24 {
        let discs = 14 + rng.next_u64() % 17;
        let mut p = P::new();
        while u64::from(p.moves()) < discs && !p.is_game_over() {
            let legal: Vec<usize> = (0..7).filter(|&c| p.can_play(c)).collect();
            let c = legal[(rng.next_u64() % legal.len() as u64) as usize];
            if p.is_winning_move(c) {
                break;
            }
            p.play_col(c);
        }
        if !p.is_game_over() && u64::from(p.moves()) == discs {
            out.push(p);
        }
    }
    out
}

/// Every line's value agrees with the solver's score of its first move: a proven value is that
/// score, a lower bound is at most it, an upper bound at least it.
fn assert_values_agree(p: &P, its: &[Iteration], truth: &[Option<i32>], what: &str) {
    let (cells, moves) = (42, p.moves() as i32);
    for it in its {
        for l in &it.lines {
            let col = l.pv[0];
            let t = truth[col].expect("a legal column");
            let v = l.value;
            if let Some(e) = v.exact_score(cells, moves) {
                assert_eq!(
                    e, t,
                    "{what}: column {col} reported {v:?} at depth {}",
                    it.depth
                );
            }
            if let Some(f) = v.floor(cells, moves) {
                assert!(f <= t, "{what}: column {col} reported {v:?} above {t}");
            }
            if v.bound == ScoreBound::Upper {
                let top = Value::exact(v.score).exact_score(cells, moves);
                assert!(top.is_none_or(|c| c >= t), "{what}: {col} {v:?} below {t}");
            }
        }
    }
}

/// The search's own wins and losses (here with the solver and the book left out, as the search
/// level 5 runs it) reach past its nominal depth down forced lines, so they are bounds: a value
/// it reports as proven is the solver's score, at every depth and for every column (issue 66).
#[test]
fn every_value_the_search_calls_proven_is_the_solvers() {
    let mut solver = Solver::new(16);
    for p in positions_to_check() {
        let truth = solver.analyse(&p, false).unwrap();
        let mut s = Searcher::new(8);
        s.set_techniques(Techniques {
            solver: false,
            book: false,
            ..Techniques::ALL
        });
        let limits = SearchLimits {
            depth: Some(12),
            multipv: 7,
            ..Default::default()
        };
        let (r, its) = run_on(&mut s, &p, limits);
        assert_values_agree(&p, &its, &truth, &format!("{p:?}"));
        if r.last.solved {
            assert!(r.last.lines[0].value.is_proven());
        }
    }
}

/// With two threads the prover races the search; whichever reports, a value called proven is
/// the solver's (issue 66: mate 9 for a win with the 8th disc, 4 runs of 5 at 100 ms).
#[cfg(feature = "threads")]
#[test]
fn two_threads_report_only_the_solvers_values_as_proven() {
    let mut solver = Solver::new(16);
    for p in positions_to_check() {
        let truth = solver.analyse(&p, false).unwrap();
        for _ in 0..3 {
            let mut s = two_threads();
            let (_, its) = run_on(&mut s, &p, nodes(200_000));
            assert_values_agree(&p, &its, &truth, &format!("two threads, {p:?}"));
        }
    }
}
