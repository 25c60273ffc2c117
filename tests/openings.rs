//! Balanced openings from the book (`vier book openings`): the shipped tools/openings.txt is
//! what its header's command makes, and the openings are every balanced position once, checked
//! against a plain enumeration of all move strings.

mod common;

use common::run_vier;
use std::collections::HashMap;
use vier::board::{Position, Size};
use vier::book::openings::{openings, Opening, OpeningsError, OpeningsOptions};
use vier::book::Book;
use vier::book_build::{build, BuildOptions};

fn repo_file(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn shipped_openings_file_is_what_its_command_makes() {
    let file = repo_file("tools/openings.txt");
    let command = file
        .lines()
        .find_map(|l| l.strip_prefix("# Made with: vier "))
        .expect("the header names the command that made the file");
    let args: Vec<&str> = command.split_whitespace().collect();
    let o = run_vier(&args, "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stdout) == file,
        "tools/openings.txt is not what `vier {command}` writes: make it again"
    );
    let n = file.lines().filter(|l| !l.starts_with('#')).count();
    assert!(n >= 200, "{n} openings");
}

/// Every move string of `min..=max` plies from the empty board, the game going on: for each
/// position (mirror images merged) the smallest string reaching it, with the position.
fn all_positions<const W: usize, const H: usize>(
    min: u32,
    max: u32,
) -> HashMap<u64, (String, Position<W, H>)> {
    let mut out: HashMap<u64, (String, Position<W, H>)> = HashMap::new();
    let mut layer = vec![(String::new(), Position::<W, H>::new())];
    for ply in 1..=max {
        let mut next = Vec::new();
        for (m, p) in &layer {
            for c in 0..W {
                if p.can_play(c) && !p.is_winning_move(c) {
                    let mut q = *p;
                    q.play_col(c);
                    next.push((format!("{m}{}", c + 1), q));
                }
            }
        }
        if ply >= min {
            for (m, p) in &next {
                let e = out
                    .entry(p.symmetric_key().0)
                    .or_insert_with(|| (m.clone(), *p));
                if *m < e.0 {
                    e.0 = m.clone();
                }
            }
        }
        layer = next;
    }
    out
}

#[test]
fn openings_are_every_balanced_position_once() {
    let dir = std::env::temp_dir().join(format!("vier-openings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = build(
        &BuildOptions {
            size: Size::new(5, 4).unwrap(),
            depth: 6,
            threads: 2,
            hash_mb: 16,
            out: dir.join("5x4.book"),
            line: 0,
            extra: Vec::new(),
            book: None,
        },
        &mut Vec::new(),
    )
    .unwrap();
    for max_score in [0, 1, 2] {
        let opts = OpeningsOptions {
            min_plies: 2,
            max_plies: 5,
            max_score,
        };
        let got = openings(&book, opts).unwrap();
        let mut expected: Vec<Opening> = all_positions::<5, 4>(2, 5)
            .into_values()
            .filter(|(_, p)| !p.can_win_next() && p.non_losing_moves().count_ones() > 1)
            .map(|(moves, p)| Opening {
                moves,
                score: book.get(&p).unwrap(),
            })
            .filter(|o| o.score.abs() <= max_score)
            .collect();
        expected.sort_by(|a, b| (a.moves.len(), &a.moves).cmp(&(b.moves.len(), &b.moves)));
        assert!(expected.len() > 10, "{max_score}: {}", expected.len());
        assert_eq!(got, expected, "max score {max_score}");
    }
    // a forced block is left out: on 5x4, after 1212 1 (o to move, x threatens column 1)
    let forced = "12121";
    let p = Position::<5, 4>::from_moves(forced).unwrap();
    assert_eq!(p.non_losing_moves().count_ones(), 1);
    let all = openings(
        &book,
        OpeningsOptions {
            min_plies: 5,
            max_plies: 5,
            max_score: 10,
        },
    )
    .unwrap();
    assert!(all.iter().all(|o| o.moves != forced));
    assert!(!all.is_empty());
}

#[test]
fn openings_beyond_the_book_or_of_no_plies_are_refused() {
    let book: std::sync::Arc<Book> = Book::embedded().unwrap();
    let deep = OpeningsOptions {
        min_plies: 2,
        max_plies: book.depth() + 1,
        max_score: 1,
    };
    assert!(matches!(
        openings(&book, deep),
        Err(OpeningsError::TooShallow { .. })
    ));
    let o = run_vier(
        &[
            "book",
            "openings",
            "--max-plies",
            &(book.depth() + 1).to_string(),
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("only up to") && o.stdout.is_empty(), "{err}");
    let o = run_vier(
        &["book", "openings", "--min-plies", "5", "--max-plies", "3"],
        "",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--min-plies 5 is above --max-plies 3"));
}
