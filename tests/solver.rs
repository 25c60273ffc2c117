//! The exact solver against independent truth: a plain minimax written here, the public data
//! sets (tests/data), and the published results on other board sizes.

mod common;

use vier::bits::Bitboard;
use vier::board::{Position, Size, SizedJob};
use vier::score::{outcome, terminal, winner_disc};
use vier::solver::Solver;

/// Plain minimax over the whole game tree: no pruning, no table, no move ordering.
/// Scores in the solver's convention.
fn minimax<const W: usize, const H: usize>(p: &Position<W, H>) -> i32 {
    if let Some(s) = terminal(p) {
        return s;
    }
    let mut best = i32::MIN;
    for c in 0..W {
        if p.can_play(c) {
            let mut q = *p;
            q.play_col(c);
            best = best.max(-minimax(&q));
        }
    }
    best
}

/// A deterministic pseudo-random sequence (xorshift), so the sample is the same every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn random_positions<const W: usize, const H: usize>(
    count: usize,
    min_discs: u32,
    seed: u64,
) -> Vec<Position<W, H>> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut p = Position::<W, H>::new();
        let target = min_discs + (rng.next() % (W * H) as u64) as u32 % (W * H) as u32;
        while p.moves() < target.min((W * H) as u32) && !p.is_game_over() {
            let c = (rng.next() % W as u64) as usize;
            if p.can_play(c) {
                p.play_col(c);
            }
        }
        if p.moves() >= min_discs {
            out.push(p);
        }
    }
    out
}

fn check_against_minimax<const W: usize, const H: usize>(count: usize, min_discs: u32, seed: u64) {
    check_against_minimax_threads::<W, H>(count, min_discs, seed, 1);
}

/// With `threads > 1` every search is a race of all threads (no solo start).
fn check_against_minimax_threads<const W: usize, const H: usize>(
    count: usize,
    min_discs: u32,
    seed: u64,
    threads: usize,
) {
    let mut solver = Solver::new(1);
    solver.set_threads(threads);
    solver.set_race_after(0);
    for p in random_positions::<W, H>(count, min_discs, seed) {
        let truth = minimax(&p);
        assert_eq!(solver.solve(&p).unwrap(), truth, "strong {p:?}");
        assert_eq!(solver.solve_weak(&p).unwrap(), outcome(truth), "weak {p:?}");
        // every column's score is the negated score of the child
        let cols = solver.analyse(&p, false).unwrap();
        for (c, s) in cols.iter().enumerate() {
            let expected = (p.can_play(c) && !p.is_game_over()).then(|| {
                let mut q = p;
                q.play_col(c);
                -minimax(&q)
            });
            assert_eq!(*s, expected, "column {} of {p:?}", c + 1);
        }
    }
}

#[test]
fn matches_plain_minimax_on_4x4() {
    check_against_minimax::<4, 4>(300, 4, 0x9E37_79B9_7F4A_7C15);
}

#[test]
fn matches_plain_minimax_on_5x4() {
    check_against_minimax::<5, 4>(150, 10, 0xD1B5_4A32_D192_ED03);
}

/// Odd heights and an odd cell count: claimeven's row parity and its even-empty-cells rule
/// differ there from 7x6.
#[test]
fn matches_plain_minimax_on_odd_heights() {
    check_against_minimax::<4, 5>(150, 10, 0x6A09_E667_F3BC_C908);
    check_against_minimax::<5, 5>(100, 14, 0xBB67_AE85_84CA_A73B);
}

/// The same positions over 128-bit bitboards, in fresh solvers of the same table size: every
/// score, every column's score and every node count must be what the 64-bit code gives.
fn same_over_128_bits<const W: usize, const H: usize>(count: usize, min_discs: u32, seed: u64) {
    let mut positions = random_positions::<W, H>(count, min_discs, seed);
    positions.push(Position::new());
    let (mut narrow, mut wide) = (Solver::new(4), Solver::new(4));
    for p in positions {
        let q = Position::<W, H, u128>::from_board_string(&p.to_board_string()).unwrap();
        assert_eq!(q.to_move_string(), p.to_move_string());
        narrow.reset_nodes();
        wide.reset_nodes();
        assert_eq!(wide.solve(&q).unwrap(), narrow.solve(&p).unwrap(), "{p:?}");
        assert_eq!(wide.nodes(), narrow.nodes(), "strong {p:?}");
        assert_eq!(wide.solve_weak(&q).unwrap(), narrow.solve_weak(&p).unwrap());
        assert_eq!(wide.nodes(), narrow.nodes(), "weak {p:?}");
        assert_eq!(
            wide.analyse(&q, false).unwrap(),
            narrow.analyse(&p, false).unwrap()
        );
        assert_eq!(wide.nodes(), narrow.nodes(), "analyse {p:?}");
    }
}

#[test]
fn boards_over_128_bits_search_exactly_as_over_64() {
    same_over_128_bits::<4, 4>(100, 4, 0x9E37_79B9_7F4A_7C15);
    same_over_128_bits::<5, 4>(100, 6, 0xD1B5_4A32_D192_ED03);
    same_over_128_bits::<6, 5>(40, 8, 0x6A09_E667_F3BC_C908);
}

#[test]
fn two_threads_match_plain_minimax() {
    check_against_minimax_threads::<4, 4>(150, 4, 0x2545_F491_4F6C_DD1D, 2);
    check_against_minimax_threads::<5, 4>(60, 10, 0x9E37_79B9_7F4A_7C15, 2);
}

#[test]
fn small_tables_stay_correct() {
    // a table of a single bucket forces constant replacement: results must not change
    let mut solver = Solver::with_table(vier::tt::TransTable::with_buckets(1));
    for p in random_positions::<4, 4>(100, 3, 7) {
        assert_eq!(solver.solve(&p).unwrap(), minimax(&p), "{p:?}");
    }
}

fn check_set(name: &str, take: usize, weak: bool) {
    check_set_threads(name, take, weak, 1);
}

fn check_set_threads(name: &str, take: usize, weak: bool, threads: usize) {
    let set = common::pons_set(name);
    assert!(
        set.len() >= take.min(1000),
        "{name} has {} lines",
        set.len()
    );
    let mut solver = Solver::new(32);
    solver.set_threads(threads);
    for (moves, score) in set.into_iter().take(take) {
        let p = Position::<7, 6>::from_moves(&moves).unwrap();
        solver.clear();
        if weak {
            assert_eq!(
                solver.solve_weak(&p).unwrap(),
                outcome(score),
                "weak {moves}"
            );
        } else {
            assert_eq!(solver.solve(&p).unwrap(), score, "strong {moves}");
        }
    }
}

#[test]
fn pons_end_easy_all() {
    check_set("Test_L3_R1", 1000, false);
    check_set("Test_L3_R1", 1000, true);
}

#[test]
fn pons_middle_easy_all() {
    check_set("Test_L2_R1", 1000, false);
    check_set("Test_L2_R1", 1000, true);
}

#[test]
fn pons_middle_medium_sample() {
    check_set("Test_L2_R2", 100, false);
    check_set("Test_L2_R2", 100, true);
}

#[test]
fn pons_begin_easy_sample() {
    check_set("Test_L1_R1", 100, false);
    check_set("Test_L1_R1", 100, true);
}

#[test]
fn pons_begin_medium_sample() {
    check_set("Test_L1_R2", 100, false);
    check_set("Test_L1_R2", 100, true);
}

#[test]
fn two_threads_stay_exact() {
    check_set_threads("Test_L2_R2", 100, false, 2);
    check_set_threads("Test_L1_R2", 30, false, 2);
    check_set_threads("Test_L1_R2", 30, true, 2);
}

#[test]
fn a_node_budget_is_shared_by_the_threads_not_spent_by_each() {
    use vier::control::SOLVER_POLL_NODES;
    let budget = 400_000;
    for threads in [1, 2, 4] {
        let mut solver = Solver::new(16);
        solver.set_threads(threads);
        solver.set_race_after(0);
        solver.set_limits(None, Some(budget));
        // the empty board takes tens of millions of nodes: the budget ends it
        assert!(solver.solve(&Position::<7, 6>::new()).is_err());
        // each thread may pass its share by up to one poll interval
        let most = budget + threads as u64 * SOLVER_POLL_NODES;
        assert!(
            solver.nodes() <= most,
            "{threads} threads spent {} nodes of a budget of {budget}",
            solver.nodes()
        );
    }
}

/// A search cut short leaves in its table what it proved of the positions below its root (what
/// `vier prove`'s jobs hand back): every bound holds (the score a fresh solver finds, from
/// Pons' position's own score where it is the best child's, lies within it), and there are
/// many, at both depths.
#[test]
fn what_a_search_cut_short_proved_below_its_root_holds() {
    use vier::control::SOLVER_POLL_NODES;
    let mut cut = Solver::new(16);
    let mut fresh = Solver::new(16);
    let mut by_depth = std::collections::BTreeMap::<usize, usize>::new();
    for (moves, score) in common::pons_set("Test_L1_R2").into_iter().take(40) {
        let p = Position::<7, 6>::from_moves(&moves).unwrap();
        cut.clear();
        cut.set_limits(None, Some(SOLVER_POLL_NODES));
        let stopped = cut.solve(&p).is_err();
        cut.set_limits(None, None);
        if !stopped {
            continue;
        }
        for b in cut.bounds_below(&p, 2) {
            let mut q = p;
            b.columns.iter().for_each(|&c| q.play_col(c));
            fresh.clear();
            let v = fresh.solve(&q).unwrap();
            assert!(
                b.lo.is_none_or(|lo| lo <= v) && b.hi.is_none_or(|hi| v <= hi),
                "{moves} then {:?}: {v} not within {:?}..{:?}",
                b.columns,
                b.lo,
                b.hi
            );
            // a child's score is at most the negated score of its parent
            if b.columns.len() == 1 {
                assert!(-v <= score, "{moves} then {:?}", b.columns);
            }
            *by_depth.entry(b.columns.len()).or_default() += 1;
        }
    }
    let deeper: usize = by_depth.range(3..).map(|(_, n)| n).sum();
    assert!(
        by_depth[&1] >= 50 && by_depth[&2] >= 50 && deeper >= 50,
        "bounds by moves below: {by_depth:?}"
    );
}

#[test]
fn a_search_that_starts_from_what_a_cut_one_learnt_finds_the_same_score_with_less_work() {
    use vier::control::SOLVER_POLL_NODES;
    let mut cut = Solver::new(16);
    let mut again = Solver::new(16);
    let (mut plain, mut seeded, mut cases) = (0, 0, 0);
    for (moves, score) in common::pons_set("Test_L1_R2").into_iter().take(40) {
        let p = Position::<7, 6>::from_moves(&moves).unwrap();
        cut.clear();
        cut.set_limits(None, Some(4 * SOLVER_POLL_NODES));
        let stopped = cut.solve(&p).is_err();
        cut.set_limits(None, None);
        if !stopped {
            continue;
        }
        let learnt = cut.bounds_below(&p, 2);
        cases += 1;
        for (seeds, nodes) in [(&[][..], &mut plain), (&learnt[..], &mut seeded)] {
            again.clear();
            again.reset_nodes();
            again.seed(&p, seeds);
            assert_eq!(again.solve(&p), Ok(score), "{moves}");
            *nodes += again.nodes();
        }
    }
    assert!(cases >= 10, "{cases} positions cut short");
    assert!(
        seeded < plain,
        "{cases} positions: {seeded} nodes from what was learnt, {plain} from nothing"
    );
}

#[test]
fn the_counts_by_discs_hold_every_node_of_every_thread_once() {
    // a Test_L2_R2 position: thousands of nodes, enough for the helpers to join at once
    let (moves, score) = common::pons_set("Test_L2_R2").swap_remove(0);
    let p = Position::<7, 6>::from_moves(&moves).unwrap();
    for threads in [1, 2, 4] {
        let mut solver = Solver::new(16);
        solver.set_threads(threads);
        solver.set_race_after(0);
        assert_eq!(solver.solve(&p).unwrap(), score, "{moves}");
        let stats = solver.stats();
        assert!(solver.nodes() > 0);
        assert_eq!(stats.nodes(), solver.nodes(), "{threads} threads");
        // a search below the root never sees fewer discs, nor a full board
        let discs = p.moves() as usize;
        assert!((0..discs).all(|d| stats.nodes_at(d) == 0), "{stats}");
        assert!((42..=60).all(|d| stats.nodes_at(d) == 0), "{stats}");
        // and starts from nothing again
        solver.reset_nodes();
        assert_eq!(solver.stats().nodes(), 0);
    }
}

/// Pons' five sets, end to begin.
const PONS_SETS: [&str; 5] = [
    "Test_L3_R1",
    "Test_L2_R1",
    "Test_L2_R2",
    "Test_L1_R1",
    "Test_L1_R2",
];

/// All 5000 positions, strong and weak: `cargo test --profile slow-tests --test solver -- --ignored full_sets`
#[test]
#[ignore = "minutes: run with -- --ignored"]
fn full_sets() {
    for name in PONS_SETS {
        check_set(name, 1000, false);
        check_set(name, 1000, true);
    }
}

/// The first player wins the empty 7x6 board with its 21st disc (+1); the first moves score
/// -2 -1 0 1 0 -1 -2 from the first player's view (tests/data/README.md).
#[test]
#[ignore = "minutes: run with -- --ignored"]
fn empty_board_7x6() {
    let mut solver = Solver::new(2048);
    let p = Position::<7, 6>::new();
    assert_eq!(solver.solve(&p).unwrap(), 1);
    let cols: Vec<i32> = solver
        .analyse(&p, false)
        .unwrap()
        .into_iter()
        .map(|s| s.unwrap())
        .collect();
    assert_eq!(cols, vec![-2, -1, 0, 1, 0, -1, -2]);
}

/// A row of tests/data/sizes.md: size, result, the move the game ends on (`None`: `?`).
fn sizes_table() -> Vec<(Size, String, Option<u32>)> {
    common::read_data("sizes.md")
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            if f.len() < 4 {
                return None;
            }
            let size: Size = f[1].replace(' ', "").parse().ok()?;
            let ends = match f[3] {
                "?" => None,
                n => Some(n.parse().ok()?),
            };
            Some((size, f[2].to_string(), ends))
        })
        .collect()
}

#[test]
fn every_published_size_is_playable() {
    let table = sizes_table();
    assert_eq!(table.len(), 52);
    let mut sizes: Vec<Size> = table.iter().map(|r| r.0).collect();
    // the registry's others are the unsolved sizes, which the table does not list
    let mut registry: Vec<Size> = Size::all().filter(|s| s.published()).collect();
    assert_eq!(Size::all().filter(|s| !s.published()).count(), 5);
    sizes.sort_by_key(|s| (s.width(), s.height()));
    registry.sort_by_key(|s| (s.width(), s.height()));
    assert_eq!(sizes, registry);
}

/// Who wins with perfect play and on which move the game ends, from the exact score.
fn game_result<const W: usize, const H: usize>(score: i32) -> (&'static str, u32) {
    let k = winner_disc((W * H) as i32, 0, score) as u32;
    match score.signum() {
        0 => ("draw", (W * H) as u32),
        // the first player wins with its k-th disc: move 2k - 1
        1 => ("1st", 2 * k - 1),
        // the second player wins with its k-th disc: move 2k
        _ => ("2nd", 2 * k),
    }
}

/// Solves each of `sizes` from the empty board and checks the outcome and the move the game
/// ends on against sizes.md (published results; `?` where no move was published).
fn check_sizes(sizes: &[&str], hash_mb: usize, threads: usize) {
    let table = sizes_table();
    assert!(table.len() >= 50, "sizes.md parsed to {} rows", table.len());
    for name in sizes {
        let size: Size = name.parse().unwrap();
        let (result, ends) = table
            .iter()
            .find(|(s, _, _)| *s == size)
            .map(|(_, r, e)| (r.as_str(), *e))
            .unwrap_or_else(|| panic!("{name} is not in sizes.md"));
        struct SolveEmpty(usize, usize);
        impl SizedJob for SolveEmpty {
            type Output = (&'static str, u32);
            fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
                let mut solver = Solver::new(self.0);
                solver.set_threads(self.1);
                game_result::<W, H>(solver.solve(&Position::<W, H, B>::new()).unwrap())
            }
        }
        let got = size.run(SolveEmpty(hash_mb, threads));
        assert_eq!(got.0, result, "{name}");
        if let Some(ends) = ends {
            assert_eq!(got.1, ends, "{name}");
        }
    }
}

#[test]
fn board_sizes_match_published_results() {
    // the sizes this solver proves within a second or two
    check_sizes(
        &[
            "4x4", "5x4", "6x4", "4x5", "5x5", "4x6", "7x4", "4x7", "6x5", "5x6", "4x8", "4x9",
        ],
        64,
        1,
    );
}

/// The other sizes docs/sizes.md lists as solved from the empty board, up to minutes each:
/// `cargo test --profile slow-tests --test solver -- --ignored every_solved_size`
#[test]
#[ignore = "minutes: run with -- --ignored"]
fn every_solved_size_matches_published_results() {
    check_sizes(
        &[
            "8x4", "5x7", "7x5", "6x6", "9x4", "4x10", "5x8", "8x5", "6x7", "7x6", "4x11", "5x9",
            "4x12", "6x8", "10x4", "9x5",
        ],
        1024,
        2,
    );
}

/// All 5000 positions with two threads, strong:
/// `cargo test --profile slow-tests --test solver -- --ignored full_sets_two_threads`
#[test]
#[ignore = "minutes: run with -- --ignored"]
fn full_sets_two_threads() {
    for name in PONS_SETS {
        check_set_threads(name, 1000, false, 2);
    }
}

/// With the book, a child of a book position has a known lower bound: its exact score. The
/// root proof secures the win (or draw) first, cheap, before a move that keeps that score,
/// which can cost far more than a move's budget. In `6573343622` (exact score 3; columns 3
/// scores 3, 2 5 7 score 2, 1 4 6 draw) the win is proven in a few nodes and keeping 3 is not
/// within 10,000: the move kept must still be a winning one, not nothing.
#[test]
fn the_root_proof_secures_the_win_before_the_known_score() {
    use std::sync::Arc;
    use vier::book::Book;
    use vier::control::SearchControl;
    let p = Position::<7, 6>::from_moves("6573343622").unwrap();
    let mut solver = Solver::new(16);
    solver.set_book(Some(Arc::new(Book::embedded_result().unwrap())));
    let mut secured = None;
    let control = SearchControl::unlimited();
    let _ = solver.prove_root(&p, true, &mut secured, &control, 10_000);
    let (col, at_least) = secured.expect("a move that keeps the win");
    assert!(at_least >= 1, "{at_least}");
    let mut exact = Solver::new(16);
    let mut q = p;
    q.play_col(col);
    assert!(
        -exact.solve(&q).unwrap() >= 1,
        "column {} does not win",
        col + 1
    );
}

/// Positions of the 10x6 board (70 bits, searched over 128-bit bitboards) with the exact scores
/// Steininger's solver publishes for them, strong and weak.
#[test]
fn a_128_bit_board_matches_steiningers_published_scores() {
    let data = common::read_data("steininger/10x6_sample");
    let mut solver = Solver::new(32);
    let mut checked = 0;
    for line in data.lines() {
        let (moves, score) = line.split_once(' ').unwrap();
        let score: i32 = score.parse().unwrap();
        let p = Position::<10, 6, u128>::from_moves(moves).unwrap();
        solver.clear();
        assert_eq!(solver.solve(&p).unwrap(), score, "strong {moves}");
        assert_eq!(
            solver.solve_weak(&p).unwrap(),
            outcome(score),
            "weak {moves}"
        );
        checked += 1;
    }
    assert_eq!(checked, 50);
}

/// The first unsolved boards (13x4 to 9x8, 65 to 81 bits): random positions with 22 to 32
/// empty cells and their exact scores from Steininger's solver built for each size (a copy of
/// its results, tests/data/README.md), strong and weak, through `vier solve`.
#[test]
fn the_unsolved_sizes_match_steiningers_solver_on_late_positions() {
    let data = common::read_data("steininger/unsolved_endgames");
    let mut by_size: std::collections::BTreeMap<&str, String> = Default::default();
    for line in data.lines() {
        let (size, rest) = line.split_once(' ').unwrap();
        assert!(!size.parse::<Size>().unwrap().published(), "{size}");
        by_size
            .entry(size)
            .or_default()
            .push_str(&format!("{rest}\n"));
    }
    assert_eq!(by_size.len(), 5);
    for (size, lines) in &by_size {
        for weak in [false, true] {
            let mut args = vec!["solve", "--size", size, "--no-book"];
            if weak {
                args.push("--weak");
            }
            let out = common::run_vier(&args, lines);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && !stdout.contains("MISMATCH"),
                "{size} weak {weak}:\n{stdout}"
            );
            assert_eq!(stdout.lines().count(), 24, "{size}");
        }
    }
}
