//! The table's keys: mirror-symmetric near the root, where a position and its mirror image
//! are worth one entry, and plain deeper, where the symmetric key costs more than it saves.

use super::settings::SYMMETRY_PLIES;
use crate::bits::Bitboard;
use crate::board::Position;

/// The table key of `p` (mirror-symmetric near the root) and whether it is the mirror's.
#[inline(always)]
pub(super) fn key_of<const W: usize, const H: usize, B: Bitboard>(
    p: &Position<W, H, B>,
) -> (B, bool) {
    if p.moves() < SYMMETRY_PLIES {
        p.symmetric_key()
    } else {
        (p.key(), false)
    }
}

/// Column `c` in the orientation of a table key that is the mirror image's when `mirrored`
/// (the mapping is its own inverse: stored moves go both ways through it).
#[inline(always)]
pub(super) fn oriented<const W: usize>(c: usize, mirrored: bool) -> usize {
    crate::book::orient(c, W, mirrored)
}
