//! The time-limited player: the searcher, with the exact solver and the book, and what it keeps
//! from one search to the next.

use super::handle::Handle;
use super::report::{Report, Thought};
use super::request::{Limits, Request};
use crate::bits::Bitboard;
use crate::board::{AnyPosition, Position, PositionJob, Size};
use crate::book::Book;
use crate::control::SearchControl;
use crate::eval;
use crate::levels;
use crate::search::{Iteration, Line, Searcher, Techniques};
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
        let result = p.run(Search {
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
    limits: &'a Limits,
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
