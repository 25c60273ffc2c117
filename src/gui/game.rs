//! One game of the page as a state machine with no input or output of its own: the record,
//! who plays which side and how, and the moves the person makes in it. Two drivers run it:
//! `vier gui`'s tabs ([`super::tab`]), with an engine process over the protocol, and the page
//! without a server (`web/`), with the engine compiled to WebAssembly in the browser.
//!
//! Beside this file, by job: [`super::change`] the changes the page asks for and their one
//! dispatch, [`super::plan`] the engine's next search and what its answers change,
//! [`super::saved`] the link and what a reload restores, [`super::snapshot`] what the page
//! draws, in words.

use super::review::Review;
use super::view::{self, Status, View};
use crate::board::{AnyPosition, Player, Record, Size};
use crate::engine::settings::{MOVETIME, SKILL};
use crate::engine::{game_over, Value};
use serde::Serialize;
use std::collections::BTreeMap;

/// Who the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    X,
    O,
    None,
}

impl Side {
    pub fn parse(s: &str) -> Result<Side, String> {
        match s {
            "x" => Ok(Side::X),
            "o" => Ok(Side::O),
            "none" => Ok(Side::None),
            _ => Err(format!("bad engine side '{s}': expected x, o or none")),
        }
    }

    /// As [`Side::parse`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Side::X => "x",
            Side::O => "o",
            Side::None => "none",
        }
    }

    pub fn plays(self, to_move: &str) -> bool {
        matches!((self, to_move), (Side::X, "x") | (Side::O, "o"))
    }
}

/// What the engine has reported of one column in an analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnReport {
    /// The value of playing it for the side to move, with its bound.
    pub value: Value,
    /// Pons' exact score, only when the value is proven.
    pub exact: Option<i32>,
}

/// The analysis of one position: each legal column's latest report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The position it belongs to.
    pub moves: String,
    pub depth: u32,
    /// True once the engine has finished with it.
    pub complete: bool,
    /// By 1-based column.
    pub columns: BTreeMap<usize, ColumnReport>,
}

/// The engine's line while it thinks about its move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thinking {
    pub depth: u32,
    pub value: Value,
    /// 0-based columns.
    pub pv: Vec<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct EngineState {
    /// `idle` (not started), `starting`, `ready`, `thinking`, `analysing`, `reviewing`, `error`.
    pub state: &'static str,
    pub message: String,
    pub pid: Option<u32>,
    /// Times the engine was restarted after it crashed or hung.
    pub restarts: u32,
}

pub struct Game {
    /// The game: its board size is the start position's; columns taken back can be replayed.
    pub record: Record,
    pub engine_side: Side,
    pub movetime: u64,
    /// The engine's skill level (`Skill Level`); kept across new games.
    pub level: u64,
    /// Seeds the skill level's choices (`LevelSeed`), drawn when the session starts; each game
    /// plays with its own ([`Game::game_seed`]).
    pub seed: u64,
    /// Games started in this session.
    games: u64,
    /// The review of the game, and whether it is wanted (after a game, or on demand).
    pub(super) review: Option<Review>,
    pub(super) review_wanted: bool,
    /// Analysis after every move, or only when asked.
    pub analysis_always: bool,
    /// The page asked for the analysis of this position (by its move string).
    pub(super) analysis_wanted: Option<String>,
    pub(super) analysis: Option<Analysis>,
    pub thinking: Option<Thinking>,
    pub engine: EngineState,
    pub(super) last_engine_ms: Option<u64>,
    pub version: u64,
}

impl Game {
    /// A new game on 7x6, the engine playing second at full strength; `seed` seeds its skill
    /// level's choices.
    pub fn new(seed: u64) -> Game {
        Game {
            record: Record::new(AnyPosition::empty(Size::default())),
            engine_side: Side::O,
            movetime: MOVETIME.default,
            level: SKILL.max,
            seed,
            games: 0,
            review: None,
            review_wanted: false,
            analysis_always: false,
            analysis_wanted: None,
            analysis: None,
            thinking: None,
            engine: EngineState {
                // started only when there is something to search
                state: "idle",
                message: String::new(),
                pid: None,
                restarts: 0,
            },
            last_engine_ms: None,
            version: 0,
        }
    }

    /// The board size.
    pub fn size(&self) -> Size {
        self.record.start().size()
    }

    /// The moves from the empty board, 1-based columns.
    pub fn moves(&self) -> Vec<usize> {
        self.record.moves().iter().map(|c| c + 1).collect()
    }

    /// The game's record: every move, those taken back included, 1-based columns.
    pub fn line(&self) -> Vec<usize> {
        self.record.line().iter().map(|c| c + 1).collect()
    }

    /// The seed of this game's skill level (`LevelSeed`): another for every game, so that a
    /// weak level does not play the same game twice. The level mixes it with each position
    /// (`levels::move_seed`), so seeds one apart give unrelated games.
    pub fn game_seed(&self) -> u64 {
        self.seed.wrapping_add(self.games)
    }

    pub fn view(&self) -> View {
        // the moves are only ever changed to legal ones, so this cannot fail
        view::view(self.size(), &self.moves())
            .unwrap_or_else(|_| view::view(self.size(), &[]).unwrap())
    }

    /// Whether it is the person's turn at `p` (always, with two people).
    pub(super) fn persons_turn(&self, p: &AnyPosition) -> bool {
        let to_move = if p.side_to_move() == Player::First {
            "x"
        } else {
            "o"
        };
        !self.engine_side.plays(to_move)
    }

    /// The review follows the game's record: a position both records share keeps its value.
    pub(super) fn follow_review(&mut self) {
        let (size, line) = (self.size(), self.line());
        if let Some(r) = self.review.as_ref().filter(|r| r.line() != line) {
            self.review = Some(r.follow(size, &line));
        }
    }

    /// After a move: a game that has ended is reviewed.
    pub(super) fn moved(&mut self) {
        self.follow_review();
        if self.view().status != Status::Playing {
            self.want_review_of_line();
        }
    }

    fn want_review_of_line(&mut self) {
        if self.review.is_none() {
            self.review = Some(Review::new(self.size(), self.line()));
        }
        self.review_wanted = true;
    }

    /// After a change the person made: a note about an engine failure that is over has been
    /// seen (one still going on stays).
    fn position_changed(&mut self) {
        self.thinking = None;
        self.analysis_wanted = None;
        if self.engine.state != "error" {
            self.engine.message.clear();
        }
    }

    /// The person's move.
    pub fn play(&mut self, column: usize) -> Result<(), String> {
        let v = self.view();
        if v.status != Status::Playing {
            return Err(game_over("no move can follow").to_string());
        }
        if self.engine_side.plays(v.to_move) {
            return Err("it is the engine's turn".into());
        }
        if column == 0 || column > v.width {
            return Err(format!("column {column} is not on a {} board", self.size()));
        }
        if !v.legal.contains(&column) {
            return Err(format!("column {column} is full"));
        }
        self.record.play(column - 1).map_err(|e| e.to_string())?;
        self.position_changed();
        self.moved();
        Ok(())
    }

    /// Shows the position after the first `ply` moves of the game's record, keeping the moves
    /// after it to step forward again; the engine does not answer in a position with moves
    /// ahead of it until the person plays on ([`Game::resume`], or a move of their own).
    pub fn goto(&mut self, ply: usize) -> Result<(), String> {
        let line = self.record.line();
        if ply > line.len() {
            return Err(format!("the game has {} moves, not {ply}", line.len()));
        }
        let mut r = Record::from_moves(self.record.start(), &line).map_err(|e| e.to_string())?;
        if ply < line.len() {
            r.undo_until(|p| p.discs() as usize == ply);
        }
        self.record = r;
        self.position_changed();
        Ok(())
    }

    /// Plays on from the position shown: the moves after it are forgotten, and the engine
    /// answers if it is its turn.
    pub fn resume(&mut self) -> Result<(), String> {
        if !self.record.can_redo() {
            return Err("there are no moves ahead to leave".into());
        }
        self.record = Record::from_moves(self.record.start(), self.record.moves())
            .map_err(|e| e.to_string())?;
        self.position_changed();
        self.follow_review();
        Ok(())
    }

    /// The review of the game's record: every position proven, the moves marked.
    pub fn want_review(&mut self) -> Result<(), String> {
        if self.record.line().is_empty() {
            return Err("there is no move to review yet".into());
        }
        self.want_review_of_line();
        Ok(())
    }

    /// Takes back moves up to the person's previous turn (one move with two people); the
    /// engine's first move alone is not taken back.
    pub fn undo(&mut self) -> Result<(), String> {
        let mut r = self.record.clone();
        r.undo_until(|p| self.persons_turn(p))
            .ok_or("nothing to undo")?;
        self.record = r;
        self.position_changed();
        Ok(())
    }

    /// Replays taken-back moves up to the person's next turn.
    pub fn redo(&mut self) -> Result<(), String> {
        let mut r = self.record.clone();
        r.redo_until(|p| self.persons_turn(p))
            .ok_or("nothing to redo")?;
        self.record = r;
        self.position_changed();
        Ok(())
    }

    /// A new game on `size` after `moves` (1-based columns the caller checked are legal), with
    /// a new seed for the skill level; a game that is already over is reviewed.
    pub fn new_game(&mut self, size: Size, moves: Vec<usize>) {
        let zero: Vec<usize> = moves.iter().map(|c| c - 1).collect();
        let empty = AnyPosition::empty(size);
        self.record = Record::from_moves(empty, &zero).unwrap_or_else(|_| Record::new(empty));
        self.analysis = None;
        self.last_engine_ms = None;
        self.review = None;
        self.review_wanted = false;
        self.games += 1;
        self.position_changed();
        self.moved();
    }

    pub fn want_analysis(&mut self) -> Result<(), String> {
        let v = self.view();
        if v.status != Status::Playing {
            return Err(game_over("there is nothing to analyse").to_string());
        }
        self.analysis_wanted = Some(v.moves);
        Ok(())
    }

    /// The settings: each one given is checked, then all are applied, or none.
    pub fn set(
        &mut self,
        side: Option<Side>,
        movetime: Option<u64>,
        level: Option<u64>,
        analysis_always: Option<bool>,
    ) -> Result<(), String> {
        if let Some(t) = movetime {
            MOVETIME.check_as("the thinking time (ms)", t.into())?;
        }
        if let Some(l) = level {
            SKILL.check_as("the level", l.into())?;
        }
        if let Some(s) = side {
            self.engine_side = s;
        }
        if let Some(t) = movetime {
            self.movetime = t;
        }
        if let Some(l) = level {
            self.level = l;
        }
        if let Some(a) = analysis_always {
            self.analysis_always = a;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game of two people after `moves` on 7x6.
    fn two_people(moves: &str) -> Game {
        let mut g = Game::new(7);
        g.engine_side = Side::None;
        let moves = view::parse_position(Size::default(), moves).unwrap();
        g.new_game(Size::default(), moves);
        g
    }

    #[test]
    fn stepping_back_keeps_the_moves_ahead() {
        let mut g = two_people("4453");
        g.goto(3).unwrap();
        assert_eq!(g.view().moves, "445");
        assert_eq!(g.line(), [4, 4, 5, 3]);
        g.goto(4).unwrap();
        assert_eq!(g.view().moves, "4453");
        assert!(g.goto(5).is_err());
        g.goto(1).unwrap();
        g.resume().unwrap();
        assert_eq!(g.line(), [4]);
    }

    #[test]
    fn every_game_has_its_own_level_seed() {
        let mut g = Game::new(41);
        let first = g.game_seed();
        g.new_game(Size::default(), Vec::new());
        let second = g.game_seed();
        g.new_game(Size::default(), Vec::new());
        assert!(first != second && second != g.game_seed());
    }

    #[test]
    fn settings_are_checked_whole_before_any_is_applied() {
        let mut g = Game::new(1);
        assert!(g.set(Some(Side::X), Some(0), None, None).is_err());
        assert_eq!((g.engine_side, g.movetime), (Side::O, MOVETIME.default));
        g.set(Some(Side::X), Some(300), Some(3), Some(true))
            .unwrap();
        assert_eq!((g.engine_side, g.movetime, g.level), (Side::X, 300, 3));
    }
}
