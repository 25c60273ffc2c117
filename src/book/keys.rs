//! A book's keys: the mirror-symmetric key of a position ([`Position::symmetric_key`]) as a book
//! holds it, and back from a key to its position and its number of discs. A key holds each
//! column in `H + 1` bits, `2^h - 1 + own discs` for a column of height `h`, so it names one
//! position. The book's file ([`super::format`]) packs these keys; the lookup
//! ([`super::lookup`]) and the code that makes books ([`crate::book_build`]) turn them back
//! into positions and columns.

use crate::bits::Bitboard;
use crate::board::Position;

/// A key as a book holds it, in memory and at its interface: wide enough for every registered
/// board (80 bits at most), so one `Book` type serves them all and a file needs no width of its
/// own. The code that makes a book holds its keys as the board's bits type instead (`u64` on
/// the 64-bit boards: a 7x6 build's tables keep their size) and widens them only here, at the
/// book's boundary; a lookup widens a `u64` key for free. Packed in the file, a key takes its
/// board's `W*(H+1)` bits, whatever this type: the format does not depend on it.
pub type BookKey = u128;

/// Bytes of a key on a board of this size.
pub fn key_bytes(width: usize, height: usize) -> usize {
    (width * (height + 1)).div_ceil(8)
}

/// Column `c` of a position, in the orientation of its symmetric key (or back: the mapping is
/// its own inverse), given whether that key is the mirror image's.
pub fn orient(c: usize, width: usize, mirrored: bool) -> usize {
    if mirrored {
        width - 1 - c
    } else {
        c
    }
}

/// Discs on the board of a position key (see [`position_from_key`]): each column's field is
/// `2^h - 1 + own discs`, whose highest set bit after adding 1 is at `h`.
#[inline(always)]
pub fn key_discs(key: BookKey, width: usize, height: usize) -> u32 {
    // The engine's start runs this once per entry of the built-in book: u64 on the 64-bit
    // boards and a plain loop (an iterator's `sum` over `u128`, not inlined, made the start a
    // quarter slower).
    let h1 = height + 1;
    let mut discs = 0;
    if width * h1 <= 64 {
        let (key, column) = (key as u64, (1u64 << h1) - 1);
        for c in 0..width {
            discs += 63 - (((key >> (c * h1)) & column) + 1).leading_zeros();
        }
    } else {
        let column = (1u128 << h1) - 1;
        for c in 0..width {
            discs += 127 - (((key >> (c * h1)) & column) + 1).leading_zeros();
        }
    }
    discs
}

/// A book key as the key of a board whose bits are `B`: `None` if it has bits that `B` has not
/// (then it is the key of no position of that board).
#[inline(always)]
pub fn key_as<B: Bitboard>(key: BookKey) -> Option<B> {
    (B::BITS >= BookKey::BITS || key >> B::BITS == 0).then(|| B::from_u128(key))
}

/// The position with this key (see [`Position::key`]), if the key is one: each column's bits
/// hold `2^h - 1 + own discs` for a column of height `h`, and the side to move must have as
/// many discs as the other side, or one fewer. The key is of the board's own bits type `B` (a
/// book's [`BookKey`] goes through [`key_as`] first).
pub fn position_from_key<const W: usize, const H: usize, B: Bitboard>(
    key: B,
) -> Option<Position<W, H, B>> {
    let h1 = H + 1;
    let column = B::from_u128((1u128 << h1) - 1);
    if W * h1 < B::BITS as usize && !(key >> (W * h1)).is_zero() {
        return None;
    }
    let (mut current, mut mask) = (B::ZERO, B::ZERO);
    for c in 0..W {
        let v = (key >> (c * h1)) & column;
        // the height is the position of the highest set bit of v + 1
        let h = (B::BITS - (v + B::ONE).leading_zeros() - 1) as usize;
        if h > H {
            return None;
        }
        let own = v + B::ONE - B::bit(h);
        let col_mask = B::bit(h) - B::ONE;
        current |= own << (c * h1);
        mask |= col_mask << (c * h1);
    }
    let own = current.count_ones();
    let theirs = (mask & !current).count_ones();
    if theirs != own && theirs != own + 1 {
        return None;
    }
    let p = Position::<W, H, B>::from_raw(current, mask);
    debug_assert!(p.key() == key);
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Size, SizedJob};
    use proptest::prelude::*;

    /// Plays `moves` (column choices, each taken modulo the legal ones) on a board of `size`
    /// over its own bits type, and checks at every position that its key and its symmetric
    /// key decode to it (or its mirror image) and count its discs. Returns the widest key's
    /// highest bit.
    fn keys_decode(size: Size, moves: &[u8]) -> Result<u32, TestCaseError> {
        struct Decode<'a>(&'a [u8]);
        impl SizedJob for Decode<'_> {
            type Output = Result<u32, TestCaseError>;
            fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
                let moves = self.0;
                let mut p = Position::<W, H, B>::new();
                let mut top = 0;
                for &m in moves {
                    for (key, q) in [
                        (p.key(), p),
                        (p.symmetric_key().0, {
                            if p.symmetric_key().1 {
                                p.mirrored()
                            } else {
                                p
                            }
                        }),
                    ] {
                        prop_assert_eq!(position_from_key::<W, H, B>(key), Some(q));
                        let wide = key.to_u128();
                        prop_assert_eq!(key_as::<B>(wide), Some(key));
                        prop_assert_eq!(key_discs(wide, W, H), p.moves());
                        top = top.max(128 - wide.leading_zeros());
                    }
                    let legal: Vec<usize> = p.legal_columns().collect();
                    if p.is_game_over() || legal.is_empty() {
                        break;
                    }
                    p.play_col(legal[m as usize % legal.len()]);
                }
                Ok(top)
            }
        }
        size.run(Decode(moves))
    }

    proptest! {
        /// On every board past 64 bits, positions of random games decode from their keys,
        /// whose bits reach past 64 (on 8x8, say, the last column starts at bit 63).
        #[test]
        fn wide_positions_decode_from_their_keys(
            size in 0..Size::all().filter(|s| s.bits() == 128).count(),
            moves in proptest::collection::vec(any::<u8>(), 0..90),
        ) {
            let size = Size::all().filter(|s| s.bits() == 128).nth(size).unwrap();
            keys_decode(size, &moves)?;
        }

        /// The same over the 64-bit boards (their keys widened to book keys and back).
        #[test]
        fn narrow_positions_decode_from_their_keys(
            size in 0..Size::all().filter(|s| s.bits() == 64).count(),
            moves in proptest::collection::vec(any::<u8>(), 0..70),
        ) {
            let size = Size::all().filter(|s| s.bits() == 64).nth(size).unwrap();
            keys_decode(size, &moves)?;
        }
    }
}
