//! The rules of Connect Four on a bitboard: positions, moves, four in a row, keys, notation.
//!
//! Rules know nothing of search. Board width `W` and height `H` are const generics, so every size is
//! compiled into its own code with all masks as constants; [`Size`] and [`with_size!`](crate::with_size) pick the
//! monomorphised code at run time.

use crate::bits::Bitboard;
use std::fmt;

/// A Connect Four position of width `W` and height `H` (`W * (H + 1) <= 64`).
///
/// Bit layout: one column of `H + 1` bits per column, bottom cell first; the extra top bit of each
/// column is a sentinel that stays empty, so that shifts across columns never join two columns
/// into a line. For 7x6 (bit numbers):
///
/// ```text
///   .  .  .  .  .  .  .      <- sentinel row (always 0)
///   5 12 19 26 33 40 47      <- top row
///   4 11 18 25 32 39 46
///   3 10 17 24 31 38 45
///   2  9 16 23 30 37 44
///   1  8 15 22 29 36 43
///   0  7 14 21 28 35 42      <- bottom row
///   1  2  3  4  5  6  7      <- column numbers as people write them (1-based)
/// ```
///
/// `mask` holds every disc, `current` the discs of the side to move. `current + mask` is a unique
/// key: adding a column's discs to its own-disc subset sets exactly one bit above the column's top
/// disc, so the sum encodes both height and colours, and never carries out of the column.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position<const W: usize, const H: usize, B: Bitboard = u64> {
    current: B,
    mask: B,
    moves: u32,
}

/// Board geometry derived from `W` and `H`; all are compile-time constants per size.
pub struct Geometry<const W: usize, const H: usize, B: Bitboard = u64>(std::marker::PhantomData<B>);

impl<const W: usize, const H: usize, B: Bitboard> Geometry<W, H, B> {
    pub const H1: usize = H + 1;
    pub const CELLS: usize = W * H;
    /// One bit at the bottom of every column.
    // The masks are computed once as u128 constants, then narrowed to `B` (folded away).
    const BOTTOM_BITS: u128 = {
        let mut m = 0u128;
        let mut c = 0;
        while c < W {
            m |= 1u128 << (c * (H + 1));
            c += 1;
        }
        m
    };
    const BOARD_BITS: u128 = Self::BOTTOM_BITS * ((1u128 << H) - 1);
    const ODD_ROWS_BITS: u128 =
        Self::BOTTOM_BITS * (0x5555_5555_5555_5555u128 & ((1u128 << H) - 1));
    const MOVER_ROWS_BITS: u128 = if H.is_multiple_of(2) {
        Self::ODD_ROWS_BITS
    } else {
        Self::BOARD_BITS ^ Self::ODD_ROWS_BITS
    };
    const VALID: () = assert!(
        W >= crate::bits::MIN_SIDE
            && H >= crate::bits::MIN_SIDE
            && W <= crate::bits::MAX_WIDTH
            && H <= crate::bits::MAX_HEIGHT
            && W * (H + 1) <= B::BITS as usize
    );

    /// One bit at the bottom of every column.
    #[inline(always)]
    pub fn bottom() -> B {
        B::from_u128(Self::BOTTOM_BITS)
    }
    /// Every playable cell.
    #[inline(always)]
    pub fn board() -> B {
        B::from_u128(Self::BOARD_BITS)
    }
    /// The cells of rows 1, 3, 5, ... counted from the bottom (1-based).
    #[inline(always)]
    pub fn odd_rows() -> B {
        B::from_u128(Self::ODD_ROWS_BITS)
    }
    /// The rows whose 0-based index has the parity of `H`: when every column has an even number
    /// of empty cells, these are the empty cells the side to move plays into first.
    #[inline(always)]
    pub fn mover_rows() -> B {
        B::from_u128(Self::MOVER_ROWS_BITS)
    }
    #[inline(always)]
    pub fn column_mask(col: usize) -> B {
        B::from_u128(((1u128 << H) - 1) << (col * (H + 1)))
    }
    #[inline(always)]
    pub fn top_cell(col: usize) -> B {
        B::bit(H - 1 + col * (H + 1))
    }
    #[inline(always)]
    pub fn bottom_cell(col: usize) -> B {
        B::bit(col * (H + 1))
    }
}

/// The side to move or the owner of a disc: `First` plays `x` (moves 1, 3, 5, ...), `Second` `o`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    First,
    Second,
}

impl Player {
    pub fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }
    pub fn symbol(self) -> char {
        match self {
            Player::First => 'x',
            Player::Second => 'o',
        }
    }
}

/// What is in a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Empty,
    Disc(Player),
}

/// Why a move string or board string was rejected. Positions are 0-based character offsets
/// into the string; columns are 1-based, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardError {
    /// A character that has no meaning at that place.
    BadChar { pos: usize, ch: char },
    /// A column number outside `1..=width`.
    ColumnOutOfRange {
        pos: usize,
        col: usize,
        width: usize,
    },
    /// A move into a column that is already full.
    ColumnFull { pos: usize, col: usize },
    /// A move after four in a row was made.
    MoveAfterGameEnd { pos: usize, col: usize },
    /// A board string with the wrong number of rows.
    RowCount { found: usize, expected: usize },
    /// A row (1 = top) that does not describe exactly `width` cells.
    RowWidth {
        row: usize,
        found: usize,
        expected: usize,
    },
    /// A disc with an empty cell below it (column 1-based, row 1 = bottom).
    FloatingDisc { col: usize, row: usize },
    /// The first player must have as many discs as the second, or one more.
    DiscCounts { x: u32, o: u32 },
    /// A digit in a move string on a board of 10 or more columns (which take letters).
    DigitOnWideBoard { pos: usize, width: usize },
    /// A move string that mixes digits and letters.
    MixedNotation { pos: usize },
    /// The side to move disagrees with the disc counts.
    SideToMove { given: char, expected: char },
    /// The side-to-move field is missing.
    MissingSideToMove,
    /// Both players have four in a row.
    BothWon,
    /// The side to move already has four in a row: it cannot have been the last to move.
    WinnerToMove,
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use BoardError::*;
        match *self {
            BadChar { pos, ch } => write!(f, "unexpected character '{ch}' at position {}", pos + 1),
            ColumnOutOfRange { pos, col, width } => write!(
                f,
                "column {col} at position {} is out of range 1..{width}",
                pos + 1
            ),
            ColumnFull { pos, col } => {
                write!(f, "column {col} at position {} is full", pos + 1)
            }
            MoveAfterGameEnd { pos, col } => write!(
                f,
                "move {col} at position {} comes after the game has ended",
                pos + 1
            ),
            RowCount { found, expected } => {
                write!(f, "board has {found} rows, expected {expected}")
            }
            RowWidth {
                row,
                found,
                expected,
            } => write!(
                f,
                "row {row} (from the top) has {found} cells, expected {expected}"
            ),
            FloatingDisc { col, row } => write!(
                f,
                "disc in column {col}, row {row} floats above an empty cell"
            ),
            DiscCounts { x, o } => write!(
                f,
                "wrong disc counts: {x} x and {o} o (x must have as many as o or one more)"
            ),
            SideToMove { given, expected } => write!(
                f,
                "side to move '{given}' is inconsistent with the disc counts ('{expected}' must move)"
            ),
            // the notation's own words, not a second copy of them
            DigitOnWideBoard { pos, width } => {
                crate::notation::NotationError::DigitOnWideBoard { pos, width }.fmt(f)
            }
            MixedNotation { pos } => crate::notation::NotationError::MixedNotation { pos }.fmt(f),
            MissingSideToMove => write!(f, "missing side to move ('x' or 'o') after the board"),
            BothWon => write!(f, "both players have four in a row"),
            WinnerToMove => write!(
                f,
                "the side to move already has four in a row, so it cannot be its turn"
            ),
        }
    }
}

impl std::error::Error for BoardError {}

impl From<crate::notation::NotationError> for BoardError {
    fn from(e: crate::notation::NotationError) -> BoardError {
        use crate::notation::NotationError as N;
        match e {
            N::BadChar { pos, ch } => BoardError::BadChar { pos, ch },
            N::DigitOnWideBoard { pos, width } => BoardError::DigitOnWideBoard { pos, width },
            N::MixedNotation { pos } => BoardError::MixedNotation { pos },
        }
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Default for Position<W, H, B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const H: usize, B: Bitboard> Position<W, H, B> {
    pub const WIDTH: usize = W;
    pub const HEIGHT: usize = H;
    pub const CELLS: usize = W * H;
    /// The best score a position can have: a win with the first disc of the side to move.
    pub const MAX_SCORE: i32 = (W * H).div_ceil(2) as i32;

    /// The empty board.
    pub fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let _ = Geometry::<W, H, B>::VALID;
        Position {
            current: B::ZERO,
            mask: B::ZERO,
            moves: 0,
        }
    }

    /// Builds a position from raw bitboards: `current` the side to move's discs, `mask` all discs.
    /// Callers guarantee consistency (used by search code that already holds valid boards).
    #[inline(always)]
    pub fn from_raw(current: B, mask: B) -> Self {
        Position {
            current,
            mask,
            moves: mask.count_ones(),
        }
    }

    #[inline(always)]
    pub fn current(&self) -> B {
        self.current
    }
    #[inline(always)]
    pub fn mask(&self) -> B {
        self.mask
    }
    /// The discs of the player who moved last.
    #[inline(always)]
    pub fn opponent(&self) -> B {
        self.current ^ self.mask
    }
    /// Number of discs on the board.
    #[inline(always)]
    pub const fn moves(&self) -> u32 {
        self.moves
    }
    pub fn side_to_move(&self) -> Player {
        if self.moves.is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }

    /// The discs of the first (`x`) and second (`o`) player.
    pub fn discs(&self) -> (B, B) {
        match self.side_to_move() {
            Player::First => (self.current, self.opponent()),
            Player::Second => (self.opponent(), self.current),
        }
    }

    /// The cell at 0-based `col` and `row` (row 0 = bottom).
    pub fn cell(&self, col: usize, row: usize) -> Cell {
        let bit = B::bit(col * (H + 1) + row);
        if (self.mask & bit).is_zero() {
            Cell::Empty
        } else if (self.current & bit).is_zero() != (self.side_to_move() == Player::First) {
            Cell::Disc(Player::First)
        } else {
            Cell::Disc(Player::Second)
        }
    }

    /// Discs in the 0-based column.
    pub fn column_height(&self, col: usize) -> usize {
        (self.mask & Geometry::<W, H, B>::column_mask(col)).count_ones() as usize
    }

    /// True if a disc can be dropped into the 0-based column (ignores whether the game is over).
    #[inline(always)]
    pub fn can_play(&self, col: usize) -> bool {
        (self.mask & Geometry::<W, H, B>::top_cell(col)).is_zero()
    }

    /// Drops a disc of the side to move into the 0-based column, which must not be full.
    #[inline(always)]
    pub fn play_col(&mut self, col: usize) {
        let bit = (self.mask + Geometry::<W, H, B>::bottom_cell(col))
            & Geometry::<W, H, B>::column_mask(col);
        self.play(bit);
    }

    /// Plays the move given as its single cell bit (one of [`Position::possible`]).
    #[inline(always)]
    pub fn play(&mut self, move_bit: B) {
        self.current ^= self.mask;
        self.mask |= move_bit;
        self.moves += 1;
    }

    /// The position after playing `move_bit`.
    #[inline(always)]
    pub fn after(&self, move_bit: B) -> Self {
        let mut p = *self;
        p.play(move_bit);
        p
    }

    /// One bit per playable cell: the lowest empty cell of every column that is not full.
    #[inline(always)]
    pub fn possible(&self) -> B {
        (self.mask + Geometry::<W, H, B>::bottom()) & Geometry::<W, H, B>::board()
    }

    /// True if the board is full.
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.moves as usize == W * H
    }

    /// True if the player who moved last has four in a row.
    #[inline(always)]
    pub fn last_mover_won(&self) -> bool {
        Self::has_four(self.opponent())
    }

    /// True if no move can be played any more: four in a row or a full board.
    pub fn is_game_over(&self) -> bool {
        self.is_full() || self.last_mover_won()
    }

    /// Four in a row in any direction among `discs`.
    #[inline(always)]
    pub fn has_four(discs: B) -> bool {
        // For each direction: pairs at distance d, then pairs of pairs at distance 2d.
        let mut m = discs & (discs >> (H + 1));
        if !(m & (m >> (2 * (H + 1)))).is_zero() {
            return true;
        }
        m = discs & (discs >> H);
        if !(m & (m >> (2 * H))).is_zero() {
            return true;
        }
        m = discs & (discs >> (H + 2));
        if !(m & (m >> (2 * (H + 2)))).is_zero() {
            return true;
        }
        m = discs & (discs >> 1);
        !(m & (m >> 2)).is_zero()
    }

    /// Every cell of `discs` that belongs to four in a row (to highlight a won game's four).
    pub fn four_cells(discs: B) -> B {
        let mut cells = B::ZERO;
        for d in [1, H, H + 1, H + 2] {
            let m = discs & (discs >> d) & (discs >> (2 * d)) & (discs >> (3 * d));
            cells |= m | (m << d) | (m << (2 * d)) | (m << (3 * d));
        }
        cells
    }

    /// Empty cells (playable now or not) that would complete four in a row for `discs`.
    #[inline(always)]
    pub fn winning_cells(discs: B, mask: B) -> B {
        let h1 = H + 1;
        // vertical: only upwards
        let mut r = (discs << 1) & (discs << 2) & (discs << 3);
        // horizontal and both diagonals: the empty cell can be at any of the four places
        for d in [h1, H, H + 2] {
            let p = (discs << d) & (discs << (2 * d));
            r |= p & (discs << (3 * d));
            r |= p & (discs >> d);
            let p = (discs >> d) & (discs >> (2 * d));
            r |= p & (discs << d);
            r |= p & (discs >> (3 * d));
        }
        r & (Geometry::<W, H, B>::board() ^ mask)
    }

    /// Cells where the side to move would complete four.
    #[inline(always)]
    pub fn own_winning_cells(&self) -> B {
        Self::winning_cells(self.current, self.mask)
    }

    /// Cells where the player who moved last would complete four.
    #[inline(always)]
    pub fn opponent_winning_cells(&self) -> B {
        Self::winning_cells(self.opponent(), self.mask)
    }

    /// True if the side to move can connect four with its next disc.
    #[inline(always)]
    pub fn can_win_next(&self) -> bool {
        !(self.own_winning_cells() & self.possible()).is_zero()
    }

    /// True if dropping into the 0-based column wins at once for the side to move.
    pub fn is_winning_move(&self, col: usize) -> bool {
        !(self.own_winning_cells() & self.possible() & Geometry::<W, H, B>::column_mask(col))
            .is_zero()
    }

    /// Moves that do not let the opponent win at once: if the opponent threatens to win, only the
    /// block (and nothing if it has two threats); never a disc right below an opponent threat.
    /// Meant for positions where the side to move cannot win at once.
    #[inline(always)]
    pub fn non_losing_moves(&self) -> B {
        self.non_losing_moves_against(self.opponent_winning_cells())
    }

    /// [`Position::non_losing_moves`], given the opponent's winning cells
    /// ([`Position::opponent_winning_cells`]) when the caller needs them too.
    #[inline(always)]
    pub fn non_losing_moves_against(&self, opp_win: B) -> B {
        let mut possible = self.possible();
        let forced = possible & opp_win;
        if !forced.is_zero() {
            if !(forced & (forced - B::ONE)).is_zero() {
                return B::ZERO;
            }
            possible = forced;
        }
        possible & !(opp_win >> 1)
    }

    /// A unique key for the transposition table (see the type's comment).
    #[inline(always)]
    pub fn key(&self) -> B {
        self.current + self.mask
    }

    /// The key of the mirror image (columns reversed).
    pub fn mirror_key(&self) -> B {
        mirror::<W, H, B>(self.key())
    }

    /// The smaller of [`Position::key`] and [`Position::mirror_key`]: equal for a position and its
    /// mirror image, with `true` when the mirror's orientation was chosen.
    pub fn symmetric_key(&self) -> (B, bool) {
        let k = self.key();
        let m = mirror::<W, H, B>(k);
        if m < k {
            (m, true)
        } else {
            (k, false)
        }
    }

    /// Number of 0-based columns that can take a disc.
    pub fn legal_columns(&self) -> impl Iterator<Item = usize> + '_ {
        (0..W).filter(move |&c| self.can_play(c))
    }

    /// Plays a 1-based column with full legality checks; `pos` is used in error messages.
    pub fn try_play_column(&mut self, col: usize, pos: usize) -> Result<(), BoardError> {
        if col == 0 || col > W {
            return Err(BoardError::ColumnOutOfRange { pos, col, width: W });
        }
        if self.last_mover_won() {
            return Err(BoardError::MoveAfterGameEnd { pos, col });
        }
        if !self.can_play(col - 1) {
            return Err(BoardError::ColumnFull { pos, col });
        }
        self.play_col(col - 1);
        Ok(())
    }

    /// Plays a move string (`4453`, or in letters `ddec`; see [`crate::notation`]) from this
    /// position.
    pub fn play_moves(&mut self, moves: &str) -> Result<(), BoardError> {
        for (pos, col) in crate::notation::parse_moves(moves, W)? {
            self.try_play_column(col, pos)?;
        }
        Ok(())
    }

    /// The position reached by a move string from the empty board.
    ///
    /// ```
    /// use vier::board::{BoardError, Position};
    /// let p = Position::<7, 6>::from_moves("4453").unwrap();
    /// assert_eq!(p.to_board_string(), "7/7/7/7/3o3/2oxx2 x");
    /// assert_eq!(Position::<7, 6>::from_board_string("7/7/7/7/3o3/2oxx2 x"), Ok(p));
    /// assert_eq!(
    ///     Position::<7, 6>::from_moves("4444444"),
    ///     Err(BoardError::ColumnFull { pos: 6, col: 4 })
    /// );
    /// ```
    pub fn from_moves(moves: &str) -> Result<Self, BoardError> {
        let mut p = Self::new();
        p.play_moves(moves)?;
        Ok(p)
    }

    /// Parses a board string: rows from top to bottom separated by `/`, `x` (or `P`) for the
    /// first player, `o` (or `p`) for the second, a digit for that many empty cells, then the side
    /// to move (`x`/`o`, or `w`/`b` as cutechess writes it). cutechess's `cfour` FEN is accepted
    /// too: discs in hand in brackets after the last row and trailing fields are ignored.
    pub fn from_board_string(s: &str) -> Result<Self, BoardError> {
        let s_trim = s.trim_start();
        let offset = s.len() - s_trim.len();
        let board_end = s_trim
            .find(|c: char| c.is_whitespace() || c == '[')
            .unwrap_or(s_trim.len());
        let board = &s_trim[..board_end];
        let mut rest = &s_trim[board_end..];
        let mut rest_offset = offset + board_end;
        if rest.starts_with('[') {
            // cutechess lists the discs in hand: derived from the board, so skipped.
            match rest.find(']') {
                Some(i) => {
                    rest_offset += i + 1;
                    rest = &rest[i + 1..];
                }
                None => {
                    return Err(BoardError::BadChar {
                        pos: rest_offset,
                        ch: '[',
                    })
                }
            }
        }

        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != H {
            return Err(BoardError::RowCount {
                found: rows.len(),
                expected: H,
            });
        }
        let (mut x, mut o) = (B::ZERO, B::ZERO);
        let mut pos = offset;
        for (i, row) in rows.iter().enumerate() {
            let r = H - 1 - i; // row index from the bottom
            let mut col = 0usize;
            // the run of empty cells being read: a number, of two digits past 9 cells
            let mut run = 0usize;
            for ch in row.chars() {
                match ch {
                    'x' | 'X' | 'P' | 'o' | 'O' | 'p' => {
                        if col < W {
                            let bit = B::bit(col * (H + 1) + r);
                            if matches!(ch, 'x' | 'X' | 'P') {
                                x |= bit;
                            } else {
                                o |= bit;
                            }
                        }
                        col += 1;
                        run = 0;
                    }
                    // up to 9 columns each digit counts on its own (`34` is 7 cells, as
                    // every writer of these strings has it); past 9 digits form numbers
                    '1'..='9' if W <= crate::notation::MAX_DIGIT_WIDTH => {
                        col += ch as usize - '0' as usize;
                    }
                    '1'..='9' | '0'
                        if W > crate::notation::MAX_DIGIT_WIDTH && (ch != '0' || run > 0) =>
                    {
                        let d = ch as usize - '0' as usize;
                        // the digit extends the number: col had `run` added already
                        let next = run.saturating_mul(10).saturating_add(d);
                        col = (col - run).saturating_add(next);
                        run = next;
                    }
                    _ => return Err(BoardError::BadChar { pos, ch }),
                }
                pos += ch.len_utf8();
            }
            if col != W {
                return Err(BoardError::RowWidth {
                    row: i + 1,
                    found: col,
                    expected: W,
                });
            }
            pos += 1; // the '/'
        }
        let mask = x | o;
        for c in 0..W {
            let colbits = ((mask >> (c * (H + 1))).to_u128() & ((1u128 << H) - 1)) as u64;
            // a column's discs must be a run from the bottom: colbits + 1 is a power of two
            if colbits & (colbits + 1) != 0 {
                let height = colbits.trailing_ones() as usize;
                return Err(BoardError::FloatingDisc {
                    col: c + 1,
                    row: height + 2,
                });
            }
        }
        let (nx, no) = (x.count_ones(), o.count_ones());
        if nx != no && nx != no + 1 {
            return Err(BoardError::DiscCounts { x: nx, o: no });
        }
        let expected = if nx == no { 'x' } else { 'o' };
        let side_tok = rest.trim_start();
        let side_pos = rest_offset + (rest.len() - side_tok.len());
        let side = match side_tok.chars().next() {
            None => return Err(BoardError::MissingSideToMove),
            Some('x') | Some('X') | Some('w') => 'x',
            Some('o') | Some('O') | Some('b') => 'o',
            Some(ch) => return Err(BoardError::BadChar { pos: side_pos, ch }),
        };
        // only the side field itself (and for cutechess, further space-separated fields)
        if let Some(ch) = side_tok.chars().nth(1) {
            if !ch.is_whitespace() {
                return Err(BoardError::BadChar {
                    pos: side_pos + 1,
                    ch,
                });
            }
        }
        if side != expected {
            return Err(BoardError::SideToMove {
                given: side,
                expected,
            });
        }
        let (xw, ow) = (Self::has_four(x), Self::has_four(o));
        if xw && ow {
            return Err(BoardError::BothWon);
        }
        // the winner must be the player who moved last
        if (xw && side == 'x') || (ow && side == 'o') {
            return Err(BoardError::WinnerToMove);
        }
        let current = if side == 'x' { x } else { o };
        Ok(Position::from_raw(current, mask))
    }

    /// The board string, e.g. `7/7/7/7/3o3/2oxx2 x` (after `4453`).
    pub fn to_board_string(&self) -> String {
        self.rows_string('x', 'o') + " " + &self.side_to_move().symbol().to_string()
    }

    /// cutechess's `cfour` FEN: rank `H` first, `P`/`p` discs, discs in hand, side `w`/`b`.
    pub fn to_cfour_fen(&self) -> String {
        let (x, o) = self.discs();
        let half = (W * H) as u32 / 2;
        let hand = "P".repeat((half + (W * H) as u32 % 2 - x.count_ones()) as usize)
            + &"p".repeat((half - o.count_ones()) as usize);
        let side = if self.side_to_move() == Player::First {
            'w'
        } else {
            'b'
        };
        format!(
            "{}[{}] {} - - 0 {}",
            self.rows_string('P', 'p'),
            hand,
            side,
            self.moves / 2 + 1
        )
    }

    fn rows_string(&self, xs: char, os: char) -> String {
        let mut s = String::new();
        for r in (0..H).rev() {
            let mut empty = 0;
            for c in 0..W {
                match self.cell(c, r) {
                    Cell::Empty => empty += 1,
                    Cell::Disc(p) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push(if p == Player::First { xs } else { os });
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if r > 0 {
                s.push('/');
            }
        }
        s
    }

    /// A move string that leads from the empty board to this position without passing through a
    /// finished game, or `None` if there is none (a board string can describe such a position).
    pub fn to_move_string(&self) -> Option<String> {
        let (x, o) = self.discs();
        let mut cols = Vec::with_capacity(self.moves as usize);
        let mut budget = 100_000u32;
        let mut dead_ends = std::collections::HashSet::new();
        if unplay::<W, H, B>(x, o, &mut cols, &mut budget, &mut dead_ends) {
            Some(crate::notation::move_string(cols.iter().rev().copied(), W))
        } else {
            None
        }
    }

    /// The mirror image (columns reversed).
    pub fn mirrored(&self) -> Self {
        Position {
            current: mirror::<W, H, B>(self.current),
            mask: mirror::<W, H, B>(self.mask),
            moves: self.moves,
        }
    }

    /// The board drawn in text, top row first, with 1-based column numbers underneath.
    pub fn draw(&self) -> String {
        let mut s = String::new();
        for r in (0..H).rev() {
            for c in 0..W {
                s.push(match self.cell(c, r) {
                    Cell::Empty => '.',
                    Cell::Disc(Player::First) => 'x',
                    Cell::Disc(Player::Second) => 'o',
                });
                if c + 1 < W {
                    s.push(' ');
                }
            }
            s.push('\n');
        }
        for c in 0..W {
            s.push(crate::notation::column_char(c, W));
            if c + 1 < W {
                s.push(' ');
            }
        }
        s.push('\n');
        s
    }
}

impl<const W: usize, const H: usize, B: Bitboard> fmt::Debug for Position<W, H, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position<{W}x{H}>({})", self.to_board_string())
    }
}

/// Reverses the columns of a bitboard.
#[inline]
pub fn mirror<const W: usize, const H: usize, B: Bitboard>(b: B) -> B {
    let colmask = B::from_u128((1u128 << (H + 1)) - 1);
    let mut m = B::ZERO;
    let mut c = 0;
    while c < W {
        m |= ((b >> (c * (H + 1))) & colmask) << ((W - 1 - c) * (H + 1));
        c += 1;
    }
    m
}

/// Takes discs back, last mover first, until the board is empty, never leaving a four on the
/// board except possibly the very last disc's; pushes the columns taken (latest first).
/// `dead_ends` remembers the boards from which no way back was found: many orders of taking
/// discs back meet at the same board, and without it the search is exponential.
fn unplay<const W: usize, const H: usize, B: Bitboard>(
    x: B,
    o: B,
    cols: &mut Vec<usize>,
    budget: &mut u32,
    dead_ends: &mut std::collections::HashSet<(B, B)>,
) -> bool {
    let mask = x | o;
    if mask.is_zero() {
        return true;
    }
    if *budget == 0 || dead_ends.contains(&(x, o)) {
        return false;
    }
    *budget -= 1;
    let x_moved_last = x.count_ones() > o.count_ones();
    let (last, other) = if x_moved_last { (x, o) } else { (o, x) };
    for c in 0..W {
        let colbits = mask & Geometry::<W, H, B>::column_mask(c);
        if colbits.is_zero() {
            continue;
        }
        let top = B::bit((B::BITS - 1 - colbits.leading_zeros()) as usize);
        if (last & top).is_zero() {
            continue;
        }
        let prev_last = last ^ top;
        // before this disc, nobody may already have had four
        if Position::<W, H, B>::has_four(prev_last) || Position::<W, H, B>::has_four(other) {
            continue;
        }
        let (nx, no) = if x_moved_last {
            (prev_last, other)
        } else {
            (other, prev_last)
        };
        cols.push(c);
        if unplay::<W, H, B>(nx, no, cols, budget, dead_ends) {
            return true;
        }
        cols.pop();
    }
    // a search cut short by the budget is no proof of a dead end
    if *budget > 0 {
        dead_ends.insert((x, o));
    }
    false
}

/// Number of legal move sequences of length `depth` from `pos`. A game ends at four in a row or a
/// full board, so a sequence that ends earlier is not of length `depth` and does not count.
pub fn perft<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
    depth: u32,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.is_game_over() {
        return 0;
    }
    let mut moves = pos.possible();
    if depth == 1 {
        return moves.count_ones() as u64;
    }
    let mut n = 0;
    while !moves.is_zero() {
        let m = moves.lowest();
        moves ^= m;
        n += perft(&pos.after(m), depth - 1);
    }
    n
}

/// [`perft`] that gives up once `stop` says so, polled at every inner node (a load, cheap next to
/// the moves), so that a protocol `stop` ends even a depth that would run for years. Returns the
/// count so far and whether it is complete.
pub fn perft_until<const W: usize, const H: usize, B: Bitboard>(
    pos: &Position<W, H, B>,
    depth: u32,
    stop: &dyn Fn() -> bool,
) -> (u64, bool) {
    fn walk<const W: usize, const H: usize, B: Bitboard>(
        pos: &Position<W, H, B>,
        depth: u32,
        stop: &dyn Fn() -> bool,
        n: &mut u64,
    ) -> bool {
        if depth <= 2 {
            *n += perft(pos, depth);
            return true;
        }
        if pos.is_game_over() {
            return true;
        }
        if stop() {
            return false;
        }
        let mut moves = pos.possible();
        while !moves.is_zero() {
            let m = moves.lowest();
            moves ^= m;
            if !walk(&pos.after(m), depth - 1, stop, n) {
                return false;
            }
        }
        true
    }
    let mut n = 0;
    let complete = walk(pos, depth, stop, &mut n);
    (n, complete)
}

/// A board size chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    width: usize,
    height: usize,
}

impl Default for Size {
    fn default() -> Self {
        Size {
            width: 7,
            height: 6,
        }
    }
}

/// Why a board size was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeError {
    Syntax(String),
    Unsupported { width: usize, height: usize },
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeError::Syntax(s) => write!(f, "bad board size '{s}': expected WxH, e.g. 7x6"),
            SizeError::Unsupported { width, height } => write!(
                f,
                "board size {width}x{height} is not supported: vier plays the {} sizes whose \
                 result is published, 4 to {} columns and 4 to {} rows (protocol.md lists them)",
                crate::bits::SIZES.len(),
                crate::bits::MAX_WIDTH,
                crate::bits::MAX_HEIGHT
            ),
        }
    }
}

impl std::error::Error for SizeError {}

impl Size {
    pub fn new(width: usize, height: usize) -> Result<Size, SizeError> {
        if crate::bits::SIZES
            .iter()
            .any(|&(w, h, _)| (w, h) == (width, height))
        {
            Ok(Size { width, height })
        } else {
            Err(SizeError::Unsupported { width, height })
        }
    }

    /// Every supported size (the registry, [`crate::bits::SIZES`]), narrowest first.
    pub fn all() -> impl Iterator<Item = Size> {
        crate::bits::SIZES
            .iter()
            .map(|&(width, height, _)| Size { width, height })
    }

    /// The bits of this size's board type (64 or 128).
    pub fn bits(&self) -> u32 {
        crate::bits::SIZES
            .iter()
            .find(|&&(w, h, _)| (w, h) == (self.width, self.height))
            .map_or(64, |&(_, _, b)| b)
    }

    pub fn width(&self) -> usize {
        self.width
    }
    pub fn height(&self) -> usize {
        self.height
    }
    pub fn cells(&self) -> usize {
        self.width * self.height
    }
}

impl std::str::FromStr for Size {
    type Err = SizeError;
    fn from_str(s: &str) -> Result<Size, SizeError> {
        let (w, h) = s
            .split_once(['x', 'X'])
            .ok_or_else(|| SizeError::Syntax(s.to_string()))?;
        let w = w
            .trim()
            .parse()
            .map_err(|_| SizeError::Syntax(s.to_string()))?;
        let h = h
            .trim()
            .parse()
            .map_err(|_| SizeError::Syntax(s.to_string()))?;
        Size::new(w, h)
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// Calls a generic function or method monomorphised for a run-time [`Size`]:
/// `with_size!(size, my_fn::<W, H, B>(args))`: `W`, `H` and the bits type `B` are bound inside the
/// expression, from the registry ([`crate::size_registry`]).
/// Every supported size is listed, so no size falls through; an unsupported one cannot be built.
///
/// ```
/// use vier::board::{perft, Position, Size};
/// use vier::with_size;
/// let size: Size = "5x4".parse().unwrap();
/// let n = with_size!(size, perft(&Position::<W, H, B>::new(), 2));
/// assert_eq!(n, 25);
/// ```
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
