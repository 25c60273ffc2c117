//! The exact solver: proves the game-theoretic score of a position.
//!
//! Scores are exact scores as [`crate::score`] defines them (Pons' convention: a win with the
//! winner's k-th disc scores 22 - k on 7x6), from the side to move's point of view.
//!
//! Negamax with alpha-beta over the non-losing moves only. Before a position is searched it is
//! resolved statically ([`Solver::resolve`]): forced moves are played through, and a loss to the
//! opponent's next disc, a full board, bounds from the discs left and from the row parity
//! (Allis' claimeven, and his odd threats), and the table's bounds settle it without a node. A
//! node resolves all its children first (enhanced transposition cutoffs come with it), caps its
//! score when none of them loses at once, and searches the rest, ordered by the threats a move
//! creates with the table's move and the centre as tie-breaks. Two transposition tables (a large
//! one near the root, a cache-sized one deeper) hold both bounds and the best move, with the
//! mirror-symmetric key near the root. The root value is found by null-window searches that
//! narrow the window.

use crate::board::{Geometry, Position};
use crate::book::Book;
use crate::control::{NodeBudget, SearchControl};
use crate::ordering::{column_order, MoveSorter};
use crate::score;
use crate::tt::{Entry, TableError, TransTable};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

/// Positions with fewer discs than this use the mirror-symmetric key: there, the chance that a
/// mirror image was already searched is highest and the extra work per node pays.
const SYMMETRY_PLIES: u32 = 24;
/// Positions with at least this many discs use the small table (see [`Solver`]).
const NEAR_PLIES: u32 = 22;
/// Size of the small table: about what stays in a core's cache.
const NEAR_TABLE_MB: usize = 1;
/// A search with helpers first runs alone for this many nodes (see [`Solver::set_threads`]).
pub const RACE_AFTER_NODES: u64 = 20_000;
/// The most threads a solver runs.
pub const MAX_THREADS: usize = 64;

/// The solver with its table and statistics. Reuse one for many positions: the table carries over
/// unless [`Solver::clear`] is called.
pub struct Solver {
    /// Positions near the root of a search: few, expensive, worth a large table; shared with
    /// the helper threads.
    tt: Arc<TransTable>,
    /// Positions with at least `NEAR_PLIES` discs: many cheap ones, kept in a table small
    /// enough to stay in the CPU cache (a probe into a large table is a cache miss, and the
    /// misses, not the arithmetic, bound the node rate).
    near: TransTable,
    nodes: u64,
    /// The stop rule of the search this solver works for, if any.
    control: Option<Arc<SearchControl>>,
    /// Stopped when the first thread of a race finishes (see [`Solver::set_threads`]).
    race: Option<Arc<SearchControl>>,
    /// Solvers for the helper threads, sharing `tt` (empty: one thread).
    helpers: Vec<Solver>,
    /// The positions some thread is searching, shared by all threads (`None`: one thread).
    busy: Option<Arc<Busy>>,
    /// Nodes a search runs alone before the helpers join.
    race_after: u64,
    /// The work the current call may do.
    budget: NodeBudget,
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
}

/// What [`Solver::prove_root`] proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootProof {
    /// The exact score of every 0-based column (`None`: full).
    Columns(Vec<Option<i32>>),
    /// A column that keeps the root's exact score `score` (the others' are not known).
    Keeps { col: usize, score: i32 },
    /// Nothing within the limits (a move in `secured` may keep a bound).
    Unproven,
}

/// The widest board supported.
const MAX_WIDTH: usize = 9;

/// Positions being searched by some thread: one word per slot holding the key, set on entry
/// and cleared on exit. A lost race only makes a thread search a move it could have deferred.
struct Busy {
    slots: Vec<AtomicU64>,
}

impl Busy {
    const BITS: u32 = 16;

    fn new() -> Busy {
        Busy {
            slots: (0..1 << Self::BITS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    #[inline(always)]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[(key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::BITS)) as usize]
    }

    #[inline(always)]
    fn enter(&self, key: u64) {
        self.slot(key).store(key, Relaxed);
    }

    #[inline(always)]
    fn leave(&self, key: u64) {
        let s = self.slot(key);
        let _ = s.compare_exchange(key, 0, Relaxed, Relaxed);
    }

    #[inline(always)]
    fn is_busy(&self, key: u64) -> bool {
        self.slot(key).load(Relaxed) == key
    }
}

/// What static resolution made of a position (see [`Solver::resolve`]).
enum Resolved<const W: usize, const H: usize> {
    /// Its value, or a bound on it outside the window (fail-soft), for its side to move.
    Value(i32),
    /// The position its forced moves lead to, still to be searched.
    Search(Open<W, H>),
}

/// A position left to search, with what resolving it already computed.
#[derive(Clone, Copy)]
struct Open<const W: usize, const H: usize> {
    p: Position<W, H>,
    /// The same side is to move as in the position resolved (an even number of forced moves).
    same: bool,
    /// Its non-losing moves (at least two).
    next: u64,
    /// The most its side to move can get ([`Solver::upper_bound`]).
    max: i32,
    key: u64,
    mirrored: bool,
    entry: Option<Entry>,
}

/// Root windows step instead of halving when this many scores are left (measured: 4 gave 2.8%
/// fewer nodes on Test_L1_R2 and 4% on Test_L2_R2; 8 gave 11% fewer on the empty board but 3.7%
/// more on Test_L1_R2).
const STEP_RANGE: i32 = 4;

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

    fn sharing(tt: Arc<TransTable>) -> Solver {
        Solver {
            tt,
            near: TransTable::new(NEAR_TABLE_MB),
            nodes: 0,
            control: None,
            race: None,
            helpers: Vec::new(),
            busy: None,
            race_after: RACE_AFTER_NODES,
            budget: NodeBudget::UNLIMITED,
            stopped: false,
            book: None,
            book_moves: 0,
            book_line_moves: 0,
            book_hits: 0,
        }
    }

    /// Installs (or removes) an opening book: positions it holds are not searched. A book for
    /// another board size is never consulted.
    pub fn set_book(&mut self, book: Option<Arc<Book>>) {
        for h in &mut self.helpers {
            h.set_book(book.clone());
        }
        self.book_moves = book.as_ref().map_or(0, |b| b.depth() + 1);
        self.book_line_moves = book.as_ref().map_or(0, |b| b.max_moves() + 1);
        self.book = book;
    }

    /// Solves with `threads` threads from now on (1..=[`MAX_THREADS`]): helpers search the same
    /// position at the same time through the shared table, and the first thread to finish gives
    /// the answer (Lazy SMP). All keep the same move order, but a move that another thread is
    /// searching waits until the others are done (simplified ABDADA, see [`Busy`]), so at the
    /// nodes where every move must be searched the threads share the moves out. (Varying the
    /// helpers' move order near the root instead, as before, gave no speed-up on the empty
    /// board: a helper's varied first move at a node that needs only one is wasted work.) The
    /// table is kept.
    pub fn set_threads(&mut self, threads: usize) {
        let n = threads.clamp(1, MAX_THREADS) - 1;
        self.helpers.truncate(n);
        while self.helpers.len() < n {
            let mut h = Solver::sharing(self.tt.clone());
            h.set_book(self.book.clone());
            self.helpers.push(h);
        }
        self.busy = (n > 0).then(|| Arc::new(Busy::new()));
        for h in &mut self.helpers {
            h.busy = self.busy.clone();
        }
    }

    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// How many nodes a search runs alone before its helpers join (default
    /// [`RACE_AFTER_NODES`]; 0 races every search, as the tests do).
    pub fn set_race_after(&mut self, nodes: u64) {
        self.race_after = nodes;
    }

    pub fn book(&self) -> Option<&Arc<Book>> {
        self.book.as_ref()
    }

    /// Positions answered by the book since the last [`Solver::reset_nodes`].
    pub fn book_hits(&self) -> u64 {
        self.book_hits
    }

    /// The book's exact score of `p`, if it has one (counted as a hit).
    pub fn book_score<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
    ) -> Option<i32> {
        if p.moves() >= self.book_line_moves {
            return None;
        }
        let s = self.book.as_ref()?.get(p)?;
        self.book_hits += 1;
        Some(s)
    }

    /// Nodes visited since the last [`Solver::reset_nodes`].
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    pub fn reset_nodes(&mut self) {
        self.nodes = 0;
        self.book_hits = 0;
    }

    /// Forgets the tables: the next search starts from nothing.
    pub fn clear(&mut self) {
        // the table is the helpers' too
        self.tt.clear();
        self.near.clear();
        for h in &mut self.helpers {
            h.near.clear();
        }
    }

    pub fn table(&self) -> &TransTable {
        &self.tt
    }

    /// Searches from now on end (returning `Stopped`) when `control`'s stop rule says so, or
    /// once they have visited `max_nodes` more nodes; polled every 4096 nodes.
    pub fn set_limits(&mut self, control: Option<Arc<SearchControl>>, max_nodes: Option<u64>) {
        self.control = control;
        self.budget = NodeBudget::start(self.nodes, max_nodes);
    }

    /// The 0-based column that achieves the best exact score, with that score; ties go to the
    /// column nearest the centre. `None` for a finished game.
    pub fn best_move<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
    ) -> Result<Option<(usize, i32)>, Stopped> {
        let scores = self.analyze(p, false)?;
        Ok(column_order::<W>()
            .iter()
            .filter_map(|&c| scores[c].map(|s| (c, s)))
            .fold(None, |best: Option<(usize, i32)>, (c, s)| match best {
                Some((_, bs)) if bs >= s => best,
                _ => Some((c, s)),
            }))
    }

    /// The exact score of `p` (strong solve).
    pub fn solve<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
    ) -> Result<i32, Stopped> {
        self.solve_window(p, false)
    }

    /// Win (1), draw (0) or loss (-1) for the side to move (weak solve: cheaper than strong).
    pub fn solve_weak<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
    ) -> Result<i32, Stopped> {
        self.solve_window(p, true).map(score::outcome)
    }

    fn solve_window<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        weak: bool,
    ) -> Result<i32, Stopped> {
        if self.helpers.is_empty() || p.is_game_over() || p.can_win_next() {
            return self.solve_window_alone(p, weak);
        }
        // Most positions take a few thousand nodes, less than starting the helpers costs: try
        // alone first, and race only if that was not enough (the table keeps the work).
        let outer = self.budget;
        let cap = outer
            .remaining(self.nodes)
            .map_or(self.race_after, |r| r.min(self.race_after));
        self.budget = NodeBudget::start(self.nodes, Some(cap));
        let alone = self.solve_window_alone(p, weak);
        self.budget = outer;
        let limited =
            self.control.as_ref().is_some_and(|c| c.must_stop()) || self.budget.spent(self.nodes);
        match alone {
            Ok(v) => Ok(v),
            Err(Stopped) if limited => Err(Stopped),
            Err(Stopped) => self.race(|s| s.solve_window_alone(p, weak)),
        }
    }

    /// Runs `search` on this solver and on every helper at once; the first to finish answers
    /// and stops the others. Nodes and book hits add up.
    fn race<F>(&mut self, search: F) -> Result<i32, Stopped>
    where
        F: Fn(&mut Solver) -> Result<i32, Stopped> + Sync,
    {
        let race = SearchControl::unlimited();
        let first: std::sync::Mutex<Option<i32>> = std::sync::Mutex::new(None);
        let finish = |r: Result<i32, Stopped>| {
            if let Ok(v) = r {
                let mut f = first.lock().unwrap_or_else(|e| e.into_inner());
                f.get_or_insert(v);
                race.stop();
            }
        };
        let mut helpers = std::mem::take(&mut self.helpers);
        std::thread::scope(|scope| {
            for h in helpers.iter_mut() {
                h.control = self.control.clone();
                h.race = Some(race.clone());
                h.budget = NodeBudget::start(h.nodes, self.budget.remaining(self.nodes));
                let (search, finish) = (&search, &finish);
                scope.spawn(move || finish(search(h)));
            }
            self.race = Some(race.clone());
            finish(search(self));
            self.race = None;
        });
        for h in &mut helpers {
            self.nodes += std::mem::take(&mut h.nodes);
            self.book_hits += std::mem::take(&mut h.book_hits);
            h.control = None;
            h.race = None;
        }
        self.helpers = helpers;
        let v = first.into_inner().unwrap_or_else(|e| e.into_inner());
        v.ok_or(Stopped)
    }

    fn solve_window_alone<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        weak: bool,
    ) -> Result<i32, Stopped> {
        if let Some(s) = score::terminal(p) {
            return Ok(s);
        }
        let cells = (W * H) as i32;
        let moves = p.moves() as i32;
        if p.can_win_next() {
            return Ok(score::win_now(cells, moves));
        }
        if let Some(s) = self.book_score(p) {
            return Ok(if weak { score::outcome(s) } else { s });
        }
        let (mut min, mut max) = score::range(cells, moves);
        if weak {
            min = min.max(-1);
            max = max.min(1);
        }
        self.stopped = false;
        // Null-window searches; probing near 0 first (where most positions are), then halving.
        // A window close to the score costs most, one far from it little (a quick win or loss
        // is a shallow proof): once at most STEP_RANGE scores are left, the tests step out from
        // 0 instead of halving, which skips a test just beside the score more often than not.
        while min < max {
            let mut med = min + (max - min) / 2;
            if max - min <= STEP_RANGE {
                med = if min >= 0 {
                    min
                } else if max <= 0 {
                    max - 1
                } else {
                    -1
                };
            } else if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            let r = self.search(p, med, med + 1);
            if self.stopped {
                return Err(Stopped);
            }
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        Ok(min)
    }

    /// The exact score of every 0-based column (`None` for a full column or a finished game):
    /// the score the side to move gets by playing there.
    pub fn analyze<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        weak: bool,
    ) -> Result<Vec<Option<i32>>, Stopped> {
        (0..W).map(|col| self.solve_column(p, col, weak)).collect()
    }

    /// The exact score (or with `weak`, win / draw / loss) the side to move gets by playing the
    /// 0-based `col`; `None` for a full column or a finished game.
    pub fn solve_column<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        col: usize,
        weak: bool,
    ) -> Result<Option<i32>, Stopped> {
        if p.is_game_over() || !p.can_play(col) {
            return Ok(None);
        }
        let s = score::of_move(p, col, |child| self.solve_window(child, weak))?;
        Ok(Some(if weak { score::outcome(s) } else { s }))
    }

    /// The best move by the book alone, with its score: the entry's move when the book holds
    /// `p` with one, else, when the book (or the rules: a win at once, a full board) scores
    /// every move from `p`, the best-scoring column nearest the centre. No search; `None` when
    /// the book cannot say.
    pub fn book_move<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
    ) -> Option<(usize, i32)> {
        if p.is_game_over() || p.moves() >= self.book_line_moves {
            return None;
        }
        if let Some(m) = self.book.as_ref().and_then(|b| b.best_move(p)) {
            self.book_hits += 1;
            return Some(m);
        }
        if p.moves() + 1 >= self.book_line_moves {
            return None;
        }
        let mut best: Option<(usize, i32)> = None;
        for &c in column_order::<W>().iter() {
            if !p.can_play(c) {
                continue;
            }
            let s = score::of_move(p, c, |child| self.book_score(child).ok_or(())).ok()?;
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((c, s));
            }
        }
        best
    }

    /// A lower bound on the exact score of `p` that is already known, without searching: from
    /// the book, whose positions bound their children (the side that just moved got at most
    /// the book's score by its move), and from the table, whose bounds stay true across
    /// searches. When the engine proved, the move before, that its move keeps a value, every
    /// reply leaves a position stored with that value as lower bound: what was proven once is
    /// not thrown away, and it is cheap to keep (see [`Solver::move_with_value`]).
    pub fn known_lower_bound<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
    ) -> Option<i32> {
        if p.is_game_over() {
            return None;
        }
        let mut best: Option<i32> = None;
        if p.moves() > 0 && p.moves() <= self.book_line_moves {
            // take back each disc the last mover could have played last
            let last_mover = p.mask() ^ p.current();
            for c in 0..W {
                let h = p.column_height(c);
                if h == 0 {
                    continue;
                }
                let bit = Geometry::<W, H>::bottom_cell(c) << (h - 1);
                if last_mover & bit == 0 {
                    continue;
                }
                let parent = Position::<W, H>::from_raw(last_mover & !bit, p.mask() & !bit);
                if let Some(v) = self.book_score(&parent) {
                    best = best.max(Some(-v));
                }
            }
        }
        let moves = p.moves();
        let key = Self::key_of(p).0;
        if let Some(e) = self.table_for(moves).probe(key) {
            let floor = score::loss_next((W * H) as i32, moves as i32);
            if e.lower >= floor {
                best = best.max(Some(e.lower));
            }
        }
        best
    }

    /// A 0-based column whose exact score is at least `value` (exactly `value` when that is the
    /// score of `p`, from the book say): each column gets one null-window test ("does the
    /// opponent get at most `-value`?"), far cheaper than solving the columns. The table's move
    /// goes first (a search of `p` just stored the move that proved its bound: testing the
    /// others first would prove, at a cost, that they are worse), then the moves that do not
    /// hand the opponent a win (the others score worst), each in centre-first order. `None` for
    /// a finished game, or if no column reaches `value`.
    pub fn move_with_value<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        value: i32,
    ) -> Result<Option<usize>, Stopped> {
        let order = column_order::<W>();
        let (key, mirrored) = Self::key_of(p);
        let hint = self
            .table_for(p.moves())
            .probe(key)
            .and_then(|e| e.best_move)
            .map(|c| oriented::<W>(c as usize, mirrored));
        let safe = p.non_losing_moves();
        let cols = hint
            .into_iter()
            .chain(order.iter().copied().filter(|&c| Some(c) != hint))
            .filter(|&c| p.can_play(c));
        let (good, bad): (Vec<usize>, Vec<usize>) =
            cols.partition(|&c| safe & Geometry::<W, H>::column_mask(c) != 0);
        self.first_with_value(p, value, good.into_iter().chain(bad))
    }

    /// The book's best move: the column nearest the centre whose exact score is `score`, the
    /// exact score of `p`. Unlike [`Solver::move_with_value`] the answer does not depend on what
    /// the table holds, so that every build of a book stores the same moves. `None` for a
    /// finished game, or if no column has that score.
    pub fn best_column<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        score: i32,
    ) -> Result<Option<usize>, Stopped> {
        let order = column_order::<W>();
        let cols = order.into_iter().filter(|&c| p.can_play(c));
        self.first_with_value(p, score, cols)
    }

    /// The first of `cols` (playable columns of `p`) whose exact score is at least `value`; a
    /// win at once, the centre-most, before any.
    fn first_with_value<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        value: i32,
        cols: impl Iterator<Item = usize>,
    ) -> Result<Option<usize>, Stopped> {
        if p.is_game_over() {
            return Ok(None);
        }
        let win_now = score::win_now((W * H) as i32, p.moves() as i32);
        if let Some(c) = column_order::<W>()
            .into_iter()
            .find(|&c| p.can_play(c) && p.is_winning_move(c))
        {
            return Ok((value <= win_now).then_some(c));
        }
        self.stopped = false;
        for c in cols {
            let mut child = *p;
            child.play_col(c);
            if self.value_at_most(&child, -value)? {
                return Ok(Some(c));
            }
        }
        Ok(None)
    }

    /// Whether the exact score of `p` is at most `bound` (one null-window search).
    pub fn value_at_most<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        bound: i32,
    ) -> Result<bool, Stopped> {
        self.stopped = false;
        if let Some(s) = score::terminal(p) {
            return Ok(s <= bound);
        }
        if p.can_win_next() {
            return Ok(score::win_now((W * H) as i32, p.moves() as i32) <= bound);
        }
        if let Some(s) = self.book_score(p) {
            return Ok(s <= bound);
        }
        let r = self.search(p, bound, bound + 1);
        if self.stopped {
            return Err(Stopped);
        }
        Ok(r <= bound)
    }

    /// The root proof strategy of a time-limited search, as one call: what the book and the
    /// table already know, then the root's value and a move that keeps it, then every column's
    /// exact score. `secured` carries, from one call to the next of the same search, a root
    /// move proven to keep at least a score (the searcher plays it when nothing better is
    /// proven). With `one_line` (one line wanted, every move allowed) the cheap steps come
    /// first; each of the two steps may use `budget` nodes. Ends early when `control` says so.
    pub fn prove_root<const W: usize, const H: usize>(
        &mut self,
        root: &Position<W, H>,
        one_line: bool,
        secured: &mut Option<(usize, i32)>,
        control: &Arc<SearchControl>,
        budget: u64,
    ) -> RootProof {
        self.set_limits(Some(control.clone()), Some(budget));
        let proof = self.prove_root_steps(root, one_line, secured, budget);
        self.set_limits(None, None);
        proof
    }

    fn prove_root_steps<const W: usize, const H: usize>(
        &mut self,
        root: &Position<W, H>,
        one_line: bool,
        secured: &mut Option<(usize, i32)>,
        budget: u64,
    ) -> RootProof {
        if one_line {
            return match self.keep_value(root, secured, budget) {
                Some((col, score)) => RootProof::Keeps { col, score },
                None => RootProof::Unproven,
            };
        }
        match self.analyze(root, false) {
            Ok(scores) => RootProof::Columns(scores),
            Err(Stopped) => RootProof::Unproven,
        }
    }

    /// The root's exact score and a column that keeps it, cheapest steps first; `None` if the
    /// limits came first. With the book's score, one null-window test per column finds the
    /// column. Otherwise win, draw or loss comes first (a fraction of the exact score's cost,
    /// and all that keeping the game's value needs), with a column that keeps it, remembered in
    /// `secured` in case the rest does not finish; then the exact score (on a budget of its
    /// own) and a column with it. One search of the root, not one per column: the exact scores
    /// of the columns that lose value, which one line does not need, are what costs most.
    fn keep_value<const W: usize, const H: usize>(
        &mut self,
        root: &Position<W, H>,
        secured: &mut Option<(usize, i32)>,
        budget: u64,
    ) -> Option<(usize, i32)> {
        if let Some(v) = self.book_score(root) {
            // the win or the draw first: cheaper to find a move for than a higher score
            if v >= 0 {
                self.secure(root, v.min(1), secured)?;
            }
            return self.secure(root, v, secured).map(|c| (c, v));
        }
        // a bound already known (a book parent, or what the last search proved) spares a search
        let known = self.known_lower_bound(root);
        // weak-solved even when the bound says won: the search leaves a winning move in the
        // table, where finding one without it tries the columns one by one, centre first
        let outcome = self.solve_weak(root).ok()?;
        if outcome >= 0 {
            // the win or the draw first, as with the book's score: a move that keeps the known
            // bound itself can cost a thousand times more (a book parent gives the exact score)
            let c = self.secure(root, outcome, secured)?;
            if outcome == 0 {
                // a draw is an exact score
                return Some((c, 0));
            }
            if let Some(x) = known.filter(|&x| x > outcome) {
                self.secure(root, x, secured)?;
            }
        }
        let (nodes, hits) = (self.nodes, self.book_hits);
        self.reset_nodes();
        self.budget = NodeBudget::start(0, Some(budget));
        let exact = self.solve(root);
        self.nodes += nodes;
        self.book_hits += hits;
        let v = exact.ok()?;
        self.secure(root, v, secured).map(|c| (c, v))
    }

    /// A column that keeps at least `value` at the root: the one in `secured` if it keeps as
    /// much, else one found by [`Solver::move_with_value`] and remembered there.
    fn secure<const W: usize, const H: usize>(
        &mut self,
        root: &Position<W, H>,
        value: i32,
        secured: &mut Option<(usize, i32)>,
    ) -> Option<usize> {
        if let Some((c, s)) = *secured {
            if s >= value {
                return Some(c);
            }
        }
        let c = self.move_with_value(root, value).ok()??;
        *secured = Some((c, value));
        Some(c)
    }

    /// The exact score of every 0-based column (as [`Solver::analyze`]) that can be proven
    /// within `budget` of wall time; `None` for a full column and for one not proven in time.
    /// Every open column first gets its share of the time, centre first, then the unproven ones
    /// share what is left (the table keeps the work done so far).
    pub fn analyze_within<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        budget: Duration,
    ) -> Vec<Option<i32>> {
        let start = std::time::Instant::now();
        let mut scores = vec![None; W];
        let open: Vec<usize> = column_order::<W>()
            .into_iter()
            .filter(|&c| p.can_play(c) && !p.is_game_over())
            .collect();
        for pass in 0..2 {
            let todo: Vec<usize> = open
                .iter()
                .copied()
                .filter(|&c| scores[c].is_none())
                .collect();
            for (i, &c) in todo.iter().enumerate() {
                let left = budget.saturating_sub(start.elapsed());
                if left.is_zero() {
                    break;
                }
                let share = if pass == 0 {
                    left / (todo.len() - i) as u32
                } else {
                    left
                };
                self.set_limits(Some(SearchControl::within(share)), None);
                scores[c] = self.solve_column(p, c, false).ok().flatten();
            }
        }
        self.set_limits(None, None);
        scores
    }

    /// The value of a position whose side to move cannot win at once: static resolution
    /// first, then a search of what is left. Fail-soft, as [`Solver::negamax`].
    fn search<const W: usize, const H: usize>(
        &mut self,
        p: &Position<W, H>,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        match self.resolve(*p, alpha, beta) {
            Resolved::Value(v) => v,
            Resolved::Search(o) if o.same => self.negamax(&o, alpha, beta),
            Resolved::Search(o) => -self.negamax(&o, -beta, -alpha),
        }
    }

    /// Settles what needs no search in a position whose side to move cannot win at once: a
    /// loss to the opponent's next disc, a full board, bounds from the discs left and from
    /// claimeven that close the window, and the table's bounds. A move forced (the only one
    /// that does not lose at once) is played and the same asked of the position after it, so
    /// a chain of forced moves costs no node and no table entry. Otherwise the position left
    /// to search is returned, with `true` when its side to move is that of `p`.
    #[inline(always)]
    fn resolve<const W: usize, const H: usize>(
        &self,
        mut p: Position<W, H>,
        mut alpha: i32,
        mut beta: i32,
    ) -> Resolved<W, H> {
        let cells = (W * H) as i32;
        let mut same = true;
        let out = |same: bool, v: i32| Resolved::Value(if same { v } else { -v });
        loop {
            let moves = p.moves() as i32;
            let opp_win = p.opponent_winning_cells();
            let next = p.non_losing_moves_against(opp_win);
            if next == 0 {
                // every move lets the opponent connect four with its next disc
                return out(same, score::loss_next(cells, moves));
            }
            if moves >= cells - 2 {
                // neither side can win in the two discs left
                return out(same, 0);
            }
            // the opponent cannot win with its next disc, so at best it wins with the one after
            let min = score::worst_without_loss_next(cells, moves);
            if alpha < min {
                alpha = min;
                if alpha >= beta {
                    return out(same, alpha);
                }
            }
            let max = Self::upper_bound(&p, opp_win);
            if beta > max {
                beta = max;
                if alpha >= beta {
                    return out(same, beta);
                }
            }
            if next & (next - 1) == 0 {
                // the only move that does not lose at once: the position's value is its child's
                p.play(next);
                (alpha, beta) = (-beta, -alpha);
                same = !same;
                continue;
            }
            let (key, mirrored) = Self::key_of(&p);
            let entry = self.table_for(moves as u32).probe(key);
            if let Some(e) = entry {
                if e.lower >= beta {
                    return out(same, e.lower);
                }
                if e.upper <= alpha {
                    return out(same, e.upper);
                }
            }
            return Resolved::Search(Open {
                p,
                same,
                next,
                max,
                key,
                mirrored,
                entry,
            });
        }
    }

    /// The most the side to move can get when it cannot win with the disc it drops now: a win
    /// with its next disc, a draw when the empty cells or claimeven leave it no four, a loss
    /// when claimeven or an odd threat gives the opponent a four first.
    #[inline(always)]
    fn upper_bound<const W: usize, const H: usize>(p: &Position<W, H>, opp_win: u64) -> i32 {
        let max = score::best_without_win_now((W * H) as i32, p.moves() as i32);
        if max <= 0 {
            return max;
        }
        // no four is left that we could complete with all the empty cells
        if !Position::<W, H>::has_four(p.current() | (Geometry::<W, H>::BOARD & !p.mask())) {
            return 0;
        }
        if (W * H) as u32 % 2 == p.moves() % 2 {
            Self::claimeven_bound(p, opp_win)
        } else {
            Self::odd_threat_loss(p, opp_win)
        }
        .unwrap_or(max)
    }

    /// Claimeven (Allis), extended: with an even number of empty cells, the columns with an odd
    /// number come in pairs. The opponent answers a move in a column with an even number in the
    /// same column, and a move in one of the others in another of them: we only get the empty
    /// cells of our row parity and some of the cells playable now, and none above a threat of
    /// the opponent on its row parity (that threat is its before those cells come). If those
    /// hold no four, we cannot win; and we lose if the opponent has such a threat (at the latest
    /// when the one with the most cells above it is reached) or if its share (the rest, less
    /// the playable cells) holds four (by its last disc at the latest).
    #[inline(always)]
    fn claimeven_bound<const W: usize, const H: usize>(
        p: &Position<W, H>,
        opp_win: u64,
    ) -> Option<i32> {
        let mover_rows = Geometry::<W, H>::MOVER_ROWS;
        let empty = Geometry::<W, H>::BOARD & !p.mask();
        let possible = p.possible();
        let threats = opp_win & !mover_rows & !possible;
        let (above, left) = Self::above::<W, H>(threats);
        let ours = (p.current() | (empty & mover_rows) | possible) & !above;
        if Position::<W, H>::has_four(ours) {
            return None;
        }
        Some(if threats != 0 {
            Self::loss_with_left::<W, H>(left)
        } else if Position::<W, H>::has_four(p.opponent() | (empty & !mover_rows & !possible)) {
            Self::loss_with_left::<W, H>(0)
        } else {
            0
        })
    }

    /// The cells above the lowest of `threats` in each column, and the most of them in one
    /// column: a threat that the game must reach ends it with those cells still empty.
    #[inline(always)]
    fn above<const W: usize, const H: usize>(mut threats: u64) -> (u64, i32) {
        let (mut above, mut most) = (0, 0);
        while threats != 0 {
            let t = threats & threats.wrapping_neg();
            let col = Geometry::<W, H>::column_mask(t.trailing_zeros() as usize / (H + 1));
            let cells = col & !((t << 1) - 1);
            above |= cells;
            most = most.max(cells.count_ones() as i32);
            threats &= !col;
        }
        (above, most)
    }

    /// A loss to a threat the game must reach, with `left` cells still empty then (0: to the
    /// opponent's last disc at the latest).
    #[inline(always)]
    fn loss_with_left<const W: usize, const H: usize>(left: i32) -> i32 {
        let cells = (W * H) as i32;
        -score::win_at(cells, cells - left - 1)
    }

    /// An odd threat (Allis): with an odd number of empty cells, the opponent may hold a threat
    /// in a column with an odd number of them, on the row parity the side to move does not
    /// play into first there. The opponent answers a move in any other column with an even
    /// number in the same column, a move in one of the others with an odd number in another of
    /// them, and a move in the threat's column above it: it gets the threat before that column
    /// fills, so the game ends there at the latest. Meanwhile the side to move gets at most its
    /// row parity outside that column, the other one inside it, and the cells playable now, and
    /// none above a threat of the opponent on the opponent's parity. If those hold no four, it
    /// loses, at the latest when the threat with the most cells above it is reached.
    #[inline(always)]
    fn odd_threat_loss<const W: usize, const H: usize>(
        p: &Position<W, H>,
        opp_win: u64,
    ) -> Option<i32> {
        let mover_rows = Geometry::<W, H>::MOVER_ROWS;
        let mut odd = opp_win & mover_rows;
        if odd == 0 {
            return None;
        }
        let empty = Geometry::<W, H>::BOARD & !p.mask();
        let possible = p.possible();
        let elsewhere = opp_win & !mover_rows & !possible;
        while odd != 0 {
            let t = odd & odd.wrapping_neg();
            let col = Geometry::<W, H>::column_mask(t.trailing_zeros() as usize / (H + 1));
            odd &= !col;
            // a column with an odd number of empty cells has its playable cell off the mover rows
            if possible & col & mover_rows != 0 {
                continue;
            }
            let theirs = (opp_win & mover_rows & col) | (elsewhere & !col);
            let (above, left) = Self::above::<W, H>(theirs);
            let ours = (p.current()
                | (empty & mover_rows & !col)
                | (empty & !mover_rows & col)
                | possible)
                & !above;
            if !Position::<W, H>::has_four(ours) {
                return Some(Self::loss_with_left::<W, H>(left));
            }
        }
        None
    }

    /// The table key of `p` (mirror-symmetric near the root) and whether it is the mirror's.
    #[inline(always)]
    fn key_of<const W: usize, const H: usize>(p: &Position<W, H>) -> (u64, bool) {
        if p.moves() < SYMMETRY_PLIES {
            p.symmetric_key()
        } else {
            (p.key(), false)
        }
    }

    /// Alpha-beta search of a position [`Solver::resolve`] left to search: its side to move
    /// cannot win at once and has at least two moves that do not lose at once.
    /// Fail-soft: a result `<= alpha` is an upper bound, `>= beta` a lower bound, else exact.
    fn negamax<const W: usize, const H: usize>(
        &mut self,
        open: &Open<W, H>,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        let p = &open.p;
        debug_assert!(alpha < beta);
        debug_assert!(!p.can_win_next());
        self.nodes += 1;
        if self.nodes & 4095 == 0 {
            self.poll_limits();
        }
        if self.stopped {
            return 0;
        }
        let cells = (W * H) as i32;
        let moves = p.moves() as i32;
        if (moves as u32) < self.book_moves {
            if let Some(s) = self.book_score(p) {
                return s;
            }
        }
        let next = open.next;
        debug_assert!(next & (next - 1) != 0);
        let min = score::worst_without_loss_next(cells, moves);
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return alpha;
            }
        }
        if beta > open.max {
            beta = open.max;
            if alpha >= beta {
                return beta;
            }
        }

        let (key, mirrored) = (open.key, open.mirrored);
        // the table stores moves in the orientation of its key
        let orient = |c: usize| oriented::<W>(c, mirrored);
        let mut tt_move = None;
        if let Some(e) = open.entry {
            if e.lower >= beta {
                return e.lower;
            }
            if e.upper <= alpha {
                return e.upper;
            }
            alpha = alpha.max(e.lower);
            beta = beta.min(e.upper);
            if alpha >= beta {
                return alpha;
            }
            tt_move = e.best_move.map(|c| orient(c as usize));
        }
        let alpha_orig = alpha;

        // Every child is resolved statically first (forced replies, the table: enhanced
        // transposition cutoffs). One that settles the window ends the node without a search;
        // the others are searched, ordered, from where their forced moves lead.
        let mut best = i32::MIN;
        let mut best_col = None;
        let mut ends = [None; W];
        // our threats right above an opponent threat can never be played first
        let opp_threats = p.opponent_winning_cells();
        let mut sorter = MoveSorter::new();
        let order = column_order::<W>();
        if (moves as u32) + 1 < NEAR_PLIES {
            // Children's entries in the large table are cache misses: ask for all of them
            // before resolving any, so that the misses overlap.
            let mut m = next;
            while m != 0 {
                let bit = m & m.wrapping_neg();
                m ^= bit;
                self.tt.prefetch(Self::key_of(&p.after(bit)).0);
            }
        }
        for &col in order.iter().rev() {
            let bit = next & Geometry::<W, H>::column_mask(col);
            if bit == 0 {
                continue;
            }
            match self.resolve(p.after(bit), -beta, -alpha) {
                Resolved::Value(v) => {
                    let s = -v;
                    if s > best {
                        best = s;
                        best_col = Some(col);
                    }
                    if s >= beta {
                        self.store(moves as u32, key, s, i32::MAX, Some(orient(col)), 1);
                        return s;
                    }
                    alpha = alpha.max(s);
                    continue;
                }
                Resolved::Search(o) => ends[col] = Some(o),
            }
            // The threats the move leaves us, and again those a disc above a playable cell,
            // which zugzwang most often turns into wins (measured: a weight for threats the
            // opponent must answer at once made ordering worse). The table's move breaks ties.
            let mask = p.mask() | bit;
            let threats =
                Position::<W, H>::winning_cells(p.current() | bit, mask) & !(opp_threats << 1);
            let playable = (mask + Geometry::<W, H>::BOTTOM) & Geometry::<W, H>::BOARD;
            let score = (4 * (threats.count_ones() + (threats & (playable << 1)).count_ones())
                + u32::from(Some(col) == tt_move)) as i32;
            sorter.add(bit, col, score);
        }
        if sorter.is_empty() {
            self.store_result(moves as u32, key, best, alpha_orig, best_col.map(orient), 1);
            return best;
        }
        // No child lost at once for the opponent (that would have settled the node): we cannot
        // win with our next disc either, at best with the one after.
        let max = score::best_without_win_soon(cells, moves);
        if beta > max {
            beta = max;
            if alpha >= beta {
                return beta;
            }
        }

        let nodes_before = self.nodes;
        // With helpers, a move another thread is searching right now waits until the others are
        // done (simplified ABDADA): at a node where every move must be searched, the threads
        // share the moves out instead of searching the same ones side by side.
        let track = self.busy.is_some() && (moves as u32) < NEAR_PLIES;
        let mut cols = [0u8; 2 * MAX_WIDTH];
        let mut n = 0;
        for (_, col) in sorter {
            if ends[col].is_some() {
                cols[n] = col as u8;
                n += 1;
            }
        }
        let mut deferred = [false; MAX_WIDTH];
        if track {
            self.busy_do(|b| b.enter(key));
        }
        let mut first = true;
        let mut i = 0;
        while i < n {
            let col = cols[i] as usize;
            i += 1;
            let Some(o) = ends[col] else {
                continue;
            };
            if track
                && !first
                && !deferred[col]
                && self.busy.as_ref().is_some_and(|b| b.is_busy(o.key))
            {
                deferred[col] = true;
                cols[n] = col as u8;
                n += 1;
                continue;
            }
            // the move's value, from the position its forced moves lead to
            let value = |s: &mut Self, a: i32, b: i32| {
                if o.same {
                    -s.negamax(&o, -b, -a)
                } else {
                    s.negamax(&o, a, b)
                }
            };
            let s = if first || beta - alpha == 1 {
                value(self, alpha, beta)
            } else {
                // principal variation search: prove the move is no better, re-search if it is
                let s = value(self, alpha, alpha + 1);
                if s > alpha && s < beta && !self.stopped {
                    value(self, alpha, beta)
                } else {
                    s
                }
            };
            first = false;
            if self.stopped {
                if track {
                    self.busy_do(|b| b.leave(key));
                }
                return 0;
            }
            if s > best {
                best = s;
                best_col = Some(col);
            }
            if s >= beta {
                if track {
                    self.busy_do(|b| b.leave(key));
                }
                let work = bit_length(self.nodes - nodes_before);
                self.store(moves as u32, key, s, i32::MAX, best_col.map(orient), work);
                return s;
            }
            alpha = alpha.max(s);
        }
        if track {
            self.busy_do(|b| b.leave(key));
        }
        let work = bit_length(self.nodes - nodes_before);
        self.store_result(
            moves as u32,
            key,
            best,
            alpha_orig,
            best_col.map(orient),
            work,
        );
        best
    }

    /// Stores a node's result that did not reach beta: exact above `alpha`, else an upper bound.
    #[inline(always)]
    fn store_result(
        &self,
        moves: u32,
        key: u64,
        best: i32,
        alpha: i32,
        best_col: Option<usize>,
        work: u32,
    ) {
        let lower = if best > alpha { best } else { i32::MIN };
        self.store(moves, key, lower, best, best_col, work);
    }

    #[inline(always)]
    fn busy_do(&self, f: impl FnOnce(&Busy)) {
        if let Some(b) = &self.busy {
            f(b);
        }
    }

    #[cold]
    fn poll_limits(&mut self) {
        if self.control.as_ref().is_some_and(|c| c.must_stop())
            || self.race.as_ref().is_some_and(|c| c.must_stop())
            || self.budget.spent(self.nodes)
        {
            self.stopped = true;
        }
    }

    #[inline(always)]
    fn table_for(&self, moves: u32) -> &TransTable {
        if moves >= NEAR_PLIES {
            &self.near
        } else {
            &self.tt
        }
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn store(
        &self,
        moves: u32,
        key: u64,
        lower: i32,
        upper: i32,
        best_col: Option<usize>,
        work: u32,
    ) {
        self.table_for(moves)
            .store(key, lower, upper, best_col.map(|c| c as u8), work);
    }
}

/// Column `c` in the orientation of a table key that is the mirror image's when `mirrored`
/// (the mapping is its own inverse: stored moves go both ways through it).
#[inline(always)]
fn oriented<const W: usize>(c: usize, mirrored: bool) -> usize {
    crate::book::orient(c, W, mirrored)
}

#[inline(always)]
fn bit_length(x: u64) -> u32 {
    64 - x.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Plain negamax over the whole game, remembering positions already scored (no bounds).
    fn minimax<const W: usize, const H: usize>(
        p: &Position<W, H>,
        seen: &mut HashMap<u64, i32>,
    ) -> i32 {
        if let Some(s) = score::terminal(p) {
            return s;
        }
        if let Some(&s) = seen.get(&p.key()) {
            return s;
        }
        let best = (0..W)
            .filter(|&c| p.can_play(c))
            .map(|c| {
                let mut q = *p;
                q.play_col(c);
                -minimax(&q, seen)
            })
            .max()
            .expect("a game that goes on has a move");
        seen.insert(p.key(), best);
        best
    }

    /// Random games stopped with `empty` cells left, the side to move unable to win at once:
    /// every bound [`Solver::upper_bound`] gives below the trivial one is checked against the
    /// truth. Returns how many bounds were losses, and how many of them the odd-threat rule
    /// gave.
    fn parity_bounds_hold<const W: usize, const H: usize>(
        empty: u32,
        games: usize,
    ) -> (usize, usize) {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut seen = HashMap::new();
        let (mut losses, mut odd) = (0, 0);
        for _ in 0..games {
            let mut p = Position::<W, H>::new();
            while (W * H) as u32 - p.moves() > empty && !p.is_game_over() {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let c = (rng % W as u64) as usize;
                if p.can_play(c) {
                    p.play_col(c);
                }
            }
            if p.is_game_over() || p.can_win_next() {
                continue;
            }
            let opp_win = p.opponent_winning_cells();
            let bound = Solver::upper_bound(&p, opp_win);
            if bound < score::best_without_win_now((W * H) as i32, p.moves() as i32) {
                let truth = minimax(&p, &mut seen);
                assert!(
                    truth <= bound,
                    "{W}x{H} {:?}: upper bound {bound}, minimax {truth}",
                    p.to_move_string()
                );
                losses += usize::from(bound < 0);
                odd += usize::from(Solver::odd_threat_loss(&p, opp_win).is_some());
            }
        }
        (losses, odd)
    }

    #[test]
    fn parity_bounds_are_never_below_the_true_score() {
        // both row parities and both cell-count parities; the rules must fire to be tested
        fn check<const W: usize, const H: usize>() {
            let (mut losses, mut odd) = (0, 0);
            for empty in 2..=12 {
                let (l, o) = parity_bounds_hold::<W, H>(empty, 1000);
                losses += l;
                odd += o;
            }
            assert!(
                losses >= 100 && odd >= 50,
                "{W}x{H}: {losses} losses, {odd} odd"
            );
        }
        check::<4, 4>();
        check::<5, 4>();
        check::<6, 4>();
        check::<4, 5>();
        check::<5, 5>();
    }

    #[test]
    fn busy_marks_only_the_key_entered_and_leaving_clears_only_its_own_mark() {
        let b = Busy::new();
        let (k, other) = (0x1234_5678_9abc, 0x0fed_cba9_8765);
        assert!(!b.is_busy(k));
        b.enter(k);
        assert!(b.is_busy(k));
        assert!(!b.is_busy(other));
        // another key taking the slot: leaving the first key must not clear its mark
        let mut clash = other;
        while !std::ptr::eq(b.slot(clash), b.slot(k)) {
            clash += 1;
        }
        b.enter(clash);
        assert!(!b.is_busy(k));
        b.leave(k);
        assert!(b.is_busy(clash));
        b.leave(clash);
        assert!(!b.is_busy(clash));
    }
}
