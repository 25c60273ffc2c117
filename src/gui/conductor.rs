//! One game's work for its engine, in one place for both drivers: which task the game asks
//! for, the searches it takes, what their reports and answers change, and when a search under
//! way is of no use any more. `vier gui`'s tab ([`super::tab`]) runs the searches on an
//! engine process over the protocol; the page without a server (web/) runs them in a Web Worker
//! with the engine compiled to WebAssembly. Neither decides anything about the game.
//!
//! Every call answers a [`Next`]: whether the searches under way must stop (the position or
//! the settings changed), and the next search to start, if any. Searches carry a key; a report
//! or an answer with an older key is ignored.
//!
//! A driver with several engines (the page's workers: [`Conductor::set_lanes`]) runs as many
//! searches at once: an analysis one column a lane, a review one position a lane. It calls
//! [`Conductor::work`] again after each search handed out, until none comes.

use super::change::Refused;
use super::game::Game;
use super::plan::{Search, Task};
use super::view::{self, View};
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
pub struct Next {
    /// Stop the search under way: it is of no use any more.
    pub stop: bool,
    /// Start this search.
    pub search: Option<Order>,
}

/// The task the engine works on and the searches it has run.
struct Active {
    task: Task,
    view: View,
    done: Vec<Search>,
    /// The searches under way and their keys.
    running: Vec<(Search, u64)>,
    started: Duration,
}

impl Active {
    fn search(&self, key: u64) -> Option<Search> {
        self.running.iter().find(|r| r.1 == key).map(|r| r.0)
    }
}

/// A game with the work its engine does.
pub struct Conductor {
    pub game: Game,
    active: Option<Active>,
    /// The key of the latest search handed out.
    key: u64,
    /// The engine can take searches (it has started, and not failed since).
    ready: bool,
    /// No one watches the game (its last tab closed) since anyone last asked for it: the search
    /// under way stops and none starts (issue 68: a dropped game's engine searched on).
    dropped: bool,
    /// Searches the driver runs at once.
    lanes: usize,
}

impl Conductor {
    pub fn new(game: Game) -> Conductor {
        Conductor {
            game,
            active: None,
            key: 0,
            ready: false,
            dropped: false,
            lanes: 1,
        }
    }

    /// How many searches the driver can run at once (at least 1, the default).
    pub fn set_lanes(&mut self, lanes: usize) {
        self.lanes = lanes.max(1);
    }

    /// Whether someone watches the game (a change the person asks for says so too); the driver
    /// then asks [`Conductor::work`] what to do, as after any change.
    pub fn watched(&mut self, watched: bool) {
        self.dropped = !watched;
    }

    /// Whether the game wants its engine: a task to do, or an opponent to play, and someone there.
    pub fn wants_engine(&self) -> bool {
        !self.dropped && self.game.wants_engine()
    }

    /// A change the person asked for (`f` checks it and makes it, or refuses and changes
    /// nothing), then what the engine should do.
    pub fn change(
        &mut self,
        f: impl FnOnce(&mut Game) -> Result<(), Refused>,
    ) -> Result<Next, Refused> {
        f(&mut self.game)?;
        self.dropped = false;
        Ok(self.work())
    }

    /// The engine's state: `starting` while it loads, `ready` once it can search (again, after
    /// a failure: the failure's note stays until the person's next change), `error` with why
    /// it cannot.
    pub fn engine(&mut self, state: &'static str, message: &str) -> Next {
        self.ready = state == "ready";
        let e = &mut self.game.engine;
        e.state = state;
        if state == "error" {
            e.message = message.to_string();
        }
        self.work()
    }

    /// Whether the search `key` is one under way.
    pub fn is_current(&self, key: u64) -> bool {
        self.active
            .as_ref()
            .is_some_and(|a| a.search(key).is_some())
    }

    /// A report of the search `key` at `depth`: the thinking line of a move, columns' values,
    /// or a review's position's. A report of an older search is moot: nothing changes.
    pub fn report(&mut self, key: u64, depth: u32, lines: &[Line]) {
        if let Some(a) = self.active.as_ref() {
            if let Some(search) = a.search(key) {
                self.game.report(&a.task, &a.view, &search, depth, lines);
            }
        }
    }

    /// The search `key` ended with `best` (0-based; `None` for no move); what follows.
    pub fn searched(&mut self, key: u64, best: Option<usize>) -> Next {
        if !self.is_current(key) {
            return self.work();
        }
        let a = self.active.as_mut().expect("the current search's task");
        let at = a.running.iter().position(|r| r.1 == key).expect("current");
        let (search, _) = a.running.remove(at);
        a.done.push(search);
        let (task, view) = (a.task.clone(), a.view.clone());
        match task {
            Task::Move { .. } => {
                let ms = clock::now().saturating_sub(a.started).as_millis() as u64;
                self.game.finish_move(&task, &view, best.map(|c| c + 1), ms);
            }
            Task::Review { .. } => self.game.review_searched(&task, &search),
            Task::Analyse { .. } => {}
        }
        self.work()
    }

    /// The search `key` failed (the engine crashed or hung, and is ended): its task, if still
    /// wanted, is dropped and tried again once the engine is ready again.
    pub fn failed(&mut self, key: u64, message: &str) -> Next {
        if self.is_current(key) {
            self.active = None;
            self.game.thinking = None;
        }
        // a search no longer wanted failed too (it did not answer its `stop`): the engine is
        // ended all the same, and said why
        self.ready = false;
        let e = &mut self.game.engine;
        e.state = "error";
        e.message = format!("the engine failed: {message}; it was restarted");
        e.restarts += 1;
        self.work()
    }

    /// After any change: drops a task that is no longer wanted (every search of it stops) and
    /// hands out the next search, if a lane is free.
    pub fn work(&mut self) -> Next {
        let want = self.game.task().filter(|_| !self.dropped);
        let mut stop = false;
        if self
            .active
            .as_ref()
            .is_some_and(|a| Some(&a.task) != want.as_ref())
        {
            let a = self.active.take().expect("checked");
            stop = !a.running.is_empty();
            self.game.thinking = None;
            if self.game.engine.state != "error" {
                self.game.engine.state = "ready";
            }
        }
        if !self.ready {
            // the engine is not there yet: the task waits for it (`engine("ready")`)
            return Next { stop, search: None };
        }
        // a task ends with its last search; the next task (an analysis after the engine's move)
        // starts at once: at most a move and an analysis per call
        for _ in 0..3 {
            if self.active.is_none() {
                let Some(task) = self.game.task().filter(|_| !self.dropped) else {
                    break;
                };
                let Ok(view) = view::view(task.size(), task.moves()) else {
                    break;
                };
                self.game.begin(&task, &view);
                self.active = Some(Active {
                    task,
                    view,
                    done: Vec::new(),
                    running: Vec::new(),
                    started: clock::now(),
                });
            }
            let a = self.active.as_mut().expect("made above");
            if a.running.len() >= self.lanes {
                break;
            }
            let running: Vec<Search> = a.running.iter().map(|r| r.0).collect();
            match self
                .game
                .next_search(&a.task, &a.view, &a.done, &running, self.lanes)
            {
                Some(s) => {
                    self.key += 1;
                    a.running.push((s, self.key));
                    let order = order(&a.task, s, self.key, self.game.game_seed());
                    return Next {
                        stop,
                        search: Some(order),
                    };
                }
                None if !a.running.is_empty() => break,
                None => {
                    if let Task::Analyse { .. } = a.task {
                        let view = a.view.clone();
                        self.game.analysis_done(&view);
                    }
                    self.active = None;
                    self.game.engine.state = "ready";
                    self.game.thinking = None;
                }
            }
        }
        Next { stop, search: None }
    }
}

/// The search `s` of `task` as a driver runs it.
fn order(task: &Task, s: Search, key: u64, seed: u64) -> Order {
    let moves = task.moves();
    let upto = s.upto.unwrap_or(moves.len()).min(moves.len());
    Order {
        key,
        size: task.size(),
        moves: moves[..upto].iter().map(|c| c - 1).collect(),
        movetime: s.movetime,
        multipv: if s.only.is_some() { 1 } else { task.multipv() },
        only: s.only.map(|c| c - 1),
        level: task.level(),
        seed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The searches handed out after `out`, calling `work` until none comes (as the page does).
    fn all(c: &mut Conductor, out: Next) -> Vec<Order> {
        let mut orders: Vec<Order> = out.search.into_iter().collect();
        while let Some(o) = c.work().search {
            orders.push(o);
        }
        orders
    }

    #[test]
    fn lanes_run_as_many_searches_at_once_and_a_change_stops_them_all() {
        let mut c = Conductor::new(Game::new(1));
        c.set_lanes(3);
        c.change(|st| st.request("settings", r#"{"engine": "none"}"#))
            .unwrap();
        let out = c.engine("ready", "");
        assert_eq!(out.search, None, "nothing to do yet");
        let out = c.change(|st| st.request("analyse", "")).unwrap();
        let orders = all(&mut c, out);
        let columns: Vec<Option<usize>> = orders.iter().map(|o| o.only).collect();
        assert_eq!(
            columns,
            [Some(3), Some(2), Some(4)],
            "three lanes, centre first"
        );
        // one ends: the next column takes its lane
        let out = c.searched(orders[1].key, Some(2));
        assert_eq!(out.search.map(|o| o.only), Some(Some(1)));
        // a move makes the analysis moot: every search under way stops
        let out = c
            .change(|st| st.request("move", r#"{"column": 4}"#))
            .unwrap();
        assert!(out.stop);
        assert!(!c.is_current(orders[0].key));
    }

    #[test]
    fn a_review_hands_out_each_position_of_the_game_once() {
        let mut c = Conductor::new(Game::new(1));
        c.set_lanes(2);
        c.change(|st| st.request("settings", r#"{"engine": "none"}"#))
            .unwrap();
        c.change(|st| st.request("link", r#"{"link": "7x6/4414"}"#))
            .unwrap();
        let out = c.engine("ready", "");
        assert_eq!(out.search, None, "an unfinished game is reviewed on demand");
        let out = c.change(|st| st.request("review", "")).unwrap();
        let orders = all(&mut c, out);
        let positions: Vec<usize> = orders.iter().map(|o| o.moves.len()).collect();
        assert_eq!(positions, [4, 3], "the last positions first, one a lane");
        let mut seen = positions;
        let mut pending: Vec<u64> = orders.iter().map(|o| o.key).collect();
        while let Some(key) = pending.pop() {
            if let Some(o) = c.searched(key, None).search {
                seen.push(o.moves.len());
                pending.push(o.key);
            }
        }
        seen.sort();
        assert_eq!(seen, [0, 1, 2, 3, 4]);
        assert_eq!(c.game.task(), None, "the review is done");
    }
}
