//! Builds the Python package (`pip install .`, PyO3 + maturin) into a virtual environment and
//! runs its pytest suite (python/tests), so the README's one test command covers the package.
//!
//! The environment and the package's cargo build live under this build's target directory
//! (`CARGO_TARGET_TMPDIR`) and are reused: a second run rebuilds only what changed. Installing
//! maturin, pytest and pettingzoo needs PyPI the first time.

mod common;

use std::process::Command;

#[test]
fn python_package_builds_and_passes_its_tests() {
    let root = env!("CARGO_MANIFEST_DIR");
    let python = common::builds::python_with_package();
    let out = Command::new(python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-rs",
            "python/tests",
        ])
        .current_dir(root)
        .env("VIER_BIN", env!("CARGO_BIN_EXE_vier"))
        .output()
        .expect("pytest runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "python/tests failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // "N passed in S s": a run that passed nothing, or skipped something, is not a pass
    let summary = stdout.lines().last().unwrap_or("");
    assert!(
        summary.contains(" passed") && !summary.contains("skipped"),
        "pytest: {summary}"
    );
}
