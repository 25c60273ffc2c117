//! The state folder: everything a proof knows is in files there, each written whole (a new file
//! renamed over the old one) or not at all, so a front end killed at any moment loses nothing
//! but the jobs that were running.
//!
//! ```text
//! DIR/proof             what is proven: "vier prove 1", then "size 7x6", "root -", "goal weak",
//!                       "split 0" (the plies below the root expanded without a job)
//! DIR/lock              held (an exclusive lock on the file) by the one front end at work
//! DIR/jobs/<id>.job     each job, written before it is handed out (see jobs.rs)
//! DIR/results/<id>.out  the lines a job printed, written once all of them are in and whole
//! DIR/expanded          positions the front end expanded without a job, one move string a
//!                       line, appended (a last line cut short is dropped)
//! DIR/progress          the last progress report, `key value` lines
//! DIR/certificate       the proof tree with every leaf's bounds, once the root is proven
//! ```
//!
//! The tree is not stored: it follows from the root and the results (a position a job left
//! unproven is expanded), and is rebuilt from them when a front end starts. A job file without
//! a result is run again (the same file, so the same lines); a result file that does not check
//! against its job is renamed `<id>.out.damaged` and its job run again.

use super::files::{self, read_text};
use super::jobs::{Job, JobId};
use super::rules::Goal;
use crate::board::Size;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

const HEADER: &str = "vier prove 1";

/// What a state folder proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    pub size: Size,
    /// The root's move string (`-` for the empty board).
    pub root: String,
    pub goal: Goal,
    /// Positions less than this many moves from the root are expanded without a job.
    pub split: u32,
}

impl Proof {
    fn text(&self) -> String {
        format!(
            "{HEADER}\nsize {}\nroot {}\ngoal {}\nsplit {}\n",
            self.size,
            self.root,
            self.goal.name(),
            self.split
        )
    }

    fn parse(text: &str) -> Option<Proof> {
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let mut field = |name: &str| {
            lines
                .next()?
                .strip_prefix(name)?
                .strip_prefix(' ')
                .map(str::to_string)
        };
        let size = field("size")?.parse().ok()?;
        let root = field("root")?;
        let goal = Goal::parse(&field("goal")?)?;
        // a root as vier writes it, a split within its range: what a front end would write
        let split = super::settings::SPLIT.parse(&field("split")?).ok()? as u32;
        if super::rules::canonical(size, &root).ok()? != root || lines.next().is_some() {
            return None;
        }
        Some(Proof {
            size,
            root,
            goal,
            split,
        })
    }
}

/// A state folder, held by this front end (or opened to be read).
pub struct State {
    pub dir: PathBuf,
    pub proof: Proof,
    /// The lock, held while this lives (none when only reading).
    _lock: Option<File>,
}

impl State {
    /// Opens (or with `proof`, creates) the state folder `dir` and takes its lock. A folder of
    /// another proof, or one another front end holds, is refused with the reason.
    pub fn open(dir: &Path, proof: Option<&Proof>) -> Result<State, String> {
        if let Some(p) = proof {
            super::settings::SPLIT.check(p.split.into())?;
            let root = super::rules::canonical(p.size, &p.root)?;
            if root != p.root {
                return Err(format!("the root '{}' is written '{root}'", p.root));
            }
        }
        let file = dir.join("proof");
        let known = match read_text(&file, files::MAX_PROOF) {
            Ok(t) => Some(
                Proof::parse(&t)
                    .ok_or_else(|| format!("{} is not a vier prove state file", file.display()))?,
            ),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(format!("{}: {e}", file.display())),
        };
        let proof = match (known, proof) {
            (Some(k), Some(p)) if k != *p => {
                return Err(format!(
                    "{} holds the proof of {} '{}' ({}, split {}), not of {} '{}' ({}, split {}): \
                     give another folder",
                    dir.display(),
                    k.size,
                    k.root,
                    k.goal.name(),
                    k.split,
                    p.size,
                    p.root,
                    p.goal.name(),
                    p.split
                ))
            }
            (Some(k), _) => k,
            (None, Some(p)) => {
                if dir.exists()
                    && fs::read_dir(dir)
                        .map_err(|e| format!("{}: {e}", dir.display()))?
                        .next()
                        .is_some()
                {
                    return Err(format!(
                        "{} is not empty and holds no proof: give a new or empty folder",
                        dir.display()
                    ));
                }
                for d in ["", "jobs", "results"] {
                    fs::create_dir_all(dir.join(d))
                        .map_err(|e| format!("{}: {e}", dir.display()))?;
                }
                write_whole(&file, p.text().as_bytes())
                    .map_err(|e| format!("{}: {e}", file.display()))?;
                p.clone()
            }
            (None, None) => {
                return Err(format!(
                    "{} holds no proof: give the root position (and --size) to start one",
                    dir.display()
                ))
            }
        };
        let lock = lock(dir)?;
        Ok(State {
            dir: dir.to_path_buf(),
            proof,
            _lock: Some(lock),
        })
    }

    /// Opens a state folder to read it, without its lock (a front end may be at work on it).
    pub fn read(dir: &Path) -> Result<State, String> {
        let file = dir.join("proof");
        let text =
            read_text(&file, files::MAX_PROOF).map_err(|e| format!("{}: {e}", file.display()))?;
        let proof = Proof::parse(&text)
            .ok_or_else(|| format!("{} is not a vier prove state file", file.display()))?;
        Ok(State {
            dir: dir.to_path_buf(),
            proof,
            _lock: None,
        })
    }

    /// Whether a front end holds the folder's lock: works on it now (one killed, even with
    /// `kill -9`, holds it no more).
    pub fn held(&self) -> bool {
        files::no_follow()
            .read(true)
            .open(self.dir.join("lock"))
            .is_ok_and(|f| matches!(f.try_lock_shared(), Err(fs::TryLockError::WouldBlock)))
    }

    /// A job's file.
    pub fn job_path(&self, id: JobId) -> PathBuf {
        self.dir.join("jobs").join(format!("{id:06}.job"))
    }

    fn result_path(&self, id: JobId) -> PathBuf {
        self.dir.join("results").join(format!("{id:06}.out"))
    }

    /// Every job file, by number; a file that does not read as a job is named with the reason.
    pub fn jobs(&self) -> io::Result<(Vec<Job>, Vec<String>)> {
        let mut jobs = Vec::new();
        let mut bad = Vec::new();
        for (id, path) in numbered(&self.dir.join("jobs"), ".job")? {
            let text = match read_text(&path, files::MAX_JOB) {
                Ok(t) => t,
                Err(e) => {
                    bad.push(format!("{}: {e}", path.display()));
                    continue;
                }
            };
            match Job::parse_file(id, &text) {
                Ok(j) => jobs.push(j),
                Err(e) => bad.push(format!("{}: {e}", path.display())),
            }
        }
        jobs.sort_by_key(|j| j.id);
        Ok((jobs, bad))
    }

    /// The lines of every result file, by job.
    pub fn results(&self) -> io::Result<Vec<(JobId, Vec<String>)>> {
        let mut out = Vec::new();
        for (id, path) in numbered(&self.dir.join("results"), ".out")? {
            // a result that cannot be read is an empty one: it does not check, its job runs again
            let bytes = files::read_bounded(&path, files::MAX_RESULT).unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            if !text.ends_with('\n') {
                // a line cut short: keep it, the check refuses it
                lines.push(String::new());
            }
            out.push((id, lines));
        }
        Ok(out)
    }

    pub fn write_job(&self, job: &Job) -> io::Result<()> {
        write_whole(&self.job_path(job.id), job.file_text().as_bytes())
    }

    pub fn write_result(&self, id: JobId, lines: &[String]) -> io::Result<()> {
        let mut text = lines.join("\n");
        text.push('\n');
        write_whole(&self.result_path(id), text.as_bytes())
    }

    /// Puts a result that does not check aside, so that its job runs again.
    pub fn set_aside(&self, id: JobId) -> io::Result<()> {
        let p = self.result_path(id);
        let mut aside = p.clone().into_os_string();
        aside.push(".damaged");
        fs::rename(p, aside)
    }

    /// The positions expanded without a job.
    /// One move string a line, whole lines only: the text itself, which the caller reads line
    /// by line (a line a String each would cost ten times the file).
    pub fn expanded(&self) -> io::Result<String> {
        match read_text(&self.dir.join("expanded"), files::MAX_EXPANDED) {
            Ok(mut t) => {
                t.truncate(t.rfind('\n').map_or(0, |i| i + 1));
                Ok(t)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(String::new()),
            Err(e) => Err(e),
        }
    }

    /// Drops a last line of `expanded` cut short, so that the next one starts a line.
    pub fn repair_expanded(&self) -> io::Result<()> {
        let path = self.dir.join("expanded");
        match files::read_bounded(&path, files::MAX_EXPANDED) {
            Ok(b) if !b.is_empty() && !b.ends_with(b"\n") => {
                let whole = b.iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
                files::no_follow()
                    .write(true)
                    .open(&path)?
                    .set_len(whole as u64)
            }
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Records a position expanded without a job, on the disk before the tree uses it.
    pub fn add_expanded(&self, moves: &str) -> io::Result<()> {
        let mut f = files::no_follow()
            .create(true)
            .append(true)
            .open(self.dir.join("expanded"))?;
        f.write_all(format!("{moves}\n").as_bytes())?;
        f.sync_data()
    }

    pub fn write_progress(&self, text: &str) -> io::Result<()> {
        write_whole(&self.dir.join("progress"), text.as_bytes())
    }

    pub fn certificate_path(&self) -> PathBuf {
        self.dir.join("certificate")
    }

    pub fn write_certificate(&self, text: &str) -> io::Result<()> {
        write_whole(&self.certificate_path(), text.as_bytes())
    }
}

/// Takes the folder's lock, or says who holds it.
fn lock(dir: &Path) -> Result<File, String> {
    let path = dir.join("lock");
    let mut f = files::no_follow()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    match f.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            let holder = read_text(&path, files::MAX_PROOF).unwrap_or_default();
            return Err(format!(
                "another vier prove ({}) works on {}: one front end per state folder",
                holder.trim(),
                dir.display()
            ));
        }
        Err(fs::TryLockError::Error(e)) => return Err(format!("{}: {e}", path.display())),
    }
    f.set_len(0)
        .and_then(|_| writeln!(f, "pid {}", std::process::id()))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(f)
}

/// The files `<number><suffix>` of a folder, with their numbers.
fn numbered(dir: &Path, suffix: &str) -> io::Result<Vec<(JobId, PathBuf)>> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(n) = name.strip_suffix(suffix) {
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                if let Ok(id) = n.parse() {
                    out.push((id, e.path()));
                }
            }
        }
    }
    Ok(out)
}

/// Writes `bytes` as `path`, whole or not at all: into a file beside it, synced, then renamed.
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let mut f = files::create_new(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    fs::rename(&tmp, path)
}
