//! Shared by the integration tests: reading the public data sets in ../shared/data.

#![allow(dead_code)]

use std::path::PathBuf;

/// The path of a file under `../shared/data/`, relative to the crate root.
pub fn data_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel)
}

/// Reads a data file, failing the test with a clear message when it is missing.
pub fn read_data(rel: &str) -> String {
    let p = data_path(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| {
        panic!(
            "missing test data {}: {e}. The tests need ../shared/data beside the project root (see ../shared/README.md)",
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
