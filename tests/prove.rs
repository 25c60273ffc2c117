//! `vier prove`: proofs split into jobs give the published values of small boards (through the
//! jobs of this machine, GNU parallel and xargs), survive a front end killed with `kill -9`
//! mid-proof, refuse a second front end, run a damaged result's job again, and `--verify`
//! catches a planted wrong leaf.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn vier() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vier"));
    c.env_remove("NO_COLOR");
    c
}

/// A fresh folder for a state (not created: `vier prove` makes it).
fn state_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vier-prove-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `vier prove` with `args`, failing the test with its output unless it succeeds; stdout.
fn prove(args: &[&str]) -> String {
    let out = vier().arg("prove").args(args).output().expect("vier runs");
    assert!(
        out.status.success(),
        "vier prove {args:?} failed:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn run(args: &[&str]) -> Output {
    vier().args(args).output().expect("vier runs")
}

/// The published result of a size (tests/data/sizes.md) as the first player's win (1), draw
/// (0) or loss (-1), and as an exact score.
fn published(size: &str) -> (i32, i32) {
    let table = common::read_data("sizes.md");
    let row = table
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            (f.len() > 3 && f[1] == size).then(|| (f[2].to_string(), f[3].to_string()))
        })
        .unwrap_or_else(|| panic!("{size} is in sizes.md"));
    let (w, h) = size.split_once('x').unwrap();
    let cells = w.parse::<i32>().unwrap() * h.parse::<i32>().unwrap();
    let ends: i32 = row.1.parse().expect("a published move");
    match row.0.as_str() {
        "draw" => (0, 0),
        // the winner's disc dropped when ends - 1 discs are down
        "1st" => (1, vier::score::win_at(cells, ends - 1)),
        "2nd" => (-1, -vier::score::win_at(cells, ends - 1)),
        r => panic!("{r}"),
    }
}

/// The value `vier prove` printed: `7x6 - weak 1: ...`.
fn value(stdout: &str) -> i32 {
    stdout
        .split(':')
        .next()
        .and_then(|s| s.split_whitespace().nth(3))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("a value in '{stdout}'"))
}

fn files(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| {
        d.filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "out"))
        })
        .count()
    })
}

fn verify(state: &Path) -> Output {
    run(&[
        "prove",
        "--verify",
        "--state",
        state.to_str().unwrap(),
        "--jobs",
        "2",
    ])
}

#[test]
fn published_boards_proven_through_jobs_give_the_published_values() {
    // win/draw/loss with tiny budgets (many jobs, several levels of the tree), and two exact
    // scores
    for (size, exact, budget) in [
        ("4x4", false, "4096"),
        ("5x4", false, "4096"),
        ("6x4", false, "4096"),
        ("4x5", false, "4096"),
        ("5x5", false, "8192"),
        ("6x5", false, "16384"),
        ("7x4", false, "16384"),
        ("6x4", true, "4096"),
        ("5x5", true, "8192"),
    ] {
        let dir = state_dir(&format!("{size}-{exact}"));
        let d = dir.to_str().unwrap();
        let mut args = vec![
            "-",
            "--size",
            size,
            "--state",
            d,
            "--budget-nodes",
            budget,
            "--hash",
            "1",
            "--jobs",
            "2",
            // the root in jobs, not one: the solver proves these boards within the budget
            "--split",
            "1",
        ];
        if exact {
            args.push("--exact");
        }
        let out = prove(&args);
        let (weak, score) = published(size);
        assert_eq!(
            value(&out),
            if exact { score } else { weak },
            "{size}: {out}"
        );
        assert!(
            files(&dir.join("results")) > 1,
            "{size}: the root was split into jobs"
        );
        let v = verify(&dir);
        assert!(
            v.status.success(),
            "{size}: {}{}",
            text(&v.stdout),
            text(&v.stderr)
        );
        // solved by this vier on this machine: nothing else trusted
        assert!(!text(&v.stdout).contains("trusted"), "{}", text(&v.stdout));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn positions_with_known_scores_are_proven_on_both_sides() {
    // Pons' positions of 7x6 (middle game): wins, draws and losses of the side to move
    let set = common::pons_set("Test_L2_R1");
    let mut picked: Vec<(String, i32)> = Vec::new();
    for want in [-1, 0, 1] {
        picked.extend(
            set.iter()
                .filter(|(_, s)| s.signum() == want)
                .take(2)
                .cloned(),
        );
    }
    for (i, (moves, score)) in picked.iter().enumerate() {
        let dir = state_dir(&format!("pons{i}"));
        let d = dir.to_str().unwrap();
        let exact = i % 2 == 1;
        let mut args = vec![
            moves.as_str(),
            "--state",
            d,
            "--budget-nodes",
            "4096",
            "--hash",
            "1",
            "--jobs",
            "2",
        ];
        if exact {
            args.push("--exact");
        }
        let out = prove(&args);
        let want = if exact { *score } else { score.signum() };
        assert_eq!(value(&out), want, "{moves}: {out}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Waits for `child` to have written at least `n` result files in `dir`, or to end.
fn wait_for_results(child: &mut Child, dir: &Path, n: usize) {
    let start = Instant::now();
    while files(&dir.join("results")) < n {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the proof ended before it was killed"
        );
        assert!(start.elapsed() < Duration::from_secs(60), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_proof_killed_mid_way_goes_on_from_its_state_and_gives_the_same_value() {
    let whole = state_dir("whole");
    let cut = state_dir("cut");
    let args = |d: &Path, jobs: &str| {
        vec![
            "-".to_string(),
            "--size".into(),
            "6x5".into(),
            "--state".into(),
            d.to_str().unwrap().into(),
            "--budget-nodes".into(),
            "8192".into(),
            "--hash".into(),
            "1".into(),
            "--jobs".into(),
            jobs.into(),
        ]
    };
    // One job at a time takes the same jobs each run (503 here). Two at once end jobs that are
    // no longer needed, so their count depends on timing: 442 to 742 in ten runs on a busy
    // machine. Each kill below comes after an eighth of the one-job count.
    let full = prove(
        &args(&whole, "1")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    let step = (files(&whole.join("results")) / 8).max(1);
    // killed twice with -9 while two jobs run, each time after some jobs
    let mut done_before = 0;
    for _ in 0..2 {
        let mut child = vier()
            .arg("prove")
            .args(args(&cut, "2"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_results(&mut child, &cut, done_before + step);
        // meanwhile a second front end on the folder is refused
        if done_before == 0 {
            let second = run(&["prove", "--state", cut.to_str().unwrap()]);
            assert!(!second.status.success());
            assert!(
                text(&second.stderr).contains("another vier prove"),
                "{}",
                text(&second.stderr)
            );
        }
        child.kill().unwrap();
        child.wait().unwrap();
        done_before = files(&cut.join("results"));
    }
    // the status is readable between runs and tells the truth: no front end holds the folder
    // (killed with -9, it holds its lock no more), so nothing runs
    let status = run(&["prove", "--status", "--state", cut.to_str().unwrap()]);
    assert!(status.status.success());
    let said = text(&status.stdout);
    assert!(
        said.contains("\nstate stopped\n") && said.contains("\njobs_running 0\n"),
        "{said}"
    );
    // and the rest is done by a restart
    let resumed = vier()
        .args(["prove", "--state", cut.to_str().unwrap(), "--jobs", "2"])
        .output()
        .unwrap();
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    // started again without them, it keeps the budget and the table of its jobs
    assert!(
        text(&resumed.stderr).contains("resuming")
            && text(&resumed.stderr).contains("new jobs of 8192 nodes with 1 MB tables"),
        "{}",
        text(&resumed.stderr)
    );
    assert_eq!(value(&text(&resumed.stdout)), value(&full));
    assert_eq!(value(&full), published("6x5").0);
    assert!(verify(&cut).status.success());
    // finished: proven, nothing running or to run again, and a restart has nothing to do
    let said = text(&run(&["prove", "--status", "--state", cut.to_str().unwrap()]).stdout);
    for line in ["state proven", "jobs_running 0", "jobs_waiting 0"] {
        assert!(said.contains(&format!("\n{line}\n")), "{line}: {said}");
    }
    let again = run(&["prove", "--state", cut.to_str().unwrap()]);
    assert!(
        again.status.success() && text(&again.stderr).contains(" 0 to run again"),
        "{}",
        text(&again.stderr)
    );
    for d in [whole, cut] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn a_damaged_result_is_found_and_its_job_run_again_with_the_same_lines() {
    let dir = state_dir("damaged");
    let d = dir.to_str().unwrap();
    let args = [
        "-",
        "--size",
        "5x4",
        "--state",
        d,
        "--budget-nodes",
        "4096",
        "--hash",
        "1",
        "--jobs",
        "1",
        "--split",
        "2",
    ];
    let first = prove(&args);
    let results = dir.join("results");
    let mut outs: Vec<PathBuf> = std::fs::read_dir(&results)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    outs.sort();
    assert!(outs.len() >= 3, "{outs:?}");
    // a line cut short (a job killed as it wrote), and a number changed into garbage
    let cut = &outs[0];
    let whole = std::fs::read_to_string(cut).unwrap();
    std::fs::write(cut, &whole[..whole.len() - 3]).unwrap();
    let garbled = &outs[1];
    let g = std::fs::read_to_string(garbled).unwrap();
    std::fs::write(garbled, g.replacen(' ', " x", 1)).unwrap();
    let again = vier()
        .args(["prove", "--state", d, "--hash", "1", "--jobs", "1"])
        .output()
        .unwrap();
    assert!(again.status.success(), "{}", text(&again.stderr));
    let log = text(&again.stderr);
    assert!(log.matches("does not check").count() >= 2, "{log}");
    assert_eq!(value(&text(&again.stdout)), value(&first));
    // the jobs ran again: the same lines, but for the microseconds
    let strip = |s: &str| -> Vec<String> {
        s.lines()
            .map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                if f[0] == "vier-prove" {
                    l.to_string()
                } else {
                    [&f[..3], &f[4..]].concat().join(" ")
                }
            })
            .collect()
    };
    assert_eq!(strip(&std::fs::read_to_string(cut).unwrap()), strip(&whole));
    assert_eq!(strip(&std::fs::read_to_string(garbled).unwrap()), strip(&g));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn verify_catches_a_planted_wrong_leaf() {
    let dir = state_dir("planted");
    let d = dir.to_str().unwrap();
    prove(&[
        "-",
        "--size",
        "6x4",
        "--state",
        d,
        "--budget-nodes",
        "4096",
        "--hash",
        "1",
        "--jobs",
        "2",
    ]);
    let ok = verify(&dir);
    assert!(ok.status.success(), "{}", text(&ok.stdout));
    assert!(text(&ok.stdout).starts_with("verified: 6x4 - weak -1"));
    // a leaf's bounds changed into a value outside them: the back-up may still hold, the
    // solver not
    let cert = dir.join("certificate");
    let good = std::fs::read_to_string(&cert).unwrap();
    let mut planted = None;
    let bad: String = good
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            match f[..] {
                [m, "leaf", a, b, n] if planted.is_none() => {
                    let (a, b): (i32, i32) = (a.parse().unwrap(), b.parse().unwrap());
                    let other = if a > -1 { -1 } else { 1 };
                    planted = Some((m.to_string(), (a, b), other));
                    format!("{m} leaf {other} {other} {n}\n")
                }
                _ => format!("{l}\n"),
            }
        })
        .collect();
    let (moves, (a, b), now) = planted.expect("a leaf");
    std::fs::write(&cert, &bad).unwrap();
    let caught = verify(&dir);
    assert!(!caught.status.success());
    let report = text(&caught.stdout);
    // the leaf solved again says so (and the back-up may not hold either): a loss is a bound,
    // at most -1, which the solver asked ">= 0" refutes; a win, at least 1, is refuted by
    // ">= 1" (the true bounds were a..b)
    assert!(a > -1 || b < 1, "a leaf says something");
    let refuted = if now == -1 { "at least 0" } else { "at most 0" };
    assert!(
        report.contains(&format!(
            "leaf {moves}: the certificate says {now}, the solver says {refuted}"
        )),
        "{report}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_jobs_run_through_gnu_parallel_and_xargs_give_the_same_value() {
    for runner in ["parallel -j 2", "xargs -P 2 -d '\\n' -n 1 sh -c"] {
        let dir = state_dir(runner.split(' ').next().unwrap());
        let d = dir.to_str().unwrap();
        let out = prove(&[
            "-",
            "--size",
            "5x5",
            "--state",
            d,
            "--budget-nodes",
            "8192",
            "--hash",
            "1",
            "--jobs",
            "3",
            "--runner",
            runner,
        ]);
        assert_eq!(value(&out), published("5x5").0, "{runner}");
        assert!(files(&dir.join("results")) > 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// An `sbatch` for the tests: runs a job array's tasks one after the other, here, as Slurm
/// would (its task number in SLURM_ARRAY_TASK_ID, its output where `--output` says), after
/// saying the job's number as sbatch does.
const FAKE_SBATCH: &str = r#"#!/bin/sh
[ "$1" = --wait ] || exit 2
script=$2
last=$(sed -n 's/^#SBATCH --array=0-\([0-9]*\)$/\1/p' "$script")
out=$(sed -n 's/^#SBATCH --output=\(.*\)$/\1/p' "$script")
echo "Submitted batch job 42"
for i in $(seq 0 "$last"); do
    SLURM_ARRAY_TASK_ID=$i sh "$script" > "$(echo "$out" | sed "s/%a/$i/")"
done
"#;

#[test]
fn the_jobs_run_as_slurm_job_arrays_give_the_same_value() {
    let dir = state_dir("slurm");
    let fake = std::env::temp_dir().join(format!("vier-fake-sbatch-{}", std::process::id()));
    std::fs::write(&fake, FAKE_SBATCH).unwrap();
    let sbatch = format!("sh {}", fake.display());
    let d = dir.to_str().unwrap();
    let out = prove(&[
        "-",
        "--size",
        "5x5",
        "--state",
        d,
        "--budget-nodes",
        "8192",
        "--hash",
        "1",
        "--jobs",
        "3",
        "--split",
        "1",
        "--slurm",
        "--sbatch",
        &sbatch,
    ]);
    assert_eq!(value(&out), published("5x5").0);
    let script = std::fs::read_to_string(dir.join("slurm/wave-000000/run.sh")).unwrap();
    assert!(script.contains("#SBATCH --array=0-"), "{script}");
    let v = run(&[
        "prove", "--verify", "--state", d, "--jobs", "3", "--slurm", "--sbatch", &sbatch,
    ]);
    assert!(v.status.success(), "{}", text(&v.stdout));
    // the leaves were solved through Slurm, which the check trusts, and it says so
    assert!(
        text(&v.stdout).contains("all agree (the leaves solved by Slurm job arrays"),
        "{}",
        text(&v.stdout)
    );
    assert!(text(&v.stdout).trim_end().ends_with(", trusted)"));
    std::fs::remove_file(&fake).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_node_budget_leaves_a_position_unproven_the_same_way_each_time() {
    let once = || {
        common::run_vier(
            &["solve", "--no-book", "--budget-nodes", "5000"],
            "-\n2252576253462244111563365343671351441\n",
        )
    };
    let (a, b) = (once(), once());
    assert_eq!(a.status.code(), Some(3), "{}", text(&a.stderr));
    let fields = |o: &Output| -> Vec<Vec<String>> {
        text(&o.stdout)
            .lines()
            .map(|l| {
                let mut f: Vec<String> = l.split(' ').map(String::from).collect();
                f.remove(3);
                f
            })
            .collect()
    };
    let lines = fields(&a);
    // the poll interval rounds the budget up
    assert_eq!(
        lines[0],
        ["-", "-", "8192", "UNPROVEN", "within", "5000", "nodes"],
        "{}",
        text(&a.stdout)
    );
    // Pons' Test_L3_R1, its first line: -1
    assert_eq!(
        lines[1][..2],
        ["2252576253462244111563365343671351441", "-1"]
    );
    assert_eq!(lines, fields(&b));
}

/// The jobs of this machine share one table, in a file of /dev/shm that every job names and
/// that is gone when the proof returns (as is one a proof killed outright left); the value is
/// the published one all the same.
#[test]
fn local_jobs_share_one_table_file_that_is_gone_when_the_proof_returns() {
    let dir = state_dir("shared");
    let d = dir.to_str().unwrap();
    // the file of a proof killed outright: its process is gone
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let left = format!("/dev/shm/vier-prove-{}-0123456789abcdef.table", gone.id());
    std::fs::write(&left, "a table").unwrap();
    let out = prove(&[
        "-",
        "--size",
        "5x4",
        "--state",
        d,
        "--budget-nodes",
        "4096",
        "--jobs",
        "2",
    ]);
    assert!(out.contains("5x4 - weak 0: a draw"), "{out}");
    let mut files = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(dir.join("jobs")).unwrap() {
        let job = std::fs::read_to_string(e.unwrap().path()).unwrap();
        let head = job.lines().next().unwrap();
        let file = head.split(" --table-file ").nth(1).expect(head);
        assert!(head.contains(" --hash 64 "), "{head}");
        files.insert(file.split(' ').next().unwrap().to_string());
    }
    assert_eq!(files.len(), 1, "{files:?}");
    let file = files.into_iter().next().unwrap();
    assert!(file.starts_with("/dev/shm/vier-prove-"), "{file}");
    assert!(!std::path::Path::new(&file).exists(), "{file} left behind");
    assert!(!std::path::Path::new(&left).exists(), "{left} left behind");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_job_with_a_table_of_its_own_run_twice_prints_the_same_lines_but_for_the_time() {
    let dir = state_dir("twice");
    let d = dir.to_str().unwrap();
    prove(&[
        "-",
        "--size",
        "5x4",
        "--state",
        d,
        "--own-tables",
        "--budget-nodes",
        "4096",
        "--hash",
        "1",
        "--jobs",
        "1",
    ]);
    let job = std::fs::read_to_string(dir.join("jobs/000001.job")).unwrap();
    let args: Vec<&str> = job
        .lines()
        .next()
        .unwrap()
        .split(": vier solve ")
        .nth(1)
        .unwrap()
        .split(' ')
        .collect();
    let once = |_: u32| -> Vec<String> {
        let out = common::run_vier(&[&["solve"][..], &args].concat(), &job);
        text(&out.stdout)
            .lines()
            .map(|l| {
                let mut f: Vec<&str> = l.split(' ').collect();
                f.remove(3);
                f.join(" ")
            })
            .collect()
    };
    let a = once(1);
    assert!(!a.is_empty());
    assert_eq!(a, once(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_and_folders_are_refused_with_the_reason() {
    let dir = state_dir("bad");
    let d = dir.to_str().unwrap();
    let out = run(&["prove", "4444444", "--state", d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("full"), "{}", text(&out.stderr));
    assert!(!dir.exists(), "a bad root leaves no folder");
    let out = run(&["prove", "--state", d]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("holds no proof"));
    prove(&[
        "-",
        "--size",
        "4x4",
        "--state",
        d,
        "--budget-nodes",
        "4096",
        "--hash",
        "1",
    ]);
    let out = run(&["prove", "-", "--size", "5x4", "--state", d]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("holds the proof of 4x4"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The certificate of issue 74: the empty 5x4 board (a draw) claimed a loss through bounds
/// below the score range, whose negation wrapped.
const FORGED: &str = include_str!("data/prove/forged-5x4.cert");

#[test]
fn a_forged_certificate_with_numbers_past_the_score_range_is_refused() {
    let dir = state_dir("forged");
    std::fs::create_dir_all(&dir).unwrap();
    let cert = dir.join("certificate");
    // as filed, and one level deeper (the children's bounds wrap, the root's line is true)
    let deeper = FORGED.replace("value -1\n- node -1 -1\n", "value 0\n- node 0 0\n");
    for forged in [FORGED.to_string(), deeper] {
        std::fs::write(&cert, &forged).unwrap();
        let out = run(&["prove", "--verify", "--certificate", cert.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
        let report = text(&out.stdout);
        assert!(!report.contains("verified"), "{report}");
        assert!(
            report
                .contains("wrong: line 7: 1: bounds -2147483648..-2147483647 are not within -1..1"),
            "{report}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn options_and_state_files_out_of_their_range_are_refused() {
    let dir = state_dir("ranges");
    let d = dir.to_str().unwrap();
    for (option, value, says) in [
        ("--split", "5", "0..=4"),
        ("--split", "100", "0..=4"),
        ("--split", "4294967296", "0..=4"),
        ("--jobs", "0", "1..=4096"),
        ("--per-job", "33", "1..=32"),
        ("--budget-nodes", "100", "4096..="),
        ("--budget-nodes", "1e6", "not a whole number"),
    ] {
        let out = run(&["prove", "-", "--size", "4x4", "--state", d, option, value]);
        assert_eq!(out.status.code(), Some(2), "{option} {value}");
        assert!(
            text(&out.stderr).contains(says),
            "{option} {value}: {}",
            text(&out.stderr)
        );
        assert!(!dir.exists(), "a refused option leaves no folder");
    }
    // a state file whose split is out of range, or with anything after its lines
    prove(&["-", "--size", "4x4", "--state", d, "--hash", "1"]);
    let proof = dir.join("proof");
    let good = std::fs::read_to_string(&proof).unwrap();
    for bad in [
        good.replace("split 1", "split 100"),
        good.clone() + "garbage\n",
    ] {
        std::fs::write(&proof, &bad).unwrap();
        let out = run(&["prove", "--state", d]);
        assert!(!out.status.success());
        assert!(
            text(&out.stderr).contains("is not a vier prove state file"),
            "{}",
            text(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_root_in_letters_is_proven_once_expanded_on_any_width() {
    // letters on a board of digits, and capitals on one of letters, expanded below the root:
    // the jobs are of its children, written in the board's own notation
    for (size, root, written, child) in [
        ("7x4", "abc", "7x4 123 ", "123"),
        ("10x4", "ABCDEFG", "10x4 abcdefg ", "abcdefg"),
    ] {
        let dir = state_dir(&format!("letters-{size}"));
        let out = prove(&[
            root,
            "--size",
            size,
            "--state",
            dir.to_str().unwrap(),
            "--split",
            "1",
            "--hash",
            "1",
            "--jobs",
            "2",
        ]);
        assert!(out.starts_with(written), "{out}");
        let job = std::fs::read_to_string(dir.join("jobs/000001.job")).unwrap();
        let position = job.lines().nth(1).unwrap();
        assert!(
            position.len() == child.len() + 1 && position.starts_with(child),
            "{size}: {job}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn docs_prove_md_first_proof_runs_as_written_and_prints_what_it_says() {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/prove.md")).unwrap();
    let first = page
        .split("## A first proof")
        .nth(1)
        .expect("a first proof");
    let command = first
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.lines().next())
        .expect("its command");
    let says = first
        .split("It prints `")
        .nth(1)
        .and_then(|s| s.split('`').next())
        .expect("what it prints");
    let args: Vec<&str> = command
        .strip_prefix("vier prove ")
        .expect("a vier prove command")
        .split(' ')
        .collect();
    let scratch = state_dir("first-proof");
    std::fs::create_dir_all(&scratch).unwrap();
    let out = vier()
        .arg("prove")
        .args(&args)
        .current_dir(&scratch)
        .output()
        .unwrap();
    assert!(out.status.success(), "{command}: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim_end(), says, "{command}");
    std::fs::remove_dir_all(&scratch).unwrap();
}

#[test]
fn a_failing_sbatch_is_an_error_after_3_tries_with_what_it_said() {
    let dir = state_dir("sbatch-fails");
    let started = Instant::now();
    let out = run(&[
        "prove",
        "-",
        "--size",
        "4x4",
        "--state",
        dir.to_str().unwrap(),
        "--slurm",
        "--sbatch",
        "sh -c 'echo sbatch: error: invalid partition specified >&2; exit 1'",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("ended 3 times")
            && err.contains("submitted nothing (exit status 1): sbatch: error: invalid partition"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
    let waves = std::fs::read_dir(dir.join("slurm")).unwrap().count();
    assert_eq!(waves, 3, "one wave a try");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(target_os = "linux")]
/// The processes below `pid` (Linux: from /proc).
fn descendants(pid: u32) -> Vec<u32> {
    let parent = |p: u32| -> Option<u32> {
        let s = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
        s.rsplit_once(')')?
            .1
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    let all: Vec<u32> = std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(all.iter().filter(|&&c| parent(c) == Some(p)));
        i += 1;
    }
    found.remove(0);
    found
}

#[cfg(target_os = "linux")]
/// Whether a process is alive (a zombie is not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, r)| !r.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

#[cfg(target_os = "linux")]
/// The most memory the process has held, kB (Linux: VmHWM).
fn peak_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

#[cfg(target_os = "linux")]
/// Starts `vier prove` on a 6x4 board with `runner` (none: the local jobs of `fake`, a vier
/// that never answers), stderr collected.
fn start_with(
    name: &str,
    runner: Option<&str>,
) -> (Child, PathBuf, std::sync::Arc<std::sync::Mutex<String>>) {
    let dir = state_dir(name);
    let mut cmd = vier();
    cmd.args([
        "prove",
        "-",
        "--size",
        "6x4",
        "--state",
        dir.to_str().unwrap(),
        "--budget-nodes",
        "4096",
        "--jobs",
        "2",
    ]);
    match runner {
        Some(r) => cmd.args(["--runner", r]),
        None => {
            let fake = std::env::temp_dir().join(format!("vier-never-{}", std::process::id()));
            std::fs::write(&fake, "#!/bin/sh\nexec sleep 600\n").unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
            cmd.args(["--vier", fake.to_str().unwrap()])
        }
    };
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let (e, mut pipe) = (err.clone(), child.stderr.take().unwrap());
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        use std::io::Read;
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut e = e.lock().unwrap();
            if e.len() < 1 << 20 {
                e.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }
    });
    (child, dir, err)
}

#[cfg(target_os = "linux")]
/// Ends `child` with `sig` and checks that it and every process below it are gone within a
/// second.
fn ends_with_all_it_started(child: &mut Child, sig: i32) {
    let below = descendants(child.id());
    assert!(!below.is_empty(), "the front end runs something");
    let at = Instant::now();
    // SAFETY: a signal to the test's own child
    unsafe { libc::kill(child.id() as i32, sig) };
    child.wait().unwrap();
    while below.iter().any(|&p| alive(p)) && at.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = at.elapsed();
    let left: Vec<u32> = below.iter().copied().filter(|&p| alive(p)).collect();
    assert!(left.is_empty(), "signal {sig}: left {left:?}");
    assert!(took < Duration::from_secs(1), "signal {sig}: {took:?}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_runner_that_floods_costs_no_memory_and_ends_with_the_front_end() {
    // an endless line, a flood of lines, lines of no job
    for (i, runner) in ["cat /dev/zero", "yes -- '- >=0 1 1'", "yes junk"]
        .iter()
        .enumerate()
    {
        let (mut child, dir, _) = start_with(&format!("flood{i}"), Some(runner));
        std::thread::sleep(Duration::from_secs(3));
        let kb = peak_kb(child.id());
        assert!(kb > 0 && kb < 100_000, "{runner}: {kb} kB");
        ends_with_all_it_started(&mut child, [libc::SIGTERM, libc::SIGINT, libc::SIGHUP][i]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn jobs_end_with_a_front_end_killed_outright() {
    for (name, runner) in [
        ("kill9-local", None),
        ("kill9-runner", Some("sh -c 'sleep 600'")),
    ] {
        let (mut child, dir, _) = start_with(name, runner);
        let at = Instant::now();
        while descendants(child.id()).len() < 2 && at.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(20));
        }
        ends_with_all_it_started(&mut child, libc::SIGKILL);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_job_past_its_time_is_ended_and_run_again() {
    // `cat` runs nothing: each job's command comes back as a line, and no job ever ends
    let (mut child, dir, err) = start_with("hung", Some("cat"));
    let at = Instant::now();
    while !err.lock().unwrap().contains("ran past its time") {
        assert!(
            at.elapsed() < Duration::from_secs(40),
            "{}",
            err.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    ends_with_all_it_started(&mut child, libc::SIGTERM);
    std::fs::remove_dir_all(&dir).unwrap();
}
