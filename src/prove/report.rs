//! What the proof has done so far, for people and for the `progress` file: the totals of every
//! job's results, and the report made of them and of the tree.

use super::jobs::Line;
use super::state::Proof;
use super::tree::Tree;
use std::time::Duration;

/// The work of all jobs so far.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    pub jobs: u64,
    pub positions: u64,
    pub unproven: u64,
    pub nodes: u64,
    pub micros: u64,
    /// The nodes of the positions not proven within their budget.
    pub unproven_nodes: u64,
    /// Positions below them that their searches bounded (`LEARNT` lines).
    pub learnt: u64,
    /// Positions handed out, and those of them not proven, by moves below the root.
    pub tries: Vec<u64>,
    pub fails: Vec<u64>,
    /// Positions expanded without a job.
    pub expanded: u64,
    /// Jobs ended while they ran because their positions were no longer needed.
    pub cancelled: u64,
}

impl Totals {
    /// Adds a job's results; `root_discs`: the discs of the root.
    pub fn add(&mut self, results: &[Line], root_discs: usize) {
        self.jobs += 1;
        for r in results {
            if let Line::Result { learnt: true, .. } = r {
                self.learnt += 1;
            } else if let Line::Result {
                moves,
                bounds,
                nodes,
                micros,
                ..
            } = r
            {
                self.positions += 1;
                self.unproven += bounds.is_none() as u64;
                // numbers a runner printed: a sum that cannot wrap
                self.nodes = self.nodes.saturating_add(*nodes);
                if bounds.is_none() {
                    self.unproven_nodes = self.unproven_nodes.saturating_add(*nodes);
                }
                self.micros = self.micros.saturating_add(*micros);
                let plies = discs_of(moves).saturating_sub(root_discs);
                if self.tries.len() <= plies {
                    self.tries.resize(plies + 1, 0);
                    self.fails.resize(plies + 1, 0);
                }
                self.tries[plies] += 1;
                self.fails[plies] += bounds.is_none() as u64;
            }
        }
    }

    /// The share of all nodes spent on positions not proven within their budget: work a job
    /// gives back only as what it learnt below them.
    pub fn unproven_share(&self) -> f64 {
        self.unproven_nodes as f64 / self.nodes.max(1) as f64
    }

    /// Whether a leaf this many moves below the root is better expanded at once than handed
    /// out: most of the positions handed out at its depth (at least 3) were not proven within
    /// their budget. A job that fails is its budget lost, so a depth where most fail is split.
    pub fn expand_first(&self, plies: usize) -> bool {
        let (t, f) = (
            self.tries.get(plies).copied().unwrap_or(0),
            self.fails.get(plies).copied().unwrap_or(0),
        );
        f >= 3 && 2 * f > t
    }
}

/// The discs of a move string's position (`-`: none).
pub fn discs_of(moves: &str) -> usize {
    if moves == "-" {
        0
    } else {
        moves.len()
    }
}

/// The progress report: a line for people and the `progress` file's `key value` lines.
#[allow(clippy::too_many_arguments)]
pub fn progress(
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
    let root = tree.root();
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
        "vier prove {} {} {}: {state}, {}; jobs {} done ({} positions, {} unproven with {:.1} % \
         of the nodes, {} learnt below them), {running} running, {waiting} waiting{ended}; {} nodes ({}/s this run); tree {all} positions, {expanded} \
         expanded ({} without a job), {pending} handed out, {open} open; root in {lo}..{hi}, \
         asking >= {}: proof number {}, disproof number {}{estimate}",
        proof.size,
        proof.root,
        proof.goal.name(),
        duration(secs),
        totals.jobs,
        totals.positions,
        totals.unproven,
        totals.unproven_share() * 100.0,
        totals.learnt,
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
         positions_unproven {}\nnodes_unproven {}\npositions_learnt {}\njobs_running {running}\njobs_waiting {waiting}\nnodes {}\n\
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
        totals.unproven_nodes,
        totals.learnt,
        totals.nodes,
        totals.micros as f64 / 1e6,
        totals.expanded,
        totals.cancelled,
    );
    (line, file)
}

fn number(n: u64) -> String {
    if n >= super::tree::INF {
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
