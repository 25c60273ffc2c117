//! The engine's work on a game: the task it should do now ([`Game::task`]: its move, an
//! analysis, a review), the next search of that task ([`Game::next_search`]), and what the
//! searches' reports and answers change in the game. The conductor ([`super::conductor`]) asks
//! and tells; nothing here runs a search.

use super::game::{Analysis, ColumnReport, Game, Side, Thinking};
use super::review::REVIEW_MS;
use super::view::{Status, View};
use crate::board::Size;
use crate::engine::settings::SKILL;
use crate::engine::Line;

/// An analysis gives up after this long; columns not proven by then are shown as estimates.
pub const ANALYSIS_MS: u64 = 30_000;

/// What the engine is asked to do; compared with the game's wish to see whether it is still
/// wanted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Task {
    Move {
        size: Size,
        moves: Vec<usize>,
        movetime: u64,
        level: u64,
    },
    Analyse {
        size: Size,
        moves: Vec<usize>,
    },
    /// Every position of the game `line` proven ([`super::review`]).
    Review {
        size: Size,
        line: Vec<usize>,
    },
}

impl Task {
    pub fn size(&self) -> Size {
        match self {
            Task::Move { size, .. } | Task::Analyse { size, .. } | Task::Review { size, .. } => {
                *size
            }
        }
    }

    /// 1-based columns from the empty board: the position, or the game reviewed.
    pub fn moves(&self) -> &[usize] {
        match self {
            Task::Move { moves, .. } | Task::Analyse { moves, .. } => moves,
            Task::Review { line, .. } => line,
        }
    }

    /// Lines a search reports: every column's for an analysis.
    pub fn multipv(&self) -> usize {
        match self {
            Task::Move { .. } | Task::Review { .. } => 1,
            Task::Analyse { size, .. } => size.width(),
        }
    }

    /// The skill level it plays at: the analysis and the review are always the full engine's.
    pub fn level(&self) -> u64 {
        match self {
            Task::Move { level, .. } => *level,
            Task::Analyse { .. } | Task::Review { .. } => SKILL.max,
        }
    }
}

/// One search of a task: `go movetime <movetime>`, of the column `only` alone (`searchmoves`)
/// or of every column, from the position after the task's first `upto` moves (a review's
/// position) or after all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Search {
    pub movetime: u64,
    /// 1-based.
    pub only: Option<usize>,
    pub upto: Option<usize>,
}

impl Game {
    /// What the engine should do now, if anything: its move (not while the person steps
    /// through the record), the analysis asked for, or the review.
    pub fn task(&self) -> Option<Task> {
        let v = self.view();
        if v.status == Status::Playing {
            if self.engine_side.plays(v.to_move) && !self.record.can_redo() {
                return Some(Task::Move {
                    size: self.size(),
                    moves: self.moves(),
                    movetime: self.movetime,
                    level: self.level,
                });
            }
            let done = self
                .analysis
                .as_ref()
                .is_some_and(|a| a.complete && a.moves == v.moves);
            let wanted = self.analysis_always || self.analysis_wanted.as_deref() == Some(&v.moves);
            if !done && wanted && !self.engine_side.plays(v.to_move) {
                return Some(Task::Analyse {
                    size: self.size(),
                    moves: self.moves(),
                });
            }
        }
        match &self.review {
            Some(r) if self.review_wanted && !r.complete() => Some(Task::Review {
                size: self.size(),
                line: r.line().to_vec(),
            }),
            _ => None,
        }
    }

    /// Whether the game wants its engine: a task to do, or an opponent to play.
    pub fn wants_engine(&self) -> bool {
        self.task().is_some() || self.engine_side != Side::None
    }

    /// The engine starts `task` on the position `view`.
    pub fn begin(&mut self, task: &Task, view: &View) {
        match task {
            Task::Move { .. } => self.engine.state = "thinking",
            Task::Analyse { .. } => {
                self.engine.state = "analysing";
                self.analysis = Some(Analysis {
                    moves: view.moves.clone(),
                    depth: 0,
                    complete: false,
                    columns: Default::default(),
                });
            }
            Task::Review { .. } => self.engine.state = "reviewing",
        }
    }

    /// The next search of `task`, after the searches `done` and beside those `running`, with
    /// `lanes` searches at once at most: a move is one search. An analysis with one lane
    /// searches every column at once first (MultiPV, which ends as soon as the best column
    /// is proven), then each column left unproven alone; with more lanes each column alone
    /// from the start, the centre first, one a lane. A review searches each position of the
    /// game, the last first. `None` when nothing is left to start.
    pub fn next_search(
        &self,
        task: &Task,
        view: &View,
        done: &[Search],
        running: &[Search],
        lanes: usize,
    ) -> Option<Search> {
        let started = || done.iter().chain(running);
        match task {
            Task::Move { movetime, .. } => {
                (done.is_empty() && running.is_empty()).then_some(Search {
                    movetime: *movetime,
                    only: None,
                    upto: None,
                })
            }
            Task::Analyse { .. } => {
                if lanes <= 1 && done.is_empty() && running.is_empty() {
                    return Some(Search {
                        movetime: ANALYSIS_MS,
                        only: None,
                        upto: None,
                    });
                }
                let centre = (view.width + 1) as f32 / 2.0;
                let mut columns = view.legal.clone();
                columns.sort_by(|a, b| {
                    (*a as f32 - centre)
                        .abs()
                        .total_cmp(&(*b as f32 - centre).abs())
                        .then(a.cmp(b))
                });
                columns
                    .into_iter()
                    .filter(|&c| started().all(|s| s.only != Some(c)))
                    .find(|&c| !self.exact_value(view, c))
                    .map(|c| Search {
                        movetime: ANALYSIS_MS,
                        only: Some(c),
                        upto: None,
                    })
            }
            Task::Review { .. } => {
                let review = self.review.as_ref()?;
                let busy: Vec<usize> = running.iter().filter_map(|s| s.upto).collect();
                review.next(&busy).map(|k| Search {
                    movetime: REVIEW_MS,
                    only: None,
                    upto: Some(k),
                })
            }
        }
    }

    /// True if the analysis of `view` holds a proven value for the column.
    fn exact_value(&self, view: &View, column: usize) -> bool {
        self.analysis.as_ref().is_some_and(|a| {
            a.moves == view.moves && a.columns.get(&column).is_some_and(|c| c.exact.is_some())
        })
    }

    /// A report of the search `search` of `task`: each of its lines (`multipv` 1 first) is the
    /// thinking line of a move, one column's value for an analysis, or the value of a
    /// review's position.
    pub fn report(
        &mut self,
        task: &Task,
        view: &View,
        search: &Search,
        depth: u32,
        lines: &[Line],
    ) {
        match task {
            Task::Review { line, .. } => {
                if let (Some(r), Some(k)) = (self.review.as_mut(), search.upto) {
                    if r.line() == line.as_slice() {
                        r.report(k, lines);
                    }
                }
            }
            Task::Move { .. } => {
                if let Some(l) = lines.first().filter(|l| !l.pv.is_empty()) {
                    self.thinking = Some(Thinking {
                        depth,
                        value: l.value,
                        pv: l.pv.clone(),
                    });
                }
            }
            Task::Analyse { .. } => {
                let Some(a) = self.analysis.as_mut().filter(|a| a.moves == view.moves) else {
                    return;
                };
                for line in lines {
                    let Some(column) = line.column().map(|c| c + 1) else {
                        continue;
                    };
                    if !view.legal.contains(&column) {
                        continue;
                    }
                    a.depth = a.depth.max(depth);
                    a.columns.insert(
                        column,
                        ColumnReport {
                            value: line.value,
                            exact: line.exact,
                        },
                    );
                }
            }
        }
    }

    /// The search of a review's position `search` has ended: what it proved is kept.
    pub fn review_searched(&mut self, task: &Task, search: &Search) {
        if let (Task::Review { line, .. }, Some(r), Some(k)) =
            (task, self.review.as_mut(), search.upto)
        {
            if r.line() == line.as_slice() {
                r.searched(k);
            }
        }
    }

    /// The analysis of `view` ran all its searches.
    pub fn analysis_done(&mut self, view: &View) {
        if let Some(a) = self.analysis.as_mut().filter(|a| a.moves == view.moves) {
            a.complete = true;
        }
    }

    /// The engine's move `best` (1-based) for `task` after `ms` milliseconds; an illegal one
    /// hands both sides to the person.
    pub fn finish_move(&mut self, task: &Task, view: &View, best: Option<usize>, ms: u64) {
        let Task::Move { size, moves, .. } = task else {
            return;
        };
        if self.size() != *size || self.moves() != *moves {
            return;
        }
        match best {
            Some(c) if view.legal.contains(&c) && self.record.play(c - 1).is_ok() => {
                self.last_engine_ms = Some(ms);
                self.thinking = None;
                self.analysis_wanted = None;
                self.moved();
            }
            _ => {
                // asking again would get the same answer: hand the moves to the person
                self.engine_side = Side::None;
                self.engine.state = "error";
                self.engine.message = format!(
                    "the engine answered an illegal move ({}); both sides are yours now",
                    best.map_or("none".to_string(), |c| c.to_string())
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gui::view;

    /// A game of two people (no engine move in the way) after `moves`.
    fn two_people(moves: &str) -> Game {
        let mut g = Game::new(7);
        g.engine_side = Side::None;
        g.open_link(&format!("7x6/{moves}")).unwrap();
        g
    }

    #[test]
    fn stepping_back_the_engine_waits_and_playing_on_it_answers() {
        let mut g = two_people("4453");
        g.engine_side = Side::O;
        g.goto(3).unwrap();
        assert_eq!(
            g.task(),
            None,
            "the engine does not move while the person steps back"
        );
        g.goto(1).unwrap();
        g.resume().unwrap();
        assert!(
            matches!(g.task(), Some(Task::Move { .. })),
            "playing on, the engine answers"
        );
    }

    #[test]
    fn a_finished_game_is_reviewed_the_last_position_first() {
        let g = two_people("44141434");
        assert_eq!(g.view().status, Status::OWins);
        let task = g.task().expect("the review");
        assert!(matches!(&task, Task::Review { line, .. } if line.len() == 8));
        let view = view::view(task.size(), task.moves()).unwrap();
        let first = g.next_search(&task, &view, &[], &[], 1).unwrap();
        assert_eq!(first.upto, Some(7), "the position before the last move");
        let second = g.next_search(&task, &view, &[], &[first], 2).unwrap();
        assert_eq!(second.upto, Some(6));
    }

    #[test]
    fn with_several_lanes_an_analysis_searches_each_column_alone_centre_first() {
        let g = two_people("44");
        let task = Task::Analyse {
            size: g.size(),
            moves: g.moves(),
        };
        let view = g.view();
        let one = g.next_search(&task, &view, &[], &[], 1).unwrap();
        assert_eq!(one.only, None, "one lane: every column at once first");
        let mut running = Vec::new();
        while let Some(s) = g.next_search(&task, &view, &[], &running, 7) {
            running.push(s);
        }
        let order: Vec<Option<usize>> = running.iter().map(|s| s.only).collect();
        let want = [4, 3, 5, 2, 6, 1, 7].map(Some);
        assert_eq!(order, want);
    }
}
