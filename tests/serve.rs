//! `vier serve`: the Pons-style `GET /solve` endpoint, driven over loopback HTTP like the
//! programs that call the public solver do.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `vier serve` on a free port, ended when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        Server::launch(&[&["serve", "--port", "0"], args].concat())
    }

    /// `vier gui` without a browser: its router carries the same route.
    fn gui() -> Server {
        Server::launch(&["gui", "--no-open", "--port", "0"])
    }

    fn launch(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vier"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("vier serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout is piped"))
            .read_line(&mut line)
            .expect("vier serve prints its address");
        // "vier serve: http://127.0.0.1:PORT/solve?pos=4453  (Ctrl-C ends it)", or vier gui's
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Server { child, addr }
    }

    /// Status and body of `GET path` with the given extra header lines.
    fn get_with(&self, path: &str, headers: &str) -> (u16, String) {
        let (status, _, body) = self.get_head(path, headers);
        (status, body)
    }

    /// Status, head and body of `GET path` with the given extra header lines.
    fn get_head(&self, path: &str, headers: &str) -> (u16, String, String) {
        let mut s = TcpStream::connect(&self.addr).expect("connects");
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {}\r\n{headers}Connection: close\r\n\r\n",
            self.addr
        )
        .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).expect("an answer");
        let (head, body) = text.split_once("\r\n\r\n").expect("headers end");
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("a status line");
        (status, head.to_string(), body.to_string())
    }

    fn get(&self, path: &str) -> (u16, String) {
        self.get_with(path, "")
    }

    fn json(&self, path: &str) -> (u16, serde_json::Value) {
        let (status, body) = self.get(path);
        let v = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"));
        (status, v)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// Waits up to a minute for the server to close `s` (a read that returns nothing); true if it
/// did. What it sent before closing is ignored.
fn closed_by_server(s: &mut TcpStream) -> bool {
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
            Err(_) => return false,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `vier solve --all`'s scores per position, with 100 for a full column.
fn solve_all(positions: &[String], extra: &[&str]) -> Vec<Vec<i32>> {
    let mut args = vec!["solve", "--all"];
    args.extend_from_slice(extra);
    // `-` is how vier solve reads the empty board
    let lines: Vec<&str> = positions
        .iter()
        .map(|p| if p.is_empty() { "-" } else { p.as_str() })
        .collect();
    let out = common::run_vier(&args, &(lines.join("\n") + "\n"));
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .zip(&lines)
        .map(|(line, pos)| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(fields[0], *pos);
            // moves, one score per column, nodes, microseconds
            fields[1..fields.len() - 2]
                .iter()
                .map(|s| if *s == "-" { 100 } else { s.parse().unwrap() })
                .collect()
        })
        .collect()
}

fn sample(set: &str, step: usize) -> Vec<String> {
    common::pons_set(set)
        .into_iter()
        .step_by(step)
        .map(|(m, _)| m)
        .collect()
}

#[test]
fn the_endpoint_answers_what_solve_all_prints_in_pons_shape() {
    let server = Server::start(&["--jobs", "2"]);
    let mut positions = sample("Test_L3_R1", 50);
    positions.extend(sample("Test_L2_R1", 50));
    positions.extend(sample("Test_L1_R2", 100));
    let expected = solve_all(&positions, &[]);
    for (pos, want) in positions.iter().zip(&expected) {
        let (status, v) = server.json(&format!("/solve?pos={pos}"));
        assert_eq!(status, 200, "{pos}: {v}");
        assert_eq!(v, serde_json::json!({ "pos": pos, "score": want }), "{pos}");
    }
}

#[test]
fn vier_gui_serves_the_same_route() {
    let gui = Server::gui();
    let serve = Server::start(&[]);
    for path in [
        "/solve?pos=4453",
        "/solve?pos=17171&weak=1",
        "/solve?pos=48",
    ] {
        assert_eq!(gui.json(path), serve.json(path), "{path}");
    }
}

#[test]
fn the_best_column_scores_what_pons_sets_give_the_position() {
    // Pons' sets give each position's score for the side to move; the public solver's array is
    // in that same view, so its largest entry is the position's score.
    let server = Server::start(&[]);
    for (pos, score) in common::pons_set("Test_L2_R1").into_iter().step_by(97) {
        let (status, v) = server.json(&format!("/solve?pos={pos}"));
        assert_eq!(status, 200);
        let best = v["score"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_i64().unwrap())
            .filter(|&s| s != 100)
            .max();
        assert_eq!(best, Some(score as i64), "{pos}: {v}");
    }
    // a forced block: every other column loses to the fourth disc in column 1
    let (_, v) = server.json("/solve?pos=17171");
    assert_eq!(
        v["score"],
        serde_json::json!([-2, -18, -18, -18, -18, -18, -18])
    );
}

#[test]
fn other_sizes_and_weak_answers_match_solve_all() {
    let server = Server::start(&[]);
    let positions: Vec<String> = ["", "3", "2233", "112233"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let want = solve_all(&positions, &["--size", "5x4"]);
    for (pos, w) in positions.iter().zip(&want) {
        let (status, v) = server.json(&format!("/solve?pos={pos}&width=5&height=4"));
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["score"], serde_json::json!(w));
    }
    let positions = sample("Test_L2_R1", 200);
    let want = solve_all(&positions, &["--weak"]);
    for (pos, w) in positions.iter().zip(&want) {
        let (_, v) = server.json(&format!("/solve?pos={pos}&weak=1"));
        assert_eq!(v["score"], serde_json::json!(w), "{pos}");
    }
}

#[test]
fn bad_requests_get_400_with_the_reason() {
    let server = Server::start(&["--budget-ms", "5000"]);
    let cases = [
        ("/solve", "missing pos"),
        ("/solve?pos=44!", "unexpected character '!'"),
        ("/solve?pos=44a", "mixes digits and letters"),
        ("/solve?pos=48", "column 8"),
        ("/solve?pos=4444444", "column 4 at position 7 is full"),
        // the first player's four in column 1, then one more move
        ("/solve?pos=12121212", "comes after the game has ended"),
        ("/solve?pos=1212121", "player 1 has four in a row"),
        ("/solve?pos=4&width=10&height=6", "10"),
        ("/solve?pos=4&width=9&height=9", "9x9"),
        ("/solve?pos=4&width=seven", "width must be a whole number"),
        ("/solve?pos=4&weak=maybe", "weak must be 0 or 1"),
        ("/solve?pos=4&budget_ms=0", "budget_ms must be 1..=5000"),
        ("/solve?pos=4&budget_ms=5001", "budget_ms must be 1..=5000"),
    ];
    for (path, reason) in cases {
        let (status, v) = server.json(path);
        assert_eq!(status, 400, "{path}: {v}");
        let msg = v["error"].as_str().unwrap_or_else(|| panic!("{path}: {v}"));
        assert!(msg.contains(reason), "{path}: {msg:?} lacks {reason:?}");
    }
    // still serving after all that
    assert_eq!(server.json("/solve?pos=4453").0, 200);
}

#[test]
fn a_page_of_another_site_and_another_host_name_are_refused() {
    let server = Server::start(&[]);
    let (status, body) = server.get_with("/solve?pos=4", "Origin: http://evil.example\r\n");
    assert_eq!(status, 403, "{body}");
    let (status, _) = server.get_with("/solve?pos=4", "Origin: http://127.0.0.1:9\r\n");
    assert_eq!(status, 200);
    let mut s = TcpStream::connect(&server.addr).unwrap();
    write!(
        s,
        "GET /solve?pos=4 HTTP/1.1\r\nHost: rebound.example\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 403"), "{text}");
}

#[test]
fn a_position_not_proven_in_its_budget_gets_504() {
    let server = Server::start(&[]);
    // the empty 8x7 board takes the solver far longer than 20 ms
    let (status, v) = server.json("/solve?pos=&width=8&height=7&budget_ms=20");
    assert_eq!(status, 504, "{v}");
    assert!(v["error"]
        .as_str()
        .unwrap()
        .contains("not solved within 20 ms"));
}

#[test]
fn concurrent_clients_beyond_the_bound_all_get_an_answer_and_none_fails() {
    // 2 solvers and the default queue: 16 clients at once see 200s (503s only past the queue),
    // never a broken connection
    let server = std::sync::Arc::new(Server::start(&["--jobs", "2"]));
    let positions = sample("Test_L2_R1", 10);
    let expected = solve_all(&positions, &[]);
    let handles: Vec<_> = (0..16)
        .map(|t| {
            let server = server.clone();
            let positions = positions.clone();
            let expected = expected.clone();
            std::thread::spawn(move || {
                let mut answered = 0;
                for i in 0..positions.len() {
                    let k = (i + t * 7) % positions.len();
                    let (status, v) = server.json(&format!("/solve?pos={}", positions[k]));
                    match status {
                        200 => {
                            assert_eq!(v["score"], serde_json::json!(expected[k]));
                            answered += 1;
                        }
                        503 => assert!(v["error"].as_str().unwrap().starts_with("busy")),
                        s => panic!("status {s}: {v}"),
                    }
                }
                answered
            })
        })
        .collect();
    let answered: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert!(answered > 0);
    // the server is still whole
    assert_eq!(server.json("/solve?pos=4453").0, 200);
}

/// Clients that ask for a long solve and hang up at once (issue 60: with `--jobs 2`, 150 of
/// them ran 116 solves at once, 3 -> 119 threads, 291 MB still held afterwards). Each solve
/// stops when its client is gone, and `--jobs` bounds the solves that run: the server's
/// threads stay within a few of its own and the two solvers', during the burst and after.
#[cfg(target_os = "linux")]
#[test]
fn clients_that_hang_up_stop_their_solves_and_jobs_bounds_the_threads() {
    let jobs = 2;
    let server = Server::start(&["--jobs", "2"]);
    // one answered request: the runtime's threads and one solver's exist
    assert_eq!(server.json("/solve?pos=4453").0, 200);
    let pid = server.pid();
    let threads = move || common::proc_status(pid, "Threads").unwrap_or(0);
    let base = threads();
    let rss_before = common::rss_mb(pid);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut peak = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(threads());
                std::thread::sleep(Duration::from_millis(2));
            }
            peak
        })
    };
    for _ in 0..60 {
        let mut s = TcpStream::connect(&server.addr).unwrap();
        // the empty 8x7 board: far longer than the burst, whatever its budget
        write!(
            s,
            "GET /solve?pos=&width=8&height=7 HTTP/1.1\r\nHost: {}\r\n\r\n",
            server.addr
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(20));
        drop(s);
    }
    // the last solves see their clients gone; then a short request is answered
    assert_eq!(server.json("/solve?pos=4453").0, 200);
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = watcher.join().unwrap();
    let after = threads();
    let rss_after = common::rss_mb(pid);
    eprintln!(
        "threads {base} before, at most {peak} during 60 abandoned solves, {after} after; \
         resident {rss_before} MB before, {rss_after} MB after"
    );
    // the solves' threads, and as many that have just handed back their permit
    assert!(
        peak <= base + 2 * jobs + 2,
        "threads {base} before, {peak} at the peak"
    );
}

/// `--queue N` is how many requests wait for a solver: with one solver and none waiting, of
/// four long requests at once one is solved (504 after its budget) and the rest are answered
/// 503 at once; with three waiting, all four are solved in turn.
#[test]
fn queue_chooses_how_many_requests_wait() {
    for (queue, want_busy) in [("0", true), ("3", false)] {
        let server = std::sync::Arc::new(Server::start(&["--jobs", "1", "--queue", queue]));
        let statuses: Vec<u16> = (0..4)
            .map(|_| {
                let server = server.clone();
                std::thread::spawn(move || {
                    server.json("/solve?pos=&width=8&height=7&budget_ms=1000").0
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect();
        assert!(
            statuses.iter().all(|s| [503, 504].contains(s)),
            "{statuses:?}"
        );
        assert!(statuses.contains(&504), "--queue {queue}: {statuses:?}");
        assert_eq!(
            statuses.contains(&503),
            want_busy,
            "--queue {queue}: {statuses:?}"
        );
    }
}

/// `--cors ORIGIN` lets that origin's pages call /solve and read the answer (the header
/// `Access-Control-Allow-Origin`), `*` every origin's; other origins stay refused, and without
/// the option no answer carries the header.
#[test]
fn cors_lets_the_named_origins_read_the_answers() {
    let server = Server::start(&[
        "--cors",
        "https://example.org",
        "--cors",
        "http://localhost:3000",
    ]);
    for origin in ["https://example.org", "http://localhost:3000"] {
        let (status, head, body) =
            server.get_head("/solve?pos=4453", &format!("Origin: {origin}\r\n"));
        assert_eq!(status, 200, "{body}");
        assert!(
            head.lines()
                .any(|l| l.eq_ignore_ascii_case(&format!("access-control-allow-origin: {origin}"))),
            "{head}"
        );
    }
    let (status, head, _) = server.get_head("/solve?pos=4453", "Origin: http://evil.example\r\n");
    assert_eq!(status, 403);
    assert!(
        !head.to_ascii_lowercase().contains("access-control"),
        "{head}"
    );
    let any = Server::start(&["--cors", "*"]);
    let (status, head, _) = any.get_head("/solve?pos=4453", "Origin: http://evil.example\r\n");
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("access-control-allow-origin: *"),
        "{head}"
    );
    let none = Server::start(&[]);
    let (_, head, _) = none.get_head("/solve?pos=4453", "Origin: http://127.0.0.1:9\r\n");
    assert!(
        !head.to_ascii_lowercase().contains("access-control"),
        "{head}"
    );
}

/// Both servers close a connection that sends nothing, and one whose request head stops half
/// way, after a few seconds (issue 60: 200 of them were held open for a minute and more).
#[test]
fn both_servers_close_idle_and_half_sent_connections() {
    for server in [Server::start(&[]), Server::gui()] {
        let mut idle = TcpStream::connect(&server.addr).unwrap();
        let mut half = TcpStream::connect(&server.addr).unwrap();
        write!(
            half,
            "GET /solve?pos=4453 HTTP/1.1\r\nHost: {}\r\n",
            server.addr
        )
        .unwrap();
        assert!(closed_by_server(&mut idle), "an idle connection stays open");
        assert!(
            closed_by_server(&mut half),
            "a half-sent request stays open"
        );
        // and the server serves on
        assert_eq!(server.json("/solve?pos=4453").0, 200);
    }
}

/// A request head of 64 KiB (the line, the headers and the blank line) is served, one byte
/// more is answered 431, however it arrives (issue 68: sent in one write, heads of 70-100 KB
/// were served), on a fresh connection and on one kept alive.
#[test]
fn both_servers_hold_request_heads_to_64_kib() {
    const MAX_HEAD: usize = 64 * 1024;
    for server in [Server::start(&[]), Server::gui()] {
        // a head of `len` bytes: its padding header makes up the length
        let head = |len: usize, close: bool| {
            let start = format!("GET /solve?pos=4453 HTTP/1.1\r\nHost: {}\r\n", server.addr);
            let end = if close {
                "Connection: close\r\n\r\n"
            } else {
                "\r\n"
            };
            let pad = len - start.len() - end.len() - "X-Pad: \r\n".len();
            format!("{start}X-Pad: {}\r\n{end}", "a".repeat(pad))
        };
        let status = |text: &str| -> u16 {
            text.split_whitespace()
                .nth(1)
                .and_then(|c| c.parse().ok())
                .unwrap_or_else(|| panic!("no status in {text:?}"))
        };
        for (len, want) in [
            (MAX_HEAD, 200),
            (MAX_HEAD + 1, 431),
            (70_000, 431),
            (100_000, 431),
        ] {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
            let req = head(len, true);
            assert_eq!(req.len(), len);
            s.write_all(req.as_bytes()).unwrap();
            let mut text = String::new();
            let _ = s.read_to_string(&mut text);
            assert_eq!(status(&text), want, "a head of {len} bytes");
        }
        // on a connection kept alive, each request's head is counted from its own start
        let mut s = TcpStream::connect(&server.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut reader = BufReader::new(s.try_clone().unwrap());
        for close in [false, true] {
            s.write_all(head(MAX_HEAD - 10, close).as_bytes()).unwrap();
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            assert_eq!(status(&line), 200, "{line}");
            let mut length = 0;
            loop {
                line.clear();
                reader.read_line(&mut line).unwrap();
                if line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
        }
    }
}

/// At most 512 connections are open at once: one more is answered 503 and closed, and once
/// they are closed the server answers again.
#[test]
fn a_connection_past_the_cap_gets_503_and_the_server_serves_on() {
    let server = Server::start(&[]);
    // A held connection that moves no byte is closed after the server's idle time (5 s), which
    // frees its place: on a machine slow enough to take that long to open them all, the extra
    // connection is let in and closed as idle instead. Such a try is tried again.
    let mut answers = Vec::new();
    for _ in 0..3 {
        let held: Vec<TcpStream> = (0..512)
            .map(|_| TcpStream::connect(&server.addr).unwrap())
            .collect();
        let mut extra = TcpStream::connect(&server.addr).unwrap();
        extra
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut text = String::new();
        let _ = extra.read_to_string(&mut text);
        drop(held);
        let refused = text.starts_with("HTTP/1.1 503");
        answers.push(text);
        if refused {
            break;
        }
    }
    let text = answers.last().unwrap();
    assert!(text.starts_with("HTTP/1.1 503"), "{answers:?}");
    assert!(text.contains("Retry-After: 1"), "{text}");
    // the closed connections are counted out as the server sees them go
    let mut status = 0;
    for _ in 0..100 {
        status = server.json("/solve?pos=4453").0;
        if status == 200 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(status, 200);
}
