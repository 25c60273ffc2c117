//! The subcommands as people run them: through the real binary's stdin, stdout, stderr and
//! exit status.

mod common;

use common::run_vier as vier;
use std::process::Output;

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn solve_prints_score_nodes_time_and_a_summary() {
    // first lines of Test_L3_R1 and Test_L2_R1, with their published scores
    let out = vier(
        &["solve"],
        "2252576253462244111563365343671351441 -1\n5554224333234511764415115 4\n",
    );
    assert!(out.status.success());
    let l = lines(&out);
    assert_eq!(l.len(), 2);
    let f: Vec<&str> = l[0].split_whitespace().collect();
    assert_eq!(f.len(), 4, "{}", l[0]);
    assert_eq!(f[0], "2252576253462244111563365343671351441");
    assert_eq!(f[1], "-1");
    // forced moves settle this end position statically: no node searched
    f[2].parse::<u64>().unwrap();
    f[3].parse::<u64>().unwrap();
    assert!(l[1].starts_with("5554224333234511764415115 4 "));
    let g: Vec<&str> = l[1].split_whitespace().collect();
    assert!(g[2].parse::<u64>().unwrap() > 0, "{}", l[1]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("positions 2, mismatches 0, errors 0"), "{err}");
    assert!(err.contains("mean time") && err.contains("mean nodes") && err.contains("nodes/s"));
    // the suite's build has the `stats` feature: the nodes of both positions, by discs
    let by_discs = err
        .lines()
        .find_map(|l| l.strip_prefix("nodes by discs: "))
        .unwrap_or_else(|| panic!("no counts by discs: {err}"));
    let counted: u64 = by_discs
        .split_whitespace()
        .map(|t| {
            let (discs, n) = t.split_once(':').unwrap();
            assert!(
                discs.parse::<u32>().unwrap() >= 25,
                "{t}: the roots have 25 and 37 discs"
            );
            n.parse::<u64>().unwrap()
        })
        .sum();
    let searched: u64 = l
        .iter()
        .map(|x| x.split_whitespace().nth(2).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(counted, searched, "{err}");
}

#[test]
fn mismatch_is_flagged_and_fails_the_run() {
    let out = vier(&["solve"], "2252576253462244111563365343671351441 3\n");
    assert_eq!(out.status.code(), Some(1));
    let l = lines(&out);
    assert!(l[0].contains("MISMATCH expected 3"), "{}", l[0]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("mismatches 1"));
}

#[test]
fn bad_lines_are_reported_by_number_and_the_run_goes_on() {
    let out = vier(&["solve"], "4444444\n44#\n\n6146 18\n9\n");
    assert!(out.status.success(), "errors are not mismatches");
    let l = lines(&out);
    assert_eq!(l.len(), 4, "{l:?}");
    assert!(
        l[0].starts_with("error: line 1:") && l[0].contains("full"),
        "{}",
        l[0]
    );
    assert!(
        l[1].starts_with("error: line 2:") && l[1].contains("'#'"),
        "{}",
        l[1]
    );
    assert!(l[2].starts_with("6146 18 "), "{}", l[2]);
    assert!(
        l[3].starts_with("error: line 5:") && l[3].contains("out of range"),
        "{}",
        l[3]
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("errors 3"));
}

#[test]
fn all_columns_and_weak_mode() {
    // on 4x4 every first move draws (sizes.md: 4x4 is a draw)
    let out = vier(&["solve", "--all", "--size", "4x4"], "-\n");
    assert!(out.status.success());
    let l = lines(&out);
    let f: Vec<&str> = l[0].split_whitespace().collect();
    assert_eq!(&f[..5], &["-", "0", "0", "0", "0"], "{}", l[0]);
    // a full column prints '-'; the published score of 6146 is 18: weak says 1
    let out = vier(&["solve", "--all"], "444444\n");
    let f: Vec<String> = lines(&out)[0]
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(f[4], "-", "column 4 is full: {f:?}");
    let out = vier(&["solve", "--weak"], "6146 18\n");
    assert!(out.status.success());
    assert!(lines(&out)[0].starts_with("6146 1 "));
}

#[test]
fn at_least_answers_on_the_right_side_of_pons_scores() {
    // Pons' middle-game positions with their published scores: each asked whether it is at
    // least its score, and at least one more, exactly and weakly (one run a question)
    let set: Vec<(String, i32)> = common::pons_set("Test_L2_R1")
        .into_iter()
        .take(12)
        .collect();
    for weak in [false, true] {
        let value = |s: i32| if weak { s.signum() } else { s };
        let mut asked: std::collections::BTreeMap<i32, Vec<(&str, i32)>> = Default::default();
        for (moves, score) in &set {
            let s = value(*score);
            for t in [s, s + 1] {
                asked.entry(t).or_default().push((moves, s));
            }
        }
        for (t, positions) in asked {
            let mut args = vec!["solve".to_string(), "--at-least".into(), t.to_string()];
            if weak {
                args.push("--weak".into());
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let input: String = positions.iter().map(|(m, _)| format!("{m}\n")).collect();
            let out = vier(&args, &input);
            assert!(out.status.success(), "{t}");
            let got = lines(&out);
            assert_eq!(got.len(), positions.len());
            for (line, (moves, s)) in got.iter().zip(&positions) {
                let said = if *s >= t {
                    format!(">={t}")
                } else {
                    format!("<={}", t - 1)
                };
                let f: Vec<&str> = line.split(' ').collect();
                assert_eq!((f[0], f[1]), (*moves, said.as_str()), "weak {weak}");
            }
        }
    }
    // an expected score on the other side of the bound is a mismatch; --all asks another thing
    let (moves, score) = &set[0];
    let ask = |expected: i32| {
        vier(
            &["solve", "--at-least", &(score + 1).to_string()],
            &format!("{moves} {expected}\n"),
        )
    };
    assert_eq!(
        ask(*score).status.code(),
        Some(0),
        "below the bound, as said"
    );
    let out = ask(score + 3);
    assert_eq!(out.status.code(), Some(1));
    assert!(lines(&out)[0].contains("MISMATCH"));
    let out = vier(&["solve", "--all", "--at-least", "0"], "4\n");
    assert!(!out.status.success());
}

#[test]
fn bench_signature_is_deterministic() {
    let a = vier(&["bench"], "");
    let b = vier(&["bench"], "");
    let last = |o: &Output| lines(o).last().cloned().unwrap();
    let n = |s: String| s.split_whitespace().next().unwrap().parse::<u64>().unwrap();
    let (la, lb) = (last(&a), last(&b));
    assert!(la.contains(" nodes ") && la.ends_with(" nps"), "{la}");
    assert_eq!(n(la), n(lb));
}

/// The signature covers both parts of the bench: the solver's exact solves and the searcher's
/// fixed-depth searches, one line each per position.
#[test]
fn bench_signs_solver_and_searcher() {
    let out = vier(&["bench"], "");
    let ls = lines(&out);
    let (signature, rows) = ls.split_last().expect("bench prints lines");
    let nodes = |l: &str| -> u64 {
        let f: Vec<&str> = l.split_whitespace().collect();
        let i = f.iter().position(|&w| w == "nodes").expect("a nodes field");
        f[i + 1].parse().expect("a node count")
    };
    let solves = rows.iter().filter(|l| l.contains(" score ")).count();
    let searches = rows.iter().filter(|l| l.contains(" bestmove ")).count();
    assert!(solves >= 10 && searches == solves, "{rows:?}");
    let sum: u64 = rows.iter().map(|l| nodes(l)).sum();
    let total: u64 = signature
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(sum, total, "the signature is the total of every line");
    assert!(rows
        .iter()
        .filter(|l| l.contains(" bestmove "))
        .any(|l| nodes(l) > 0));
}

/// `--hash` takes what the machine has and refuses more with the reason, before any work and
/// without a panic or an abort.
#[test]
fn hash_beyond_the_machine_is_refused() {
    let machine = vier::tt::machine_memory_mb().expect("the machine's memory");
    for cmd in [&["solve"][..], &["book", "verify", "no.book"][..]] {
        let too_much = (machine + 1).to_string();
        let args: Vec<&str> = cmd.iter().copied().chain(["--hash", &too_much]).collect();
        let out = vier(&args, "44\n");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("more than this machine's memory"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    // a size the machine has (taken whole before the first position)
    let out = vier(&["solve", "--hash", "256"], "4455\n");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(lines(&out)[0].starts_with("4455 "), "{:?}", lines(&out));
}

/// Runs vier with `args` and no input, killing it if it has not exited within a minute (a
/// command that hangs fails the test instead of the suite).
fn vier_bounded(args: &[&str]) -> Output {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_vier"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("vier runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().expect("wait").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("vier {args:?} hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// A FIFO given as a book to `vier book info` and `vier solve --book` is refused with a reason
/// and exit status 2, before it is opened (issue 60: both hung on the open).
#[cfg(unix)]
#[test]
fn a_fifo_as_a_book_is_refused_by_book_info_and_solve() {
    let (dir, fifo) = common::fifo("fifo-cli");
    let path = fifo.to_str().unwrap();
    for args in [&["book", "info", path][..], &["solve", "--book", path][..]] {
        let out = vier_bounded(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("not a regular file but a FIFO"),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--budget-ms` bounds each position: one not proven in time is printed as `-` with
/// `UNPROVEN`, counted in the summary, and the exit status is 3; the others are solved as
/// ever (issue 60: `vier solve` had no way to bound a position's time).
#[test]
fn solve_budget_ms_reports_a_position_not_proven_in_time() {
    // the empty 8x7 board: far from proven in 300 ms; 4455 at once
    let out = vier(
        &["solve", "--size", "8x7", "--budget-ms", "300"],
        "-\n4455\n",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    let l = lines(&out);
    assert!(
        l[0].starts_with("- - ") && l[0].ends_with(" UNPROVEN within 300 ms"),
        "{l:?}"
    );
    assert!(!l[1].contains("UNPROVEN"), "{l:?}");
    assert!(
        err.contains("positions 2, mismatches 0, unproven 1, errors 0"),
        "{err}"
    );
    // --all the same, with a `-` for every column
    let out = vier(
        &["solve", "--size", "8x7", "--all", "--budget-ms", "300"],
        "-\n",
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(
        lines(&out)[0].starts_with("- - - - - - - - - "),
        "{:?}",
        lines(&out)
    );
}

/// `--learnt 2`: after each position not proven within its nodes, what its search proved of
/// the positions 1 or 2 moves below it, each bound true by `vier solve --weak` of that position
/// (as `vier prove`'s jobs hand them back), and nothing after a position proven.
#[test]
fn solve_learnt_prints_true_bounds_below_a_position_not_proven() {
    let set = common::pons_set("Test_L1_R2");
    let input: String = set.iter().take(60).map(|(m, _)| format!("{m}\n")).collect();
    let args = [
        "solve",
        "--weak",
        "--no-book",
        "--hash",
        "16",
        "--budget-nodes",
        "8192",
    ];
    let out = vier(&[&args[..], &["--learnt", "2"]].concat(), &input);
    assert_eq!(out.status.code(), Some(3));
    let (mut above, mut learnt) = (None::<(String, bool)>, Vec::new());
    let mut deeper = 0;
    for l in lines(&out) {
        let w: Vec<&str> = l.split(' ').collect();
        if l.ends_with(" LEARNT") {
            let (parent, unproven) = above.clone().expect("a line before");
            assert!(unproven, "{l} after a proven {parent}");
            let below = w[0].strip_prefix(parent.as_str()).expect("below it").len();
            assert!(below >= 1, "{l} below {parent}");
            deeper += usize::from(below > 2);
            assert_eq!((w[2], w[3]), ("0", "0"), "{l}");
            learnt.push((w[0].to_string(), w[1].to_string()));
        } else {
            above = Some((w[0].to_string(), l.contains("UNPROVEN")));
        }
    }
    assert!(learnt.len() >= 20, "{} learnt", learnt.len());
    assert!(deeper >= 10, "{deeper} learnt deeper than 2 moves");
    let again: String = learnt.iter().map(|(m, _)| format!("{m}\n")).collect();
    let solved = lines(&vier(&args[..5], &again));
    for ((moves, bound), line) in learnt.iter().zip(&solved) {
        let v: i32 = line.split(' ').nth(1).unwrap().parse().unwrap();
        let holds = match (bound.strip_prefix(">="), bound.strip_prefix("<=")) {
            (Some(t), _) => v >= t.parse().unwrap(),
            (_, Some(u)) => v <= u.parse().unwrap(),
            _ => v == bound.parse::<i32>().unwrap(),
        };
        assert!(holds, "{moves}: {bound} learnt, {v} solved");
    }
    // the same run without --learnt prints a line a position
    let plain = vier(&args, &input);
    assert_eq!(lines(&plain).len(), 60);
}

/// What one run learnt is input for the next: `LEARNT` lines before a position seed its search,
/// which finds the same score; a learnt line that is not one is an error line, not a position.
#[test]
fn solve_starts_a_position_from_the_learnt_lines_before_it() {
    let set = common::pons_set("Test_L1_R2");
    let args = ["solve", "--weak", "--no-book", "--hash", "16"];
    let (mut plain, mut seeded, mut cases) = (0u64, 0u64, 0);
    for (moves, score) in set.iter().take(40) {
        let cut = vier(
            &[&args[..], &["--budget-nodes", "8192", "--learnt", "2"]].concat(),
            &format!("{moves}\n"),
        );
        let learnt: String = lines(&cut)
            .iter()
            .filter(|l| l.ends_with(" LEARNT"))
            .map(|l| format!("{l}\n"))
            .collect();
        if learnt.is_empty() {
            continue;
        }
        cases += 1;
        for (input, nodes) in [
            (format!("{moves}\n"), &mut plain),
            (format!("{learnt}{moves}\n"), &mut seeded),
        ] {
            let out = lines(&vier(&args, &input));
            assert_eq!(out.len(), 1, "{input}: {out:?}");
            let w: Vec<&str> = out[0].split(' ').collect();
            assert_eq!(
                (w[0], w[1]),
                (moves.as_str(), score.signum().to_string().as_str())
            );
            *nodes += w[2].parse::<u64>().unwrap();
        }
    }
    assert!(cases >= 10, "{cases} positions learnt something");
    assert!(seeded < plain, "{seeded} nodes seeded, {plain} not");
    for bad in [
        "4455 >=2 0 0 LEARNT",
        "4455 >=1 7 0 LEARNT",
        "- >=1 0 0 LEARNT",
        "4444444 >=1 0 0 LEARNT",
    ] {
        let out = lines(&vier(&args, &format!("{bad}\n4455\n")));
        assert_eq!(out.len(), 2, "{bad}: {out:?}");
        assert!(out[0].starts_with("error: line 1: "), "{bad}: {out:?}");
        assert!(out[1].starts_with("4455 "), "{bad}: {out:?}");
    }
}

/// Positions that share positions below them (the children of one) take fewer nodes in a run
/// that keeps its table from one to the next (`--keep-table`, as `vier prove`'s jobs of several
/// positions run), with the same scores, from which each parent's published score follows.
#[test]
fn solve_keeping_the_table_scores_siblings_the_same_with_fewer_nodes() {
    use vier::board::{AnyPosition, Size};
    let size: Size = "7x6".parse().unwrap();
    let (mut fresh, mut kept, mut parents) = (0u64, 0u64, 0);
    for (moves, score) in common::pons_set("Test_L2_R2").iter().take(20) {
        let children: Vec<String> = (1..=7)
            .map(|c| format!("{moves}{c}"))
            .filter(|m| AnyPosition::from_moves(size, m).is_ok())
            .collect();
        let over = |m: &String| AnyPosition::from_moves(size, m).unwrap().is_game_over();
        if children.iter().any(over) {
            // a move that wins at once: the children say nothing of the parent's score
            continue;
        }
        parents += 1;
        let input: String = children.iter().map(|c| format!("{c}\n")).collect();
        let mut scores = Vec::new();
        for (extra, nodes) in [(&[][..], &mut fresh), (&["--keep-table"][..], &mut kept)] {
            let out = lines(&vier(
                &[&["solve", "--hash", "16"][..], extra].concat(),
                &input,
            ));
            assert_eq!(out.len(), children.len(), "{moves}: {out:?}");
            let mut s = Vec::new();
            for (line, child) in out.iter().zip(&children) {
                let w: Vec<&str> = line.split(' ').collect();
                assert_eq!(w[0], child, "{line}");
                s.push(w[1].parse::<i32>().unwrap());
                *nodes += w[2].parse::<u64>().unwrap();
            }
            scores.push(s);
        }
        assert_eq!(scores[0], scores[1], "{moves}: fresh tables, then one kept");
        let best = scores[1].iter().map(|s| -s).max().unwrap();
        assert_eq!(
            best, *score,
            "{moves}: the best child is the published score"
        );
    }
    assert!(parents >= 10, "{parents} parents");
    assert!(kept < fresh, "{kept} nodes keeping the table, {fresh} not");
}

/// Runs that name one table file share its table, one after the other as at once: a second
/// run of Pons' positions finds what the first proved (the published scores again, with fewer
/// nodes), and a run on another board is refused with the file left to the first.
#[test]
fn solve_runs_naming_one_table_file_share_what_they_proved() {
    let path = std::env::temp_dir().join(format!("vier-cli-table-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let file = path.to_str().unwrap();
    let set: Vec<_> = common::pons_set("Test_L2_R2")
        .into_iter()
        .take(20)
        .collect();
    let input: String = set.iter().map(|(m, _)| format!("{m}\n")).collect();
    let mut nodes = Vec::new();
    for _ in 0..2 {
        let out = lines(&vier(
            &["solve", "--hash", "8", "--table-file", file],
            &input,
        ));
        assert_eq!(out.len(), set.len(), "{out:?}");
        let mut n = 0u64;
        for (line, (moves, score)) in out.iter().zip(&set) {
            let w: Vec<&str> = line.split(' ').collect();
            assert_eq!(
                (w[0], w[1]),
                (moves.as_str(), score.to_string().as_str()),
                "{line}"
            );
            n += w[2].parse::<u64>().unwrap();
        }
        nodes.push(n);
    }
    assert!(
        nodes[1] < nodes[0] / 2,
        "{nodes:?}: the second run starts from the first's table"
    );
    let before = std::fs::read(&path).unwrap();
    let out = vier(
        &[
            "solve",
            "--size",
            "6x5",
            "--hash",
            "8",
            "--table-file",
            file,
        ],
        "44\n",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not the table asked for"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let _ = std::fs::remove_file(&path);
}

/// A position that takes more than a second shows its progress on stderr: plain lines when
/// stderr is no terminal, with the time, the nodes, the nodes per second and the window of
/// scores still open (issue 60: a long proof was silent, like a hang).
#[test]
fn solve_shows_the_progress_of_a_long_position_on_stderr() {
    let out = vier(
        &["solve", "--size", "8x7", "--weak", "--budget-ms", "2500"],
        "-\n",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let progress: Vec<&str> = err.lines().filter(|l| l.starts_with("-: ")).collect();
    assert!(!progress.is_empty(), "{err}");
    for line in progress {
        // "-: 1.0 s, 1.2M nodes, 1.2M nodes/s, proving -1..1"
        let f: Vec<&str> = line.split(", ").collect();
        assert_eq!(f.len(), 4, "{line}");
        assert!(f[0].ends_with(" s") && f[1].ends_with(" nodes"), "{line}");
        assert!(
            f[2].ends_with(" nodes/s") && f[3].starts_with("proving "),
            "{line}"
        );
        assert!(!line.contains('\r'), "no rewriting on a pipe: {line:?}");
    }
    // a position done within the second shows nothing
    let out = vier(&["solve"], "4455\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.lines().any(|l| l.starts_with("4455: ")), "{err}");
}

#[test]
fn play_refuses_a_movetime_of_zero_as_its_t_command_does() {
    let out = vier(&["play", "--movetime", "0"], "q\n");
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--movetime") && err.contains("1..="), "{err}");
    assert!(out.stdout.is_empty(), "no game started");
}
