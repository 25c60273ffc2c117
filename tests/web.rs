//! vier in the browser (web/, docs/web.md). Builds the static folder with tools/web.sh, then:
//!
//! - runs tests/web/check.mjs on the engine's module in node: on 20 positions of several sizes
//!   its `analyse` must equal `vier solve --all`, `think` must play a legal column (the book's
//!   best in a 7x6 opening), and bad requests must get errors;
//! - runs tests/web/test_page.py: the folder served by `python3 -m http.server` (no vier
//!   process) in headless Chromium with selenium: games clicked to the end on 7x6, 12x4 and
//!   8x8, the analysis of 20 positions equal to `vier solve --all` (in a worker a core), a
//!   level changed mid-game, live depth and a search stopped by undo, no request outside the
//!   folder; a link restores its position, a reload keeps the game, the service worker
//!   controls the page and a reload with the server stopped plays and analyses, a page opened
//!   as a file says how to serve it, on a phone no two labels overlap and nothing scrolls
//!   sideways, the move list steps back and forward, a finished game's review marks a planted
//!   blunder as `vier solve --all` does (its graph's axes labelled), two games at level 1
//!   differ, after a stop no second worker is alive, any address shows the board or says why it
//!   names no position, the end of a game moves nothing, on the first visit a size change never
//!   holds the engine's move, an unproven column is never outlined as best, and a desktop
//!   gives the board and the panel its whole width. It saves screenshots (desktop and phone,
//!   light and dark, a review, 12x4) to the target directory, or to the folder
//!   VIER_WEB_SCREENSHOTS names (`VIER_WEB_SCREENSHOTS=$PWD/docs cargo test --test web` renews
//!   docs/web-*.png).
//!
//! The folder is built under this build's target directory (`CARGO_TARGET_TMPDIR`), the module
//! without link-time optimisation (the tests time nothing), and the build is reused by the next
//! run. It needs the wasm32-unknown-unknown target, node, Chromium, chromedriver and selenium;
//! tools/test.sh installs them. Without one, a test fails and says what is missing.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const VIER: &str = env!("CARGO_BIN_EXE_vier");

/// Positions of several sizes, each quick to solve: 7x6 openings the book answers and middle
/// games, small boards from the start, and from random games the boards past 64 bits (8x8,
/// 9x7, 5x13, 7x9, 11x5) and the wide ones written with letters (10x4, 12x4, 11x5).
const POSITIONS: [(&str, &str); 20] = [
    ("7x6", ""),
    ("7x6", "4453"),
    ("7x6", "44444"),
    ("7x6", "2252576253462244111563365343671351441"),
    ("7x6", "7422341735647741166133573473242566"),
    ("4x4", ""),
    ("5x4", "3"),
    ("6x4", "25131444"),
    ("6x5", "2513144464"),
    ("5x5", "25131444421"),
    ("8x4", "325288874241"),
    ("10x4", "cjbebhhhgdbhagiaje"),
    ("12x4", "cjbebhhhkgdbiaghkaiedl"),
    ("6x6", "25131444642151"),
    ("8x7", "325288874241854688175447231118"),
    ("8x8", "325288874241854688175447231118157258"),
    ("9x7", "3252888742918819552611191748175598344"),
    ("5x13", "251314444214245524422321151424515254422"),
    ("7x9", "2577713147446472141545716432513111726"),
    ("11x5", "cjbebhhhkgdbiaghjahedbfaaabjj"),
];

/// Positions the module's `solve` must prove as `vier solve --no-book` does: node for node.
const SOLVED: [(&str, &str); 4] = [
    ("7x6", "274552224131661"),
    ("7x6", "5455174361263362"),
    ("12x4", "cjbebhhhkgdbiaghka"),
    ("9x7", "32528887429188195526"),
];

/// `vier` with `args` on `input`: its output's lines, one per input line, split in fields.
fn vier(args: &[&str], input: &str) -> Vec<Vec<String>> {
    let mut child = Command::new(VIER)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("vier starts");
    let mut stdin = child.stdin.take().expect("a pipe");
    writeln!(stdin, "{input}").expect("vier reads the position");
    drop(stdin);
    let out = child.wait_with_output().expect("vier ends");
    assert!(out.status.success(), "vier {args:?} on {input}: {out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// What the module must answer, as JSON for tests/web/check.mjs: `analyse`, each position's
/// values of the columns by `vier solve --all` (`null`: a full column), and `solve`, scores and
/// node counts by `vier solve --no-book`.
fn expected() -> String {
    let moves = |m: &str| if m.is_empty() { "-" } else { m }.to_string();
    let analyse: Vec<String> = POSITIONS
        .iter()
        .map(|&(size, m)| {
            // `moves v1 .. vW nodes micros`
            let fields = &vier(&["solve", "--all", "--size", size], &moves(m))[0];
            let width: usize = size.split('x').next().unwrap().parse().unwrap();
            assert_eq!(
                fields.len(),
                width + 3,
                "vier solve --all --size {size}: {fields:?}"
            );
            let columns: Vec<&str> = fields[1..=width]
                .iter()
                .map(|v| if v == "-" { "null" } else { v.as_str() })
                .collect();
            format!(
                "{{\"size\":\"{size}\",\"moves\":\"{m}\",\"columns\":[{}]}}",
                columns.join(",")
            )
        })
        .collect();
    let solve: Vec<String> = SOLVED
        .iter()
        .map(|&(size, m)| {
            // `moves score nodes micros`
            let fields = &vier(&["solve", "--no-book", "--size", size], &moves(m))[0];
            format!(
                "{{\"size\":\"{size}\",\"moves\":\"{m}\",\"score\":{},\"nodes\":{}}}",
                fields[1], fields[2]
            )
        })
        .collect();
    format!(
        "{{\"analyse\":[{}],\n\"solve\":[{}]}}",
        analyse.join(",\n"),
        solve.join(",\n")
    )
}

fn site() -> &'static (PathBuf, PathBuf) {
    common::builds::web_site()
}

#[test]
fn the_module_analyses_as_vier_solve_and_plays_legal_moves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web");
    let node = Command::new("node").arg("--version").output();
    assert!(
        node.is_ok_and(|o| o.status.success()),
        "node is missing: sudo apt-get install nodejs (tools/test.sh installs it)"
    );
    let (site, wasm) = site();
    let book = site.join("7x6.book.gz");
    let expected = tmp.join("expected.json");
    std::fs::write(&expected, self::expected()).expect("expected values written");
    let out = common::run_checked(
        Command::new("node")
            .arg(root.join("tests/web/check.mjs"))
            .arg(wasm)
            .arg(&book)
            .arg(&expected),
        "node tests/web/check.mjs",
    );
    // "N checks, 0 failed", with every position's checks made
    let last = out.lines().last().unwrap_or("");
    let checks: usize = last
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        last.ends_with(" checks, 0 failed") && checks >= 20 * 4,
        "{out}"
    );
}

#[test]
fn the_static_page_plays_and_analyses_in_chromium() {
    let (site, _) = site();
    let shots = std::env::var_os("VIER_WEB_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web"));
    let names = [
        "web-7x6.png",
        "web-7x6-dark.png",
        "web-phone.png",
        "web-phone-dark.png",
        "web-review.png",
        "web-12x4.png",
    ];
    for n in names {
        let _ = std::fs::remove_file(shots.join(n));
    }
    let ran = common::run_unittest(
        "tests/web/test_page.py",
        &[
            ("VIER_BIN", VIER.as_ref()),
            ("VIER_WEB_DIR", site.as_os_str()),
            ("VIER_WEB_SCREENSHOTS", shots.as_os_str()),
        ],
    );
    assert!(ran >= 16, "tests/web/test_page.py ran {ran} tests");
    for n in names {
        let png = std::fs::read(shots.join(n)).unwrap_or_default();
        assert!(
            png.starts_with(b"\x89PNG"),
            "no screenshot {n} in {}",
            shots.display()
        );
    }
}
