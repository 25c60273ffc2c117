//! `vier prove --verify`: a certificate's back-up checked from the rules, then its leaves (all,
//! or a sample) solved again through the dispatcher, without trusting the run that made it.

use super::dispatch::{self, Dispatcher, Halt};
use super::jobs::{Job, JobId, Line};
use super::rules::Goal;
use super::runner::RunnerSpec;
use super::settings::{self, DEFAULT_BUDGET};
use super::state::Proof;
use super::{cert, files, runner};
use crate::board::Size;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    let mut by_question: BTreeMap<Option<i32>, Vec<String>> = BTreeMap::new();
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
    let solved = run_all(opts, jobs, (proof.size, proof.goal), log, |moves, found| {
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
    asked: (Size, Goal),
    log: &mut dyn Write,
    mut each: impl FnMut(&str, Option<(i32, i32)>),
) -> Result<usize, String> {
    let total = jobs.len();
    let spec = opts.runner.clone();
    let (vier, dir, keeper) = (
        opts.vier.clone(),
        opts.work_dir.clone(),
        opts.keeper.clone(),
    );
    let start = Box::new(move || runner::start(&spec, &vier, &dir, keeper.as_deref()));
    let prefix = "vier prove --verify";
    let mut d = Dispatcher::new(start, opts.runner.to_string(), prefix, asked, opts.jobs);
    for (job, timeout) in jobs {
        d.submit(job, timeout);
    }
    let (mut solved, mut done) = (0, 0);
    let mut last = Instant::now();
    while !d.is_idle() {
        let finished = d
            .step(Duration::from_millis(200), log)
            .map_err(|h| match h {
                Halt::Stopped => "stopped by a signal".to_string(),
                Halt::JobFails { job, last } => {
                    format!(
                        "job {job} failed {} times, the last: {last}",
                        dispatch::TRIES
                    )
                }
                Halt::Failed(e) => e,
            })?;
        if let Some(f) = finished {
            for r in f.results {
                if let Line::Result { moves, bounds, .. } = r {
                    each(&moves, bounds);
                    solved += 1;
                }
            }
            done += 1;
        }
        if last.elapsed() >= Duration::from_secs(10) {
            last = Instant::now();
            let _ = writeln!(log, "{prefix}: {done} of {total} jobs done");
        }
    }
    Ok(solved)
}
