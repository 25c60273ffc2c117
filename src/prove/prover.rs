//! The proof: positions chosen by the tree, handed out in jobs through the dispatcher, their
//! results learnt, written to the state folder as they come, and the certificate at the end.

use super::dispatch::{self, Dispatcher, Halt};
use super::jobs::{Job, JobId};
use super::report::{discs_of, progress, Totals};
use super::resume::{facts_of, load, Loaded};
use super::rules::{describe, position};
use super::runner::RunnerSpec;
use super::seeds::Seeds;
use super::settings::{self, DEFAULT_BUDGET, JOB_HASH_MB, SHARED_HASH_MB};
use super::state::{Proof, State};
use super::tree::{Fact, Tree};
use super::{cert, runner};
use crate::tt::TransTable;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How `vier prove` runs.
#[derive(Clone, Debug)]
pub struct ProveOptions {
    pub dir: PathBuf,
    /// What to prove, for a new state folder (`None`: the folder's own).
    pub proof: Option<Proof>,
    /// The nodes each position of a job may take (`None`: the last job's, else
    /// [`DEFAULT_BUDGET`]).
    pub budget: Option<u64>,
    /// Each job's table, MB (`None`: the last job's, else [`JOB_HASH_MB`], or with a
    /// `table_file` [`SHARED_HASH_MB`]).
    pub hash_mb: Option<usize>,
    /// The file of the one table all jobs share (`vier solve --table-file`), for a runner whose
    /// jobs run on this machine; removed when the proof returns.
    pub table_file: Option<PathBuf>,
    /// How many moves below a position it does not prove each job reports what it learnt
    /// (`None`: [`settings::LEARNT`]'s default).
    pub learnt: Option<u32>,
    /// Jobs handed to the runner at once.
    pub jobs: usize,
    /// Positions in one job.
    pub per_job: usize,
    pub runner: RunnerSpec,
    /// The `vier` the jobs run.
    pub vier: String,
    /// Seconds between progress reports.
    pub report_every: Duration,
    /// The vier whose `keep-engine` each local job and runner command runs under, so that they
    /// end with the front end however it ends (`None`: they run without one).
    pub keeper: Option<PathBuf>,
}

/// A finished proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub proof: Proof,
    pub value: i32,
    /// The solver's nodes of every job (the runs of this front end and of those before it).
    pub nodes: u64,
    pub jobs: u64,
}

impl Outcome {
    /// `7x6 - weak 1: the first player (to move) wins`.
    pub fn line(&self) -> String {
        let discs = position(self.proof.size, &self.proof.root).map_or(0, |p| p.discs());
        format!(
            "{} {} {} {}: {}",
            self.proof.size,
            self.proof.root,
            self.proof.goal.name(),
            self.value,
            describe(self.proof.goal, self.value, self.proof.size, discs)
        )
    }
}

/// Proves the root of `opts.dir` (a new proof when `opts.proof` is given), reporting progress
/// to `log`; the outcome, or why it cannot go on.
pub fn prove(opts: &ProveOptions, log: &mut dyn Write) -> Result<Outcome, String> {
    // the shared table starts empty (one a killed run left behind may be of another size) and
    // is given back however the proof returns
    let remove = || {
        if let Some(f) = &opts.table_file {
            let _ = std::fs::remove_file(f);
        }
    };
    remove();
    let outcome = prove_sharing(opts, log);
    remove();
    outcome
}

fn prove_sharing(opts: &ProveOptions, log: &mut dyn Write) -> Result<Outcome, String> {
    let state = State::open(&opts.dir, opts.proof.as_ref())?;
    let proof = state.proof.clone();
    let Loaded {
        mut tree,
        mut totals,
        rerun,
        dropped,
        mut next_id,
        last,
        notes,
        mut seeds,
    } = load(&state, true)?;
    // a job file's budget only within the range (a state file is checked as any input)
    let budget = opts
        .budget
        .or_else(|| {
            last.as_ref()
                .and_then(Job::budget)
                .filter(|&b| settings::BUDGET_NODES.check(b).is_ok())
        })
        .unwrap_or(DEFAULT_BUDGET);
    let learnt = opts.learnt.unwrap_or(settings::LEARNT.default as u32);
    for (s, n) in [
        (settings::BUDGET_NODES, budget),
        (settings::LEARNT, learnt as u64),
        (settings::JOBS, opts.jobs as u64),
        (settings::PER_JOB, opts.per_job as u64),
    ] {
        s.check(n)?;
    }
    let asked_mb = opts
        .hash_mb
        .or_else(|| last.as_ref().and_then(Job::hash_mb));
    // the shared table is made here, so that one the machine cannot give (a small /dev/shm)
    // leaves each job a table of its own instead of failing every job
    let mut table_file = None;
    if let Some(f) = &opts.table_file {
        let mb = asked_mb.unwrap_or(SHARED_HASH_MB);
        let board = (proof.size.width(), proof.size.height());
        match TransTable::open_file(f, mb, board) {
            Ok(_) => table_file = Some((f.to_string_lossy().into_owned(), mb)),
            Err(e) => {
                let _ = writeln!(log, "vier prove: each job has a table of its own: {e}");
            }
        }
    }
    let hash_mb = match &table_file {
        Some((_, mb)) => *mb,
        None => asked_mb.unwrap_or(JOB_HASH_MB),
    };
    let table_file = table_file.map(|(f, _)| f);
    for n in &notes {
        let _ = writeln!(log, "vier prove: {n}");
    }
    if !rerun.is_empty() || totals.jobs > 0 {
        let _ = writeln!(
            log,
            "vier prove: resuming {}: {} jobs done, {} to run again{}; new jobs of {budget} \
             nodes with {hash_mb} MB tables",
            state.dir.display(),
            totals.jobs,
            rerun.len(),
            if dropped > 0 {
                format!(", {dropped} no longer needed")
            } else {
                String::new()
            }
        );
    }
    let started = Instant::now();
    let nodes_before = totals.nodes;
    let spec = opts.runner.clone();
    let (vier, dir, keeper) = (opts.vier.clone(), state.dir.clone(), opts.keeper.clone());
    let start = Box::new(move || runner::start(&spec, &vier, &dir, keeper.as_deref()));
    let mut d = Dispatcher::new(
        start,
        opts.runner.to_string(),
        "vier prove",
        (proof.size, proof.goal),
        opts.jobs,
    );
    for job in rerun {
        let job = job.sharing(table_file.as_deref());
        let timeout = settings::job_timeout(job.budget(), job.positions.len());
        d.submit(job, timeout);
    }
    let mut last_report = Instant::now();
    let report = |tree: &Tree, totals: &Totals, (running, waiting), word: &str| {
        progress(
            &proof,
            tree,
            totals,
            running,
            waiting,
            started.elapsed(),
            totals.nodes - nodes_before,
            opts.jobs,
            word,
        )
    };
    let io_err = |e: std::io::Error| format!("{}: {e}", state.dir.display());
    let new_jobs = NewJobs {
        budget,
        hash_mb,
        learnt,
        per_job: opts.per_job,
        root_discs: discs_of(&proof.root),
        table_file: table_file.clone(),
    };
    while tree.value().is_none() {
        // hand out work until the runner has enough
        while d.in_flight() + d.waiting() < opts.jobs {
            let Some(job) = new_jobs
                .next(&state, &mut tree, &mut totals, &seeds, next_id)
                .map_err(io_err)?
            else {
                break;
            };
            next_id += 1;
            state.write_job(&job).map_err(io_err)?;
            let timeout = settings::job_timeout(job.budget(), job.positions.len());
            d.submit(job, timeout);
        }
        if d.is_idle() {
            return Err(format!(
                "nothing left to hand out and the root of {} is not proven: a bug",
                state.dir.display()
            ));
        }
        let finished = match d.step(Duration::from_millis(200), log) {
            Ok(f) => f,
            Err(Halt::Stopped) => {
                let (line, file) = report(&tree, &totals, (0, 0), "stopped");
                let _ = writeln!(log, "{line}");
                let _ = state.write_progress(&file);
                return Err(format!(
                    "stopped by a signal: `vier prove --state {}` goes on",
                    state.dir.display()
                ));
            }
            Err(Halt::JobFails { job, last }) => {
                return Err(format!(
                    "job {job} failed {} times, the last: {last}; {} holds it, `vier solve` \
                     reads it",
                    dispatch::TRIES,
                    state.job_path(job).display()
                ))
            }
            Err(Halt::Failed(e)) => return Err(e),
        };
        if let Some(f) = finished {
            state.write_result(f.job.id, &f.lines).map_err(io_err)?;
            for (k, fact) in facts_of(proof.size, proof.goal, &f.results) {
                tree.learn(k, fact);
            }
            totals.add(&f.results, new_jobs.root_discs);
            seeds.add(&f.results);
            cancel_unneeded(&mut tree, &mut d, &mut totals);
        }
        if last_report.elapsed() >= opts.report_every {
            last_report = Instant::now();
            let (line, file) = report(&tree, &totals, (d.in_flight(), d.waiting()), "running");
            let _ = writeln!(log, "{line}");
            let _ = state.write_progress(&file);
        }
    }
    d.stop();
    let value = tree.value().expect("proven");
    state
        .write_certificate(&cert::write(&tree, &proof))
        .map_err(io_err)?;
    let (line, file) = report(&tree, &totals, (0, 0), "proven");
    let _ = writeln!(log, "{line}");
    let _ = state.write_progress(&file);
    Ok(Outcome {
        proof,
        value,
        nodes: totals.nodes,
        jobs: totals.jobs,
    })
}

/// How new jobs are made.
struct NewJobs {
    budget: u64,
    hash_mb: usize,
    learnt: u32,
    per_job: usize,
    root_discs: usize,
    /// The file of the table the jobs share, if they share one.
    table_file: Option<String>,
}

impl NewJobs {
    /// The next job, numbered `id`, of the most proving open leaves that ask one question (a
    /// job asks one), handed out in the tree, starting from what earlier jobs learnt below them
    /// (`seeds`); `None` when no leaf is open. A leaf at a depth where most jobs fail is
    /// expanded at once instead (noted in the state folder).
    fn next(
        &self,
        state: &State,
        tree: &mut Tree,
        totals: &mut Totals,
        seeds: &Seeds,
        id: JobId,
    ) -> std::io::Result<Option<Job>> {
        let mut picked = Vec::new();
        let mut asks = None;
        while picked.len() < self.per_job {
            let Some(n) = tree.select() else { break };
            let q = tree.asks(n);
            if asks.is_some_and(|a| a != q) {
                break;
            }
            let moves = tree.moves(n).to_string();
            if n != 0 && totals.expand_first(discs_of(&moves) - self.root_discs) {
                state.add_expanded(&moves)?;
                tree.learn(tree.key(n), Fact::Unproven { nodes: 0 });
                totals.expanded += 1;
                continue;
            }
            tree.hand_out(n, id);
            picked.push(moves);
            asks = Some(q);
        }
        if picked.is_empty() {
            return Ok(None);
        }
        let p = &state.proof;
        let (size, goal) = (p.size, p.goal);
        let budget = Some(self.budget);
        Ok(Some(
            Job::new(id, size, goal, asks, self.hash_mb, budget, picked.clone())
                .keeping(self.learnt)
                .sharing(self.table_file.as_deref())
                .seeded(seeds.below(&picked)),
        ))
    }
}

/// Ends the jobs whose positions the proof no longer needs (a sibling answered their parent),
/// waiting or running where the runner can: their cores go to positions that matter. Their
/// positions are open again, handed out anew if they matter again (the next question).
fn cancel_unneeded(tree: &mut Tree, d: &mut Dispatcher, totals: &mut Totals) {
    let unneeded = |j: &Job| {
        j.positions
            .iter()
            .all(|m| tree.node_at(m).is_none_or(|id| !tree.matters(id)))
    };
    for job in d.cancel(unneeded) {
        for m in &job.positions {
            if let Some(n) = tree.node_at(m) {
                tree.give_back(n);
            }
        }
        totals.cancelled += 1;
    }
}

/// The state of a proof, read from its folder while a front end may be at work on it: the
/// report's line and its `key value` lines.
pub fn status(dir: &std::path::Path) -> Result<(String, String), String> {
    let state = State::read(dir)?;
    let loaded = load(&state, false)?;
    for n in &loaded.notes {
        eprintln!("vier prove: {n}");
    }
    // the jobs without a result: running while a front end holds the folder, else to run
    // again when one starts
    let pending = loaded.rerun.len();
    let (word, running, waiting) = if loaded.tree.value().is_some() {
        ("proven", 0, 0)
    } else if state.held() {
        ("running", pending, 0)
    } else {
        ("stopped", 0, pending)
    };
    Ok(progress(
        &state.proof,
        &loaded.tree,
        &loaded.totals,
        running,
        waiting,
        Duration::ZERO,
        0,
        1,
        word,
    ))
}
