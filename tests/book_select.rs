//! Choosing the positions past a book's full width (`vier book select`): the candidates of a
//! ply against published position counts and the build's own enumeration, and the choice
//! against its budget, its threads and its input order.

mod common;

use common::run_vier;
use std::collections::HashSet;
use vier::bits::Bitboard;
use vier::board::{Position, Size, SizedJob};
use vier::book::shard::ShardSpec;
use vier::book::Book;
use vier::book_build::select::{
    held_past_depth, positions, positions_with, proof_cost, select, SelectOptions,
};
use vier::book_build::{build, enumerate, BuildOptions};
use vier::solver::Solver;

/// Positions of 7x6 after 0 to 6 plies (OEIS A212693); no game ends before the 7th disc, so
/// each is a candidate.
const A212693: [usize; 7] = [1, 7, 49, 238, 1120, 4263, 16422];

#[test]
fn candidates_are_every_position_of_the_ply_once() {
    for (d, &published) in A212693.iter().enumerate() {
        let list = positions_with::<7, 6, u64>(d as u32);
        let mut keys = HashSet::new();
        let mut both_sides = 0;
        for m in &list {
            let p = Position::<7, 6>::from_moves(m).unwrap();
            assert_eq!(p.moves() as usize, d, "{m}");
            assert!(keys.insert(p.symmetric_key().0), "{m} twice");
            both_sides += if p.key() == p.mirrored().key() { 1 } else { 2 };
        }
        assert_eq!(both_sides, published, "{d} discs");
    }
    // and past the first fours: the ply a build solves, no more, no less
    for (size, d) in [("7x6", 8), ("5x4", 9), ("6x5", 10)] {
        let size: Size = size.parse().unwrap();
        let list = positions(size, d, ShardSpec::WHOLE);
        struct Keys<'a>(&'a [String], u32);
        impl SizedJob for Keys<'_> {
            type Output = (HashSet<u128>, HashSet<u128>);
            fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
                let (list, d) = (self.0, self.1);
                let keys = list
                    .iter()
                    .map(|m| {
                        let p = Position::<W, H, B>::from_moves(m).unwrap();
                        assert!(!p.is_game_over(), "{m}");
                        p.symmetric_key().0.to_u128()
                    })
                    .collect();
                let ply = enumerate::<W, H, B>(d)[d as usize]
                    .iter()
                    .map(|k| k.to_u128())
                    .collect();
                (keys, ply)
            }
        }
        let (keys, ply) = size.run(Keys(&list, d));
        assert_eq!(list.len(), keys.len(), "{size} {d}: repeats");
        assert_eq!(keys, ply, "{size} {d}");
    }
}

/// The shards of a ply split it: each position in one of them, by the key rule of `build --shard`.
#[test]
fn the_shards_of_a_ply_split_it() {
    let size: Size = "6x5".parse().unwrap();
    let whole = positions(size, 7, ShardSpec::WHOLE);
    let mut seen = HashSet::new();
    for k in 0..5 {
        let spec = ShardSpec::new(k, 5).unwrap();
        let part = positions(size, 7, spec);
        // a fair share of the ply (a split by key, not by order)
        assert!(part.len() > whole.len() / 10, "{k}: {}", part.len());
        for m in part {
            let key = Position::<6, 5>::from_moves(&m).unwrap().symmetric_key().0;
            assert!(spec.holds::<6, 5, _>(key), "{m}");
            assert!(seen.insert(m), "in two shards");
        }
    }
    assert_eq!(seen, whole.into_iter().collect::<HashSet<_>>());
}

/// What a book holds past its full width lists back as the `--extra` list that builds it again,
/// byte for byte, main line and all; so a layer can be added to a book in pieces, each build
/// given the book's own list and the new piece.
#[test]
fn a_books_list_past_its_depth_builds_it_again() {
    let dir = std::env::temp_dir().join(format!("vier-held-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ply7 = positions_with::<5, 4, u64>(7);
    let (first, second): (Vec<String>, Vec<String>) = (
        ply7.iter().step_by(7).cloned().collect(),
        ply7.iter().skip(3).step_by(7).cloned().collect(),
    );
    let opts = |out: &str, extra: Vec<String>| BuildOptions {
        size: "5x4".parse().unwrap(),
        depth: 4,
        threads: 2,
        hash_mb: 4,
        out: dir.join(out),
        line: 9,
        extra,
        book: None,
    };
    let a = build(&opts("a.book", first.clone()), &mut std::io::sink()).unwrap();
    let held = held_past_depth(&a, None, ShardSpec::WHOLE).unwrap();
    // the listed positions and the main line's
    assert!(held.len() > first.len(), "{} {}", held.len(), first.len());
    let again = build(&opts("again.book", held.clone()), &mut std::io::sink()).unwrap();
    same_bytes(&again, &a);
    // a second piece over the first: the same book as both at once
    let both: Vec<String> = first.iter().chain(&second).cloned().collect();
    let at_once = build(&opts("once.book", both), &mut std::io::sink()).unwrap();
    std::fs::copy(dir.join("a.book"), dir.join("pieces.book")).unwrap();
    let more: Vec<String> = held.iter().chain(&second).cloned().collect();
    let pieces = build(&opts("pieces.book", more), &mut std::io::sink()).unwrap();
    same_bytes(&pieces, &at_once);
    assert!(pieces.len() > a.len());
    // the command lists the same, and filters by discs and shard
    let file = dir.join("a.book");
    let listed = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["book", "positions", "--book", file.to_str().unwrap()];
        all.extend(args);
        let o = run_vier(&all, "");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(listed(&[]), held);
    let sevens = listed(&["--discs", "7"]);
    assert_eq!(
        sevens.iter().collect::<HashSet<_>>(),
        held.iter().filter(|m| m.len() == 7).collect::<HashSet<_>>()
    );
    let halves: Vec<Vec<String>> = ["0/2", "1/2"]
        .iter()
        .map(|s| listed(&["--shard", s]))
        .collect();
    assert_eq!(halves[0].len() + halves[1].len(), held.len());
    assert!(!halves[0].is_empty() && !halves[1].is_empty());
    // a file that is not a book is refused
    let o = run_vier(
        &[
            "book",
            "positions",
            "--book",
            dir.join("none.book").to_str().unwrap(),
        ],
        "",
    );
    assert!(!o.status.success());
    assert!(o.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same file: the first entries that differ if any (a whole file is too long to print).
fn same_bytes(a: &Book, b: &Book) {
    let diff: Vec<_> = a
        .values()
        .zip(b.values())
        .filter(|(x, y)| x != y)
        .take(5)
        .collect();
    assert!(diff.is_empty(), "entries differ: {diff:?}");
    assert!(
        a.to_bytes() == b.to_bytes(),
        "{} and {} entries",
        a.len(),
        b.len()
    );
}

/// Every eighth position of 6x5 with 6 discs (about 500): proofs of a few thousand nodes, some
/// past the budgets below.
fn candidates() -> Vec<String> {
    positions_with::<6, 5, u64>(6)
        .into_iter()
        .step_by(8)
        .collect()
}

fn opts(nodes: u64, threads: usize) -> SelectOptions {
    SelectOptions {
        size: "6x5".parse().unwrap(),
        nodes,
        threads,
        hash_mb: 1,
    }
}

#[test]
fn kept_are_those_whose_proof_costs_more_than_the_budget() {
    let list = candidates();
    let budget = 10_000;
    let sel = select(&opts(budget, 2), &list, &mut std::io::sink()).unwrap();
    assert_eq!(sel.candidates, list.len());
    // the budget matters on this ply: some are kept, most are not
    assert!(
        !sel.kept.is_empty() && sel.kept.len() < list.len() / 2,
        "{}",
        sel.kept.len()
    );
    let kept: HashSet<&String> = sel.kept.iter().collect();
    let mut solver = Solver::new(1);
    let mut by_mirror_only = 0;
    for m in &list {
        let p = Position::<6, 5>::from_moves(m).unwrap();
        // kept when either orientation's proof is over the budget
        let costs: Vec<u64> = [p, p.mirrored()]
            .iter()
            .map(|q| proof_cost(&mut solver, q, u64::MAX).expect("no budget"))
            .collect();
        let over = costs.iter().any(|&n| n > budget);
        assert_eq!(over, kept.contains(m), "{m}: {costs:?}");
        assert_eq!(
            proof_cost(&mut solver, &p, budget).is_none(),
            costs[0] > budget
        );
        by_mirror_only += usize::from(costs[0] <= budget && costs[1] > budget);
    }
    // the mirror image matters: some are kept for its proof alone
    assert!(by_mirror_only > 0);
    // what a probe counts, the candidates' probes sum
    assert!(sel.nodes >= budget * sel.kept.len() as u64);
    // in the input's order
    let order: Vec<&String> = list.iter().filter(|m| kept.contains(m)).collect();
    assert_eq!(sel.kept.iter().collect::<Vec<_>>(), order);
}

#[test]
fn the_choice_depends_on_the_budget_alone() {
    let list = candidates();
    let one = select(&opts(2_000, 1), &list, &mut std::io::sink()).unwrap();
    let two = select(&opts(2_000, 2), &list, &mut std::io::sink()).unwrap();
    assert_eq!(one, two);
    let reversed: Vec<String> = list.iter().rev().cloned().collect();
    let back = select(&opts(2_000, 2), &reversed, &mut std::io::sink()).unwrap();
    let (a, b): (HashSet<_>, HashSet<_>) = (one.kept.iter().collect(), back.kept.iter().collect());
    assert_eq!(a, b);
    // the same positions whichever image is listed
    let mirror = |m: &String| -> String {
        m.chars()
            .map(|c| char::from_digit(7 - c.to_digit(10).unwrap(), 10).unwrap())
            .collect()
    };
    let mirrored: Vec<String> = list.iter().map(mirror).collect();
    let images = select(&opts(2_000, 2), &mirrored, &mut std::io::sink()).unwrap();
    assert_eq!(images.kept, one.kept.iter().map(mirror).collect::<Vec<_>>());
    // a larger budget keeps a subset; no budget keeps nothing
    let more = select(&opts(20_000, 2), &list, &mut std::io::sink()).unwrap();
    assert!(more.kept.len() < one.kept.len());
    assert!(more.kept.iter().all(|m| a.contains(m)));
    let all = select(&opts(u64::MAX, 2), &list, &mut std::io::sink()).unwrap();
    assert!(all.kept.is_empty());
    // a repeated candidate (here a mirror image) is probed once, where it first comes
    let twice = vec!["2".to_string(), "3".to_string(), "5".to_string()];
    assert_eq!(
        select(&opts(0, 1), &twice, &mut std::io::sink())
            .unwrap()
            .candidates,
        2
    );
}

#[test]
fn the_command_prints_the_kept_positions_and_refuses_bad_candidates() {
    let o = run_vier(&["book", "positions", "--size", "6x5", "--discs", "6"], "");
    assert!(o.status.success());
    let ply = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(
        ply.lines().collect::<Vec<_>>(),
        positions_with::<6, 5, u64>(6)
    );
    let list = candidates();
    let dir = std::env::temp_dir().join(format!("vier-select-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ply6.txt");
    std::fs::write(&file, list.join("\n")).unwrap();
    let o = run_vier(
        &[
            "book",
            "select",
            "--size",
            "6x5",
            "--nodes",
            "5000",
            file.to_str().unwrap(),
        ],
        "",
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let printed: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let sel = select(&opts(5_000, 2), &list, &mut std::io::sink()).unwrap();
    assert_eq!(printed, sel.kept);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(
        err.contains(&format!(
            "kept {} of {} candidates",
            sel.kept.len(),
            list.len()
        )),
        "{err}"
    );

    // from standard input, with a comment
    let input = format!("# chosen\n{}\n", sel.kept[0]);
    let o = run_vier(
        &["book", "select", "--size", "6x5", "--nodes", "5000", "-"],
        &input,
    );
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        sel.kept[0].as_str()
    );

    for (input, says) in [
        ("3\n38\n", "candidate 38"),
        ("3\n1122334\n", "candidate 1122334: the game is over"),
    ] {
        let o = run_vier(
            &["book", "select", "--size", "6x5", "--nodes", "5000", "-"],
            input,
        );
        assert!(!o.status.success(), "{input}");
        assert!(o.stdout.is_empty());
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(err.contains(says), "{input}: {err}");
    }
    // no candidates, or a ply past the board: refused
    let o = run_vier(&["book", "select", "--nodes", "5000"], "");
    assert!(!o.status.success());
    let o = run_vier(&["book", "positions", "--size", "5x4", "--discs", "20"], "");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("20 discs do not leave a move on 5x4"));
}
