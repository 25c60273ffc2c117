//! The width of a bitboard, and the one registry of board sizes.
//!
//! Every board is a set of bits, one column of `H + 1` bits per column (see
//! [`crate::board::Position`]). A size whose `W * (H + 1)` bits fit in 64 uses `u64`, the others
//! `u128`; everything from the board to the book is written over [`Bitboard`], so the width is
//! decided here, by the registry, and nowhere else.
//!
//! The 128-bit board is the same layout, continued past bit 63. For 8x8 (bit numbers, the
//! sentinel row on top):
//!
//! ```text
//!   .  .  .  .  .  .  .  .      <- sentinel row (always 0)
//!   7 16 25 34 43 52 61 70      <- top row
//!   6 15 24 33 42 51 60 69
//!   ...
//!   0  9 18 27 36 45 54 63      <- bottom row; bits 64..71 are the last column's
//!   1  2  3  4  5  6  7  8      <- column numbers
//! ```

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{
    Add, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr, Sub,
};

/// The bits of a board: `u64` or `u128`. Masks are built as `u128` constants and narrowed with
/// [`Bitboard::from_u128`], which the compiler folds, so the 64-bit code is what it was.
pub trait Bitboard:
    Copy
    + Eq
    + Ord
    + Hash
    + Default
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Shl<usize, Output = Self>
    + Shr<usize, Output = Self>
    + Add<Output = Self>
    + Sub<Output = Self>
{
    const BITS: u32;
    const ZERO: Self;
    const ONE: Self;
    /// The low `Self::BITS` bits of `x`.
    fn from_u128(x: u128) -> Self;
    fn to_u128(self) -> u128;
    fn count_ones(self) -> u32;
    fn trailing_zeros(self) -> u32;
    fn leading_zeros(self) -> u32;
    fn wrapping_neg(self) -> Self;
    /// The key split for the transposition table: the low 64 bits, which the table stores, and
    /// the rest (at most 16 bits on every registered size), which picks the bucket and the tag.
    fn split(self) -> (u64, u64);
    /// 64 bits that tell keys apart (a seed, a hash): the key itself on a 64-bit board.
    #[inline(always)]
    fn fold64(self) -> u64 {
        let (lo, hi) = self.split();
        lo ^ hi.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
    #[inline(always)]
    fn is_zero(self) -> bool {
        self == Self::ZERO
    }
    /// The single bit `n`.
    #[inline(always)]
    fn bit(n: usize) -> Self {
        Self::ONE << n
    }
    /// The lowest set bit.
    #[inline(always)]
    fn lowest(self) -> Self {
        self & self.wrapping_neg()
    }
}

macro_rules! impl_bitboard {
    ($t:ty) => {
        impl Bitboard for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn from_u128(x: u128) -> Self {
                x as $t
            }
            #[inline(always)]
            fn to_u128(self) -> u128 {
                self as u128
            }
            #[inline(always)]
            fn count_ones(self) -> u32 {
                <$t>::count_ones(self)
            }
            #[inline(always)]
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }
            #[inline(always)]
            fn leading_zeros(self) -> u32 {
                <$t>::leading_zeros(self)
            }
            #[inline(always)]
            fn wrapping_neg(self) -> Self {
                <$t>::wrapping_neg(self)
            }
            #[inline(always)]
            fn split(self) -> (u64, u64) {
                (self as u64, (self as u128 >> 64) as u64)
            }
        }
    };
}
impl_bitboard!(u64);
impl_bitboard!(u128);

/// The registry of board sizes: every size in the published results (`tests/data/sizes.md`),
/// and the first unsolved ones ([`UNSOLVED`]), listed under the bits type its `W * (H + 1)`
/// bits need. Calls
/// `$crate::$callback!{ $($args)* ; u64: (W, H) ... ; u128: (W, H) ... }`; [`crate::with_size!`]
/// and [`SIZES`] are expanded from it, so a size is added here alone.
#[doc(hidden)]
#[macro_export]
macro_rules! size_registry {
    ($callback:ident; $($args:tt)*) => {
        $crate::$callback! { $($args)* ;
            u64: (4, 4) (4, 5) (4, 6) (4, 7) (4, 8) (4, 9) (4, 10) (4, 11) (4, 12) (4, 13)
                 (5, 4) (5, 5) (5, 6) (5, 7) (5, 8) (5, 9) (5, 10) (5, 11)
                 (6, 4) (6, 5) (6, 6) (6, 7) (6, 8) (6, 9)
                 (7, 4) (7, 5) (7, 6) (7, 7) (7, 8)
                 (8, 4) (8, 5) (8, 6) (8, 7)
                 (9, 4) (9, 5) (9, 6)
                 (10, 4) (10, 5) (11, 4) (12, 4);
            u128: (5, 12) (5, 13) (6, 10) (6, 11) (6, 12) (7, 9) (7, 10) (8, 8) (8, 9) (9, 7)
                  (10, 6) (11, 5)
                  (13, 4) (12, 5) (11, 6) (10, 7) (9, 8)
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! size_table {
    (; u64: $(($w:literal, $h:literal))*; u128: $(($w2:literal, $h2:literal))*) => {
        &[$(($w, $h, 64)),* , $(($w2, $h2, 128)),*]
    };
}

/// Every registered size as (width, height, bits of its board type): the 64-bit ones first.
pub const SIZES: &[(usize, usize, u32)] = size_registry!(size_table;);

/// The registered sizes whose result nobody has published: the wide boards of width + height =
/// 17 (Tromp solved every board of w + h <= 15, Steininger those of 16). vier plays and proves
/// them as any other; the front ends list them as unsolved ([`crate::board::Size::published`]).
pub const UNSOLVED: &[(usize, usize)] = &[(13, 4), (12, 5), (11, 6), (10, 7), (9, 8)];

/// The widest and the tallest registered board: fixed arrays over columns use `MAX_WIDTH`.
pub const MAX_WIDTH: usize = max_of(0);
pub const MAX_HEIGHT: usize = max_of(1);
pub const MIN_SIDE: usize = 4;

const fn max_of(field: usize) -> usize {
    let mut m = 0;
    let mut i = 0;
    while i < SIZES.len() {
        let v = if field == 0 { SIZES[i].0 } else { SIZES[i].1 };
        if v > m {
            m = v;
        }
        i += 1;
    }
    m
}

const _: () = {
    // every size's board fits its type, and a u64 board is never chosen where it does not fit
    let mut i = 0;
    while i < SIZES.len() {
        let (w, h, bits) = SIZES[i];
        assert!(w * (h + 1) <= bits as usize);
        assert!(w * (h + 1) <= 64 || bits == 128);
        i += 1;
    }
    // every unsolved size is registered
    let mut u = 0;
    while u < UNSOLVED.len() {
        let mut i = 0;
        while SIZES[i].0 != UNSOLVED[u].0 || SIZES[i].1 != UNSOLVED[u].1 {
            i += 1;
        }
        u += 1;
    }
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_holds_every_published_size_once_with_the_narrowest_type() {
        assert_eq!(SIZES.len(), 52 + UNSOLVED.len());
        for (i, &(w, h, bits)) in SIZES.iter().enumerate() {
            assert_eq!(bits, if w * (h + 1) <= 64 { 64 } else { 128 }, "{w}x{h}");
            assert!(!SIZES[..i].iter().any(|&(a, b, _)| (a, b) == (w, h)));
        }
        assert_eq!((MAX_WIDTH, MAX_HEIGHT), (13, 13));
    }

    #[test]
    fn the_unsolved_sizes_are_the_wide_boards_of_seventeen() {
        assert_eq!(UNSOLVED.len(), 5);
        for &(w, h) in UNSOLVED {
            assert_eq!(w + h, 17, "{w}x{h}");
            assert!(w > h, "{w}x{h}: the tall boards of 17 are published");
        }
        // the widest key: 9x8, 81 bits
        let widest = SIZES.iter().map(|&(w, h, _)| w * (h + 1)).max();
        assert_eq!(widest, Some(81));
    }

    #[test]
    fn u128_operations_reach_past_bit_63() {
        let b = u128::bit(70) | u128::bit(3);
        assert_eq!(Bitboard::count_ones(b), 2);
        assert_eq!(b.lowest(), u128::bit(3));
        assert_eq!(Bitboard::leading_zeros(b), 127 - 70);
        assert_eq!(b.split(), (8, 1 << 6));
        assert_eq!(u64::from_u128(u128::MAX), u64::MAX);
    }
}
