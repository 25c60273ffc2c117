//! The page's game without a server: `vier gui`'s state machine (`vier::gui::state`) driven as
//! `vier gui`'s session drives it (src/gui/session.rs), with the searches run by the engine in
//! a Web Worker instead of an engine process. web/backend.js keeps one instance of this module
//! on the page's thread for the game (it never searches there, so it never freezes the page)
//! and hands each search this driver asks for to the worker.
//!
//! Every call answers an [`Outcome`]: the snapshot the page draws, whether the search under way
//! is of no use any more (`stop`: the position or the settings changed), and the next search to
//! start, if any. Searches carry a key; a report or an answer of an older search is ignored.

use serde_json::{json, Value};
use std::time::Duration;
use vier::board::Size;
use vier::clock;
use vier::gui::game::{self, View};
use vier::gui::state::{Info, Job, Refused, Search, State};
use vier::levels;
use vier::notation;
use vier::score::Score;

/// The session's id in the snapshots: the page holds one game.
const ID: &str = "page";

/// The job the engine works on and the searches it has run.
struct Active {
    job: Job,
    view: View,
    done: Vec<Search>,
    /// The search under way and its key.
    running: Option<(Search, u64)>,
    started: Duration,
}

pub struct Game {
    state: State,
    active: Option<Active>,
    /// The key of the latest search handed out.
    key: u64,
    /// The worker can take searches (it has loaded, and not failed since).
    ready: bool,
}

impl Game {
    pub fn new(seed: u64) -> Game {
        let mut g = Game {
            state: State::new(seed),
            active: None,
            key: 0,
            ready: false,
        };
        g.state.engine.state = "starting";
        g
    }

    /// A change the page asked for: `what` is the path of `vier gui`'s route (`move`, `undo`,
    /// `new`, ...) and `body` its JSON body. A refused change changes nothing.
    pub fn request(&mut self, what: &str, body: &str) -> Result<Value, String> {
        self.state.request(what, body).map_err(|r| match r {
            Refused::Bad(e) | Refused::Conflict(e) => e,
        })?;
        Ok(self.work())
    }

    /// The worker's state: `starting` while it loads, `ready` once it can search (again, after
    /// a failure), `error` with why it cannot.
    pub fn engine(&mut self, state: &str, message: &str) -> Value {
        self.ready = state == "ready";
        match state {
            "starting" => self.state.engine.state = "starting",
            "ready" => {
                self.state.engine.state = "ready";
                if self.state.engine.message.starts_with("the engine failed") {
                    self.state.engine.message.clear();
                }
            }
            _ => {
                self.state.engine.state = "error";
                self.state.engine.message = message.to_string();
            }
        }
        self.work()
    }

    /// A report of the search `key`: the thinking line of a move, or columns' values.
    pub fn report(&mut self, key: u64, report: &Value) -> Value {
        let current = self
            .active
            .as_ref()
            .filter(|a| a.running.map(|r| r.1) == Some(key));
        if let Some(a) = current {
            for (i, line) in report["lines"].as_array().into_iter().flatten().enumerate() {
                if let Some(info) = info(&a.view, report, i + 1, line) {
                    self.state.report(&a.job, &a.view, &info);
                }
            }
            // a later search's report is moot once the job changed: nothing to draw then
        }
        self.outcome(false, None)
    }

    /// The search `key` ended with `answer` (the engine's `think` answer).
    pub fn searched(&mut self, key: u64, answer: &Value) -> Value {
        let Some(a) = self
            .active
            .as_mut()
            .filter(|a| a.running.map(|r| r.1) == Some(key))
        else {
            return self.work();
        };
        let (search, _) = a.running.take().expect("filtered above");
        a.done.push(search);
        if let Job::Move { .. } = a.job {
            let ms = (clock::now().saturating_sub(a.started)).as_millis() as u64;
            let best = answer["column"].as_u64().map(|c| c as usize + 1);
            self.state.finish_move(&a.job, &a.view, best, ms);
        }
        self.work()
    }

    /// The search `key` failed (the engine trapped or its worker died): the job is dropped and
    /// tried again once the page says the worker is ready again.
    pub fn failed(&mut self, key: u64, message: &str) -> Value {
        if self.current(key) {
            self.active = None;
            self.ready = false;
            self.state.thinking = None;
            self.state.engine.state = "error";
            self.state.engine.message = format!("the engine failed: {message}; it was restarted");
            self.state.engine.restarts += 1;
        }
        self.outcome(false, None)
    }

    pub fn snapshot(&mut self) -> Value {
        self.outcome(false, None)
    }

    /// True if `key` is the running search's.
    fn current(&self, key: u64) -> bool {
        self.active
            .as_ref()
            .is_some_and(|a| a.running.map(|r| r.1) == Some(key))
    }

    /// After any change: drops a job that is no longer wanted and hands out the next search.
    fn work(&mut self) -> Value {
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
            // the worker is not there yet: the job waits for it (`engine("ready")`)
            return self.outcome(stop, None);
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
                    let search = think_request(&a.job, s, self.state.seed);
                    return self.outcome(stop, Some(search));
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
        self.outcome(stop, None)
    }

    fn outcome(&mut self, stop: bool, search: Option<Value>) -> Value {
        self.state.version += 1;
        let snapshot: Value = serde_json::from_str(&self.state.snapshot(ID)).unwrap_or(Value::Null);
        json!({
            "snapshot": snapshot,
            "stop": stop,
            "search": search,
            "key": self.key,
        })
    }
}

/// The engine's `think` request for one search of `job`: `go movetime` with `searchmoves` in
/// the protocol, a request to the worker here.
fn think_request(job: &Job, s: Search, seed: u64) -> Value {
    let size: Size = job.size();
    let width = size.width();
    let moves = notation::move_string(job.moves().iter().map(|c| c - 1), width);
    let level = job.level();
    json!({
        "size": size.to_string(),
        "moves": moves,
        "movetime_ms": s.movetime,
        "multipv": if s.only.is_some() { 1 } else { job.multipv() },
        "searchmoves": s.only.map(|c| vec![c - 1]),
        "level": level,
        "seed": if level == levels::FULL_SKILL { 0 } else { seed },
    })
}

/// One line of an engine report as the state machine reads a protocol `info` line.
fn info(view: &View, report: &Value, multipv: usize, line: &Value) -> Option<Info> {
    let words = line["score"].as_str()?;
    let (kind, n) = words.split_once(' ')?;
    let n: i64 = n.parse().ok()?;
    let exact = line["bound"].as_str() == Some("exact");
    let score = match kind {
        // a proven draw is `cp 0` with the exact score 0 (the protocol says `wdl 0 1000 0`)
        "cp" if n == 0 && exact && line["exact"].as_i64() == Some(0) => Score::Draw,
        "cp" => Score::Cp(n.clamp(-100_000, 100_000) as i32),
        "mate" if n > 0 => Score::Win(n.min(100) as u32),
        "mate" => Score::Loss(n.unsigned_abs().min(100) as u32),
        _ => return None,
    };
    let pv = line["columns"]
        .as_array()?
        .iter()
        .map(|c| c.as_u64().map(|c| c as usize + 1))
        .collect::<Option<Vec<_>>>()?;
    if pv.iter().any(|&c| c > view.width) {
        return None;
    }
    Some(Info {
        depth: report["depth"].as_u64().unwrap_or(0) as u32,
        multipv,
        score,
        bound: !exact,
        pv,
    })
}
