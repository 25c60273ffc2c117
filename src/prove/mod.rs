//! `vier prove`: the proof of one position split into jobs that any runner runs (this machine,
//! GNU parallel or xargs, over SSH, a Slurm job array), resumable and verifiable; offline code,
//! compiled with the `prove` feature. docs/prove.md is the user's guide.
//!
//! The front end ([`prove`]) chooses positions by proof-number search ([`tree`]), writes each
//! job as a file of `vier solve` input with a node budget and the one question the proof asks
//! of its positions ([`jobs`]), hands it to a runner
//! ([`runner`]) and reads back the lines the job prints. A position not proven within its
//! budget is expanded and its children handed out. Everything it knows is in the state folder
//! ([`state`]): killed at any moment and started again, it goes on. At the end the folder holds
//! a certificate ([`cert`]), which [`verify`] checks again without trusting the run: it
//! recomputes the back-up from the rules ([`rules`]) and asks the leaves again.

pub mod cert;
pub mod files;
pub mod jobs;
pub mod rules;
pub mod runner;
pub mod settings;
pub mod state;
pub mod tree;

use jobs::{check_run, parse_line, Job, JobId, Line};
use rules::{describe, examine, position, Goal};
use runner::{Event, Runner, RunnerSpec};
use state::{Proof, State};
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tree::{Fact, Known, Tree, Work};

/// How `vier prove` runs.
#[derive(Clone, Debug)]
pub struct ProveOptions {
    pub dir: PathBuf,
    /// What to prove, for a new state folder (`None`: the folder's own).
    pub proof: Option<Proof>,
    /// The nodes each position of a job may take (`None`: the last job's, else
    /// [`DEFAULT_BUDGET`]).
    pub budget: Option<u64>,
    /// Each job's table, MB (`None`: the last job's, else [`JOB_HASH_MB`]).
    pub hash_mb: Option<usize>,
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

/// A job's node budget when neither the command nor an earlier job says.
pub const DEFAULT_BUDGET: u64 = settings::BUDGET_NODES.default;

/// A job's table, MB, when neither the command nor an earlier job says (smaller than a
/// search's `search::DEFAULT_HASH_MB`: many jobs share a machine).
pub const JOB_HASH_MB: usize = 16;

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

/// The work of all jobs so far.
#[derive(Clone, Debug, Default)]
struct Totals {
    jobs: u64,
    positions: u64,
    unproven: u64,
    nodes: u64,
    micros: u64,
    /// Positions handed out, and those of them not proven, by moves below the root.
    tries: Vec<u64>,
    fails: Vec<u64>,
    /// Positions expanded without a job.
    expanded: u64,
    /// Jobs ended while they ran because their positions were no longer needed.
    cancelled: u64,
}

impl Totals {
    /// Adds a job's results; `root_discs`: the discs of the root.
    fn add(&mut self, results: &[Line], root_discs: usize) {
        self.jobs += 1;
        for r in results {
            if let Line::Result {
                moves,
                bounds,
                nodes,
                micros,
            } = r
            {
                self.positions += 1;
                self.unproven += bounds.is_none() as u64;
                // numbers a runner printed: a sum that cannot wrap
                self.nodes = self.nodes.saturating_add(*nodes);
                self.micros = self.micros.saturating_add(*micros);
                let discs = if moves == "-" { 0 } else { moves.len() };
                let plies = discs.saturating_sub(root_discs);
                if self.tries.len() <= plies {
                    self.tries.resize(plies + 1, 0);
                    self.fails.resize(plies + 1, 0);
                }
                self.tries[plies] += 1;
                self.fails[plies] += bounds.is_none() as u64;
            }
        }
    }

    /// Whether a leaf this many moves below the root is better expanded at once than handed
    /// out: most of the positions handed out at its depth (at least 3) were not proven within
    /// their budget. A job that fails is its budget lost, so a depth where most fail is split.
    fn expand_first(&self, plies: usize) -> bool {
        let (t, f) = (
            self.tries.get(plies).copied().unwrap_or(0),
            self.fails.get(plies).copied().unwrap_or(0),
        );
        f >= 3 && 2 * f > t
    }
}

/// The discs of a move string's position (`-`: none).
fn discs_of(moves: &str) -> usize {
    if moves == "-" {
        0
    } else {
        moves.len()
    }
}

/// Nodes of the engine's heuristic search that guesses the root's outcome.
const GUESS_NODES: u64 = 1 << 18;

/// The proof's first question: "is the root won?" (1) where the engine's heuristic search of
/// [`GUESS_NODES`] nodes (one thread: the same guess each run) scores it above 0, else "is it
/// at least drawn?" (0). A job asks its leaf one question, so a proof that asks the wrong one
/// first proves it, then proves the other: on the 11x4 root `eggf`, a win, asking 0 first took
/// 4.8 times the nodes of one solve, asking 1 first 1.5 times (32 M-node jobs).
fn first_question(root: &crate::board::AnyPosition) -> i32 {
    struct Guess;
    impl crate::board::PositionJob for Guess {
        type Output = bool;
        fn run<const W: usize, const H: usize, B: crate::bits::Bitboard>(
            self,
            p: crate::board::Position<W, H, B>,
        ) -> bool {
            use crate::search::{Iteration, SearchLimits, Searcher};
            if p.is_game_over() {
                return false;
            }
            let limits = SearchLimits {
                nodes: Some(GUESS_NODES),
                multipv: 1,
                ..Default::default()
            };
            let control = crate::control::SearchControl::unlimited();
            let r = Searcher::new(16).search(&p, &limits, &control, &mut |_: &Iteration| {});
            r.last.lines.first().is_some_and(|l| match l.value.score {
                crate::score::Score::Win(_) => true,
                crate::score::Score::Cp(x) => x > 0,
                _ => false,
            })
        }
    }
    root.run(Guess) as i32
}

/// A state folder read back: its tree, the jobs still to run and the totals.
struct Loaded {
    tree: Tree,
    totals: Totals,
    /// Jobs without a result that still have an open position: run them (again).
    rerun: Vec<Job>,
    /// Jobs without a result that no longer matter.
    dropped: usize,
    next_id: JobId,
    /// The job written last: a proof started again goes on with its budget and table.
    last: Option<Job>,
    notes: Vec<String>,
}

/// The facts a job's results give, with each position's key.
fn facts_of(size: crate::board::Size, goal: Goal, results: &[Line]) -> Vec<(u128, Fact)> {
    results
        .iter()
        .filter_map(|r| match r {
            Line::Result {
                moves,
                bounds,
                nodes,
                ..
            } => {
                let p = position(size, moves).ok()?;
                let key = examine(&p, goal, false).look.key;
                Some((
                    key,
                    match *bounds {
                        Some((lo, hi)) => Fact::Bounds {
                            lo,
                            hi,
                            nodes: *nodes,
                        },
                        None => Fact::Unproven { nodes: *nodes },
                    },
                ))
            }
            Line::Done { .. } => None,
        })
        .collect()
}

/// Reads a state folder: results checked against their jobs (a damaged one is set aside, when
/// `repair`), the tree rebuilt from them.
fn load(state: &State, repair: bool) -> Result<Loaded, String> {
    let proof = &state.proof;
    let err = |e: std::io::Error| format!("{}: {e}", state.dir.display());
    let (jobs, bad) = state.jobs().map_err(err)?;
    let mut notes: Vec<String> = bad
        .into_iter()
        .map(|b| format!("{b}: not a job file, left alone"))
        .collect();
    let by_id: HashMap<JobId, &Job> = jobs.iter().map(|j| (j.id, j)).collect();
    let mut facts: HashMap<u128, Known> = HashMap::new();
    let mut done = std::collections::HashSet::new();
    let mut totals = Totals::default();
    let mut results = state.results().map_err(err)?;
    results.sort_by_key(|r| r.0);
    for (id, lines) in results {
        let Some(job) = by_id.get(&id) else {
            notes.push(format!(
                "results/{id:06}.out: no job of that number, left alone"
            ));
            continue;
        };
        match check_run(job, &lines, proof.goal) {
            Ok(r) => {
                for (k, f) in facts_of(proof.size, proof.goal, &r) {
                    facts.entry(k).or_default().add(f);
                }
                totals.add(&r, discs_of(&proof.root));
                done.insert(id);
            }
            Err(e) => {
                notes.push(format!(
                    "results/{id:06}.out does not check ({e}): job {id} runs again"
                ));
                if repair {
                    state.set_aside(id).map_err(err)?;
                }
            }
        }
    }
    if repair {
        state.repair_expanded().map_err(err)?;
    }
    // each position once, however often its line comes; a few of the bad lines named
    let mut seen = std::collections::HashSet::new();
    let mut bad = 0;
    for moves in state.expanded().map_err(err)?.lines() {
        match position(proof.size, moves) {
            Ok(p) => {
                let key = examine(&p, proof.goal, false).look.key;
                if seen.insert(key) {
                    totals.expanded += 1;
                    facts
                        .entry(key)
                        .or_default()
                        .add(Fact::Unproven { nodes: 0 });
                }
            }
            Err(e) => {
                bad += 1;
                if bad <= 10 {
                    notes.push(format!("expanded: {e}: left alone"));
                }
            }
        }
    }
    if bad > 10 {
        notes.push(format!(
            "expanded: {bad} lines that are no position, left alone"
        ));
    }
    let root = position(proof.size, &proof.root)?;
    let first = first_question(&root);
    let mut tree = Tree::new(root, &proof.root, proof.goal, facts, proof.split, first);
    let mut rerun = Vec::new();
    let mut dropped = 0;
    // a proven root needs no job more: those without a result are dropped
    let proven = tree.value().is_some();
    for j in jobs.iter().filter(|j| !done.contains(&j.id)) {
        if proven {
            dropped += 1;
            continue;
        }
        let open: Vec<u32> = j
            .positions
            .iter()
            .filter_map(|m| {
                let id = tree.node_at(m)?;
                (tree.nodes[id as usize].work == Work::Open && tree.matters(id)).then_some(id)
            })
            .collect();
        if open.is_empty() {
            dropped += 1;
            continue;
        }
        for id in open {
            tree.hand_out(id, j.id);
        }
        rerun.push(j.clone());
    }
    let next_id = jobs.iter().map(|j| j.id + 1).max().unwrap_or(1);
    let last = jobs.iter().max_by_key(|j| j.id).cloned();
    Ok(Loaded {
        tree,
        totals,
        rerun,
        dropped,
        next_id,
        last,
        notes,
    })
}

/// A job handed to the runner, with its lines so far.
struct InFlight {
    job: Job,
    lines: Vec<String>,
    /// When it has run too long, and is ended and run again (see [`settings::job_timeout`]).
    deadline: Option<Instant>,
}

impl InFlight {
    /// Notes `job`, just handed to the runner with `timeout`, as in flight and as the owner of
    /// its positions.
    fn fly(
        job: Job,
        timeout: Option<Duration>,
        owner: &mut HashMap<String, JobId>,
        flying: &mut HashMap<JobId, InFlight>,
    ) {
        for p in &job.positions {
            owner.insert(p.clone(), job.id);
        }
        flying.insert(
            job.id,
            InFlight {
                job,
                lines: Vec::new(),
                deadline: timeout.map(|t| Instant::now() + t),
            },
        );
    }

    /// Keeps a line of the job's: at most one more than it has positions (and its last line),
    /// which is enough for a run to fail its check, so a job that floods costs no memory.
    fn keep(&mut self, line: String) {
        if self.lines.len() <= self.job.positions.len() {
            self.lines.push(line);
        }
    }
}

/// The jobs in flight past their deadline, which a runner that does not time its jobs itself
/// has not ended: each is ended where the runner can end one job (its run then fails its
/// check, and it runs again), else the runner is ended with all it runs (all run again).
/// Whether the runner must be ended; `note` hears of each job.
fn end_overdue(
    r: &mut dyn Runner,
    flying: &mut HashMap<JobId, InFlight>,
    mut note: impl FnMut(JobId),
) -> bool {
    if r.times_its_jobs() {
        return false;
    }
    let now = Instant::now();
    let mut overdue: Vec<JobId> = flying
        .values()
        .filter(|f| f.deadline.is_some_and(|d| now >= d))
        .map(|f| f.job.id)
        .collect();
    overdue.sort_unstable();
    let mut end_runner = false;
    for id in overdue {
        note(id);
        if let Some(f) = flying.get_mut(&id) {
            f.deadline = None;
        }
        end_runner |= !r.cancel(id);
    }
    end_runner
}

/// Set when the front end is asked to stop (`SIGTERM`, `SIGINT`, `SIGHUP`): it ends its jobs
/// and runner, writes its progress and returns.
static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn stop_asked(_: libc::c_int) {
    STOP.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Has `SIGTERM`, `SIGINT` and `SIGHUP` ask [`prove`] and [`verify`] to stop (a front end
/// calls it once): they end their jobs and runner (Slurm's arrays cancelled) within a second.
pub fn stop_on_signals() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe
    unsafe {
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::signal(sig, stop_asked as *const () as libc::sighandler_t);
        }
    }
}

fn stop_asked_now() -> bool {
    STOP.load(std::sync::atomic::Ordering::SeqCst)
}

/// Proves the root of `opts.dir` (a new proof when `opts.proof` is given), reporting progress
/// to `log`; the outcome, or why it cannot go on.
pub fn prove(opts: &ProveOptions, log: &mut dyn Write) -> Result<Outcome, String> {
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
    for (s, n) in [
        (settings::BUDGET_NODES, budget),
        (settings::JOBS, opts.jobs as u64),
        (settings::PER_JOB, opts.per_job as u64),
    ] {
        s.check(n)?;
    }
    let hash_mb = opts
        .hash_mb
        .or_else(|| last.as_ref().and_then(Job::hash_mb))
        .unwrap_or(JOB_HASH_MB);
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
    let root_discs = discs_of(&proof.root);
    let mut queue: VecDeque<Job> = rerun.into();
    let mut flying: HashMap<JobId, InFlight> = HashMap::new();
    let mut owner: HashMap<String, JobId> = HashMap::new();
    let mut failures: HashMap<JobId, u32> = HashMap::new();
    let mut runner: Option<Box<dyn Runner>> = None;
    let mut runner_ends = 0u32;
    let mut damaged_lines = 0u32;
    let mut last_report = Instant::now();
    let report = |tree: &Tree, totals: &Totals, flying: usize, waiting: usize, final_: bool| {
        let final_ = if final_ { "proven" } else { "running" };
        progress(
            &proof,
            tree,
            totals,
            flying,
            waiting,
            started.elapsed(),
            totals.nodes - nodes_before,
            opts.jobs,
            final_,
        )
    };
    while tree.value().is_none() {
        // hand out work until the runner has enough
        while flying.len() + queue.len() < opts.jobs {
            let mut picked = Vec::new();
            // the question of the job's positions: a job asks one
            let mut asks = None;
            while picked.len() < opts.per_job {
                let Some(id) = tree.select() else { break };
                let node = &tree.nodes[id as usize];
                let q = tree.asks(node);
                if asks.is_some_and(|a| a != q) {
                    break;
                }
                if id != 0 && totals.expand_first(discs_of(&node.moves) - root_discs) {
                    let (moves, key) = (node.moves.clone(), node.look.key);
                    state
                        .add_expanded(&moves)
                        .map_err(|e| format!("{}: {e}", state.dir.display()))?;
                    tree.learn(key, Fact::Unproven { nodes: 0 });
                    totals.expanded += 1;
                    continue;
                }
                tree.hand_out(id, next_id);
                picked.push(tree.nodes[id as usize].moves.clone());
                asks = Some(q);
            }
            if picked.is_empty() {
                break;
            }
            let job = Job::new(
                next_id,
                proof.size,
                proof.goal,
                asks,
                hash_mb,
                Some(budget),
                picked,
            );
            next_id += 1;
            state
                .write_job(&job)
                .map_err(|e| format!("{}: {e}", state.dir.display()))?;
            queue.push_back(job);
        }
        if runner.is_none() {
            runner = Some(
                runner::start(&opts.runner, &opts.vier, &state.dir, opts.keeper.as_deref())
                    .map_err(|e| format!("{}: {e}", opts.runner))?,
            );
        }
        let r = runner.as_mut().expect("started");
        while let Some(job) = queue.pop_front() {
            if let Err(e) = r.submit(&job) {
                let _ = writeln!(log, "vier prove: {}: {e}", opts.runner);
                queue.push_front(job);
                break;
            }
            let timeout = settings::job_timeout(job.budget(), job.positions.len());
            InFlight::fly(job, timeout, &mut owner, &mut flying);
        }
        if flying.is_empty() && queue.is_empty() {
            return Err(format!(
                "nothing left to hand out and the root of {} is not proven: a bug",
                state.dir.display()
            ));
        }
        let event = r.next(Duration::from_millis(200));
        let mut lost: Vec<JobId> = Vec::new();
        let mut learnt = false;
        match event {
            None => {}
            Some(Event::Line(l)) => match parse_line(&l, proof.goal) {
                Ok(Line::Result { ref moves, .. }) => {
                    match owner.get(moves).and_then(|j| flying.get_mut(j)) {
                        Some(f) => f.keep(l),
                        None => {
                            damaged_lines += 1;
                            if damaged_lines <= 10 {
                                let _ =
                                    writeln!(log, "vier prove: a line of no job running: '{l}'");
                            }
                        }
                    }
                }
                Ok(Line::Done { job, .. }) => {
                    if let Some(mut f) = flying.remove(&job) {
                        f.lines.push(l);
                        for p in &f.job.positions {
                            owner.remove(p);
                        }
                        match check_run(&f.job, &f.lines, proof.goal) {
                            Ok(results) => {
                                state
                                    .write_result(job, &f.lines)
                                    .map_err(|e| format!("{}: {e}", state.dir.display()))?;
                                for (k, fact) in facts_of(proof.size, proof.goal, &results) {
                                    tree.learn(k, fact);
                                }
                                totals.add(&results, root_discs);
                                runner_ends = 0;
                                learnt = true;
                            }
                            Err(e) => {
                                let n = failures.entry(job).or_insert(0);
                                *n += 1;
                                let _ = writeln!(
                                    log,
                                    "vier prove: job {job} ({e}): run again ({} time{})",
                                    n,
                                    if *n == 1 { "" } else { "s" }
                                );
                                if *n >= 5 {
                                    stop(&mut runner);
                                    return Err(format!(
                                        "job {job} failed {n} times, the last: {e}; \
                                         {} holds it, `vier solve` reads it",
                                        state
                                            .dir
                                            .join("jobs")
                                            .join(format!("{job:06}.job"))
                                            .display()
                                    ));
                                }
                                lost.push(job);
                                flying.insert(job, f);
                            }
                        }
                    }
                }
                Err(e) => {
                    damaged_lines += 1;
                    if damaged_lines <= 10 {
                        let _ = writeln!(log, "vier prove: a damaged line ({e}): '{l}'");
                    }
                }
            },
            Some(Event::Lost(jobs)) => lost.extend(jobs),
            Some(Event::Ended(why)) => {
                runner_ends += 1;
                lost.extend(flying.keys().copied());
                stop(&mut runner);
                if runner_ends >= 3 {
                    return Err(format!(
                        "{} ended {runner_ends} times without finishing a job, the last: {why}",
                        opts.runner
                    ));
                }
                let _ = writeln!(
                    log,
                    "vier prove: {} ended ({why}) with {} jobs running: starting it again",
                    opts.runner,
                    lost.len()
                );
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        if let Some(r) = runner.as_mut() {
            let mut too_often = None;
            let end_runner = end_overdue(r.as_mut(), &mut flying, |id| {
                let n = failures.entry(id).or_insert(0);
                *n += 1;
                let _ = writeln!(log, "vier prove: job {id} ran past its time: run again");
                if *n >= 5 {
                    too_often = Some(id);
                }
            });
            if let Some(id) = too_often {
                stop(&mut runner);
                return Err(format!("job {id} ran past its time 5 times"));
            }
            if end_runner {
                lost.extend(flying.keys().copied());
                stop(&mut runner);
            }
        }
        if stop_asked_now() {
            stop(&mut runner);
            let (line, file) = report(&tree, &totals, 0, 0, false);
            let _ = writeln!(log, "{line}");
            let _ = state.write_progress(&file.replace("state running", "state stopped"));
            return Err(format!(
                "stopped by a signal: `vier prove --state {}` goes on",
                state.dir.display()
            ));
        }
        if learnt {
            cancel_unneeded(&mut tree, &mut runner, &mut flying, &mut owner, &mut totals);
        }
        lost.sort_unstable();
        for id in lost {
            if let Some(f) = flying.remove(&id) {
                for p in &f.job.positions {
                    owner.remove(p);
                }
                queue.push_back(f.job);
            }
        }
        if last_report.elapsed() >= opts.report_every {
            last_report = Instant::now();
            let (line, file) = report(&tree, &totals, flying.len(), queue.len(), false);
            let _ = writeln!(log, "{line}");
            let _ = state.write_progress(&file);
        }
    }
    stop(&mut runner);
    let value = tree.value().expect("proven");
    state
        .write_certificate(&cert::write(&tree, &proof))
        .map_err(|e| format!("{}: {e}", state.dir.display()))?;
    let (line, file) = report(&tree, &totals, 0, 0, true);
    let _ = writeln!(log, "{line}");
    let _ = state.write_progress(&file);
    Ok(Outcome {
        proof,
        value,
        nodes: totals.nodes,
        jobs: totals.jobs,
    })
}

/// Ends the jobs running whose positions the proof no longer needs (a sibling answered their
/// parent), where the runner can: their cores go to positions that matter. Their positions are
/// open again, handed out anew if they matter again (the next question).
fn cancel_unneeded(
    tree: &mut Tree,
    runner: &mut Option<Box<dyn Runner>>,
    flying: &mut HashMap<JobId, InFlight>,
    owner: &mut HashMap<String, JobId>,
    totals: &mut Totals,
) {
    let Some(r) = runner.as_mut() else { return };
    let mut unneeded: Vec<JobId> = flying
        .values()
        .filter(|f| {
            f.job
                .positions
                .iter()
                .all(|m| tree.node_at(m).is_none_or(|id| !tree.matters(id)))
        })
        .map(|f| f.job.id)
        .collect();
    unneeded.sort_unstable();
    for id in unneeded {
        if !r.cancel(id) {
            continue;
        }
        let f = flying.remove(&id).expect("in flight");
        for m in &f.job.positions {
            owner.remove(m);
            if let Some(n) = tree.node_at(m) {
                tree.give_back(n);
            }
        }
        totals.cancelled += 1;
    }
}

fn stop(runner: &mut Option<Box<dyn Runner>>) {
    if let Some(mut r) = runner.take() {
        r.stop();
    }
}

/// The progress report: a line for people and the `progress` file's `key value` lines.
#[allow(clippy::too_many_arguments)]
fn progress(
    proof: &Proof,
    tree: &Tree,
    totals: &Totals,
    running: usize,
    waiting: usize,
    elapsed: Duration,
    nodes_now: u64,
    at_once: usize,
    state: &str,
) -> (String, String) {
    let finished = state == "proven";
    let (lo, hi) = tree.bounds();
    let root = &tree.nodes[0];
    let (all, expanded, pending, open) = tree.counts();
    let secs = elapsed.as_secs_f64().max(1e-9);
    let rate = nodes_now as f64 / secs;
    let per_job = totals.nodes as f64 / totals.jobs.max(1) as f64;
    let job_secs = totals.micros as f64 / 1e6 / totals.jobs.max(1) as f64;
    // the root's answer needs at least this many more leaves settled
    let needed = root.pn.min(root.dn);
    let estimate = if finished || totals.jobs == 0 {
        String::new()
    } else {
        format!(
            "; at least {needed} more jobs to answer it, about {} nodes, {} at {at_once} at once",
            si(needed as f64 * per_job),
            duration(needed as f64 * job_secs / at_once.max(1) as f64)
        )
    };
    let ended = if totals.cancelled > 0 {
        format!(", {} ended as no longer needed", totals.cancelled)
    } else {
        String::new()
    };
    let line = format!(
        "vier prove {} {} {}: {state}, {}; jobs {} done ({} positions, {} unproven), {running} \
         running, {waiting} waiting{ended}; {} nodes ({}/s this run); tree {all} positions, {expanded} \
         expanded ({} without a job), {pending} handed out, {open} open; root in {lo}..{hi}, \
         asking >= {}: proof number {}, disproof number {}{estimate}",
        proof.size,
        proof.root,
        proof.goal.name(),
        duration(secs),
        totals.jobs,
        totals.positions,
        totals.unproven,
        si(totals.nodes as f64),
        si(rate),
        totals.expanded,
        tree.question(),
        number(root.pn),
        number(root.dn),
    );
    let file = format!(
        "state {state}\nsize {}\nroot {}\ngoal {}\nroot_lower {lo}\nroot_upper {hi}\n\
         question {}\nproof_number {}\ndisproof_number {}\njobs_done {}\npositions_done {}\n\
         positions_unproven {}\njobs_running {running}\njobs_waiting {waiting}\nnodes {}\n\
         job_seconds {:.1}\ntree_positions {all}\ntree_expanded {expanded}\n\
         tree_expanded_without_job {}\ntree_open {open}\n\
         this_run_seconds {secs:.1}\nthis_run_nodes_per_second {rate:.0}\n\
         this_run_jobs_ended_unneeded {}\n",
        proof.size,
        proof.root,
        proof.goal.name(),
        tree.question(),
        number(root.pn),
        number(root.dn),
        totals.jobs,
        totals.positions,
        totals.unproven,
        totals.nodes,
        totals.micros as f64 / 1e6,
        totals.expanded,
        totals.cancelled,
    );
    (line, file)
}

fn number(n: u64) -> String {
    if n >= tree::INF {
        "inf".into()
    } else {
        n.to_string()
    }
}

/// 1530000000 as `1.53G`.
fn si(x: f64) -> String {
    match x {
        x if x >= 1e12 => format!("{:.2}T", x / 1e12),
        x if x >= 1e9 => format!("{:.2}G", x / 1e9),
        x if x >= 1e6 => format!("{:.1}M", x / 1e6),
        x if x >= 1e3 => format!("{:.0}k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

/// Seconds in the largest unit that reads well.
fn duration(s: f64) -> String {
    match s {
        s if s >= 86400.0 * 2.0 => format!("{:.1} days", s / 86400.0),
        s if s >= 7200.0 => format!("{:.1} h", s / 3600.0),
        s if s >= 120.0 => format!("{:.1} min", s / 60.0),
        s => format!("{s:.1} s"),
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

/// How `vier prove --verify` runs.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// The certificate to check.
    pub certificate: PathBuf,
    /// Solve again only this many leaves, drawn at random (`None`: all).
    pub sample: Option<usize>,
    pub seed: u64,
    pub hash_mb: usize,
    pub jobs: usize,
    pub per_job: usize,
    pub runner: RunnerSpec,
    pub vier: String,
    /// Where Slurm's scripts go.
    pub work_dir: PathBuf,
    /// As [`ProveOptions::keeper`].
    pub keeper: Option<PathBuf>,
}

/// What a verification found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    pub proof: Proof,
    pub value: i32,
    pub lines: usize,
    pub leaves: usize,
    pub solved_again: usize,
}

/// Checks a certificate: the back-up from the rules, then the leaves (all, or a sample) solved
/// again by `vier solve` without a budget. The errors, each naming its position.
pub fn verify(opts: &VerifyOptions, log: &mut dyn Write) -> Result<Verified, Vec<String>> {
    let text = files::read_text(&opts.certificate, files::MAX_CERTIFICATE)
        .map_err(|e| vec![format!("{}: {e}", opts.certificate.display())])?;
    let checked = cert::check(&text)?;
    let _ = writeln!(
        log,
        "vier prove --verify: the back-up of {} lines {}; solving {} of {} leaves again",
        checked.lines,
        if checked.errors.is_empty() {
            "holds"
        } else {
            "does not hold"
        },
        opts.sample
            .map_or(checked.leaves.len(), |n| n.min(checked.leaves.len())),
        checked.leaves.len()
    );
    let mut leaves = checked.leaves.clone();
    if let Some(n) = opts.sample {
        // a partial Fisher-Yates shuffle: the first n are the sample
        let mut rng = crate::rng::Rng::new(opts.seed);
        for i in 0..n.min(leaves.len()) {
            let j = i + (rng.next_u64() % (leaves.len() - i) as u64) as usize;
            leaves.swap(i, j);
        }
        leaves.truncate(n);
    }
    let proof = &checked.proof;
    let mut expected: HashMap<String, cert::Leaf> = HashMap::new();
    // a leaf with one bound is asked that bound's question, as the proof asked it; a value or
    // two bounds are checked against the value
    let mut by_question: std::collections::BTreeMap<Option<i32>, Vec<String>> =
        std::collections::BTreeMap::new();
    for leaf in &leaves {
        let ((lo, hi), range) = (leaf.bounds, leaf.range);
        // within the range (cert::check): hi + 1 does not wrap
        let question = match (lo > range.0, hi < range.1) {
            (true, false) => Some(lo),
            (false, true) => Some(hi + 1),
            _ => None,
        };
        expected.insert(leaf.moves.clone(), leaf.clone());
        by_question
            .entry(question)
            .or_default()
            .push(leaf.moves.clone());
    }
    let mut jobs: Vec<(Job, Option<Duration>)> = Vec::new();
    for (question, positions) in by_question {
        for c in positions.chunks(opts.per_job.max(1)) {
            // a job without a budget, timed as one of four times the nodes its leaves took in
            // the proof (a certificate's numbers: a wrong one costs a failed check, no more)
            let took = c
                .iter()
                .filter_map(|m| expected.get(m))
                .map(|l| l.nodes)
                .max()
                .unwrap_or(0);
            let budget = took
                .saturating_mul(4)
                .clamp(DEFAULT_BUDGET, settings::BUDGET_NODES.max);
            let job = Job::new(
                jobs.len() as JobId + 1,
                proof.size,
                proof.goal,
                question,
                opts.hash_mb,
                None,
                c.to_vec(),
            );
            jobs.push((job, settings::job_timeout(Some(budget), c.len())));
        }
    }
    let mut errors = checked.errors.clone();
    let solved = run_all(opts, jobs, proof.goal, log, |moves, found| {
        let Some(leaf) = expected.get(moves) else {
            return;
        };
        match found {
            Some(found) => {
                if let Err(e) = cert::leaf_agrees(leaf, found) {
                    errors.push(e);
                }
            }
            None => errors.push(format!("leaf {moves}: not solved")),
        }
    })
    .map_err(|e| vec![e])?;
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Verified {
        proof: checked.proof.clone(),
        value: checked.value,
        lines: checked.lines,
        leaves: checked.leaves.len(),
        solved_again: solved,
    })
}

/// Runs `jobs` to their end on the runner of `opts`, calling `each` with every position's
/// move string and bounds; the positions solved.
fn run_all(
    opts: &VerifyOptions,
    jobs: Vec<(Job, Option<Duration>)>,
    goal: Goal,
    log: &mut dyn Write,
    mut each: impl FnMut(&str, Option<(i32, i32)>),
) -> Result<usize, String> {
    let total = jobs.len();
    let timeouts: HashMap<JobId, Option<Duration>> = jobs.iter().map(|(j, t)| (j.id, *t)).collect();
    let mut queue: VecDeque<Job> = jobs.into_iter().map(|(j, _)| j).collect();
    let mut flying: HashMap<JobId, InFlight> = HashMap::new();
    let mut owner: HashMap<String, JobId> = HashMap::new();
    let mut runner: Option<Box<dyn Runner>> = None;
    let mut failures = 0;
    let mut solved = 0;
    let mut done = 0;
    let mut last = Instant::now();
    while !queue.is_empty() || !flying.is_empty() {
        if runner.is_none() {
            runner = Some(
                runner::start(
                    &opts.runner,
                    &opts.vier,
                    &opts.work_dir,
                    opts.keeper.as_deref(),
                )
                .map_err(|e| format!("{}: {e}", opts.runner))?,
            );
        }
        let r = runner.as_mut().expect("started");
        while flying.len() < opts.jobs.max(1) {
            let Some(job) = queue.pop_front() else { break };
            r.submit(&job)
                .map_err(|e| format!("{}: {e}", opts.runner))?;
            let timeout = timeouts.get(&job.id).copied().flatten();
            InFlight::fly(job, timeout, &mut owner, &mut flying);
        }
        let mut lost = Vec::new();
        match r.next(Duration::from_millis(200)) {
            None => {}
            Some(Event::Line(l)) => match parse_line(&l, goal) {
                Ok(Line::Result { ref moves, .. }) => {
                    if let Some(f) = owner.get(moves).and_then(|j| flying.get_mut(j)) {
                        f.keep(l);
                    }
                }
                Ok(Line::Done { job, .. }) => {
                    if let Some(mut f) = flying.remove(&job) {
                        f.lines.push(l);
                        match check_run(&f.job, &f.lines, goal) {
                            Ok(results) => {
                                for r in results {
                                    if let Line::Result { moves, bounds, .. } = r {
                                        each(&moves, bounds);
                                        solved += 1;
                                    }
                                }
                                done += 1;
                            }
                            Err(e) => {
                                failures += 1;
                                if failures > 5 {
                                    stop(&mut runner);
                                    return Err(format!("jobs keep failing, the last: {e}"));
                                }
                                lost.push(job);
                                flying.insert(job, f);
                            }
                        }
                    }
                }
                Err(_) => {}
            },
            Some(Event::Lost(j)) => lost.extend(j),
            Some(Event::Ended(why)) => {
                failures += 1;
                if failures > 5 {
                    return Err(format!(
                        "{} keeps ending, the last time: {why}",
                        opts.runner
                    ));
                }
                lost.extend(flying.keys().copied());
                stop(&mut runner);
            }
        }
        if let Some(r) = runner.as_mut() {
            let mut overdue = 0;
            let end_runner = end_overdue(r.as_mut(), &mut flying, |id| {
                overdue += 1;
                let _ = writeln!(
                    log,
                    "vier prove --verify: job {id} ran past its time: run again"
                );
            });
            failures += overdue;
            if failures > 5 {
                stop(&mut runner);
                return Err("jobs keep failing or running past their time".into());
            }
            if end_runner {
                lost.extend(flying.keys().copied());
                stop(&mut runner);
            }
        }
        if stop_asked_now() {
            stop(&mut runner);
            return Err("stopped by a signal".into());
        }
        for id in lost {
            if let Some(f) = flying.remove(&id) {
                queue.push_back(f.job);
            }
        }
        if last.elapsed() >= Duration::from_secs(10) {
            last = Instant::now();
            let _ = writeln!(log, "vier prove --verify: {done} of {total} jobs done");
        }
    }
    stop(&mut runner);
    Ok(solved)
}
