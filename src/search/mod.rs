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
//! The parts: [`worker`] one thread's search and what the threads share, [`simple`] the study's
//! simple searches, [`report`] what a search is asked and reports, [`techniques`] the switches.
//!
//! Internal values: heuristic values stay within `±eval::MAX_EVAL`; a proven result with the
//! exact score `s` is [`score::proven_value`]`(s)`, beyond [`score::MATE`].

mod line;
mod report;
pub mod simple;
mod techniques;
mod worker;

pub use report::{Iteration, Line, Reporter, ScoreBound, SearchLimits, SearchResult};
pub use techniques::Techniques;

use crate::bits::Bitboard;
use crate::board::Position;
use crate::book::Book;
use crate::control::{Limits, NodeBudget, SearchControl};
use crate::ordering::column_order;
use crate::score::{self, Score};
use crate::solver::{RootProof, Solver, MAX_THREADS};
use crate::tt::{check_size_freeing, TableError, TransTable};
use std::sync::Arc;
use std::time::Duration;
use worker::{next_order, Crew, FinishOnDrop, Worker};

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
    /// (helpers beside the main thread, sharing its table: Lazy SMP). Taking turns, every
    /// thread would be in the part that is running: but the proofs the time allows (a few
    /// milliseconds to a second) gain little from a second thread (`vier solve --threads 2`
    /// solves Pons' Test_L1_R2 only 1.2-1.4 times faster), and the search as little; side by
    /// side, each part has its threads the whole time.
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

    fn run<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        root: &Position<W, H, B>,
        limits: &SearchLimits,
        control: &Arc<SearchControl>,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        let cells = (W * H) as u32;
        let moves = root.moves();
        if root.is_game_over() {
            let score = if root.last_mover_won() {
                Score::Loss(0)
            } else {
                Score::Draw
            };
            let last = Iteration {
                depth: 0,
                seldepth: 0,
                lines: vec![Line {
                    score,
                    bound: ScoreBound::Exact,
                    pv: vec![],
                }],
                nodes: 0,
                time: control.elapsed(),
                hashfull: self.main.tt.hashfull(),
                solved: true,
                book_hits: 0,
            };
            self.idle(limits, control);
            return SearchResult { best: None, last };
        }
        let legal: Vec<usize> = column_order::<W>()
            .into_iter()
            .filter(|&c| root.can_play(c))
            .collect();
        let mut order: Vec<usize> = legal
            .iter()
            .copied()
            .filter(|c| limits.searchmoves.contains(c))
            .collect();
        if order.is_empty() {
            order = legal;
        }
        let multipv = limits.multipv.clamp(1, order.len());
        let max_depth = (cells - moves).min(limits.depth.unwrap_or(u32::MAX)).max(1);
        if !self.techniques.engine {
            let tt = &self.main.tt;
            let t = self.techniques;
            let mut last =
                simple::deepen(t, root, &order, max_depth, limits, control, tt, reporter);
            self.main.nodes = last.nodes;
            self.idle(limits, control);
            last.time = control.elapsed();
            return SearchResult {
                best: last.lines[0].pv.first().copied(),
                last,
            };
        }
        // The book scores every move here: answer at once, before any search (at a few
        // milliseconds the first iteration may use up the time).
        if multipv == 1 && order.len() == root.legal_columns().count() {
            self.solver.reset_nodes();
            if let Some((c, v)) = self.solver.book_move(root) {
                self.book_hits += self.solver.book_hits();
                let line = Line {
                    score: Score::from_exact(cells as i32, moves as i32, v),
                    bound: ScoreBound::Exact,
                    pv: vec![c],
                };
                let it = self.iteration(1, vec![line], true, control);
                reporter.report(&it);
                self.idle(limits, control);
                return SearchResult {
                    best: Some(c),
                    last: it,
                };
            }
        }
        let mut last = match self.prover.take() {
            Some(prover) if self.techniques.solver => self.search_beside(
                prover, root, order, multipv, max_depth, limits, control, reporter,
            ),
            prover => {
                self.prover = prover;
                let interleave = self.techniques.solver;
                self.search_threads(
                    root, order, multipv, max_depth, control, reporter, interleave,
                )
            }
        };
        // an unproven search does not overrule a move proven to keep a known value
        if let Some((c, x)) = self.secured {
            if !last.solved && last.lines[0].pv.first() != Some(&c) {
                last.lines[0] = Line {
                    score: Score::from_exact(cells as i32, moves as i32, x),
                    bound: ScoreBound::Lower,
                    pv: vec![c],
                };
            }
        }
        self.idle(limits, control);
        // every thread's nodes: the helpers have ended and counted theirs
        last.nodes = self.main.nodes + self.helpers.iter().map(|h| h.nodes).sum::<u64>();
        last.time = control.elapsed();
        last.hashfull = self.main.tt.hashfull();
        SearchResult {
            best: last.lines[0].pv.first().copied(),
            last,
        }
    }

    /// The search with the prover beside it, on threads of their own (see
    /// [`Searcher::set_threads`]): the first to settle the root ends the other, and the search
    /// ending (its time, its depth, `stop`) ends the prover. A node limit is the two's
    /// together. Reports the prover's proof as the last iteration.
    #[allow(clippy::too_many_arguments)]
    fn search_beside<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        mut prover: Solver,
        root: &Position<W, H, B>,
        order: Vec<usize>,
        multipv: usize,
        max_depth: u32,
        limits: &SearchLimits,
        control: &Arc<SearchControl>,
        reporter: &mut dyn Reporter,
    ) -> Iteration {
        let one_line = multipv == 1 && order.len() == root.legal_columns().count();
        let proven = SearchControl::unlimited();
        let ended = SearchControl::unlimited();
        if let Some(n) = limits.nodes {
            self.main.limits.budget = NodeBudget::start(self.main.nodes, Some(n - n / 2));
        }
        // half the limit for the prover, whose two steps get a budget each (see `prove_root`)
        let budget = limits.nodes.map_or(u64::MAX, |n| n / 4);
        self.main.limits.group = Some(proven.clone());
        let mut secured = None;
        prover.reset_nodes();
        let (mut last, proof) = std::thread::scope(|scope| {
            let proving = scope.spawn(|| {
                let proof = prover.prove_root(root, one_line, &mut secured, &ended, budget);
                if proof != RootProof::Unproven {
                    proven.stop();
                }
                proof
            });
            let last = {
                // the prover ends even if the search unwinds, so the scope joining it ends
                let _end = StopOnDrop(&ended);
                let order = order.clone();
                self.search_threads(root, order, multipv, max_depth, control, reporter, false)
            };
            let proof = proving
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            (last, proof)
        });
        self.main.limits.group = None;
        self.main.nodes += prover.nodes();
        self.book_hits += prover.book_hits();
        self.prover = Some(prover);
        self.secured = secured;
        if !last.solved {
            if let Some(lines) = self.proof_lines::<W, H>(proof, root.moves(), &order, multipv) {
                let it = self.iteration(last.depth, lines, true, control);
                reporter.report(&it);
                last = it;
            }
        }
        last
    }

    /// The search on the main thread and its helpers (Lazy SMP); with `interleave`, the main
    /// thread gives the solver a try between iterations.
    #[allow(clippy::too_many_arguments)]
    fn search_threads<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        root: &Position<W, H, B>,
        order: Vec<usize>,
        multipv: usize,
        max_depth: u32,
        control: &Arc<SearchControl>,
        reporter: &mut dyn Reporter,
        interleave: bool,
    ) -> Iteration {
        if self.helpers.is_empty() {
            self.deepen(
                root, order, multipv, max_depth, control, reporter, interleave,
            )
        } else {
            let crew = Arc::new(Crew::new());
            let mut helpers = std::mem::take(&mut self.helpers);
            let last = std::thread::scope(|scope| {
                let _finish = FinishOnDrop(&crew);
                for h in helpers.iter_mut() {
                    h.start(
                        Some(control.clone()),
                        Some(crew.clone()),
                        NodeBudget::UNLIMITED,
                    );
                    let order = &order;
                    scope.spawn(move || h.lazy(root, order, max_depth));
                }
                self.main.crew = Some(crew.clone());
                let order = order.clone();
                self.deepen(
                    root, order, multipv, max_depth, control, reporter, interleave,
                )
            });
            self.main.crew = None;
            self.helpers = helpers;
            last
        }
    }

    /// The main thread's iterative deepening, with the solver's tries between iterations when
    /// it `interleave`s; the last iteration (complete or cut short).
    #[allow(clippy::too_many_arguments)]
    fn deepen<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        root: &Position<W, H, B>,
        mut order: Vec<usize>,
        multipv: usize,
        max_depth: u32,
        control: &Arc<SearchControl>,
        reporter: &mut dyn Reporter,
        interleave: bool,
    ) -> Iteration {
        let cells = (W * H) as u32;
        let moves = root.moves();
        let mut last: Option<Iteration> = None;
        let mut search_nodes = 0u64;
        for depth in 1..=max_depth {
            self.main.can_stop = depth > 1;
            let before = self.main.nodes;
            let (mut done, complete) = self.main.root_search(root, depth as i32, &order, multipv);
            search_nodes += self.main.nodes - before;
            if !complete && done.is_empty() {
                break;
            }
            // best first; a stable sort keeps the search order among equals
            done.sort_by_key(|m| std::cmp::Reverse(m.1));
            let full_depth = depth >= cells - moves;
            let proven = full_depth || score::is_proven(done[0].1);
            let bound = if complete {
                ScoreBound::Exact
            } else {
                ScoreBound::Lower
            };
            let lines = done
                .iter()
                .take(multipv)
                .map(|(_, v, pv)| Line {
                    score: score::from_value(cells as i32, moves as i32, *v, full_depth),
                    bound,
                    pv: pv.iter().map(|&c| c as usize).collect(),
                })
                .collect();
            self.main.prev_pv = done[0].2.clone();
            order = next_order(&done, &order);
            let it = self.iteration(depth, lines, proven && complete, control);
            if complete {
                reporter.report(&it);
            }
            last = Some(it);
            if !complete || proven || self.should_end(control) {
                break;
            }
            // Give the exact solver a try, with as much work as the search (the main thread's,
            // so that the solver gets about as much time) has done so far (not when the study
            // leaves it out, nor when the prover runs beside the search).
            if !interleave {
                continue;
            }
            if let Some(lines) = self.try_solve(root, &order, multipv, search_nodes, control) {
                let it = self.iteration(depth, lines, true, control);
                reporter.report(&it);
                last = Some(it);
                break;
            }
            if self.should_end(control) {
                break;
            }
        }
        last.expect("depth 1 always completes")
    }

    /// Under `infinite` or while pondering, a finished search waits for `stop` (or `ponderhit`).
    fn idle(&self, limits: &SearchLimits, control: &SearchControl) {
        while !control.is_stopped() && (limits.infinite || control.is_pondering()) {
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    fn should_end(&mut self, control: &SearchControl) -> bool {
        self.main.stopped || self.main.limits.reached(self.main.all_nodes()) || control.past_soft()
    }

    fn iteration(
        &self,
        depth: u32,
        lines: Vec<Line>,
        solved: bool,
        control: &SearchControl,
    ) -> Iteration {
        Iteration {
            depth,
            seldepth: (self.main.seldepth as u32).max(depth),
            lines,
            nodes: self.main.all_nodes(),
            time: control.elapsed(),
            hashfull: self.main.tt.hashfull(),
            solved,
            book_hits: self.book_hits,
        }
    }

    /// One solver attempt on the root; the lines if it finished.
    fn try_solve<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        root: &Position<W, H, B>,
        order: &[usize],
        multipv: usize,
        search_nodes: u64,
        control: &Arc<SearchControl>,
    ) -> Option<Vec<Line>> {
        // the search's work is the main thread's; the solver's budget counts all its threads'
        let threads = self.solver.threads() as u64;
        let budget = (search_nodes.max(MIN_SOLVER_BUDGET) * threads).min(
            self.main
                .limits
                .budget
                .remaining(self.main.all_nodes())
                .unwrap_or(u64::MAX),
        );
        if budget < 1000 {
            return None;
        }
        let moves = root.moves();
        let one_line = multipv == 1 && order.len() == root.legal_columns().count();
        self.solver.reset_nodes();
        if let Some(crew) = &self.main.crew {
            crew.pause();
        }
        let proof = self
            .solver
            .prove_root(root, one_line, &mut self.secured, control, budget);
        if let Some(crew) = &self.main.crew {
            crew.resume();
        }
        self.main.nodes += self.solver.nodes();
        self.book_hits += self.solver.book_hits();
        self.proof_lines::<W, H>(proof, moves, order, multipv)
    }

    /// The lines a root proof gives (`None`: unproven), the search's line kept where it starts
    /// with the proven move.
    fn proof_lines<const W: usize, const H: usize>(
        &self,
        proof: RootProof,
        moves: u32,
        order: &[usize],
        multipv: usize,
    ) -> Option<Vec<Line>> {
        let prev_pv = &self.main.prev_pv;
        let scores = match proof {
            RootProof::Keeps { col, score } => {
                let pv = if prev_pv.first() == Some(&(col as u8)) {
                    prev_pv.iter().map(|&m| m as usize).collect()
                } else {
                    vec![col]
                };
                return Some(vec![Line {
                    score: Score::from_exact((W * H) as i32, moves as i32, score),
                    bound: ScoreBound::Exact,
                    pv,
                }]);
            }
            RootProof::Unproven => return None,
            RootProof::Columns(scores) => scores,
        };
        let mut ranked: Vec<(usize, i32)> = order
            .iter()
            .filter_map(|&c| scores[c].map(|s| (c, s)))
            .collect();
        // ties go to the column nearer the centre
        let centre = column_order::<W>();
        ranked.sort_by_key(|&(c, s)| {
            (
                std::cmp::Reverse(s),
                centre.iter().position(|&x| x == c).unwrap_or(W),
            )
        });
        Some(
            ranked
                .iter()
                .take(multipv)
                .map(|&(c, s)| {
                    // keep the search's line when it starts with the same move
                    let pv = if prev_pv.first() == Some(&(c as u8)) {
                        prev_pv.iter().map(|&m| m as usize).collect()
                    } else {
                        vec![c]
                    };
                    Line {
                        score: Score::from_exact((W * H) as i32, moves as i32, s),
                        bound: ScoreBound::Exact,
                        pv,
                    }
                })
                .collect(),
        )
    }
}

/// Stops a control when dropped, even by a panic.
struct StopOnDrop<'a>(&'a SearchControl);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Splits the `Hash` megabytes between the searcher's table and the solver's.
pub fn split_hash(hash_mb: usize) -> (usize, usize) {
    let mb = hash_mb.max(2);
    (mb / 2, mb - mb / 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::SearchControl;
    use crate::time::Deadlines;

    type P = Position<7, 6>;

    fn run(p: &P, limits: SearchLimits) -> (SearchResult, Vec<Iteration>) {
        run_on(&mut Searcher::new(8), p, limits)
    }

    fn run_on(s: &mut Searcher, p: &P, limits: SearchLimits) -> (SearchResult, Vec<Iteration>) {
        let control = SearchControl::new(Deadlines::default(), false);
        let mut its = Vec::new();
        let r = s.search(p, &limits, &control, &mut |it: &Iteration| {
            its.push(it.clone())
        });
        (r, its)
    }

    fn depth(d: u32) -> SearchLimits {
        SearchLimits {
            depth: Some(d),
            multipv: 1,
            ..Default::default()
        }
    }

    fn nodes(n: u64) -> SearchLimits {
        SearchLimits {
            nodes: Some(n),
            multipv: 1,
            ..Default::default()
        }
    }

    #[test]
    fn mate_numbers() {
        // x to move wins at once in column 4
        let (r, _) = run(&P::from_moves("414141").unwrap(), depth(3));
        assert_eq!(r.best, Some(3));
        assert_eq!(r.last.lines[0].score, Score::Win(1));
        // o threatens column 1: x must block
        let (r, _) = run(&P::from_moves("414151").unwrap(), depth(2));
        assert_eq!(r.best, Some(0));
    }

    #[test]
    fn proves_the_root_without_scoring_every_column() {
        // Won (+11, column 3): the root's proof takes about 2K nodes, the exact scores of the
        // six losing columns millions, so a search that scored every column stayed unproven.
        let p = P::from_moves("32163126").unwrap();
        let limits = nodes(20_000);
        let (r, its) = run(&p, limits);
        assert!(r.last.solved, "{its:?}");
        assert_eq!(r.best, Some(2));
        assert_eq!(r.last.lines[0].score, Score::from_exact(42, 8, 11));
    }

    #[test]
    fn finds_forced_loss_and_win_in_two() {
        // x: 3,4 on the bottom, o: 1,1; x plays 5 and threatens both 2 and 6
        let (r, its) = run(&P::from_moves("3141").unwrap(), depth(5));
        assert_eq!(r.last.lines[0].score, Score::Win(2), "{its:?}");
        assert_eq!(r.best, Some(4));
        let (r, its) = run(&P::from_moves("31415").unwrap(), depth(5));
        assert_eq!(r.last.lines[0].score, Score::Loss(1), "{its:?}");
    }

    #[test]
    fn last_cell_is_a_draw() {
        // a drawn full board less its top-left cell, o to move
        let p = P::from_board_string("1xoxoxo/oxoxoxo/xoxoxox/xoxoxox/oxoxoxo/xoxoxox o").unwrap();
        for d in [1, 2, 5] {
            let (r, its) = run(&p, depth(d));
            assert_eq!(r.best, Some(0));
            assert_eq!(r.last.lines[0].score, Score::Draw, "{its:?}");
        }
        // two cells left
        let p = P::from_board_string("2oxoxo/oxoxoxo/xoxoxox/xoxoxox/oxoxoxo/xoxoxox x").unwrap();
        let (r, its) = run(&p, depth(3));
        assert_eq!(r.last.lines[0].score, Score::Draw, "{its:?}");
    }

    #[test]
    fn game_over_has_no_move() {
        let p = P::from_moves("4141414").unwrap();
        let (r, its) = run(&p, depth(3));
        assert_eq!(r.best, None);
        assert!(its.is_empty());
        assert_eq!(r.last.lines[0].score, Score::Loss(0));
    }

    #[test]
    fn reproducible_nodes() {
        let p = P::from_moves("4453").unwrap();
        let a = run(&p, depth(8)).0.last.nodes;
        let b = run(&p, depth(8)).0.last.nodes;
        assert_eq!(a, b);
        assert!(a > 0);
    }

    #[test]
    fn solves_endgames_exactly() {
        // Pons Test_L3_R1's first line: score 0? use the solver as the reference
        let moves = "2252576253462244111563365343671351441";
        let p = P::from_moves(moves).unwrap();
        let mut solver = Solver::new(8);
        let exact = solver.solve(&p).unwrap();
        let (r, its) = run(
            &p,
            SearchLimits {
                multipv: 1,
                ..Default::default()
            },
        );
        assert!(its.last().unwrap().solved);
        assert_eq!(
            r.last.lines[0].score,
            Score::from_exact(42, p.moves() as i32, exact),
            "{its:?}"
        );
        let scores = solver.analyze(&p, false).unwrap();
        assert_eq!(scores[r.best.unwrap()], Some(exact));
    }

    #[test]
    fn multipv_and_searchmoves() {
        let p = P::from_moves("44").unwrap();
        let (r, _) = run(
            &p,
            SearchLimits {
                depth: Some(4),
                multipv: 3,
                ..Default::default()
            },
        );
        assert_eq!(r.last.lines.len(), 3);
        let (r, _) = run(
            &p,
            SearchLimits {
                depth: Some(4),
                multipv: 1,
                searchmoves: vec![0],
                ..Default::default()
            },
        );
        assert_eq!(r.best, Some(0));
    }

    /// An infinite search ends when its stop flag is raised, with a move: another thread
    /// raises it once the search has reported its first depth.
    fn assert_stops_on_flag(mut s: Searcher) {
        let control = SearchControl::new(Deadlines::default(), false);
        let c2 = control.clone();
        let (reported, first_report) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            // the timeout only guards a hang: depth 1 is reported at once
            let _ = first_report.recv_timeout(Duration::from_secs(60));
            c2.stop();
        });
        let limits = SearchLimits {
            infinite: true,
            multipv: 1,
            ..Default::default()
        };
        let r = s.search(&P::new(), &limits, &control, &mut |_: &Iteration| {
            let _ = reported.send(());
        });
        t.join().unwrap();
        assert!(r.best.is_some());
    }

    #[test]
    fn stops_on_flag() {
        assert_stops_on_flag(Searcher::new(8));
    }

    fn two_threads() -> Searcher {
        let mut s = Searcher::new(8);
        s.set_threads(2);
        s
    }

    /// Lazy SMP may change which line the main thread finds, but not what is proven: wins and
    /// losses within the depth are found as with one thread, and the reported nodes are every
    /// thread's (the helper always completes its first iteration, so it has some).
    #[test]
    fn two_threads_find_proven_wins_and_losses() {
        let mut s = two_threads();
        let (r, its) = run_on(&mut s, &P::from_moves("414141").unwrap(), depth(3));
        assert_eq!(
            (r.best, r.last.lines[0].score),
            (Some(3), Score::Win(1)),
            "{its:?}"
        );
        let (r, its) = run_on(&mut s, &P::from_moves("3141").unwrap(), depth(5));
        assert_eq!(
            (r.best, r.last.lines[0].score),
            (Some(4), Score::Win(2)),
            "{its:?}"
        );
        let (r, its) = run_on(&mut s, &P::from_moves("31415").unwrap(), depth(5));
        assert_eq!(r.last.lines[0].score, Score::Loss(1), "{its:?}");
        let (r, _) = run_on(&mut s, &P::from_moves("4453").unwrap(), depth(10));
        assert!(P::from_moves("4453").unwrap().can_play(r.best.unwrap()));
        // two threads: the search on one, the prover on the other; its nodes count
        assert!(s.helpers.is_empty());
        let proved = s.prover.as_ref().unwrap().nodes();
        assert!(proved > 0);
        assert!(r.last.nodes > proved);
        assert_eq!(r.last.nodes, s.main.nodes);
        // four: the search on two (a helper beside the main thread), the prover's race on two
        s.set_threads(4);
        let (r, _) = run_on(&mut s, &P::from_moves("4453").unwrap(), depth(10));
        let helpers: u64 = s.helpers.iter().map(|h| h.nodes).sum();
        assert!(helpers > 0);
        assert_eq!(r.last.nodes, s.main.nodes + helpers);
        assert_eq!(s.prover.as_ref().unwrap().threads(), 2);
        s.set_threads(2);
        assert_eq!(s.threads(), 2);
        s.set_hash(4).unwrap();
        assert_eq!(s.threads(), 2, "a new Hash keeps the threads");
        let size = s.main.tt.size_bytes();
        let too_much = crate::tt::machine_memory_mb().unwrap() + 2;
        assert!(matches!(
            s.set_hash(too_much),
            Err(TableError::MoreThanMachine { .. })
        ));
        assert_eq!(
            (s.main.tt.size_bytes(), s.threads()),
            (size, 2),
            "a refused Hash changes nothing"
        );
    }

    /// Two threads searching middle-game positions to a fixed depth play a legal move, and
    /// whatever they report as proven agrees with the exact solver.
    #[test]
    fn two_threads_agree_with_the_solver() {
        let mut solver = Solver::new(8);
        let mut s = two_threads();
        let mut proven = 0;
        for moves in [
            "2252576253462244111563365343671351441",
            "5554224333234511764415115",
            "52753311433677442422121",
            "1233722555341451114725221333",
            "271713432331713132",
        ] {
            let p = P::from_moves(moves).unwrap();
            s.clear();
            let (r, its) = run_on(&mut s, &p, depth(12));
            let best = r.best.unwrap();
            assert!(p.can_play(best), "{moves}: {best}");
            if r.last.solved {
                proven += 1;
                let exact = solver.solve(&p).unwrap();
                let want = Score::from_exact(42, p.moves() as i32, exact);
                assert_eq!(r.last.lines[0].score, want, "{moves}: {its:?}");
                let scores = solver.analyze(&p, false).unwrap();
                assert_eq!(scores[best], Some(exact), "{moves}: {best}");
            }
        }
        assert!(proven > 0, "the endgames are proven within depth 12");
    }

    #[test]
    fn two_threads_solve_endgames_exactly() {
        let moves = "2252576253462244111563365343671351441";
        let p = P::from_moves(moves).unwrap();
        let exact = Solver::new(8).solve(&p).unwrap();
        let limits = SearchLimits {
            multipv: 1,
            ..Default::default()
        };
        let (r, its) = run_on(&mut two_threads(), &p, limits);
        assert!(its.last().unwrap().solved);
        assert_eq!(
            r.last.lines[0].score,
            Score::from_exact(42, p.moves() as i32, exact),
            "{its:?}"
        );
    }

    /// With two threads the prover settles the root beside the search: `32163126` is won (+11)
    /// in a proof of about 2,000 nodes that the search alone does not find within the limit.
    #[test]
    fn two_threads_play_the_provers_proof() {
        let p = P::from_moves("32163126").unwrap();
        let limits = nodes(400_000);
        let (r, its) = run_on(&mut two_threads(), &p, limits);
        assert!(r.last.solved, "{its:?}");
        assert_eq!(r.best, Some(2));
        assert_eq!(r.last.lines[0].score, Score::from_exact(42, 8, 11));
        let reported = its.last().unwrap();
        assert!(reported.solved && reported.lines == r.last.lines, "{its:?}");
    }

    /// A node limit counts the search's and the prover's nodes together (each has a share,
    /// rounded up to its polls): the empty board is proven by neither within it.
    #[test]
    fn a_node_limit_is_the_search_and_the_provers_together() {
        for threads in [2, 4] {
            let mut s = Searcher::new(8);
            s.set_threads(threads);
            let limits = nodes(300_000);
            let (r, its) = run_on(&mut s, &P::new(), limits);
            assert!(!r.last.solved, "{its:?}");
            let polls = threads as u64 * (crate::control::SOLVER_POLL_NODES + 1024);
            assert!(
                r.last.nodes <= 300_000 + polls,
                "{threads}: {}",
                r.last.nodes
            );
            // the prover's count in the total (it ends when the search does, maybe before its
            // share is used)
            let proved = s.prover.as_ref().unwrap().nodes();
            assert!(proved > 0 && r.last.nodes > proved, "{threads}: {proved}");
        }
    }

    /// An infinite search on two threads ends with its stop flag: the helpers end with it (the
    /// search waits for them).
    #[test]
    fn two_threads_stop_on_flag() {
        assert_stops_on_flag(two_threads());
    }
}
