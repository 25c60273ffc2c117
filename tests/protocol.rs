//! End-to-end tests of the protocol through pipes to the real binary.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use vier::board::Position;
use vier::score::Score;
use vier::solver::Solver;

const TIMEOUT: Duration = Duration::from_secs(20);

struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        Engine::start_with_env(&[])
    }

    fn start_with_env(env: &[(&str, &str)]) -> Engine {
        Engine::spawn(env, None)
    }

    /// An engine whose working directory is `dir` (relative book paths are read from there).
    fn start_in(dir: &Path) -> Engine {
        Engine::spawn(&[], Some(dir))
    }

    fn spawn(env: &[(&str, &str)], dir: Option<&Path>) -> Engine {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vier"));
        if let Some(d) = dir {
            cmd.current_dir(d);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start vier");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                }
            }
        });
        let stdin = child.stdin.take();
        Engine {
            child,
            stdin,
            lines: rx,
        }
    }

    fn send(&mut self, s: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(s.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn next_line(&self, deadline: Instant) -> Option<String> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(l) => Some(l),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Lines up to and including the first one satisfying `pred`; panics on timeout.
    fn until(&self, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + TIMEOUT;
        let mut got = Vec::new();
        loop {
            match self.next_line(deadline) {
                Some(l) => {
                    let done = pred(&l);
                    got.push(l);
                    if done {
                        return got;
                    }
                }
                None => panic!("timed out; got so far: {got:#?}"),
            }
        }
    }

    fn until_prefix(&self, prefix: &str) -> Vec<String> {
        self.until(|l| l.starts_with(prefix))
    }

    /// `isready` round trip: everything printed before `readyok`.
    fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut v = self.until(|l| l == "readyok");
        v.pop();
        v
    }

    fn search(&mut self, position: &str, go: &str) -> Vec<String> {
        self.send(position);
        self.send(go);
        self.until_prefix("bestmove")
    }

    fn close_and_wait(mut self) -> (Vec<String>, Option<i32>) {
        self.stdin = None;
        let deadline = Instant::now() + TIMEOUT;
        let mut rest = Vec::new();
        while let Some(l) = self.next_line(deadline) {
            rest.push(l);
        }
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("engine did not exit; output {rest:#?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        (rest, status)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn bestmove(lines: &[String]) -> &str {
    lines
        .last()
        .and_then(|l| l.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove at the end of {lines:#?}"))
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut it = line.split_whitespace();
    while let Some(t) = it.next() {
        if t == key {
            return it.next();
        }
    }
    None
}

fn last_info(lines: &[String]) -> &str {
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap_or_else(|| panic!("no info in {lines:#?}"))
}

#[test]
fn handshake() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until(|l| l == "uciok");
    assert!(lines[0].starts_with("id name vier "), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author")));
    for opt in [
        "Hash",
        "Clear Hash",
        "MoveOverhead",
        "MultiPV",
        "UCI_ShowWDL",
        "Width",
        "Height",
        "UCI_Variant",
        "OwnBook",
        "BookFile",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {opt} type"))),
            "{opt} missing: {lines:?}"
        );
    }
    assert!(lines.contains(&"option name OwnBook type check default true".to_string()));
    assert!(lines.contains(&"option name BookFile type string default <empty>".to_string()));
    assert!(e.sync().is_empty());
    e.send("ugi");
    e.until(|l| l == "ugiok");
    e.send("quit");
    let (_, status) = e.close_and_wait();
    assert_eq!(status, Some(0));
}

#[test]
fn isready_mid_search_and_stop_gives_one_bestmove() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    // the search is under way once it has reported a depth
    let mut before = e.until_prefix("info depth");
    before.extend(e.sync());
    assert!(
        !before.iter().any(|l| l.starts_with("bestmove")),
        "{before:?}"
    );
    // `go infinite` answers only after `stop` (the timeout of `until` only guards a hang)
    e.send("stop");
    let lines = e.until_prefix("bestmove");
    assert!(
        lines[lines.len() - 2].starts_with("info depth"),
        "{lines:?}"
    );
    let after = e.sync();
    assert!(
        !after.iter().any(|l| l.starts_with("bestmove")),
        "{after:?}"
    );
    // stop when idle is ignored
    e.send("stop");
    assert!(e.sync().is_empty());
}

#[test]
fn thousand_go_stop_cycles() {
    let mut e = Engine::start();
    e.send("position startpos moves 4453");
    let gos = [
        "go infinite",
        "go depth 30",
        "go movetime 1000",
        "go nodes 100000000",
    ];
    let mut batch = String::new();
    for i in 0..1000 {
        batch += gos[i % gos.len()];
        batch += "\nstop\n";
    }
    e.stdin
        .as_mut()
        .unwrap()
        .write_all(batch.as_bytes())
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(40);
    let mut count = 0;
    while count < 1000 {
        let l = e
            .next_line(deadline)
            .unwrap_or_else(|| panic!("deadlock? {count} bestmoves"));
        if l.starts_with("bestmove") {
            assert_ne!(l, "bestmove (none)");
            count += 1;
        }
    }
    let rest = e.sync();
    assert!(!rest.iter().any(|l| l.starts_with("bestmove")), "{rest:?}");
}

#[test]
fn movetime_is_answered() {
    let mut e = Engine::start();
    // answered without a `stop`: the movetime ends the search
    let lines = e.search("position startpos moves 44", "go movetime 100");
    let mv = bestmove(&lines);
    assert!(["1", "2", "3", "4", "5", "6", "7"].contains(&mv), "{mv}");
    // a clock, from both sides' view
    let lines = e.search(
        "position startpos moves 4",
        "go wtime 1000 btime 1000 winc 10 binc 10",
    );
    bestmove(&lines);
    let lines = e.search("position startpos", "go wtime -5 btime -5");
    bestmove(&lines);
}

#[test]
fn mate_scores() {
    let mut e = Engine::start();
    // x plays 5 and threatens both 2 and 6: a win with its second disc
    let lines = e.search("position startpos moves 3141", "go depth 6");
    assert_eq!(bestmove(&lines), "5");
    assert_eq!(field(last_info(&lines), "mate"), Some("2"), "{lines:?}");
    // go mate ends by itself
    let lines = e.search("position startpos moves 3141", "go mate 2");
    assert_eq!(bestmove(&lines), "5");
    assert_eq!(field(last_info(&lines), "mate"), Some("2"), "{lines:?}");
    let lines = e.search("position startpos moves 31415", "go depth 6");
    assert_eq!(field(last_info(&lines), "mate"), Some("-1"), "{lines:?}");
    // a solved endgame: Pons' Test_L3_R1 says 1 for the side to move (x, 34 discs), i.e. a
    // win with the solver's score 1 = the last possible disc: 22 - 1 = 21st disc of x, x has 17
    let lines = e.search(
        "position startpos moves 7422341735647741166133573473242566",
        "go",
    );
    assert_eq!(field(last_info(&lines), "mate"), Some("4"), "{lines:?}");
}

#[test]
fn finished_game_has_no_bestmove() {
    let mut e = Engine::start();
    let lines = e.search("position startpos moves 4141414", "go depth 5");
    assert_eq!(bestmove(&lines), "(none)");
    // under infinite the answer waits for stop
    e.send("go infinite");
    assert!(e.sync().is_empty());
    e.send("stop");
    let lines = e.until_prefix("bestmove");
    assert_eq!(bestmove(&lines), "(none)");
    // a full board is a draw
    let full = "position fen oxoxoxo/oxoxoxo/xoxoxox/xoxoxox/oxoxoxo/xoxoxox x";
    let lines = e.search(full, "go depth 1");
    assert_eq!(bestmove(&lines), "(none)");
    assert!(last_info(&lines).contains("score cp 0"), "{lines:?}");
}

#[test]
fn bad_input_keeps_the_position() {
    let mut e = Engine::start();
    e.send("position startpos moves 44");
    for bad in [
        "position startpos moves 4444444",
        "position startpos moves 8",
        "position startpos moves 0",
        "position startpos moves 4a",
        "position startpos moves 4 1 4 1 4 1 4 1",
        "position fen 7/7 x",
        "position fen 8/7/7/7/7/7 x",
        "position fen 7/7/7/7/7/x6 x",
        "position fen 7/7/7/7/x6/7 o",
        "position startpos moves P@d2",
        "position",
        "go movetime -x",
        "go depth",
        "setoption name Hash value 0",
        "setoption name Hash value 33554433",
        "setoption name Width value 99",
        "setoption name UCI_Variant value chess",
        "setoption name NoSuchOption value 1",
        "setoption name OwnBook value maybe",
        "setoption name BookFile value no/such/file.book",
    ] {
        e.send(bad);
        let out = e.sync();
        assert!(
            out.len() == 1 && out[0].starts_with("info string error: "),
            "{bad}: {out:?}"
        );
    }
    // a line over 1 MiB
    let long = "x".repeat((1 << 20) + 100);
    e.send(&long);
    let out = e.sync();
    assert!(out[0].contains("discarded"), "{out:?}");
    // binary junk and odd whitespace
    e.send("\u{0}\u{7f}\t  \u{fffd} go \t nodes");
    e.sync();
    e.send("d");
    let out = e.sync();
    assert!(out.contains(&"moves 44".to_string()), "{out:?}");
    // still plays
    let lines = e.search("position startpos moves 4", "go depth 3");
    bestmove(&lines);
}

#[test]
fn go_values_out_of_range_get_an_error_and_change_nothing() {
    // issue 68: these were taken silently (a movetime of 0 or -5 searched 1 ms, an overflowing
    // one forever)
    let mut e = Engine::start();
    e.send("position startpos moves 44");
    for (bad, said) in [
        ("go movetime -5", "movetime -5 is out of range: at least 1"),
        ("go movetime 0", "movetime 0 is out of range: at least 1"),
        (
            "go movetime 18446744073709551616",
            "movetime 18446744073709551616 is out of range: at most 9223372036854775807",
        ),
        (
            "go wtime 18446744073709551616 btime 1000",
            "wtime 18446744073709551616 is out of range: at most 9223372036854775807",
        ),
        (
            "go wtime 1000 btime 1000 winc -10",
            "winc -10 is out of range: at least 0",
        ),
        ("go nodes 0", "nodes 0 is out of range: at least 1"),
        (
            "go nodes 18446744073709551616",
            "nodes 18446744073709551616 is out of range: at most 18446744073709551615",
        ),
        ("go depth 0", "depth 0 is out of range: at least 1"),
    ] {
        e.send(bad);
        let out = e.sync();
        assert_eq!(out, [format!("info string error: {said}")], "{bad}");
    }
    // ... also during a search, which goes on (a good `go` would have stopped it)
    e.send("go infinite");
    e.send("go movetime 0");
    let out = e.sync();
    assert!(
        out.iter().all(|l| !l.starts_with("bestmove")),
        "the bad go stopped the search: {out:?}"
    );
    assert!(
        out.contains(&"info string error: movetime 0 is out of range: at least 1".to_string()),
        "{out:?}"
    );
    e.send("stop");
    let lines = e.until_prefix("bestmove");
    bestmove(&lines);
    // the position is still the one set
    e.send("d");
    let out = e.sync();
    assert!(out.contains(&"moves 44".to_string()), "{out:?}");
}

#[test]
fn cutechess_round_trip() {
    let mut e = Engine::start();
    e.send("setoption name UCI_Variant value cfour");
    let fen = "7/7/7/7/7/7[PPPPPPPPPPPPPPPPPPPPPppppppppppppppppppppp] w - - 0 1";
    let mut moves: Vec<String> = Vec::new();
    // play a few moves against itself, feeding its drops back
    for _ in 0..6 {
        let pos = if moves.is_empty() {
            format!("position fen {fen}")
        } else {
            format!("position fen {fen} moves {}", moves.join(" "))
        };
        let lines = e.search(&pos, "go depth 4");
        let mv = bestmove(&lines).to_string();
        assert!(mv.starts_with("P@"), "{mv}");
        let pv = field(last_info(&lines), "pv").unwrap();
        assert!(pv.starts_with("P@"), "{lines:?}");
        moves.push(mv);
    }
    e.send("d");
    let out = e.sync();
    let fen_line = out.iter().find(|l| l.starts_with("fen ")).unwrap();
    // the printed FEN reads back as the same board
    e.send(&format!("position {fen_line}"));
    e.send("d");
    let again = e.sync();
    assert_eq!(out, again);
    // digits are still accepted in cfour mode
    e.send("position startpos moves 44");
    e.send("d");
    assert!(e.sync().contains(&"moves 44".to_string()));
}

#[test]
fn depth_search_node_counts_repeat() {
    let mut e = Engine::start();
    let mut nodes = Vec::new();
    for _ in 0..2 {
        e.send("ucinewgame");
        let lines = e.search("position startpos moves 4453", "go depth 10");
        nodes.push(field(last_info(&lines), "nodes").unwrap().to_string());
    }
    assert_eq!(nodes[0], nodes[1]);
}

#[test]
fn options_wait_for_the_search() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    e.send("setoption name Width value 5");
    e.send("d");
    let out = e.sync();
    assert!(out.iter().any(|l| l == "board 7/7/7/7/7/7 x"), "{out:?}");
    e.send("stop");
    e.until_prefix("bestmove");
    e.send("d");
    let out = e.sync();
    assert!(out.iter().any(|l| l == "board 5/5/5/5/5/5 x"), "{out:?}");
}

#[test]
fn go_during_search_answers_both() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    e.send("go depth 3");
    let first = e.until_prefix("bestmove");
    let second = e.until_prefix("bestmove");
    bestmove(&first);
    bestmove(&second);
}

#[test]
fn end_of_input_finishes_the_search() {
    let mut e = Engine::start();
    e.send("position startpos moves 44");
    e.send("go depth 6");
    let (rest, status) = e.close_and_wait();
    assert_eq!(status, Some(0));
    assert!(
        rest.last().is_some_and(|l| l.starts_with("bestmove")),
        "{rest:?}"
    );
    // infinite is stopped at the end of input
    let mut e = Engine::start();
    e.send("go infinite");
    let (rest, status) = e.close_and_wait();
    assert_eq!(status, Some(0));
    assert_eq!(rest.iter().filter(|l| l.starts_with("bestmove")).count(), 1);
}

/// Closes the input and returns how long the engine took to exit after that, its last lines
/// and its status (the engine's own TIMEOUT still guards against a hang).
fn time_to_exit(e: Engine) -> (Duration, Vec<String>, Option<i32>) {
    let t = Instant::now();
    let (rest, status) = e.close_and_wait();
    (t.elapsed(), rest, status)
}

#[test]
fn end_of_input_stops_a_long_movetime_search_at_once() {
    let mut e = Engine::start();
    e.send("setoption name OwnBook value false");
    e.send("position startpos moves 1");
    e.send("go movetime 100000");
    e.until_prefix("info depth");
    let (took, rest, status) = time_to_exit(e);
    assert_eq!(status, Some(0));
    assert!(bestmove(&rest).len() == 1, "{rest:?}");
    // a search that ran on would take 100 s; the bound is wide for a loaded machine
    assert!(took < Duration::from_secs(10), "exited after {took:?}");
}

#[test]
fn end_of_input_stops_a_ponder_search_and_a_clock_search() {
    for go in ["go ponder movetime 100000", "go wtime 600000 btime 600000"] {
        let mut e = Engine::start();
        e.send("setoption name OwnBook value false");
        e.send("position startpos moves 1");
        e.send(go);
        e.until_prefix("info depth");
        let (took, rest, status) = time_to_exit(e);
        assert_eq!(status, Some(0), "{go}");
        bestmove(&rest);
        assert!(
            took < Duration::from_secs(10),
            "{go}: exited after {took:?}"
        );
    }
}

/// `go perft 40` from the empty board would count for years: only an interruption ends it.
const ENDLESS_PERFT: &str = "go perft 40";

#[test]
fn perft_answers_isready_and_stops_with_the_count_so_far() {
    let mut e = Engine::start();
    e.send(ENDLESS_PERFT);
    let before = e.sync();
    assert!(before.is_empty(), "{before:?}");
    e.send("stop");
    let out = e.until_prefix("info string perft");
    let line = out.last().unwrap();
    assert!(line.ends_with(" stopped"), "{line}");
    assert_eq!(field(line, "depth"), Some("40"), "{line}");
    // the count so far: on a busy machine `stop` may come before the first leaf is counted, so
    // only its form is checked
    assert!(
        field(line, "nodes").unwrap().parse::<u64>().is_ok(),
        "{line}"
    );
    // the engine goes on as before: a finished perft is not marked stopped
    e.send("go perft 4");
    let done = e.until_prefix("info string perft");
    assert!(
        matches(
            "info string perft depth 4 nodes 2401 time {int}",
            done.last().unwrap()
        ),
        "{done:?}"
    );
}

#[test]
fn quit_and_end_of_input_end_a_perft() {
    let mut e = Engine::start();
    e.send(ENDLESS_PERFT);
    e.send("quit");
    let (_, rest, status) = time_to_exit(e);
    assert_eq!(status, Some(0), "{rest:?}");
    assert!(
        rest.last().is_some_and(|l| l.ends_with(" stopped")),
        "{rest:?}"
    );

    let mut e = Engine::start();
    e.send(ENDLESS_PERFT);
    e.sync();
    let (_, rest, status) = time_to_exit(e);
    assert_eq!(status, Some(0), "{rest:?}");
    assert!(
        rest.last().is_some_and(|l| l.ends_with(" stopped")),
        "{rest:?}"
    );
}

#[test]
fn perft_past_the_empty_cells_is_refused() {
    let mut e = Engine::start();
    e.send("go perft 99999999999");
    e.send("go perft 43");
    e.send("position startpos moves 4444");
    e.send("go perft 39");
    let out = e.sync();
    assert_eq!(
        out,
        [
            // past what the parser takes at all, then past the board
            "info string error: perft 99999999999 is out of range: at most 4294967295",
            "info string error: perft depth too large: the board has 42 empty cells",
            "info string error: perft depth too large: the board has 38 empty cells",
        ]
    );
}

#[test]
fn searcher_panic_exits_nonzero() {
    let mut e = Engine::start_with_env(&[("VIER_TEST_SEARCHER_PANIC", "1")]);
    e.send("go depth 2");
    let (rest, status) = e.close_and_wait();
    assert_eq!(status, Some(101), "{rest:?}");
    assert!(rest.iter().any(|l| l.contains("panicked")), "{rest:?}");
}

// ---- protocol.md's examples ----

/// Matches `line` against a pattern where `{int}` is an integer and `{any}` any text.
fn matches(pattern: &str, line: &str) -> bool {
    if let Some(rest) = pattern.strip_prefix("{any}") {
        return (0..=line.len())
            .filter(|&i| line.is_char_boundary(i))
            .any(|i| matches(rest, &line[i..]));
    }
    if let Some(rest) = pattern.strip_prefix("{int}") {
        let digits = line.strip_prefix('-').unwrap_or(line);
        let n = digits.bytes().take_while(u8::is_ascii_digit).count();
        let sign = line.len() - digits.len();
        return (1..=n).any(|k| matches(rest, &line[sign + k..]));
    }
    match (pattern.chars().next(), line.chars().next()) {
        (None, None) => true,
        (Some(p), Some(l)) if p == l => matches(&pattern[p.len_utf8()..], &line[l.len_utf8()..]),
        _ => false,
    }
}

#[test]
fn matcher() {
    assert!(matches("a {int} b", "a -12 b"));
    assert!(!matches("a {int} b", "a x b"));
    assert!(matches("x {any}", "x "));
    assert!(matches("{any} y {int}", "a y b y 3"));
}

/// Runs one `session` block: `>` lines are sent, `<` lines expected in order; `< ...` skips
/// output until the rest of the run of expected lines matches.
fn replay(block: &[&str]) {
    // in the directory of the test books, which the examples name relative to it
    let mut e = Engine::start_in(books());
    let mut i = 0;
    while i < block.len() {
        let line = block[i];
        if let Some(cmd) = line.strip_prefix("> ") {
            e.send(cmd);
            i += 1;
            continue;
        }
        // a run of expected lines
        let start = i;
        while i < block.len() && block[i].starts_with('<') {
            i += 1;
        }
        let run: Vec<&str> = block[start..i]
            .iter()
            .map(|l| l.strip_prefix("< ").unwrap_or(l.trim_start_matches('<')))
            .collect();
        let deadline = Instant::now() + TIMEOUT;
        let mut k = 0;
        let mut anchor: Option<usize> = None; // index after the last `...`
        let mut seen = Vec::new();
        while k < run.len() {
            if run[k] == "..." {
                assert!(
                    k + 1 < run.len(),
                    "`< ...` must be followed by an expected line"
                );
                k += 1;
                anchor = Some(k);
                continue;
            }
            let l = e
                .next_line(deadline)
                .unwrap_or_else(|| panic!("timed out waiting for {:?}; got {seen:#?}", run[k]));
            seen.push(l.clone());
            if matches(run[k], &l) {
                k += 1;
            } else if let Some(a) = anchor {
                // start again after the `...`, with this line as the first candidate
                k = a;
                if matches(run[k], &l) {
                    k += 1;
                }
            } else {
                panic!("expected {:?}, got {l:?}; block {block:#?}", run[k]);
            }
        }
    }
    // the block may have quit already: a closed pipe is fine here
    if let Some(stdin) = e.stdin.as_mut() {
        let _ = stdin.write_all(b"quit\n");
    }
}

#[test]
fn protocol_md_examples() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protocol.md"))
        .expect("protocol.md");
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim() == "```session" => current = Some(Vec::new()),
            Some(b) if line.trim() == "```" => {
                blocks.push(std::mem::take(b));
                current = None;
            }
            Some(b) => b.push(line),
            None => {}
        }
    }
    assert!(blocks.len() >= 5, "found {} session blocks", blocks.len());
    for b in &blocks {
        replay(b);
    }
}

#[test]
fn ponder_waits_for_ponderhit() {
    let mut e = Engine::start();
    // without the book the search goes on deepening, so it reports how long it has run
    e.send("setoption name OwnBook value false");
    e.send("position startpos moves 44");
    e.send("go ponder movetime 100");
    // past its movetime by its own report, and still no bestmove before `ponderhit`
    let mut out = e.until(|l| {
        l.starts_with("info depth")
            && field(l, "time").and_then(|t| t.parse::<u64>().ok()) > Some(100)
    });
    out.extend(e.sync());
    assert!(!out.iter().any(|l| l.starts_with("bestmove")), "{out:?}");
    e.send("ponderhit");
    let lines = e.until_prefix("bestmove");
    bestmove(&lines);
    // ponderhit when idle is ignored
    e.send("ponderhit");
    assert!(e.sync().is_empty());
}

#[test]
fn searchmoves_and_multipv() {
    let mut e = Engine::start();
    let lines = e.search("position startpos", "go depth 4 searchmoves 1 P@g1");
    let mv = bestmove(&lines).to_string();
    assert!(mv == "1" || mv == "7", "{mv}");
    // with the book, every line is an exact score at once (here all from the book)
    e.send("setoption name MultiPV value 3");
    let lines = e.search("position startpos moves 44", "go depth 5");
    for k in 1..=3 {
        assert!(
            lines
                .iter()
                .any(|l| l.contains(&format!(" multipv {k} score mate ")) && l.contains(" tbhits ")),
            "{lines:#?}"
        );
    }
    // the search's own lines, without the book
    e.send("setoption name OwnBook value false");
    let lines = e.search("position startpos moves 44", "go depth 5");
    let finals: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth 5 "))
        .collect();
    for k in 1..=3 {
        assert!(
            finals.iter().any(|l| l.contains(&format!(" multipv {k} "))),
            "{lines:#?}"
        );
    }
    // more lines than legal moves: one per legal move (three columns left here)
    e.send("setoption name MultiPV value 9");
    let lines = e.search(
        "position fen 3xoxo/oxoxoxo/xoxoxox/xoxoxox/oxoxoxo/xoxoxox o",
        "go depth 2",
    );
    assert!(
        lines.iter().any(|l| l.contains(" multipv 3 ")),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains(" multipv 4 ")),
        "{lines:#?}"
    );
    bestmove(&lines);
}

// ---- the opening book: OwnBook, BookFile, tbhits ----

/// A directory of book files made once per run with the real binary's `book build`: `5x4.book`
/// (every 5x4 position with up to 8 discs; game-theoretic facts, so nothing here depends on the
/// book built into the binary) and damaged copies of it.
fn books() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("protocol-books-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a directory for the test books");
        let good = dir.join("5x4.book");
        let out = common::run_vier(
            &[
                "book",
                "build",
                "--size",
                "5x4",
                "--depth",
                "8",
                "--threads",
                "1",
                "--hash",
                "16",
                "--out",
                good.to_str().expect("a UTF-8 temp path"),
            ],
            "",
        );
        assert!(
            out.status.success(),
            "vier book build failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(&good).expect("the built book");
        assert!(bytes.len() > 1000, "{} bytes", bytes.len());
        let write = |name: &str, b: &[u8]| std::fs::write(dir.join(name), b).expect("write");
        write("truncated.book", &bytes[..bytes.len() / 2]);
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1; // the last entry's score: the checksum no longer matches
        write("checksum.book", &flipped);
        let mut longer = bytes.clone();
        longer.extend_from_slice(b"junk");
        write("trailing.book", &longer);
        // random bytes (xorshift), as many as the real book
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let random: Vec<u8> = (0..bytes.len())
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        write("random.book", &random);
        dir
    })
}

fn book_path(name: &str) -> String {
    books().join(name).to_str().expect("UTF-8").to_string()
}

/// The exact score of the 5x4 position after `moves` as the protocol writes it (`mate N`,
/// `mate -N`, or `cp 0` for a draw), from the solver without any book.
fn exact_5x4(moves: &str) -> String {
    let p = Position::<5, 4>::from_moves(moves).unwrap();
    let s = Solver::new(16).solve(&p).unwrap();
    match Score::from_exact(20, p.moves() as i32, s) {
        Score::Win(n) => format!("mate {n}"),
        Score::Loss(n) => format!("mate -{n}"),
        Score::Draw => "cp 0".into(),
        Score::Cp(_) => unreachable!("a solved score"),
    }
}

/// An engine on the 5x4 board with `UCI_ShowWDL` (a proven draw shows `wdl 0 1000 0`).
fn engine_5x4() -> Engine {
    let mut e = Engine::start();
    e.send("setoption name Width value 5");
    e.send("setoption name Height value 4");
    e.send("setoption name UCI_ShowWDL value true");
    assert!(e.sync().is_empty());
    e
}

/// Sets `BookFile` and returns what the engine printed about it (one line expected).
fn set_book_file(e: &mut Engine, value: &str) -> String {
    e.send(&format!("setoption name BookFile value {value}"));
    let out = e.sync();
    assert_eq!(out.len(), 1, "BookFile {value}: {out:?}");
    out[0].clone()
}

fn tbhits(line: &str) -> Option<u64> {
    field(line, "tbhits").map(|n| n.parse().expect("tbhits is a number"))
}

/// The score of an `info` line: `cp X` or `mate N`.
fn score(line: &str) -> String {
    let mut it = line
        .split_whitespace()
        .skip_while(|&t| t != "score")
        .skip(1);
    format!("{} {}", it.next().unwrap(), it.next().unwrap())
}

/// A FIFO named as a book: the open of one with no writer blocks, so it is refused before it
/// is opened, with a reason; `isready` and `quit` are answered (issue 60; before, the engine
/// hung and had to be killed).
#[cfg(unix)]
#[test]
fn a_fifo_as_book_file_is_refused_and_isready_and_quit_are_answered() {
    let (dir, fifo) = common::fifo("fifo-book");
    let mut e = Engine::start();
    e.send(&format!("setoption name BookFile value {}", fifo.display()));
    let out = e.sync();
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(
        out[0].starts_with("info string error: book: ") && out[0].contains("a FIFO"),
        "{out:?}"
    );
    // a directory and a device the same
    for (path, kind) in [
        (dir.display().to_string(), "a directory"),
        ("/dev/zero".into(), "a device"),
    ] {
        let line = set_book_file(&mut e, &path);
        assert!(
            line.starts_with("info string error: book: ") && line.contains(kind),
            "{line}"
        );
    }
    e.send("quit");
    let (_, status) = e.close_and_wait();
    assert_eq!(status, Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn book_file_answers_covered_positions_at_once() {
    let mut e = engine_5x4();
    let good = book_path("5x4.book");
    let loaded = set_book_file(&mut e, &good);
    let prefix = format!("info string book {good}: 5x4, depth 8, ");
    let count = loaded
        .strip_prefix(&prefix)
        .and_then(|r| r.strip_suffix(" positions"))
        .unwrap_or_else(|| panic!("{loaded}"));
    assert!(count.parse::<u64>().unwrap() > 1000, "{loaded}");
    // a win, a draw and a loss for the side to move, all within the book's 8 discs
    for moves in ["1", "13", "12", "3332", "12121"] {
        let want = exact_5x4(moves);
        // a search would use the whole minute, past the hang guard of `until`; the book
        // answers at depth 1, with tbhits
        let lines = e.search(
            &format!("position startpos moves {moves}"),
            "go movetime 60000",
        );
        let last = last_info(&lines);
        assert_eq!(field(last, "depth"), Some("1"), "{moves}: {lines:#?}");
        assert!(tbhits(last).is_some_and(|n| n > 0), "{moves}: {lines:#?}");
        assert_eq!(score(last), want, "{moves}: {lines:#?}");
        if want == "cp 0" {
            assert!(last.contains(" wdl 0 1000 0 "), "{last}");
        }
        // the field order: nodes, nps, tbhits, hashfull, time
        let pos = |k: &str| {
            last.find(&format!(" {k} "))
                .unwrap_or_else(|| panic!("{k}: {last}"))
        };
        assert!(
            pos("nps") < pos("tbhits") && pos("tbhits") < pos("hashfull"),
            "{last}"
        );
        // the move keeps the value
        let best: usize = bestmove(&lines).parse().expect("a column");
        let p = Position::<5, 4>::from_moves(moves).unwrap();
        let mut solver = Solver::new(16);
        let mover = solver.solve_column(&p, best - 1, false).unwrap();
        assert_eq!(mover, Some(solver.solve(&p).unwrap()), "{moves}: {best}");
    }
    // beyond the book's depth the book has nothing to say at the root
    let lines = e.search("position startpos moves 123451234", "go depth 1");
    assert_eq!(tbhits(&lines[0]), None, "{lines:#?}");
}

#[test]
fn own_book_false_gives_no_tbhits() {
    let mut e = engine_5x4();
    set_book_file(&mut e, &book_path("5x4.book"));
    e.send("setoption name OwnBook value false");
    assert!(e.sync().is_empty());
    let lines = e.search("position startpos moves 1", "go depth 3");
    assert!(lines.iter().all(|l| tbhits(l).is_none()), "{lines:#?}");
    // searched, not looked up (the solver may prove it before depth 3)
    assert!(
        field(last_info(&lines), "nodes")
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n > 0),
        "{lines:#?}"
    );
    // and back on: the book answers again
    e.send("setoption name OwnBook value true");
    let lines = e.search("position startpos moves 1", "go depth 3");
    assert!(
        tbhits(last_info(&lines)).is_some_and(|n| n > 0),
        "{lines:#?}"
    );
    // OwnBook during a search takes effect when it ends
    e.send("go infinite");
    e.send("setoption name OwnBook value false");
    // the book answers at once; then the infinite search waits for stop
    e.until(|l| tbhits(l).is_some());
    e.send("stop");
    let lines = e.until_prefix("bestmove");
    assert!(
        tbhits(last_info(&lines)).is_some_and(|n| n > 0),
        "{lines:#?}"
    );
    let lines = e.search("position startpos moves 1", "go depth 2");
    assert!(lines.iter().all(|l| tbhits(l).is_none()), "{lines:#?}");
}

#[test]
fn bad_book_files_leave_the_engine_running_without_a_book() {
    let mut e = engine_5x4();
    let trailing = std::fs::metadata(books().join("trailing.book"))
        .unwrap()
        .len();
    let mut bad = vec![
        ("random.book", "not a vier book".to_string()),
        ("truncated.book", "the book is truncated".to_string()),
        ("checksum.book", "the book is corrupt: checksum".to_string()),
        ("missing.book", "cannot read the book".to_string()),
        ("trailing.book", format!("the book has {trailing} bytes")),
        // the directory
        (
            "",
            "cannot read the book: not a regular file but a directory".to_string(),
        ),
    ];
    if Path::new("/dev/zero").exists() {
        // endless input: refused before it is opened
        bad.push((
            "/dev/zero",
            "cannot read the book: not a regular file but a device".to_string(),
        ));
    }
    for (name, why) in bad {
        let path = if name.starts_with('/') {
            name.to_string()
        } else {
            book_path(name)
        };
        // a good book first, so that "no book" is observable afterwards
        set_book_file(&mut e, &book_path("5x4.book"));
        let line = set_book_file(&mut e, &path);
        let want = format!("info string error: book: {path}: {why}");
        assert!(line.starts_with(&want), "{line} does not start with {want}");
        // still alive, and searching without any book (neither the old one nor the embedded)
        assert!(e.sync().is_empty());
        let lines = e.search("position startpos moves 1", "go depth 2");
        let mv: usize = bestmove(&lines).parse().expect("a column");
        assert!((1..=5).contains(&mv), "{lines:#?}");
        assert!(
            lines.iter().all(|l| tbhits(l).is_none()),
            "{name}: {lines:#?}"
        );
    }
    // a bad file set during a search is loaded (and reported) after its bestmove
    e.send("position startpos moves 1");
    e.send("go infinite");
    e.send(&format!(
        "setoption name BookFile value {}",
        book_path("truncated.book")
    ));
    e.send("stop");
    let lines = e.until_prefix("bestmove");
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:#?}");
    let after = e.sync();
    assert_eq!(after.len(), 1, "{after:?}");
    assert!(
        after[0].starts_with("info string error: book: "),
        "{after:?}"
    );
    // a good file again: the book is back
    set_book_file(&mut e, &book_path("5x4.book"));
    let lines = e.search("position startpos moves 1", "go depth 2");
    assert!(
        tbhits(last_info(&lines)).is_some_and(|n| n > 0),
        "{lines:#?}"
    );
    e.send("quit");
    let (_, status) = e.close_and_wait();
    assert_eq!(status, Some(0));
}

#[test]
fn book_file_back_to_empty_is_the_embedded_book() {
    let mut e = engine_5x4();
    set_book_file(&mut e, &book_path("5x4.book"));
    for value in ["<empty>", ""] {
        let line = set_book_file(&mut e, value);
        let rest = line
            .strip_prefix("info string book (embedded): 7x6, depth ")
            .unwrap_or_else(|| panic!("{line}"));
        assert!(rest.ends_with(" positions"), "{line}");
        // the embedded book is for 7x6: nothing for the 5x4 board
        let lines = e.search("position startpos moves 1", "go depth 2");
        assert!(lines.iter().all(|l| tbhits(l).is_none()), "{lines:#?}");
        bestmove(&lines);
    }
    // `value` left out altogether means empty too
    e.send("setoption name BookFile");
    let out = e.sync();
    assert!(
        out.len() == 1 && out[0].starts_with("info string book (embedded): 7x6"),
        "{out:?}"
    );
    // and the 7x6 board plays with it
    e.send("setoption name Width value 7");
    e.send("setoption name Height value 6");
    let lines = e.search("position startpos moves 44", "go depth 4");
    let mv: usize = bestmove(&lines).parse().expect("a column");
    assert!((1..=7).contains(&mv));
}

/// protocol.md's option table lists exactly the options the engine declares in its `uci`
/// listing, with the same types, ranges and defaults.
#[test]
fn protocol_md_documents_the_option_table() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol.md"))
        .expect("protocol.md");
    let section = doc
        .split("\n## Options\n")
        .nth(1)
        .expect("protocol.md has an Options section");
    // rows `| `Name` | type | default | meaning |`, up to the first line that is not a row
    let rows: Vec<(String, String, String)> = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let default = cells.get(3)?.trim_matches('`');
            Some((name.to_string(), cells[2].to_string(), default.to_string()))
        })
        .collect();
    // `option name N type T [default D] [min a max b] [var v]...`, as the engine lists them
    let mut e = Engine::start();
    e.send("uci");
    let declared: Vec<(String, String, String)> = e
        .until(|l| l == "uciok")
        .iter()
        .filter_map(|l| l.strip_prefix("option name "))
        .map(|l| {
            let (name, rest) = l.split_once(" type ").expect("a type");
            let words: Vec<&str> = rest.split(' ').collect();
            let after = |key: &str| {
                let at = words.iter().position(|w| *w == key)?;
                Some(words[at + 1].to_string())
            };
            let vars: Vec<&str> = words
                .windows(2)
                .filter(|w| w[0] == "var")
                .map(|w| w[1])
                .collect();
            let ty = match words[0] {
                "spin" => format!("spin {}..{}", after("min").unwrap(), after("max").unwrap()),
                "combo" => format!("combo {}", vars.join(" ")),
                "string" => "string".into(),
                other => other.into(),
            };
            (name.to_string(), ty, after("default").unwrap_or_default())
        })
        .collect();
    assert!(declared.len() >= 10, "the uci listing: {declared:?}");
    assert_eq!(rows, declared, "protocol.md's option rows against `uci`");
}

/// The nodes of a `go depth 10` from `4453` without the book: with one thread, the same in
/// every run.
fn depth_10_nodes(e: &mut Engine) -> String {
    e.send("setoption name OwnBook value false");
    e.send("ucinewgame");
    let lines = e.search("position startpos moves 4453", "go depth 10");
    field(last_info(&lines), "nodes").unwrap().to_string()
}

/// `Threads 2` through the protocol: a position whose proof takes the solver past its solo
/// start (so both threads race) is proven with its exact score and a move that keeps it; bad
/// values are refused and change nothing (the engine still searches on one thread: its node
/// count is a fresh engine's).
#[test]
fn threads_option() {
    let mut e = Engine::start();
    for bad in ["0", "65", "two", "abc", "-1"] {
        e.send(&format!("setoption name Threads value {bad}"));
        let lines = e.sync();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string error:") && l.contains("Threads")),
            "{bad}: {lines:?}"
        );
    }
    assert_eq!(depth_10_nodes(&mut e), depth_10_nodes(&mut Engine::start()));
    e.send("setoption name Threads value 2");
    // Pons' Test_L1_R2 position scored 4 (a win); the solver needs about 900,000 nodes
    let moves = "2416615552";
    let lines = e.search(&format!("position startpos moves {moves}"), "go");
    let p = Position::<7, 6>::from_moves(moves).unwrap();
    let want = match Score::from_exact(42, p.moves() as i32, 4) {
        Score::Win(n) => n.to_string(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        field(last_info(&lines), "mate"),
        Some(want.as_str()),
        "{lines:?}"
    );
    let col: usize = bestmove(&lines).parse().unwrap();
    let mut solver = Solver::new(16);
    assert_eq!(solver.solve_column(&p, col - 1, false).unwrap(), Some(4));
}

/// `Hash` goes up to what the machine has (and has free: a table is taken whole at `isready`);
/// more is refused with the reason, and the engine goes on with the tables it had.
#[test]
fn hash_up_to_the_machine_memory() {
    let machine = vier::tt::machine_memory_mb().expect("the machine's memory");
    let mut e = Engine::start();
    e.send(&format!("setoption name Hash value {}", machine + 1));
    let lines = e.sync();
    assert!(
        lines.len() == 1
            && lines[0].starts_with("info string error: Hash")
            && lines[0].contains("more than this machine's memory"),
        "{lines:?}"
    );
    assert_eq!(depth_10_nodes(&mut e), depth_10_nodes(&mut Engine::start()));
    // a size the machine has free, taken whole before `readyok` (on a virtual machine whose
    // host backs memory lazily the first touch costs up to 40 ms per 2 MB: a second or more
    // per gigabyte, so the test keeps to a few hundred megabytes)
    e.send("setoption name Hash value 256");
    assert_eq!(e.sync(), Vec::<String>::new());
    let lines = e.search("position startpos moves 4453", "go nodes 100");
    legal_bestmove(&lines, "4453");
}

/// `help` lists the commands, each by its name, for a person at a terminal (issue 60).
#[test]
fn help_lists_the_commands() {
    let mut e = Engine::start();
    e.send("help");
    let lines = e.sync();
    assert!(lines[0].starts_with("commands"), "{lines:?}");
    let text = lines.join("\n");
    let words: Vec<&str> = text.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    for cmd in [
        "uci",
        "isready",
        "setoption",
        "ucinewgame",
        "position",
        "go",
        "perft",
        "stop",
        "ponderhit",
        "d",
        "eval",
        "query",
        "bench",
        "debug",
        "help",
        "quit",
    ] {
        assert!(words.contains(&cmd), "{cmd} is missing from:\n{text}");
    }
}

/// Started on a terminal, vier first prints one line naming itself and the protocol; on a
/// pipe (every other test) nothing comes before the answer to the first command.
#[cfg(target_os = "linux")]
#[test]
fn on_a_terminal_vier_names_itself_and_the_protocol() {
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two new descriptors, owned below.
    let r = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(r, 0, "openpty");
    // SAFETY: the descriptors are open and owned by nothing else.
    let (mut tty, input) = unsafe {
        (
            std::fs::File::from_raw_fd(master),
            std::fs::File::from_raw_fd(slave),
        )
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_vier"))
        .stdin(Stdio::from(input))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start vier");
    tty.write_all(b"quit\n").unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut out).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let first = out.lines().next().unwrap_or("");
    assert!(
        first.starts_with("vier ") && first.contains("protocol") && first.contains("help"),
        "{out:?}"
    );
    assert_eq!(out.lines().count(), 1, "{out:?}");
}

/// `isready` after a `Hash` change answers once the tables' memory is taken (issue 60): the
/// first `go` never meets an untouched page (the first touch of a page costs up to 40 ms on a
/// virtual machine, and a search looks at its clock only every 1024 nodes: `go movetime 100`
/// took 1.8 s at Hash 4096). Seen as the resident memory at `readyok`, before any search, and
/// given back when the size shrinks.
#[cfg(target_os = "linux")]
#[test]
fn isready_after_a_hash_change_answers_once_the_tables_memory_is_taken() {
    let mut e = Engine::start();
    assert_eq!(e.sync(), Vec::<String>::new());
    let pid = e.child.id();
    let before = common::rss_mb(pid);
    e.send("setoption name Hash value 256");
    assert_eq!(e.sync(), Vec::<String>::new());
    let prepared = common::rss_mb(pid);
    // 256 MB taken, the 32 of the default tables given back
    assert!(
        prepared >= before + 200,
        "resident {before} MB at Hash 32, {prepared} MB at readyok after Hash 256"
    );
    e.send("setoption name Hash value 2");
    assert_eq!(e.sync(), Vec::<String>::new());
    let shrunk = common::rss_mb(pid);
    assert!(
        shrunk + 200 <= prepared,
        "{prepared} MB at Hash 256, still {shrunk} MB at Hash 2"
    );
    let lines = e.search("position startpos moves 4453", "go movetime 50");
    legal_bestmove(&lines, "4453");
}

/// A `go` right after `setoption name Hash` does not wait for the new tables' memory (issue 68:
/// at Hash 4096 `go movetime 10` answered after 10 s): it searches on the tables already there
/// while the new ones are taken beside it. Seen without timing: with the taking held
/// (`VIER_TEST_HOLD_HASH`, a machine as slow as can be), the search answers, the resident
/// memory then far below the new tables' 1024 MB; and `quit` ends the engine all the same.
#[cfg(target_os = "linux")]
#[test]
fn a_go_right_after_a_hash_change_searches_on_the_old_tables_meanwhile() {
    let mut e = Engine::start_with_env(&[("VIER_TEST_HOLD_HASH", "1")]);
    // start-up done: the default tables are taken (not held: there were none before)
    assert!(e.sync().is_empty());
    let pid = e.child.id();
    e.send("setoption name Hash value 1024");
    for go in ["go movetime 20", "go depth 3"] {
        let lines = e.search("position startpos moves 4453", go);
        let resident = common::rss_mb(pid);
        legal_bestmove(&lines, "4453");
        assert!(
            resident < 512,
            "{go} answered with {resident} MB resident: it waited for the 1024 MB"
        );
    }
    let (rest, status) = e.close_and_wait();
    assert_eq!(status, Some(0), "{rest:?}");
}

/// The same as the first command of all: the first `Hash`, larger than the default, is taken
/// beside a search on the default tables.
#[cfg(target_os = "linux")]
#[test]
fn a_go_right_after_the_first_hash_searches_on_the_default_tables_meanwhile() {
    let mut e = Engine::start_with_env(&[("VIER_TEST_HOLD_HASH", "1")]);
    let pid = e.child.id();
    e.send("setoption name Hash value 1024");
    let lines = e.search("position startpos moves 4453", "go movetime 20");
    let resident = common::rss_mb(pid);
    legal_bestmove(&lines, "4453");
    assert!(
        resident < 512,
        "the go answered with {resident} MB resident: it waited for the 1024 MB"
    );
    let (rest, status) = e.close_and_wait();
    assert_eq!(status, Some(0), "{rest:?}");
}

/// `quit` (or the end of input) right after a large `Hash` ends the engine at once, also
/// behind an `isready` that waits for the memory: its preparation, seconds per gigabyte on a
/// virtual machine, is given up.
#[test]
fn quit_right_after_a_large_hash_exits_without_waiting_for_the_memory() {
    for end in ["quit", "isready\nquit", ""] {
        let mut e = Engine::start();
        e.send("setoption name Hash value 4096");
        if !end.is_empty() {
            e.send(end);
        }
        let (rest, status) = e.close_and_wait();
        assert_eq!(status, Some(0), "{end:?}: {rest:?}");
    }
}

/// The bestmove of `lines` as a 0-based column, checked to be legal in `moves`.
fn legal_bestmove(lines: &[String], moves: &str) -> usize {
    let p = Position::<7, 6>::from_moves(moves).unwrap();
    let col: usize = bestmove(lines)
        .parse()
        .unwrap_or_else(|_| panic!("{lines:?}"));
    assert!((1..=7).contains(&col) && p.can_play(col - 1), "{lines:?}");
    col - 1
}

/// Searches on two threads (Lazy SMP) through the protocol: timed and depth-limited searches
/// report their depths and answer with a legal move, forced results are found as on one
/// thread, and a search to the end of a game has the solver's exact score.
#[test]
fn threads_two_search() {
    let mut e = Engine::start();
    e.send("setoption name OwnBook value false");
    e.send("setoption name Threads value 2");
    assert!(e.sync().is_empty());
    // past the book's depth anyway: Pons' Test_L2_R2 line 1
    let moves = "274552224131661";
    let lines = e.search(
        &format!("position startpos moves {moves}"),
        "go movetime 200",
    );
    legal_bestmove(&lines, moves);
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 1 ")),
        "{lines:?}"
    );
    let lines = e.search(&format!("position startpos moves {moves}"), "go depth 8");
    legal_bestmove(&lines, moves);
    let depth: u32 = field(last_info(&lines), "depth").unwrap().parse().unwrap();
    assert!((1..=8).contains(&depth), "{lines:?}");
    // the main thread reports every depth it finishes, in order
    let depths: Vec<u32> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .map(|l| field(l, "depth").unwrap().parse().unwrap())
        .collect();
    assert!(depths.windows(2).all(|w| w[0] <= w[1]), "{lines:?}");
    // x plays 5 and threatens both 2 and 6: a win with its second disc
    let lines = e.search("position startpos moves 3141", "go depth 6");
    assert_eq!(bestmove(&lines), "5");
    assert_eq!(field(last_info(&lines), "mate"), Some("2"), "{lines:?}");
    let lines = e.search("position startpos moves 31415", "go movetime 200");
    assert_eq!(field(last_info(&lines), "mate"), Some("-1"), "{lines:?}");
    // Pons' Test_L3_R1 line 2: a win with x's last possible disc, proven
    let moves = "7422341735647741166133573473242566";
    let lines = e.search(&format!("position startpos moves {moves}"), "go");
    assert_eq!(field(last_info(&lines), "mate"), Some("4"), "{lines:?}");
    let col = legal_bestmove(&lines, moves);
    let p = Position::<7, 6>::from_moves(moves).unwrap();
    assert_eq!(
        Solver::new(16).solve_column(&p, col, false).unwrap(),
        Some(1)
    );
}

/// `SearchLevel` (the study's switch): bad values are refused with an error and change nothing
/// (the full engine's node count stays a fresh engine's); every level plays a legal move and
/// reports every depth of a `go depth`; a lower level searches differently; back at 7 the
/// engine is the full one again, book included.
#[test]
fn search_level_option() {
    let mut e = Engine::start();
    for bad in ["0", "8", "minimax", "", "-1"] {
        e.send(&format!("setoption name SearchLevel value {bad}"));
        let lines = e.sync();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string error:") && l.contains("SearchLevel")),
            "{bad}: {lines:?}"
        );
    }
    let full = depth_10_nodes(&mut e);
    assert_eq!(full, depth_10_nodes(&mut Engine::start()));
    let mut seen = Vec::new();
    for level in 1..=7 {
        e.send(&format!("setoption name SearchLevel value {level}"));
        e.send("ucinewgame");
        let moves = "274552224131661";
        let lines = e.search(&format!("position startpos moves {moves}"), "go depth 5");
        legal_bestmove(&lines, moves);
        let depths: Vec<&str> = lines.iter().filter_map(|l| field(l, "depth")).collect();
        assert!(depths.contains(&"1"), "level {level}: {lines:?}");
        if level <= 5 {
            assert!(depths.contains(&"5"), "level {level}: {lines:?}");
        }
        let timed = e.search(
            &format!("position startpos moves {moves}"),
            "go movetime 30",
        );
        legal_bestmove(&timed, moves);
        assert!(field(last_info(&timed), "depth").is_some(), "{timed:?}");
        seen.push(field(last_info(&lines), "nodes").unwrap().to_string());
    }
    // minimax visits more nodes than alpha-beta, which visits more than with ordering
    let n: Vec<u64> = seen.iter().map(|s| s.parse().unwrap()).collect();
    assert!(n[0] > n[1] && n[1] > n[2], "{n:?}");
    // the book answers only at the full level
    e.send("setoption name SearchLevel value 6");
    let lines = e.search("position startpos moves 44", "go movetime 50");
    assert_eq!(tbhits(last_info(&lines)).unwrap_or(0), 0, "{lines:?}");
    e.send("setoption name SearchLevel value 7");
    e.send("setoption name OwnBook value true");
    let lines = e.search("position startpos moves 44", "go movetime 50");
    assert!(tbhits(last_info(&lines)).unwrap() > 0, "{lines:?}");
    assert_eq!(depth_10_nodes(&mut e), full);
}

// ---- strength levels (src/levels.rs) ----

/// The level's announcement and move of one `go`.
fn level_move(e: &mut Engine, moves: &str) -> usize {
    let lines = e.search(
        &format!("position startpos moves {moves}"),
        "go movetime 2000",
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string level ") && l.contains(" chooses column ")),
        "{lines:?}"
    );
    legal_bestmove(&lines, moves)
}

/// `UCI_LimitStrength`, `UCI_Elo`, `Skill Level` and `LevelSeed` are listed; bad values print an
/// error and change nothing (the engine still plays at full strength); good ones take effect.
#[test]
fn strength_options_are_listed_checked_and_applied() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until(|l| l == "uciok");
    for opt in [
        "option name UCI_LimitStrength type check default false",
        "option name Skill Level type spin default 9 min 1 max 9",
    ] {
        assert!(lines.iter().any(|l| l == opt), "{opt}: {lines:?}");
    }
    for prefix in [
        "option name UCI_Elo type spin",
        "option name LevelSeed type spin",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(prefix)), "{lines:?}");
    }
    for bad in [
        "Skill Level value 0",
        "Skill Level value 10",
        "Skill Level value weak",
        "UCI_Elo value 1",
        "UCI_Elo value 99999",
        "UCI_LimitStrength value yes",
        "LevelSeed value -1",
        "LevelSeed value 4294967296",
    ] {
        e.send(&format!("setoption name {bad}"));
        let out = e.sync();
        assert!(
            out.len() == 1 && out[0].starts_with("info string error:"),
            "{bad}: {out:?}"
        );
    }
    let full = e.search("position startpos moves 4453", "go depth 6");
    assert!(!full.iter().any(|l| l.contains("level")), "{full:?}");
    // a level: every column's value, then the level's choice
    e.send("setoption name Skill Level value 2");
    let lines = e.search("position startpos moves 4453", "go movetime 2000");
    assert!(lines.iter().any(|l| l.contains(" multipv 7 ")), "{lines:?}");
    legal_bestmove(&lines, "4453");
    assert!(lines
        .iter()
        .any(|l| l.starts_with("info string level 2 chooses column")));
    // UCI_Elo, under UCI_LimitStrength, takes precedence
    e.send("setoption name UCI_LimitStrength value true");
    e.send("setoption name UCI_Elo value 0");
    assert!(e.sync()[0].starts_with("info string error:"));
    let lowest = vier::levels::ELO[0];
    e.send(&format!("setoption name UCI_Elo value {lowest}"));
    let lines = e.search("position startpos moves 4453", "go movetime 2000");
    assert!(lines
        .iter()
        .any(|l| l.starts_with("info string level 1 chooses column")));
    let top = vier::levels::ELO[vier::levels::ELO.len() - 1];
    e.send(&format!("setoption name UCI_Elo value {top}"));
    let lines = e.search("position startpos moves 4453", "go depth 6");
    assert!(!lines.iter().any(|l| l.contains("level")), "{lines:?}");
}

/// The same seed and position give the same move (fresh engines, one thread); other seeds give
/// other moves somewhere.
#[test]
fn a_level_replays_its_move_from_the_same_seed_and_position() {
    let positions = ["", "4", "4453", "445332", "4453321"];
    let play = |seed: u32| -> Vec<usize> {
        let mut e = Engine::start();
        e.send("setoption name Skill Level value 1");
        e.send(&format!("setoption name LevelSeed value {seed}"));
        positions.iter().map(|p| level_move(&mut e, p)).collect()
    };
    let first = play(7);
    assert_eq!(first, play(7));
    let others: Vec<Vec<usize>> = (1..=4).map(play).collect();
    assert!(others.iter().any(|o| *o != first), "{first:?} {others:?}");
}

/// With the limit set and then taken off, the engine plays exactly as `vier bench`'s searches
/// (the production search's moves and node counts at its depth on its positions).
#[test]
fn limit_off_gives_the_full_engines_moves_on_the_bench_positions() {
    let bench = common::run_vier(&["bench"], "");
    let text = String::from_utf8_lossy(&bench.stdout);
    let mut e = Engine::start();
    for cmd in [
        "Skill Level value 3",
        "UCI_LimitStrength value true",
        "UCI_Elo value 1000",
        "Skill Level value 9",
        "UCI_LimitStrength value false",
    ] {
        e.send(&format!("setoption name {cmd}"));
    }
    let depth = vier::protocol::bench::BENCH_DEPTH;
    let mut compared = 0;
    for moves in vier::protocol::bench::BENCH_POSITIONS {
        // the bench's search line: "<moves> depth D bestmove C nodes N time T ms"
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{moves} depth ")))
            .unwrap_or_else(|| panic!("{moves} not in {text}"));
        e.send("ucinewgame");
        let lines = e.search(
            &format!("position startpos moves {moves}"),
            &format!("go depth {depth}"),
        );
        assert_eq!(field(line, "bestmove"), Some(bestmove(&lines)), "{moves}");
        assert_eq!(
            field(line, "nodes"),
            field(last_info(&lines), "nodes"),
            "{moves}"
        );
        compared += 1;
    }
    assert_eq!(compared, vier::protocol::bench::BENCH_POSITIONS.len());
}

/// The immediate-win-and-block beginner: wins if it can, blocks if it must, else a column
/// drawn from `seed`.
fn win_block_move(p: &Position<7, 6>, seed: &mut u64) -> usize {
    let legal: Vec<usize> = p.legal_columns().collect();
    if let Some(&c) = legal.iter().find(|&&c| p.is_winning_move(c)) {
        return c;
    }
    let threats = p.opponent_winning_cells() & p.possible();
    if let Some(&c) = legal
        .iter()
        .find(|&&c| threats & (1u64 << (c * 7 + p.column_height(c))) != 0)
    {
        return c;
    }
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    legal[(*seed >> 33) as usize % legal.len()]
}

/// A few games of level 1 against the win-and-block beginner: every move the level plays is
/// legal, and it makes mistakes, moves that lose value by the exact solver (with the book).
#[test]
fn the_lowest_level_plays_legal_moves_and_makes_value_losing_mistakes() {
    let mut solver = Solver::new(64);
    solver.set_book(vier::book::open(&vier::book::BookSource::BuiltIn).unwrap());
    let mut e = Engine::start();
    e.send("setoption name Skill Level value 1");
    let (mut level_moves, mut mistakes) = (0, 0);
    for game in 0..4u64 {
        let mut seed = game;
        e.send(&format!("setoption name LevelSeed value {game}"));
        e.send("ucinewgame");
        let mut p = Position::<7, 6>::new();
        let mut moves = String::new();
        let level_first = game % 2 == 0;
        while !p.is_game_over() {
            let level_to_move = (p.moves() % 2 == 0) == level_first;
            let col = if level_to_move {
                let before = solver.solve_weak(&p).unwrap();
                let col = level_move(&mut e, &moves);
                let kept = if p.is_winning_move(col) {
                    before == 1
                } else {
                    let mut q = p;
                    q.play_col(col);
                    -solver.solve_weak(&q).unwrap() == before
                };
                level_moves += 1;
                mistakes += usize::from(!kept);
                col
            } else {
                win_block_move(&p, &mut seed)
            };
            p.play_col(col);
            moves.push_str(&(col + 1).to_string());
        }
    }
    assert!(level_moves > 10);
    assert!(mistakes > 0, "{mistakes} of {level_moves}");
}
