//! What the protocol does with its position: `position ...` read into an [`AnyPosition`], `d`,
//! `eval` and `query` answered from it. The position is the erased one every front end holds;
//! nothing here is typed by the board size.

use super::parse::{MoveToken, Query, StartPos};
use crate::board::{AnyPosition, BoardError, Player, Size};
use crate::engine::{game_over, Engine};
use crate::notation;

/// `position ...` on a board of `size`: the new position, or why not.
pub fn set_position(
    size: Size,
    start: &StartPos,
    moves: &[MoveToken],
) -> Result<AnyPosition, String> {
    let mut p = match start {
        StartPos::StartPos => AnyPosition::empty(size),
        StartPos::Fen(f) => {
            AnyPosition::from_board_string(size, f).map_err(|e| format!("bad fen '{f}': {e}"))?
        }
    };
    for (i, m) in moves.iter().enumerate() {
        p = play_token(&p, *m)
            .map_err(|e| format!("illegal move {} '{}' in position: {e}", i + 1, token(*m)))?;
    }
    Ok(p)
}

/// `d`: the drawing, then `board`, `fen` and `moves` lines.
pub fn display(p: &AnyPosition) -> Vec<String> {
    let mut out: Vec<String> = p.draw().lines().map(str::to_string).collect();
    out.push(format!("board {}", p.board_string()));
    out.push(format!("fen {}", p.fen()));
    let moves = match p.move_string() {
        Some(m) if m.is_empty() => "-".to_string(),
        Some(m) => m,
        None => "(unreachable)".to_string(),
    };
    out.push(format!("moves {moves}"));
    out
}

/// `eval`: the evaluation's terms, as `info string` lines.
pub fn eval(p: &AnyPosition) -> Vec<String> {
    let evaluation = Engine::evaluation(p);
    let mut out = vec![format!(
        "info string eval side {} (scores from its view)",
        p.side_to_move().symbol()
    )];
    for t in &evaluation.terms {
        out.push(format!(
            "info string eval term {} us {} them {} weight {} cp {}",
            t.name,
            t.us,
            t.them,
            t.weight,
            t.value()
        ));
    }
    out.push(format!("info string eval total cp {}", evaluation.total));
    out
}

/// The answer to a `query`.
pub fn query(p: &AnyPosition, q: Query) -> String {
    match q {
        Query::GameOver => p.is_game_over().to_string(),
        Query::P1Turn => (p.side_to_move() == Player::First).to_string(),
        Query::Result => match (p.winner(), p.is_full()) {
            (Some(Player::First), _) => "p1win".into(),
            (Some(Player::Second), _) => "p2win".into(),
            (None, true) => "draw".into(),
            (None, false) => "none".into(),
        },
    }
}

/// Plays one move token with the board's legality checks, and for a drop, checks its rank.
fn play_token(p: &AnyPosition, m: MoveToken) -> Result<AnyPosition, String> {
    let width = p.width();
    let cols = m.columns(width)?;
    let mut p = *p;
    for &col in &cols {
        p = p.try_play_column(col, 0).map_err(|e| match e {
            BoardError::ColumnOutOfRange { .. } => {
                format!("column {col} is out of range 1..{width}")
            }
            BoardError::MoveAfterGameEnd { .. } => game_over("no move can follow").to_string(),
            BoardError::ColumnFull { .. } => format!("column {col} is full"),
            other => other.to_string(),
        })?;
    }
    if let MoveToken::Drop { rank, .. } = m {
        let col = cols[0];
        let lands = p.column_height(col - 1);
        if rank as usize != lands {
            return Err(format!(
                "a disc dropped in column {col} lands on rank {lands}, not {rank}"
            ));
        }
    }
    Ok(p)
}

/// A move token as it was written.
fn token(m: MoveToken) -> String {
    match m {
        MoveToken::Column(c) => c.to_string(),
        MoveToken::Digits(n) => n.to_string(),
        MoveToken::RunDigit(d) => d.to_string(),
        MoveToken::Drop { file, rank } => notation::drop_text(file as usize - 1, rank as usize),
    }
}
