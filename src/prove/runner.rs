//! Runners: what runs the jobs and hands back the lines they print.
//!
//! - **local**: this machine, `N` `vier solve` processes at once, started by the front end,
//!   which can end one whose positions are no longer needed ([`Runner::cancel`]).
//! - **a command** that reads one shell command a line on its standard input and runs them,
//!   their output on its standard output: GNU parallel (`parallel -j 8`, with `--sshlogin` on
//!   other machines) or `xargs -P 8 -d '\n' -n 1 sh -c`. It gets each job's command
//!   ([`Job::command`]) as the job is handed out, and runs as long as the proof.
//! - **Slurm**: the jobs handed out together go into one job array: the front end writes its
//!   `sbatch` script under `DIR/slurm/wave-<n>/` and submits it with `sbatch --wait`; each task
//!   runs one job, its output in `task-<i>.out` beside the script, read as the tasks end (the
//!   state folder must be on a file system the nodes share).

use super::jobs::{done_line, Job, JobId};
use super::{files, settings};
use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What a runner reports.
#[derive(Debug)]
pub enum Event {
    /// A line a job printed.
    Line(String),
    /// These jobs ended without their last line (a Slurm task that died): run them again.
    Lost(Vec<JobId>),
    /// The runner itself ended (why, in words): whatever it still had is lost.
    Ended(String),
}

/// The longest line a job prints: a result line is a move string (at most a board's cells)
/// and four numbers, or with `UNPROVEN` five words more. A longer line is damaged: what is
/// past this is skipped, and the line reads as damaged.
pub const MAX_LINE: usize = 1024;

/// The reports a runner's readers hold for the front end: one that prints faster than the
/// front end reads waits on its pipe, so a flood costs no memory.
const QUEUE: usize = 256;

/// The next line of `r` (without its `\n`), read to its end but kept only up to [`MAX_LINE`]
/// bytes: a longer one, or one that is not UTF-8, comes back as a damaged line that says so.
/// `None` at the end of the input.
pub fn next_line(r: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut line = Vec::new();
    let mut long = false;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            if line.is_empty() && !long {
                return Ok(None);
            }
            break;
        }
        let (take, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        let room = MAX_LINE - line.len();
        line.extend_from_slice(&buf[..take.min(room)]);
        long |= take > room;
        r.consume(take + end as usize);
        if end {
            break;
        }
    }
    Ok(Some(if long {
        format!("(a line longer than {MAX_LINE} bytes)")
    } else {
        String::from_utf8(line).unwrap_or_else(|_| "(a line that is not UTF-8)".into())
    }))
}

/// Which runner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunnerSpec {
    /// This many jobs at once on this machine.
    Local(usize),
    /// A command that runs the command lines it reads (GNU parallel, xargs).
    Command(String),
    /// Job arrays submitted with this command (`sbatch` and its options).
    Slurm(String),
}

impl std::fmt::Display for RunnerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunnerSpec::Local(n) => write!(f, "{n} local jobs at once"),
            RunnerSpec::Command(c) => write!(f, "the runner '{c}'"),
            RunnerSpec::Slurm(c) => write!(f, "Slurm job arrays ('{c} --wait')"),
        }
    }
}

pub trait Runner {
    /// Hands a job over.
    fn submit(&mut self, job: &Job) -> io::Result<()>;
    /// The next report, waiting at most `wait` for one.
    fn next(&mut self, wait: Duration) -> Option<Event>;
    /// Ends the runner and every job it still runs.
    fn stop(&mut self);
    /// Ends one job that is no longer needed, if this runner can: whether it was ended (its
    /// lines, and its last line, may still come and are not that job's any more).
    fn cancel(&mut self, _job: JobId) -> bool {
        false
    }
    /// Whether the runner ends a job that runs past its time itself (Slurm's `--time`): the
    /// front end then does not.
    fn times_its_jobs(&self) -> bool {
        false
    }
}

/// Starts a runner whose jobs run the `vier` at `vier`; Slurm's scripts go under `dir`. With a
/// `keeper` (a vier, whose `keep-engine` the GUI's engines run under too), every local job and
/// runner command runs under one: it ends them, and all they started, within milliseconds of
/// the front end's end, however the front end ends (`kill -9` included).
pub fn start(
    spec: &RunnerSpec,
    vier: &str,
    dir: &Path,
    keeper: Option<&Path>,
) -> io::Result<Box<dyn Runner>> {
    Ok(match spec {
        RunnerSpec::Local(n) => Box::new(Local::start(*n, vier, keeper)),
        RunnerSpec::Command(c) => Box::new(Stream::start(c, vier, keeper)?),
        RunnerSpec::Slurm(c) => Box::new(Slurm::start(c, vier, dir)?),
    })
}

/// The command that runs `program`: under the keeper (`KEEPER keep-engine -- program`) where
/// there is one.
fn kept(keeper: Option<&Path>, program: &str) -> Command {
    match keeper {
        Some(k) => {
            let mut c = Command::new(k);
            c.arg("keep-engine").arg("--").arg(program);
            c
        }
        None => Command::new(program),
    }
}

#[cfg(unix)]
use crate::keeper::signal;
/// Signals are Unix's: elsewhere none is sent.
#[cfg(not(unix))]
fn signal(_pid: i32, _sig: i32) {}

#[cfg(unix)]
const SIGTERM: i32 = libc::SIGTERM;
#[cfg(unix)]
const SIGKILL: i32 = libc::SIGKILL;
#[cfg(not(unix))]
const SIGTERM: i32 = 15;
#[cfg(not(unix))]
const SIGKILL: i32 = 9;

/// The exit status as a shell's `$?` says it: the code, or 128 + the signal that ended it.
fn status_code(s: std::process::ExitStatus) -> i32 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return 128 + sig;
        }
    }
    s.code().unwrap_or(255)
}

/// Jobs as `vier solve` processes of this machine, `n` at once.
struct Local {
    jobs: Option<Sender<Job>>,
    /// Whether each job runs under a keeper: ended with `SIGTERM`, it ends its job's processes.
    kept: bool,
    events: Receiver<Event>,
    /// The processes running now by job, to end them at the end or when no longer needed.
    running: Arc<Mutex<HashMap<JobId, u32>>>,
    stopping: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Local {
    fn start(n: usize, vier: &str, keeper: Option<&Path>) -> Local {
        let (jobs, queue) = channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        let (tx, events) = sync_channel(QUEUE);
        let running = Arc::new(Mutex::new(HashMap::new()));
        let stopping = Arc::new(AtomicBool::new(false));
        let threads = (0..n.max(1))
            .map(|_| {
                let (queue, tx, running, stopping) =
                    (queue.clone(), tx.clone(), running.clone(), stopping.clone());
                let vier = vier.to_string();
                let keeper = keeper.map(Path::to_path_buf);
                std::thread::spawn(move || loop {
                    let job = match queue.lock().unwrap_or_else(|e| e.into_inner()).recv() {
                        Ok(j) => j,
                        Err(_) => return,
                    };
                    if stopping.load(Ordering::SeqCst) {
                        return;
                    }
                    run_local(&vier, keeper.as_deref(), &job, &tx, &running);
                })
            })
            .collect();
        Local {
            jobs: Some(jobs),
            kept: keeper.is_some(),
            events,
            running,
            stopping,
            threads,
        }
    }
}

/// Runs one job as a process, sending its lines and then its last line.
fn run_local(
    vier: &str,
    keeper: Option<&Path>,
    job: &Job,
    tx: &SyncSender<Event>,
    running: &Mutex<HashMap<JobId, u32>>,
) {
    let child = kept(keeper, vier)
        .arg("solve")
        .args(&job.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            let _ = tx.send(Event::Line(format!("cannot run {vier}: {e}")));
            let _ = tx.send(Event::Line(done_line(job.id, 127)));
            return;
        }
    };
    running
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(job.id, child.id());
    if let Some(mut stdin) = child.stdin.take() {
        let text = job.input();
        let _ = stdin.write_all(text.as_bytes());
    }
    if let Some(out) = child.stdout.take() {
        let mut out = BufReader::new(out);
        while let Ok(Some(l)) = next_line(&mut out) {
            if tx.send(Event::Line(l)).is_err() {
                // the runner stopped: the process is ended below
                signal(child.id() as i32, SIGKILL);
                break;
            }
        }
    }
    // out of the set before it is reaped: a process id is never signalled once it may be reused
    running
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&job.id);
    let status = child.wait().map_or(255, status_code);
    let _ = tx.send(Event::Line(done_line(job.id, status)));
}

impl Runner for Local {
    fn submit(&mut self, job: &Job) -> io::Result<()> {
        self.jobs
            .as_ref()
            .and_then(|j| j.send(job.clone()).ok())
            .ok_or_else(|| io::Error::other("the local runner has stopped"))
    }

    fn next(&mut self, wait: Duration) -> Option<Event> {
        self.events.recv_timeout(wait).ok()
    }

    fn stop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.jobs = None;
        for &pid in self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
        {
            signal(pid as i32, if self.kept { SIGTERM } else { SIGKILL });
        }
        // the reports no one reads any more: a thread that waits to hand one over ends
        self.events = sync_channel(0).1;
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }

    fn cancel(&mut self, job: JobId) -> bool {
        // under the lock: a process still in the map has not been reaped, so its id is its own
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        match running.get(&job) {
            Some(&pid) => {
                signal(pid as i32, if self.kept { SIGTERM } else { SIGKILL });
                true
            }
            None => false,
        }
    }
}

/// A runner command (GNU parallel, xargs) fed one job command a line.
struct Stream {
    child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Event>,
    vier: String,
    /// When the runner last printed a line or was nudged, and how long a silence waits for the
    /// next nudge.
    heard: Instant,
    gap: Duration,
}

/// The first and the longest silence after which a runner is nudged with an empty command (`:`):
/// GNU parallel prints a finished job's lines only when it gets back from reading its next
/// input line, so without more input it would hold them for ever; the gap doubles while the
/// nudges bring nothing, so long jobs are not nudged often.
const NUDGE_FIRST: Duration = Duration::from_millis(250);
const NUDGE_MOST: Duration = Duration::from_secs(30);

impl Stream {
    fn start(command: &str, vier: &str, keeper: Option<&Path>) -> io::Result<Stream> {
        let mut cmd = kept(keeper, "sh");
        cmd.arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        // a group of its own, so that the end of the proof ends every job it started
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("cannot start '{command}': {e}")))?;
        let stdin = child.stdin.take();
        let out = child.stdout.take().expect("piped");
        let (tx, events) = sync_channel(QUEUE);
        std::thread::spawn(move || {
            let mut out = BufReader::new(out);
            while let Ok(Some(l)) = next_line(&mut out) {
                if tx.send(Event::Line(l)).is_err() {
                    return;
                }
            }
            let _ = tx.send(Event::Ended("its output ended".into()));
        });
        Ok(Stream {
            child,
            stdin,
            events,
            vier: vier.to_string(),
            heard: Instant::now(),
            gap: NUDGE_FIRST,
        })
    }
}

impl Runner for Stream {
    fn submit(&mut self, job: &Job) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("the runner has stopped"))?;
        writeln!(stdin, "{}", job.command(&self.vier))?;
        stdin.flush()?;
        // new input lets GNU parallel print what it holds: no nudge needed for a while
        self.heard = Instant::now();
        self.gap = NUDGE_FIRST;
        Ok(())
    }

    fn next(&mut self, wait: Duration) -> Option<Event> {
        match self.events.recv_timeout(wait) {
            Ok(e) => {
                self.heard = Instant::now();
                self.gap = NUDGE_FIRST;
                Some(e)
            }
            Err(RecvTimeoutError::Timeout) => {
                if self.heard.elapsed() >= self.gap {
                    if let Some(stdin) = self.stdin.as_mut() {
                        let _ = stdin.write_all(b":\n").and_then(|_| stdin.flush());
                    }
                    self.heard = Instant::now();
                    self.gap = (self.gap * 2).min(NUDGE_MOST);
                }
                None
            }
            Err(RecvTimeoutError::Disconnected) => Some(Event::Ended("its output ended".into())),
        }
    }

    fn stop(&mut self) {
        self.stdin = None;
        let group = self.child.id() as i32;
        signal(-group, SIGTERM);
        // within a second, or killed
        for _ in 0..20 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        signal(-group, SIGKILL);
        let _ = self.child.wait();
    }
}

/// Slurm job arrays, one for the jobs handed out together (a wave).
struct Slurm {
    sbatch: String,
    vier: String,
    dir: PathBuf,
    waiting: Vec<Job>,
    waves: Vec<Wave>,
    /// Waves whose `sbatch --wait` returned, with what it said when it submitted nothing.
    ended: Receiver<(u64, Option<String>)>,
    ended_tx: Sender<(u64, Option<String>)>,
    next_wave: u64,
    /// The `sbatch --wait` processes, by wave.
    submitters: HashMap<u64, u32>,
    /// The Slurm job of each wave, as `sbatch` said it.
    slurm_jobs: Arc<Mutex<HashMap<u64, String>>>,
    /// Reports read and not yet handed over.
    reports: VecDeque<Event>,
}

struct Wave {
    id: u64,
    dir: PathBuf,
    jobs: Vec<JobId>,
    read: Vec<bool>,
}

impl Slurm {
    fn start(sbatch: &str, vier: &str, state: &Path) -> io::Result<Slurm> {
        let dir = state.join("slurm");
        std::fs::create_dir_all(&dir)?;
        let dir = dir.canonicalize()?;
        // a wave number not used before, so that a restarted front end reads no old task
        let next_wave = std::fs::read_dir(&dir)?
            .filter_map(|e| {
                e.ok()?
                    .file_name()
                    .to_str()?
                    .strip_prefix("wave-")?
                    .parse::<u64>()
                    .ok()
            })
            .max()
            .map_or(0, |w| w + 1);
        let (ended_tx, ended) = channel();
        Ok(Slurm {
            sbatch: sbatch.to_string(),
            vier: vier.to_string(),
            dir,
            waiting: Vec::new(),
            waves: Vec::new(),
            ended,
            ended_tx,
            next_wave,
            submitters: HashMap::new(),
            slurm_jobs: Arc::new(Mutex::new(HashMap::new())),
            reports: VecDeque::new(),
        })
    }

    /// Submits the jobs waiting as one job array.
    fn submit_wave(&mut self) -> io::Result<()> {
        // a folder of its own, new: one made by anyone else is passed over
        let (id, dir) = loop {
            let id = self.next_wave;
            self.next_wave += 1;
            let dir = self.dir.join(format!("wave-{id:06}"));
            match std::fs::create_dir(&dir) {
                Ok(()) => break (id, dir),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        };
        let jobs: Vec<Job> = std::mem::take(&mut self.waiting);
        let list: String = jobs.iter().map(|j| j.command(&self.vier) + "\n").collect();
        files::create_new(&dir.join("jobs"))?.write_all(list.as_bytes())?;
        // Slurm ends a task past its time: the job is run again
        let time = jobs
            .iter()
            .filter_map(|j| settings::job_timeout(j.budget(), j.positions.len()))
            .max()
            .map_or(String::new(), |t| {
                format!("#SBATCH --time={}\n", t.as_secs().div_ceil(60))
            });
        let d = super::jobs::shell_word(&dir.to_string_lossy());
        let script = format!(
            "#!/bin/sh\n\
             #SBATCH --job-name=vier-prove\n\
             #SBATCH --array=0-{}\n\
             #SBATCH --ntasks=1\n\
             #SBATCH --cpus-per-task=1\n\
             #SBATCH --output={}/task-%a.out\n\
             {time}\
             # one job of vier prove a task: line SLURM_ARRAY_TASK_ID + 1 of the list\n\
             line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {d}/jobs)\n\
             exec sh -c \"$line\"\n",
            jobs.len() - 1,
            dir.display(),
        );
        files::create_new(&dir.join("run.sh"))?.write_all(script.as_bytes())?;
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("{} --wait {d}/run.sh", self.sbatch))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn()?;
        self.submitters.insert(id, child.id());
        let tx = self.ended_tx.clone();
        let slurm_jobs = self.slurm_jobs.clone();
        let out = child.stdout.take();
        let err = child.stderr.take();
        // what sbatch says on its standard error, passed on, and its last lines kept: the
        // reason when it submits nothing
        let said = std::thread::spawn(move || {
            let mut last: VecDeque<String> = VecDeque::new();
            if let Some(err) = err {
                let mut err = BufReader::new(err);
                while let Ok(Some(l)) = next_line(&mut err) {
                    eprintln!("{l}");
                    last.push_back(l);
                    if last.len() > 5 {
                        last.pop_front();
                    }
                }
            }
            Vec::from(last).join(" / ")
        });
        std::thread::spawn(move || {
            // "Submitted batch job 1234": the job to cancel if the proof ends first
            let mut submitted = false;
            if let Some(out) = out {
                let mut out = BufReader::new(out);
                while let Ok(Some(line)) = next_line(&mut out) {
                    if let Some(n) = line.strip_prefix("Submitted batch job ") {
                        submitted = true;
                        slurm_jobs
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .insert(id, n.trim().to_string());
                    }
                }
            }
            let status = child.wait().map_or(255, status_code);
            let said = said.join().unwrap_or_default();
            let failed = (!submitted && status != 0).then(|| {
                format!(
                    "it submitted nothing (exit status {status}){}",
                    if said.is_empty() {
                        String::new()
                    } else {
                        format!(": {said}")
                    }
                )
            });
            let _ = tx.send((id, failed));
        });
        self.waves.push(Wave {
            id,
            read: vec![false; jobs.len()],
            jobs: jobs.iter().map(|j| j.id).collect(),
            dir,
        });
        Ok(())
    }

    /// The lines of the tasks that ended since the last look; with `last`, of every task left
    /// (the wave is over), and the jobs whose tasks did not end.
    fn read_tasks(wave: &mut Wave, last: bool, out: &mut Vec<Event>) {
        let mut lost = Vec::new();
        for (i, read) in wave.read.iter_mut().enumerate() {
            if *read {
                continue;
            }
            // a task's output is untrusted as any: a regular file of a job's size, lines of a
            // line's length (or nothing, and the job runs again)
            let text =
                files::read_bounded(&wave.dir.join(format!("task-{i}.out")), files::MAX_TASK)
                    .unwrap_or_default();
            let finished = text
                .split(|&b| b == b'\n')
                .any(|l| l.starts_with(b"vier-prove job"));
            if finished || last {
                *read = true;
                let mut r = &text[..];
                while let Ok(Some(l)) = next_line(&mut r) {
                    out.push(Event::Line(l));
                }
                if !finished {
                    lost.push(wave.jobs[i]);
                }
            }
        }
        if !lost.is_empty() {
            out.push(Event::Lost(lost));
        }
    }
}

impl Runner for Slurm {
    fn submit(&mut self, job: &Job) -> io::Result<()> {
        self.waiting.push(job.clone());
        Ok(())
    }

    fn next(&mut self, wait: Duration) -> Option<Event> {
        if let Some(e) = self.reports.pop_front() {
            return Some(e);
        }
        if !self.waiting.is_empty() {
            if let Err(e) = self.submit_wave() {
                // the jobs are handed back: the front end tries again
                let lost = std::mem::take(&mut self.waiting)
                    .iter()
                    .map(|j| j.id)
                    .collect();
                eprintln!("vier prove: cannot submit a job array: {e}");
                return Some(Event::Lost(lost));
            }
        }
        std::thread::sleep(wait.min(Duration::from_millis(500)));
        let (ended, failed): (Vec<u64>, Vec<String>) =
            self.ended
                .try_iter()
                .fold((Vec::new(), Vec::new()), |(mut e, mut f), (id, why)| {
                    e.push(id);
                    f.extend(why);
                    (e, f)
                });
        let mut events = Vec::new();
        for w in &mut self.waves {
            Self::read_tasks(w, ended.contains(&w.id), &mut events);
        }
        self.waves.retain(|w| !ended.contains(&w.id));
        for id in ended {
            self.submitters.remove(&id);
        }
        self.reports.extend(events);
        if let Some(why) = failed.into_iter().next() {
            // its jobs are lost (above); the front end counts this end and tries again
            self.reports
                .push_back(Event::Ended(format!("{} {why}", self.sbatch)));
        }
        self.reports.pop_front()
    }

    fn times_its_jobs(&self) -> bool {
        true
    }

    fn stop(&mut self) {
        // the arrays still running are cancelled by their own number (a name would reach
        // other proofs), then their `sbatch --wait` ended
        let jobs = self
            .slurm_jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        for (&w, &pid) in &self.submitters {
            let cancelled = jobs.get(&w).is_some_and(|j| {
                Command::new("scancel")
                    .arg(j)
                    .status()
                    .is_ok_and(|s| s.success())
            });
            signal(-(pid as i32), SIGTERM);
            if !cancelled {
                eprintln!(
                    "vier prove: the job array of {} may still be queued or running",
                    self.dir.join(format!("wave-{w:06}")).display()
                );
            }
        }
        self.submitters.clear();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::prove::rules::Goal;

    #[test]
    fn a_local_job_that_is_cancelled_ends_at_once_and_its_last_line_says_killed() {
        // a `vier` that never answers: only a cancel ends it before its minute is up
        let dir = std::env::temp_dir().join(format!("vier-prove-cancel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fake = dir.join("vier");
        std::fs::write(&fake, "#!/bin/sh\nexec sleep 60\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut r = Local::start(1, fake.to_str().unwrap(), None);
        let size = "7x6".parse().unwrap();
        r.submit(&Job::new(
            7,
            size,
            Goal::Weak,
            None,
            1,
            None,
            vec!["4".into()],
        ))
        .unwrap();
        let started = Instant::now();
        while !r.running.lock().unwrap().contains_key(&7) {
            assert!(started.elapsed() < Duration::from_secs(20), "never started");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(r.cancel(7));
        assert!(!r.cancel(8), "no job 8 runs");
        match r.next(Duration::from_secs(20)) {
            Some(Event::Line(l)) => assert_eq!(l, done_line(7, 128 + SIGKILL)),
            e => panic!("expected the job's last line, got {e:?}"),
        }
        r.stop();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
