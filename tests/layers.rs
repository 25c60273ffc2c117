//! The arrows run one way. Between the top-level modules of `src/`: no module refers to a
//! module above it (modules in one layer may not refer to each other either, except where
//! listed as one group). Inside a module: the parts (its files and folders beside `mod.rs`)
//! refer to each other without a circle; `mod.rs`, the facade that declares and re-exports
//! them, is not a part.
//!
//! The layers are those of docs/architecture.md's picture, which this test reads: the picture
//! and the rule cannot disagree. Every `crate::`, `super::` and `self::` path in the code
//! (comments and `#[cfg(test)] mod tests` aside) is checked, with `use` groups over several
//! lines read whole.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Layers from the ground up, read from the architecture page; the modules of one entry form
/// one layer, each a group of its own unless joined by `+`.
fn layers() -> Vec<Vec<Vec<String>>> {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"))
            .expect("docs/architecture.md is readable");
    let picture = page
        .split("## The layers")
        .nth(1)
        .and_then(|s| s.split("```text\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("docs/architecture.md draws the layers in a text block under '## The layers'");
    let mut layers = Vec::new();
    let is_module = |m: &str| m.ends_with(".rs") || m.ends_with('/');
    for line in picture.lines() {
        // the modules (`name.rs`, `name/`, joined by `+` in one group), then what they are for
        let groups: Vec<Vec<String>> = line
            .split_whitespace()
            .take_while(|token| token.split('+').all(is_module))
            .map(|group| {
                group
                    .split('+')
                    .map(|m| m.trim_end_matches(".rs").trim_end_matches('/').to_string())
                    .collect()
            })
            .collect();
        if groups.is_empty() || groups == [["main"]] {
            continue;
        }
        layers.push(groups);
    }
    // drawn from the top down
    layers.reverse();
    layers
}

/// The layer of a top-level module, and its group within the layer.
fn place(layers: &[Vec<Vec<String>>], module: &str) -> Option<(usize, usize)> {
    // the macros are exported at the crate root but belong to their modules
    let module = match module {
        "with_size" => "board",
        "size_registry" | "size_table" => "bits",
        other => other,
    };
    layers.iter().enumerate().find_map(|(layer, groups)| {
        groups
            .iter()
            .position(|g| g.iter().any(|m| m == module))
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

/// The code of a file: line comments dropped, and the unit tests at its end left out (their
/// `super::*` is the file itself). Line breaks are kept, so that offsets give line numbers.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod tests"))
        {
            break;
        }
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// Every path in `code` that starts with `root::` (`crate`, `super`, `self`), as the names
/// after it: `crate::board::Position` gives `["board", "Position"]`, and a group gives one
/// path per member, nested groups and line breaks included (`crate::{a, b::{c, d}}` gives
/// `[a]`, `[b, c]`, `[b, d]`). Each with its line number.
fn paths(code: &str, root: &str) -> Vec<(usize, Vec<String>)> {
    let needle = format!("{root}::");
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(&needle) {
        let start = from + at;
        from = start + needle.len();
        // a whole word: not `xsuper::`
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            continue;
        }
        let line = code[..start].matches('\n').count() + 1;
        let (tree, _) = tree(code, from);
        for path in tree {
            out.push((line, path));
        }
    }
    out
}

/// The paths of the use tree that starts at byte `i` (after a `::`), and where it ends.
fn tree(code: &str, mut i: usize) -> (Vec<Vec<String>>, usize) {
    let bytes = code.as_bytes();
    let skip_space = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    i = skip_space(i);
    if i < bytes.len() && bytes[i] == b'{' {
        let mut all = Vec::new();
        i += 1;
        loop {
            i = skip_space(i);
            if i >= bytes.len() {
                return (all, i);
            }
            match bytes[i] {
                b'}' => return (all, i + 1),
                b',' => i += 1,
                _ => {
                    let (member, end) = tree(code, i);
                    all.extend(member);
                    // a member that reads nothing would loop
                    i = end.max(i + 1);
                }
            }
        }
    }
    let name_end = code[i..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '*'))
        .map_or(code.len(), |n| i + n);
    let name = code[i..name_end].to_string();
    if name.is_empty() {
        return (Vec::new(), name_end);
    }
    let after = skip_space(name_end);
    if code[after..].starts_with("::") {
        let (rest, end) = tree(code, after + 2);
        let paths = if rest.is_empty() {
            vec![vec![name]]
        } else {
            rest.into_iter()
                .map(|mut p| {
                    p.insert(0, name.clone());
                    p
                })
                .collect()
        };
        return (paths, end);
    }
    (vec![vec![name]], name_end)
}

/// A module's files: `src/<module>.rs` alone, or the files under `src/<module>/`.
struct Module {
    /// The part of each file (its file name, or the folder it is in under the module);
    /// `None` for `mod.rs`.
    files: Vec<(PathBuf, Option<String>)>,
    /// Names `mod.rs` re-exports from a part (`pub use part::{Name, ...}`).
    reexports: BTreeMap<String, String>,
}

fn modules(src: &Path) -> BTreeMap<String, Module> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut out: BTreeMap<String, Module> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap().to_path_buf();
        let parts: Vec<String> = rel
            .components()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .collect();
        let module = parts[0].clone();
        if module == "lib" || module == "main" {
            continue;
        }
        let part = match parts.len() {
            1 => None,
            2 if parts[1] == "mod" => None,
            _ => Some(parts[1].clone()),
        };
        out.entry(module)
            .or_insert_with(|| Module {
                files: Vec::new(),
                reexports: BTreeMap::new(),
            })
            .files
            .push((file, part));
    }
    for m in out.values_mut() {
        let Some((facade, _)) = m.files.iter().find(|(_, p)| p.is_none()) else {
            continue;
        };
        let text = code(&std::fs::read_to_string(facade).unwrap());
        for stmt in text.split(';') {
            let Some(rest) = stmt.trim().strip_prefix("pub use ") else {
                continue;
            };
            let (tree, _) = tree(rest, 0);
            for path in tree {
                if let (Some(part), Some(name)) = (path.first(), path.last()) {
                    if path.len() > 1 && name != "*" {
                        m.reexports.insert(name.clone(), part.clone());
                    }
                }
            }
        }
    }
    out
}

/// The first circle in a graph of parts, if any (depth first, in name order).
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|n| n == node) {
            let mut c = path[i..].to_vec();
            c.push(node.to_string());
            return Some(c);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|n| visit(n, edges, &mut Vec::new(), &mut done))
}

/// The front ends and their own crates: where each one's files are, how its code names the
/// engine crate, and the modules it may use besides the engine's vocabulary (`engine`, the
/// board, the notation). Only `vier book`, the offline tool that makes books, works on the
/// book's files and the solver's scores itself; `vier prove` drives the proofs of `prove/`.
const FRONT_ENDS: &[(&str, &str, &[&str])] = &[
    (
        "src/main.rs",
        "vier",
        &["cli", "gui", "keeper", "protocol", "serve"],
    ),
    ("src/protocol", "crate", &["protocol"]),
    ("src/cli/play", "crate", &["cli"]),
    ("src/cli/solve.rs", "crate", &["cli"]),
    ("src/cli/mod.rs", "crate", &["cli"]),
    (
        "src/cli/book.rs",
        "crate",
        &["cli", "book", "book_build", "bits", "score"],
    ),
    ("src/cli/prove.rs", "crate", &["cli", "prove"]),
    ("src/gui", "crate", &["gui", "serve", "http", "keeper"]),
    ("src/serve.rs", "crate", &["serve", "http"]),
    ("src/http.rs", "crate", &["serve", "http"]),
    ("python/src", "vier", &[]),
    ("web/engine/src", "vier", &["gui"]),
];

/// The front ends' files in `src/`: `main.rs` and every file of the modules the picture draws
/// above the engine service (the line that starts with `engine/`).
fn front_end_files(root: &Path) -> Vec<PathBuf> {
    let layers = layers();
    let engine = place(&layers, "engine")
        .expect("the picture draws engine/")
        .0;
    let src = root.join("src");
    let mut files = vec![src.join("main.rs")];
    for module in layers[engine + 1..].iter().flatten().flatten() {
        let dir = src.join(module);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        } else {
            files.push(src.join(format!("{module}.rs")));
        }
    }
    files.sort();
    files
}

/// What every front end may use of the engine crate: the engine's vocabulary, the board and
/// the notation.
const VOCABULARY: &[&str] = &["engine", "board", "notation"];

#[test]
fn front_ends_speak_only_the_engines_vocabulary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut wrong = Vec::new();
    let mut seen = 0;
    for &(place, krate, own) in FRONT_ENDS {
        let path = root.join(place);
        let mut files = Vec::new();
        if path.is_dir() {
            rust_files(&path, &mut files);
        } else {
            files.push(path.clone());
        }
        assert!(!files.is_empty(), "{place}: no Rust file");
        for file in files {
            seen += 1;
            let text = code(&std::fs::read_to_string(&file).unwrap());
            for (line, p) in paths(&text, krate) {
                let target = p[0].as_str();
                if !VOCABULARY.contains(&target) && !own.contains(&target) {
                    wrong.push(format!(
                        "{}:{line}: {krate}::{} is below the engine's vocabulary",
                        file.strip_prefix(root).unwrap().display(),
                        p.join("::")
                    ));
                }
            }
        }
    }
    assert!(seen > 20, "read only {seen} files");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_front_end_file_is_checked() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed: Vec<PathBuf> = FRONT_ENDS.iter().map(|f| root.join(f.0)).collect();
    let files = front_end_files(root);
    assert!(
        files.iter().any(|f| f.ends_with("src/cli/prove.rs")) && files.len() > 30,
        "{files:?}"
    );
    let missing: Vec<String> = files
        .iter()
        .filter(|f| !listed.iter().any(|l| f.starts_with(l)))
        .map(|f| f.strip_prefix(root).unwrap().display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "front-end files that no entry of FRONT_ENDS lists (add each with the modules it may \
         use): {missing:?}"
    );
}

#[test]
fn no_module_refers_to_a_module_above_it_and_no_module_has_a_circle_inside() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let layers = layers();
    let modules = modules(&src);
    let mut wrong = Vec::new();
    let mut across: BTreeSet<String> = BTreeSet::new();
    for (module, m) in &modules {
        let Some((layer, group)) = place(&layers, module) else {
            wrong.push(format!(
                "src/{module} is in no layer: draw it in docs/architecture.md"
            ));
            continue;
        };
        let mut inside: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (file, part) in &m.files {
            let shown = file.strip_prefix(&src).unwrap().display().to_string();
            let text = code(&std::fs::read_to_string(file).unwrap());
            // a part's references to the other parts of its module
            let mut to_part = |target: &str| {
                let Some(from) = part else { return };
                let target = m.reexports.get(target).map_or(target, String::as_str);
                let is_part = m.files.iter().any(|(_, p)| p.as_deref() == Some(target));
                if is_part && target != from {
                    inside
                        .entry(from.clone())
                        .or_default()
                        .insert(target.to_string());
                }
            };
            for (line, path) in paths(&text, "crate") {
                let target = &path[0];
                if target == module {
                    if let Some(second) = path.get(1) {
                        to_part(second);
                    }
                    continue;
                }
                let Some((to_layer, to_group)) = place(&layers, target) else {
                    wrong.push(format!(
                        "src/{shown}:{line}: crate::{target} is in no layer"
                    ));
                    continue;
                };
                across.insert(format!("{module} -> {target}"));
                if to_layer > layer || (to_layer == layer && to_group != group) {
                    wrong.push(format!(
                        "src/{shown}:{line}: {module} refers to {target}, which is not below it"
                    ));
                }
            }
            // `super::` from a part one folder down names a sibling (or the facade's item)
            let depth = file.strip_prefix(&src).unwrap().components().count();
            let part_depth = if file.file_name().is_some_and(|f| f == "mod.rs") {
                depth - 1
            } else {
                depth
            };
            if part_depth == 2 {
                for (_, path) in paths(&text, "super") {
                    to_part(&path[0]);
                }
            }
        }
        if let Some(c) = circle(&inside) {
            wrong.push(format!("src/{module}/ has a circle: {}", c.join(" -> ")));
        }
    }
    assert!(
        wrong.is_empty(),
        "arrows that run upwards or in circles:\n{}",
        wrong.join("\n")
    );
    // the check has something to check: the solver uses the table, the protocol the engine
    assert!(
        across.contains("solver -> tt") && across.contains("protocol -> engine"),
        "{across:?}"
    );
}

/// Every file and folder docs/architecture.md names in backticks (`gui/game.rs`, `engine/`)
/// exists: under `src/`, from the repository's root, or (a bare file name) somewhere in `src/`.
#[test]
fn every_file_the_architecture_page_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let mut all = Vec::new();
    rust_files(&root.join("src"), &mut all);
    let mut named = 0;
    let mut missing = Vec::new();
    for quoted in page.split('`').skip(1).step_by(2) {
        let is_path = |t: &str| {
            t.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_/.".contains(c))
                && (t.ends_with(".rs") || (t.ends_with('/') && t.len() > 1))
        };
        if !is_path(quoted) {
            continue;
        }
        named += 1;
        let found = root.join("src").join(quoted).exists()
            || root.join(quoted).exists()
            || (!quoted.contains('/') && all.iter().any(|f| f.ends_with(quoted)));
        if !found {
            missing.push(quoted.to_string());
        }
    }
    assert!(named > 50, "read only {named} names");
    assert!(
        missing.is_empty(),
        "docs/architecture.md names what is not there: {missing:?}"
    );
}

#[test]
fn the_reference_reader_reads_groups_over_lines_nested_groups_and_skips_comments() {
    let text = code(
        "use crate::board::Position;\nuse crate::{\n    score,\n    tt::{Entry, TransTable},\n};\n\
         // crate::gui in a comment\nuse super::rules::Cell; use xsuper::no;\n\
         #[cfg(test)]\nmod tests {\n    use crate::gui;\n}\n",
    );
    let names: Vec<String> = paths(&text, "crate")
        .into_iter()
        .map(|(_, p)| p.join("::"))
        .collect();
    assert_eq!(
        names,
        ["board::Position", "score", "tt::Entry", "tt::TransTable"]
    );
    let lines: Vec<usize> = paths(&text, "crate").into_iter().map(|(l, _)| l).collect();
    assert_eq!(lines, [1, 2, 2, 2]);
    let sup: Vec<String> = paths(&text, "super")
        .into_iter()
        .map(|(_, p)| p.join("::"))
        .collect();
    assert_eq!(sup, ["rules::Cell"]);
}

#[test]
fn a_circle_between_parts_is_found_and_a_chain_is_not() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    assert_eq!(circle(&graph(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(
        circle(&graph(&[("search", "resolve"), ("resolve", "search")])),
        Some(vec!["resolve".into(), "search".into(), "resolve".into()])
    );
}
