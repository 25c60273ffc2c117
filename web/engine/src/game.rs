//! The page's game without a server: `vier gui`'s game and its conductor
//! (`vier::gui::conductor`), with the searches run by the engine in a Web Worker instead of an
//! engine process. web/backend.js keeps one instance of this module on the page's thread for
//! the game (it never searches there, so it never freezes the page) and hands each search the
//! conductor asks for to the worker.
//!
//! Only translation lives here: JSON in, calls of the conductor, JSON out. Every call answers
//! the snapshot the page draws, whether the search under way must `stop`, and the next `search`
//! to start as the worker's `think` request, if any.

use serde_json::{json, Value};
use vier::engine::Report;
use vier::gui::conductor::{Conductor, Order, Outcome};
use vier::gui::state::{Refused, State};
use vier::notation;

/// The session's id in the snapshots: the page holds one game.
const ID: &str = "page";

pub struct Game {
    conductor: Conductor,
}

impl Game {
    pub fn new(seed: u64) -> Game {
        let mut conductor = Conductor::new(State::new(seed));
        conductor.state.engine.state = "starting";
        Game { conductor }
    }

    /// A change the page asked for: `what` is the path of `vier gui`'s route (`move`, `undo`,
    /// `new`, ...) and `body` its JSON body. A refused change changes nothing.
    pub fn request(&mut self, what: &str, body: &str) -> Result<Value, String> {
        let out = self
            .conductor
            .change(|st| st.request(what, body))
            .map_err(|r| match r {
                Refused::Bad(e) | Refused::Conflict(e) => e,
            })?;
        Ok(self.outcome(out))
    }

    /// The worker's state: `starting` while it loads, `ready` once it can search (again, after
    /// a failure), `error` with why it cannot.
    pub fn engine(&mut self, state: &str, message: &str) -> Value {
        let state = match state {
            "starting" => "starting",
            "ready" => "ready",
            _ => "error",
        };
        let out = self.conductor.engine(state, message);
        self.outcome(out)
    }

    /// A report of the search `key` (the worker's progress, with the engine's `report`).
    pub fn report(&mut self, key: u64, report: &Value) -> Value {
        if let Ok(r) = serde_json::from_value::<Report>(report["report"].clone()) {
            self.conductor.report(key, r.depth, &r.lines);
        }
        self.outcome(Outcome::default())
    }

    /// The search `key` ended with `answer` (the engine's `think` answer).
    pub fn searched(&mut self, key: u64, answer: &Value) -> Value {
        let best = answer["column"].as_u64().map(|c| c as usize);
        let out = self.conductor.searched(key, best);
        self.outcome(out)
    }

    /// The search `key` failed (the engine trapped or its worker died): the job is dropped and
    /// tried again once the page says the worker is ready again.
    pub fn failed(&mut self, key: u64, message: &str) -> Value {
        let out = self.conductor.failed(key, message);
        self.outcome(out)
    }

    pub fn snapshot(&mut self) -> Value {
        self.outcome(Outcome::default())
    }

    fn outcome(&mut self, out: Outcome) -> Value {
        let st = &mut self.conductor.state;
        st.version += 1;
        let snapshot: Value = serde_json::from_str(&st.snapshot(ID)).unwrap_or(Value::Null);
        json!({
            "snapshot": snapshot,
            "stop": out.stop,
            "search": out.search.as_ref().map(think_request),
            "key": out.search.as_ref().map(|o| o.key),
        })
    }
}

/// The worker's `think` request for a search: `go movetime` with `searchmoves` in the
/// protocol.
fn think_request(o: &Order) -> Value {
    let full = o.level == vier::engine::settings::SKILL.max;
    json!({
        "size": o.size.to_string(),
        "moves": notation::move_string(o.moves.iter().copied(), o.size.width()),
        "movetime_ms": o.movetime,
        "multipv": o.multipv,
        "searchmoves": o.only.map(|c| vec![c]),
        "level": o.level,
        "seed": if full { 0 } else { o.seed },
    })
}
