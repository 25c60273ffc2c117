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

/// The defaults of every function and method, as `name.argument` (`name#2.argument` for the
/// second function of that name, in the order of the file: both files define them in one order):
/// from the bindings' `#[pyo3(signature = (...))]` (the name is the `fn` that follows) or from
/// the stub's `def`s. The stub calls a constructor `__init__`, the bindings `new`.
fn defaults(text: &str, binding: bool) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    let mut seen: std::collections::BTreeMap<String, usize> = Default::default();
    let mut rest = text;
    let (open, name_key) = if binding {
        ("#[pyo3(signature = (", "fn ")
    } else {
        ("def ", "def ")
    };
    while let Some(at) = rest.find(open) {
        rest = &rest[at + open.len()..];
        // the parameters up to the parenthesis that closes them
        let (params, name) = if binding {
            let end = rest.find("))]").expect("a signature ends");
            let after = &rest[end..];
            let f = after.find(name_key).expect("a fn follows its signature") + name_key.len();
            let name: String = after[f..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (&rest[..end], name)
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let start = rest.find('(').expect("a def has parameters") + 1;
            let end = start + rest[start..].find(") ->").expect("a def is typed");
            (&rest[start..end], name)
        };
        let name = if name == "__init__" {
            "new".into()
        } else {
            name
        };
        let n = seen.entry(name.clone()).or_default();
        *n += 1;
        let name = if *n == 1 { name } else { format!("{name}#{n}") };
        for param in params.split(',') {
            let Some((lhs, value)) = param.split_once('=') else {
                continue;
            };
            let arg = lhs.split(':').next().unwrap().trim();
            let value = match value.trim() {
                "true" => "True".to_string(),
                "false" => "False".to_string(),
                v => v.to_string(),
            };
            out.insert(format!("{name}.{arg}"), value);
        }
    }
    out
}

/// The Python package's defaults are the engine's declarations, and its stub (`_vier.pyi`, what
/// editors and type checkers read) says what the bindings do (issue 75: both wrote
/// `hash_mb=32, search_level=7` by hand).
#[test]
fn the_python_defaults_are_the_engines_and_the_stub_says_them() {
    use vier::board::Size;
    use vier::engine::settings::{HASH, LEVEL_SEED, SEARCH_LEVEL, THREADS};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect(p);
    let bindings = defaults(&read("python/src/lib.rs"), true);
    let stub = defaults(&read("python/vier/_vier.pyi"), false);
    let size = Size::default();
    // Position's constructor comes first, Engine's second
    let declared = [
        ("new#2.threads", THREADS.default.to_string()),
        ("new#2.hash_mb", HASH.default.to_string()),
        ("new#2.seed", LEVEL_SEED.default.to_string()),
        ("new#2.search_level", SEARCH_LEVEL.default.to_string()),
        ("new.width", size.width().to_string()),
        ("new.height", size.height().to_string()),
        ("from_board.width", size.width().to_string()),
        ("from_board.height", size.height().to_string()),
        ("from_cells.width", size.width().to_string()),
        ("from_cells.height", size.height().to_string()),
    ];
    for (arg, want) in declared {
        assert_eq!(bindings.get(arg), Some(&want), "python/src/lib.rs: {arg}");
    }
    assert!(bindings.len() > 15, "read only {bindings:?}");
    assert_eq!(
        stub, bindings,
        "python/vier/_vier.pyi and python/src/lib.rs disagree"
    );
}
