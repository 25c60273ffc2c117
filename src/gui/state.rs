//! One game of the page as a state machine with no input or output of its own: the changes the
//! page asks for, the snapshot it draws, the searches the engine should run, and what the
//! engine's reports change. Two drivers run it: `vier gui`'s session ([`super::session`]), with
//! an engine process over the protocol, and the page without a server (`web/`), with the
//! engine compiled to WebAssembly in the browser. Both give the page the same snapshots.
//!
//! Besides the game against the engine: the game's record (every move, stepped through without
//! the engine answering until the person plays on), its review ([`super::review`]), a link
//! that names the position, and what a reload needs to restore the game ([`Saved`]).

use super::game::{self, Status, View};
use super::review::{Review, ReviewView, REVIEW_MS};
use super::words;
use crate::board::{AnyPosition, Player, Record, Size};
use crate::engine::settings::{MOVETIME, SKILL, SKILL_ELO};
use crate::engine::{game_over, Line, Score, ScoreBound, Value};
use crate::notation::ordinal;
use serde::{Deserialize, Serialize};

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

    pub fn plays(self, to_move: &str) -> bool {
        matches!((self, to_move), (Side::X, "x") | (Side::O, "o"))
    }
}

/// An analysis gives up after this long; columns not proven by then are shown as estimates.
pub const ANALYSIS_MS: u64 = 30_000;

/// The value of one column in an analysis.
#[derive(Clone, Debug, Serialize)]
pub struct ColumnValue {
    pub column: usize,
    /// Two short lines for above the column (`win` / `in 3`, `draw`, `loss` / `in 5`, `?`).
    pub short: String,
    /// The sentence for screen readers and the tooltip ("column 4 wins in 3 of your moves").
    pub long: String,
    /// The expert's numbers: the protocol's score and Pons' (`score mate 3 · Pons +18`).
    pub expert: String,
    /// `win`, `draw`, `loss` or `open` (not proven yet), and how strongly to shade it (0.3 for
    /// a result far off to 1 for one with the next disc).
    pub outcome: &'static str,
    pub shade: f32,
    /// Pons' score (as `vier solve --all`) when proven.
    pub score: Option<i32>,
    pub exact: bool,
    pub best: bool,
    #[serde(skip)]
    rank: i32,
    #[serde(skip)]
    value: Value,
    /// The value as shown: a bound reads as not proven.
    #[serde(skip)]
    shown: Value,
}

#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The position it belongs to.
    pub moves: String,
    pub depth: u32,
    /// True once the engine has finished with it.
    pub complete: bool,
    pub columns: Vec<ColumnValue>,
    /// The one line under the board: which columns win, draw and lose.
    pub summary: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Thinking {
    pub depth: u32,
    pub score: String,
    pub pv: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct EngineState {
    /// `idle` (not started), `starting`, `ready`, `thinking`, `analysing`, `error`.
    pub state: &'static str,
    pub message: String,
    pub pid: Option<u32>,
    /// Times the engine was restarted after it crashed or hung.
    pub restarts: u32,
}

/// What the engine is asked to do; compared with the state to see whether it is still wanted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Job {
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

impl Job {
    pub fn size(&self) -> Size {
        match self {
            Job::Move { size, .. } | Job::Analyse { size, .. } | Job::Review { size, .. } => *size,
        }
    }

    /// 1-based columns from the empty board: the position, or the game reviewed.
    pub fn moves(&self) -> &[usize] {
        match self {
            Job::Move { moves, .. } | Job::Analyse { moves, .. } => moves,
            Job::Review { line, .. } => line,
        }
    }

    /// Lines a search reports: every column's for an analysis.
    pub fn multipv(&self) -> usize {
        match self {
            Job::Move { .. } | Job::Review { .. } => 1,
            Job::Analyse { size, .. } => size.width(),
        }
    }

    /// The skill level it plays at: the analysis and the review are always the full engine's.
    pub fn level(&self) -> u64 {
        match self {
            Job::Move { level, .. } => *level,
            Job::Analyse { .. } | Job::Review { .. } => SKILL.max,
        }
    }
}

/// One search of a job: `go movetime <movetime>`, of the column `only` alone (`searchmoves`)
/// or of every column, from the position after the job's first `upto` moves (a review's
/// position) or after all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Search {
    pub movetime: u64,
    /// 1-based.
    pub only: Option<usize>,
    pub upto: Option<usize>,
}

/// A change the page asked for that was not made: malformed (HTTP 400) or impossible now (409).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    Bad(String),
    Conflict(String),
}

/// `move`'s body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveReq {
    pub column: usize,
}

/// `new`'s body: the board size and the engine's side, each kept when not given.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewReq {
    pub size: Option<String>,
    pub engine: Option<String>,
}

/// `settings`' body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsReq {
    pub engine: Option<String>,
    pub movetime: Option<u64>,
    pub analysis_always: Option<bool>,
    /// `Skill Level`: 1.. (`engine::settings::SKILL`), the top one the full engine.
    pub level: Option<u64>,
}

/// `position`'s body: moves, a board string or a FEN, on the board of `size` (or this one).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionReq {
    pub text: String,
    pub size: Option<String>,
}

/// `goto`'s body: the position after the first `ply` moves of the game's record.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GotoReq {
    pub ply: usize,
}

/// `link`'s body: a link's position, `7x6/4453` (the size and the moves; the moves alone are
/// on 7x6, the size alone its empty board), as the page's address holds it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkReq {
    pub link: String,
}

/// What a reload needs to restore a game (`restore`'s body, the snapshot's `saved`): the
/// board, the game's record and the position shown in it, and the settings.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Saved {
    pub size: String,
    /// Every move of the record, as a move string.
    pub line: String,
    /// The moves of `line` on the board.
    pub ply: usize,
    pub engine: String,
    pub movetime: u64,
    pub level: u64,
    pub analysis_always: bool,
}

pub struct State {
    /// The game: its board size is the start position's; columns taken back can be replayed.
    pub record: Record,
    pub engine_side: Side,
    pub movetime: u64,
    /// The engine's skill level (`Skill Level`); kept across new games.
    pub level: u64,
    /// Seeds the skill level's choices (`LevelSeed`), drawn when the session starts; each game
    /// plays with its own ([`State::game_seed`]).
    pub seed: u64,
    /// Games started in this session.
    games: u64,
    /// The review of the game, and whether it is wanted (after a game, or on demand).
    review: Option<Review>,
    review_wanted: bool,
    /// Analysis after every move, or only when asked.
    pub analysis_always: bool,
    /// The page asked for the analysis of this position (by its move string).
    analysis_wanted: Option<String>,
    analysis: Option<Analysis>,
    pub thinking: Option<Thinking>,
    pub engine: EngineState,
    last_engine_ms: Option<u64>,
    pub version: u64,
}

impl State {
    /// A new game on 7x6, the engine playing second at full strength; `seed` seeds its skill
    /// level's choices.
    pub fn new(seed: u64) -> State {
        State {
            record: Record::new(AnyPosition::empty(Size::default())),
            engine_side: Side::O,
            movetime: 1000,
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

    /// The page's link of the position shown: `7x6/4453`, or `7x6` for the empty board.
    pub fn link(&self) -> String {
        let v = self.view();
        if v.moves.is_empty() {
            self.size().to_string()
        } else {
            format!("{}/{}", self.size(), v.moves)
        }
    }

    /// What a reload needs to restore this game.
    pub fn saved(&self) -> Saved {
        let side = match self.engine_side {
            Side::X => "x",
            Side::O => "o",
            Side::None => "none",
        };
        Saved {
            size: self.size().to_string(),
            line: crate::notation::move_string(self.record.line(), self.size().width()),
            ply: self.record.moves().len(),
            engine: side.into(),
            movetime: self.movetime,
            level: self.level,
            analysis_always: self.analysis_always,
        }
    }

    /// The review follows the game's record: a position both records share keeps its value.
    fn follow_review(&mut self) {
        let (size, line) = (self.size(), self.line());
        if let Some(r) = self.review.as_ref().filter(|r| r.line() != line) {
            self.review = Some(r.follow(size, &line));
        }
    }

    /// After a move: a game that has ended is reviewed.
    fn moved(&mut self) {
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

    pub fn view(&self) -> View {
        // the moves are only ever changed to legal ones, so this cannot fail
        game::view(self.size(), &self.moves())
            .unwrap_or_else(|_| game::view(self.size(), &[]).unwrap())
    }

    /// Whether it is the person's turn at `p` (always, with two people).
    fn persons_turn(&self, p: &AnyPosition) -> bool {
        let to_move = if p.side_to_move() == Player::First {
            "x"
        } else {
            "o"
        };
        !self.engine_side.plays(to_move)
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
    /// ahead of it until the person plays on ([`State::resume`], or a move of their own).
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

    /// A link's position as a new game on its board (`7x6/4453`, see [`LinkReq`]); the person
    /// moves next: an engine that would have been to move takes the other side.
    pub fn open_link(&mut self, link: &str) -> Result<(), Refused> {
        let t = link.trim().trim_start_matches('#').trim_matches('/');
        let (size, moves) = match t.split_once('/') {
            Some((s, m)) => (s, m),
            None if t.contains('x') => (t, ""),
            None => ("", t),
        };
        let size = match size {
            "" => Size::default(),
            s => s
                .parse::<Size>()
                .map_err(|e| Refused::Bad(format!("a link names a size: {e}")))?,
        };
        let moves = game::parse_position(size, moves).map_err(Refused::Bad)?;
        self.new_game(size, moves);
        let to_move = self.view().to_move;
        if self.engine_side.plays(to_move) {
            self.engine_side = if to_move == "x" { Side::O } else { Side::X };
        }
        Ok(())
    }

    /// A game a reload saved ([`State::saved`]), checked whole before anything changes.
    pub fn restore(&mut self, saved: Saved) -> Result<(), Refused> {
        let size = saved
            .size
            .parse::<Size>()
            .map_err(|e| Refused::Bad(e.to_string()))?;
        let line = game::parse_position(size, &saved.line).map_err(Refused::Bad)?;
        if saved.ply > line.len() {
            return Err(Refused::Bad(format!(
                "the saved game has {} moves, not {}",
                line.len(),
                saved.ply
            )));
        }
        let before = (
            self.engine_side,
            self.movetime,
            self.level,
            self.analysis_always,
        );
        self.settings(SettingsReq {
            engine: Some(saved.engine),
            movetime: Some(saved.movetime),
            analysis_always: Some(saved.analysis_always),
            level: Some(saved.level),
        })?;
        self.new_game(size, line);
        if let Err(e) = self.goto(saved.ply) {
            (
                self.engine_side,
                self.movetime,
                self.level,
                self.analysis_always,
            ) = before;
            return Err(Refused::Bad(e));
        }
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

    /// `new`: a new game, on another board or with the engine on another side if asked.
    pub fn new_request(&mut self, req: NewReq) -> Result<(), Refused> {
        let size = req
            .size
            .map(|s| s.parse::<Size>().map_err(|e| Refused::Bad(e.to_string())))
            .transpose()?;
        let side = engine_side(req.engine.as_deref())?;
        if let Some(side) = side {
            self.engine_side = side;
        }
        let size = size.unwrap_or(self.size());
        self.new_game(size, Vec::new());
        Ok(())
    }

    /// `settings`: each field given is checked, then all are applied, or none.
    pub fn settings(&mut self, req: SettingsReq) -> Result<(), Refused> {
        let side = engine_side(req.engine.as_deref())?;
        if let Some(t) = req.movetime {
            MOVETIME
                .check_as("the thinking time (ms)", t.into())
                .map_err(Refused::Bad)?;
        }
        if let Some(l) = req.level {
            SKILL
                .check_as("the level", l.into())
                .map_err(Refused::Bad)?;
        }
        if let Some(s) = side {
            self.engine_side = s;
        }
        if let Some(t) = req.movetime {
            self.movetime = t;
        }
        if let Some(l) = req.level {
            self.level = l;
        }
        if let Some(a) = req.analysis_always {
            self.analysis_always = a;
        }
        Ok(())
    }

    /// `position`: a new game from the pasted position.
    pub fn position(&mut self, req: PositionReq) -> Result<(), Refused> {
        let size = match &req.size {
            Some(t) => t.parse::<Size>().map_err(|e| Refused::Bad(e.to_string()))?,
            None => self.size(),
        };
        let moves = game::parse_position(size, &req.text).map_err(Refused::Bad)?;
        self.new_game(size, moves);
        Ok(())
    }

    /// The change the page asked for by its name (`move`, `undo`, `redo`, `analyse`, `new`,
    /// `settings`, `position`) and JSON body, as the page without a server sends it; the
    /// server's routes call the methods above with the bodies axum has read.
    pub fn request(&mut self, what: &str, body: &str) -> Result<(), Refused> {
        fn read<'a, T: Deserialize<'a>>(body: &'a str) -> Result<T, Refused> {
            serde_json::from_str(if body.trim().is_empty() { "{}" } else { body })
                .map_err(|e| Refused::Bad(format!("bad request body: {e}")))
        }
        let conflict = |r: Result<(), String>| r.map_err(Refused::Conflict);
        match what {
            "move" => conflict(self.play(read::<MoveReq>(body)?.column)),
            "undo" => conflict(self.undo()),
            "redo" => conflict(self.redo()),
            "analyse" => conflict(self.want_analysis()),
            "new" => self.new_request(read(body)?),
            "settings" => self.settings(read(body)?),
            "position" => self.position(read(body)?),
            "goto" => conflict(self.goto(read::<GotoReq>(body)?.ply)),
            "resume" => conflict(self.resume()),
            "review" => conflict(self.want_review()),
            "link" => self.open_link(&read::<LinkReq>(body)?.link),
            "restore" => self.restore(read(body)?),
            other => Err(Refused::Bad(format!("no change called '{other}'"))),
        }
    }

    /// What the engine should do now, if anything: its move (not while the person steps
    /// through the record), the analysis asked for, or the review.
    pub fn job(&self) -> Option<Job> {
        let v = self.view();
        if v.status == Status::Playing {
            if self.engine_side.plays(v.to_move) && !self.record.can_redo() {
                return Some(Job::Move {
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
                return Some(Job::Analyse {
                    size: self.size(),
                    moves: self.moves(),
                });
            }
        }
        match &self.review {
            Some(r) if self.review_wanted && !r.complete() => Some(Job::Review {
                size: self.size(),
                line: r.line().to_vec(),
            }),
            _ => None,
        }
    }

    /// The engine starts `job` on the position `view`.
    pub fn begin(&mut self, job: &Job, view: &View) {
        match job {
            Job::Move { .. } => self.engine.state = "thinking",
            Job::Analyse { .. } => {
                self.engine.state = "analysing";
                self.analysis = Some(Analysis {
                    moves: view.moves.clone(),
                    depth: 0,
                    complete: false,
                    columns: Vec::new(),
                    summary: String::new(),
                });
            }
            Job::Review { .. } => self.engine.state = "reviewing",
        }
    }

    /// The next search of `job`, after the searches `done` and beside those `running`, with
    /// `lanes` searches at once at most: a move is one search. An analysis with one lane
    /// searches every column at once first (MultiPV, which ends as soon as the best column
    /// is proven), then each column left unproven alone; with more lanes each column alone
    /// from the start, the centre first, one a lane. A review searches each position of the
    /// game, the last first. `None` when nothing is left to start.
    pub fn next_search(
        &self,
        job: &Job,
        view: &View,
        done: &[Search],
        running: &[Search],
        lanes: usize,
    ) -> Option<Search> {
        let started = || done.iter().chain(running);
        match job {
            Job::Move { movetime, .. } => {
                (done.is_empty() && running.is_empty()).then_some(Search {
                    movetime: *movetime,
                    only: None,
                    upto: None,
                })
            }
            Job::Analyse { .. } => {
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
            Job::Review { .. } => {
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

    /// True if the analysis shown holds a proven value for the column.
    fn exact_value(&self, view: &View, column: usize) -> bool {
        self.analysis.as_ref().is_some_and(|a| {
            a.moves == view.moves && a.columns.iter().any(|c| c.column == column && c.exact)
        })
    }

    /// A report of the search `search` of `job`: each of its lines (`multipv` 1 first) is the
    /// thinking line of a move, one column's value for an analysis, or the value of a
    /// review's position.
    pub fn report(&mut self, job: &Job, view: &View, search: &Search, depth: u32, lines: &[Line]) {
        match job {
            Job::Review { line, .. } => {
                if let (Some(r), Some(k)) = (self.review.as_mut(), search.upto) {
                    if r.line() == line.as_slice() {
                        r.report(k, lines);
                    }
                }
            }
            Job::Move { .. } => {
                if let Some(l) = lines.first().filter(|l| !l.pv.is_empty()) {
                    self.thinking = Some(Thinking {
                        depth,
                        score: value_words(l.value),
                        pv: l
                            .pv
                            .iter()
                            .map(|c| (c + 1).to_string())
                            .collect::<Vec<_>>()
                            .join(" "),
                    });
                }
            }
            Job::Analyse { .. } => {
                let size = self.size();
                let Some(a) = self.analysis.as_mut().filter(|a| a.moves == view.moves) else {
                    return;
                };
                for line in lines {
                    let Some(cv) = column_value(line, size) else {
                        continue;
                    };
                    if !view.legal.contains(&cv.column) {
                        continue;
                    }
                    a.depth = a.depth.max(depth);
                    a.columns.retain(|c| c.column != cv.column);
                    a.columns.push(cv);
                }
                a.columns.sort_by_key(|c| c.column);
                let top = a.columns.iter().map(|c| c.rank).max();
                for c in &mut a.columns {
                    c.best = Some(c.rank) == top;
                    // a losing best column holds out longest
                    c.long = format!(
                        "column {} {}",
                        words::column(c.column, view.width),
                        words::sentence(c.shown, c.best)
                    );
                }
                a.summary = summary(size, view, a);
            }
        }
    }

    /// The search of a review's position `search` has ended: what it proved is kept.
    pub fn review_searched(&mut self, job: &Job, search: &Search) {
        if let (Job::Review { line, .. }, Some(r), Some(k)) =
            (job, self.review.as_mut(), search.upto)
        {
            if r.line() == line.as_slice() {
                r.searched(k);
            }
        }
    }

    /// The analysis of `view` ran all its searches.
    pub fn analysis_done(&mut self, view: &View) {
        let size = self.size();
        if let Some(a) = self.analysis.as_mut().filter(|a| a.moves == view.moves) {
            a.complete = true;
            a.summary = summary(size, view, a);
        }
    }

    /// The engine's move `best` (1-based) for `job` after `ms` milliseconds; an illegal one
    /// hands both sides to the person.
    pub fn finish_move(&mut self, job: &Job, view: &View, best: Option<usize>, ms: u64) {
        let Job::Move { size, moves, .. } = job else {
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

    /// The snapshot the page draws, as JSON, for the session `id`.
    pub fn snapshot(&self, id: &str) -> String {
        serde_json::to_string(&snapshot(id, self)).unwrap_or_default()
    }
}

/// The `engine` field of a request: which side the engine plays, if given.
fn engine_side(field: Option<&str>) -> Result<Option<Side>, Refused> {
    field.map(Side::parse).transpose().map_err(Refused::Bad)
}

#[derive(Serialize)]
struct Snapshot<'a> {
    id: &'a str,
    version: u64,
    size: String,
    #[serde(flatten)]
    view: View,
    last_move: Option<(usize, usize)>,
    engine_side: Side,
    movetime: u64,
    /// The skill level, and every skill level with its Elo (the full engine last).
    level: u64,
    levels: Vec<(u64, u32)>,
    analysis_always: bool,
    analysis: Option<&'a Analysis>,
    /// The game's record as a move string (the moves ahead of the position shown included),
    /// and how many of its moves are on the board.
    line: String,
    ply: usize,
    review: Option<ReviewView>,
    /// The position's link (`7x6/4453`), and what a reload needs to restore the game.
    link: String,
    saved: Saved,
    thinking: Option<&'a Thinking>,
    engine: &'a EngineState,
    last_engine_ms: Option<u64>,
    can_undo: bool,
    can_redo: bool,
    sizes: Vec<String>,
    /// Those of `sizes` whose result nobody has published.
    unsolved: Vec<String>,
}

fn snapshot<'a>(id: &'a str, st: &'a State) -> Snapshot<'a> {
    let view = st.view();
    let moves = st.moves();
    let last_move = moves.last().map(|&c| {
        let h = moves.iter().filter(|&&m| m == c).count();
        (c, h)
    });
    // an analysis of another position is not shown
    let analysis = st.analysis.as_ref().filter(|a| a.moves == view.moves);
    Snapshot {
        id,
        version: st.version,
        size: st.size().to_string(),
        last_move,
        engine_side: st.engine_side,
        movetime: st.movetime,
        level: st.level,
        levels: (1..).zip(SKILL_ELO).collect(),
        analysis_always: st.analysis_always,
        analysis,
        line: crate::notation::move_string(st.record.line(), st.size().width()),
        ply: st.record.moves().len(),
        review: st.review.as_ref().map(Review::view),
        link: st.link(),
        saved: st.saved(),
        thinking: st.thinking.as_ref(),
        engine: &st.engine,
        last_engine_ms: st.last_engine_ms,
        // the engine's opening move alone is not taken back (undo goes to the person's turn)
        can_undo: st
            .record
            .clone()
            .undo_until(|p| st.persons_turn(p))
            .is_some(),
        can_redo: st.record.can_redo(),
        sizes: Size::all().map(|s| s.to_string()).collect(),
        unsolved: Size::all()
            .filter(|s| !s.published())
            .map(|s| s.to_string())
            .collect(),
        view,
    }
}

/// A value in words, from the view of the side to move.
fn value_words(v: Value) -> String {
    let t = match v.score {
        Score::Win(n) => format!("wins with its {} disc from now", ordinal(n)),
        Score::Loss(n) => format!("loses: the opponent connects with its {} disc", ordinal(n)),
        Score::Draw => "draw (proven)".into(),
        Score::Cp(x) => format!("{:+.2} (estimate)", x as f64 / 100.0),
    };
    match v.bound {
        ScoreBound::Exact => t,
        ScoreBound::Lower => t + ", at least",
        ScoreBound::Upper => t + ", at most",
    }
}

/// The summary line of the analysis `a` of `view`.
fn summary(size: Size, view: &View, a: &Analysis) -> String {
    let values: Vec<(usize, Value, bool)> = a
        .columns
        .iter()
        .filter(|c| c.exact)
        .map(|c| (c.column, c.value, c.best))
        .collect();
    words::summary(
        size,
        view.moves.is_empty(),
        &view.legal,
        &values,
        a.complete,
    )
}

/// The value of playing the line's first move (1-based in the result) for the side to move,
/// on a board `width` columns wide.
fn column_value(line: &Line, size: Size) -> Option<ColumnValue> {
    let column = line.column()? + 1;
    let exact = line.exact.is_some();
    let v = line.value;
    let rank = match v.score {
        Score::Win(n) => 10_000 - n as i32,
        Score::Loss(n) => -10_000 + n as i32,
        Score::Draw => 0,
        Score::Cp(x) => x.clamp(-9_000, 9_000),
    };
    // a bound or an estimate reads as not proven, whatever its score
    let shown = if exact {
        v
    } else {
        Value {
            score: match v.score {
                Score::Draw => Score::Cp(0),
                s => s,
            },
            bound: ScoreBound::Lower,
        }
    };
    Some(ColumnValue {
        column,
        short: words::short(shown),
        long: String::new(),
        expert: words::expert(v, line.exact),
        outcome: words::outcome(shown),
        shade: words::shade(shown, size),
        score: line.exact,
        exact,
        best: false,
        rank,
        value: v,
        shown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game of two people (no engine move in the way) after `moves`.
    fn two_people(moves: &str) -> State {
        let mut st = State::new(7);
        st.request("settings", r#"{"engine": "none"}"#).unwrap();
        st.request("link", &format!(r#"{{"link": "7x6/{moves}"}}"#))
            .unwrap();
        st
    }

    #[test]
    fn stepping_back_keeps_the_moves_ahead_and_the_engine_waits() {
        let mut st = two_people("4453");
        st.engine_side = Side::O;
        st.goto(3).unwrap();
        assert_eq!(st.view().moves, "445");
        assert_eq!(st.saved().line, "4453");
        assert_eq!(
            st.job(),
            None,
            "the engine does not move while the person steps back"
        );
        st.goto(4).unwrap();
        assert_eq!(st.view().moves, "4453");
        assert!(st.goto(5).is_err());
        st.goto(1).unwrap();
        st.resume().unwrap();
        assert_eq!(st.saved().line, "4");
        assert!(
            matches!(st.job(), Some(Job::Move { .. })),
            "playing on, the engine answers"
        );
    }

    #[test]
    fn a_link_opens_its_position_with_the_person_to_move() {
        let mut st = State::new(7);
        assert_eq!(st.engine_side, Side::O);
        st.open_link("7x6/445").unwrap();
        assert_eq!(st.view().moves, "445");
        assert_eq!(st.engine_side, Side::X, "o is to move: the person plays it");
        assert_eq!(st.link(), "7x6/445");
        st.open_link("8x8").unwrap();
        assert_eq!(
            (st.size().to_string(), st.view().moves),
            ("8x8".into(), String::new())
        );
        assert_eq!(st.link(), "8x8");
        st.open_link("4453").unwrap();
        assert_eq!(st.link(), "7x6/4453");
        for bad in ["9x9/1", "7x6/8", "7x6/4444444"] {
            assert!(st.open_link(bad).is_err(), "{bad}");
        }
        assert_eq!(st.link(), "7x6/4453", "a bad link changes nothing");
    }

    #[test]
    fn a_saved_game_is_restored_with_its_settings_and_place_in_the_record() {
        let mut st = two_people("44531");
        st.request("settings", r#"{"movetime": 300, "level": 3}"#)
            .unwrap();
        st.goto(2).unwrap();
        let saved = serde_json::to_string(&st.saved()).unwrap();
        let mut again = State::new(8);
        again.request("restore", &saved).unwrap();
        assert_eq!(again.saved(), st.saved());
        assert_eq!(again.view().moves, "44");
        assert_eq!((again.movetime, again.level), (300, 3));
        let bad = saved.replace("\"ply\":2", "\"ply\":9");
        assert!(again.request("restore", &bad).is_err());
        assert_eq!(
            again.saved(),
            st.saved(),
            "a bad saved game changes nothing"
        );
    }

    #[test]
    fn every_game_has_its_own_level_seed() {
        let mut st = State::new(41);
        let first = st.game_seed();
        st.request("new", "{}").unwrap();
        let second = st.game_seed();
        st.request("new", "{}").unwrap();
        assert!(first != second && second != st.game_seed());
    }

    #[test]
    fn a_finished_game_is_reviewed_the_last_position_first() {
        let st = two_people("44141434");
        assert_eq!(st.view().status, Status::OWins);
        let job = st.job().expect("the review");
        assert!(matches!(&job, Job::Review { line, .. } if line.len() == 8));
        let view = game::view(job.size(), job.moves()).unwrap();
        let first = st.next_search(&job, &view, &[], &[], 1).unwrap();
        assert_eq!(first.upto, Some(7), "the position before the last move");
        let second = st.next_search(&job, &view, &[], &[first], 2).unwrap();
        assert_eq!(second.upto, Some(6));
    }

    #[test]
    fn with_several_lanes_an_analysis_searches_each_column_alone_centre_first() {
        let st = two_people("44");
        let job = Job::Analyse {
            size: st.size(),
            moves: st.moves(),
        };
        let view = st.view();
        let one = st.next_search(&job, &view, &[], &[], 1).unwrap();
        assert_eq!(one.only, None, "one lane: every column at once first");
        let mut running = Vec::new();
        while let Some(s) = st.next_search(&job, &view, &[], &running, 7) {
            running.push(s);
        }
        let order: Vec<Option<usize>> = running.iter().map(|s| s.only).collect();
        let want = [4, 3, 5, 2, 6, 1, 7].map(Some);
        assert_eq!(order, want);
    }
}
