//! The arrows run one way: no module of `src/` refers to a module above it. The layers, from the
//! ground up (modules in one layer may not refer to each other either, except where listed as
//! one group):
//!
//! the board's width (`bits`: the bitboard type and the registry of sizes) <- how moves are
//! written (`notation`) <- rules (`board`) <- `score` <- the search's parts (`tt`, `ordering`, `eval`) <- `time` <-
//! `control` <- `book` (files and lookups) <- `solver` <- `search` <- `study`, `levels` (what
//! a search is asked to be) <- `book_build` <- `api` (the engine for embedders) <- `http` (the
//! servers' bounded connections) <- `serve` (the HTTP solve route) <- the front ends
//! (`protocol`, `cli`, `gui`).
//!
//! `cargo test --test layers` checks every `crate::` path in the code (comments aside) of every
//! file under `src/` against this list.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Layers from the ground up; the modules of one entry form one layer.
const LAYERS: &[&[&str]] = &[
    &["bits"],
    &["notation"],
    &["board"],
    &["score"],
    &["tt", "ordering", "eval"],
    &["time"],
    &["control"],
    &["book"],
    &["solver"],
    &["search"],
    &["study", "levels"],
    &["book_build"],
    &["api"],
    &["http"],
    &["serve"],
    &["protocol", "cli", "gui"],
];

/// The layer of a top-level module, and its group (the entry's index within the layer).
fn place(module: &str) -> Option<(usize, usize)> {
    // `with_size!` is exported at the crate root but belongs to the rules
    // the macros are exported at the crate root but belong to their modules
    let module = match module {
        "with_size" => "board",
        "size_registry" | "size_table" => "bits",
        other => other,
    };
    LAYERS.iter().enumerate().find_map(|(layer, mods)| {
        mods.iter()
            .position(|m| *m == module)
            .map(|group| (layer, group))
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::name` in the code of `text` (line comments and doc comments skipped).
fn crate_refs(text: &str) -> Vec<(usize, String)> {
    let mut refs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let grouped = after.starts_with('{');
            if grouped {
                // `crate::{a, b::c}`: each name before a `::` or a comma
                let inner = &after[1..after.find('}').unwrap_or(after.len())];
                for part in inner.split(',') {
                    let first = part.trim().split("::").next().unwrap_or("").trim();
                    if !first.is_empty() {
                        refs.push((n + 1, first.to_string()));
                    }
                }
            } else if !name.is_empty() {
                refs.push((n + 1, name));
            }
            rest = &after[after.len().min(1)..];
        }
    }
    refs
}

#[test]
fn no_module_refers_to_a_module_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    let mut edges: BTreeMap<String, usize> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let (layer, group) = place(&module)
            .unwrap_or_else(|| panic!("src/{} is in no layer: add it to LAYERS", rel.display()));
        let text = std::fs::read_to_string(file).unwrap();
        for (line, target) in crate_refs(&text) {
            if target == module {
                continue;
            }
            let Some((to_layer, to_group)) = place(&target) else {
                wrong.push(format!(
                    "src/{}:{line}: crate::{target} is in no layer",
                    rel.display()
                ));
                continue;
            };
            *edges.entry(format!("{module} -> {target}")).or_default() += 1;
            if to_layer > layer || (to_layer == layer && to_group != group) {
                wrong.push(format!(
                    "src/{}:{line}: {module} refers to {target}, which is not below it",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "arrows that run upwards:\n{}",
        wrong.join("\n")
    );
    // the check has something to check: the solver uses the table, the protocol the search
    assert!(edges.contains_key("solver -> tt") && edges.contains_key("protocol -> search"));
}

#[test]
fn the_reference_scanner_reads_single_and_grouped_paths_and_skips_comments() {
    let refs = crate_refs(
        "use crate::board::Position;\nuse crate::{score, tt::Entry};\n// crate::gui in a comment\n",
    );
    let names: Vec<&str> = refs.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["board", "score", "tt"]);
}
