//! Runs the Python tools' test suite (tools/tests) under `cargo test`, so the README's one test
//! command covers the referee and the other tools too. The tools talk to the real engine binary,
//! whose path they get from `VIER_BIN`.

mod common;

use std::process::Command;

#[test]
fn python_tool_tests() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .args([
            "-m",
            "unittest",
            "discover",
            "-s",
            "tools/tests",
            "-t",
            "tools",
        ])
        .current_dir(root)
        .env("VIER_BIN", env!("CARGO_BIN_EXE_vier"))
        .output()
        .expect("python3 must be installed to run the tools' tests");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "tools/tests failed:\n{}\n{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    // unittest prints "Ran N tests"; a run of zero tests is a broken discovery, not a pass
    let ran = common::unittest_ran(&stderr);
    assert!(ran > 0, "tools/tests ran no test:\n{stderr}");
}
