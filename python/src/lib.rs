//! `vier._vier`: the engine service ([`vier::engine`]) and the erased position
//! ([`vier::board::AnyPosition`]) seen from Python. Only translation lives here (types, errors,
//! the GIL); the rules, the solver and the searcher are the engine crate's own. Every call that
//! searches releases the GIL, so Python threads can solve in parallel.

mod interrupt;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::sync::{Arc, Mutex};
use vier::board::{AnyPosition, BoardError, Player, Size};
use vier::engine::settings::{self, Spin};
use vier::engine::{
    game_over, Engine, Handle, Limits, Request, ScoreBound, Settings, SolverPool, TimeLimit,
};

fn err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// 1 for the first player, 2 for the second (ConnectX's marks).
fn mark(p: Player) -> u8 {
    match p {
        Player::First => 1,
        Player::Second => 2,
    }
}

/// Sizes arrive as Python ints, which may be negative: those get the size's own message.
fn size(width: i64, height: i64) -> PyResult<Size> {
    let dim = |d: i64| usize::try_from(d).unwrap_or(usize::MAX);
    Size::new(dim(width), dim(height)).map_err(|e| {
        // the engine's own reason (the sizes it plays), with the numbers as Python gave them
        let given = format!("{}x{}", dim(width), dim(height));
        PyValueError::new_err(
            e.to_string()
                .replacen(&given, &format!("{width}x{height}"), 1),
        )
    })
}

/// A Connect Four position on a board of any of the 57 sizes: the 52 whose result is published
/// and 5 unsolved ones (4 to 13 columns, 4 to 13 rows; protocol.md lists them). Immutable:
/// `play` returns a new position.
///
/// Columns are 0-based in every method; move strings are Pons' 1-based digits ("4453"), letters
/// "a".."m" on boards of 10 or more columns.
#[pyclass(module = "vier", name = "Position", frozen, eq, hash)]
#[derive(Clone)]
struct PyPosition {
    inner: AnyPosition,
    /// The moves that made it, as given (issue 60: `.moves` gave back another string that
    /// reaches the position, the mirror image of "123" for "123"); `None` for a position made
    /// from a board.
    moves: Option<String>,
}

// a position is its discs and the side to move, however it was reached
impl PartialEq for PyPosition {
    fn eq(&self, other: &Self) -> bool {
        self.inner == other.inner
    }
}

impl Eq for PyPosition {}

impl std::hash::Hash for PyPosition {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.inner.hash(state)
    }
}

#[pymethods]
impl PyPosition {
    /// The position after `moves` (1-based column digits, "" for the empty board) on a
    /// `width` x `height` board. Raises ValueError with the reason for an illegal move string
    /// or an unsupported size.
    #[new]
    #[pyo3(signature = (moves = "", width = 7, height = 6))]
    fn new(moves: &str, width: i64, height: i64) -> PyResult<Self> {
        let size = size(width, height)?;
        Ok(PyPosition {
            inner: AnyPosition::from_moves(size, moves).map_err(err)?,
            moves: Some(moves.to_string()),
        })
    }

    /// A position from a board string: rows from the top separated by '/', 'x' and 'o' for
    /// the first and second player's discs, a digit for that many empty cells, then the side
    /// to move ("7/7/7/7/3o3/2oxx2 x").
    #[staticmethod]
    #[pyo3(signature = (board, width = 7, height = 6))]
    fn from_board(board: &str, width: i64, height: i64) -> PyResult<Self> {
        let size = size(width, height)?;
        Ok(PyPosition {
            inner: AnyPosition::from_board_string(size, board).map_err(err)?,
            moves: None,
        })
    }

    /// A position from a grid of cells, row by row from the top, 0 empty, 1 the first
    /// player's disc, 2 the second's (a ConnectX observation's `board`). The side to move
    /// follows from the disc counts.
    #[staticmethod]
    #[pyo3(signature = (cells, width = 7, height = 6))]
    fn from_cells(cells: Vec<i64>, width: i64, height: i64) -> PyResult<Self> {
        let size = size(width, height)?;
        let cells: Vec<u8> = cells
            .iter()
            .map(|&c| u8::try_from(c).unwrap_or(u8::MAX))
            .collect();
        Ok(PyPosition {
            inner: AnyPosition::from_cells(size, &cells).map_err(err)?,
            moves: None,
        })
    }

    #[getter]
    fn width(&self) -> usize {
        self.inner.width()
    }

    #[getter]
    fn height(&self) -> usize {
        self.inner.height()
    }

    /// Discs on the board.
    #[getter]
    fn discs(&self) -> u32 {
        self.inner.discs()
    }

    /// 1 when the first player is to move, 2 when the second is.
    #[getter]
    fn side_to_move(&self) -> u8 {
        mark(self.inner.side_to_move())
    }

    /// 1 or 2 when that player has four in a row, else None.
    #[getter]
    fn winner(&self) -> Option<u8> {
        self.inner.winner().map(mark)
    }

    /// The board string ("7/7/7/7/3o3/2oxx2 x").
    #[getter]
    fn board(&self) -> String {
        self.inner.board_string()
    }

    /// The moves that made the position, as given to `Position(moves)` and `play`; for one
    /// made from a board, a move string (1-based digits) that reaches it, or None when no game
    /// reaches it without passing a finished one.
    #[getter]
    fn moves(&self) -> Option<String> {
        self.moves.clone().or_else(|| self.inner.move_string())
    }

    /// The cells row by row from the top: 0 empty, 1 and 2 the players' discs (ConnectX's
    /// observation `board`).
    fn cells(&self) -> Vec<u32> {
        // as numbers: PyO3 would turn a Vec<u8> into bytes
        self.inner.cells().into_iter().map(u32::from).collect()
    }

    /// Four in a row or a full board.
    fn is_game_over(&self) -> bool {
        self.inner.is_game_over()
    }

    fn can_play(&self, column: usize) -> bool {
        self.inner.can_play(column)
    }

    /// The 0-based columns the side to move may play (none once the game is over).
    fn legal_moves(&self) -> Vec<usize> {
        self.inner.legal_moves()
    }

    /// The position after the side to move plays the 0-based `column`; ValueError for a
    /// column out of range, a full column or a finished game.
    fn play(&self, column: i64) -> PyResult<Self> {
        let last = self.inner.width() - 1;
        let col = usize::try_from(column).unwrap_or(usize::MAX);
        let inner = self.inner.play(col).map_err(|e| {
            err(match e {
                BoardError::ColumnOutOfRange { .. } => {
                    format!("column {column} is out of range 0..{last}")
                }
                BoardError::ColumnFull { .. } => format!("column {column} is full"),
                _ => game_over("no move can follow").to_string(),
            })
        })?;
        let moves = self.moves.as_ref().map(|m| {
            let mut m = m.clone();
            m.push(vier::notation::column_char(col, self.inner.width()));
            m
        });
        Ok(PyPosition { inner, moves })
    }

    fn __str__(&self) -> String {
        self.inner.draw()
    }

    fn __repr__(&self) -> String {
        match self.moves() {
            Some(m) if self.inner.width() == 7 && self.inner.height() == 6 => {
                format!("Position('{m}')")
            }
            Some(m) => format!(
                "Position('{m}', width={}, height={})",
                self.inner.width(),
                self.inner.height()
            ),
            None => format!(
                "Position.from_board('{}', width={}, height={})",
                self.inner.board_string(),
                self.inner.width(),
                self.inner.height()
            ),
        }
    }
}

/// A position argument: a `Position`, or a move string on the standard 7x6 board.
fn position(obj: &Bound<'_, PyAny>) -> PyResult<AnyPosition> {
    if let Ok(p) = obj.downcast::<PyPosition>() {
        return Ok(p.get().inner);
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        let size = size(7, 6)?;
        return AnyPosition::from_moves(size, &s.to_cow()?).map_err(err);
    }
    Err(PyValueError::new_err(format!(
        "a position must be a vier.Position or a move string, not {}",
        obj.get_type().name()?
    )))
}

/// A whole number a caller gave, checked against the engine's declaration of its setting;
/// Python's name for it in the error.
fn checked(spin: Spin, label: &str, v: i64) -> PyResult<u64> {
    spin.check_as(label, v.into()).map_err(err)
}

/// An optional limit (`movetime_ms`, `depth`, `nodes`), checked likewise.
fn limit(spin: Spin, label: &str, v: Option<i64>) -> PyResult<Option<u64>> {
    v.map(|v| checked(spin, label, v)).transpose()
}

/// The exact score of `pos` for the side to move in Pons' convention (0 a draw, 22 - k on 7x6
/// for a win with the winner's k-th disc, negative for a loss); with `weak`, 1 / 0 / -1 for a
/// win / draw / loss. ValueError for a finished game; TimeoutError when not proven within
/// `budget_ms` milliseconds; Ctrl-C interrupts it (KeyboardInterrupt). Nothing runs on after.
#[pyfunction]
#[pyo3(signature = (pos, weak = false, budget_ms = None))]
fn solve(
    py: Python<'_>,
    pos: &Bound<'_, PyAny>,
    weak: bool,
    budget_ms: Option<i64>,
) -> PyResult<i32> {
    let p = position(pos)?;
    let budget = interrupt::budget(budget_ms)?;
    interrupt::run(py, budget, move |h| SolverPool::shared().solve(&p, weak, h))
}

/// The score of every 0-based column, as `vier solve --all` prints them: the exact score the
/// side to move gets by playing there (with `weak`, 1 / 0 / -1), None for a full column (and
/// for every column of a finished game). TimeoutError past `budget_ms`; Ctrl-C interrupts it.
#[pyfunction]
#[pyo3(signature = (pos, weak = false, budget_ms = None))]
fn analyse(
    py: Python<'_>,
    pos: &Bound<'_, PyAny>,
    weak: bool,
    budget_ms: Option<i64>,
) -> PyResult<Vec<Option<i32>>> {
    let p = position(pos)?;
    let budget = interrupt::budget(budget_ms)?;
    interrupt::run(py, budget, move |h| {
        SolverPool::shared().analyse(&p, weak, h)
    })
}

/// Engines lent to `best_move` with a time limit, one per concurrent caller.
static ENGINES: Mutex<Vec<Engine>> = Mutex::new(Vec::new());
/// The tables of a lent engine: enough for moves of a second, cheap to set up.
const LENT_HASH_MB: usize = 16;

/// The 0-based column to play. Without `movetime_ms`, the exact solver's best move (the best
/// score, ties to the centre; may take long early on boards other than 7x6: `budget_ms` bounds
/// it, TimeoutError past it, and Ctrl-C interrupts it); with `movetime_ms`, the time-limited
/// engine's choice after about that many milliseconds. ValueError for a finished game.
#[pyfunction]
#[pyo3(signature = (pos, movetime_ms = None, budget_ms = None))]
fn best_move(
    py: Python<'_>,
    pos: &Bound<'_, PyAny>,
    movetime_ms: Option<i64>,
    budget_ms: Option<i64>,
) -> PyResult<usize> {
    let p = position(pos)?;
    let budget = limit(settings::MOVETIME, "movetime_ms", movetime_ms)?;
    let exact_budget = interrupt::budget(budget_ms)?;
    if p.is_game_over() {
        return Err(err(game_over("there is no move to find")));
    }
    let Some(ms) = budget else {
        let best = interrupt::run(py, exact_budget, move |h| {
            SolverPool::shared().best_move(&p, h)
        })?;
        return best.map(|(c, _)| c).ok_or_else(|| err("no legal move"));
    };
    if exact_budget.is_some() {
        return Err(PyValueError::new_err(
            "budget_ms bounds the exact best move; with movetime_ms the engine keeps its time",
        ));
    }
    let request = Request::movetime(ms);
    let handle = Handle::new(&request);
    let thought = interrupt::run_under(py, handle, move |h| {
        let lent = ENGINES.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut engine = match lent {
            Some(e) => e,
            None => Engine::with_settings(&Settings {
                hash_mb: LENT_HASH_MB,
                ..Settings::default()
            })?,
        };
        let thought = engine.think(&p, &request, h, &mut |_| {});
        ENGINES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(engine);
        Ok(thought)
    })?;
    thought.column.ok_or_else(|| err("no legal move"))
}

/// The time-limited engine with its options, as a GUI would set them over the protocol:
/// `threads` (the protocol's `Threads`), `hash_mb` for its tables, `book` (the built-in
/// opening book or none), `skill` (a strength level for people, as the protocol's `Skill
/// Level`: 1 a beginner up to the full engine, the default; `seed` seeds its choices, as
/// `LevelSeed`), `search_level` (the study's `SearchLevel`: 1 minimax .. 7 the full engine).
/// It keeps what it learnt from one search to the next, like the engine process in a game.
#[pyclass(module = "vier", name = "Engine", frozen)]
struct PyEngine {
    /// Shared with the thread that searches (see [`interrupt::run_under`]).
    inner: Arc<Mutex<Engine>>,
    settings: Settings,
}

#[pymethods]
impl PyEngine {
    #[new]
    #[pyo3(signature = (threads = 1, hash_mb = 32, book = true, skill = None, seed = 0, search_level = 7))]
    fn new(
        py: Python<'_>,
        threads: i64,
        hash_mb: i64,
        book: bool,
        skill: Option<i64>,
        seed: i64,
        search_level: i64,
    ) -> PyResult<Self> {
        // the protocol's options, checked against the same declarations
        let mut s = Settings::default();
        s.set_spin(settings::THREADS, "threads", threads.into())
            .map_err(err)?;
        s.set_spin(settings::SEARCH_LEVEL, "search_level", search_level.into())
            .map_err(err)?;
        s.set_spin(settings::LEVEL_SEED, "seed", seed.into())
            .map_err(err)?;
        if let Some(level) = skill {
            s.set_spin(settings::SKILL, "skill", level.into())
                .map_err(err)?;
        }
        s.set_spin(settings::HASH, "hash_mb", hash_mb.into())
            .map_err(err)?;
        s.own_book = book;
        // its tables and the book are set up on a thread, so that Ctrl-C is not kept waiting
        let made = s.clone();
        let engine = interrupt::run_under(py, Handle::unlimited(), move |_| {
            Engine::with_settings(&made)
        })?;
        Ok(PyEngine {
            inner: Arc::new(Mutex::new(engine)),
            settings: s,
        })
    }

    /// Searches `pos` until `movetime_ms` milliseconds, `depth` plies or `nodes` nodes (at
    /// least one must be given) or until it proves the position. Returns a dict: `move` (the
    /// 0-based column), `score` ("cp N", "mate N" or "mate -N", the protocol's words), `bound`
    /// ("exact"; "lower" or "upper" when the score is only a bound: a search cut short, or a
    /// win or loss the search found without proving its distance), `exact` (Pons' score, only
    /// when proven), `depth`, `nodes`, `solved` (the position's value is proven).
    #[pyo3(signature = (pos, movetime_ms = None, depth = None, nodes = None))]
    fn search<'py>(
        &self,
        py: Python<'py>,
        pos: &Bound<'py, PyAny>,
        movetime_ms: Option<i64>,
        depth: Option<i64>,
        nodes: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let p = position(pos)?;
        let movetime_ms = limit(settings::MOVETIME, "movetime_ms", movetime_ms)?;
        let depth = limit(settings::DEPTH, "depth", depth)?.map(|d| d as u32);
        let nodes = limit(settings::NODES, "nodes", nodes)?;
        if movetime_ms.is_none() && depth.is_none() && nodes.is_none() {
            return Err(err(
                "give a limit: movetime_ms, depth or nodes (an unlimited search may never end)",
            ));
        }
        let time = match movetime_ms {
            Some(ms) => Request::movetime(ms).time,
            None => TimeLimit::default(),
        };
        let request = self.settings.request(
            TimeLimit {
                overhead_ms: 0,
                ..time
            },
            Limits {
                depth,
                nodes,
                multipv: 1,
                ..Limits::default()
            },
        );
        let thought = self.think(py, &p, &request)?;
        let d = PyDict::new(py);
        d.set_item("move", thought.column)?;
        let value = thought.value();
        d.set_item("score", value.map(|v| v.score.to_string()))?;
        d.set_item(
            "bound",
            value.map(|v| match v.bound {
                ScoreBound::Exact => "exact",
                ScoreBound::Lower => "lower",
                ScoreBound::Upper => "upper",
            }),
        )?;
        d.set_item("exact", thought.exact())?;
        d.set_item("depth", thought.last.depth)?;
        d.set_item("nodes", thought.last.nodes)?;
        d.set_item("solved", thought.last.solved)?;
        Ok(d)
    }

    /// The 0-based column the engine plays after `movetime_ms` milliseconds.
    #[pyo3(signature = (pos, movetime_ms = 100))]
    fn best_move(
        &self,
        py: Python<'_>,
        pos: &Bound<'_, PyAny>,
        movetime_ms: i64,
    ) -> PyResult<usize> {
        let p = position(pos)?;
        let ms = checked(settings::MOVETIME, "movetime_ms", movetime_ms)?;
        let request = self.settings.request(
            TimeLimit {
                overhead_ms: 0,
                ..Request::movetime(ms).time
            },
            Limits {
                multipv: 1,
                ..Limits::default()
            },
        );
        Ok(self.think(py, &p, &request)?.column.unwrap_or_default())
    }

    /// Forgets what earlier searches learnt (a new game).
    fn clear(&self, py: Python<'_>) {
        py.allow_threads(|| self.inner.lock().unwrap_or_else(|e| e.into_inner()).clear());
    }
}

impl PyEngine {
    /// One search, the GIL released; ValueError for a finished game; Ctrl-C stops it.
    fn think(
        &self,
        py: Python<'_>,
        p: &AnyPosition,
        request: &Request,
    ) -> PyResult<vier::engine::Thought> {
        if p.is_game_over() {
            return Err(err(game_over("there is no move to find")));
        }
        let (engine, p, request) = (self.inner.clone(), *p, request.clone());
        interrupt::run_under(py, Handle::new(&request), move |h| {
            let mut engine = engine.lock().unwrap_or_else(|e| e.into_inner());
            Ok(engine.think(&p, &request, h, &mut |_| {}))
        })
    }
}

#[pymodule]
fn _vier(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPosition>()?;
    m.add_class::<PyEngine>()?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(analyse, m)?)?;
    m.add_function(wrap_pyfunction!(best_move, m)?)?;
    Ok(())
}
