//! What the rules alone say of a position in a proof: its key (a position and its mirror image
//! share one), the value of a position the rules settle (a finished game, a win at once), the
//! range of values of the others, and its children. The tree and the certificate's checker
//! both ask here, so they cannot disagree.

use crate::bits::Bitboard;
use crate::board::{AnyPosition, Position, PositionJob, Size};
use crate::score;

/// What a proof proves of its root: win, draw or loss (`Weak`), or the exact score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    Weak,
    Exact,
}

impl Goal {
    pub fn name(self) -> &'static str {
        match self {
            Goal::Weak => "weak",
            Goal::Exact => "exact",
        }
    }

    pub fn parse(s: &str) -> Option<Goal> {
        match s {
            "weak" => Some(Goal::Weak),
            "exact" => Some(Goal::Exact),
            _ => None,
        }
    }
}

/// One position as the rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Look {
    /// The smaller of the position's key and its mirror image's.
    pub key: u128,
    /// Discs on the board.
    pub discs: u32,
    /// The value (side to move's view) when the rules settle it: the game is over, the side
    /// to move connects four at once, or every move it has lets the opponent connect four with
    /// its next disc.
    pub settled: Option<i32>,
    /// The values the position may have (both ends included).
    pub range: (i32, i32),
    /// The moves that do not let the opponent connect four at once (0 when settled).
    pub mobility: u32,
}

/// A position and the positions after each of its moves (0-based column, position, look), the
/// likeliest best first.
pub struct Examined {
    pub look: Look,
    pub children: Vec<(usize, AnyPosition, Look)>,
}

/// Looks at `p` (and, with `children`, at every position one move on).
pub fn examine(p: &AnyPosition, goal: Goal, children: bool) -> Examined {
    struct Job(Goal, bool);
    impl PositionJob for Job {
        type Output = Examined;
        fn run<const W: usize, const H: usize, B: Bitboard>(
            self,
            p: Position<W, H, B>,
        ) -> Examined {
            let look = look_at(&p, self.0);
            let mut kids = Vec::new();
            if self.1 && look.settled.is_none() {
                for col in crate::ordering::column_order::<W>() {
                    if p.can_play(col) {
                        let mut c = p;
                        c.play_col(col);
                        kids.push((col, AnyPosition::from(c), look_at(&c, self.0)));
                    }
                }
                // the child whose side to move stands worst by the heuristic first (a stable
                // sort: the centre's first among equals): the order ties are broken in, so an
                // OR node tries its likeliest move first (on 7x6, 1.24 times one solve's nodes
                // instead of 1.48, issue 69)
                kids.sort_by_cached_key(|(_, c, _)| {
                    struct Eval;
                    impl PositionJob for Eval {
                        type Output = i32;
                        fn run<const W: usize, const H: usize, B: Bitboard>(
                            self,
                            p: Position<W, H, B>,
                        ) -> i32 {
                            crate::eval::evaluate(&p)
                        }
                    }
                    c.run(Eval)
                });
            }
            Examined {
                look,
                children: kids,
            }
        }
    }
    p.run(Job(goal, children))
}

fn look_at<const W: usize, const H: usize, B: Bitboard>(p: &Position<W, H, B>, goal: Goal) -> Look {
    let cells = (W * H) as i32;
    let moves = p.moves() as i32;
    let safe = p.non_losing_moves();
    let exact = score::terminal(p)
        .or_else(|| p.can_win_next().then(|| score::win_now(cells, moves)))
        .or_else(|| safe.is_zero().then(|| score::loss_next(cells, moves)));
    let (settled, range) = match goal {
        Goal::Exact => (
            exact,
            exact.map_or(
                (
                    score::loss_next(cells, moves),
                    score::best_without_win_now(cells, moves),
                ),
                |s| (s, s),
            ),
        ),
        Goal::Weak => {
            let s = exact.map(score::outcome);
            (s, s.map_or((-1, 1), |s| (s, s)))
        }
    };
    Look {
        key: p.symmetric_key().0.to_u128(),
        discs: p.moves(),
        settled,
        range,
        mobility: if settled.is_some() {
            0
        } else {
            safe.count_ones()
        },
    }
}

/// The position a move string gives (`-` or nothing: the empty board), with the reason when it
/// is not one.
pub fn position(size: Size, moves: &str) -> Result<AnyPosition, String> {
    AnyPosition::from_moves(size, moves).map_err(|e| format!("'{moves}': {e}"))
}

/// A position's move string as vier writes it (digits up to 9 columns, lower-case letters past
/// them, `-` for the empty board), from any string the notation reads (`abc`, `ABC`): the
/// strings of its children, which [`child_moves`] writes, are then of one notation too, and
/// `vier solve` prints them back as they are.
pub fn canonical(size: Size, moves: &str) -> Result<String, String> {
    position(size, moves)?;
    let moves = if moves == "-" { "" } else { moves };
    let cols =
        crate::notation::parse_moves(moves, size.width()).map_err(|e| format!("'{moves}': {e}"))?;
    let s = crate::notation::move_string(cols.into_iter().map(|(_, c)| c - 1), size.width());
    Ok(if s.is_empty() { "-".into() } else { s })
}

/// The move string of `moves` followed by the 0-based `col`, as vier writes it (`-` is the
/// empty board's).
pub fn child_moves(moves: &str, col: usize, width: usize) -> String {
    let mut s = if moves == "-" {
        String::new()
    } else {
        moves.to_string()
    };
    s.push(crate::notation::column_char(col, width));
    s
}

/// What a value means for the side to move, in words.
pub fn describe(goal: Goal, value: i32, size: Size, discs: u32) -> String {
    let (mover, other) = if discs.is_multiple_of(2) {
        ("first", "second")
    } else {
        ("second", "first")
    };
    match (goal, value.signum()) {
        (_, 0) => "a draw".into(),
        (Goal::Weak, 1) => format!("the {mover} player (to move) wins"),
        (Goal::Weak, _) => format!("the {other} player wins"),
        (Goal::Exact, s) => {
            let cells = size.cells() as i32;
            let disc = score::winner_disc(cells, discs as i32, value);
            let who = if s > 0 { mover } else { other };
            format!(
                "the {who} player wins with its {} disc",
                crate::notation::ordinal(disc as u32)
            )
        }
    }
}
