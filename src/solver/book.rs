//! The opening book's probes: the solver asks the book before it searches (the book's scores
//! are exact), and the root policies ask it for a move and for bounds it implies.

use super::keys::key_of;
use super::Solver;
use crate::bits::Bitboard;
use crate::board::{Geometry, Position};
use crate::book::Book;
use crate::ordering::column_order;
use crate::score;
use std::sync::Arc;

impl Solver {
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

    pub fn book(&self) -> Option<&Arc<Book>> {
        self.book.as_ref()
    }

    /// Positions answered by the book since the last [`Solver::reset_nodes`].
    pub fn book_hits(&self) -> u64 {
        self.book_hits
    }

    /// The book's exact score of `p`, if it has one (counted as a hit).
    pub fn book_score<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
    ) -> Option<i32> {
        if p.moves() >= self.book_line_moves {
            return None;
        }
        let s = self.book.as_ref()?.get(p)?;
        self.book_hits += 1;
        Some(s)
    }

    /// The best move by the book alone, with its score: the entry's move when the book holds
    /// `p` with one, else, when the book (or the rules: a win at once, a full board) scores
    /// every move from `p`, the best-scoring column nearest the centre. No search; `None` when
    /// the book cannot say.
    pub fn book_move<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
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
    pub fn known_lower_bound<const W: usize, const H: usize, B: Bitboard>(
        &mut self,
        p: &Position<W, H, B>,
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
                let bit = Geometry::<W, H, B>::bottom_cell(c) << (h - 1);
                if (last_mover & bit).is_zero() {
                    continue;
                }
                let parent = Position::<W, H, B>::from_raw(last_mover & !bit, p.mask() & !bit);
                if let Some(v) = self.book_score(&parent) {
                    best = best.max(Some(-v));
                }
            }
        }
        let moves = p.moves();
        let key = key_of(p).0;
        if let Some(e) = self.table_for(moves).probe(key) {
            let floor = score::loss_next((W * H) as i32, moves as i32);
            if e.lower >= floor {
                best = best.max(Some(e.lower));
            }
        }
        best
    }
}
