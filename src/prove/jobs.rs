//! Jobs and their lines: what a job file holds, the shell command that runs it anywhere, and the
//! lines a job prints, read back strictly.
//!
//! A job file (`jobs/<id>.job`) is input for `vier solve`: a comment that says how to run it,
//! what earlier jobs learnt below its positions (their `LEARNT` lines: the search of each
//! position starts from those below it), then one move string a line.
//!
//! ```text
//! # vier prove job 17: vier solve --size 7x6 --weak --at-least 1 --no-book --hash 16 --budget-nodes 4194304
//! 4453621 >=1 0 0 LEARNT
//! 4453
//! 44536
//! ```
//!
//! A job asks of its positions the one question the proof needs of them, whether each value
//! is at least a number (`--at-least`). It prints `vier solve`'s lines,
//! `<moves> <bound> <nodes> <microseconds>` with the bound `>=t` or `<=t-1` (a job without
//! `--at-least`, as `--verify` runs some, prints the value itself), or
//! `<moves> - <nodes> <microseconds> UNPROVEN within <budget> nodes`, and then a line of its
//! own, `vier-prove job 17 exit <status>`, that says it ran to its end. One thread with a table
//! of its own and a budget in nodes: a job run twice prints the same lines but for the
//! microseconds (a job that shares a table, `--table-file`, finds more or less in it). A line that is not exactly one of these, or a job whose lines are not all
//! there when its last line comes, is run again.

use super::rules::Goal;
use super::settings::LEARNT;
use crate::board::Size;
use crate::solve_line::{Budget, Found, SolveLine, MAX_DEEP_LEARNT};

/// A job's number: its file `jobs/<id>.job`.
pub type JobId = u64;

/// The first words of a job's last line.
const DONE: &str = "vier-prove job";

/// A job: positions for one `vier solve`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub id: JobId,
    /// The arguments of `vier solve`.
    pub args: Vec<String>,
    /// What earlier jobs learnt below its positions, their `LEARNT` lines as they printed them.
    pub seeds: Vec<String>,
    pub positions: Vec<String>,
}

/// The most learnt lines a job starts from: those nearest its positions first.
pub const MAX_SEEDS: usize = 256;

impl Job {
    /// A job of `positions` on `size`, each within `budget` nodes (none: no limit) with a
    /// table of `hash_mb`, asking whether each value is at least `at_least` (none: the value).
    pub fn new(
        id: JobId,
        size: Size,
        goal: Goal,
        at_least: Option<i32>,
        hash_mb: usize,
        budget: Option<u64>,
        positions: Vec<String>,
    ) -> Job {
        let mut args = vec!["--size".to_string(), size.to_string()];
        if goal == Goal::Weak {
            args.push("--weak".into());
        }
        if let Some(t) = at_least {
            args.extend(["--at-least".into(), t.to_string()]);
        }
        args.extend(["--no-book".into(), "--hash".into(), hash_mb.to_string()]);
        if let Some(b) = budget {
            args.extend(["--budget-nodes".into(), b.to_string()]);
        }
        if positions.len() > 1 {
            // a job's positions are near each other in the tree: what one proves, the next uses
            args.push("--keep-table".into());
        }
        Job {
            id,
            args,
            seeds: Vec::new(),
            positions,
        }
    }

    /// The job, starting from `seeds` (learnt lines of positions below its own; at most
    /// [`MAX_SEEDS`] are kept).
    pub fn seeded(mut self, mut seeds: Vec<String>) -> Job {
        seeds.truncate(MAX_SEEDS);
        self.seeds = seeds;
        self
    }

    /// The job file's text.
    pub fn file_text(&self) -> String {
        let mut s = format!(
            "# vier prove job {}: vier solve {}\n",
            self.id,
            self.args.join(" ")
        );
        s.push_str(&self.input());
        s
    }

    /// What its `vier solve` reads: the learnt lines, then the positions, a line each.
    pub fn input(&self) -> String {
        let lines = self.seeds.iter().chain(&self.positions);
        lines.map(|l| format!("{l}\n")).collect()
    }

    /// Reads a job file back.
    pub fn parse_file(id: JobId, text: &str) -> Result<Job, String> {
        let mut lines = text.lines();
        let head = lines.next().unwrap_or_default();
        let prefix = format!("# vier prove job {id}: vier solve ");
        let args = head
            .strip_prefix(&prefix)
            .ok_or_else(|| format!("its first line is not '{prefix}...'"))?;
        let args: Vec<String> = args.split_whitespace().map(String::from).collect();
        if args.iter().any(|a| !plain_arg(a)) {
            return Err("its arguments hold characters a job never has".into());
        }
        let lines: Vec<String> = lines.map(str::to_string).collect();
        let seeds = lines.iter().take_while(|l| l.contains(' ')).count();
        let (seeds, positions) = (lines[..seeds].to_vec(), lines[seeds..].to_vec());
        if positions.is_empty() || positions.iter().any(|p| p.is_empty() || !plain(p)) {
            return Err("its positions are not one move string a line".into());
        }
        if seeds.len() > MAX_SEEDS || !seeds.iter().all(|l| seed_shaped(l)) {
            return Err("its learnt lines are not what a job learns".into());
        }
        if !text.ends_with('\n') {
            return Err("it is cut short".into());
        }
        Ok(Job {
            id,
            args,
            seeds,
            positions,
        })
    }

    /// The job, asking also for what the search of a position it does not prove learnt of the
    /// positions 1 to `plies` moves below it (`vier solve --learnt`): the proof starts from
    /// that instead of from nothing.
    pub fn keeping(mut self, plies: u32) -> Job {
        if plies > 0 {
            self.args.extend(["--learnt".into(), plies.to_string()]);
        }
        self
    }

    /// The job, its table kept in the file at `path`, which every job that names it shares
    /// (`vier solve --table-file`: jobs on one machine).
    /// A job read back from the state folder is given the proof's own file (or none) so: the
    /// one it names is not trusted.
    pub fn sharing(mut self, path: Option<&str>) -> Job {
        if let Some(i) = self.args.iter().position(|a| a == "--table-file") {
            self.args.drain(i..(i + 2).min(self.args.len()));
        }
        if let Some(path) = path {
            self.args.extend(["--table-file".into(), path.to_string()]);
        }
        self
    }

    /// The file whose table the job shares, if any.
    pub fn table_file(&self) -> Option<&str> {
        self.arg("--table-file")
    }

    /// How many moves below a position it does not prove the job reports what it learnt (0:
    /// nothing; a number out of the range of `vier prove --learnt` counts as 0, and its lines
    /// as damage).
    pub fn learnt_plies(&self) -> u32 {
        self.arg("--learnt")
            .and_then(|n| LEARNT.parse(n).ok())
            .unwrap_or(0) as u32
    }

    /// The node budget the job gives each position.
    pub fn budget(&self) -> Option<u64> {
        self.arg("--budget-nodes")?.parse().ok()
    }

    /// The table the job's `vier solve` has, MB.
    pub fn hash_mb(&self) -> Option<usize> {
        self.arg("--hash")?.parse().ok()
    }

    /// The question the job asks of each position: is its value at least this?
    pub fn at_least(&self) -> Option<i32> {
        self.arg("--at-least")?.parse().ok()
    }

    fn arg(&self, name: &str) -> Option<&str> {
        let i = self.args.iter().position(|a| a == name)?;
        self.args.get(i + 1).map(String::as_str)
    }

    /// The shell command that runs the job with the `vier` at `vier` and prints its lines: the
    /// positions travel in the command itself, so it runs on any machine that has a vier.
    pub fn command(&self, vier: &str) -> String {
        let lines: Vec<String> = self
            .seeds
            .iter()
            .map(|l| shell_word(l))
            .chain(self.positions.iter().cloned())
            .collect();
        format!(
            "printf '%s\\n' {} | {} solve {} 2>/dev/null; echo \"{DONE} {} exit $?\"",
            lines.join(" "),
            shell_word(vier),
            self.args.join(" "),
            self.id
        )
    }
}

/// The last line of a job, as a runner that runs it without a shell writes it.
pub fn done_line(id: JobId, status: i32) -> String {
    format!("{DONE} {id} exit {status}")
}

/// A learnt line's shape, `<moves> <score>|>=t|<=u 0 0 LEARNT` in words a shell reads plainly
/// (the numbers are `vier solve`'s to check, as it checks every line it reads).
fn seed_shaped(l: &str) -> bool {
    let w: Vec<&str> = l.split(' ').collect();
    let bound = |b: &str| {
        let n = b.strip_prefix(">=").or(b.strip_prefix("<=")).unwrap_or(b);
        !n.is_empty() && plain(n)
    };
    matches!(w[..], [m, b, "0", "0", "LEARNT"] if plain(m) && bound(b))
}

/// Characters of move strings, numbers and options: nothing a shell would read specially.
fn plain(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-x".contains(&b))
}

/// An argument of a job: plain, or a path of plain names (a shared table's file).
fn plain_arg(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-x/._".contains(&b))
}

/// `s` as one word for `sh`: as it is when plain, else in single quotes.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./+=:@,".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A line a job printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A position's result: the bounds on its value that the job proved, `(v, v)` for a value
    /// (`None`: not proven within the budget), and its nodes. A bound `>=t` is `(t, i32::MAX)`,
    /// `<=u` is `(i32::MIN, u)`.
    Result {
        moves: String,
        bounds: Option<(i32, i32)>,
        nodes: u64,
        micros: u64,
        /// A position below one of the job's that it did not prove, bounded by that search
        /// (`LEARNT`: no nodes of its own).
        learnt: bool,
    },
    /// The job ran to its end with this exit status.
    Done { job: JobId, status: i32 },
}

/// Reads a line a job printed on `size`, strictly ([`SolveLine::parse`]; a job's result is one
/// position's value or bound, or unproven within its nodes, with nothing expected of it):
/// anything else is a damaged line.
pub fn parse_line(line: &str, size: Size, goal: Goal) -> Result<Line, String> {
    if let Some(rest) = line.strip_prefix(DONE) {
        let t: Vec<&str> = rest.split(' ').collect();
        return match t[..] {
            ["", job, "exit", status] => Ok(Line::Done {
                job: number(job)?,
                status: number::<i32>(status)?,
            }),
            _ => Err("a job's last line, damaged".into()),
        };
    }
    let l = SolveLine::parse(line, size, goal == Goal::Weak)?;
    let bounds = match l.found {
        _ if l.mismatch.is_some() => return Err("a line with a score expected".into()),
        _ if l.learnt && (l.nodes, l.micros) != (0, 0) => {
            return Err("a learnt line with nodes of its own".into())
        }
        Found::Score(v) => Some((v, v)),
        Found::AtLeast(t) => Some((t, i32::MAX)),
        Found::AtMost(u) => Some((i32::MIN, u)),
        Found::Unproven {
            blanks: 1,
            within: Budget::Nodes(_),
        } => None,
        _ => return Err("not a job's result line".into()),
    };
    Ok(Line::Result {
        moves: l.moves,
        bounds,
        nodes: l.nodes,
        micros: l.micros,
        learnt: l.learnt,
    })
}

/// A number written as vier writes it.
pub use crate::solve_line::number;

/// The lines of one job's run, checked against the job: every position once, each line whole,
/// the last line its own with a status that fits (0, or 3 when a position is unproven), and
/// each learnt line right after the line of an unproven position of the job that it is 1 to
/// [`Job::learnt_plies`] moves below (at most [`MAX_DEEP_LEARNT`] of them deeper). The results in the job's order, then the learnt ones.
pub fn check_run(job: &Job, lines: &[String], size: Size, goal: Goal) -> Result<Vec<Line>, String> {
    let mut results: Vec<Option<Line>> = vec![None; job.positions.len()];
    let mut learnt = Vec::new();
    let mut status = None;
    // the job's position whose lines come now, if it was not proven: learnt lines are below it
    let mut unproven: Option<&str> = None;
    // its learnt lines deeper than the job's `--learnt`
    let mut deep = 0;
    for (i, l) in lines.iter().enumerate() {
        let at = |e: String| format!("line {}: {e}", i + 1);
        match parse_line(l, size, goal).map_err(at)? {
            Line::Done { job: id, status: s } if id == job.id && status.is_none() => {
                status = Some(s)
            }
            r @ Line::Result { learnt: true, .. } if status.is_none() => {
                let Line::Result { moves, .. } = &r else {
                    unreachable!()
                };
                let below = unproven
                    .and_then(|p| moves.strip_prefix(if p == "-" { "" } else { p }))
                    .map_or(0, |rest| rest.chars().count());
                if below == 0 || job.learnt_plies() == 0 {
                    return Err(at(format!(
                        "'{moves}' is not below the unproven position before it"
                    )));
                }
                if below > job.learnt_plies() as usize {
                    deep += 1;
                    if deep > MAX_DEEP_LEARNT {
                        return Err(at(format!(
                            "more than {MAX_DEEP_LEARNT} learnt lines deeper than {} moves",
                            job.learnt_plies()
                        )));
                    }
                }
                learnt.push(r);
            }
            r @ Line::Result { .. } if status.is_none() => {
                let Line::Result { moves, bounds, .. } = &r else {
                    unreachable!()
                };
                // the answer to the job's question (a bound, or without one the value)
                let answers = match (job.at_least(), bounds) {
                    (_, None) => true,
                    // a job file's number: `t - 1` is not taken where it would wrap
                    (Some(t), Some((lo, hi))) => {
                        (*lo, *hi) == (t, i32::MAX)
                            || t.checked_sub(1)
                                .is_some_and(|u| (*lo, *hi) == (i32::MIN, u))
                    }
                    (None, Some((lo, hi))) => lo == hi,
                };
                if !answers {
                    return Err(at("not an answer to the job's question".into()));
                }
                let k = job
                    .positions
                    .iter()
                    .position(|p| p == moves)
                    .ok_or_else(|| at(format!("'{moves}' is not the job's")))?;
                if results[k].is_some() {
                    return Err(at(format!("'{moves}' twice")));
                }
                unproven = bounds.is_none().then_some(job.positions[k].as_str());
                deep = 0;
                results[k] = Some(r);
            }
            _ => return Err(at("after the job's last line".into())),
        }
    }
    let status = status.ok_or("the job's last line is missing")?;
    let mut results: Vec<Line> = results
        .into_iter()
        .enumerate()
        .map(|(k, r)| r.ok_or_else(|| format!("no line for '{}'", job.positions[k])))
        .collect::<Result<_, _>>()?;
    let unproven = results
        .iter()
        .any(|r| matches!(r, Line::Result { bounds: None, .. }));
    if status != if unproven { 3 } else { 0 } {
        return Err(format!("exit status {status}"));
    }
    results.extend(learnt);
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j_size() -> Size {
        "7x6".parse().unwrap()
    }

    fn job() -> Job {
        Job::new(
            17,
            "7x6".parse().unwrap(),
            Goal::Weak,
            Some(1),
            16,
            Some(4096),
            vec!["4453".into(), "-".into()],
        )
    }

    #[test]
    fn a_job_file_reads_back_and_its_command_runs_vier_solve() {
        let j = job();
        let text = j.file_text();
        assert_eq!(
            text,
            "# vier prove job 17: vier solve --size 7x6 --weak --at-least 1 --no-book --hash 16 \
             --budget-nodes 4096 --keep-table\n4453\n-\n"
        );
        assert_eq!(Job::parse_file(17, &text), Ok(j.clone()));
        assert!(Job::parse_file(18, &text).is_err(), "another job's file");
        assert!(Job::parse_file(17, &text[..text.len() - 1]).is_err(), "cut");
        assert!(Job::parse_file(17, &text.replace("4453", "4;rm")).is_err());
        assert_eq!(j.budget(), Some(4096));
        assert_eq!(j.at_least(), Some(1));
        assert_eq!(j.hash_mb(), Some(16));
        assert_eq!(
            j.command("/opt/my vier"),
            "printf '%s\\n' 4453 - | '/opt/my vier' solve --size 7x6 --weak --at-least 1 \
             --no-book --hash 16 --budget-nodes 4096 --keep-table 2>/dev/null; echo \"vier-prove job 17 exit $?\""
        );
        // the positions of a job share its table; one alone has nothing to share
        let one = Job::new(3, j_size(), Goal::Weak, None, 16, None, vec!["4453".into()]);
        assert!(
            !one.args.contains(&"--keep-table".to_string()),
            "{:?}",
            one.args
        );
    }

    #[test]
    fn a_job_read_back_shares_the_proofs_table_file_and_not_the_one_it_names() {
        let mine = "/dev/shm/vier-prove-0123456789abcdef.table";
        let j = job().sharing(Some(mine));
        assert_eq!(j.table_file(), Some(mine));
        let read = Job::parse_file(17, &j.file_text()).unwrap();
        assert_eq!(read, j, "a path reads back");
        let planted = j.file_text().replace(mine, "/etc/passwd");
        let planted = Job::parse_file(17, &planted).unwrap();
        assert_eq!(planted.clone().sharing(Some(mine)), j);
        let alone = planted.sharing(None);
        assert_eq!(alone.table_file(), None);
        assert!(
            !alone.args.iter().any(|a| a.contains('/')),
            "{:?}",
            alone.args
        );
        assert!(Job::parse_file(17, &j.file_text().replace(mine, "/tmp/a;rm")).is_err());
    }

    #[test]
    fn only_whole_lines_are_read() {
        let size: Size = "7x6".parse().unwrap();
        let ok = |l: &str| parse_line(l, size, Goal::Weak);
        assert_eq!(
            ok("4453 -1 1234 56"),
            Ok(Line::Result {
                moves: "4453".into(),
                bounds: Some((-1, -1)),
                nodes: 1234,
                micros: 56,
                learnt: false,
            })
        );
        assert_eq!(
            ok("4453 >=1 1234 56"),
            Ok(Line::Result {
                moves: "4453".into(),
                bounds: Some((1, i32::MAX)),
                nodes: 1234,
                micros: 56,
                learnt: false,
            })
        );
        assert_eq!(
            ok("4453 <=0 1234 56"),
            Ok(Line::Result {
                moves: "4453".into(),
                bounds: Some((i32::MIN, 0)),
                nodes: 1234,
                micros: 56,
                learnt: false,
            })
        );
        assert_eq!(
            ok("- - 4096 800 UNPROVEN within 4096 nodes"),
            Ok(Line::Result {
                moves: "-".into(),
                bounds: None,
                nodes: 4096,
                micros: 800,
                learnt: false,
            })
        );
        assert_eq!(
            ok("vier-prove job 3 exit 0"),
            Ok(Line::Done { job: 3, status: 0 })
        );
        for bad in [
            "4453 -1 1234",
            "4453 -1 12x4 56",
            "4453 2 1234 56",
            "4453 >=2 1234 56",
            "4453 >= 1234 56",
            "4453 =>1 1234 56",
            "4453 -1 1234 56 MISMATCH expected 1",
            "- - 4096 800 UNPROVEN within 4096",
            "vier-prove job 3 exit",
            "vier-prove job 3 exit 0 0",
            "",
            "error: line 1: bad",
        ] {
            assert!(ok(bad).is_err(), "{bad}");
        }
        assert!(parse_line("4453 5 12 3", size, Goal::Exact).is_ok());
        // a result of another question than a job asks, or another size's
        assert!(ok("4453 - - - - - - - 12 3 UNPROVEN within 4096 nodes").is_err());
        assert!(ok("4453 - 12 3 UNPROVEN within 20 ms").is_err());
        assert!(
            ok("44538 >=1 12 3").is_err()
                && ok("1234567123456712345671234567123456712345671 1 2 3").is_err()
        );
    }

    #[test]
    fn a_run_is_whole_or_run_again() {
        let j = job();
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let good = lines(&[
            "- >=1 300 5",
            "4453 - 4096 9 UNPROVEN within 4096 nodes",
            "vier-prove job 17 exit 3",
        ]);
        let r = check_run(&j, &good, j_size(), Goal::Weak).unwrap();
        assert!(matches!(&r[0], Line::Result { moves, bounds: None, .. } if moves == "4453"));
        // a line missing, cut short, the wrong status, the last line missing or another's
        for bad in [
            &good[1..],
            &[
                good[0].clone(),
                "4453 - 4096 9 UNPROV".into(),
                good[2].clone(),
            ][..],
            &[
                good[0].clone(),
                good[1].clone(),
                "vier-prove job 17 exit 0".into(),
            ][..],
            &good[..2],
            &[
                good[0].clone(),
                good[1].clone(),
                "vier-prove job 18 exit 3".into(),
            ][..],
            &[
                good[0].clone(),
                good[0].clone(),
                good[1].clone(),
                good[2].clone(),
            ][..],
            // an answer to another question, and a value where a bound was asked for
            &["- >=0 300 5".into(), good[1].clone(), good[2].clone()][..],
            &["- 1 300 5".into(), good[1].clone(), good[2].clone()][..],
        ] {
            assert!(check_run(&j, bad, j_size(), Goal::Weak).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn learnt_lines_count_only_right_below_an_unproven_position_of_the_job() {
        let j = job().keeping(2);
        assert_eq!(j.learnt_plies(), 2);
        assert!(j.file_text().contains(" --learnt 2\n"));
        assert_eq!(Job::parse_file(17, &j.file_text()), Ok(j.clone()));
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let good = lines(&[
            "4453 - 4096 9 UNPROVEN within 4096 nodes",
            "44531 >=0 0 0 LEARNT",
            "445317 -1 0 0 LEARNT",
            "- >=1 300 5",
            "vier-prove job 17 exit 3",
        ]);
        let r = check_run(&j, &good, j_size(), Goal::Weak).unwrap();
        // the job's positions in its order, then what was learnt
        let moves: Vec<(&str, bool)> = r
            .iter()
            .filter_map(|l| match l {
                Line::Result { moves, learnt, .. } => Some((moves.as_str(), *learnt)),
                Line::Done { .. } => None,
            })
            .collect();
        assert_eq!(
            moves,
            [
                ("4453", false),
                ("-", false),
                ("44531", true),
                ("445317", true)
            ]
        );
        let with = |i: usize, l: &str| {
            let mut v = good.clone();
            v.insert(i, l.to_string());
            v
        };
        for bad in [
            // below a position proven, not below it, the position itself
            with(4, "41 >=0 0 0 LEARNT"),
            with(1, "4454 >=0 0 0 LEARNT"),
            with(1, "4453 >=0 0 0 LEARNT"),
            // before the unproven line, with nodes, after the last line
            with(0, "44531 >=0 0 0 LEARNT"),
            with(1, "44531 >=0 5 0 LEARNT"),
            with(5, "44531 >=0 0 0 LEARNT"),
        ] {
            assert!(
                check_run(&j, &bad, j_size(), Goal::Weak).is_err(),
                "{bad:?}"
            );
        }
        // a job that did not ask for them takes none
        assert!(check_run(&job(), &good, j_size(), Goal::Weak).is_err());
        // deeper than --learnt: up to MAX_DEEP_LEARNT of them a position
        let deep = |n: usize| {
            let mut v = good.clone();
            for _ in 0..n {
                v.insert(1, "4453123 >=0 0 0 LEARNT".to_string());
            }
            v
        };
        assert!(check_run(&j, &deep(MAX_DEEP_LEARNT), j_size(), Goal::Weak).is_ok());
        assert!(check_run(&j, &deep(MAX_DEEP_LEARNT + 1), j_size(), Goal::Weak).is_err());
    }

    #[test]
    fn a_job_carries_what_earlier_jobs_learnt_before_its_positions() {
        let j = job().seeded(vec![
            "44531 >=1 0 0 LEARNT".into(),
            "44532 <=0 0 0 LEARNT".into(),
        ]);
        let text = j.file_text();
        assert!(text.contains("\n44531 >=1 0 0 LEARNT\n44532 <=0 0 0 LEARNT\n4453\n-\n"));
        assert_eq!(Job::parse_file(17, &text), Ok(j.clone()));
        assert!(j
            .command("vier")
            .starts_with("printf '%s\\n' '44531 >=1 0 0 LEARNT' '44532 <=0 0 0 LEARNT' 4453 - |"));
        for bad in [
            "44531 >=1 0 0 LEARNT;rm",
            "44531 >=1 5 0 LEARNT",
            "44531 >=1 0 0",
            "44531 >= 0 0 LEARNT",
            "4'4 >=1 0 0 LEARNT",
        ] {
            let t = text.replace("44531 >=1 0 0 LEARNT", bad);
            assert!(Job::parse_file(17, &t).is_err(), "{bad}");
        }
        // seeds after a position are not a job file's
        let t = text.replace(
            "44532 <=0 0 0 LEARNT\n4453\n",
            "4453\n44532 <=0 0 0 LEARNT\n",
        );
        assert!(Job::parse_file(17, &t).is_err());
        let many = job().seeded(vec!["44531 >=1 0 0 LEARNT".into(); MAX_SEEDS + 5]);
        assert_eq!(many.seeds.len(), MAX_SEEDS);
    }
}
