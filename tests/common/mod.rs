//! Shared by the integration tests: running the binary, reading the public data sets in
//! tests/data (copies of Pons' sets and the board-size results; nothing outside the repository).

#![allow(dead_code)]

pub mod builds;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Runs the real `vier` binary with `args`, feeding `stdin` and collecting its output.
/// `NO_COLOR` is removed so plain output comes from stdout not being a terminal, as for a user.
pub fn run_vier(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vier"))
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the vier binary runs");
    // a vier that exits before reading (a usage error) closes the pipe: that is its answer
    match child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("writing to vier: {e}"),
        _ => {}
    }
    child.wait_with_output().expect("vier exits")
}

/// The path of a file under `tests/data/`.
pub fn data_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// Reads a data file, failing the test with a clear message when it is missing.
pub fn read_data(rel: &str) -> String {
    let p = data_path(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| {
        panic!(
            "missing test data {}: {e} (tests/data is part of the repository)",
            p.display()
        )
    })
}

/// The `(moves, score)` lines of one of Pons' sets, `Test_L3_R1` etc.
pub fn pons_set(name: &str) -> Vec<(String, i32)> {
    read_data(&format!("pons/{name}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split_whitespace();
            let m = it.next().expect("moves").to_string();
            let s = it.next().expect("score").parse().expect("numeric score");
            (m, s)
        })
        .collect()
}

/// Runs `cmd`, failing the test with its output when it fails; its stdout.
pub fn run_checked(cmd: &mut Command, what: &str) -> String {
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

/// Runs the Python unittest script `script` with `python3` (from the repository's root, with
/// `env`), failing the test with its output when it fails; how many tests it ran (`Ran N`).
pub fn run_unittest(script: &str, env: &[(&str, &std::ffi::OsStr)]) -> u32 {
    let mut cmd = Command::new("python3");
    cmd.arg(script).current_dir(env!("CARGO_MANIFEST_DIR"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .expect("python3 must be installed to run the browser tests");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{script} failed:\n{stdout}\n{stderr}");
    // unittest prints "Ran N tests"; zero would be a broken suite, not a pass
    unittest_ran(&stderr)
}

/// How many tests a Python unittest run reports on stderr (`Ran N tests`); 0 if none, which a
/// caller treats as a broken suite, not a pass.
pub fn unittest_ran(stderr: &str) -> u32 {
    stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("Ran ")?
                .split_whitespace()
                .next()?
                .parse::<u32>()
                .ok()
        })
        .unwrap_or(0)
}

/// A number from `/proc/<pid>/status` (Linux): `VmRSS` in kB, `Threads`, ...; `None` once the
/// process is gone.
pub fn proc_status(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(&format!("{key}:")))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The resident memory of process `pid` in MB (0 once it is gone).
pub fn rss_mb(pid: u32) -> u64 {
    proc_status(pid, "VmRSS").unwrap_or(0) >> 10
}

/// A FIFO named `f.book` in a new directory of its own (`tag` keeps tests apart): the
/// directory, to remove afterwards, and the FIFO's path. Opening one with no writer blocks.
#[cfg(unix)]
pub fn fifo(tag: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("vier-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("f.book");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    (dir, fifo)
}
