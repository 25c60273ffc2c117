//! Positions as text: move strings, board strings, cutechess's FEN, the board drawn, and the
//! moves that reach a position; with the errors that name what is wrong in what was written.

use super::rules::{Cell, Geometry, Player, Position};
use crate::bits::Bitboard;
use std::fmt;

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

impl<const W: usize, const H: usize, B: Bitboard> Position<W, H, B> {
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
            self.moves() / 2 + 1
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
        let mut cols = Vec::with_capacity(self.moves() as usize);
        let mut budget = 100_000u32;
        let mut dead_ends = std::collections::HashSet::new();
        if unplay::<W, H, B>(x, o, &mut cols, &mut budget, &mut dead_ends) {
            Some(crate::notation::move_string(cols.iter().rev().copied(), W))
        } else {
            None
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
