//! What both kinds of search keep while they search: the best line from every ply (a
//! triangular table), and how a heuristic result goes into the table.

use super::{MAX_PLY, NO_MOVE};
use crate::tt::{Bound, Heuristic, TransTable};

/// The best line found from each ply of the current path: row `ply` holds the moves from
/// `ply` on, in cells `ply..len(ply)`.
pub(super) struct Lines {
    moves: Box<[[u8; MAX_PLY + 1]; MAX_PLY + 1]>,
    len: [usize; MAX_PLY + 1],
}

impl Lines {
    pub(super) fn new() -> Lines {
        Lines {
            moves: Box::new([[NO_MOVE; MAX_PLY + 1]; MAX_PLY + 1]),
            len: [0; MAX_PLY + 1],
        }
    }

    /// A node at `ply` starts with an empty line.
    #[inline(always)]
    pub(super) fn clear(&mut self, ply: usize) {
        self.len[ply] = ply;
    }

    /// `col` is the best move at `ply` so far: its line is `col` and the line below it.
    #[inline(always)]
    pub(super) fn update(&mut self, ply: usize, col: u8) {
        self.moves[ply][ply] = col;
        let len = self.len[ply + 1].max(ply + 1);
        let (a, b) = self.moves.split_at_mut(ply + 1);
        a[ply][ply + 1..len].copy_from_slice(&b[0][ply + 1..len]);
        self.len[ply] = len;
    }

    /// The line found below the root move just searched (empty after a win at once).
    pub(super) fn below_root(&self) -> &[u8] {
        &self.moves[1][1..self.len[1]]
    }
}

/// Stores a heuristic `value` of a search to `depth` that took `nodes` nodes, with its best
/// column (`NO_MOVE`: none).
#[inline]
pub(super) fn store<K: crate::bits::Bitboard>(
    tt: &TransTable,
    key: K,
    value: i32,
    depth: i32,
    bound: Bound,
    col: u8,
    nodes: u64,
) {
    tt.store_heuristic(
        key,
        Heuristic {
            value: value.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: depth.clamp(0, 63) as u8,
            bound,
        },
        (col != NO_MOVE).then_some(col),
        64 - nodes.leading_zeros(),
    );
}
