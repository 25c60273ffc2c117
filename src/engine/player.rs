//! The time-limited player: the searcher, with the exact solver and the book, and what it keeps
//! from one search to the next.

use super::handle::EngineError;
use super::handle::Handle;
use super::report::{Report, Thought};
use super::request::{Limits, Request};
use super::settings::{hash_refused, Settings};
use crate::bits::Bitboard;
use crate::board::{AnyPosition, Position, PositionJob, Size};
use crate::book::Book;
use crate::control::SearchControl;
use crate::eval;
use crate::levels;
use crate::search::{Iteration, Line, Searcher};
use crate::study;
use crate::tt::TableError;
use std::sync::Arc;

/// The time-limited player: the searcher (with the exact solver and the book) and what it
/// keeps from one search to the next.
pub struct Engine {
    searcher: Searcher,
    /// The board size of the last search: keys mean other positions on another board.
    last_size: Option<Size>,
    /// Nothing was learnt since the tables were last cleared.
    fresh: bool,
    /// What [`Engine::configure`] last gave it.
    applied: Applied,
}

/// The settings an engine runs with (see [`Engine::configure`]).
#[derive(Clone, Debug, PartialEq)]
struct Applied {
    hash_mb: usize,
    threads: usize,
    search_level: u8,
    book: Option<Arc<Book>>,
    clears: u64,
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
            applied: Applied {
                hash_mb,
                threads: 1,
                search_level: study::FULL,
                book: None,
                clears: 0,
            },
        })
    }

    /// An engine as `settings` ask: its tables, threads, techniques and book; or why the
    /// machine cannot give the tables.
    pub fn with_settings(settings: &Settings) -> Result<Engine, EngineError> {
        let mut e = Engine::new(settings.hash_mb)
            .map_err(|e| EngineError::Invalid(hash_refused(settings.hash_mb, &e)))?;
        e.configure(settings, &|| false)?;
        Ok(e)
    }

    /// Gives the engine what `settings` ask and it has not got: new tables for another `Hash`
    /// (what was learnt is lost; their memory taken before it returns unless `cancelled` gives
    /// that up first), the threads, the search level's techniques, the book it consults, and
    /// cleared tables after a `Clear Hash`. Tables the machine cannot give leave the old ones
    /// (and the rest is applied all the same); the refusal is answered once, not again for the
    /// same size.
    pub fn configure(
        &mut self,
        settings: &Settings,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<(), EngineError> {
        let want = Applied {
            hash_mb: settings.hash_mb,
            threads: settings.threads,
            search_level: settings.search_level,
            book: settings.consulted_book(),
            clears: settings.clears,
        };
        let mut resized = Ok(());
        if want.hash_mb != self.applied.hash_mb {
            match self.searcher.set_hash_until(want.hash_mb, cancelled) {
                Ok(()) => self.fresh = true,
                Err(e) => resized = Err(EngineError::Invalid(hash_refused(want.hash_mb, &e))),
            }
        }
        if want.threads != self.applied.threads {
            self.searcher.set_threads(want.threads);
        }
        if want.search_level != self.applied.search_level {
            self.searcher
                .set_techniques(study::techniques(want.search_level));
        }
        let same_book = match (&want.book, &self.applied.book) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        if !same_book {
            self.searcher.set_book(want.book.clone());
        }
        if want.clears != self.applied.clears {
            self.clear();
        }
        self.applied = want;
        resized
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
        progress: &mut dyn FnMut(&Report),
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
        let result = p.run(SearchRoot {
            searcher: &mut self.searcher,
            limits: &limits,
            control: &handle.control,
            progress: &mut |it: &Iteration| {
                if request.skill.is_some() {
                    complete.clone_from(&it.lines);
                }
                progress(&Report::of(p, it))
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
            last: Report::of(p, &result.last),
            chosen_by,
        }
    }

    /// What the evaluation at the search's horizon sees in `p`: its terms and their total,
    /// from the side to move's view.
    pub fn evaluation(p: &AnyPosition) -> Evaluation {
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
        let terms = p.run(Explain);
        Evaluation {
            total: eval::total(&terms),
            terms,
        }
    }
}

/// The heuristic evaluation of a position, term by term ([`Engine::evaluation`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    pub terms: Vec<eval::Term>,
    /// Their sum, as the search uses it (capped).
    pub total: i32,
}

/// One search of a typed root.
struct SearchRoot<'a> {
    searcher: &'a mut Searcher,
    limits: &'a Limits,
    control: &'a Arc<SearchControl>,
    progress: &'a mut dyn FnMut(&Iteration),
}

impl PositionJob for SearchRoot<'_> {
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
