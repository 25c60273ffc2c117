//! The exact solver: proves the game-theoretic score of a position.
//!
//! Scores are exact scores as [`crate::score`] defines them (Pons' convention: a win with the
//! winner's k-th disc scores 22 - k on 7x6), from the side to move's point of view.
//!
//! Negamax with alpha-beta over the non-losing moves only. Before a position is searched it is
//! resolved statically ([`resolve`]): forced moves are played through, and a loss to the
//! opponent's next disc, a full board, bounds from the discs left and from the row parity
//! (Allis' claimeven, and his odd threats), and the table's bounds settle it without a node. A
//! node resolves all its children first (enhanced transposition cutoffs come with it), caps its
//! score when none of them loses at once, and searches the rest, ordered by the threats a move
//! creates with the table's move and the centre as tie-breaks. Two transposition tables (a large
//! one near the root, a cache-sized one deeper) hold both bounds and the best move, with the
//! mirror-symmetric key near the root. The root value is found by null-window searches that
//! narrow the window.
//!
//! This module is the facade: the [`Solver`] and its entry points. The rest by concern:
//! [`search`] one thread's search (the root's null-window sequence and the negamax),
//! [`resolve`] static resolution and the parity bounds, [`parallel`] the threads (the race and
//! the busy table), [`root`] the root policies the searcher and the book builder ask for,
//! [`book`](mod@book) the opening book's probes, and [`settings`] every tunable (`stats`, with
//! the feature of that name, counts where the nodes go).

mod book;
mod keys;
mod parallel;
mod resolve;
mod root;
mod search;
pub mod settings;
#[cfg(feature = "stats")]
pub mod stats;

pub use root::{Below, RootProof};
pub use settings::{MAX_THREADS, RACE_AFTER_NODES};

use crate::bits::Bitboard;
use crate::board::Position;
use crate::book::Book;
use crate::control::{Limits, NodeBudget, SearchControl};
use crate::score;
use crate::tt::{TableError, TransTable};
use parallel::{Busy, RootWindow};
use settings::{NearPlies, BUSY_PLIES, NEAR_TABLE_MB};
use std::sync::Arc;

/// The solver with its table and statistics. Reuse one for many positions: the table carries over
/// unless [`Solver::clear`] is called.
pub struct Solver {
    /// Positions near the root of a search: few, expensive, worth a large table; shared with
    /// the helper threads.
    tt: Arc<TransTable>,
    /// Positions with at least `near_plies` discs: many cheap ones, kept in a table small
    /// enough to stay in the CPU cache (a probe into a large table is a cache miss, and the
    /// misses, not the arithmetic, bound the node rate).
    near: TransTable,
    nodes: u64,
    /// What ends the current call: the search's control, a race's, the node budget.
    limits: Limits,
    /// Solvers for the helper threads, sharing `tt` (empty: one thread).
    helpers: Vec<Solver>,
    /// The positions some thread is searching, shared by all threads (`None`: one thread).
    busy: Option<Arc<Busy>>,
    /// Nodes a search runs alone before the helpers join.
    race_after: u64,
    stopped: bool,
    /// Exact scores of the early positions; looked up below `book_moves` discs.
    book: Option<Arc<Book>>,
    /// The book's depth + 1 (0 without a book): the search probes the book below this many
    /// discs, where it never misses, and one compare per node skips it elsewhere.
    book_moves: u32,
    /// The deepest entry's discs + 1: roots and their children (not every node: most probes
    /// would miss) are looked up below this, to use a main line.
    book_line_moves: u32,
    book_hits: u64,
    /// The root window shared by the threads of a race (`None` outside a race).
    window: Option<Arc<RootWindow>>,
    /// The null-window test the root search is running: is the score above this?
    testing: i32,
    /// Where `near` starts on each board: [`NearPlies::ALONE`], or [`NearPlies::SHARED`] in a
    /// solver with helpers.
    near_from: NearPlies,
    /// Positions with at least this many discs use `near`: `near_from` on the board being
    /// solved, set as each solve starts.
    near_plies: u32,
    /// In a race this thread steps its root tests out from 0 instead of halving (every other
    /// helper from [`settings::SPLIT_ROOT_TESTS_FROM`] threads).
    steps_root: bool,
    /// With helpers, positions with fewer discs than this are marked busy ([`settings::BUSY_PLIES`]).
    busy_plies: u32,
    /// The columns of the line the last root search was on when it was cut short, deepest
    /// first (from the position searched after the root's forced moves; emptied as each root
    /// search starts, so at most a line): where [`Solver::bounds_below`] looks for the proofs
    /// it finished beside that line.
    stop_line: Vec<u8>,
    #[cfg(feature = "stats")]
    stats: stats::Stats,
}

/// Every score: the window of a search that tells all of them apart.
const ALL: (i32, i32) = (i32::MIN, i32::MAX);

/// Returned by searches that were interrupted by their limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

impl Solver {
    /// A solver with a transposition table of `hash_mb` megabytes.
    pub fn new(hash_mb: usize) -> Solver {
        Solver::with_table(TransTable::new(hash_mb))
    }

    /// A solver with a table of the size a user chose, or why the machine cannot give it.
    pub fn try_new(hash_mb: usize) -> Result<Solver, TableError> {
        Ok(Solver::with_table(TransTable::try_new(hash_mb)?))
    }

    pub fn with_table(tt: TransTable) -> Solver {
        Solver::sharing(Arc::new(tt))
    }

    /// A solver on `tt`, shared with whoever else holds it (a table in a file, a helper thread).
    pub fn sharing(tt: Arc<TransTable>) -> Solver {
        Solver {
            tt,
            near: TransTable::new(settings::tuned("NEAR_TABLE_MB", NEAR_TABLE_MB as u32) as usize),
            nodes: 0,
            limits: Limits::default(),
            helpers: Vec::new(),
            busy: None,
            race_after: RACE_AFTER_NODES,
            stopped: false,
            book: None,
            book_moves: 0,
            book_line_moves: 0,
            book_hits: 0,
            window: None,
            testing: 0,
            near_from: NearPlies::ALONE,
            near_plies: NearPlies::ALONE.narrow,
            steps_root: false,
            busy_plies: BUSY_PLIES,
            stop_line: Vec::new(),
            #[cfg(feature = "stats")]
            stats: stats::Stats::default(),
        }
    }

    /// A solver of its own (one thread, no node counts) on this one's table and book: what either
    /// proves, the other finds. The searcher's prover is one.
    pub fn beside(&self) -> Solver {
        let mut s = Solver::sharing(self.tt.clone());
        s.set_book(self.book.clone());
        s
    }

    /// Nodes visited since the last [`Solver::reset_nodes`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    pub fn reset_nodes(&mut self) {
        self.nodes = 0;
        self.book_hits = 0;
        #[cfg(feature = "stats")]
        {
            self.stats = stats::Stats::default();
        }
    }

    /// Where the nodes since the last [`Solver::reset_nodes`] went, all threads together.
    #[cfg(feature = "stats")]
    pub fn stats(&self) -> &stats::Stats {
        &self.stats
    }

    /// Forgets the tables: the next search starts from nothing.
    pub fn clear(&mut self) {
        // the table is the helpers' too
        self.tt.clear();
        self.clear_own();
    }

    /// Forgets what this solver's threads keep to themselves (their small tables), not the
    /// table it shares (see [`Solver::beside`]).
    pub fn clear_own(&mut self) {
        self.near.clear();
        for h in &mut self.helpers {
            h.near.clear();
        }
    }

    pub fn table(&self) -> &TransTable {
        &self.tt
    }

    /// The table, shared (to take its memory on another thread before this solver uses it).
    pub fn shared_table(&self) -> Arc<TransTable> {
        self.tt.clone()
    }

    /// Searches from now on end (returning `Stopped`) when `control`'s stop rule says so, or
    /// once they have visited `max_nodes` more nodes (see [`crate::control`]).
    pub fn set_limits(&mut self, control: Option<Arc<SearchControl>>, max_nodes: Option<u64>) {
        self.limits = Limits::new(control, NodeBudget::start(self.nodes, max_nodes));
    }

    /// The exact score of `p` (strong solve).
    pub fn solve<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
    ) -> Result<i32, Stopped> {
        self.solve_window(p, false, ALL)
    }

    /// Win (1), draw (0) or loss (-1) for the side to move (weak solve: cheaper than strong).
    pub fn solve_weak<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
    ) -> Result<i32, Stopped> {
        self.solve_window(p, true, ALL).map(score::outcome)
    }

    /// Whether the exact score (with `weak`, win 1, draw 0 or loss -1) of `p` is at least
    /// `value`: the one null-window test that answers it (a solve runs one test to a few),
    /// for a proof that needs a bound of a position and not its value.
    pub fn at_least<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        value: i32,
        weak: bool,
    ) -> Result<bool, Stopped> {
        let s = self.solve_window(p, weak, (value.saturating_sub(1), value))?;
        Ok(if weak { score::outcome(s) } else { s } >= value)
    }
}
