//! The jobs a runner has: each with its lines so far and its deadline, and which job each
//! position is in, so that a result line (which names its position, not its job) finds its job.

use super::jobs::{Job, JobId};
use crate::bits::MAX_WIDTH;
use crate::solve_line::MAX_DEEP_LEARNT;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A job handed to the runner, with its lines so far.
pub struct InFlight {
    pub job: Job,
    /// How long it may run, as it was handed over (it keeps it when it runs again).
    pub timeout: Option<Duration>,
    pub lines: Vec<String>,
    /// When it has run too long and is ended (`None` once it has been, or without a timeout).
    deadline: Option<Instant>,
    /// The position of its last line, if that was not proven: the lines learnt below it come
    /// next.
    open: Option<String>,
}

impl InFlight {
    /// The most lines a run of the job may print before its last: one a position, and what it
    /// learnt below each (a value, or two bounds, a position, up to `--learnt` moves below, and
    /// as many for the deeper ones).
    fn most_lines(&self) -> usize {
        let below: usize = (1..=self.job.learnt_plies())
            .map(|k| MAX_WIDTH.pow(k))
            .sum();
        let deep = if below > 0 { MAX_DEEP_LEARNT } else { 0 };
        self.job.positions.len() * (1 + 2 * (below + deep))
    }

    fn push(&mut self, line: String) {
        if self.lines.len() <= self.most_lines() {
            self.lines.push(line);
        }
    }
}

/// The jobs in flight, and the owner of each of their positions.
#[derive(Default)]
pub struct Flights {
    jobs: HashMap<JobId, InFlight>,
    owner: HashMap<String, JobId>,
}

impl Flights {
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Notes `job`, just handed to the runner, as in flight and as the owner of its positions.
    pub fn fly(&mut self, job: Job, timeout: Option<Duration>) {
        for p in &job.positions {
            self.owner.insert(p.clone(), job.id);
        }
        self.jobs.insert(
            job.id,
            InFlight {
                job,
                timeout,
                lines: Vec::new(),
                deadline: timeout.map(|t| Instant::now() + t),
                open: None,
            },
        );
    }

    /// Keeps a result line of the position `moves` (`unproven`: not proven) for the job in
    /// flight that has it: at most one more than the job may print (and its last line), which
    /// is enough for its run to fail its check, so a job that floods costs no memory. Whether a
    /// job has the position.
    pub fn keep(&mut self, moves: &str, unproven: bool, line: String) -> bool {
        let Some(f) = self.owner.get(moves).and_then(|j| self.jobs.get_mut(j)) else {
            return false;
        };
        f.open = unproven.then(|| moves.to_string());
        f.push(line);
        true
    }

    /// Keeps a learnt line of the position `moves` for the job in flight whose last line was
    /// of a position above it, not proven (lines of several jobs may come mixed, but each job's
    /// in order). Whether a job has it.
    pub fn keep_learnt(&mut self, moves: &str, line: String) -> bool {
        // a learnt line may lie any number of moves below (the deep ones)
        let above = (1..=moves.len()).find_map(|k| {
            let cut = moves.len().checked_sub(k)?;
            let p = if cut == 0 { "-" } else { moves.get(..cut)? };
            let j = self.owner.get(p)?;
            (self.jobs.get(j)?.open.as_deref() == Some(p)).then_some(*j)
        });
        let Some(f) = above.and_then(|j| self.jobs.get_mut(&j)) else {
            return false;
        };
        f.push(line);
        true
    }

    /// Takes a job out of flight (its last line came, or it is lost, ended or cancelled): its
    /// positions have no owner any more, and a line of theirs that comes later is no job's.
    pub fn land(&mut self, id: JobId) -> Option<InFlight> {
        let f = self.jobs.remove(&id)?;
        for p in &f.job.positions {
            if self.owner.get(p) == Some(&id) {
                self.owner.remove(p);
            }
        }
        Some(f)
    }

    /// The jobs in flight that `pick` picks, by number.
    pub fn ids(&self, pick: impl Fn(&Job) -> bool) -> Vec<JobId> {
        let mut ids: Vec<JobId> = self
            .jobs
            .values()
            .filter(|f| pick(&f.job))
            .map(|f| f.job.id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The jobs past their deadline, by number; each is past it once (its deadline is gone).
    pub fn overdue(&mut self) -> Vec<JobId> {
        let now = Instant::now();
        let mut ids = Vec::new();
        for f in self.jobs.values_mut() {
            if f.deadline.is_some_and(|d| now >= d) {
                f.deadline = None;
                ids.push(f.job.id);
            }
        }
        ids.sort_unstable();
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prove::rules::Goal;

    fn job(id: JobId, positions: &[&str]) -> Job {
        let size = "7x6".parse().unwrap();
        let positions = positions.iter().map(|p| p.to_string()).collect();
        Job::new(id, size, Goal::Weak, Some(1), 16, Some(4096), positions)
    }

    #[test]
    fn a_line_goes_to_the_job_in_flight_that_has_its_position_and_no_other() {
        let mut f = Flights::default();
        f.fly(job(1, &["4", "44"]), None);
        f.fly(job(2, &["45"]), None);
        assert!(f.keep("44", false, "44 >=1 10 1".into()));
        assert!(!f.keep("3", false, "3 >=1 10 1".into()), "no job has it");
        // a flood: one line more than the positions is kept, no more
        for _ in 0..100 {
            f.keep("4", false, "4 >=1 10 1".into());
        }
        assert_eq!(f.land(1).unwrap().lines.len(), 3);
        assert!(
            !f.keep("4", false, "4 >=1 10 1".into()),
            "a landed job's positions are no one's"
        );
        assert!(f.keep("45", false, "45 >=1 10 1".into()));
        assert_eq!(f.len(), 1);
    }

    #[test]
    fn a_learnt_line_goes_to_the_job_whose_last_line_left_a_position_above_it_unproven() {
        let mut f = Flights::default();
        f.fly(job(1, &["4", "44"]).keeping(2), None);
        f.fly(job(2, &["445"]).keeping(2), None);
        assert!(
            !f.keep_learnt("4451", "4451 >=0 0 0 LEARNT".into()),
            "none open"
        );
        assert!(f.keep("44", true, "44 - 9 1 UNPROVEN within 4096 nodes".into()));
        // 445 is job 2's, but it printed nothing yet: the line is job 1's, 2 moves below 44
        assert!(f.keep_learnt("4451", "4451 >=0 0 0 LEARNT".into()));
        assert!(
            f.keep_learnt("441234", "441234 >=0 0 0 LEARNT".into()),
            "deeper than --learnt: what the search finished beside its line"
        );
        assert!(f.keep("445", true, "445 - 9 1 UNPROVEN within 4096 nodes".into()));
        assert!(f.keep_learnt("4451", "4451 >=0 0 0 LEARNT".into()));
        assert!(f.keep("4", false, "4 >=1 10 1".into()));
        assert!(
            !f.keep_learnt("41", "41 >=0 0 0 LEARNT".into()),
            "4 was proven"
        );
        assert_eq!(f.land(1).unwrap().lines.len(), 4);
        assert_eq!(f.land(2).unwrap().lines.len(), 2);
    }

    #[test]
    fn a_job_is_overdue_once_and_only_past_its_deadline() {
        let mut f = Flights::default();
        f.fly(job(1, &["4"]), Some(Duration::ZERO));
        f.fly(job(2, &["5"]), Some(Duration::from_secs(3600)));
        f.fly(job(3, &["6"]), None);
        assert_eq!(f.overdue(), [1]);
        assert_eq!(f.overdue(), Vec::<JobId>::new());
        assert_eq!(f.ids(|j| j.id != 2), [1, 3]);
    }
}
