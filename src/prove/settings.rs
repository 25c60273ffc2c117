//! Every number `vier prove` takes, declared once with its default and its range (both ends
//! included): the front end checks its arguments against these, and the library the values it
//! reads back from a state folder, so no value out of range is ever used. The ranges bound what
//! a value costs: `--split` expands every position that many moves below the root before any
//! job (13 columns and a split of 4: 30,941 positions, about 10 MB; a split of 100 would never
//! end), `--budget-nodes` gives each job its timeout ([`job_timeout`]).

use std::time::Duration;

/// A number an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The option, as the command line names it.
    pub name: &'static str,
    pub default: u64,
    pub min: u64,
    pub max: u64,
}

impl Setting {
    /// `n` if it is within the range, or why not.
    pub fn check(&self, n: u64) -> Result<u64, String> {
        if (self.min..=self.max).contains(&n) {
            Ok(n)
        } else {
            Err(format!(
                "{n} is not within {}..={} ({})",
                self.min, self.max, self.name
            ))
        }
    }

    /// A number written as text, checked: digits only.
    pub fn parse(&self, text: &str) -> Result<u64, String> {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("'{text}' is not a whole number ({})", self.name));
        }
        match text.parse::<u64>() {
            Ok(n) => self.check(n),
            Err(_) => Err(format!(
                "{text} is not within {}..={} ({})",
                self.min, self.max, self.name
            )),
        }
    }
}

/// Plies below the root expanded before any job. The root itself is one by default: its job
/// would run alone, every other slot waiting (on the hard roots, where it matters, it fails).
pub const SPLIT: Setting = Setting {
    name: "--split",
    default: 1,
    min: 0,
    max: 4,
};

/// The nodes each position of a job may take: at least what one poll of the solver counts,
/// at most about an hour of one core. The default, 32 M (4-6 s of a core), is for hard roots:
/// with jobs that start from what failed ones learnt, 2 jobs on the 11x4 roots eggfe and eggf
/// took 135 M and 195 M nodes with it against 172-185 M and 518-535 M with 16 M, 210-213 M and
/// 330 M with 8 M (docs/lab/2026-12-03-prove-learnt.md); 64 M leaves a proof a few jobs in a
/// line, with little for more cores to do. Small boards prove in a few jobs either way.
pub const BUDGET_NODES: Setting = Setting {
    name: "--budget-nodes",
    default: 1 << 25,
    min: 4096,
    max: 1 << 38,
};

/// How many moves below a position it does not prove a job reports what its search proved
/// (`vier solve --learnt`), so that the proof needs no jobs for what it already knows; 0 for
/// nothing. At most 2: a job's result file then holds at most 545 lines a position
/// (`files::MAX_RESULT`).
pub const LEARNT: Setting = Setting {
    name: "--learnt",
    default: 2,
    min: 0,
    max: 2,
};

/// Jobs handed out at once (the default is the machine's cores, within the range).
pub const JOBS: Setting = Setting {
    name: "--jobs",
    default: 1,
    min: 1,
    max: 4096,
};

/// Positions in one job.
pub const PER_JOB: Setting = Setting {
    name: "--per-job",
    default: 1,
    min: 1,
    max: 32,
};

/// Leaves `--verify --sample` solves again.
pub const SAMPLE: Setting = Setting {
    name: "--sample",
    default: 100,
    min: 1,
    max: 1 << 32,
};

/// The nodes a job's `vier solve` is counted on per second at the least, for its timeout: a
/// tenth of what one core of a slow machine does.
const SLOWEST_NODES_PER_SECOND: u64 = 200_000;

/// Seconds a job is given to start (a process, an SSH connection) besides its nodes.
const START_SECONDS: u64 = 10;

/// How long a job of `positions` positions may run before it is taken as hung, ended and run
/// again: its budget at [`SLOWEST_NODES_PER_SECOND`] for each position, and
/// [`START_SECONDS`]. `None` without a budget.
pub fn job_timeout(budget: Option<u64>, positions: usize) -> Option<Duration> {
    let budget = budget?;
    let secs = (budget / SLOWEST_NODES_PER_SECOND + 1).saturating_mul(positions.max(1) as u64);
    Some(Duration::from_secs(secs.saturating_add(START_SECONDS)))
}

/// A job's node budget when neither the command nor an earlier job says.
pub const DEFAULT_BUDGET: u64 = BUDGET_NODES.default;

/// A job's table, MB, when neither the command nor an earlier job says (smaller than a
/// search's `search::DEFAULT_HASH_MB`: many jobs share a machine).
pub const JOB_HASH_MB: usize = 16;

/// The one table the jobs on this machine share (`vier prove`'s local runner), MB, when neither
/// the command nor an earlier job says. Small, because the processes that share it get no huge
/// pages for it (a file in memory has none on most systems) and a probe of a large table then
/// misses the TLB too: 2 jobs on the 11x4 root eggfe took 13-16 s with 64 MB and 19-20 s with
/// 1 GB; 16 MB cost more nodes (docs/lab/2026-12-03-shared-table.md).
pub const SHARED_HASH_MB: usize = 64;
