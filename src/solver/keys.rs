//! The table's keys: mirror-symmetric near the root, where a position and its mirror image
//! are worth one entry, and plain deeper, where the symmetric key costs more than it saves;
//! and the cells of a column, in the bitboard's own type, that moves and keys are made of.

use super::settings::SYMMETRY_PLIES;
use crate::bits::Bitboard;
use crate::board::{Geometry, Position};

/// The table key of `p` (mirror-symmetric near the root) and whether it is the mirror's.
#[inline(always)]
pub(super) fn key_of<const W: usize, const H: usize, B: Bitboard>(
    p: &Position<W, H, B>,
) -> (B, bool) {
    let k = p.key();
    if p.moves() < SYMMETRY_PLIES {
        let m = mirror::<W, H, B>(k);
        if m < k {
            return (m, true);
        }
    }
    (k, false)
}

/// [`crate::board::mirror`] (the columns reversed) in fewer steps where the board's columns,
/// rounded up to a power of two, fit the bitboard: the halves, then the quarters ... of the
/// columns swap places, and the empty columns the rounding added are shifted out.
#[inline(always)]
pub(super) fn mirror<const W: usize, const H: usize, B: Bitboard>(k: B) -> B {
    let (s, g) = (H + 1, W.next_power_of_two());
    if g * s > B::BITS as usize {
        return crate::board::mirror::<W, H, B>(k);
    }
    // one swap of blocks of `block` columns (the masks are constants: no loop is left)
    let swap = |x: B, block: usize, low: u128| {
        if g > block {
            let low = B::from_u128(low);
            ((x >> (block * s)) & low) | ((x & low) << (block * s))
        } else {
            x
        }
    };
    let mut x = k;
    x = swap(x, 8, const { low_columns(H + 1, W.next_power_of_two(), 8) });
    x = swap(x, 4, const { low_columns(H + 1, W.next_power_of_two(), 4) });
    x = swap(x, 2, const { low_columns(H + 1, W.next_power_of_two(), 2) });
    x = swap(x, 1, const { low_columns(H + 1, W.next_power_of_two(), 1) });
    x >> ((g - W) * s)
}

/// The cells of the columns (of `s` bits each, `g` of them) whose index has the bit `block`
/// clear; 0 where that is more than 128 bits (the mirror then takes the plain way).
const fn low_columns(s: usize, g: usize, block: usize) -> u128 {
    let mut low = 0u128;
    let mut c = 0;
    while c < g && (c + 1) * s <= 128 {
        if c & block == 0 {
            low |= ((1u128 << s) - 1) << (c * s);
        }
        c += 1;
    }
    low
}

/// The cells of the 0-based column `col`: [`Geometry::column_mask`] shifted in the bitboard's
/// own type (a shift by a column not known at compile time is one instruction, where the
/// 128-bit shift of the column mask took several).
#[inline(always)]
pub(super) fn column_cells<const W: usize, const H: usize, B: Bitboard>(col: usize) -> B {
    Geometry::<W, H, B>::column_mask(0) << (col * (H + 1))
}

/// Column `c` in the orientation of a table key that is the mirror image's when `mirrored`
/// (the mapping is its own inverse: stored moves go both ways through it).
#[inline(always)]
pub(super) fn oriented<const W: usize>(c: usize, mirrored: bool) -> usize {
    crate::book::orient(c, W, mirrored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_mirror_is_the_mirror_on_every_size() {
        fn check<const W: usize, const H: usize, B: Bitboard>() {
            let mut rng = crate::rng::Rng::new(0x2545_F491_4F6C_DD1D);
            for _ in 0..200 {
                let x = rng.next_u64();
                let mut p = Position::<W, H, B>::new();
                for i in 0..(x % (W * H) as u64) {
                    let c = ((x >> (i % 50)) as usize + i as usize) % W;
                    if p.can_play(c) && !p.is_game_over() {
                        p.play_col(c);
                    }
                }
                let k = p.key();
                assert_eq!(mirror::<W, H, B>(k), crate::board::mirror::<W, H, B>(k));
            }
        }
        check::<7, 6, u64>();
        check::<4, 4, u64>();
        check::<5, 4, u64>();
        check::<6, 7, u64>();
        check::<8, 7, u64>();
        check::<9, 6, u64>();
        check::<10, 6, u128>();
        check::<8, 8, u128>();
        check::<12, 4, u64>();
        check::<5, 13, u128>();
    }
}
