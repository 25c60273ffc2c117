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
//! With [`Searcher::set_threads`] above 1 the search runs on several threads (Lazy SMP): helper
//! threads run the same iterative deepening of the same root beside the main thread, sharing
//! its lock-free table, odd helpers one ply ahead and each with its move order varied near the
//! root, so that they search other subtrees first and leave in the table what the main thread
//! will need. Helpers report nothing; the main thread alone reports, tries the solver between
//! iterations (the helpers wait meanwhile: the solver's proofs race on as many threads) and
//! decides the move from its own iterations. When it ends, the helpers are stopped; reported
//! node counts add up every thread's.
//!
//! Search code never prints: each finished depth goes to a [`Reporter`]. The searcher polls its
//! [`SearchControl`] (the one stop rule of [`crate::control`]) and its node limit every 1024 nodes;
//! the solver, which gets one call per iteration ([`Solver::prove_root`]), polls the same rule
//! every 4096.
//!
//! Internal values: heuristic values stay within `±eval::MAX_EVAL`; a proven result with the
//! exact score `s` is [`score::proven_value`]`(s)`, beyond [`score::MATE`].

use crate::ablation;
use crate::board::{Geometry, Position};
use crate::book::Book;
use crate::control::SearchControl;
use crate::eval;
use crate::ordering::{column_order, History, MoveSorter};
use crate::score::{self, Score};
use crate::solver::{RootProof, Solver, MAX_THREADS};
use crate::tt::{check_size, Bound, Heuristic, TableError, TransTable};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The table size a searcher gets unless told otherwise (the protocol's `Hash` default).
pub const DEFAULT_HASH_MB: usize = 32;
const INF: i32 = 20_000;
const MAX_PLY: usize = 64;
const NO_MOVE: u8 = u8::MAX;
/// Helper threads order moves differently within this many plies of the root (see
/// [`Worker::lazy`]).
const JITTER_PLIES: usize = 3;
/// The smallest node budget of a solver attempt.
pub const MIN_SOLVER_BUDGET: u64 = 10_000;

/// Whether a reported score is exact or only a bound (an interrupted iteration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreBound {
    Exact,
    Lower,
    Upper,
}

/// One scored line (`multipv` lines per report, best first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub score: Score,
    pub bound: ScoreBound,
    /// 0-based columns, starting with the root move.
    pub pv: Vec<usize>,
}

/// What one finished depth (or a solver success) found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iteration {
    pub depth: u32,
    pub seldepth: u32,
    /// Best first; at least one line.
    pub lines: Vec<Line>,
    /// Search plus solver nodes since the search started.
    pub nodes: u64,
    pub time: Duration,
    /// Permille of the searcher's table in use.
    pub hashfull: u32,
    /// True once the root's value is proven.
    pub solved: bool,
    /// Positions the opening book answered since the search started.
    pub book_hits: u64,
}

/// Receives each finished depth. Implemented for closures.
pub trait Reporter {
    fn report(&mut self, it: &Iteration);
}

impl<F: FnMut(&Iteration)> Reporter for F {
    fn report(&mut self, it: &Iteration) {
        self(it)
    }
}

/// Limits of one search besides time (time comes through [`SearchControl`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// Stop after this depth (plies).
    pub depth: Option<u32>,
    /// Stop after about this many nodes (search plus solver); depth 1 always finishes.
    pub nodes: Option<u64>,
    /// Search until stopped: having finished (solved, depth or node limit), idle until `stop`.
    pub infinite: bool,
    /// Root moves to consider, 0-based columns; empty or none legal = all.
    pub searchmoves: Vec<usize>,
    /// Lines to report, 1.. (clamped to the legal moves).
    pub multipv: usize,
}

/// What a search ends with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// 0-based column to play; `None` when the game is already over.
    pub best: Option<usize>,
    /// The final report (nodes and time as of the end); for a finished game a depth-0 report.
    pub last: Iteration,
}

/// The searcher: the search table, the exact solver (with its table), and the search state of
/// its threads: the main thread's and, with [`Searcher::set_threads`], its helpers'.
pub struct Searcher {
    /// The thread that reports and decides the move.
    main: Worker,
    /// Helper threads' states, sharing `main`'s table (empty: one thread).
    helpers: Vec<Worker>,
    solver: Solver,
    book_hits: u64,
    /// A root move proven to keep at least this solver score, played if nothing is proven.
    secured: Option<(usize, i32)>,
    /// The study's [`ablation`] level; [`ablation::FULL`] is the engine.
    level: u8,
    /// The book given by [`Searcher::set_book`]; the solver consults it only at the full level.
    book: Option<Arc<Book>>,
}

/// One thread's depth-limited search: the shared table, its own history, killers and lines.
struct Worker {
    tt: Arc<TransTable>,
    history: History,
    killers: [[u8; 2]; MAX_PLY + 1],
    pv: Box<[[u8; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    prev_pv: Vec<u8>,
    /// This thread's nodes in the running search (the main thread's include the solver's).
    nodes: u64,
    seldepth: usize,
    stopped: bool,
    can_stop: bool,
    node_limit: u64,
    control: Option<Arc<SearchControl>>,
    /// 0 for the main thread; a helper's number, which varies its move order near the root.
    id: u32,
    /// The threads of the running search, when there are helpers.
    crew: Option<Arc<Crew>>,
    /// The part of `nodes` a helper has added to its crew's count.
    flushed: u64,
}

/// What the threads of one search share besides the table. The helpers end by the search's own
/// stop rule or when `done` is stopped (the main thread's search has ended: they run the same
/// [`SearchControl`] rule as the solver's racing helpers). While the main thread runs the exact
/// solver the helpers wait, so that the solver's own threads have the cores.
struct Crew {
    done: Arc<SearchControl>,
    /// Helpers' nodes, added every 1024 nodes and at their end.
    nodes: AtomicU64,
    paused: AtomicBool,
    lock: Mutex<()>,
    resume: Condvar,
}

impl Crew {
    fn new() -> Crew {
        Crew {
            done: SearchControl::unlimited(),
            nodes: AtomicU64::new(0),
            paused: AtomicBool::new(false),
            lock: Mutex::new(()),
            resume: Condvar::new(),
        }
    }

    fn pause(&self) {
        self.paused.store(true, Ordering::SeqCst);
    }

    fn resume(&self) {
        // under the lock: a helper between its check and its wait cannot miss the wake-up
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.paused.store(false, Ordering::SeqCst);
        self.resume.notify_all();
    }

    /// The main thread's search has ended: the helpers stop.
    fn finish(&self) {
        self.done.stop();
        self.resume();
    }

    /// A helper waits here while the crew is paused; the timeout lets it see the search's stop
    /// rule (nobody notifies a deadline).
    fn wait_while_paused(&self, control: Option<&SearchControl>) {
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while self.paused.load(Ordering::SeqCst)
            && !self.done.must_stop()
            && !control.is_some_and(|c| c.must_stop())
        {
            g = match self.resume.wait_timeout(g, Duration::from_millis(1)) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }
}

/// Ends the helpers even if the main thread's search unwinds, so the scope joining them ends.
struct FinishOnDrop<'a>(&'a Crew);

impl Drop for FinishOnDrop<'_> {
    fn drop(&mut self) {
        self.0.finish();
    }
}

/// A completed root move of one iteration: column, value, line.
type RootMove = (usize, i32, Vec<u8>);

impl Searcher {
    /// A searcher using about `hash_mb` megabytes, split evenly between its table and the
    /// solver's.
    pub fn new(hash_mb: usize) -> Searcher {
        let (a, b) = split_hash(hash_mb);
        Searcher::with_tables(TransTable::new(a), Solver::new(b))
    }

    /// A searcher with tables of the size a user chose, or why the machine cannot give them.
    pub fn try_new(hash_mb: usize) -> Result<Searcher, TableError> {
        check_size(hash_mb)?;
        let (a, b) = split_hash(hash_mb);
        Ok(Searcher::with_tables(
            TransTable::try_new(a)?,
            Solver::try_new(b)?,
        ))
    }

    fn with_tables(tt: TransTable, solver: Solver) -> Searcher {
        Searcher {
            main: Worker::new(Arc::new(tt), 0),
            helpers: Vec::new(),
            solver,
            book_hits: 0,
            secured: None,
            level: ablation::FULL,
            book: None,
        }
    }

    /// Reallocates both tables (everything learnt is lost; the book, the threads and the level
    /// stay). When the machine cannot give the new size, the old tables stay as they were. The
    /// new tables are taken before the old ones are freed: their pages are mapped lazily, so
    /// this costs address space, not memory.
    pub fn set_hash(&mut self, hash_mb: usize) -> Result<(), TableError> {
        let mut fresh = Searcher::try_new(hash_mb)?;
        fresh.level = self.level;
        fresh.set_book(self.book.clone());
        fresh.set_threads(self.threads());
        *self = fresh;
        Ok(())
    }

    /// Searches and proves with `threads` threads from now on (1..=[`MAX_THREADS`]): the
    /// depth-limited search runs helpers beside the main thread, sharing its table (Lazy SMP),
    /// and the exact solver's proofs race on as many threads.
    pub fn set_threads(&mut self, threads: usize) {
        let threads = threads.clamp(1, MAX_THREADS);
        self.solver.set_threads(threads);
        self.helpers.truncate(threads - 1);
        while self.helpers.len() < threads - 1 {
            let id = self.helpers.len() as u32 + 1;
            self.helpers.push(Worker::new(self.main.tt.clone(), id));
        }
    }

    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Installs (or removes) the opening book; the solver consults it at the full level only.
    pub fn set_book(&mut self, book: Option<Arc<Book>>) {
        self.book = book;
        let consulted = (self.level >= ablation::FULL)
            .then(|| self.book.clone())
            .flatten();
        self.solver.set_book(consulted);
    }

    /// Searches at the study's level `level` from now on (clamped to 1..=[`ablation::FULL`]; see
    /// [`ablation`]): below [`ablation::PVS`] the study's own searcher, at [`ablation::PVS`] this
    /// one without the solver, at [`ablation::SOLVER`] without the book.
    pub fn set_level(&mut self, level: u8) {
        self.level = level.clamp(ablation::MINIMAX, ablation::FULL);
        self.set_book(self.book.clone());
    }

    pub fn level(&self) -> u8 {
        self.level
    }

    /// Forgets everything learnt: the next search behaves like the first after start-up.
    pub fn clear(&mut self) {
        // the table is the helpers' too
        self.main.tt.clear();
        self.solver.clear();
        for w in std::iter::once(&mut self.main).chain(&mut self.helpers) {
            w.forget();
        }
    }

    /// Searches `root` until a limit, the control's stop flag or its deadlines end it.
    pub fn search<const W: usize, const H: usize>(
        &mut self,
        root: &Position<W, H>,
        limits: &SearchLimits,
        control: &Arc<SearchControl>,
        reporter: &mut dyn Reporter,
    ) -> SearchResult {
        self.book_hits = 0;
        self.secured = None;
        self.main.start(Some(control.clone()), None);
        self.main.node_limit = limits.nodes.unwrap_or(u64::MAX);
        let result = self.run(root, limits, control, reporter);
        self.main.control = None;
        result
    }

    fn run<const W: usize, const H: usize>(
        &mut self,
        root: &Position<W, H>,
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
        if self.level < ablation::PVS {
            let tt = &self.main.tt;
            let mut last = ablation::deepen(
                self.level, root, &order, max_depth, limits, control, tt, reporter,
            );
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
        let mut last = if self.helpers.is_empty() {
            self.deepen(root, order, multipv, max_depth, control, reporter)
        } else {
            let crew = Arc::new(Crew::new());
            let mut helpers = std::mem::take(&mut self.helpers);
            let last = std::thread::scope(|scope| {
                let _finish = FinishOnDrop(&crew);
                for h in helpers.iter_mut() {
                    h.start(Some(control.clone()), Some(crew.clone()));
                    let order = &order;
                    scope.spawn(move || h.lazy(root, order, max_depth));
                }
                self.main.crew = Some(crew.clone());
                self.deepen(root, order.clone(), multipv, max_depth, control, reporter)
            });
            self.main.crew = None;
            self.helpers = helpers;
            last
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

    /// The main thread's iterative deepening, with the solver's tries between iterations; the
    /// last iteration (complete or cut short).
    fn deepen<const W: usize, const H: usize>(
        &mut self,
        root: &Position<W, H>,
        mut order: Vec<usize>,
        multipv: usize,
        max_depth: u32,
        control: &Arc<SearchControl>,
        reporter: &mut dyn Reporter,
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
            // so that the solver gets about as much time) has done so far (not at the study's
            // level without it).
            if self.level < ablation::SOLVER {
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
        self.main.stopped
            || control.must_stop()
            || control.past_soft()
            || self.main.all_nodes() >= self.main.node_limit
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
    fn try_solve<const W: usize, const H: usize>(
        &mut self,
        root: &Position<W, H>,
        order: &[usize],
        multipv: usize,
        search_nodes: u64,
        control: &Arc<SearchControl>,
    ) -> Option<Vec<Line>> {
        let budget = search_nodes
            .max(MIN_SOLVER_BUDGET)
            .min(self.main.node_limit.saturating_sub(self.main.all_nodes()));
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

/// The next iteration's root order: this one's ranking (`done`, best first), then the moves it
/// did not reach, in their old order.
fn next_order(done: &[RootMove], order: &[usize]) -> Vec<usize> {
    let mut next: Vec<usize> = done.iter().map(|m| m.0).collect();
    let rest: Vec<usize> = order
        .iter()
        .copied()
        .filter(|c| !next.contains(c))
        .collect();
    next.extend(rest);
    next
}

impl Worker {
    fn new(tt: Arc<TransTable>, id: u32) -> Worker {
        Worker {
            tt,
            history: History::default(),
            killers: [[NO_MOVE; 2]; MAX_PLY + 1],
            pv: Box::new([[NO_MOVE; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            prev_pv: Vec::new(),
            nodes: 0,
            seldepth: 0,
            stopped: false,
            can_stop: false,
            node_limit: u64::MAX,
            control: None,
            id,
            crew: None,
            flushed: 0,
        }
    }

    /// Forgets what earlier searches taught this thread (the table is cleared by its owner).
    fn forget(&mut self) {
        self.history = History::default();
        self.killers = [[NO_MOVE; 2]; MAX_PLY + 1];
        self.prev_pv.clear();
    }

    /// Ready for a new search under `control`, with `crew` when threads search together.
    fn start(&mut self, control: Option<Arc<SearchControl>>, crew: Option<Arc<Crew>>) {
        self.nodes = 0;
        self.flushed = 0;
        self.seldepth = 0;
        self.stopped = false;
        self.can_stop = false;
        self.node_limit = u64::MAX;
        self.control = control;
        self.crew = crew;
        self.prev_pv.clear();
    }

    /// The nodes of the running search: the main thread's own and, while they run, what its
    /// helpers have counted so far.
    fn all_nodes(&self) -> u64 {
        match &self.crew {
            Some(c) if self.id == 0 => self.nodes + c.nodes.load(Ordering::Relaxed),
            _ => self.nodes,
        }
    }

    /// A helper's search: iterative deepening of the same root, reporting nothing, until the
    /// crew or the search's stop rule ends it, the depth limit is reached or the root is
    /// proven. Odd helpers start one ply deeper than the main thread, and every helper orders
    /// moves near the root a little differently (see [`Worker::negamax`]), so that the threads
    /// search different subtrees first and fill the shared table for each other.
    fn lazy<const W: usize, const H: usize>(
        &mut self,
        root: &Position<W, H>,
        order: &[usize],
        max_depth: u32,
    ) {
        self.can_stop = true;
        let mut order = order.to_vec();
        let mut depth = (1 + (self.id & 1)).min(max_depth);
        while depth <= max_depth {
            let (mut done, complete) = self.root_search(root, depth as i32, &order, 1);
            if !complete {
                break;
            }
            done.sort_by_key(|m| std::cmp::Reverse(m.1));
            if score::is_proven(done[0].1) {
                break;
            }
            self.prev_pv = done[0].2.clone();
            order = next_order(&done, &order);
            depth += 1;
        }
        self.flush();
        self.crew = None;
        self.control = None;
    }

    /// Adds a helper's new nodes to its crew's count.
    fn flush(&mut self) {
        if let Some(c) = &self.crew {
            c.nodes
                .fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
            self.flushed = self.nodes;
        }
    }

    /// One iteration at the root: the completed moves (all of them unless interrupted) with
    /// their values and lines, and whether every move was completed.
    fn root_search<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        depth: i32,
        order: &[usize],
        multipv: usize,
    ) -> (Vec<RootMove>, bool) {
        let cells = (W * H) as i32;
        let moves = p.moves() as i32;
        self.nodes += 1;
        let mut alpha = -INF;
        let mut done = Vec::with_capacity(order.len());
        for (i, &col) in order.iter().enumerate() {
            let v = if p.is_winning_move(col) {
                self.pv_len[1] = 1;
                score::proven_value(score::win_now(cells, moves))
            } else {
                let mut child = *p;
                child.play_col(col);
                let on_pv = i == 0 && self.prev_pv.first() == Some(&(col as u8));
                if multipv > 1 || i == 0 {
                    -self.negamax(&child, depth - 1, 1, -INF, INF, on_pv)
                } else {
                    let s = -self.negamax(&child, depth - 1, 1, -alpha - 1, -alpha, false);
                    if s > alpha && !self.stopped {
                        -self.negamax(&child, depth - 1, 1, -INF, -alpha, false)
                    } else {
                        s
                    }
                }
            };
            if self.stopped {
                return (done, false);
            }
            let mut line = vec![col as u8];
            line.extend_from_slice(&self.pv[1][1..self.pv_len[1]]);
            if v > alpha && multipv == 1 {
                alpha = v;
            }
            done.push((col, v, line));
        }
        (done, true)
    }

    #[cold]
    fn poll(&mut self) {
        if !self.can_stop {
            return;
        }
        if let Some(c) = &self.control {
            if c.must_stop() {
                self.stopped = true;
            }
        }
        if self.all_nodes() >= self.node_limit {
            self.stopped = true;
        }
        if self.id > 0 {
            self.flush();
            if let Some(crew) = &self.crew {
                if crew.paused.load(Ordering::Relaxed) {
                    crew.wait_while_paused(self.control.as_deref());
                }
                if crew.done.must_stop() {
                    self.stopped = true;
                }
            }
        }
    }

    /// Depth-limited negamax, fail-soft, from the side to move's view.
    fn negamax<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        on_pv: bool,
    ) -> i32 {
        self.pv_len[ply] = ply;
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.poll();
        }
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let cells = (W * H) as i32;
        let moves = p.moves() as i32;
        if moves == cells {
            // only the root's last move can fill the board (deeper, two empty cells are a draw
            // already), and the root takes wins before recursing: a draw
            return 0;
        }
        if p.can_win_next() {
            return score::proven_value(score::win_now(cells, moves));
        }
        let next = p.non_losing_moves();
        if next == 0 {
            // every move lets the opponent connect four with its next disc
            return score::proven_value(score::loss_next(cells, moves));
        }
        if moves >= cells - 2 {
            return 0;
        }
        // the opponent wins with its second disc from now at the earliest, we with our second
        let lo = score::proven_value(score::worst_without_loss_next(cells, moves));
        let hi = score::proven_value(score::best_without_win_now(cells, moves));
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        if alpha >= beta {
            return alpha;
        }
        if depth <= 0 {
            return eval::evaluate(p);
        }
        let pv_node = beta - alpha > 1;
        let key = p.key();
        let mut tt_move = NO_MOVE;
        if let Some(e) = self.tt.probe(key) {
            tt_move = e.best_move.unwrap_or(NO_MOVE);
            if let Some(h) = e.heuristic {
                let v = h.value as i32;
                if !pv_node && h.depth as i32 >= depth {
                    match h.bound {
                        Bound::Exact => return v,
                        Bound::Lower if v >= beta => return v,
                        Bound::Upper if v <= alpha => return v,
                        _ => {}
                    }
                }
            }
        }

        let side = (moves & 1) as usize;
        let hint = if on_pv {
            self.prev_pv.get(ply).copied().unwrap_or(NO_MOVE)
        } else {
            NO_MOVE
        };
        let killers = self.killers[ply];
        let mut sorter = MoveSorter::new();
        for &col in column_order::<W>().iter().rev() {
            let bit = next & Geometry::<W, H>::column_mask(col);
            if bit == 0 {
                continue;
            }
            let c = col as u8;
            let score = if c == hint {
                1 << 30
            } else if c == tt_move {
                1 << 29
            } else if c == killers[0] {
                1 << 28
            } else if c == killers[1] {
                (1 << 28) - 1
            } else {
                let threats = Position::<W, H>::winning_cells(p.current() | bit, p.mask() | bit)
                    .count_ones() as i32;
                let mut s =
                    (threats << 20) + (self.history.get(side, bit).min((1 << 20) - 1) as i32);
                if self.id > 0 && ply <= JITTER_PLIES {
                    // a helper: up to one threat's worth of noise, different for each helper
                    s += (((col as u32 * 3 + self.id) % 5) as i32) << 18;
                }
                s
            };
            sorter.add(bit, col, score);
        }
        // a forced move does not use up depth
        let child_depth = if next & (next - 1) == 0 {
            depth
        } else {
            depth - 1
        };

        let alpha_orig = alpha;
        let nodes_before = self.nodes;
        let mut best = -INF;
        let mut best_col = NO_MOVE;
        let mut first = true;
        for (bit, col) in sorter {
            let child = p.after(bit);
            let child_pv = on_pv && col as u8 == hint;
            let s = if first {
                -self.negamax(&child, child_depth, ply + 1, -beta, -alpha, child_pv)
            } else {
                let s = -self.negamax(&child, child_depth, ply + 1, -alpha - 1, -alpha, false);
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax(&child, child_depth, ply + 1, -beta, -alpha, false)
                } else {
                    s
                }
            };
            first = false;
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                best_col = col as u8;
            }
            if s > alpha {
                alpha = s;
                self.pv[ply][ply] = col as u8;
                let len = self.pv_len[ply + 1].max(ply + 1);
                let (a, b) = self.pv.split_at_mut(ply + 1);
                a[ply][ply + 1..len].copy_from_slice(&b[0][ply + 1..len]);
                self.pv_len[ply] = len;
                if s >= beta {
                    if killers[0] != col as u8 {
                        self.killers[ply] = [col as u8, killers[0]];
                    }
                    self.history
                        .reward(side, bit, (depth * depth).max(1) as u32);
                    self.store(key, s, depth, Bound::Lower, best_col, nodes_before);
                    return s;
                }
            }
        }
        let bound = if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.store(key, best, depth, bound, best_col, nodes_before);
        best
    }

    #[inline]
    fn store(&mut self, key: u64, value: i32, depth: i32, bound: Bound, col: u8, before: u64) {
        let work = 64 - (self.nodes - before).leading_zeros();
        self.tt.store_heuristic(
            key,
            Heuristic {
                value: value.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                depth: depth.clamp(0, 63) as u8,
                bound,
            },
            (col != NO_MOVE).then_some(col),
            work,
        );
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
        let limits = SearchLimits {
            nodes: Some(20_000),
            multipv: 1,
            ..Default::default()
        };
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
        let helpers: u64 = s.helpers.iter().map(|h| h.nodes).sum();
        assert!(helpers > 0);
        assert_eq!(r.last.nodes, s.main.nodes + helpers);
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

    /// An infinite search on two threads ends with its stop flag: the helpers end with it (the
    /// search waits for them).
    #[test]
    fn two_threads_stop_on_flag() {
        assert_stops_on_flag(two_threads());
    }
}
