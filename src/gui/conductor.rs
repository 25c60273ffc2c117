//! One game's work for its engine, in one place for both drivers: which job the state asks
//! for, the searches it takes, what their reports and answers change, and when a search under
//! way is of no use any more. `vier gui`'s session ([`super::session`]) runs the searches on an
//! engine process over the protocol; the page without a server (web/) runs them in a Web Worker
//! with the engine compiled to WebAssembly. Neither decides anything about the game.
//!
//! Every call answers an [`Outcome`]: whether the search under way must stop (the position or
//! the settings changed), and the next search to start, if any. Searches carry a key; a report
//! or an answer with an older key is ignored.

use super::game::{self, View};
use super::state::{Job, Refused, Search, State};
use crate::board::Size;
use crate::engine::{clock, Line};
use std::time::Duration;

/// A search to run: the position, the time, the lines, the columns searched, the strength.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    /// Reports and the answer of this search carry it.
    pub key: u64,
    pub size: Size,
    /// 0-based columns from the empty board.
    pub moves: Vec<usize>,
    pub movetime: u64,
    /// Lines to report: 1 for a move, every column for an analysis.
    pub multipv: usize,
    /// The 0-based column searched alone (`searchmoves`), if only one.
    pub only: Option<usize>,
    /// The skill level (the top one the full engine) and its seed.
    pub level: u64,
    pub seed: u64,
}

/// What a driver does after a call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Stop the search under way: it is of no use any more.
    pub stop: bool,
    /// Start this search.
    pub search: Option<Order>,
}

/// The job the engine works on and the searches it has run.
struct Active {
    job: Job,
    view: View,
    done: Vec<Search>,
    /// The search under way and its key.
    running: Option<(Search, u64)>,
    started: Duration,
}

/// A game's state with the work its engine does.
pub struct Conductor {
    pub state: State,
    active: Option<Active>,
    /// The key of the latest search handed out.
    key: u64,
    /// The engine can take searches (it has started, and not failed since).
    ready: bool,
}

impl Conductor {
    pub fn new(state: State) -> Conductor {
        Conductor {
            state,
            active: None,
            key: 0,
            ready: false,
        }
    }

    /// A change the person asked for (`f` checks it and makes it, or refuses and changes
    /// nothing), then what the engine should do.
    pub fn change(
        &mut self,
        f: impl FnOnce(&mut State) -> Result<(), Refused>,
    ) -> Result<Outcome, Refused> {
        f(&mut self.state)?;
        Ok(self.work())
    }

    /// The engine's state: `starting` while it loads, `ready` once it can search (again, after
    /// a failure: the failure's note stays until the person's next change), `error` with why
    /// it cannot.
    pub fn engine(&mut self, state: &'static str, message: &str) -> Outcome {
        self.ready = state == "ready";
        let e = &mut self.state.engine;
        e.state = state;
        if state == "error" {
            e.message = message.to_string();
        }
        self.work()
    }

    /// Whether the search `key` is the one under way.
    pub fn is_current(&self, key: u64) -> bool {
        self.active
            .as_ref()
            .is_some_and(|a| a.running.map(|r| r.1) == Some(key))
    }

    /// A report of the search `key` at `depth`: the thinking line of a move, or columns'
    /// values. A report of an older search is moot: nothing changes.
    pub fn report(&mut self, key: u64, depth: u32, lines: &[Line]) {
        if let Some(a) = self.active.as_ref().filter(|_| self.is_current(key)) {
            self.state.report(&a.job, &a.view, depth, lines);
        }
    }

    /// The search `key` ended with `best` (0-based; `None` for no move); what follows.
    pub fn searched(&mut self, key: u64, best: Option<usize>) -> Outcome {
        if !self.is_current(key) {
            return self.work();
        }
        let a = self.active.as_mut().expect("the current search's job");
        let (search, _) = a.running.take().expect("the current search");
        a.done.push(search);
        if let Job::Move { .. } = a.job {
            let ms = clock::now().saturating_sub(a.started).as_millis() as u64;
            let (job, view) = (a.job.clone(), a.view.clone());
            self.state.finish_move(&job, &view, best.map(|c| c + 1), ms);
        }
        self.work()
    }

    /// The search `key` failed (the engine crashed or hung): the job is dropped, and tried
    /// again once the engine is ready again.
    pub fn failed(&mut self, key: u64, message: &str) -> Outcome {
        if self.is_current(key) {
            self.active = None;
            self.ready = false;
            self.state.thinking = None;
            let e = &mut self.state.engine;
            e.state = "error";
            e.message = format!("the engine failed: {message}; it was restarted");
            e.restarts += 1;
        }
        self.work()
    }

    /// After any change: drops a job that is no longer wanted and hands out the next search.
    pub fn work(&mut self) -> Outcome {
        let want = self.state.job();
        let mut stop = false;
        if self
            .active
            .as_ref()
            .is_some_and(|a| Some(&a.job) != want.as_ref())
        {
            let a = self.active.take().expect("checked");
            stop = a.running.is_some();
            self.state.thinking = None;
            if self.state.engine.state != "error" {
                self.state.engine.state = "ready";
            }
        }
        if !self.ready {
            // the engine is not there yet: the job waits for it (`engine("ready")`)
            return Outcome { stop, search: None };
        }
        // a job ends with its last search; the next job (an analysis after the engine's move)
        // starts at once: at most a move and an analysis per call
        for _ in 0..3 {
            if self.active.is_none() {
                let Some(job) = self.state.job() else { break };
                let Ok(view) = game::view(job.size(), job.moves()) else {
                    break;
                };
                self.state.begin(&job, &view);
                self.active = Some(Active {
                    job,
                    view,
                    done: Vec::new(),
                    running: None,
                    started: clock::now(),
                });
            }
            let a = self.active.as_mut().expect("made above");
            if a.running.is_some() {
                break;
            }
            match self.state.next_search(&a.job, &a.view, &a.done) {
                Some(s) => {
                    self.key += 1;
                    a.running = Some((s, self.key));
                    let order = order(&a.job, s, self.key, self.state.seed);
                    return Outcome {
                        stop,
                        search: Some(order),
                    };
                }
                None => {
                    if let Job::Analyse { .. } = a.job {
                        let view = a.view.clone();
                        self.state.analysis_done(&view);
                    }
                    self.active = None;
                    self.state.engine.state = "ready";
                    self.state.thinking = None;
                }
            }
        }
        Outcome { stop, search: None }
    }
}

/// The search `s` of `job` as a driver runs it.
fn order(job: &Job, s: Search, key: u64, seed: u64) -> Order {
    Order {
        key,
        size: job.size(),
        moves: job.moves().iter().map(|c| c - 1).collect(),
        movetime: s.movetime,
        multipv: if s.only.is_some() { 1 } else { job.multipv() },
        only: s.only.map(|c| c - 1),
        level: job.level(),
        seed,
    }
}
