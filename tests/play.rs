//! `vier play` through the real binary: stdin and stdout are pipes, so the board is drawn in plain
//! text (`x`, `o`, `.`, the last move in brackets, a winning four in upper case) and every input
//! line is echoed after its prompt. No assertion depends on timing: the engine's moves are only
//! assumed to be legal, and each game is set up so that its outcome does not depend on them.

mod common;

use std::process::Output;
use vier::board::Position;
use vier::solver::Solver;

fn play(args: &[&str], stdin: &str) -> Output {
    let mut all = vec!["play"];
    all.extend_from_slice(args);
    common::run_vier(&all, stdin)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every board drawn in `text`: the `height` rows above each line of column numbers.
fn boards(text: &str, width: usize, height: usize) -> Vec<String> {
    let numbers: String = (1..=width)
        .map(|c| format!(" {c} "))
        .collect::<String>()
        .trim_end()
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(i, l)| **l == numbers && *i >= height)
        .map(|(i, _)| lines[i - height..=i].join("\n"))
        .collect()
}

/// The cells of a drawn board, top row first, without the last-move brackets.
fn cells(board: &str) -> Vec<Vec<char>> {
    board
        .lines()
        .filter(|l| !l.trim_start().starts_with('1'))
        .map(|l| {
            l.chars()
                .filter(|c| !matches!(c, ' ' | '[' | ']'))
                .collect()
        })
        .collect()
}

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn engine_first_beats_a_person_who_always_plays_column_1() {
    // More 1s than the game can take: once it is over they meet "play again?" and are refused.
    let out = play(
        &["--first", "engine", "--movetime", "100"],
        "1\n1\n1\n1\n1\n1\nn\n",
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("vier moves first"), "{text}");
    assert!(text.contains("\nvier wins. four in a row"), "{text}");
    assert!(!text.contains("You win!"), "{text}");
    assert!(!text.contains("is full"), "{text}");
    let all = boards(&text, 7, 6);
    let last = all.last().expect("a board");
    // the engine plays x (it moved first): its four in upper case, nothing else
    let grid = cells(last);
    let upper: Vec<(usize, usize)> = (0..6)
        .flat_map(|r| (0..7).map(move |c| (c, r)))
        .filter(|&(c, r)| grid[5 - r][c] == 'X')
        .collect();
    assert_eq!(upper.len(), 4, "{last}");
    assert!(!last.contains('O'), "{last}");
    // and the line names the same cells (column/row, 1-based, row 1 at the bottom)
    let listed = text
        .lines()
        .find_map(|l| l.strip_prefix("vier wins. four in a row (column/row from the bottom): "))
        .expect("the winning line");
    let mut named: Vec<(usize, usize)> = listed
        .split(' ')
        .map(|cr| {
            let (c, r) = cr.split_once('/').unwrap();
            (
                c.parse::<usize>().unwrap() - 1,
                r.parse::<usize>().unwrap() - 1,
            )
        })
        .collect();
    named.sort();
    assert_eq!(named, upper);
    assert!(text.contains("play again? [y/n]"), "{text}");
    assert!(text.trim_end().ends_with("bye"), "{text}");
    // each engine move came with a note of what it found
    assert!(text.contains("\nvier plays "), "{text}");
    assert!(text.contains(" nodes)"), "{text}");
}

#[test]
fn bad_input_leaves_the_board_alone_and_eof_quits_cleanly() {
    // column 1 is full; x (the person) to move
    let out = play(
        &["--position", "111111", "--movetime", "50"],
        "1\nfoo\n\n9\n0\n12 3\nt\nt 0\nq 1\n99999999999999999999999\nb\n",
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("column 1 is full"), "{text}");
    assert!(text.contains("unknown command 'foo'"), "{text}");
    assert!(text.contains("there is no column 9"), "{text}");
    assert!(text.contains("there is no column 0"), "{text}");
    assert!(
        text.contains("type a column number, 1 to 7, and Enter"),
        "{text}"
    );
    assert!(
        !text.contains("\nvier plays"),
        "the engine never moved: {text}"
    );
    let all = boards(&text, 7, 6);
    assert_eq!(all.len(), 2, "drawn at the start and on 'b': {text}");
    assert_eq!(all[0], all[1]);
    // after each bad line, one message and the prompt again
    let messages = text
        .lines()
        .filter(|l| l.starts_with("your move: "))
        .count();
    assert_eq!(messages, 12, "11 lines and the prompt at EOF: {text}");
    assert!(text.trim_end().ends_with("bye"), "{text}");
}

#[test]
fn undo_takes_back_the_last_pair() {
    let out = play(&["--movetime", "50"], "4\n3\nu\nu\nu\nq\n");
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    let all = boards(&text, 7, 6);
    // start, after 4 + reply, after 3 + reply, after the first u, after the second u
    assert_eq!(all.len(), 5, "{text}");
    assert_eq!(all[3], all[1], "{text}");
    assert_eq!(all[4], all[0], "{text}");
    assert!(!all[0].contains('x') && !all[0].contains('o'));
    assert_eq!(count(&all[1], "x"), 1);
    assert_eq!(count(&all[1], "o"), 1);
    assert!(text.contains("took back 3 and "), "{text}");
    assert!(text.contains("took back 4 and "), "{text}");
    assert!(text.contains("nothing to take back"), "{text}");
}

/// The words a hint should give for an exact score `s` of a column.
fn expected_words(s: i32, cells: i32, moves: i32) -> String {
    fn ordinal(n: i32) -> String {
        let suffix = match (n % 10, n % 100) {
            (_, 11..=13) => "th",
            (1, _) => "st",
            (2, _) => "nd",
            (3, _) => "rd",
            _ => "th",
        };
        format!("{n}{suffix}")
    }
    if s > 0 {
        // a win with the disc played when m discs are on the board scores (cells + 1 - m) / 2
        let n = (cells + 1 - moves) / 2 - s + 1;
        if n == 1 {
            "wins at once".into()
        } else {
            format!("wins (with your {} disc from now)", ordinal(n))
        }
    } else if s < 0 {
        let n = (cells - moves) / 2 + s + 1;
        format!(
            "loses (vier connects four with its {} disc from now)",
            ordinal(n)
        )
    } else {
        "draws".into()
    }
}

fn check_hint<const W: usize, const H: usize>(size: &str, moves: &str) {
    check_hint_with::<W, H>(&[], size, moves)
}

fn check_hint_with<const W: usize, const H: usize>(extra: &[&str], size: &str, moves: &str) {
    let mut args = vec!["--size", size, "--position", moves, "--movetime", "5000"];
    args.extend_from_slice(extra);
    let out = play(&args, "h\nq\n");
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    let p = Position::<W, H>::from_moves(moves).unwrap();
    let scores = Solver::new(16).analyse(&p, false).unwrap();
    let best = scores.iter().flatten().max().copied();
    let start = text.find("hint: exact values for you").expect("a hint");
    let lines: Vec<&str> = text[start..].lines().skip(1).take(W).collect();
    for (c, line) in lines.iter().enumerate() {
        let (col, what) = line.trim().split_once(": ").expect("column: words");
        assert_eq!(col, (c + 1).to_string(), "{text}");
        let expected = match scores[c] {
            None => "full".to_string(),
            Some(s) => {
                let words = expected_words(s, (W * H) as i32, p.moves() as i32);
                if Some(s) == best {
                    words + "  <- best"
                } else {
                    words
                }
            }
        };
        assert_eq!(what, expected, "column {}: {text}", c + 1);
    }
}

#[test]
fn hint_matches_the_solver() {
    // Pons' Test_L2_R1 (score 4 for o, to move) and Test_L3_R1 (a full column, a loss)
    check_hint::<7, 6>("7x6", "5554224333234511764415115");
    check_hint::<7, 6>("7x6", "2252576253462244111563365343671351441");
    // a small board from near the start
    check_hint::<5, 4>("5x4", "3");
}

#[test]
fn full_board_is_a_draw() {
    // 4x4: two cells left, in columns 3 and 4, and no four possible for either side
    let out = play(
        &[
            "--size",
            "4x4",
            "--position",
            "12123434212143",
            "--movetime",
            "50",
        ],
        "4\nn\n",
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("\nDraw: the board is full.\n"), "{text}");
    // the engine filled the last cell and knows it is a draw
    assert!(text.contains("\nvier plays 3 (depth 1, drawn, "), "{text}");
    let all = boards(&text, 4, 4);
    let last = all.last().unwrap();
    assert!(!last.contains('.'), "{last}");
    assert!(!last.contains('X') && !last.contains('O'), "{last}");
    assert!(text.contains("play again? [y/n] n\nbye"), "{text}");
}

#[test]
fn person_wins_and_plays_again_with_sides_swapped() {
    // x (the person) wins at once in column 1; then a new game where vier is x and moves first
    let out = play(&["--position", "121212", "--movetime", "50"], "1\ny\nq\n");
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("You win! four in a row (column/row from the bottom): 1/1 1/2 1/3 1/4"),
        "{text}"
    );
    let second = text.split("play again? [y/n] y\n").nth(1).expect("again");
    assert!(second.starts_with("new game on 7x6: you play o, vier plays x; vier moves first."));
    assert!(second.contains("\nvier plays "), "{text}");
}

#[test]
fn bad_options_exit_2() {
    for args in [
        &["--position", "1111111"][..],
        &["--position", "4a"],
        &["--position", "1212121"],
        &["--size", "3x3"],
        &["--first", "nobody"],
        &["--no-book=yes"],
        &["--skill", "0"],
        &["--skill", "10"],
        &["--skill", "weak"],
    ] {
        let out = play(args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn no_book_plays_and_hints() {
    let out = play(
        &["--no-book", "--first", "engine", "--movetime", "100"],
        "1\n1\n1\n1\n1\n1\nn\n",
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("vier moves first"), "{text}");
    assert!(text.contains("\nvier wins. four in a row"), "{text}");
    assert!(!text.contains("You win!"), "{text}");
    // the hints are the solver's own work then
    check_hint_with::<7, 6>(&["--no-book"], "7x6", "5554224333234511764415115");
    check_hint_with::<5, 4>(&["--no-book"], "5x4", "3");
    // and the flag is documented
    let help = play(&["--help"], "");
    assert!(stdout(&help).contains("--no-book"), "{}", stdout(&help));
}

/// `--skill` starts at a skill level, `l N` changes it mid-game (bad ones are refused and
/// change nothing), `l 9` is full strength again; the level's moves are legal and the game goes
/// on.
#[test]
fn a_skill_level_is_chosen_on_the_command_line_and_changed_mid_game() {
    let out = play(
        &["--skill", "1", "--movetime", "50"],
        "4\nl 0\nl\nl 3\n4\n?\nl 9\n4\nq\n",
    );
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("vier thinks 50 ms per move at skill level 1"),
        "{text}"
    );
    assert!(
        text.contains("'0' is not a skill level: 1 (a beginner) to 9"),
        "{text}"
    );
    assert!(text.contains("type l and a skill level"), "{text}");
    assert!(text.contains("vier now plays at skill level 3"), "{text}");
    assert!(
        text.contains("vier's skill level, 1 (a beginner) to 9 (full strength; now 3)"),
        "{text}"
    );
    assert!(text.contains("vier now plays at full strength"), "{text}");
    assert_eq!(count(&text, "\nvier plays "), 3, "{text}");
    // every board drawn is a legal position: replaying its columns never fails
    let last = boards(&text, 7, 6).pop().expect("a board");
    let discs = cells(&last)
        .iter()
        .flatten()
        .filter(|c| matches!(c, 'x' | 'o' | 'X' | 'O'))
        .count();
    assert_eq!(discs, 6, "{last}");
}
