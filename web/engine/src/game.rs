//! The page's game without a server: `vier gui`'s game and its conductor
//! (`vier::gui::conductor`), with the searches run by the engine in a Web Worker instead of an
//! engine process. web/backend.js keeps one instance of this module on the page's thread for
//! the game (it never searches there, so it never freezes the page) and hands each search the
//! conductor asks for to the worker.
//!
//! Only translation lives here: JSON in, calls of the conductor, JSON out. Every call answers
//! the snapshot the page draws, whether the searches under way must `stop`, and the
//! `searches` to start (each `{key, request}`, the request as the worker's `think`): as many as
//! the page has workers free for (its lanes: an analysis one column a worker, a review one
//! position a worker).

use serde_json::{json, Value};
use vier::engine::Report;
use vier::gui::conductor::{Conductor, Next, Order};
use vier::gui::game::Game;
use vier::notation;

/// The session's id in the snapshots: the page holds one game.
const ID: &str = "page";

pub struct Page {
    conductor: Conductor,
}

impl Page {
    /// A game whose engine runs `lanes` searches at once (the page's workers).
    pub fn new(seed: u64, lanes: usize) -> Page {
        let mut conductor = Conductor::new(Game::new(seed));
        conductor.set_lanes(lanes);
        conductor.game.engine.state = "starting";
        Page { conductor }
    }

    /// A change the page asked for: `what` is the path of `vier gui`'s route (`move`, `undo`,
    /// `new`, ...) and `body` its JSON body. A refused change changes nothing.
    pub fn request(&mut self, what: &str, body: &str) -> Result<Value, String> {
        let out = self
            .conductor
            .change(|game| game.request(what, body))
            .map_err(|r| r.message().to_string())?;
        Ok(self.answer(out))
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
        self.answer(out)
    }

    /// A report of the search `key` (the worker's progress, with the engine's `report`).
    pub fn report(&mut self, key: u64, report: &Value) -> Value {
        if let Ok(r) = serde_json::from_value::<Report>(report["report"].clone()) {
            self.conductor.report(key, r.depth, &r.lines);
        }
        self.answer(Next::default())
    }

    /// The search `key` ended with `answer` (the engine's `think` answer).
    pub fn searched(&mut self, key: u64, answer: &Value) -> Value {
        let best = answer["column"].as_u64().map(|c| c as usize);
        let out = self.conductor.searched(key, best);
        self.answer(out)
    }

    /// The search `key` failed (the engine trapped or its worker died): the job is dropped and
    /// tried again once the page says the worker is ready again.
    pub fn failed(&mut self, key: u64, message: &str) -> Value {
        let out = self.conductor.failed(key, message);
        self.answer(out)
    }

    pub fn snapshot(&mut self) -> Value {
        self.answer(Next::default())
    }

    /// What a call leads to, with every further search the free lanes can take.
    fn answer(&mut self, out: Next) -> Value {
        let mut stop = out.stop;
        let mut orders: Vec<Order> = out.search.into_iter().collect();
        if !orders.is_empty() {
            // the conductor hands out one search a call: the others of the lanes follow
            while let Next {
                stop: more_stop,
                search: Some(o),
            } = self.conductor.work()
            {
                stop |= more_stop;
                orders.push(o);
            }
        }
        let st = &mut self.conductor.game;
        st.version += 1;
        let snapshot: Value = serde_json::from_str(&st.snapshot(ID)).unwrap_or(Value::Null);
        let searches: Vec<Value> = orders
            .iter()
            .map(|o| json!({ "key": o.key, "request": think_request(o) }))
            .collect();
        json!({
            "snapshot": snapshot,
            "stop": stop,
            "searches": searches,
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
