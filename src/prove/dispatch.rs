//! The one dispatcher: it runs jobs on a runner until each has a run that checks, for the proof
//! and for its verification alike. It starts the runner, hands it the jobs (at most so many at
//! once), reads their lines back into their jobs ([`flight`](super::flight)) and keeps to one
//! set of rules:
//!
//! - a job whose run does not check (a line damaged or missing, a wrong status) or that runs
//!   past its time is run again, at most [`TRIES`] times in all: then the dispatch fails;
//! - a job the runner loses (a Slurm task that died) is run again;
//! - a runner that ends is started again with all it had, unless it ended [`RUNNER_ENDS`] times
//!   without a job finishing in between;
//! - a line no job in flight owns is counted, the first ten of them told;
//! - a signal ([`stop_on_signals`]) stops it, with its runner and every job.
//!
//! The runner is stopped however the dispatcher ends (dropped included).

use super::flight::Flights;
use super::jobs::{check_run, parse_line, Job, JobId, Line};
use super::rules::Goal;
use super::runner::{Event, Runner};
use crate::board::Size;
use std::collections::{HashMap, VecDeque};
use std::io::{self, Write};
use std::time::Duration;

/// Runs of one job that may fail before the dispatch does.
pub const TRIES: u32 = 5;

/// Times the runner may end, with no job finished in between, before the dispatch fails.
pub const RUNNER_ENDS: u32 = 3;

/// What starts the runner, each time it is needed.
pub type Start = Box<dyn FnMut() -> io::Result<Box<dyn Runner>>>;

/// A job whose run checks: its lines as they came, and its results in its positions' order.
pub struct Finished {
    pub job: Job,
    pub lines: Vec<String>,
    pub results: Vec<Line>,
}

/// Why a dispatch cannot go on.
#[derive(Debug, PartialEq, Eq)]
pub enum Halt {
    /// A signal asked it to stop.
    Stopped,
    /// A job's run did not check [`TRIES`] times (`last`: why, the last time).
    JobFails { job: JobId, last: String },
    /// Anything else, in words.
    Failed(String),
}

pub struct Dispatcher {
    start: Start,
    /// The runner as the messages name it.
    name: String,
    /// The first words of every message (`vier prove`).
    prefix: String,
    size: Size,
    goal: Goal,
    at_once: usize,
    runner: Option<Box<dyn Runner>>,
    /// Jobs to hand over, with their timeouts.
    queue: VecDeque<(Job, Option<Duration>)>,
    flights: Flights,
    failures: HashMap<JobId, u32>,
    runner_ends: u32,
    stray_lines: u64,
    stop_asked: fn() -> bool,
    /// How long a runner that ended rests before it starts again.
    pause: Duration,
}

impl Dispatcher {
    /// A dispatcher of jobs asking about `goal` on `size` on the runner `start` starts (`name`,
    /// as the messages name it), `at_once` jobs in flight at most; its messages start with
    /// `prefix`.
    pub fn new(
        start: Start,
        name: String,
        prefix: &str,
        (size, goal): (Size, Goal),
        at_once: usize,
    ) -> Self {
        Dispatcher {
            start,
            name,
            prefix: prefix.to_string(),
            size,
            goal,
            at_once: at_once.max(1),
            runner: None,
            queue: VecDeque::new(),
            flights: Flights::default(),
            failures: HashMap::new(),
            runner_ends: 0,
            stray_lines: 0,
            stop_asked: stop_asked_now,
            pause: Duration::from_secs(1),
        }
    }

    /// Queues a job, which is ended and run again once it has run `timeout`.
    pub fn submit(&mut self, job: Job, timeout: Option<Duration>) {
        self.queue.push_back((job, timeout));
    }

    pub fn in_flight(&self) -> usize {
        self.flights.len()
    }

    pub fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// Whether it has no job at all.
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.flights.is_empty()
    }

    /// One turn: the runner started where it is not, jobs handed over, one report of the
    /// runner's waited for (at most `wait`) and dealt with, overdue jobs ended. The job that
    /// finished, if one did.
    pub fn step(&mut self, wait: Duration, log: &mut dyn Write) -> Result<Option<Finished>, Halt> {
        let finished = self.turn(wait, log);
        if finished.is_err() {
            self.stop();
        }
        finished
    }

    fn turn(&mut self, wait: Duration, log: &mut dyn Write) -> Result<Option<Finished>, Halt> {
        if self.runner.is_none() {
            let r = (self.start)().map_err(|e| Halt::Failed(format!("{}: {e}", self.name)))?;
            self.runner = Some(r);
        }
        let r = self.runner.as_mut().expect("started");
        while self.flights.len() < self.at_once {
            let Some((job, timeout)) = self.queue.pop_front() else {
                break;
            };
            if let Err(e) = r.submit(&job) {
                // tried again next turn; a runner that has died says so in its reports
                let _ = writeln!(log, "{}: {}: {e}", self.prefix, self.name);
                self.queue.push_front((job, timeout));
                break;
            }
            self.flights.fly(job, timeout);
        }
        let mut finished = None;
        match r.next(wait) {
            None => {}
            Some(Event::Line(l)) => finished = self.read(l, log)?,
            Some(Event::Lost(jobs)) => jobs.into_iter().for_each(|j| self.again(j)),
            Some(Event::Ended(why)) => {
                self.runner_ends += 1;
                let running = self.flights.len();
                self.end_runner();
                if self.runner_ends >= RUNNER_ENDS {
                    return Err(Halt::Failed(format!(
                        "{} ended {} times without finishing a job, the last: {why}",
                        self.name, self.runner_ends
                    )));
                }
                let _ = writeln!(
                    log,
                    "{}: {} ended ({why}) with {running} jobs running: starting it again",
                    self.prefix, self.name
                );
                std::thread::sleep(self.pause);
            }
        }
        self.end_overdue(log)?;
        if (self.stop_asked)() {
            return Err(Halt::Stopped);
        }
        Ok(finished)
    }

    /// A line the runner passed on: kept by its job, or its job's last line, checked.
    fn read(&mut self, l: String, log: &mut dyn Write) -> Result<Option<Finished>, Halt> {
        let stray = match parse_line(&l, self.size, self.goal) {
            Ok(Line::Result {
                ref moves,
                bounds,
                learnt,
                ..
            }) => {
                let kept = if learnt {
                    self.flights.keep_learnt(moves, l.clone())
                } else {
                    self.flights.keep(moves, bounds.is_none(), l.clone())
                };
                if kept {
                    return Ok(None);
                }
                "a line of no job running".to_string()
            }
            Ok(Line::Done { job, .. }) => {
                // a job no longer in flight (cancelled, or run again) has no last line any more
                let Some(mut f) = self.flights.land(job) else {
                    return Ok(None);
                };
                f.lines.push(l);
                return match check_run(&f.job, &f.lines, self.size, self.goal) {
                    Ok(results) => {
                        self.runner_ends = 0;
                        Ok(Some(Finished {
                            job: f.job,
                            lines: f.lines,
                            results,
                        }))
                    }
                    Err(e) => {
                        self.failed(job, &e, log)?;
                        self.queue.push_back((f.job, f.timeout));
                        Ok(None)
                    }
                };
            }
            Err(e) => format!("a damaged line ({e})"),
        };
        self.stray_lines += 1;
        if self.stray_lines <= 10 {
            let _ = writeln!(log, "{}: {stray}: '{l}'", self.prefix);
        }
        Ok(None)
    }

    /// Counts a failed run of `job`: an error once it has failed [`TRIES`] times.
    fn failed(&mut self, job: JobId, why: &str, log: &mut dyn Write) -> Result<(), Halt> {
        let n = self.failures.entry(job).or_insert(0);
        *n += 1;
        let s = if *n == 1 { "" } else { "s" };
        let _ = writeln!(
            log,
            "{}: job {job} ({why}): run again ({n} time{s})",
            self.prefix
        );
        if *n >= TRIES {
            return Err(Halt::JobFails {
                job,
                last: why.to_string(),
            });
        }
        Ok(())
    }

    /// A job in flight queued to run again.
    fn again(&mut self, id: JobId) {
        if let Some(f) = self.flights.land(id) {
            self.queue.push_back((f.job, f.timeout));
        }
    }

    /// Ends the jobs past their deadline, where the runner does not time its jobs itself: each
    /// where the runner can end one job (its run then fails its check, and runs again), else
    /// the runner with all it runs (all run again).
    fn end_overdue(&mut self, log: &mut dyn Write) -> Result<(), Halt> {
        let Some(r) = self.runner.as_mut() else {
            return Ok(());
        };
        if r.times_its_jobs() {
            return Ok(());
        }
        let overdue = self.flights.overdue();
        let end_runner = overdue.iter().fold(false, |end, &id| !r.cancel(id) | end);
        for id in overdue {
            self.failed(id, "ran past its time", log)?;
        }
        if end_runner {
            self.end_runner();
        }
        Ok(())
    }

    /// Ends the jobs in flight or waiting that `unneeded` picks, where the runner can end them
    /// (one waiting always can): the jobs ended, whose lines, if they come, are no one's.
    pub fn cancel(&mut self, unneeded: impl Fn(&Job) -> bool) -> Vec<Job> {
        let (waiting, keep): (VecDeque<_>, VecDeque<_>) =
            self.queue.drain(..).partition(|(j, _)| unneeded(j));
        self.queue = keep;
        let mut ended: Vec<Job> = waiting.into_iter().map(|(j, _)| j).collect();
        let Some(r) = self.runner.as_mut() else {
            return ended;
        };
        for id in self.flights.ids(&unneeded) {
            if r.cancel(id) {
                ended.extend(self.flights.land(id).map(|f| f.job));
            }
        }
        ended
    }

    /// Stops the runner and with it every job in flight, which is queued to run again.
    fn end_runner(&mut self) {
        for id in self.flights.ids(|_| true) {
            self.again(id);
        }
        self.stop();
    }

    /// Stops the runner and every job it runs.
    pub fn stop(&mut self) {
        if let Some(mut r) = self.runner.take() {
            r.stop();
        }
    }
}

impl Drop for Dispatcher {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Set when the front end is asked to stop (`SIGTERM`, `SIGINT`, `SIGHUP`): it ends its jobs
/// and runner, writes its progress and returns.
static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn stop_asked(_: libc::c_int) {
    STOP.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Has `SIGTERM`, `SIGINT` and `SIGHUP` ask every dispatch to stop (a front end calls it once):
/// it ends its jobs and runner (Slurm's arrays cancelled) within a second.
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// What a fake runner did, and what its jobs print: `answer` gets each job handed over and
    /// how many times it was before, and gives the reports that follow.
    type Answer = Box<dyn FnMut(&Job, u32) -> Vec<Event>>;

    struct Script {
        answer: Answer,
        can_cancel: bool,
        events: VecDeque<Event>,
        submitted: Vec<JobId>,
        cancelled: Vec<JobId>,
        starts: u32,
        stops: u32,
    }

    struct Fake(Rc<RefCell<Script>>);

    impl Runner for Fake {
        fn submit(&mut self, job: &Job) -> io::Result<()> {
            let mut s = self.0.borrow_mut();
            let tries = s.submitted.iter().filter(|&&j| j == job.id).count() as u32;
            s.submitted.push(job.id);
            let events = (s.answer)(job, tries);
            s.events.extend(events);
            Ok(())
        }
        fn next(&mut self, _: Duration) -> Option<Event> {
            let e = self.0.borrow_mut().events.pop_front();
            if e.is_none() {
                // time passes for the deadlines
                std::thread::sleep(Duration::from_millis(1));
            }
            e
        }
        fn stop(&mut self) {
            let mut s = self.0.borrow_mut();
            s.stops += 1;
            s.events.clear();
        }
        fn cancel(&mut self, job: JobId) -> bool {
            let mut s = self.0.borrow_mut();
            s.cancelled.push(job);
            if s.can_cancel {
                // the job's process ends, and its last line says so
                s.events
                    .push_back(Event::Line(super::super::jobs::done_line(job, 137)));
            }
            s.can_cancel
        }
    }

    fn script(answer: impl FnMut(&Job, u32) -> Vec<Event> + 'static) -> Rc<RefCell<Script>> {
        Rc::new(RefCell::new(Script {
            answer: Box::new(answer),
            can_cancel: true,
            events: VecDeque::new(),
            submitted: Vec::new(),
            cancelled: Vec::new(),
            starts: 0,
            stops: 0,
        }))
    }

    fn dispatcher(s: &Rc<RefCell<Script>>, at_once: usize) -> Dispatcher {
        let s = s.clone();
        let start: Start = Box::new(move || {
            s.borrow_mut().starts += 1;
            Ok(Box::new(Fake(s.clone())) as Box<dyn Runner>)
        });
        let mut d = Dispatcher::new(
            start,
            "the fake".into(),
            "test",
            (size(), Goal::Weak),
            at_once,
        );
        d.stop_asked = || false;
        d.pause = Duration::ZERO;
        d
    }

    fn size() -> Size {
        "7x6".parse().unwrap()
    }

    fn job(id: JobId, positions: &[&str]) -> Job {
        let positions = positions.iter().map(|p| p.to_string()).collect();
        Job::new(
            id,
            "7x6".parse().unwrap(),
            Goal::Weak,
            Some(1),
            16,
            None,
            positions,
        )
    }

    /// A run of `job` that checks.
    fn good(job: &Job) -> Vec<Event> {
        let mut lines: Vec<Event> = (job.positions.iter())
            .map(|p| Event::Line(format!("{p} >=1 100 5")))
            .collect();
        lines.push(Event::Line(super::super::jobs::done_line(job.id, 0)));
        lines
    }

    /// A run of `job` with its first line cut short.
    fn damaged(job: &Job) -> Vec<Event> {
        let mut lines = good(job);
        lines[0] = Event::Line(format!("{} >=", job.positions[0]));
        lines
    }

    /// Steps until no job is left, the dispatch halts or 1,000 steps: the jobs finished by
    /// number, how it ended and what it said.
    fn drive(d: &mut Dispatcher) -> (Vec<JobId>, Result<(), Halt>, String) {
        let (mut done, mut log) = (Vec::new(), Vec::new());
        for _ in 0..1000 {
            if d.is_idle() {
                break;
            }
            match d.step(Duration::ZERO, &mut log) {
                Ok(Some(f)) => done.push(f.job.id),
                Ok(None) => {}
                Err(h) => return (done, Err(h), String::from_utf8(log).unwrap()),
            }
        }
        (done, Ok(()), String::from_utf8(log).unwrap())
    }

    #[test]
    fn a_run_that_does_not_check_runs_again_and_the_fifth_failure_halts_with_the_runner_stopped() {
        // twice damaged, then whole; another job whole at once
        let s = script(|j, tries| {
            if j.id == 1 && tries < 2 {
                damaged(j)
            } else {
                good(j)
            }
        });
        let mut d = dispatcher(&s, 2);
        d.submit(job(1, &["4", "44"]), None);
        d.submit(job(2, &["5"]), None);
        let (mut done, end, log) = drive(&mut d);
        done.sort_unstable();
        assert_eq!((done, end), (vec![1, 2], Ok(())));
        // the damaged line is no job's, and the run without it does not check
        assert!(
            log.contains("a damaged line (") && log.contains("): '4 >='"),
            "{log}"
        );
        assert!(
            log.contains("job 1 (no line for '4'): run again (2 times)"),
            "{log}"
        );
        assert_eq!(s.borrow().submitted.iter().filter(|&&j| j == 1).count(), 3);
        // never whole: five runs, then the dispatch halts and ends its runner
        let s = script(|j, _| damaged(j));
        let mut d = dispatcher(&s, 1);
        d.submit(job(7, &["4"]), None);
        let (done, end, _) = drive(&mut d);
        assert!(done.is_empty());
        assert!(matches!(end, Err(Halt::JobFails { job: 7, .. })), "{end:?}");
        assert_eq!(s.borrow().submitted, [7; TRIES as usize]);
        assert_eq!(s.borrow().stops, 1);
    }

    #[test]
    fn a_runner_that_ends_starts_again_with_its_jobs_and_three_ends_without_a_job_halt() {
        // the first runner ends as soon as it has a job; the next runs them
        let s = script(|j, tries| {
            if tries == 0 {
                vec![Event::Ended("gone".into())]
            } else {
                good(j)
            }
        });
        let mut d = dispatcher(&s, 2);
        d.submit(job(1, &["4"]), None);
        d.submit(job(2, &["5"]), None);
        let (mut done, end, log) = drive(&mut d);
        done.sort_unstable();
        assert_eq!((done, end), (vec![1, 2], Ok(())), "{log}");
        assert!(log.contains("ended (gone) with 2 jobs running"), "{log}");
        assert_eq!(s.borrow().starts, 2);
        // ending each time: the third end in a row halts
        let s = script(|_, _| vec![Event::Ended("gone".into())]);
        let mut d = dispatcher(&s, 1);
        d.submit(job(1, &["4"]), None);
        let (_, end, _) = drive(&mut d);
        let Err(Halt::Failed(why)) = end else {
            panic!("{end:?}")
        };
        assert!(why.contains("ended 3 times"), "{why}");
        // a job finished between two ends starts the count again: 2 ends, a job, 2 ends
        let mut handed = 0;
        let s = script(move |j, _| {
            handed += 1;
            if matches!(handed, 1 | 2 | 4 | 5) {
                vec![Event::Ended("gone".into())]
            } else {
                good(j)
            }
        });
        let mut d = dispatcher(&s, 1);
        d.submit(job(1, &["4"]), None);
        d.submit(job(2, &["5"]), None);
        let (done, end, _) = drive(&mut d);
        assert_eq!((done, end), (vec![1, 2], Ok(())));
        assert_eq!(s.borrow().starts, 5);
    }

    #[test]
    fn a_lost_job_runs_again_and_lines_of_no_job_are_told_ten_times() {
        let s = script(|j, tries| {
            let mut e: Vec<Event> = (0..20).map(|_| Event::Line("junk".into())).collect();
            e.push(Event::Line("3 >=1 1 1".into()));
            if tries == 0 {
                e.push(Event::Lost(vec![j.id]));
            } else {
                e.extend(good(j));
            }
            e
        });
        let mut d = dispatcher(&s, 1);
        d.submit(job(4, &["4"]), None);
        let (done, end, log) = drive(&mut d);
        assert_eq!((done, end), (vec![4], Ok(())));
        assert_eq!(s.borrow().submitted, [4, 4]);
        assert_eq!(log.matches("a damaged line").count(), 10, "{log}");
        assert!(!log.contains("a line of no job running"), "{log}");
    }

    #[test]
    fn a_job_past_its_time_is_ended_alone_where_the_runner_can_else_with_the_runner() {
        // its first run hangs, the next answers at once (well within the 50 ms)
        let hangs_once = |j: &Job, tries: u32| {
            if j.id == 1 && tries == 0 {
                vec![]
            } else {
                good(j)
            }
        };
        let timeout = Some(Duration::from_millis(50));
        let s = script(hangs_once);
        let mut d = dispatcher(&s, 2);
        d.submit(job(1, &["4"]), timeout);
        d.submit(job(2, &["5"]), None);
        let (mut done, end, log) = drive(&mut d);
        done.sort_unstable();
        assert_eq!((done, end), (vec![1, 2], Ok(())));
        assert!(log.contains("job 1 (ran past its time)"), "{log}");
        // ended alone: its run fails its check too (two failures), the runner goes on
        assert!(
            log.contains("job 1 (no line for '4'): run again (2 times)"),
            "{log}"
        );
        let s = s.borrow();
        assert_eq!((s.cancelled.as_slice(), s.starts), (&[1][..], 1));
        // a runner that cannot end one job is ended with all it runs, which run again
        let s = script(hangs_once);
        s.borrow_mut().can_cancel = false;
        let mut d = dispatcher(&s, 2);
        d.submit(job(1, &["4"]), timeout);
        d.submit(job(2, &["5"]), Some(Duration::from_secs(3600)));
        let (mut done, end, _) = drive(&mut d);
        done.sort_unstable();
        assert_eq!((done, end), (vec![1, 2], Ok(())));
        let s = s.borrow();
        assert_eq!((s.starts, s.submitted.as_slice()), (2, &[1, 2, 1][..]));
    }

    #[test]
    fn unneeded_jobs_are_ended_waiting_or_running_where_the_runner_can() {
        let s = script(|_, _| vec![]);
        let mut d = dispatcher(&s, 2);
        for (id, p) in [(1, "4"), (2, "5"), (3, "6")] {
            d.submit(job(id, &[p]), None);
        }
        let mut log = Vec::new();
        assert!(d.step(Duration::ZERO, &mut log).unwrap().is_none());
        assert_eq!((d.in_flight(), d.waiting()), (2, 1));
        let ended = d.cancel(|j| j.id != 2);
        let mut ids: Vec<JobId> = ended.iter().map(|j| j.id).collect();
        ids.sort_unstable();
        assert_eq!(ids, [1, 3]);
        assert_eq!((d.in_flight(), d.waiting()), (1, 0));
        // its last line, which comes after, is no job's: nothing finishes
        assert!(d.step(Duration::ZERO, &mut log).unwrap().is_none());
        // a runner that cannot end one keeps it
        s.borrow_mut().can_cancel = false;
        assert!(d.cancel(|_| true).is_empty());
        assert_eq!(d.in_flight(), 1);
    }

    #[test]
    fn a_signal_halts_the_dispatch_and_stops_its_runner() {
        let s = script(|_, _| vec![]);
        let mut d = dispatcher(&s, 1);
        d.stop_asked = || true;
        d.submit(job(1, &["4"]), None);
        let (_, end, _) = drive(&mut d);
        assert_eq!(end, Err(Halt::Stopped));
        assert_eq!((s.borrow().starts, s.borrow().stops), (1, 1));
    }
}
