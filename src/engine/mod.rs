//! The engine service: one player behind every front end.
//!
//! The protocol, `vier play`, `vier serve`, the Python package and the browser page each turn
//! their input into calls of this module and its answers into their output, and do nothing
//! else. An [`Engine`] takes a position, a [`Request`] (a time limit, search limits, a skill
//! level) and a [`Handle`] (how whoever asked stops it), reports every finished depth, and
//! answers with a [`Thought`]: the column to play and what the search knew of it. A
//! [`SolverPool`] gives exact answers (a position's score, every column's, the best move)
//! within a budget.
//!
//! Below the service, nothing knows of front ends: the searcher ([`crate::search`]), the
//! solver, the skill levels ([`crate::levels`]: a weaker player's choice after the search) and
//! the stop rule ([`crate::control`]) are reached from here.

use crate::bits::Bitboard;
use crate::board::{AnyPosition, Position, PositionJob, Size};
use crate::book::Book;
use crate::control::SearchControl;
use crate::eval;
use crate::levels;
pub use crate::levels::Skill;
use crate::score::Score;
pub use crate::search::TableMemory;
use crate::search::{Iteration, Line, SearchLimits, Searcher, Techniques};
use crate::solver::{Solver, Stopped};
use crate::time::{Deadlines, TimeLimit};
use crate::tt::TableError;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Why the engine gives no answer; the text is meant for the person who asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The question cannot be answered as asked (a finished game, a limit out of range).
    Invalid(String),
    /// The budget ran out before the answer was proven.
    OutOfTime { budget: Duration },
    /// Whoever asked stopped it.
    Stopped,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Invalid(why) => f.write_str(why),
            EngineError::OutOfTime { budget } => {
                write!(f, "not solved within {} ms", budget.as_millis())
            }
            EngineError::Stopped => f.write_str("stopped before it was solved"),
        }
    }
}

impl std::error::Error for EngineError {}

/// What one search is asked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// A movetime or a clock, and the overhead kept back from it; none: only the limits below
    /// or `stop` end the search.
    pub time: TimeLimit,
    /// Depth, nodes, lines to report, root moves, and whether to go on until stopped.
    pub limits: SearchLimits,
    /// Start pondering: the time limit counts from [`Handle::ponderhit`].
    pub ponder: bool,
    /// Play as a weaker player would.
    pub skill: Option<Skill>,
}

impl Request {
    /// A search of `ms` milliseconds (no overhead kept back), one line.
    pub fn movetime(ms: u64) -> Request {
        Request {
            time: TimeLimit {
                movetime_ms: Some(ms.min(i64::MAX as u64) as i64),
                ..TimeLimit::default()
            },
            limits: SearchLimits {
                multipv: 1,
                ..SearchLimits::default()
            },
            ..Request::default()
        }
    }

    /// The deadlines the search starts with: none for an infinite search.
    pub fn deadlines(&self) -> Deadlines {
        if self.limits.infinite {
            Deadlines::default()
        } else {
            self.time.deadlines()
        }
    }
}

/// How whoever asked reaches a search or a proof in progress (from another thread): stop it,
/// tell it the pondered move was played, see how long it has run. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Handle {
    control: Arc<SearchControl>,
    /// The limit applied again at `ponderhit`.
    time: TimeLimit,
    /// The budget it was made with, for the error that says it ran out.
    budget: Option<Duration>,
}

impl Handle {
    /// The handle of a search asked `request`: its deadlines count from now (from
    /// [`Handle::ponderhit`] when pondering).
    pub fn new(request: &Request) -> Handle {
        Handle {
            control: SearchControl::new(request.deadlines(), request.ponder),
            time: request.time,
            budget: None,
        }
    }

    /// Work that ends only when stopped.
    pub fn unlimited() -> Handle {
        Handle::within(None)
    }

    /// Work that must end within `budget` of wall time from now (`None`: only when stopped).
    pub fn within(budget: Option<Duration>) -> Handle {
        Handle {
            control: match budget {
                Some(b) => SearchControl::within(b),
                None => SearchControl::unlimited(),
            },
            time: TimeLimit::default(),
            budget,
        }
    }

    /// Asks the work to end as soon as it can; it answers with what it has.
    pub fn stop(&self) {
        self.control.stop();
    }

    pub fn is_stopped(&self) -> bool {
        self.control.is_stopped()
    }

    pub fn is_pondering(&self) -> bool {
        self.control.is_pondering()
    }

    /// The opponent played the pondered move: the time limit counts from now.
    pub fn ponderhit(&self) {
        if self.control.is_pondering() {
            self.control.ponderhit(self.time.deadlines());
        }
    }

    /// Time since the work started.
    pub fn elapsed(&self) -> Duration {
        self.control.elapsed()
    }

    /// Why work under this handle ended unanswered.
    fn ended(&self) -> EngineError {
        match self.budget {
            Some(budget) if !self.is_stopped() => EngineError::OutOfTime { budget },
            _ => EngineError::Stopped,
        }
    }
}

/// What a search answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thought {
    /// The 0-based column to play; `None` only for a finished game.
    pub column: Option<usize>,
    /// The last report: depth, nodes, time, the lines best first, whether the root is proven.
    pub last: Iteration,
    /// The skill level that chose the column (it may not be the best), if one did.
    pub chosen_by: Option<u64>,
}

impl Thought {
    /// The line of the column played (the best line when the search has none for it).
    pub fn line(&self) -> Option<&Line> {
        self.last
            .lines
            .iter()
            .find(|l| self.column.is_some() && l.pv.first() == self.column.as_ref())
            .or(self.last.lines.first())
    }

    /// The value of the column played, from the side to move's view.
    pub fn score(&self) -> Score {
        self.line().map_or(Score::Cp(0), |l| l.score)
    }

    /// Pons' exact score of the column played, when it is proven.
    pub fn exact(&self, p: &AnyPosition) -> Option<i32> {
        self.score()
            .to_exact(p.size().cells() as i32, p.discs() as i32)
    }
}

/// The time-limited player: the searcher (with the exact solver and the book) and what it
/// keeps from one search to the next.
pub struct Engine {
    searcher: Searcher,
    /// The board size of the last search: keys mean other positions on another board.
    last_size: Option<Size>,
    /// Nothing was learnt since the tables were last cleared.
    fresh: bool,
}

impl Engine {
    /// An engine with about `hash_mb` megabytes of tables, one thread, no book, all techniques;
    /// or why the machine cannot give the tables.
    pub fn new(hash_mb: usize) -> Result<Engine, TableError> {
        Engine::new_until(hash_mb, &|| false)
    }

    /// [`Engine::new`], whose tables' memory is all taken before it returns (so that no search
    /// pays for it) unless `cancelled` gives that up first.
    pub fn new_until(
        hash_mb: usize,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<Engine, TableError> {
        Ok(Engine {
            searcher: Searcher::try_new_until(hash_mb, cancelled)?,
            last_size: None,
            fresh: true,
        })
    }

    /// New tables of `hash_mb` megabytes (what was learnt is lost), their memory taken before
    /// it returns unless `cancelled` gives that up first; a size the machine cannot give leaves
    /// the tables as they were.
    pub fn set_hash(
        &mut self,
        hash_mb: usize,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), TableError> {
        self.searcher.set_hash_until(hash_mb, cancelled)?;
        self.fresh = true;
        Ok(())
    }

    /// An engine with about `hash_mb` megabytes of tables whose memory is only reserved, and
    /// that memory: the engine must not think before [`TableMemory::prepare`] has taken it
    /// (on another thread, beside an engine that searches meanwhile). The memory free now must
    /// hold them beside everything held now: the engine that searches meanwhile keeps its own.
    pub fn reserve(hash_mb: usize) -> Result<(Engine, TableMemory), TableError> {
        let searcher = Searcher::reserve(hash_mb, 0)?;
        let memory = searcher.memory();
        let engine = Engine {
            searcher,
            last_size: None,
            fresh: true,
        };
        Ok((engine, memory))
    }

    /// Megabytes of the engine's tables.
    pub fn hash_mb(&self) -> usize {
        self.searcher.hash_mb()
    }

    /// Threads for the search and the solver's proofs (1 .. [`crate::solver::MAX_THREADS`]).
    pub fn set_threads(&mut self, threads: usize) {
        self.searcher.set_threads(threads);
    }

    /// The opening book the engine consults (`None`: none).
    pub fn set_book(&mut self, book: Option<Arc<Book>>) {
        self.searcher.set_book(book);
    }

    /// The techniques a search uses: the study's search levels ([`crate::study`]).
    pub fn set_techniques(&mut self, techniques: Techniques) {
        self.searcher.set_techniques(techniques);
    }

    /// Forgets what earlier searches learnt (a new game).
    pub fn clear(&mut self) {
        self.searcher.clear();
        self.fresh = true;
    }

    /// Searches `p` as `request` asks until its limits, the handle's deadlines or
    /// [`Handle::stop`] end it; `progress` gets every finished depth. A skill level chooses
    /// among the values of the columns of the last complete depth; a game that goes on always
    /// gets a legal column.
    pub fn think(
        &mut self,
        p: &AnyPosition,
        request: &Request,
        handle: &Handle,
        progress: &mut dyn FnMut(&Iteration),
    ) -> Thought {
        if self.last_size != Some(p.size()) && !self.fresh {
            self.searcher.clear();
        }
        self.last_size = Some(p.size());
        self.fresh = false;
        let mut limits = request.limits.clone();
        if let Some(skill) = request.skill {
            levels::limit(skill.level, p.width(), &mut limits);
        }
        // a skill level chooses from the last complete depth's values of the columns
        let mut complete: Vec<Line> = Vec::new();
        let result = p.run(Search {
            searcher: &mut self.searcher,
            limits: &limits,
            control: &handle.control,
            progress: &mut |it: &Iteration| {
                if request.skill.is_some() {
                    complete.clone_from(&it.lines);
                }
                progress(it)
            },
        });
        let mut best = result.best;
        let mut chosen_by = None;
        if let (Some(skill), Some(_)) = (request.skill, best) {
            let game = (skill.seed, p.key());
            best = levels::pick(skill.level, p.width(), game, &complete, &result.last.lines);
            chosen_by = best.map(|_| skill.level);
        }
        let column = best
            .filter(|&c| p.can_play(c))
            .or_else(|| p.legal_moves().first().copied());
        Thought {
            column,
            last: result.last,
            chosen_by,
        }
    }

    /// What the evaluation at the search's horizon sees in `p`: its terms, from the side to
    /// move's view.
    pub fn evaluation(p: &AnyPosition) -> Vec<eval::Term> {
        struct Explain;
        impl PositionJob for Explain {
            type Output = Vec<eval::Term>;
            fn run<const W: usize, const H: usize, B: Bitboard>(
                self,
                p: Position<W, H, B>,
            ) -> Vec<eval::Term> {
                eval::explain(&p).to_vec()
            }
        }
        p.run(Explain)
    }
}

/// One search of a typed root.
struct Search<'a> {
    searcher: &'a mut Searcher,
    limits: &'a SearchLimits,
    control: &'a Arc<SearchControl>,
    progress: &'a mut dyn FnMut(&Iteration),
}

impl PositionJob for Search<'_> {
    type Output = crate::search::SearchResult;
    fn run<const W: usize, const H: usize, B: Bitboard>(
        self,
        p: Position<W, H, B>,
    ) -> crate::search::SearchResult {
        let progress = self.progress;
        self.searcher
            .search(&p, self.limits, self.control, &mut |it: &Iteration| {
                progress(it)
            })
    }
}

/// Exact answers: solvers kept for reuse, each with a small table cleared before every
/// question (as `vier solve` uses one) and the book it was given. Taking one is cheap, so
/// callers on many threads each take their own; the pool keeps at most as many as ran at once.
pub struct SolverPool {
    idle: Mutex<Vec<Solver>>,
    book: Option<Arc<Book>>,
    hash_mb: usize,
}

/// The table of one exact question: what `vier solve` uses by default.
pub const SOLVE_HASH_MB: usize = 1;

/// What an exact question asks of a typed position.
enum Question {
    Solve { weak: bool },
    Analyse { weak: bool },
    BestMove,
    AnalyseWithin(Duration),
}

enum Answer {
    Score(i32),
    Columns(Vec<Option<i32>>),
    Best(Option<(usize, i32)>),
}

struct Ask<'a>(&'a mut Solver, Question);

impl PositionJob for Ask<'_> {
    type Output = Result<Answer, Stopped>;
    fn run<const W: usize, const H: usize, B: Bitboard>(
        self,
        p: Position<W, H, B>,
    ) -> Result<Answer, Stopped> {
        let Ask(s, q) = self;
        Ok(match q {
            Question::Solve { weak: false } => Answer::Score(s.solve(&p)?),
            Question::Solve { weak: true } => Answer::Score(s.solve_weak(&p)?),
            Question::Analyse { weak } => Answer::Columns(s.analyse(&p, weak)?),
            Question::BestMove => Answer::Best(s.best_move(&p)?),
            Question::AnalyseWithin(budget) => Answer::Columns(s.analyse_within(&p, budget)),
        })
    }
}

impl SolverPool {
    /// A pool whose solvers use `book` and tables of `hash_mb` megabytes.
    pub fn new(book: Option<Arc<Book>>, hash_mb: usize) -> SolverPool {
        SolverPool {
            idle: Mutex::new(Vec::new()),
            book,
            hash_mb,
        }
    }

    /// The pool of the built-in book, shared by every caller in the process.
    pub fn shared() -> &'static SolverPool {
        static POOL: std::sync::OnceLock<SolverPool> = std::sync::OnceLock::new();
        POOL.get_or_init(|| SolverPool::new(Book::embedded(), SOLVE_HASH_MB))
    }

    fn ask(&self, p: &AnyPosition, q: Question, handle: &Handle) -> Result<Answer, EngineError> {
        let taken = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut solver = taken.unwrap_or_else(|| {
            let mut s = Solver::new(self.hash_mb);
            s.set_book(self.book.clone());
            s
        });
        solver.clear();
        solver.reset_nodes();
        solver.set_limits(Some(handle.control.clone()), None);
        let answer = p.run(Ask(&mut solver, q));
        solver.set_limits(None, None);
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(solver);
        answer.map_err(|Stopped| handle.ended())
    }

    /// The exact score of `p` (with `weak`, 1 / 0 / -1 for a win / draw / loss), or why not:
    /// the game is over, or the handle ended the proof first.
    pub fn solve(&self, p: &AnyPosition, weak: bool, handle: &Handle) -> Result<i32, EngineError> {
        if p.is_game_over() {
            return Err(EngineError::Invalid(
                "the game is over: there is nothing to solve".into(),
            ));
        }
        match self.ask(p, Question::Solve { weak }, handle)? {
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
        match self.ask(p, Question::Analyse { weak }, handle)? {
            Answer::Columns(c) => Ok(c),
            _ => unreachable!("an analysis answers with columns"),
        }
    }

    /// The exact score of every column that can be proven within `budget` (`None` for a full
    /// column and for one not proven in time): every open column first gets its share of the
    /// time, centre first, then the unproven ones share what is left.
    pub fn analyse_within(&self, p: &AnyPosition, budget: Duration) -> Vec<Option<i32>> {
        match self.ask(p, Question::AnalyseWithin(budget), &Handle::unlimited()) {
            Ok(Answer::Columns(c)) => c,
            _ => vec![None; p.width()],
        }
    }

    /// The exact best 0-based column (ties to the centre) with its score; `None` for a finished
    /// game.
    pub fn best_move(
        &self,
        p: &AnyPosition,
        handle: &Handle,
    ) -> Result<Option<(usize, i32)>, EngineError> {
        match self.ask(p, Question::BestMove, handle)? {
            Answer::Best(b) => Ok(b),
            _ => unreachable!("a best move answers with a column"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seven_by_six(moves: &str) -> AnyPosition {
        AnyPosition::from_moves(Size::default(), moves).unwrap()
    }

    #[test]
    fn a_search_plays_the_win_and_reports_its_depths() {
        let mut e = Engine::new(8).unwrap();
        let p = seven_by_six("414141");
        let mut depths = Vec::new();
        let request = Request {
            limits: SearchLimits {
                depth: Some(3),
                multipv: 1,
                ..SearchLimits::default()
            },
            ..Request::default()
        };
        let t = e.think(&p, &request, &Handle::new(&request), &mut |it| {
            depths.push(it.depth)
        });
        assert_eq!(t.column, Some(3));
        assert_eq!(t.score(), Score::Win(1));
        assert_eq!(t.exact(&p), Some(18));
        assert!(!depths.is_empty() && t.chosen_by.is_none());
    }

    #[test]
    fn a_skill_level_chooses_a_legal_column_and_says_so() {
        let mut e = Engine::new(8).unwrap();
        let p = seven_by_six("4453");
        let mut request = Request::movetime(10_000);
        request.skill = Skill::new(1, 7).unwrap();
        for _ in 0..3 {
            let t = e.think(&p, &request, &Handle::new(&request), &mut |_| {});
            assert_eq!(t.chosen_by, Some(1));
            assert!(p.can_play(t.column.unwrap()));
        }
        assert_eq!(Skill::new(levels::FULL_SKILL, 0), Ok(None));
        assert!(Skill::new(0, 0).is_err());
    }

    #[test]
    fn a_finished_game_gets_no_column() {
        let mut e = Engine::new(8).unwrap();
        let p = seven_by_six("4141414");
        let request = Request::movetime(50);
        let t = e.think(&p, &request, &Handle::new(&request), &mut |_| {});
        assert_eq!(t.column, None);
    }

    #[test]
    fn the_pool_answers_exactly_and_says_why_it_does_not() {
        let pool = SolverPool::new(None, SOLVE_HASH_MB);
        let p = seven_by_six("2252576253462244111563365343671351441");
        let none = Handle::unlimited();
        let score = pool.solve(&p, false, &none).unwrap();
        let columns = pool.analyse(&p, false, &none).unwrap();
        assert_eq!(columns.iter().flatten().max(), Some(&score));
        assert_eq!(pool.best_move(&p, &none).unwrap().map(|b| b.1), Some(score));
        let over = seven_by_six("4141414");
        assert!(matches!(
            pool.solve(&over, false, &none),
            Err(EngineError::Invalid(_))
        ));
        let stopped = Handle::unlimited();
        stopped.stop();
        let empty = AnyPosition::empty(Size::default());
        assert_eq!(
            pool.solve(&empty, false, &stopped),
            Err(EngineError::Stopped)
        );
        let late = Handle::within(Some(Duration::ZERO));
        assert_eq!(
            pool.solve(&empty, false, &late),
            Err(EngineError::OutOfTime {
                budget: Duration::ZERO
            })
        );
    }
}
