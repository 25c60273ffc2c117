//! Exact answers within a budget: solvers kept for reuse, each answer with its node count and
//! time, a proof in progress visible through its [`Handle`] ([`Handle::progress`]).

use super::handle::{game_over, EngineError, Handle};
use crate::bits::Bitboard;
use crate::board::{AnyPosition, Position, PositionJob};
use crate::book::Book;
use crate::clock;
use crate::solver::{Below, Solver, Stopped};
use crate::tt::{TableError, TransTable};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The table of one exact question: what `vier solve` uses by default.
pub const SOLVE_HASH_MB: usize = 1;

/// An exact question about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Question {
    /// The position's exact score; `weak`: 1 / 0 / -1 for a win / draw / loss.
    Solve { weak: bool },
    /// The score of every column (`None` for a full one), as `vier solve --all` prints them.
    Analyse { weak: bool },
    /// The exact best column (ties to the centre) with its score.
    BestMove,
    /// Whether the exact score (`weak`: 1 / 0 / -1) is at least `value`.
    AtLeast { weak: bool, value: i32 },
}

/// An exact answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Score(i32),
    Columns(Vec<Option<i32>>),
    Best(Option<(usize, i32)>),
    AtLeast(bool),
}

/// An answer with what it cost: the solver's nodes (all its threads') and the time taken.
#[derive(Clone, Debug, PartialEq)]
pub struct Solved<T> {
    pub answer: T,
    pub nodes: u64,
    pub time: Duration,
    /// The nodes by discs on the board (a `stats` build: `vier solve`'s summary).
    #[cfg(feature = "stats")]
    pub stats: crate::solver::stats::Stats,
}

impl<T> Solved<T> {
    fn map<U>(self, f: impl FnOnce(T) -> U) -> Solved<U> {
        Solved {
            answer: f(self.answer),
            nodes: self.nodes,
            time: self.time,
            #[cfg(feature = "stats")]
            stats: self.stats,
        }
    }
}

/// Exact answers: solvers kept for reuse, each with a table cleared before every question (as
/// `vier solve` runs one; see [`SolverPool::keeping_tables`]) and the book it was given. Taking
/// one is cheap, so callers on many threads each take their own; the pool keeps at most as many
/// as ran at once.
pub struct SolverPool {
    idle: Mutex<Vec<Solver>>,
    book: Option<Arc<Book>>,
    hash_mb: usize,
    threads: usize,
    /// Each question starts from a cleared table (else from what the questions before it on
    /// the same solver proved).
    fresh: bool,
    /// The table every solver of the pool searches with, kept in a file (else each has its own).
    file_table: Option<Arc<TransTable>>,
}

/// A question, how many moves below the position to look for what it proved if it is cut
/// short, and what earlier searches proved below it (in the question's terms).
struct Ask<'a>(&'a mut Solver, Question, u32, &'a [Below]);

impl PositionJob for Ask<'_> {
    type Output = (Result<Answer, Stopped>, Vec<Below>);
    fn run<const W: usize, const H: usize, B: Bitboard>(
        self,
        p: Position<W, H, B>,
    ) -> (Result<Answer, Stopped>, Vec<Below>) {
        let Ask(s, q, plies, seeds) = self;
        let weak = matches!(
            q,
            Question::Solve { weak: true }
                | Question::AtLeast { weak: true, .. }
                | Question::Analyse { weak: true }
        );
        if weak {
            let seeds: Vec<Below> = seeds.iter().cloned().map(score_bounds).collect();
            s.seed(&p, &seeds);
        } else {
            s.seed(&p, seeds);
        }
        let answer = (|| {
            Ok(match q {
                Question::Solve { weak: false } => Answer::Score(s.solve(&p)?),
                Question::Solve { weak: true } => Answer::Score(s.solve_weak(&p)?),
                Question::Analyse { weak } => Answer::Columns(s.analyse(&p, weak)?),
                Question::BestMove => Answer::Best(s.best_move(&p)?),
                Question::AtLeast { weak, value } => Answer::AtLeast(s.at_least(&p, value, weak)?),
            })
        })();
        let learnt = match (&answer, q) {
            (Err(Stopped), Question::Solve { weak } | Question::AtLeast { weak, .. }) => {
                let below = s.bounds_below(&p, plies);
                if weak {
                    below.into_iter().filter_map(outcome_bounds).collect()
                } else {
                    below
                }
            }
            _ => Vec::new(),
        };
        (answer, learnt)
    }
}

/// Win (1) / draw (0) / loss (-1) bounds as the exact-score bounds they are: a win scores 1 or
/// more, a loss -1 or less.
fn score_bounds(b: Below) -> Below {
    let lo = b.lo.filter(|&l| l > -1).map(|l| l.min(1));
    let hi = b.hi.filter(|&h| h < 1).map(|h| h.max(-1));
    Below { lo, hi, ..b }
}

/// Exact-score bounds as win (1) / draw (0) / loss (-1) bounds, where they say more than that
/// the score is a loss or better and a win or worse.
fn outcome_bounds(b: Below) -> Option<Below> {
    let lo = b.lo.map(crate::score::outcome).filter(|&l| l > -1);
    let hi = b.hi.map(crate::score::outcome).filter(|&h| h < 1);
    (lo.is_some() || hi.is_some()).then_some(Below { lo, hi, ..b })
}

struct Within<'a>(&'a mut Solver, Duration);

impl PositionJob for Within<'_> {
    type Output = Vec<Option<i32>>;
    fn run<const W: usize, const H: usize, B: Bitboard>(
        self,
        p: Position<W, H, B>,
    ) -> Vec<Option<i32>> {
        self.0.analyse_within(&p, self.1)
    }
}

impl SolverPool {
    /// A pool whose solvers use `book` and tables of `hash_mb` megabytes, one thread each.
    pub fn new(book: Option<Arc<Book>>, hash_mb: usize) -> SolverPool {
        SolverPool {
            idle: Mutex::new(Vec::new()),
            book,
            hash_mb,
            threads: 1,
            fresh: true,
            file_table: None,
        }
    }

    /// The pool, its solvers keeping their tables from one question to the next: a question
    /// starts from what those before it proved, which for positions that share positions below
    /// them (siblings, cousins) saves most of the work they share; answers then depend on the
    /// order of the questions. Sound: the table holds only what was proven.
    pub fn keeping_tables(self) -> SolverPool {
        SolverPool {
            fresh: false,
            ..self
        }
    }

    /// [`SolverPool::new`] with `threads` threads per question and tables of a size a user
    /// chose: the first solver is made now, so that a size the machine cannot give is refused
    /// here and not at the first question.
    pub fn try_new(
        book: Option<Arc<Book>>,
        hash_mb: usize,
        threads: usize,
    ) -> Result<SolverPool, TableError> {
        let pool = SolverPool {
            threads: threads.max(1),
            ..SolverPool::new(book, hash_mb)
        };
        let first = pool.made(Solver::try_new(hash_mb)?);
        pool.give_back(first);
        Ok(pool)
    }

    /// [`SolverPool::try_new`], its solvers searching with the table kept in the file at `path`
    /// (made if missing, of `hash_mb` megabytes, for `board`: see [`TransTable::open_file`]),
    /// shared with every process that opens the file, and never cleared.
    pub fn try_in_file(
        book: Option<Arc<Book>>,
        path: &std::path::Path,
        hash_mb: usize,
        threads: usize,
        board: (usize, usize),
    ) -> Result<SolverPool, TableError> {
        let pool = SolverPool {
            threads: threads.max(1),
            file_table: Some(Arc::new(TransTable::open_file(path, hash_mb, board)?)),
            ..SolverPool::new(book, hash_mb)
        };
        let first = pool.take();
        pool.give_back(first);
        Ok(pool)
    }

    /// The pool of the built-in book, shared by every caller in the process.
    pub fn shared() -> &'static SolverPool {
        static POOL: std::sync::OnceLock<SolverPool> = std::sync::OnceLock::new();
        POOL.get_or_init(|| SolverPool::new(Book::embedded(), SOLVE_HASH_MB))
    }

    fn made(&self, mut s: Solver) -> Solver {
        s.set_book(self.book.clone());
        s.set_threads(self.threads);
        s
    }

    fn take(&self) -> Solver {
        let taken = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        taken.unwrap_or_else(|| {
            self.made(match &self.file_table {
                Some(t) => Solver::sharing(t.clone()),
                None => Solver::new(self.hash_mb),
            })
        })
    }

    fn give_back(&self, s: Solver) {
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(s);
    }

    /// Runs `work` on a solver with a cleared table and node count, under `handle`; what it
    /// answers, with the nodes and the time.
    fn with_solver<T>(&self, handle: &Handle, work: impl FnOnce(&mut Solver) -> T) -> Solved<T> {
        let mut solver = self.take();
        if self.fresh {
            solver.clear();
        }
        solver.reset_nodes();
        solver.set_limits(Some(handle.control.clone()), handle.nodes);
        let started = clock::now();
        let answer = work(&mut solver);
        let time = clock::now().saturating_sub(started);
        solver.set_limits(None, None);
        let proof = Solved {
            answer,
            nodes: solver.nodes(),
            time,
            #[cfg(feature = "stats")]
            stats: solver.stats().clone(),
        };
        self.give_back(solver);
        proof
    }

    /// The answer to `question` about `p`, with its nodes and time, or why there is none: the
    /// handle ended the proof first. A solve of a finished game is refused; its analysis has no
    /// column and its best move none.
    pub fn ask(
        &self,
        p: &AnyPosition,
        question: Question,
        handle: &Handle,
    ) -> Result<Solved<Answer>, EngineError> {
        self.ask_learning(p, question, handle, 0, &[]).0
    }

    /// [`SolverPool::ask`], and when the handle ends a score's or a bound's proof first, what
    /// it proved of the positions 1 to `plies` moves below `p` (in the question's terms: with
    /// `weak`, 1 / 0 / -1), so that the work is not lost: `vier prove` starts its next jobs
    /// from it. The search starts from `seeds`, what earlier ones proved below `p` (as they
    /// gave it, in the question's terms).
    pub fn ask_learning(
        &self,
        p: &AnyPosition,
        question: Question,
        handle: &Handle,
        plies: u32,
        seeds: &[Below],
    ) -> (Result<Solved<Answer>, EngineError>, Vec<Below>) {
        if matches!(question, Question::Solve { .. } | Question::AtLeast { .. }) && p.is_game_over()
        {
            return (Err(game_over("there is nothing to solve")), Vec::new());
        }
        let proof = self.with_solver(handle, |s| p.run(Ask(s, question, plies, seeds)));
        match proof.answer {
            (Ok(_), _) => (Ok(proof.map(|(a, _)| a.expect("matched Ok"))), Vec::new()),
            (Err(Stopped), learnt) => (Err(handle.ended(proof.nodes)), learnt),
        }
    }

    /// The exact score of `p` (with `weak`, 1 / 0 / -1 for a win / draw / loss), or why not:
    /// the game is over, or the handle ended the proof first.
    pub fn solve(&self, p: &AnyPosition, weak: bool, handle: &Handle) -> Result<i32, EngineError> {
        match self.ask(p, Question::Solve { weak }, handle)?.answer {
            Answer::Score(s) => Ok(s),
            _ => unreachable!("a solve answers with a score"),
        }
    }

    /// The score of every 0-based column (`None` for a full one, and all `None` for a finished
    /// game), as `vier solve --all` prints them.
    pub fn analyse(
        &self,
        p: &AnyPosition,
        weak: bool,
        handle: &Handle,
    ) -> Result<Vec<Option<i32>>, EngineError> {
        match self.ask(p, Question::Analyse { weak }, handle)?.answer {
            Answer::Columns(c) => Ok(c),
            _ => unreachable!("an analysis answers with columns"),
        }
    }

    /// The exact score of every column that can be proven within `budget` (`None` for a full
    /// column and for one not proven in time): every open column first gets its share of the
    /// time, centre first, then the unproven ones share what is left.
    pub fn analyse_within(&self, p: &AnyPosition, budget: Duration) -> Vec<Option<i32>> {
        self.with_solver(&Handle::unlimited(), |s| p.run(Within(s, budget)))
            .answer
    }

    /// The exact best 0-based column (ties to the centre) with its score; `None` for a finished
    /// game.
    pub fn best_move(
        &self,
        p: &AnyPosition,
        handle: &Handle,
    ) -> Result<Option<(usize, i32)>, EngineError> {
        match self.ask(p, Question::BestMove, handle)?.answer {
            Answer::Best(b) => Ok(b),
            _ => unreachable!("a best move answers with a column"),
        }
    }
}
