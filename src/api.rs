//! The engine for embedders, with the board size chosen at run time: the Python package
//! (`python/`) and the HTTP solve endpoint ([`serve`](crate::serve)) are thin layers over this
//! module, so neither holds a copy of the rules or the solver.
//!
//! Columns are 0-based here, as in lists of per-column scores; move strings keep the 1-based
//! digits of Pons' notation (`4453`). Scores follow Pons' convention, from the side to move's
//! view (see [`crate::cli::solve`]).

use crate::bits::Bitboard;
use crate::board::{BoardError, Player, Position, Size};
use crate::book::Book;
use crate::control::SearchControl;
use crate::score::Score;
use crate::search::{Iteration, SearchLimits, Searcher};
use crate::solver::Solver;
use crate::time::TimeLimit;
use crate::with_size;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Why a request was refused; its text is meant for the person who made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError(pub String);

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ApiError {}

impl From<BoardError> for ApiError {
    fn from(e: BoardError) -> ApiError {
        ApiError(e.to_string())
    }
}

/// The board size `width` x `height`, or why vier does not play on it.
pub fn size(width: usize, height: usize) -> Result<Size, ApiError> {
    Size::new(width, height).map_err(|e| ApiError(e.to_string()))
}

/// A position on a board of any supported size (a copy of the bitboards: cheap to clone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnyPosition {
    size: Size,
    current: u128,
    mask: u128,
}

impl std::hash::Hash for AnyPosition {
    fn hash<S: std::hash::Hasher>(&self, state: &mut S) {
        (
            self.size.width(),
            self.size.height(),
            self.current,
            self.mask,
        )
            .hash(state)
    }
}

/// Who is where, as [`AnyPosition::cells`] lists it.
pub const EMPTY: u8 = 0;
pub const FIRST: u8 = 1;
pub const SECOND: u8 = 2;

impl AnyPosition {
    pub fn empty(size: Size) -> AnyPosition {
        AnyPosition {
            size,
            current: 0,
            mask: 0,
        }
    }

    fn of<const W: usize, const H: usize, B: Bitboard>(
        size: Size,
        p: &Position<W, H, B>,
    ) -> AnyPosition {
        AnyPosition {
            size,
            current: p.current().to_u128(),
            mask: p.mask().to_u128(),
        }
    }

    fn get<const W: usize, const H: usize, B: Bitboard>(&self) -> Position<W, H, B> {
        Position::from_raw(B::from_u128(self.current), B::from_u128(self.mask))
    }

    /// The position after a string of 1-based column digits from the empty board.
    pub fn from_moves(size: Size, moves: &str) -> Result<AnyPosition, ApiError> {
        with_size!(size, {
            Ok(AnyPosition::of(
                size,
                &Position::<W, H, B>::from_moves(moves)?,
            ))
        })
    }

    /// A board string as `vier` writes it (`7/7/7/7/3o3/2oxx2 x`; cutechess FEN accepted).
    pub fn from_board_string(size: Size, s: &str) -> Result<AnyPosition, ApiError> {
        with_size!(size, {
            Ok(AnyPosition::of(
                size,
                &Position::<W, H, B>::from_board_string(s)?,
            ))
        })
    }

    /// A grid of [`EMPTY`], [`FIRST`], [`SECOND`], row by row from the top (ConnectX's
    /// `board`); the side to move follows from the disc counts.
    pub fn from_cells(size: Size, cells: &[u8]) -> Result<AnyPosition, ApiError> {
        let (w, h) = (size.width(), size.height());
        if cells.len() != w * h {
            return Err(ApiError(format!(
                "the board has {} cells, a {size} board has {}",
                cells.len(),
                w * h
            )));
        }
        let mut rows = Vec::with_capacity(h);
        let (mut x, mut o) = (0, 0);
        for row in cells.chunks(w) {
            let mut text = String::with_capacity(w);
            // runs of empty cells as one number each (`12` on a 12-column row)
            let mut empty = 0;
            for &c in row {
                let disc = match c {
                    EMPTY => {
                        empty += 1;
                        continue;
                    }
                    FIRST => {
                        x += 1;
                        'x'
                    }
                    SECOND => {
                        o += 1;
                        'o'
                    }
                    other => {
                        return Err(ApiError(format!(
                            "a cell holds {other}: 0 (empty), 1 or 2 (a player's disc) expected"
                        )))
                    }
                };
                if empty > 0 {
                    text += &empty.to_string();
                    empty = 0;
                }
                text.push(disc);
            }
            if empty > 0 {
                text += &empty.to_string();
            }
            rows.push(text);
        }
        // the board string parser checks gravity, counts and wins; only the side is derived
        let side = if x > o { 'o' } else { 'x' };
        AnyPosition::from_board_string(size, &format!("{} {side}", rows.join("/")))
    }

    pub fn size(&self) -> Size {
        self.size
    }
    pub fn width(&self) -> usize {
        self.size.width()
    }
    pub fn height(&self) -> usize {
        self.size.height()
    }

    /// Discs on the board.
    pub fn discs(&self) -> u32 {
        self.mask.count_ones()
    }

    /// 1 if the first player is to move, 2 if the second.
    pub fn side_to_move(&self) -> u8 {
        if self.discs().is_multiple_of(2) {
            FIRST
        } else {
            SECOND
        }
    }

    pub fn can_play(&self, col: usize) -> bool {
        with_size!(self.size, {
            col < W && !self.get::<W, H, B>().is_game_over() && self.get::<W, H, B>().can_play(col)
        })
    }

    /// The columns the side to move may play (none once the game is over).
    pub fn legal_moves(&self) -> Vec<usize> {
        (0..self.width()).filter(|&c| self.can_play(c)).collect()
    }

    /// The position after the side to move drops a disc in the 0-based `col`.
    pub fn play(&self, col: usize) -> Result<AnyPosition, ApiError> {
        with_size!(self.size, {
            let mut p = self.get::<W, H, B>();
            // try_play_column checks the range, a full column and a finished game
            p.try_play_column(col.saturating_add(1), 0)
                .map_err(|e| match e {
                    BoardError::ColumnOutOfRange { .. } => {
                        ApiError(format!("column {col} is out of range 0..{}", W - 1))
                    }
                    BoardError::ColumnFull { .. } => ApiError(format!("column {col} is full")),
                    _ => ApiError("the game is over: no move can follow".into()),
                })?;
            Ok(AnyPosition::of(self.size, &p))
        })
    }

    /// 1 or 2 when that player has four in a row, else 0.
    pub fn winner(&self) -> u8 {
        with_size!(self.size, {
            let p = self.get::<W, H, B>();
            if !p.last_mover_won() {
                0
            } else if p.side_to_move() == Player::First {
                SECOND
            } else {
                FIRST
            }
        })
    }

    /// Someone has four in a row, or the board is full.
    pub fn is_game_over(&self) -> bool {
        with_size!(self.size, self.get::<W, H, B>().is_game_over())
    }

    /// The cells row by row from the top, as [`AnyPosition::from_cells`] reads them.
    pub fn cells(&self) -> Vec<u8> {
        with_size!(self.size, {
            let p = self.get::<W, H, B>();
            let mut out = Vec::with_capacity(W * H);
            for r in (0..H).rev() {
                for c in 0..W {
                    out.push(match p.cell(c, r) {
                        crate::board::Cell::Empty => EMPTY,
                        crate::board::Cell::Disc(Player::First) => FIRST,
                        crate::board::Cell::Disc(Player::Second) => SECOND,
                    });
                }
            }
            out
        })
    }

    pub fn board_string(&self) -> String {
        with_size!(self.size, self.get::<W, H, B>().to_board_string())
    }

    /// A move string that reaches this position, if there is one.
    pub fn move_string(&self) -> Option<String> {
        with_size!(self.size, self.get::<W, H, B>().to_move_string())
    }

    /// The board drawn in text, top row first.
    pub fn draw(&self) -> String {
        with_size!(self.size, self.get::<W, H, B>().draw())
    }
}

/// Solvers kept for reuse, each as `vier solve` uses one (1 MB table, cleared before every
/// position, the built-in book): taking one is cheap, so callers on many threads each take
/// their own and the pool holds at most as many as ran at once.
pub struct SolverPool {
    idle: Mutex<Vec<Solver>>,
    book: Option<Arc<Book>>,
    hash_mb: usize,
}

/// What one exact analysis costs: the table `vier solve` uses by default.
pub const SOLVE_HASH_MB: usize = 1;

impl SolverPool {
    pub fn new(book: Option<Arc<Book>>) -> SolverPool {
        SolverPool {
            idle: Mutex::new(Vec::new()),
            book,
            hash_mb: SOLVE_HASH_MB,
        }
    }

    /// The pool of the built-in book, shared by every caller in the process.
    pub fn shared() -> &'static SolverPool {
        static POOL: std::sync::OnceLock<SolverPool> = std::sync::OnceLock::new();
        POOL.get_or_init(|| SolverPool::new(Book::embedded()))
    }

    fn with<T>(&self, control: Option<Arc<SearchControl>>, f: impl FnOnce(&mut Solver) -> T) -> T {
        let taken = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut solver = taken.unwrap_or_else(|| {
            let mut s = Solver::new(self.hash_mb);
            s.set_book(self.book.clone());
            s
        });
        solver.clear();
        solver.reset_nodes();
        solver.set_limits(control, None);
        let out = f(&mut solver);
        solver.set_limits(None, None);
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(solver);
        out
    }

    /// The exact score of `p` (with `weak`, 1 / 0 / -1 for win / draw / loss), or why not:
    /// the game is over, or `budget` ran out first.
    pub fn solve(
        &self,
        p: &AnyPosition,
        weak: bool,
        budget: Option<Duration>,
    ) -> Result<i32, ApiError> {
        self.solve_under(p, weak, budget.map(SearchControl::within))
    }

    /// The score of every 0-based column (`None` for a full one, and all `None` for a finished
    /// game), exactly as `vier solve --all` prints them.
    pub fn analyse(
        &self,
        p: &AnyPosition,
        weak: bool,
        budget: Option<Duration>,
    ) -> Result<Vec<Option<i32>>, ApiError> {
        self.analyse_under(p, weak, budget.map(SearchControl::within))
    }

    /// The exact best 0-based column (ties to the centre) with its score; `None` for a finished
    /// game.
    pub fn best_move(
        &self,
        p: &AnyPosition,
        budget: Option<Duration>,
    ) -> Result<Option<(usize, i32)>, ApiError> {
        self.best_move_under(p, budget.map(SearchControl::within))
    }

    // issue 60: the calls under a control that another thread may stop (an HTTP client that
    // hung up, Ctrl-C in Python), its hard deadline the budget; the error of a stopped call
    // names that budget, and the caller knows whether it stopped the control itself.

    /// [`SolverPool::solve`] under `control`.
    pub fn solve_under(
        &self,
        p: &AnyPosition,
        weak: bool,
        control: Option<Arc<SearchControl>>,
    ) -> Result<i32, ApiError> {
        let budget = control.as_ref().and_then(|c| c.budget());
        if p.is_game_over() {
            return Err(ApiError(
                "the game is over: there is nothing to solve".into(),
            ));
        }
        self.with(control, |s| {
            with_size!(p.size, {
                let q = p.get::<W, H, B>();
                if weak {
                    s.solve_weak(&q)
                } else {
                    s.solve(&q)
                }
            })
        })
        .map_err(|_| not_in_time(budget))
    }

    /// [`SolverPool::analyse`] under `control`.
    pub fn analyse_under(
        &self,
        p: &AnyPosition,
        weak: bool,
        control: Option<Arc<SearchControl>>,
    ) -> Result<Vec<Option<i32>>, ApiError> {
        let budget = control.as_ref().and_then(|c| c.budget());
        self.with(control, |s| {
            with_size!(p.size, s.analyze(&p.get::<W, H, B>(), weak))
        })
        .map_err(|_| not_in_time(budget))
    }

    /// [`SolverPool::best_move`] under `control`.
    pub fn best_move_under(
        &self,
        p: &AnyPosition,
        control: Option<Arc<SearchControl>>,
    ) -> Result<Option<(usize, i32)>, ApiError> {
        let budget = control.as_ref().and_then(|c| c.budget());
        self.with(control, |s| {
            with_size!(p.size, s.best_move(&p.get::<W, H, B>()))
        })
        .map_err(|_| not_in_time(budget))
    }
}

fn not_in_time(budget: Option<Duration>) -> ApiError {
    ApiError(format!(
        "not solved within {} ms",
        budget.map_or(0, |b| b.as_millis())
    ))
}

/// What [`Engine::search`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The 0-based column to play.
    pub column: usize,
    /// Pons' score when proven (`solved`), else `None`.
    pub exact: Option<i32>,
    /// The protocol's score: centipawns, or `mate N` / `mate -N` when proven.
    pub score: String,
    pub depth: u32,
    pub nodes: u64,
    pub solved: bool,
}

/// The time-limited player of the protocol (its searcher with the protocol's time rules),
/// with the options of `setoption`.
pub struct Engine {
    searcher: Searcher,
    overhead_ms: u64,
    /// A strength level (`Skill Level` 1..[`crate::levels::FULL_SKILL`]) and the seed of its
    /// choices; `None` plays at full strength.
    skill: Option<(u64, u64)>,
    /// The size of the last search: the tables are cleared when it changes, as a new game's.
    last_size: Option<Size>,
}

impl Engine {
    /// An engine with `hash_mb` for its tables, `threads` search threads, the built-in book or
    /// none, and the study's `level` (see [`crate::study`]; 7 is the full engine).
    pub fn new(hash_mb: usize, threads: usize, book: bool, level: u8) -> Result<Engine, ApiError> {
        if !(1..=crate::solver::MAX_THREADS).contains(&threads) {
            return Err(ApiError(format!(
                "threads must be 1..={}, not {threads}",
                crate::solver::MAX_THREADS
            )));
        }
        if !(crate::study::MINIMAX..=crate::study::FULL).contains(&level) {
            return Err(ApiError(format!(
                "search_level must be {}..={}, not {level}",
                crate::study::MINIMAX,
                crate::study::FULL
            )));
        }
        let mut searcher = Searcher::try_new(hash_mb).map_err(|e| ApiError(e.to_string()))?;
        searcher.set_threads(threads);
        searcher.set_techniques(crate::study::techniques(level));
        searcher.set_book(if book { Book::embedded() } else { None });
        Ok(Engine {
            searcher,
            overhead_ms: 0,
            skill: None,
            last_size: None,
        })
    }

    /// Plays at `Skill Level` `skill` (1 a beginner .. [`crate::levels::FULL_SKILL`] the full
    /// engine), its choices seeded by `seed` as the protocol's `LevelSeed`: the same seed and
    /// position give the same move.
    pub fn set_skill(&mut self, skill: u64, seed: u64) -> Result<(), ApiError> {
        let full = crate::levels::FULL_SKILL;
        if !(1..=full).contains(&skill) {
            return Err(ApiError(format!("skill must be 1..={full}, not {skill}")));
        }
        self.skill = (skill < full).then_some((skill, seed));
        Ok(())
    }

    /// Forgets what earlier searches learnt.
    pub fn clear(&mut self) {
        self.searcher.clear();
    }

    /// Searches `p` for `movetime_ms` (or until `depth` plies / `nodes` nodes, or the proof);
    /// an error for a finished game.
    pub fn search(
        &mut self,
        p: &AnyPosition,
        movetime_ms: Option<u64>,
        depth: Option<u32>,
        nodes: Option<u64>,
    ) -> Result<Found, ApiError> {
        if p.is_game_over() {
            return Err(ApiError(
                "the game is over: there is no move to find".into(),
            ));
        }
        if movetime_ms.is_none() && depth.is_none() && nodes.is_none() {
            return Err(ApiError(
                "give a limit: movetime_ms, depth or nodes (an unlimited search may never end)"
                    .into(),
            ));
        }
        let deadlines = TimeLimit {
            movetime_ms: movetime_ms.map(|t| t.min(i64::MAX as u64) as i64),
            overhead_ms: self.overhead_ms,
            ..Default::default()
        }
        .deadlines();
        let control = SearchControl::new(deadlines, false);
        let mut limits = SearchLimits {
            depth,
            nodes,
            multipv: 1,
            ..Default::default()
        };
        let skill = self.skill;
        if let Some((level, _)) = skill {
            crate::levels::limit(level, p.size.width(), &mut limits);
        }
        if self.last_size != Some(p.size) {
            self.searcher.clear();
            self.last_size = Some(p.size);
        }
        let searcher = &mut self.searcher;
        with_size!(p.size, {
            let root = p.get::<W, H, B>();
            // a level chooses from the last complete iteration's values of the columns
            let mut complete = Vec::new();
            let r = searcher.search(&root, &limits, &control, &mut |it: &Iteration| {
                if skill.is_some() {
                    complete = it.lines.clone();
                }
            });
            let mut best = r.best;
            if let (Some((level, seed)), Some(_)) = (skill, best) {
                best = crate::levels::pick(
                    level,
                    W,
                    (seed, root.key().fold64()),
                    &complete,
                    &r.last.lines,
                );
            }
            // the search always has a move for a game that goes on
            let column = best
                .filter(|&c| root.can_play(c))
                .or_else(|| root.legal_columns().next())
                .ok_or_else(|| ApiError("no legal move".into()))?;
            // the value of the column played (a level's may not be the best)
            let line = r
                .last
                .lines
                .iter()
                .find(|l| l.pv.first() == Some(&column))
                .or(r.last.lines.first());
            let score = line.map_or(Score::Cp(0), |l| l.score);
            let cells = (W * H) as i32;
            Ok(Found {
                column,
                exact: score.to_exact(cells, root.moves() as i32),
                score: match score {
                    Score::Cp(v) => format!("cp {v}"),
                    Score::Draw => "cp 0".into(),
                    Score::Win(n) => format!("mate {n}"),
                    Score::Loss(n) => format!("mate -{n}"),
                },
                depth: r.last.depth,
                nodes: r.last.nodes,
                solved: r.last.solved,
            })
        })
    }
}
