//! The command examples of README.md, tools/README.md and the pages of docs/ that have them
//! (the files of `DOCUMENTED`), run as written. Every command of every `sh` block is accounted for below: run (in a scratch directory where `vier` and
//! `target/release/vier` are the binary under test and `tools/`, `tests/`, `book/` are the
//! repository's), with the listed replacements that make it short (fewer games, a smaller
//! board), each of which must find its text in the command; or skipped, with the reason. A
//! new example, or one that changed, fails until this table says what to do with it, so an
//! example can no longer rot unnoticed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What to do with one documented command (after joining its `\` lines and dropping its
/// trailing comment).
enum Plan {
    /// Run it with these (text, replacement) pairs applied, in order.
    Run(&'static [(&'static str, &'static str)]),
    Skip(&'static str),
}
use Plan::{Run, Skip};

const NONE: &[(&str, &str)] = &[];
const SHORT_REFEREE: &[(&str, &str)] = &[("--games 100", "--games 2")];

/// Commands run before a file's examples: the placeholders the examples name (an older
/// engine as `./old/vier` or `./old`, a new one as `./new`) stand for the engine under test.
const SETUP: &str = "mkdir -p old && ln -sf \"$VIER\" old/vier && ln -sf \"$VIER\" new \
                     && printf '123451\\n' > hard.txt";

fn plans() -> Vec<(&'static str, Plan)> {
    vec![
        // README.md
        (
            "cargo install --locked --path .",
            Skip("installs into ~/.cargo/bin: the suite tests the binary cargo built for it, put on PATH here"),
        ),
        ("vier --version", Run(NONE)),
        ("vier gui", Skip("serves until it is ended: tests/gui.rs drives it in a browser")),
        ("vier play", Run(NONE)),
        ("vier play --first engine --movetime 300 --size 6x5", Run(NONE)),
        ("vier play --skill 3", Run(NONE)),
        ("vier book info book/7x6.book --moves 44", Run(NONE)),
        // README.md and docs/solve.md
        ("echo 4453 | vier solve", Run(NONE)),
        ("echo 56567243231755 | vier solve --all", Run(NONE)),
        (
            "vier solve < tests/data/pons/Test_L2_R1",
            Run(&[("vier solve < tests/data/pons/Test_L2_R1", "head -n 20 tests/data/pons/Test_L2_R1 | vier solve")]),
        ),
        // docs/solve.md
        ("echo 4453 | vier solve --at-least 0 --no-book", Run(NONE)),
        (
            "echo - | vier solve --no-book --hash 1024",
            Run(&[("vier solve --no-book", "vier solve --size 5x4 --no-book")]),
        ),
        // docs/book/README.md
        (
            "vier book build --depth 7 --line 16 --threads 2 --out my.book",
            Run(&[("--depth 7 --line 16", "--size 5x4 --depth 5 --line 8")]),
        ),
        ("vier book verify my.book --sample 100", Run(&[("--sample 100", "--sample 5")])),
        ("vier book info my.book --moves 44", Run(NONE)),
        (
            "vier book build --depth 7 --line 16 --extra hard.txt --out my.book",
            Run(&[("--depth 7 --line 16", "--size 5x4 --depth 5 --line 8")]),
        ),
        (
            "python3 tools/referee.py --tc movetime=100 --engine vier --name vier --engine \"/usr/games/fairy-stockfish load tools/fairy-stockfish/cfour.ini\" --name fairy-stockfish --games 160 --openings tools/openings.txt --out m.jsonl --pgn m.pgn",
            Run(&[("--games 160", "--games 2")]),
        ),
        // README.md and docs/python.md
        ("python3 -m venv .venv && . .venv/bin/activate", Run(NONE)),
        (
            "pip install -v .",
            Skip("tests/python_package.rs installs the package into a virtual environment and runs docs/python.md's example"),
        ),
        // README.md and docs/serve.md
        ("vier serve", Skip("serves until it is ended: tests/serve.rs starts it and asks it")),
        (
            "curl 'http://127.0.0.1:8000/solve?pos=4453'",
            Skip("asks the server above; tests/serve.rs asks a server of its own the same"),
        ),
        // README.md
        ("tools/test.sh", Skip("the suite itself")),
        ("tools/test.sh --quick", Skip("the suite's fast tier: the same tests, fewer of them")),
        ("cargo test --profile slow-tests --test solver -- --ignored full_sets", Skip("an ignored test of the suite: an hour")),
        ("cargo test --profile slow-tests --test solver -- --ignored empty_board_7x6", Skip("an ignored test of the suite: an hour")),
        // docs/web.md
        (
            "tools/web.sh",
            Skip("builds the engine's WebAssembly module for minutes: tests/web.rs builds it and checks it in node"),
        ),
        ("python3 -m http.server -d target/web", Skip("serves until it is ended")),
        ("vier book cut --depth 9 --out small.book", Run(NONE)),
        (
            "cargo build --release && tools/web.sh",
            Skip("release builds of minutes: tests/web.rs builds the module and checks it"),
        ),
        (
            "tools/web_measure.py --loads 3 --offline --stalls",
            Skip("needs the folder of tools/web.sh (minutes): tests/web.rs loads the page in Chromium, offline too"),
        ),
        (
            "tools/web_measure.py --first-visit --movetime 1000 --runs 2",
            Skip("needs the folder of tools/web.sh (minutes): tests/web.rs plays the first visit's size change in Chromium"),
        ),
        (
            "tools/web_measure.py --loads 0 --set tests/data/pons/Test_L1_R1",
            Skip("needs the folder of tools/web.sh (minutes): tests/web.rs solves in the module"),
        ),
        (
            "node tools/wasm_bench.mjs",
            Skip("minutes of solving Pons' sets three times; tests/web.rs compares the module's node counts with vier solve's"),
        ),
        // docs/book/building.md
        (
            "vier book positions --discs 10 > ply10.txt",
            Run(&[("--discs 10 > ply10.txt", "--discs 10 | head -n 3 > ply10.txt")]),
        ),
        ("vier book select --nodes 10000 ply10.txt > hard10.txt", Run(NONE)),
        (
            "vier book build --depth 9 --line 16 --extra hard10.txt --out my.book",
            Skip("a 7x6 book to 9 discs: hours; the build of the 5x4 book above runs the same flags"),
        ),
        (
            "vier book positions --book book/7x6.book > held.txt",
            Run(&[("> held.txt", "| head -n 3 > held.txt")]),
        ),
        (
            "vier book positions --discs 13 --shard 2/16 > piece.txt",
            Run(&[("> piece.txt", "| head -n 3 > piece.txt")]),
        ),
        ("vier book select --nodes 10000 piece.txt > hard.txt", Run(NONE)),
        ("cp book/7x6.book my.book", Run(NONE)),
        ("cat held.txt hard.txt > extra.txt", Run(NONE)),
        (
            "vier book build --depth 9 --line 16 --extra extra.txt --out my.book",
            Skip("a 7x6 book to 9 discs: hours"),
        ),
        (
            "seq 0 63 | parallel --sshloginfile hosts --joblog shards.log --return d9.{} --cleanup vier book build --depth 9 --threads 8 --shard {}/64 --out d9.{}",
            Skip("needs ssh hosts; tests/book_shards.rs runs shards through GNU parallel here"),
        ),
        ("vier book merge --line 16 --out 7x6.book d9.*", Skip("merges the shards above")),
        (
            "vier book build --depth 9 --threads 8 --shard \"$SLURM_ARRAY_TASK_ID/64\" --out \"d9.$SLURM_ARRAY_TASK_ID\"",
            Skip("a Slurm job script"),
        ),
        (
            "seq 0 63 | parallel --sshloginfile hosts --basefile hard.txt --basefile old.book --return h.{} --cleanup vier book build --depth 9 --extra hard.txt --book old.book --threads 8 --shard {}/64 --out h.{}",
            Skip("needs ssh hosts; tests/book_shards.rs runs shards through GNU parallel here"),
        ),
        ("vier book merge --line 16 --extra hard.txt --out my.book h.*", Skip("merges the shards above")),
        // docs/prove.md
        (
            "cargo install --locked --path . --features prove",
            Skip("installs into ~/.cargo/bin: the suite's binary has the feature"),
        ),
        // the first proof as written: tests/prove.rs checks the value it prints too
        ("vier prove - --size 6x5 --state p6x5 --split 2 --budget-nodes 65536 --jobs 2", Run(NONE)),
        ("vier prove --status --state p6x5", Run(NONE)),
        ("vier prove --verify --state p6x5", Run(NONE)),
        (
            "vier prove - --state st --jobs 8 --runner 'parallel -j 8'",
            Run(&[
                ("--state st --jobs 8", "--size 5x5 --split 1 --budget-nodes 8192 --hash 1 --state st --jobs 2"),
                ("parallel -j 8", "parallel -j 2"),
            ]),
        ),
        (
            "vier prove - --state st --jobs 20 --vier vier --runner 'parallel -M --sshlogin 8/alice@node1,8/alice@node2 --retries 3'",
            Skip("needs SSH hosts; docs/lab/2026-11-28-prove.md measures it against this machine's own sshd"),
        ),
        (
            "vier prove - --state st --jobs 8 --runner \"xargs -P 8 -d '\\n' -n 1 sh -c\"",
            Run(&[
                ("--state st --jobs 8", "--size 5x5 --split 1 --budget-nodes 8192 --hash 1 --state st2 --jobs 2"),
                ("xargs -P 8", "xargs -P 2"),
            ]),
        ),
        (
            "vier prove - --state /shared/st --jobs 500 --vier /shared/bin/vier --slurm --sbatch 'sbatch --partition=batch --time=1:00:00'",
            Skip("needs a Slurm cluster; tests/prove.rs runs the job arrays through a stand-in sbatch"),
        ),
        // the replay's proof, on a board of seconds instead of minutes, then its table
        (
            "vier prove eggfe --size 11x4 --state eggfe --jobs 1 --budget-nodes 4194304",
            Run(&[
                ("eggfe --size 11x4", "- --size 5x4 --split 1"),
                ("--budget-nodes 4194304", "--budget-nodes 4096"),
            ]),
        ),
        ("python3 tools/replay.py eggfe", Run(NONE)),
        ("python3 tools/replay.py eggfe --cost nodes --rate 6500000", Run(NONE)),
        // tools/README.md
        (
            "nice -n 10 python3 tools/levels.py --games 200 --out docs/levels",
            Run(&[("--games 200", "--games 2 --levels 2 --quiet"), ("--out docs/levels", "--out levels")]),
        ),
        (
            "python3 tools/referee.py --tournament gauntlet --games 50 --openings tools/openings.txt --engine \"/usr/games/fairy-stockfish load tools/fairy-stockfish/cfour.ini\" --name fsf --tc movetime=10 --engine target/release/vier --name level-4 --option \"Skill Level=4\" --tc movetime=100 --engine target/release/vier --name level-6 --option \"Skill Level=6\" --tc movetime=100 --engine target/release/vier --name elo-1500 --option UCI_LimitStrength=true --option UCI_Elo=1500 --tc movetime=100",
            Run(&[("--games 50", "--games 2")]),
        ),
        (
            "python3 tools/referee.py --tc movetime=100 --openings tools/openings.txt --games 100 --engine target/release/vier --name vier --engine \"/usr/games/fairy-stockfish load tools/fairy-stockfish/cfour.ini\" --name fsf --out vier-fsf.jsonl --pgn vier-fsf.pgn",
            Run(SHORT_REFEREE),
        ),
        (
            "python3 tools/referee.py --tc movetime=100 --games 200 --openings tools/openings.txt --engine target/release/vier --name new --engine /path/to/old/vier --name old --concurrency 2 --out new-vs-old.jsonl",
            Run(&[("--games 200", "--games 2"), ("/path/to/old/vier", "./old/vier")]),
        ),
        (
            "python3 tools/referee.py --tournament round-robin --games 20 --tc movetime=50 --engine target/release/vier --name vier --engine ./old/vier --name old --engine \"/usr/games/fairy-stockfish load tools/fairy-stockfish/cfour.ini\" --name fsf --openings tools/openings.txt --concurrency 2 --out rr.jsonl --pgn rr.pgn",
            Run(&[("--games 20", "--games 2")]),
        ),
        (
            "python3 tools/referee.py --engine target/release/vier --name big-hash --option Hash=256 --tc 10+0.1 --engine target/release/vier --name small-hash --option Hash=16 --tc 10+0.1 --games 100",
            Run(&[("--games 100", "--games 2"), ("--tc 10+0.1", "--tc 1+0.01"), ("--tc 10+0.1", "--tc 1+0.01")]),
        ),
        (
            "python3 tools/referee.py --tc movetime=100 --engine A --engine B --games 200 --openings tools/openings.txt --resume new-vs-old.jsonl",
            Skip("A and B stand for the engines of new-vs-old.jsonl above; tools/tests check --resume"),
        ),
        (
            "python3 tools/referee.py --tc 10+0.1 --engine ./new --engine ./old --openings tools/openings.txt --seed 1 --concurrency 2 --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 --max-games 20000 --out sprt.jsonl",
            Run(&[("--tc 10+0.1", "--tc 1+0.01"), ("./old", "./old/vier"), ("--max-games 20000", "--max-games 2")]),
        ),
        ("python3 tools/referee.py --compliance target/release/vier", Run(NONE)),
        (
            "target/release/vier book openings --min-plies 2 --max-plies 6 --max-score 1 > tools/openings.txt",
            Skip("would rewrite the repository's file: tests/openings.rs checks that this command makes it"),
        ),
        (
            "python3 tools/make_openings.py --bin target/release/vier --plies 2-4 --max-abs-score 2 --jobs 2 --cache /tmp/openings.cache --out my-openings.txt",
            Run(&[("--plies 2-4", "--plies 2-2"), ("/tmp/openings.cache", "openings.cache")]),
        ),
        (
            "python3 tools/proven_share.py --threads 2 --movetime 100",
            Run(&[("--movetime 100", "--movetime 20 --limit 5")]),
        ),
        (
            "python3 tools/proven_share.py --threads 1 --movetime 10 --limit 100 --json t1.json",
            Run(&[("--limit 100", "--limit 5")]),
        ),
        (
            "VIER_BIN=target/release/vier python3 -m unittest discover -s tools/tests -t tools",
            Skip("that is tests/tools_python.rs"),
        ),
        // docs/levels/README.md: the calibration's command, as in tools/README.md above
        // docs/study/README.md
        (
            "cargo build --release && python3 tools/study.py --out-dir docs/study",
            Skip("the whole study: half an hour; tools/tests/test_study.py runs `study.py --quick`"),
        ),
        (
            "python3 tools/study.py --replot --out-dir docs/study",
            Skip("rewrites the committed report from its results.json; tools/tests/test_study.py replots"),
        ),
        (
            "python3 tools/study.py --parts elo --level-ms 100 --elo-times '' --fsf-times '' --h2h-times '' --merge --out-dir docs/study",
            Skip("adds the search levels' matches to the committed results: minutes"),
        ),
        // docs/talk.md
        (
            "tools/demo.sh --pause --gui",
            Skip("the talk's live demo: waits for Enter between its parts and keeps the browser page open"),
        ),
    ]
}

/// The commands of a Markdown file's `sh` blocks: `\` lines joined, comment lines (`#!`,
/// `#SBATCH`) and trailing comments (after two spaces) dropped.
fn commands(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in markdown.lines() {
        if !in_sh {
            in_sh = line.trim() == "```sh";
            continue;
        }
        if line.trim() == "```" {
            in_sh = false;
            continue;
        }
        let code = match line.find("  #") {
            Some(i) => &line[..i],
            None => line,
        };
        let code = code.trim();
        if code.starts_with('#') || code.is_empty() {
            continue;
        }
        match code.strip_suffix('\\') {
            Some(part) => {
                pending.push_str(part.trim());
                pending.push(' ');
            }
            None => {
                pending.push_str(code);
                out.push(std::mem::take(&mut pending));
            }
        }
    }
    out
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory that looks like the repository to the examples.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("doc-examples-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("target/release")).unwrap();
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_vier"));
    for link in ["target/release/vier", "bin/vier"] {
        std::os::unix::fs::symlink(bin, dir.join(link)).unwrap();
    }
    for d in ["tools", "tests", "book"] {
        std::os::unix::fs::symlink(root().join(d), dir.join(d)).unwrap();
    }
    dir
}

fn run_file(file: &str) {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let plans = plans();
    let dir = scratch(&file.replace('/', "-"));
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut skipped = 0;
    for cmd in commands(&text) {
        let Some((_, plan)) = plans.iter().find(|(c, _)| *c == cmd) else {
            failures.push(format!(
                "{file}: a new or changed example, not in tests/doc_examples.rs: {cmd}"
            ));
            continue;
        };
        let replacements = match plan {
            Run(r) => r,
            Skip(reason) => {
                eprintln!("{file}: skipped `{cmd}`: {reason}");
                skipped += 1;
                continue;
            }
        };
        let mut short = cmd.clone();
        for (from, to) in *replacements {
            assert!(short.contains(from), "'{from}' is not in: {cmd}");
            short = short.replacen(from, to, 1);
        }
        let script = format!("{SETUP} && {short}");
        let out = Command::new("bash")
            .args(["-c", &script])
            .current_dir(&dir)
            .env("PATH", &path)
            .env("VIER", env!("CARGO_BIN_EXE_vier"))
            .env("VIER_BIN", env!("CARGO_BIN_EXE_vier"))
            .stdin(Stdio::null())
            .output()
            .expect("bash runs");
        ran += 1;
        if !out.status.success() {
            failures.push(format!(
                "{file}: `{short}` failed ({}):\n{}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // a page may hold only commands that cannot run here (servers, installs), but never none
    assert!(ran + skipped > 0, "{file}: no example found");
}

/// The files whose `sh` blocks are examples to run.
const DOCUMENTED: &[&str] = &[
    "README.md",
    "tools/README.md",
    "docs/book/README.md",
    "docs/book/building.md",
    "docs/solve.md",
    "docs/prove.md",
    "docs/serve.md",
    "docs/python.md",
    "docs/levels/README.md",
    "docs/study/README.md",
    "docs/talk.md",
    "docs/web.md",
];

#[test]
fn every_example_is_run_or_skipped_with_a_reason() {
    let mut documented: Vec<String> = DOCUMENTED
        .iter()
        .flat_map(|f| commands(&std::fs::read_to_string(root().join(f)).unwrap()))
        .collect();
    documented.sort();
    for (cmd, _) in plans() {
        assert!(
            documented.binary_search(&cmd.to_string()).is_ok(),
            "tests/doc_examples.rs plans an example the docs no longer have: {cmd}"
        );
    }
}

#[test]
fn the_readme_examples_run_as_written() {
    run_file("README.md");
}

#[test]
fn the_tools_readme_examples_run_as_written() {
    run_file("tools/README.md");
}

#[test]
fn the_book_examples_run_as_written() {
    run_file("docs/book/README.md");
}

#[test]
fn the_book_building_examples_run_as_written() {
    run_file("docs/book/building.md");
}

#[test]
fn the_solve_examples_run_as_written() {
    run_file("docs/solve.md");
}

#[test]
fn the_prove_examples_run_as_written() {
    run_file("docs/prove.md");
}

#[test]
fn the_levels_examples_run_as_written() {
    run_file("docs/levels/README.md");
}

#[test]
fn the_examples_that_cannot_run_here_are_accounted_for() {
    for file in [
        "docs/serve.md",
        "docs/python.md",
        "docs/study/README.md",
        "docs/talk.md",
        "docs/web.md",
    ] {
        run_file(file);
    }
}

/// Every file with `sh` examples among the docs is in `DOCUMENTED`, so none goes unchecked.
#[test]
fn every_page_with_examples_is_documented() {
    let mut pages = vec![root().join("README.md"), root().join("tools/README.md")];
    let mut dirs = vec![root().join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                // dated logs keep the commands of their day; nothing runs them
                if !path.ends_with("lab") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    for page in pages {
        let rel = page
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let has_examples = !commands(&std::fs::read_to_string(&page).unwrap()).is_empty();
        assert!(
            !has_examples || DOCUMENTED.contains(&rel.as_str()),
            "{rel} has `sh` examples: add it to DOCUMENTED in tests/doc_examples.rs"
        );
    }
}
