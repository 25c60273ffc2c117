//! The root policies: what the time-limited searcher, `vier solve --all`, the book builder and
//! the hints ask of the solver at a root (every column's score, a move that keeps the value,
//! what can be proven within a time).

use super::keys::{column_cells, key_of, oriented};
use super::settings::{DEEP_LEARNT, SEED_WORK};
use super::{Solver, Stopped, ALL};
use crate::bits::Bitboard;
use crate::board::{Geometry, Position};
use crate::control::{NodeBudget, SearchControl};
use crate::ordering::column_order;
use crate::score;
use std::sync::Arc;
use std::time::Duration;

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

impl Solver {
    /// The 0-based column that achieves the best exact score, with that score; ties go to the
    /// column nearest the centre. `None` for a finished game.
    pub fn best_move<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
    ) -> Result<Option<(usize, i32)>, Stopped> {
        let scores = self.analyse(p, false)?;
        Ok(column_order::<W>()
            .iter()
            .filter_map(|&c| scores[c].map(|s| (c, s)))
            .fold(None, |best: Option<(usize, i32)>, (c, s)| match best {
                Some((_, bs)) if bs >= s => best,
                _ => Some((c, s)),
            }))
    }

    /// The exact score of every 0-based column (`None` for a full column or a finished game):
    /// the score the side to move gets by playing there.
    pub fn analyse<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        weak: bool,
    ) -> Result<Vec<Option<i32>>, Stopped> {
        (0..W).map(|col| self.solve_column(p, col, weak)).collect()
    }

    /// The exact score (or with `weak`, win / draw / loss) the side to move gets by playing the
    /// 0-based `col`; `None` for a full column or a finished game.
    pub fn solve_column<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        col: usize,
        weak: bool,
    ) -> Result<Option<i32>, Stopped> {
        if p.is_game_over() || !p.can_play(col) {
            return Ok(None);
        }
        let s = score::of_move(p, col, |child| self.solve_window(child, weak, ALL))?;
        Ok(Some(if weak { score::outcome(s) } else { s }))
    }

    /// A 0-based column whose exact score is at least `value` (exactly `value` when that is the
    /// score of `p`, from the book say): each column gets one null-window test ("does the
    /// opponent get at most `-value`?"), far cheaper than solving the columns. The table's move
    /// goes first (a search of `p` just stored the move that proved its bound: testing the
    /// others first would prove, at a cost, that they are worse), then the moves that do not
    /// hand the opponent a win (the others score worst), each in centre-first order. `None` for
    /// a finished game, or if no column reaches `value`.
    pub fn move_with_value<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        value: i32,
    ) -> Result<Option<usize>, Stopped> {
        let order = column_order::<W>();
        let (key, mirrored) = key_of(p);
        let hint = self
            .table_for(p.moves())
            .probe(key)
            .and_then(|e| e.best_move)
            .filter(|&c| (c as usize) < W)
            .map(|c| oriented::<W>(c as usize, mirrored));
        let safe = p.non_losing_moves();
        let cols = hint
            .into_iter()
            .chain(order.iter().copied().filter(|&c| Some(c) != hint))
            .filter(|&c| p.can_play(c));
        let (good, bad): (Vec<usize>, Vec<usize>) =
            cols.partition(|&c| !(safe & Geometry::<W, H, B>::column_mask(c)).is_zero());
        self.first_with_value(p, value, good.into_iter().chain(bad))
    }

    /// The book's best move: the column nearest the centre whose exact score is `score`, the
    /// exact score of `p`. Unlike [`Solver::move_with_value`] the answer does not depend on what
    /// the table holds, so that every build of a book stores the same moves. `None` for a
    /// finished game, or if no column has that score.
    pub fn best_column<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        score: i32,
    ) -> Result<Option<usize>, Stopped> {
        let order = column_order::<W>();
        let cols = order.into_iter().filter(|&c| p.can_play(c));
        self.first_with_value(p, score, cols)
    }

    /// The first of `cols` (playable columns of `p`) whose exact score is at least `value`; a
    /// win at once, the centre-most, before any.
    fn first_with_value<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
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

    /// The root proof strategy of a time-limited search, as one call: what the book and the
    /// table already know, then the root's value and a move that keeps it, then every column's
    /// exact score. `secured` carries, from one call to the next of the same search, a root
    /// move proven to keep at least a score (the searcher plays it when nothing better is
    /// proven). With `one_line` (one line wanted, every move allowed) the cheap steps come
    /// first; each of the two steps may use `budget` nodes. Ends early when `control` says so.
    pub fn prove_root<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        root: &Position<W, H, B>,
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

    fn prove_root_steps<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        root: &Position<W, H, B>,
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
        match self.analyse(root, false) {
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
    fn keep_value<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        root: &Position<W, H, B>,
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
        self.limits.budget = NodeBudget::start(0, Some(budget));
        let exact = self.solve(root);
        self.nodes += nodes;
        self.book_hits += hits;
        let v = exact.ok()?;
        self.secure(root, v, secured).map(|c| (c, v))
    }

    /// A column that keeps at least `value` at the root: the one in `secured` if it keeps as
    /// much, else one found by [`Solver::move_with_value`] and remembered there.
    fn secure<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        root: &Position<W, H, B>,
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

    /// The exact score of every 0-based column (as [`Solver::analyse`]) that can be proven
    /// within `budget` of wall time; `None` for a full column and for one not proven in time.
    /// Every open column first gets its share of the time, centre first, then the unproven ones
    /// share what is left (the table keeps the work done so far).
    pub fn analyse_within<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        budget: Duration,
    ) -> Vec<Option<i32>> {
        let start = crate::clock::now();
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
                let left = budget.saturating_sub(crate::clock::now().saturating_sub(start));
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

    /// What the table holds of the positions 1 to `plies` moves below `p`: for each (once, by
    /// the first columns in centre-first order that reach it), the columns from `p` and the
    /// exact-score bounds the searches that stored it proved, each `None` where the table says
    /// no more than the position's range does. Then, deeper, the proofs the last search finished
    /// beside the line it was on when it was cut short ([`Solver::bounds_beside_line`]). A
    /// search cut short leaves these proofs behind (nothing is stored of a search that did not
    /// end): a proof that hands out those positions next starts from them instead of again from
    /// nothing. Nothing when `plies` is 0.
    pub fn bounds_below<const W: usize, const H: usize, B: Bitboard>(
        &self,
        p: &Position<W, H, B>,
        plies: u32,
    ) -> Vec<Below> {
        let mut out = Vec::new();
        if plies == 0 {
            return out;
        }
        let mut seen = std::collections::HashSet::new();
        let mut path = Vec::new();
        self.bounds_under(p, plies, &mut path, &mut seen, &mut out);
        out.extend(self.bounds_beside_line(p, &mut seen));
        out
    }

    fn bounds_under<const W: usize, const H: usize, B: Bitboard>(
        &self,
        p: &Position<W, H, B>,
        plies: u32,
        path: &mut Vec<usize>,
        seen: &mut std::collections::HashSet<B>,
        out: &mut Vec<Below>,
    ) {
        if plies == 0 || p.is_game_over() {
            return;
        }
        for c in column_order::<W>() {
            if !p.can_play(c) {
                continue;
            }
            let mut child = *p;
            child.play_col(c);
            let (key, _) = key_of(&child);
            if child.is_game_over() || !seen.insert(key) {
                continue;
            }
            path.push(c);
            if let Some((b, _)) = self.bound_of(&child, path) {
                out.push(b);
            }
            self.bounds_under(&child, plies - 1, path, seen, out);
            path.pop();
        }
    }

    /// The table's bounds on `q`, reached by `columns`, with the work that proved them, where
    /// they say more than `q`'s range.
    fn bound_of<const W: usize, const H: usize, B: Bitboard>(
        &self,
        q: &Position<W, H, B>,
        columns: &[usize],
    ) -> Option<(Below, u32)> {
        let (min, max) = score::range((W * H) as i32, q.moves() as i32);
        let e = self.table_for(q.moves()).probe(key_of(q).0)?;
        let lo = (e.lower > min).then_some(e.lower.min(max));
        let hi = (e.upper < max).then_some(e.upper.max(min));
        (lo.is_some() || hi.is_some()).then(|| {
            let columns = columns.to_vec();
            (Below { columns, lo, hi }, e.work)
        })
    }

    /// The positions the last search, cut short, proved beside the line it was on: at each
    /// position of that line, the children it had finished (after their forced moves, where
    /// the search stores them), the costliest [`DEEP_LEARNT`] of them with their bounds and the
    /// columns from `p`. The proofs below those are in them; the positions on the line itself
    /// have none (their searches did not end).
    fn bounds_beside_line<const W: usize, const H: usize, B: Bitboard>(
        &self,
        p: &Position<W, H, B>,
        seen: &mut std::collections::HashSet<B>,
    ) -> Vec<Below> {
        let mut found: Vec<(Below, u32)> = Vec::new();
        let (mut x, mut path) = (*p, Vec::new());
        if !forced_through(&mut x, &mut path) {
            return Vec::new();
        }
        for &on in self.stop_line.iter().rev() {
            let on = on as usize;
            for c in (0..W).filter(|&c| c != on && x.can_play(c)) {
                let (mut y, mut cols) = (x, path.clone());
                y.play_col(c);
                cols.push(c);
                if y.is_game_over() || !forced_through(&mut y, &mut cols) {
                    continue;
                }
                if seen.insert(key_of(&y).0) {
                    found.extend(self.bound_of(&y, &cols));
                }
            }
            if !x.can_play(on) {
                break;
            }
            x.play_col(on);
            path.push(on);
            if x.is_game_over() || !forced_through(&mut x, &mut path) {
                break;
            }
        }
        // the costliest first, the nearest first among equals
        found.sort_by_key(|(b, work)| (std::cmp::Reverse(*work), b.columns.len()));
        found.truncate(DEEP_LEARNT);
        found.into_iter().map(|(b, _)| b).collect()
    }

    /// Stores bounds an earlier search proved of positions below `p` (as
    /// [`Solver::bounds_below`] gives them), so that the next search of `p` starts from them;
    /// their work ([`SEED_WORK`]) keeps them in the table. Columns that cannot be played from
    /// `p` are passed over. Call it before the search (after [`Solver::clear`] for a search from
    /// nothing else).
    pub fn seed<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
        below: &[Below],
    ) {
        // the table a position goes to depends on the board: as the search will choose it
        self.near_plies = self.near_from.on(W);
        for b in below {
            let mut q = *p;
            let playable = b.columns.iter().all(|&c| {
                let ok = c < W && !q.is_game_over() && q.can_play(c);
                if ok {
                    q.play_col(c);
                }
                ok
            });
            if !playable || b.columns.is_empty() {
                continue;
            }
            let (key, _) = key_of(&q);
            let (lo, hi) = (b.lo.unwrap_or(i32::MIN), b.hi.unwrap_or(i32::MAX));
            self.store(q.moves(), key, lo, hi, None, SEED_WORK);
        }
    }
}

/// Plays `p`'s forced moves (each the only one that does not lose at once) as the search does
/// before it stores a position, adding their columns to `path`; false when the game ends on the
/// way or a loss is certain (the search stores nothing there).
fn forced_through<const W: usize, const H: usize, B: Bitboard>(
    p: &mut Position<W, H, B>,
    path: &mut Vec<usize>,
) -> bool {
    loop {
        if p.is_game_over() || p.can_win_next() {
            return false;
        }
        let next = p.non_losing_moves_against(p.opponent_winning_cells());
        if next.is_zero() || p.moves() as usize >= W * H - 2 {
            return false;
        }
        if !(next & (next - B::ONE)).is_zero() {
            return true;
        }
        let Some(c) = (0..W).find(|&c| !(next & column_cells::<W, H, B>(c)).is_zero()) else {
            return false;
        };
        p.play(next);
        path.push(c);
    }
}

/// Bounds on the exact score of a position below another, as [`Solver::bounds_below`] finds
/// them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Below {
    /// The 0-based columns played from the position asked about.
    pub columns: Vec<usize>,
    /// Its score is at least this ...
    pub lo: Option<i32>,
    /// ... and at most this.
    pub hi: Option<i32>,
}
