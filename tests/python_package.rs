//! Builds the Python package (`pip install .`, PyO3 + maturin) into a virtual environment and
//! runs its pytest suite (python/tests), so the README's one test command covers the package.
//!
//! The environment and the package's cargo build live under this build's target directory
//! (`CARGO_TARGET_TMPDIR`) and are reused: a second run rebuilds only what changed. Installing
//! maturin, pytest and pettingzoo needs PyPI the first time.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn venv_python(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

/// The virtual environment with the build and test requirements, made once.
fn environment(tmp: &Path) -> PathBuf {
    let venv = tmp.join("pyvenv");
    let python = venv_python(&venv);
    if !python.exists() {
        common::run_checked(
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
            "python3 -m venv",
        );
    }
    let ready = Command::new(&python)
        .args(["-c", "import maturin, pytest, pettingzoo, pygame"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ready {
        // pettingzoo's connect_four_v3 imports pygame for its renderer
        common::run_checked(
            Command::new(&python).args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "maturin>=1.5,<2",
                "pytest",
                "pettingzoo>=1.24",
                "pygame",
            ]),
            "pip install maturin pytest pettingzoo pygame",
        );
    }
    venv
}

#[test]
fn python_package_builds_and_passes_its_tests() {
    let root = env!("CARGO_MANIFEST_DIR");
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let venv = environment(tmp);
    let python = venv_python(&venv);
    // maturin's build backend runs the `maturin` program: the environment's, as if activated
    let path = std::env::join_paths(std::iter::once(venv.join("bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH joins");
    // `pip install .` as a user runs it, with the build requirements already in place (no
    // isolated download) and a cargo target directory that outlives the run
    common::run_checked(
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-build-isolation",
                "--no-deps",
                "--force-reinstall",
                ".",
            ])
            .current_dir(root)
            .env("PATH", path)
            .env("CARGO_TARGET_DIR", tmp.join("python-target"))
            // the tests time nothing: a build without link-time optimisation is ready sooner
            .env("CARGO_PROFILE_RELEASE_LTO", "off")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
        "pip install .",
    );
    let out = Command::new(&python)
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
