//! Proven means proven (issue 66): every value a front end reports as proven is the solver's.
//! tools/proven.py drives each front end over seeded random positions of 7x6, 6x5 and 8x4 with
//! searches of 1 to 20 ms, with one thread and with two, and compares every value called proven
//! (`mate N` without a bound, a proven draw, `exact`, `solved`, the exact calls, the hint) with
//! `vier solve --all`. The benchmark version is the same script with more positions
//! (`python3 tools/proven.py --positions 5000 ...`).

mod common;

use std::path::Path;
use std::process::Command;

const VIER: &str = env!("CARGO_BIN_EXE_vier");

/// Runs tools/proven.py with `args`; its table, after checking that it found no mismatch and
/// that every front end asked for made proven claims at all.
fn proven(fronts: &[&str], args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("tools/proven.py"))
        .args(["--vier", VIER, "--fronts", &fronts.join(",")])
        .args(args)
        .output()
        .expect("python3 runs tools/proven.py");
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "a front end called a wrong value proven:\n{table}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for front in fronts {
        // | front | threads | positions | searches | proven | mismatches |
        let rows: Vec<Vec<&str>> = table
            .lines()
            .filter(|l| l.starts_with(&format!("| {front} |")))
            .map(|l| l.split('|').map(str::trim).collect())
            .collect();
        assert!(!rows.is_empty(), "no row for {front}:\n{table}");
        for r in rows {
            let proven: u64 = r[5].parse().expect("a count");
            assert!(
                proven > 50,
                "{front} made only {proven} proven claims:\n{table}"
            );
            assert_eq!(r[6], "0", "{table}");
        }
    }
    table
}

#[test]
fn the_protocol_serve_and_play_call_proven_only_the_solvers_values() {
    proven(
        &["protocol", "serve", "play"],
        &[
            "--positions",
            "300",
            "--threads",
            "1,2",
            "--play-positions",
            "40",
        ],
    );
}

#[test]
fn python_and_the_page_call_proven_only_the_solvers_values() {
    let python = common::builds::python_with_package();
    let (site, _) = common::builds::web_site();
    proven(
        &["python", "web"],
        &[
            "--positions",
            "300",
            "--threads",
            "1,2",
            "--python",
            &python.to_string_lossy(),
            "--web",
            &site.to_string_lossy(),
        ],
    );
}
