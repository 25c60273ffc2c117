//! One game of the page as a state machine with no input or output of its own: the changes the
//! page asks for, the snapshot it draws, the searches the engine should run, and what the
//! engine's reports change. Two drivers run it: `vier gui`'s session ([`super::session`]), with
//! an engine process over the protocol, and the page without a server (`web/`), with the
//! engine compiled to WebAssembly in the browser. Both give the page the same snapshots.

use super::game::{self, Status, View};
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
    /// Short text for above the column (`win 3`, `draw`, `loss 5`, `+0.4`).
    pub short: String,
    /// The sentence for screen readers and the tooltip.
    pub long: String,
    /// Pons' score (as `vier solve --all`) when proven.
    pub score: Option<i32>,
    pub exact: bool,
    pub best: bool,
    #[serde(skip)]
    rank: i32,
}

#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The position it belongs to.
    pub moves: String,
    pub depth: u32,
    /// True once the engine has finished with it.
    pub complete: bool,
    pub columns: Vec<ColumnValue>,
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
}

impl Job {
    pub fn size(&self) -> Size {
        match self {
            Job::Move { size, .. } | Job::Analyse { size, .. } => *size,
        }
    }

    /// 1-based columns from the empty board.
    pub fn moves(&self) -> &[usize] {
        match self {
            Job::Move { moves, .. } | Job::Analyse { moves, .. } => moves,
        }
    }

    /// Lines a search reports: every column's for an analysis.
    pub fn multipv(&self) -> usize {
        match self {
            Job::Move { .. } => 1,
            Job::Analyse { size, .. } => size.width(),
        }
    }

    /// The skill level it plays at: the analysis is always the full engine's.
    pub fn level(&self) -> u64 {
        match self {
            Job::Move { level, .. } => *level,
            Job::Analyse { .. } => SKILL.max,
        }
    }
}

/// One search of a job: `go movetime <movetime>`, of the column `only` alone (`searchmoves`)
/// or of every column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Search {
    pub movetime: u64,
    /// 1-based.
    pub only: Option<usize>,
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

pub struct State {
    /// The game: its board size is the start position's; columns taken back can be replayed.
    pub record: Record,
    pub engine_side: Side,
    pub movetime: u64,
    /// The engine's skill level (`Skill Level`); kept across new games.
    pub level: u64,
    /// Seeds the skill level's choices (`LevelSeed`), drawn when the session starts.
    pub seed: u64,
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

    /// A new game on `size` after `moves` (1-based columns the caller checked are legal).
    pub fn new_game(&mut self, size: Size, moves: Vec<usize>) {
        let zero: Vec<usize> = moves.iter().map(|c| c - 1).collect();
        let empty = AnyPosition::empty(size);
        self.record = Record::from_moves(empty, &zero).unwrap_or_else(|_| Record::new(empty));
        self.analysis = None;
        self.last_engine_ms = None;
        self.position_changed();
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
            other => Err(Refused::Bad(format!("no change called '{other}'"))),
        }
    }

    /// What the engine should do now, if anything: its move, or the analysis asked for.
    pub fn job(&self) -> Option<Job> {
        let v = self.view();
        if v.status != Status::Playing {
            return None;
        }
        if self.engine_side.plays(v.to_move) {
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
        if !done && (self.analysis_always || self.analysis_wanted.as_deref() == Some(&v.moves)) {
            return Some(Job::Analyse {
                size: self.size(),
                moves: self.moves(),
            });
        }
        None
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
                });
            }
        }
    }

    /// The next search of `job`, after the searches `done`: a move is one search; an analysis
    /// searches every column at once (MultiPV, which ends as soon as the best column is
    /// proven), then each column left unproven alone. `None` when the job is done.
    pub fn next_search(&self, job: &Job, view: &View, done: &[Search]) -> Option<Search> {
        match job {
            Job::Move { movetime, .. } => done.is_empty().then_some(Search {
                movetime: *movetime,
                only: None,
            }),
            Job::Analyse { .. } => {
                if done.is_empty() {
                    return Some(Search {
                        movetime: ANALYSIS_MS,
                        only: None,
                    });
                }
                let last = done.last().and_then(|s| s.only);
                view.legal
                    .iter()
                    .copied()
                    .filter(|&c| last.is_none_or(|l| c > l))
                    .find(|&c| !self.exact_value(view, c))
                    .map(|c| Search {
                        movetime: ANALYSIS_MS,
                        only: Some(c),
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

    /// A report of the search of `job`: each of its lines (`multipv` 1 first) is the thinking
    /// line of a move, or one column's value for an analysis.
    pub fn report(&mut self, job: &Job, view: &View, depth: u32, lines: &[Line]) {
        match job {
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
                let Some(a) = self.analysis.as_mut().filter(|a| a.moves == view.moves) else {
                    return;
                };
                for line in lines {
                    let Some(cv) = column_value(line) else {
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
                }
            }
        }
    }

    /// The analysis of `view` ran all its searches.
    pub fn analysis_done(&mut self, view: &View) {
        if let Some(a) = self.analysis.as_mut().filter(|a| a.moves == view.moves) {
            a.complete = true;
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

/// The value of playing the line's first move (1-based in the result) for the side to move.
fn column_value(line: &Line) -> Option<ColumnValue> {
    let column = line.column()? + 1;
    let exact = line.exact.is_some();
    let (short, long, rank) = match line.value.score {
        Score::Win(n) => (
            format!("win {n}"),
            format!(
                "column {column} wins: four with the {} disc from now",
                ordinal(n)
            ),
            10_000 - n as i32,
        ),
        Score::Loss(n) => (
            format!("loss {n}"),
            format!(
                "column {column} loses: the opponent connects four with its {} disc",
                ordinal(n)
            ),
            -10_000 + n as i32,
        ),
        Score::Draw => ("draw".into(), format!("column {column} draws"), 0),
        Score::Cp(x) => (
            format!("{:+.1}", x as f64 / 100.0),
            format!(
                "column {column}: about {:+.2} (not proven yet)",
                x as f64 / 100.0
            ),
            x.clamp(-9_000, 9_000),
        ),
    };
    Some(ColumnValue {
        column,
        short: if exact { short } else { format!("≈{short}") },
        long,
        score: line.exact,
        exact,
        best: false,
        rank,
    })
}
