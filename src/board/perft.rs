//! Counting move sequences (perft): a check of the rules against published counts.

use super::rules::Position;
use crate::bits::Bitboard;

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
