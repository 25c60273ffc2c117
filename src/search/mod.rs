//! The time-limited searcher: iterative deepening with a heuristic horizon, interleaved with the
//! exact solver so that it plays perfectly whenever it has the time.
//!
//! Each iteration is a depth-limited negamax (alpha-beta, principal variation search) with
//! [`crate::eval::evaluate`] at the horizon and exact scores wherever the game ends inside it
//! (wins found with [`Position::can_win_next`], forced losses with
//! [`Position::non_losing_moves`]); forced moves do not use up depth. Moves are ordered by the
//! previous iteration's best line, the table's move, two killer moves per ply, the threats a move
//! makes and the history heuristic. After every iteration the exact [`Solver`] gets a try at the
//! root with a node budget that grows with the work done so far and the hard deadline; once the
//! root is solved (by the solver, or by the search proving a win or loss) the search reports it
//! and ends, unless told to go on (`infinite`, pondering), in which case it idles until stopped.
//!
//! With [`Searcher::set_threads`] above 1 the solver does not wait for the iterations: it
//! proves the root the whole time on half the threads (the prover), beside the search on the
//! others, and the first to settle the root ends the other. The search's threads run Lazy SMP:
//! helper threads run the same iterative deepening of the same root beside the main thread,
//! sharing its lock-free table, odd helpers one ply ahead and each with its move order varied
//! near the root, so that they search other subtrees first and leave in the table what the main
//! thread will need. Helpers report nothing; the main thread alone reports and decides the move
//! from its own iterations (or the prover's proof). When it ends, the helpers and the prover are
//! stopped; reported node counts add up every thread's.
//!
//! Search code never prints: each finished depth goes to a [`Reporter`]. Every thread asks its
//! limits (the one stop rule of [`crate::control`]: the search's [`SearchControl`], its node
//! limit) at the control's poll interval, as the solver does, which gets one call per iteration
//! ([`Solver::prove_root`]).
//!
//! Which techniques a search uses is a plain [`Techniques`] value read once per search: with all
//! of them (the engine) the search above runs; the study's lower levels ([`crate::study`]) run
//! the simple searches of [`simple`] or leave the solver or the book out.
//!
//! This module is the facade: the [`Searcher`], its settings and [`Searcher::search`]. The rest
//! by concern: `run.rs` one search from root to result (what it is asked, the main thread's
//! deepening, the solver's tries), `threads.rs` the helpers and the prover beside it, `worker.rs`
//! one thread's search and what the threads share, [`simple`] the study's simple searches,
//! `report.rs` what a search is asked and reports, `techniques.rs` the switches.
//!
//! Internal values: heuristic values stay within `±eval::MAX_EVAL`; a proven result with the
//! exact score `s` is [`score::proven_value`]`(s)`, beyond [`score::MATE`].

mod job;
mod line;
mod report;
mod run;
pub mod simple;
mod techniques;
#[cfg(feature = "threads")]
mod threads;
mod worker;

pub use report::{Iteration, Line, Reporter, SearchLimits, SearchResult};
pub use techniques::Techniques;

use crate::bits::Bitboard;
use crate::board::Position;
use crate::book::Book;
use crate::control::{Limits, NodeBudget, SearchControl};
use crate::solver::{Solver, MAX_THREADS};
use crate::tt::{check_size_freeing, TableError, TransTable};
use std::sync::Arc;
use worker::Worker;

/// The table size a searcher gets unless told otherwise (the protocol's `Hash` default).
pub const DEFAULT_HASH_MB: usize = 32;
/// Beyond every value.
const INF: i32 = 20_000;
/// The deepest line a search follows.
const MAX_PLY: usize = 64;
/// No column, in arrays of columns.
const NO_MOVE: u8 = u8::MAX;
/// The smallest node budget of a solver attempt.
pub const MIN_SOLVER_BUDGET: u64 = 10_000;

/// The searcher: the search table, the exact solver (with its table), and the search state of
/// its threads: the main thread's and, with [`Searcher::set_threads`], its helpers'.
pub struct Searcher {
    /// The thread that reports and decides the move.
    main: Worker,
    /// Helper threads' states, sharing `main`'s table (empty: one thread).
    helpers: Vec<Worker>,
    solver: Solver,
    /// With two threads or more: the solver that proves the root beside the search, on a
    /// share of the threads and the whole time, on `solver`'s table (see
    /// [`Searcher::set_threads`]).
    prover: Option<Solver>,
    /// Every thread the search may use: the search's, the prover's.
    threads: usize,
    book_hits: u64,
    /// A root move proven to keep at least this solver score, played if nothing is proven.
    secured: Option<(usize, i32)>,
    /// What this searcher uses; [`Techniques::ALL`] is the engine.
    techniques: Techniques,
    /// The book given by [`Searcher::set_book`]; consulted only with `techniques.book`.
    book: Option<Arc<Book>>,
}

impl Searcher {
    /// A searcher using about `hash_mb` megabytes, split evenly between its table and the
    /// solver's.
    pub fn new(hash_mb: usize) -> Searcher {
        let (a, b) = split_hash(hash_mb);
        Searcher::with_tables(TransTable::new(a), Solver::new(b))
    }

    /// A searcher with tables of the size a user chose, prepared (see [`Searcher::prepare`]), or
    /// why the machine cannot give them.
    pub fn try_new(hash_mb: usize) -> Result<Searcher, TableError> {
        Searcher::try_new_until(hash_mb, &|| false)
    }

    /// [`Searcher::try_new`], its preparation given up when `cancelled` says so (the protocol's
    /// `quit` during a large `Hash`).
    pub fn try_new_until(
        hash_mb: usize,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<Searcher, TableError> {
        let s = Searcher::reserve(hash_mb, 0)?;
        s.prepare(cancelled);
        Ok(s)
    }

    /// A searcher whose tables are reserved, not yet taken; `freed_mb` is given back first.
    fn reserve(hash_mb: usize, freed_mb: usize) -> Result<Searcher, TableError> {
        check_size_freeing(hash_mb, freed_mb)?;
        let (a, b) = split_hash(hash_mb);
        let tt = TransTable::try_reserve(a, freed_mb)?;
        let solver = TransTable::try_reserve(b, freed_mb)?;
        Ok(Searcher::with_tables(tt, Solver::with_table(solver)))
    }

    /// Takes all the memory of both tables now (see [`TransTable::prepare`]), so that no search
    /// pays for it; false if `cancelled` stopped it first.
    pub fn prepare(&self, cancelled: &(dyn Fn() -> bool + Sync)) -> bool {
        self.main.tt.prepare(cancelled) && self.solver.table().prepare(cancelled)
    }

    /// Megabytes of both tables.
    pub fn hash_mb(&self) -> usize {
        (self.main.tt.size_bytes() + self.solver.table().size_bytes()) >> 20
    }

    fn with_tables(tt: TransTable, solver: Solver) -> Searcher {
        Searcher {
            main: Worker::new(Arc::new(tt), 0),
            helpers: Vec::new(),
            solver,
            prover: None,
            threads: 1,
            book_hits: 0,
            secured: None,
            techniques: Techniques::ALL,
            book: None,
        }
    }

    /// Reallocates both tables, prepared (everything learnt is lost; the book, the threads and
    /// the techniques stay). When the machine cannot give the new size, the old tables stay as
    /// they were. The new tables are reserved before the old ones are freed (address space,
    /// not memory), and prepared after: the old and the new never hold memory together.
    pub fn set_hash(&mut self, hash_mb: usize) -> Result<(), TableError> {
        self.set_hash_until(hash_mb, &|| false)
    }

    /// [`Searcher::set_hash`], its preparation given up when `cancelled` says so.
    pub fn set_hash_until(
        &mut self,
        hash_mb: usize,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), TableError> {
        let mut fresh = Searcher::reserve(hash_mb, self.hash_mb())?;
        fresh.techniques = self.techniques;
        fresh.set_book(self.book.clone());
        fresh.set_threads(self.threads());
        *self = fresh;
        self.prepare(cancelled);
        Ok(())
    }

    /// Searches and proves with `threads` threads from now on (1..=[`MAX_THREADS`]). One
    /// thread takes turns: an iteration of the search, a try of the solver. With more, the
    /// exact solver proves the root all the time on a thread of its own (the prover; half the
    /// threads, rounded up, race in its proofs), beside the depth-limited search on the others
    /// (helpers beside the main thread, sharing its table: Lazy SMP). Side by side rather than
    /// taking turns on all the threads: the short proofs a time limit allows gain little from
    /// more threads, and the search as little, so each part does more with its threads the
    /// whole time.
    pub fn set_threads(&mut self, threads: usize) {
        let threads = threads.clamp(1, MAX_THREADS);
        self.threads = threads;
        let search = if threads == 1 { 1 } else { threads / 2 };
        self.helpers.truncate(search - 1);
        while self.helpers.len() < search - 1 {
            let id = self.helpers.len() as u32 + 1;
            self.helpers.push(Worker::new(self.main.tt.clone(), id));
        }
        self.prover = (threads > 1).then(|| {
            let mut p = self.solver.beside();
            p.set_threads(threads - search);
            p
        });
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Installs (or removes) the opening book; consulted only with `techniques.book`.
    pub fn set_book(&mut self, book: Option<Arc<Book>>) {
        self.book = book;
        let consulted = self.techniques.book.then(|| self.book.clone()).flatten();
        if let Some(p) = &mut self.prover {
            p.set_book(consulted.clone());
        }
        self.solver.set_book(consulted);
    }

    /// Searches with `techniques` from now on (see [`Techniques`]).
    pub fn set_techniques(&mut self, techniques: Techniques) {
        self.techniques = techniques;
        self.set_book(self.book.clone());
    }

    pub fn techniques(&self) -> Techniques {
        self.techniques
    }

    /// Forgets everything learnt: the next search behaves like the first after start-up.
    pub fn clear(&mut self) {
        // the table is the helpers' too
        self.main.tt.clear();
        self.solver.clear();
        if let Some(p) = &mut self.prover {
            // its table is `solver`'s, cleared above
            p.clear_own();
        }
        for w in std::iter::once(&mut self.main).chain(&mut self.helpers) {
            w.forget();
        }
    }

    /// Searches `root` until a limit, the control's stop flag or its deadlines end it.
    pub fn search<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        root: &Position<W, H, B>,
        limits: &SearchLimits,
        control: &Arc<SearchControl>,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        self.book_hits = 0;
        self.secured = None;
        let budget = NodeBudget::start(0, limits.nodes);
        self.main.start(Some(control.clone()), None, budget);
        let result = self.run(root, limits, control, reporter);
        self.main.limits = Limits::default();
        result
    }
}

/// Splits the `Hash` megabytes between the searcher's table and the solver's.
pub fn split_hash(hash_mb: usize) -> (usize, usize) {
    let mb = hash_mb.max(2);
    (mb / 2, mb - mb / 2)
}

#[cfg(test)]
mod tests;
