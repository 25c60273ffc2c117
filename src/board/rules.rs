//! The rules: a position on a bitboard, moves, four in a row, keys. Rules know nothing of
//! search or of text; the board's width `W` and height `H` are const generics, so every size is
//! compiled into its own code with all masks as constants.

use crate::bits::Bitboard;

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

    /// The mirror image (columns reversed).
    pub fn mirrored(&self) -> Self {
        Position {
            current: mirror::<W, H, B>(self.current),
            mask: mirror::<W, H, B>(self.mask),
            moves: self.moves,
        }
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
