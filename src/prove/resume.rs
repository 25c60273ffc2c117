//! A state folder read back: every job's results checked against its job, the tree rebuilt
//! from them, and the jobs still to run.

use super::jobs::{check_run, Job, JobId, Line};
use super::report::{discs_of, Totals};
use super::rules::{examine, position, Goal};
use super::seeds::Seeds;
use super::state::State;
use super::tree::{Fact, Known, Tree};
use std::collections::HashMap;

/// Nodes of the engine's heuristic search that guesses the root's outcome.
const GUESS_NODES: u64 = 1 << 18;

/// The proof's first question: "is the root won?" (1) where the engine's heuristic search of
/// [`GUESS_NODES`] nodes (one thread: the same guess each run) scores it above 0, else "is it
/// at least drawn?" (0). A job asks its leaf one question, so a proof that asks the wrong one
/// first proves it, then proves the other: on the 11x4 root `eggf`, a win, asking 0 first took
/// 4.8 times the nodes of one solve, asking 1 first 1.5 times (32 M-node jobs).
fn first_question(root: &crate::board::AnyPosition) -> i32 {
    use crate::engine::{Engine, Handle, Limits, Request, Score};
    if root.is_game_over() {
        return 0;
    }
    // a table the machine cannot give only costs the guess
    let Ok(mut engine) = Engine::new(16) else {
        return 0;
    };
    let request = Request {
        limits: Limits {
            nodes: Some(GUESS_NODES),
            multipv: 1,
            ..Limits::default()
        },
        ..Request::default()
    };
    let thought = engine.think(root, &request, &Handle::unlimited(), &mut |_| {});
    thought.line().is_some_and(|l| match l.value.score {
        Score::Win(_) => true,
        Score::Cp(x) => x > 0,
        _ => false,
    }) as i32
}

/// A state folder read back: its tree, the jobs still to run and the totals.
pub struct Loaded {
    pub tree: Tree,
    pub totals: Totals,
    /// Jobs without a result that still have an open position: run them (again).
    pub rerun: Vec<Job>,
    /// Jobs without a result that no longer matter.
    pub dropped: usize,
    pub next_id: JobId,
    /// The job written last: a proof started again goes on with its budget and table.
    pub last: Option<Job>,
    pub notes: Vec<String>,
    /// What the jobs that ran out of budget learnt.
    pub seeds: Seeds,
}

/// The facts a job's results give, with each position's key.
pub fn facts_of(size: crate::board::Size, goal: Goal, results: &[Line]) -> Vec<(u128, Fact)> {
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
pub fn load(state: &State, repair: bool) -> Result<Loaded, String> {
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
    let mut seeds = Seeds::default();
    let mut results = state.results().map_err(err)?;
    results.sort_by_key(|r| r.0);
    for (id, lines) in results {
        let Some(job) = by_id.get(&id) else {
            notes.push(format!(
                "results/{id:06}.out: no job of that number, left alone"
            ));
            continue;
        };
        match check_run(job, &lines, proof.size, proof.goal) {
            Ok(r) => {
                for (k, f) in facts_of(proof.size, proof.goal, &r) {
                    facts.entry(k).or_default().add(f);
                }
                totals.add(&r, discs_of(&proof.root));
                seeds.add(&r);
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
                (tree.is_open(id) && tree.matters(id)).then_some(id)
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
        seeds,
    })
}
