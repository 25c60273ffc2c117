//! Static resolution: what a position's value is, or a bound on it, without a search: forced
//! moves played through, a loss to the opponent's next disc, a full board, the discs left, and
//! the row parity (Allis' claimeven and odd threats); the table's bounds.

use super::keys::{column_cells, key_of};
use super::Solver;
use crate::bits::Bitboard;
use crate::board::{Geometry, Position};
use crate::score;

/// What static resolution made of a position (see [`Solver::resolve`]).
pub(super) enum Resolved<const W: usize, const H: usize, B: Bitboard> {
    /// Its value, or a bound on it outside the window (fail-soft), for its side to move.
    Value(i32),
    /// The position its forced moves lead to, still to be searched.
    Search(Open<W, H, B>),
}

/// A position left to search, with what resolving it already computed.
#[derive(Clone, Copy)]
pub(super) struct Open<const W: usize, const H: usize, B: Bitboard> {
    pub(super) p: Position<W, H, B>,
    /// The same side is to move as in the position resolved (an even number of forced moves).
    pub(super) same: bool,
    /// Its non-losing moves (at least two).
    pub(super) next: B,
    /// The cells where its opponent (the side that moved last) would connect four.
    pub(super) opp_win: B,
    /// The most its side to move can get ([`Solver::upper_bound`]).
    pub(super) max: i32,
    pub(super) key: B,
    pub(super) mirrored: bool,
    /// The table's bounds on its score (`i32::MIN` and `i32::MAX` without an entry) and its
    /// move, in the orientation of `key`: only what the search reads, to keep `Open` small
    /// (a node keeps one per child).
    pub(super) lower: i32,
    pub(super) upper: i32,
    pub(super) best_move: Option<u8>,
}

impl Solver {
    /// Settles what needs no search in a position whose side to move cannot win at once: a
    /// loss to the opponent's next disc, a full board, bounds from the discs left and from
    /// claimeven that close the window, and the table's bounds. A move forced (the only one
    /// that does not lose at once) is played and the same asked of the position after it, so
    /// a chain of forced moves costs no node and no table entry. Otherwise the position left
    /// to search is returned, with `true` when its side to move is that of `p`.
    #[inline(always)]
    pub(super) fn resolve<const W: usize, const H: usize, B: Bitboard>(
        &self,
        p: Position<W, H, B>,
        alpha: i32,
        beta: i32,
    ) -> Resolved<W, H, B> {
        self.resolve_with(p, p.opponent_winning_cells(), None, alpha, beta)
    }

    /// [`Solver::resolve`], given `p`'s [`Position::opponent_winning_cells`] and, where known,
    /// its table key ([`key_of`]): a node has computed them for its children's move order and
    /// prefetches already.
    #[inline(always)]
    pub(super) fn resolve_with<const W: usize, const H: usize, B: Bitboard>(
        &self,
        mut p: Position<W, H, B>,
        mut opp_win: B,
        mut key: Option<(B, bool)>,
        mut alpha: i32,
        mut beta: i32,
    ) -> Resolved<W, H, B> {
        let cells = (W * H) as i32;
        let mut same = true;
        let out = |same: bool, v: i32| Resolved::Value(if same { v } else { -v });
        loop {
            let moves = p.moves() as i32;
            let next = p.non_losing_moves_against(opp_win);
            if next.is_zero() {
                // every move lets the opponent connect four with its next disc
                return out(same, score::loss_next(cells, moves));
            }
            if moves >= cells - 2 {
                // neither side can win in the two discs left
                return out(same, 0);
            }
            // the opponent cannot win with its next disc, so at best it wins with the one after
            let min = score::worst_without_loss_next(cells, moves);
            if alpha < min {
                alpha = min;
                if alpha >= beta {
                    return out(same, alpha);
                }
            }
            let max = Self::upper_bound(&p, opp_win);
            if beta > max {
                beta = max;
                if alpha >= beta {
                    return out(same, beta);
                }
            }
            if (next & (next - B::ONE)).is_zero() {
                // the only move that does not lose at once: the position's value is its child's
                p.play(next);
                opp_win = p.opponent_winning_cells();
                key = None;
                (alpha, beta) = (-beta, -alpha);
                same = !same;
                continue;
            }
            let (key, mirrored) = key.unwrap_or_else(|| key_of(&p));
            let (mut lower, mut upper, mut best_move) = (i32::MIN, i32::MAX, None);
            if let Some(e) = self.table_for(moves as u32).probe(key) {
                if e.lower >= beta {
                    return out(same, e.lower);
                }
                if e.upper <= alpha {
                    return out(same, e.upper);
                }
                (lower, upper, best_move) = (e.lower, e.upper, e.best_move);
            }
            return Resolved::Search(Open {
                p,
                same,
                next,
                opp_win,
                max,
                key,
                mirrored,
                lower,
                upper,
                best_move,
            });
        }
    }

    /// The most the side to move can get when it cannot win with the disc it drops now: a win
    /// with its next disc, a draw when the empty cells or claimeven leave it no four, a loss
    /// when claimeven or an odd threat gives the opponent a four first.
    #[inline(always)]
    pub(super) fn upper_bound<const W: usize, const H: usize, B: Bitboard>(
        p: &Position<W, H, B>,
        opp_win: B,
    ) -> i32 {
        let max = score::best_without_win_now((W * H) as i32, p.moves() as i32);
        if max <= 0 {
            return max;
        }
        // no four is left that we could complete with all the empty cells
        if !Position::<W, H, B>::has_four(p.current() | (Geometry::<W, H, B>::board() & !p.mask()))
        {
            return 0;
        }
        if (W * H) as u32 % 2 == p.moves() % 2 {
            Self::claimeven_bound(p, opp_win)
        } else {
            Self::odd_threat_loss(p, opp_win)
        }
        .unwrap_or(max)
    }

    /// Claimeven (Allis), extended: with an even number of empty cells, the columns with an odd
    /// number come in pairs. The opponent answers a move in a column with an even number in the
    /// same column, and a move in one of the others in another of them: we only get the empty
    /// cells of our row parity and some of the cells playable now, and none above a threat of
    /// the opponent on its row parity (that threat is its before those cells come). If those
    /// hold no four, we cannot win; and we lose if the opponent has such a threat (at the latest
    /// when the one with the most cells above it is reached) or if its share (the rest, less
    /// the playable cells) holds four (by its last disc at the latest).
    #[inline(always)]
    fn claimeven_bound<const W: usize, const H: usize, B: Bitboard>(
        p: &Position<W, H, B>,
        opp_win: B,
    ) -> Option<i32> {
        let mover_rows = Geometry::<W, H, B>::mover_rows();
        let empty = Geometry::<W, H, B>::board() & !p.mask();
        let possible = p.possible();
        let threats = opp_win & !mover_rows & !possible;
        let (above, left) = Self::above::<W, H, B>(threats);
        let ours = (p.current() | (empty & mover_rows) | possible) & !above;
        if Position::<W, H, B>::has_four(ours) {
            return None;
        }
        Some(if !threats.is_zero() {
            Self::loss_with_left::<W, H>(left)
        } else if Position::<W, H, B>::has_four(p.opponent() | (empty & !mover_rows & !possible)) {
            Self::loss_with_left::<W, H>(0)
        } else {
            0
        })
    }

    /// The cells above the lowest of `threats` in each column, and the most of them in one
    /// column: a threat that the game must reach ends it with those cells still empty.
    #[inline(always)]
    fn above<const W: usize, const H: usize, B: Bitboard>(mut threats: B) -> (B, i32) {
        let (mut above, mut most) = (B::ZERO, 0);
        while !threats.is_zero() {
            let t = threats.lowest();
            let col = column_cells::<W, H, B>(t.trailing_zeros() as usize / (H + 1));
            let cells = col & !((t << 1) - B::ONE);
            above |= cells;
            most = most.max(cells.count_ones() as i32);
            threats &= !col;
        }
        (above, most)
    }

    /// A loss to a threat the game must reach, with `left` cells still empty then (0: to the
    /// opponent's last disc at the latest).
    #[inline(always)]
    fn loss_with_left<const W: usize, const H: usize>(left: i32) -> i32 {
        let cells = (W * H) as i32;
        -score::win_at(cells, cells - left - 1)
    }

    /// An odd threat (Allis): with an odd number of empty cells, the opponent may hold a threat
    /// in a column with an odd number of them, on the row parity the side to move does not
    /// play into first there. The opponent answers a move in any other column with an even
    /// number in the same column, a move in one of the others with an odd number in another of
    /// them, and a move in the threat's column above it: it gets the threat before that column
    /// fills, so the game ends there at the latest. Meanwhile the side to move gets at most its
    /// row parity outside that column, the other one inside it, and the cells playable now, and
    /// none above a threat of the opponent on the opponent's parity. If those hold no four, it
    /// loses, at the latest when the threat with the most cells above it is reached.
    #[inline(always)]
    pub(super) fn odd_threat_loss<const W: usize, const H: usize, B: Bitboard>(
        p: &Position<W, H, B>,
        opp_win: B,
    ) -> Option<i32> {
        let mover_rows = Geometry::<W, H, B>::mover_rows();
        let mut odd = opp_win & mover_rows;
        if odd.is_zero() {
            return None;
        }
        let empty = Geometry::<W, H, B>::board() & !p.mask();
        let possible = p.possible();
        let elsewhere = opp_win & !mover_rows & !possible;
        while !odd.is_zero() {
            let t = odd.lowest();
            let col = column_cells::<W, H, B>(t.trailing_zeros() as usize / (H + 1));
            odd &= !col;
            // a column with an odd number of empty cells has its playable cell off the mover rows
            if !(possible & col & mover_rows).is_zero() {
                continue;
            }
            let theirs = (opp_win & mover_rows & col) | (elsewhere & !col);
            let (above, left) = Self::above::<W, H, B>(theirs);
            let ours = (p.current()
                | (empty & mover_rows & !col)
                | (empty & !mover_rows & col)
                | possible)
                & !above;
            if !Position::<W, H, B>::has_four(ours) {
                return Some(Self::loss_with_left::<W, H>(left));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Plain negamax over the whole game, remembering positions already scored (no bounds).
    fn minimax<const W: usize, const H: usize, B: Bitboard>(
        p: &Position<W, H, B>,
        seen: &mut HashMap<B, i32>,
    ) -> i32 {
        if let Some(s) = score::terminal(p) {
            return s;
        }
        if let Some(&s) = seen.get(&p.key()) {
            return s;
        }
        let best = (0..W)
            .filter(|&c| p.can_play(c))
            .map(|c| {
                let mut q = *p;
                q.play_col(c);
                -minimax(&q, seen)
            })
            .max()
            .expect("a game that goes on has a move");
        seen.insert(p.key(), best);
        best
    }

    /// Random games stopped with `empty` cells left, the side to move unable to win at once:
    /// every bound [`Solver::upper_bound`] gives below the trivial one is checked against the
    /// truth. Returns how many bounds were losses, and how many of them the odd-threat rule
    /// gave.
    fn parity_bounds_hold<const W: usize, const H: usize, B: Bitboard>(
        empty: u32,
        games: usize,
    ) -> (usize, usize) {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut seen = HashMap::new();
        let (mut losses, mut odd) = (0, 0);
        for _ in 0..games {
            let mut p = Position::<W, H, B>::new();
            while (W * H) as u32 - p.moves() > empty && !p.is_game_over() {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let c = (rng % W as u64) as usize;
                if p.can_play(c) {
                    p.play_col(c);
                }
            }
            if p.is_game_over() || p.can_win_next() {
                continue;
            }
            let opp_win = p.opponent_winning_cells();
            let bound = Solver::upper_bound(&p, opp_win);
            if bound < score::best_without_win_now((W * H) as i32, p.moves() as i32) {
                let truth = minimax(&p, &mut seen);
                assert!(
                    truth <= bound,
                    "{W}x{H} {:?}: upper bound {bound}, minimax {truth}",
                    p.to_move_string()
                );
                losses += usize::from(bound < 0);
                odd += usize::from(Solver::odd_threat_loss(&p, opp_win).is_some());
            }
        }
        (losses, odd)
    }

    #[test]
    fn parity_bounds_are_never_below_the_true_score() {
        // both row parities and both cell-count parities; the rules must fire to be tested
        fn check<const W: usize, const H: usize, B: Bitboard>() {
            let (mut losses, mut odd) = (0, 0);
            for empty in 2..=12 {
                let (l, o) = parity_bounds_hold::<W, H, B>(empty, 1000);
                losses += l;
                odd += o;
            }
            assert!(
                losses >= 100 && odd >= 50,
                "{W}x{H}: {losses} losses, {odd} odd"
            );
        }
        check::<4, 4, u64>();
        check::<5, 4, u64>();
        check::<6, 4, u64>();
        check::<4, 5, u64>();
        check::<5, 5, u64>();
        // the same rules over 128-bit boards
        check::<4, 4, u128>();
        check::<5, 5, u128>();
    }
}
