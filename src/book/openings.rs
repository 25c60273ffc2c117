//! Balanced openings from a book (`vier book openings`): every position with `min_plies` to
//! `max_plies` discs whose exact score is a draw or a narrow win, once per mirror pair, for
//! match play (`tools/openings.txt`, read by `tools/referee.py`).
//!
//! A narrow win is one with `|score| <= max_score`: score 1 is a win with the last disc the
//! winner can drop, 2 with the one before (see [`crate::score`]), so the loser holds out to the
//! last cells. Left out as decided too early: positions where the side to move wins at once or
//! has a single move that does not lose at once (a forced block leaves it no choice). Every
//! score comes from the book, which must hold every position up to `max_plies` discs.

use super::Book;
use crate::bits::Bitboard;
use crate::board::{Position, Size, SizedJob};
use std::collections::HashSet;
use std::fmt;

/// One opening: its move string (1-based columns) and exact score for the side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub moves: String,
    pub score: i32,
}

/// What to take from the book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpeningsOptions {
    pub min_plies: u32,
    pub max_plies: u32,
    pub max_score: i32,
}

/// Why the book cannot give these openings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningsError {
    /// `min_plies > max_plies`.
    EmptyRange { min: u32, max: u32 },
    /// The book does not hold every position up to `max_plies` discs.
    TooShallow { depth: u32, max: u32 },
}

impl fmt::Display for OpeningsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpeningsError::EmptyRange { min, max } => {
                write!(f, "--min-plies {min} is above --max-plies {max}")
            }
            OpeningsError::TooShallow { depth, max } => write!(
                f,
                "the book holds every position only up to {depth} discs, not {max}: \
                 use a deeper book or --max-plies {depth}"
            ),
        }
    }
}

impl std::error::Error for OpeningsError {}

/// The openings of `book`, shortest first, then by move string. Each position (or its mirror
/// image) is written as the smallest move string that reaches either, so the list does not
/// depend on how the book was built.
pub fn openings(book: &Book, opts: OpeningsOptions) -> Result<Vec<Opening>, OpeningsError> {
    if opts.min_plies > opts.max_plies {
        return Err(OpeningsError::EmptyRange {
            min: opts.min_plies,
            max: opts.max_plies,
        });
    }
    if book.depth() < opts.max_plies {
        return Err(OpeningsError::TooShallow {
            depth: book.depth(),
            max: opts.max_plies,
        });
    }
    let size = Size::new(book.width(), book.height()).expect("a book's size is one vier plays");
    struct Walk<'a>(&'a Book, &'a OpeningsOptions);
    impl SizedJob for Walk<'_> {
        type Output = Vec<Opening>;
        fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Vec<Opening> {
            let mut found = Vec::new();
            let mut seen = HashSet::new();
            walk::<W, H, B>(
                &Position::new(),
                &mut String::new(),
                self.0,
                self.1,
                &mut seen,
                &mut found,
            );
            found
        }
    }
    let mut out = size.run(Walk(book, &opts));
    out.sort_by(|a, b| (a.moves.len(), &a.moves).cmp(&(b.moves.len(), &b.moves)));
    Ok(out)
}

/// Depth first, columns in increasing order: of all move strings of one length, the smallest
/// comes first, so the first to reach a position (or its mirror) is the one kept; a position
/// seen before is not walked again, since whatever follows it was reached from there already.
fn walk<const W: usize, const H: usize, B: Bitboard>(
    p: &Position<W, H, B>,
    moves: &mut String,
    book: &Book,
    opts: &OpeningsOptions,
    seen: &mut HashSet<B>,
    found: &mut Vec<Opening>,
) {
    if !seen.insert(p.symmetric_key().0) {
        return;
    }
    if p.moves() >= opts.min_plies && !p.can_win_next() && p.non_losing_moves().count_ones() > 1 {
        let score = book
            .get(p)
            .expect("the book holds every position up to its depth");
        if score.abs() <= opts.max_score {
            found.push(Opening {
                moves: moves.clone(),
                score,
            });
        }
    }
    if p.moves() == opts.max_plies {
        return;
    }
    for c in 0..W {
        if p.can_play(c) && !p.is_winning_move(c) {
            let mut q = *p;
            q.play_col(c);
            if q.is_full() {
                continue;
            }
            moves.push(crate::notation::column_char(c, W));
            walk(&q, moves, book, opts, seen, found);
            moves.pop();
        }
    }
}
