//! The score encoding: the one home of every rule that turns a game's result into a number and
//! back, on every board size.
//!
//! A proven result has five faces:
//!
//! * the **exact score** (Pascal Pons' convention, from the side to move's view): 0 is a draw;
//!   a player who connects four with the disc it drops when `m` discs are on the board scores
//!   `(cells + 1 - m) / 2` ([`win_at`]), its opponent the negation. On 7x6 a win with the
//!   winner's k-th disc scores `22 - k`; on any board a win with the last disc a player can
//!   drop scores 1. Sooner wins score more, so negamax over exact scores prefers them.
//! * the **winning disc**: which of the winner's discs completes the four ([`winner_disc`]);
//! * **`mate N`**, as the protocol reports it ([`Score`]): the side to move wins with its N-th
//!   disc from now (`Win(N)`), or the opponent does (`Loss(N)`);
//! * the **moves left** until the game ends, in plies ([`Score::plies`]);
//! * **win / draw / loss**, the sign ([`outcome`]), which is all a weak solve proves.
//!
//! The searcher's heuristic values are centipawn-like ([`Score::Cp`]); it keeps proven results
//! beyond [`MATE`] ([`proven_value`]) so that they compare above any heuristic value. Its
//! per-mille win/draw/loss estimate for `UCI_ShowWDL` is [`wdl_permille`].
//!
//! Everything here is a plain function of the board's cell count and the discs on the board,
//! so the same code serves all sizes and the property tests check it on all 30.

use crate::bits::Bitboard;
use crate::board::Position;

/// The exact score of the player who connects four with the disc it drops when `moves` discs
/// are on the board.
#[inline(always)]
pub const fn win_at(cells: i32, moves: i32) -> i32 {
    (cells + 1 - moves) / 2
}

/// The side to move wins with the disc it drops now.
#[inline(always)]
pub const fn win_now(cells: i32, moves: i32) -> i32 {
    win_at(cells, moves)
}

/// The opponent wins with its next disc.
#[inline(always)]
pub const fn loss_next(cells: i32, moves: i32) -> i32 {
    -win_at(cells, moves + 1)
}

/// The best the side to move can get when it cannot win with the disc it drops now: a win with
/// its next one.
#[inline(always)]
pub const fn best_without_win_now(cells: i32, moves: i32) -> i32 {
    win_at(cells, moves + 2)
}

/// The best the side to move can get when it cannot win with the disc it drops now nor with
/// the next: a win with the one after.
#[inline(always)]
pub const fn best_without_win_soon(cells: i32, moves: i32) -> i32 {
    win_at(cells, moves + 4)
}

/// The worst the side to move can get when the opponent cannot win with its next disc: a loss
/// to the opponent's disc after that.
#[inline(always)]
pub const fn worst_without_loss_next(cells: i32, moves: i32) -> i32 {
    -win_at(cells, moves + 3)
}

/// The range of exact scores of a position whose game goes on: `(lowest, highest)`.
#[inline(always)]
pub const fn range(cells: i32, moves: i32) -> (i32, i32) {
    (loss_next(cells, moves), win_now(cells, moves))
}

/// The score of a finished game for the side to move: the last mover connected four with the
/// disc dropped when `moves - 1` discs were on the board.
#[inline(always)]
pub const fn lost_game(cells: i32, moves: i32) -> i32 {
    -win_at(cells, moves - 1)
}

/// Score of a position whose game has ended, or `None` if it goes on.
pub fn terminal<const W: usize, const H: usize, B: Bitboard>(p: &Position<W, H, B>) -> Option<i32> {
    if p.last_mover_won() {
        Some(lost_game((W * H) as i32, p.moves() as i32))
    } else if p.is_full() {
        Some(0)
    } else {
        None
    }
}

/// The exact score the side to move gets by playing the 0-based `col` of `p` (which must be
/// playable), given a way to score the child: a win at once and a full board need none.
pub fn of_move<const W: usize, const H: usize, B: Bitboard, E>(
    p: &Position<W, H, B>,
    col: usize,
    child_score: impl FnOnce(&Position<W, H, B>) -> Result<i32, E>,
) -> Result<i32, E> {
    if p.is_winning_move(col) {
        return Ok(win_now((W * H) as i32, p.moves() as i32));
    }
    let mut child = *p;
    child.play_col(col);
    if child.is_full() {
        Ok(0)
    } else {
        child_score(&child).map(|s| -s)
    }
}

/// Win (1), draw (0) or loss (-1) of an exact score: what a weak solve proves.
#[inline(always)]
pub const fn outcome(score: i32) -> i32 {
    score.signum()
}

/// Which of the winner's discs completes the four (1 = its first), for an exact score `s != 0`
/// of a position with `moves` discs; the winner is the side to move when `s > 0`.
pub fn winner_disc(cells: i32, moves: i32, s: i32) -> i32 {
    // the winner drops its k-th disc when m = 2(k-1) + (1 if it moves second) discs are down
    let m = if s > 0 {
        win_m(cells, s, moves)
    } else {
        win_m(cells, -s, moves + 1)
    };
    m / 2 + 1
}

/// The disc count `m >= first` of the same parity as `first` at which `win_at(cells, m) == s`.
fn win_m(cells: i32, s: i32, first: i32) -> i32 {
    // win_at falls by exactly 1 per two discs
    first + 2 * (win_at(cells, first) - s)
}

/// A score as the protocol reports it, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "page", derive(serde::Serialize, serde::Deserialize))]
pub enum Score {
    /// Heuristic (100 = a clear advantage).
    Cp(i32),
    /// Proven win: the side to move connects four with its N-th disc from now.
    Win(u32),
    /// Proven loss: the opponent connects four with its N-th disc from now (0: already has).
    Loss(u32),
    /// Proven draw.
    Draw,
}

/// The protocol's words: `cp X`, `mate N` (a win with the N-th disc from now), `mate -N`; a
/// proven draw is `cp 0`, a game already lost `mate 0`.
impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Score::Cp(x) => write!(f, "cp {x}"),
            Score::Win(n) => write!(f, "mate {n}"),
            Score::Loss(0) => f.write_str("mate 0"),
            Score::Loss(n) => write!(f, "mate -{n}"),
            Score::Draw => f.write_str("cp 0"),
        }
    }
}

impl Score {
    /// The protocol score of an exact score `s` at a position with `moves` discs. The side to
    /// move's N-th disc from now drops at `m = moves + 2(N-1)`, so `N = win_at(moves) - s + 1`;
    /// the opponent's at `m = moves + 1 + 2(N-1)`, so `N = win_at(moves + 1) - |s| + 1`.
    pub fn from_exact(cells: i32, moves: i32, s: i32) -> Score {
        if s > 0 {
            Score::Win((win_at(cells, moves) - s + 1).max(1) as u32)
        } else if s < 0 {
            Score::Loss((win_at(cells, moves + 1) + s + 1).max(1) as u32)
        } else {
            Score::Draw
        }
    }

    /// The exact score this proven result would be at a position with `moves` discs; `None`
    /// for a heuristic score and for `Loss(0)` (a game already over). Private: only
    /// [`Value::exact`], which refuses a bound, turns a reported score into an exact one.
    fn exact_if_proven(self, cells: i32, moves: i32) -> Option<i32> {
        match self {
            Score::Cp(_) | Score::Loss(0) => None,
            Score::Draw => Some(0),
            Score::Win(n) => Some(win_at(cells, moves) - n as i32 + 1),
            Score::Loss(n) => Some(-(win_at(cells, moves + 1) - n as i32 + 1)),
        }
    }

    /// Plies until the game ends with this result under best play (`None` for a heuristic score
    /// or a draw, which lasts until the board is full): a win with the N-th disc from now is
    /// `2N - 1` plies away, a loss to the opponent's N-th disc `2N`.
    pub fn plies(self) -> Option<u32> {
        match self {
            Score::Win(n) => Some((2 * n).saturating_sub(1)),
            Score::Loss(n) => Some(2 * n),
            Score::Cp(_) | Score::Draw => None,
        }
    }

    /// The deepest a search must look to find a win with the N-th disc from now (`go mate N`).
    pub fn mate_depth(n: u32) -> u32 {
        Score::Win(n).plies().unwrap_or(0).max(1)
    }

    /// The score in the side to move's order of preference, as one number to compare: a win
    /// above every heuristic value and a sooner win above a later one, a loss below every
    /// heuristic value and a later loss above a sooner one, a draw as `cp 0`.
    pub fn rank(self) -> i32 {
        // the plies to the end, which a board's cells bound far below MATE
        let plies = self.plies().map_or(0, |p| p.min(MATE as u32) as i32);
        match self {
            Score::Win(_) => 2 * MATE - plies,
            Score::Loss(_) => -2 * MATE + plies,
            Score::Draw => 0,
            Score::Cp(x) => x.clamp(-(MATE - 1), MATE - 1),
        }
    }

    /// The score a protocol line writes as `<kind> <n>` (`cp 35`, `mate 3`, `mate -4`,
    /// `mate 0`: what [`Display`](std::fmt::Display) writes), or `None` for another kind. The
    /// number is clamped to what a board can mean (a centipawn score to ±100,000, a mate to
    /// 100 discs), so that another engine's absurd number cannot overflow anything.
    pub fn from_protocol(kind: &str, n: i64) -> Option<Score> {
        match kind {
            "cp" => Some(Score::Cp(n.clamp(-100_000, 100_000) as i32)),
            "mate" if n > 0 => Some(Score::Win(n.min(100) as u32)),
            "mate" => Some(Score::Loss(n.unsigned_abs().min(100) as u32)),
            _ => None,
        }
    }
}

/// Whether a reported score is the position's value or only a bound on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "page", derive(serde::Serialize, serde::Deserialize))]
pub enum ScoreBound {
    /// The value (for a heuristic score: the search's value at its depth).
    Exact,
    /// The value is at least this: an iteration cut short, or a win the search found without
    /// proving that none is faster.
    Lower,
    /// The value is at most this: a loss the search found without proving that none lasts
    /// longer.
    Upper,
}

/// A score with its bound: what a search or a proof says of a position's value, from the side
/// to move's view. Every report carries one, so that a bound is never read as a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "page", derive(serde::Serialize, serde::Deserialize))]
pub struct Value {
    pub score: Score,
    pub bound: ScoreBound,
}

impl Value {
    /// The position's value itself (a proof, or a heuristic value at the search's depth).
    pub const fn exact(score: Score) -> Value {
        Value {
            score,
            bound: ScoreBound::Exact,
        }
    }

    /// The value of a proof: Pons' exact score `s` at a position with `moves` discs.
    pub fn proven(cells: i32, moves: i32, s: i32) -> Value {
        Value::exact(Score::from_exact(cells, moves, s))
    }

    /// A proven win, loss or draw: the value itself, not a bound on it, and no estimate.
    pub fn is_proven(self) -> bool {
        self.bound == ScoreBound::Exact && !matches!(self.score, Score::Cp(_))
    }

    /// The least exact score the value guarantees at a position with `moves` discs: its own
    /// when proven, a lower bound's; `None` for an estimate or an upper bound.
    pub fn floor(self, cells: i32, moves: i32) -> Option<i32> {
        match self.bound {
            ScoreBound::Exact | ScoreBound::Lower => self.score.exact_if_proven(cells, moves),
            ScoreBound::Upper => None,
        }
    }

    /// Pons' exact score at a position with `moves` discs when the value is proven; `None` for
    /// an estimate, a bound (whatever its score says) and a game already over. The one place
    /// a reported value becomes an exact score.
    pub fn exact_score(self, cells: i32, moves: i32) -> Option<i32> {
        if self.bound == ScoreBound::Exact {
            self.score.exact_if_proven(cells, moves)
        } else {
            None
        }
    }
}

/// Proven results are beyond this value in the searcher's internal values.
pub const MATE: i32 = 10_000;

/// The searcher's internal value of an exact score: beyond [`MATE`] for a win or a loss, so
/// that every proven result compares above or below any heuristic value. Exact scores depend
/// only on the disc count of the winning move, so values need no adjustment between plies.
#[inline(always)]
pub const fn proven_value(s: i32) -> i32 {
    if s > 0 {
        MATE + s
    } else if s < 0 {
        -MATE + s
    } else {
        0
    }
}

/// Whether an internal value is a proven win or loss.
#[inline(always)]
pub const fn is_proven(v: i32) -> bool {
    v > MATE || v < -MATE
}

/// The protocol score of an internal value at a position with `moves` discs; `exact` says a
/// value of 0 is a proven draw.
pub fn from_value(cells: i32, moves: i32, v: i32, exact: bool) -> Score {
    if v > MATE {
        Score::from_exact(cells, moves, v - MATE)
    } else if v < -MATE {
        Score::from_exact(cells, moves, v + MATE)
    } else if v == 0 && exact {
        Score::Draw
    } else {
        Score::Cp(v)
    }
}

/// The reported value of a depth-limited search's internal value `v` at a position with `moves`
/// discs. `to_end`: the search saw every line to the end of the game, so its value is proven
/// (a 0 a draw). `complete`: the iteration searched every root move; one cut short only gives
/// a lower bound of its best move. A win or a loss the engine's search finds before the end is
/// a bound, not the value: a forced move does not use up its depth, so a win found down a
/// forced line may be slower than one the horizon hid in another (at least this fast: a lower
/// bound), and a loss faster than the longest defence (an upper bound). Only the solver, or a
/// search to the end, proves how far a win is; but nothing is faster than a win with the next
/// disc, nor sooner than a loss to the opponent's next, so those are values.
pub fn search_value(cells: i32, moves: i32, v: i32, to_end: bool, complete: bool) -> Value {
    let score = from_value(cells, moves, v, to_end);
    let bound = if !complete {
        ScoreBound::Lower
    } else if to_end || matches!(score, Score::Win(1) | Score::Loss(1)) {
        ScoreBound::Exact
    } else if v > MATE {
        ScoreBound::Lower
    } else if v < -MATE {
        ScoreBound::Upper
    } else {
        ScoreBound::Exact
    };
    Value { score, bound }
}

/// Win / draw / loss per mille for `UCI_ShowWDL`: certain for proven scores, and for heuristic
/// ones a logistic model (at +100 about half of the games are won).
pub fn wdl_permille(score: Score) -> (u32, u32, u32) {
    match score {
        Score::Win(_) => (1000, 0, 0),
        Score::Loss(_) => (0, 0, 1000),
        Score::Draw => (0, 1000, 0),
        Score::Cp(x) => {
            let x = x as f64;
            let w = (1000.0 / (1.0 + (-(x - 100.0) / 50.0).exp())).round() as u32;
            let l = (1000.0 / (1.0 + ((x + 100.0) / 50.0).exp())).round() as u32;
            let (w, l) = (w.min(1000), l.min(1000 - w.min(1000)));
            (w, 1000 - w - l, l)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Size;
    use proptest::prelude::*;

    #[test]
    fn seven_by_six_follows_pons() {
        // a win with the winner's k-th disc scores 22 - k
        for k in 1..=21 {
            assert_eq!(win_at(42, 2 * (k - 1)), 22 - k, "first player");
            assert_eq!(win_at(42, 2 * (k - 1) + 1), 22 - k, "second player");
        }
        assert_eq!(Score::from_exact(42, 6, 18), Score::Win(1));
        assert_eq!(range(42, 0), (-21, 21));
    }

    #[test]
    fn last_disc_wins_score_one_on_every_board() {
        for size in Size::all() {
            let cells = size.cells() as i32;
            // the first player's last disc drops at an even count, the second's at an odd one
            let last_first = if cells % 2 == 0 { cells - 2 } else { cells - 1 };
            let last_second = if cells % 2 == 0 { cells - 1 } else { cells - 2 };
            assert_eq!(win_at(cells, last_first), 1, "{size}");
            assert_eq!(win_at(cells, last_second), 1, "{size}");
            // a game won with the very last cell is a loss of 1 for the side to move after it
            assert_eq!(lost_game(cells, cells), -1, "{size}");
        }
    }

    #[test]
    fn scores_rank_as_the_side_to_move_prefers_them_and_read_back_as_written() {
        let order = [
            Score::Loss(1),
            Score::Loss(5),
            Score::Cp(-20_000),
            Score::Cp(-1),
            Score::Draw,
            Score::Cp(1),
            Score::Cp(20_000),
            Score::Win(9),
            Score::Win(1),
        ];
        for pair in order.windows(2) {
            assert!(pair[0].rank() <= pair[1].rank(), "{:?}", pair);
        }
        assert_eq!(Score::Draw.rank(), Score::Cp(0).rank());
        for s in [
            Score::Cp(-35),
            Score::Win(3),
            Score::Loss(4),
            Score::Loss(0),
        ] {
            let text = s.to_string();
            let (kind, n) = text.split_once(' ').unwrap();
            assert_eq!(Score::from_protocol(kind, n.parse().unwrap()), Some(s));
        }
        assert_eq!(
            Score::from_protocol("mate", i64::MIN),
            Some(Score::Loss(100))
        );
        assert_eq!(Score::from_protocol("wdl", 3), None);
    }

    #[test]
    fn wdl_sums_to_1000_and_is_symmetric() {
        for x in [-20000, -300, -100, -1, 0, 1, 50, 100, 300, 20000] {
            let (w, d, l) = wdl_permille(Score::Cp(x));
            assert_eq!(w + d + l, 1000, "{x}");
            let (w2, _, l2) = wdl_permille(Score::Cp(-x));
            assert!(w.abs_diff(l2) <= 1 && l.abs_diff(w2) <= 1, "{x}");
        }
        assert_eq!(wdl_permille(Score::Draw), (0, 1000, 0));
    }

    /// A board size, a disc count of a game that goes on, and an exact score in its range.
    fn position_score() -> impl Strategy<Value = (i32, i32, i32)> {
        let sizes: Vec<Size> = Size::all().collect();
        (0..sizes.len()).prop_flat_map(move |i| {
            let cells = sizes[i].cells() as i32;
            (0..cells).prop_flat_map(move |moves| {
                let (lo, hi) = range(cells, moves);
                (Just(cells), Just(moves), lo..=hi)
            })
        })
    }

    proptest! {
        #[test]
        fn exact_and_mate_round_trip((cells, moves, s) in position_score()) {
            let score = Score::from_exact(cells, moves, s);
            prop_assert_eq!(Value::exact(score).exact_score(cells, moves), Some(s));
            let bounded = Value { score, bound: ScoreBound::Lower };
            prop_assert_eq!(bounded.exact_score(cells, moves), None);
            prop_assert_eq!(from_value(cells, moves, proven_value(s), true), score);
            prop_assert_eq!(outcome(s), match score {
                Score::Win(_) => 1,
                Score::Loss(_) => -1,
                _ => 0,
            });
        }

        #[test]
        fn mate_distance_is_the_winning_disc((cells, moves, s) in position_score()) {
            prop_assume!(s != 0);
            let score = Score::from_exact(cells, moves, s);
            let plies = score.plies().unwrap() as i32;
            // the game ends with the disc dropped at moves + plies - 1, which fits on the board
            let m = moves + plies - 1;
            prop_assert!(m < cells);
            prop_assert_eq!(win_at(cells, m), s.abs());
            // and it is the winner's k-th disc
            let k = winner_disc(cells, moves, s);
            prop_assert_eq!(k, m / 2 + 1);
            prop_assert_eq!(lost_game(cells, m + 1), -s.abs());
        }
    }
}
