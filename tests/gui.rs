//! Runs the browser tests of `vier gui` (tests/gui/test_gui.py: headless Chromium driven by
//! selenium, and raw HTTP requests) against the binary under test. Chromium, chromedriver and
//! selenium are installed by tools/test.sh (selenium into its own target/test-venv, whose python3
//! it puts first on PATH); without them the Python run fails and says what is missing.
//!
//! The tests save a screenshot of a game with the analysis shown, and two of a 12x4 game
//! (`-12x4-laptop.png`, `-12x4-phone.png` beside it): to the target directory, or wherever
//! VIER_GUI_SCREENSHOT says (`VIER_GUI_SCREENSHOT=$PWD/docs/gui.png cargo test --test gui`
//! renews the committed ones). VIER_GUI_TIMINGS names a file for the click-to-disc times.

mod common;

use std::path::PathBuf;

#[test]
fn browser_and_http_tests() {
    let shot = std::env::var_os("VIER_GUI_SCREENSHOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gui.png"));
    let base = shot.to_string_lossy().trim_end_matches(".png").to_string();
    let shots = [
        shot.clone(),
        PathBuf::from(format!("{base}-12x4-laptop.png")),
        PathBuf::from(format!("{base}-12x4-phone.png")),
    ];
    for path in &shots {
        let _ = std::fs::remove_file(path);
    }
    let ran = common::run_unittest(
        "tests/gui/test_gui.py",
        &[
            ("VIER_BIN", env!("CARGO_BIN_EXE_vier").as_ref()),
            ("VIER_GUI_SCREENSHOT", shot.as_os_str()),
        ],
    );
    assert!(ran > 0, "tests/gui/test_gui.py ran no test");
    // the game with the analysis, and the 12 columns on a laptop and on a phone
    for path in &shots {
        let png = std::fs::read(path).unwrap_or_default();
        assert!(
            png.starts_with(b"\x89PNG"),
            "no screenshot was saved to {}",
            path.display()
        );
    }
}
