//! The engine in the browser (web/engine, docs/web.md): builds the WebAssembly module, cuts the
//! page's book with `vier book cut`, and runs tests/web/check.mjs on it in node: on 20 positions
//! of several sizes the module's `analyse` must equal `vier solve --all`, `think` must play a
//! legal column (the book's best in a 7x6 opening), and bad requests must get errors.
//!
//! The module is built under this build's target directory (`CARGO_TARGET_TMPDIR`), without
//! link-time optimisation (the test times nothing), and reused by the next run. It needs the
//! wasm32-unknown-unknown target and node; tools/test.sh installs both.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const VIER: &str = env!("CARGO_BIN_EXE_vier");

/// Runs `cmd`, failing the test with its output when it fails; its stdout.
fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

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

#[test]
fn the_module_analyses_as_vier_solve_and_plays_legal_moves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web");
    std::fs::create_dir_all(&tmp).expect("a folder for the module");
    let installed = run(
        Command::new("rustup").args(["target", "list", "--installed"]),
        "rustup target list --installed",
    );
    assert!(
        installed.lines().any(|t| t == "wasm32-unknown-unknown"),
        "the wasm32-unknown-unknown target is missing: rustup target add wasm32-unknown-unknown \
         (tools/test.sh adds it)"
    );
    let node = Command::new("node").arg("--version").output();
    assert!(
        node.is_ok_and(|o| o.status.success()),
        "node is missing: sudo apt-get install nodejs (tools/test.sh installs it)"
    );
    let target = tmp.join("target");
    run(
        Command::new("cargo")
            .args([
                "build",
                "--release",
                "--target",
                "wasm32-unknown-unknown",
                "--manifest-path",
            ])
            .arg(root.join("web/engine/Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            // the test times nothing: a build without link-time optimisation is ready sooner
            .env("CARGO_PROFILE_RELEASE_LTO", "off")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
        "cargo build of web/engine",
    );
    let wasm = target.join("wasm32-unknown-unknown/release/vier_web.wasm");
    let book = tmp.join("7x6.book");
    let cut = run(
        Command::new(VIER)
            .args(["book", "cut", "--depth", "9", "--out"])
            .arg(&book),
        "vier book cut",
    );
    assert!(cut.starts_with("7x6 book, depth 9, "), "{cut}");
    let expected = tmp.join("expected.json");
    std::fs::write(&expected, self::expected()).expect("expected values written");
    let out = run(
        Command::new("node")
            .arg(root.join("tests/web/check.mjs"))
            .arg(&wasm)
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
