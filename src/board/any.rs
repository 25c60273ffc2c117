//! The one way from a board size known at run time to code typed by it.
//!
//! The rules are typed by the board: `Position<W, H, B>`, compiled once per size with every
//! mask a constant. What people and programs give is a size at run time (`--size 8x7`,
//! `setoption name Width`, a Python argument). This module is where one becomes the other, and
//! the only one: [`Size::run`] runs a [`SizedJob`] compiled for the size, [`AnyPosition::run`]
//! a [`PositionJob`] on the typed position; both go through the registry of sizes
//! ([`crate::size_registry`]) by way of `with_size!`, which nothing outside this file calls.
//!
//! [`AnyPosition`] is the position every front end holds (the protocol, `vier play`, the GUI,
//! the engine service, Python, the page): a size and the two bitboards widened to `u128`.
//! Its methods are the rules a front end needs, each dispatched to the typed code of its size.

use super::perft::perft_until;
use super::rules::{Cell, Player, Position};
use super::size::Size;
use super::text::BoardError;
use crate::bits::Bitboard;

/// Code typed by a board size, to be run for a size known only at run time ([`Size::run`]).
/// A generic closure cannot be written in Rust; a job is its stand-in: its fields are the
/// arguments, `run` the body.
pub trait SizedJob {
    type Output;
    fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output;
}

/// Code typed by a board size that works on a position of that size ([`AnyPosition::run`]).
pub trait PositionJob {
    type Output;
    fn run<const W: usize, const H: usize, B: Bitboard>(self, p: Position<W, H, B>)
        -> Self::Output;
}

impl Size {
    /// Runs `job` compiled for this size.
    ///
    /// ```
    /// use vier::bits::Bitboard;
    /// use vier::board::{perft, Position, Size, SizedJob};
    /// struct Perft(u32);
    /// impl SizedJob for Perft {
    ///     type Output = u64;
    ///     fn run<const W: usize, const H: usize, B: Bitboard>(self) -> u64 {
    ///         perft(&Position::<W, H, B>::new(), self.0)
    ///     }
    /// }
    /// let size: Size = "5x4".parse().unwrap();
    /// assert_eq!(size.run(Perft(2)), 25);
    /// ```
    pub fn run<J: SizedJob>(self, job: J) -> J::Output {
        crate::with_size!(self, job.run::<W, H, B>())
    }
}

/// Who is where, as [`AnyPosition::cells`] lists them and [`AnyPosition::from_cells`] reads
/// them (ConnectX's numbers).
pub const EMPTY: u8 = 0;
pub const FIRST: u8 = 1;
pub const SECOND: u8 = 2;

/// A position on a board of any supported size: cheap to copy, compare and hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AnyPosition {
    size: Size,
    /// The side to move's discs and all discs, as the typed position's bitboards.
    current: u128,
    mask: u128,
}

impl<const W: usize, const H: usize, B: Bitboard> From<Position<W, H, B>> for AnyPosition {
    fn from(p: Position<W, H, B>) -> AnyPosition {
        AnyPosition {
            size: Size::new(W, H).expect("a typed position has a registered size"),
            current: p.current().to_u128(),
            mask: p.mask().to_u128(),
        }
    }
}

impl AnyPosition {
    /// The empty board.
    pub fn empty(size: Size) -> AnyPosition {
        AnyPosition {
            size,
            current: 0,
            mask: 0,
        }
    }

    /// The typed position; `W`, `H` and `B` must be this position's size.
    fn typed<const W: usize, const H: usize, B: Bitboard>(&self) -> Position<W, H, B> {
        debug_assert_eq!((W, H), (self.size.width(), self.size.height()));
        Position::from_raw(B::from_u128(self.current), B::from_u128(self.mask))
    }

    /// Runs `job` on this position, typed by its size.
    pub fn run<J: PositionJob>(&self, job: J) -> J::Output {
        struct OnPosition<J>(AnyPosition, J);
        impl<J: PositionJob> SizedJob for OnPosition<J> {
            type Output = J::Output;
            fn run<const W: usize, const H: usize, B: Bitboard>(self) -> J::Output {
                self.1.run(self.0.typed::<W, H, B>())
            }
        }
        self.size.run(OnPosition(*self, job))
    }

    /// The position after a move string from the empty board (`4453`; letters on boards of 10
    /// columns or more; `-` or nothing for the empty board).
    pub fn from_moves(size: Size, moves: &str) -> Result<AnyPosition, BoardError> {
        let moves = if moves == "-" { "" } else { moves };
        crate::with_size!(
            size,
            Position::<W, H, B>::from_moves(moves).map(AnyPosition::from)
        )
    }

    /// A board string as vier writes it (`7/7/7/7/3o3/2oxx2 x`) or cutechess's FEN.
    pub fn from_board_string(size: Size, s: &str) -> Result<AnyPosition, BoardError> {
        crate::with_size!(
            size,
            Position::<W, H, B>::from_board_string(s).map(AnyPosition::from)
        )
    }

    /// A grid of [`EMPTY`], [`FIRST`] and [`SECOND`], row by row from the top (ConnectX's
    /// `board`); the side to move follows from the disc counts. The text says what is wrong.
    pub fn from_cells(size: Size, cells: &[u8]) -> Result<AnyPosition, String> {
        let (w, h) = (size.width(), size.height());
        if cells.len() != w * h {
            return Err(format!(
                "the board has {} cells, a {size} board has {}",
                cells.len(),
                w * h
            ));
        }
        let mut rows = Vec::with_capacity(h);
        let (mut x, mut o) = (0, 0);
        for row in cells.chunks(w) {
            let mut text = String::with_capacity(w);
            // runs of empty cells as one number each (`12` on a 12-column row)
            let mut empty = 0;
            for &c in row {
                let disc = match c {
                    EMPTY => {
                        empty += 1;
                        continue;
                    }
                    FIRST => {
                        x += 1;
                        'x'
                    }
                    SECOND => {
                        o += 1;
                        'o'
                    }
                    other => {
                        return Err(format!(
                            "a cell holds {other}: 0 (empty), 1 or 2 (a player's disc) expected"
                        ))
                    }
                };
                if empty > 0 {
                    text += &empty.to_string();
                    empty = 0;
                }
                text.push(disc);
            }
            if empty > 0 {
                text += &empty.to_string();
            }
            rows.push(text);
        }
        // the board string's parser checks gravity, counts and wins; only the side is derived
        let side = if x > o { 'o' } else { 'x' };
        AnyPosition::from_board_string(size, &format!("{} {side}", rows.join("/")))
            .map_err(|e| e.to_string())
    }

    pub fn size(&self) -> Size {
        self.size
    }
    pub fn width(&self) -> usize {
        self.size.width()
    }
    pub fn height(&self) -> usize {
        self.size.height()
    }

    /// Discs on the board.
    pub fn discs(&self) -> u32 {
        self.mask.count_ones()
    }

    pub fn side_to_move(&self) -> Player {
        if self.discs().is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }

    /// Empty cells: the most discs the game can still take.
    pub fn empty_cells(&self) -> u32 {
        self.size.cells() as u32 - self.discs()
    }

    /// Discs in the 0-based column (0 for a column off the board).
    pub fn column_height(&self, col: usize) -> usize {
        let h1 = self.height() + 1;
        if col >= self.width() {
            return 0;
        }
        ((self.mask >> (col * h1)) & ((1u128 << self.height()) - 1)).count_ones() as usize
    }

    /// The cell at the 0-based `col` and `row` (row 0 at the bottom).
    pub fn cell(&self, col: usize, row: usize) -> Cell {
        let bit = 1u128 << (col * (self.height() + 1) + row);
        if self.mask & bit == 0 {
            Cell::Empty
        } else if (self.current & bit == 0) != (self.side_to_move() == Player::First) {
            Cell::Disc(Player::First)
        } else {
            Cell::Disc(Player::Second)
        }
    }

    /// Whether the side to move may drop a disc into the 0-based `col` (never once the game is
    /// over).
    pub fn can_play(&self, col: usize) -> bool {
        col < self.width() && self.column_height(col) < self.height() && !self.is_game_over()
    }

    /// The 0-based columns the side to move may play (none once the game is over).
    pub fn legal_moves(&self) -> Vec<usize> {
        (0..self.width()).filter(|&c| self.can_play(c)).collect()
    }

    /// The position after the side to move drops a disc into the 1-based column `col`; `pos`
    /// is the move's offset in what was written, for the error.
    pub fn try_play_column(&self, col: usize, pos: usize) -> Result<AnyPosition, BoardError> {
        crate::with_size!(self.size, {
            let mut p = self.typed::<W, H, B>();
            p.try_play_column(col, pos)?;
            Ok(AnyPosition::from(p))
        })
    }

    /// The position after the side to move drops a disc into the 0-based `col`.
    pub fn play(&self, col: usize) -> Result<AnyPosition, BoardError> {
        self.try_play_column(col.saturating_add(1), 0)
    }

    /// The player with four in a row, if any (the one who moved last).
    pub fn winner(&self) -> Option<Player> {
        self.last_mover_won().then(|| self.side_to_move().other())
    }

    /// The player who moved last has four in a row.
    pub fn last_mover_won(&self) -> bool {
        crate::with_size!(self.size, self.typed::<W, H, B>().last_mover_won())
    }

    pub fn is_full(&self) -> bool {
        self.empty_cells() == 0
    }

    /// Someone has four in a row, or the board is full.
    pub fn is_game_over(&self) -> bool {
        self.is_full() || self.last_mover_won()
    }

    /// The cells of the winner's four (or more) in a row, 0-based (column, row from the
    /// bottom); empty while nobody has won.
    pub fn four_cells(&self) -> Vec<(usize, usize)> {
        if !self.last_mover_won() {
            return Vec::new();
        }
        let cells = crate::with_size!(self.size, {
            let p = self.typed::<W, H, B>();
            Position::<W, H, B>::four_cells(p.opponent()).to_u128()
        });
        let h1 = self.height() + 1;
        (0..self.width())
            .flat_map(|c| (0..self.height()).map(move |r| (c, r)))
            .filter(|&(c, r)| cells & (1u128 << (c * h1 + r)) != 0)
            .collect()
    }

    /// The cells row by row from the top, as [`AnyPosition::from_cells`] reads them.
    pub fn cells(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size.cells());
        for r in (0..self.height()).rev() {
            for c in 0..self.width() {
                out.push(match self.cell(c, r) {
                    Cell::Empty => EMPTY,
                    Cell::Disc(Player::First) => FIRST,
                    Cell::Disc(Player::Second) => SECOND,
                });
            }
        }
        out
    }

    /// The board string (`7/7/7/7/3o3/2oxx2 x`).
    pub fn board_string(&self) -> String {
        crate::with_size!(self.size, self.typed::<W, H, B>().to_board_string())
    }

    /// cutechess's `cfour` FEN.
    pub fn fen(&self) -> String {
        crate::with_size!(self.size, self.typed::<W, H, B>().to_cfour_fen())
    }

    /// A move string that reaches this position, if there is one (a board string can describe
    /// a position no game reaches).
    pub fn move_string(&self) -> Option<String> {
        crate::with_size!(self.size, self.typed::<W, H, B>().to_move_string())
    }

    /// The board drawn in text, top row first, with the column names underneath.
    pub fn draw(&self) -> String {
        crate::with_size!(self.size, self.typed::<W, H, B>().draw())
    }

    /// 64 bits that tell positions of one size apart (seeds a skill level's choices).
    pub fn key(&self) -> u64 {
        crate::with_size!(self.size, self.typed::<W, H, B>().key().fold64())
    }

    /// Move sequences of `depth` plies from here, counted until `stop` says so: the count so
    /// far and whether it is complete.
    pub fn perft_until(&self, depth: u32, stop: &dyn Fn() -> bool) -> (u64, bool) {
        crate::with_size!(
            self.size,
            perft_until(&self.typed::<W, H, B>(), depth, stop)
        )
    }
}

/// Calls `$body` with `W`, `H` and the bitboard type `B` bound to the run-time `$size`'s, from
/// the registry ([`crate::size_registry`]): every registered size is an arm, so none falls
/// through, and an unregistered one cannot be built. Called in this file only (a grep shows
/// it): everything else goes through [`Size::run`] or an [`AnyPosition`].
#[doc(hidden)]
#[macro_export]
macro_rules! with_size {
    ($size:expr, $body:expr) => {{
        let size: $crate::board::Size = $size;
        $crate::size_registry!(with_size; @arms size, $body)
    }};
    (@arms $size:ident, $body:expr;
        u64: $(($w:literal, $h:literal))*; u128: $(($w2:literal, $h2:literal))*) => {
        match ($size.width(), $size.height()) {
            $(($w, $h) => $crate::with_size!(@arm $w, $h, u64, $body),)*
            $(($w2, $h2) => $crate::with_size!(@arm $w2, $h2, u128, $body),)*
            _ => unreachable!("Size::new admits only registered sizes"),
        }
    };
    (@arm $w:literal, $h:literal, $b:ty, $body:expr) => {{
        #[allow(non_upper_case_globals, dead_code)]
        const W: usize = $w;
        #[allow(non_upper_case_globals, dead_code)]
        const H: usize = $h;
        #[allow(dead_code)]
        type B = $b;
        $body
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_erased_position_answers_as_its_typed_position_does() {
        for size in Size::all() {
            let p = AnyPosition::from_moves(size, "aaba").unwrap();
            assert_eq!(p.discs(), 4);
            assert_eq!(p.column_height(0), 3);
            // x, o, x in columns 1, 1, 2, then o on top of column 1
            assert_eq!(p.cell(1, 0), Cell::Disc(Player::First));
            assert_eq!(p.cell(0, 1), Cell::Disc(Player::Second));
            assert_eq!(p.cell(0, 2), Cell::Disc(Player::Second));
            assert_eq!(p.cell(0, 3), Cell::Empty);
            assert_eq!(p.legal_moves().len(), size.width());
            let back = AnyPosition::from_board_string(size, &p.board_string()).unwrap();
            assert_eq!(back, p, "{size}");
            assert_eq!(AnyPosition::from_cells(size, &p.cells()), Ok(p), "{size}");
        }
    }

    #[test]
    fn a_four_ends_the_game_and_names_its_winner_and_cells() {
        let p = AnyPosition::from_moves(Size::default(), "4141414").unwrap();
        assert_eq!(p.winner(), Some(Player::First));
        assert!(p.is_game_over() && p.legal_moves().is_empty());
        assert_eq!(p.four_cells(), vec![(3, 0), (3, 1), (3, 2), (3, 3)]);
        assert!(matches!(
            p.play(0),
            Err(BoardError::MoveAfterGameEnd { .. })
        ));
        let open = AnyPosition::from_moves(Size::default(), "-").unwrap();
        assert_eq!((open.winner(), open.four_cells()), (None, vec![]));
    }
}
