//! The rules as the page needs them: a game is a board size and a list of columns; everything
//! the page shows (cells, status, the winning four, notations) is derived here from
//! [`crate::board`], so that the JavaScript never has to know the rules.

use crate::board::{AnyPosition, Cell, Player, Size};
use serde::Serialize;

/// The state of a finished or running game, as the page reads it (`data-status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Status {
    #[serde(rename = "playing")]
    Playing,
    #[serde(rename = "x-wins")]
    XWins,
    #[serde(rename = "o-wins")]
    OWins,
    #[serde(rename = "draw")]
    Draw,
}

/// What the page draws for one position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct View {
    pub width: usize,
    pub height: usize,
    /// Rows from the bottom, each `W` cells of `"x"`, `"o"` or `""`.
    pub cells: Vec<Vec<&'static str>>,
    pub status: Status,
    /// `"x"` or `"o"`; meaningful while playing.
    pub to_move: &'static str,
    /// 1-based (column, row) of the four that won, empty otherwise.
    pub winning: Vec<(usize, usize)>,
    /// 1-based columns that can take a disc (empty once the game is over).
    pub legal: Vec<usize>,
    pub moves: String,
    pub fen: String,
}

/// The view of the position after `moves` (1-based columns) on `size`, or why they are illegal.
pub fn view(size: Size, moves: &[usize]) -> Result<View, String> {
    let mut p = AnyPosition::empty(size);
    for (i, &c) in moves.iter().enumerate() {
        p = p
            .try_play_column(c, i)
            .map_err(|e| format!("move {} (column {c}): {e}", i + 1))?;
    }
    let disc = |player| if player == Player::First { "x" } else { "o" };
    let cells = (0..p.height())
        .map(|r| {
            (0..p.width())
                .map(|c| match p.cell(c, r) {
                    Cell::Empty => "",
                    Cell::Disc(player) => disc(player),
                })
                .collect()
        })
        .collect();
    let status = match p.winner() {
        Some(Player::First) => Status::XWins,
        Some(Player::Second) => Status::OWins,
        None if p.is_full() => Status::Draw,
        None => Status::Playing,
    };
    Ok(View {
        width: p.width(),
        height: p.height(),
        cells,
        status,
        to_move: disc(p.side_to_move()),
        winning: p
            .four_cells()
            .iter()
            .map(|&(c, r)| (c + 1, r + 1))
            .collect(),
        legal: p.legal_moves().iter().map(|c| c + 1).collect(),
        moves: crate::notation::move_string(moves.iter().map(|&c| c - 1), p.width()),
        fen: p.fen(),
    })
}

/// Reads a position the person pasted: a move string (`4453`, letters on boards past 9 columns,
/// `-` or empty for the empty board), or a board string / cutechess FEN, which must be reachable
/// by some game (the game is kept as moves so that undo and the move string always work).
pub fn parse_position(size: Size, text: &str) -> Result<Vec<usize>, String> {
    let t = text.trim();
    if t.is_empty() || t == "-" {
        return Ok(Vec::new());
    }
    if t.chars().all(|c| c.is_ascii_alphanumeric()) {
        let moves: Vec<usize> = crate::notation::parse_moves(t, size.width())
            .map_err(|e| format!("not a move string for {size}: {e}"))?
            .into_iter()
            .map(|(_, c)| c)
            .collect();
        view(size, &moves)?;
        return Ok(moves);
    }
    let p = AnyPosition::from_board_string(size, t)
        .map_err(|e| format!("not a move string, board string or FEN for {size}: {e}"))?;
    let s = p
        .move_string()
        .ok_or_else(|| "no game reaches this position".to_string())?;
    Ok(crate::notation::parse_moves(&s, size.width())
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(_, c)| c)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vertical_win_is_found_and_reported() {
        let v = view(Size::default(), &[4, 1, 4, 1, 4, 1, 4]).unwrap();
        assert_eq!(v.status, Status::XWins);
        assert_eq!(v.winning, vec![(4, 1), (4, 2), (4, 3), (4, 4)]);
        assert!(v.legal.is_empty());
    }

    #[test]
    fn illegal_moves_are_errors() {
        assert!(view(Size::default(), &[4, 4, 4, 4, 4, 4, 4]).is_err());
        assert!(view(Size::default(), &[8]).is_err());
        assert!(view(Size::default(), &[4, 1, 4, 1, 4, 1, 4, 2]).is_err());
    }

    #[test]
    fn a_fen_is_read_back_as_moves() {
        let v = view(Size::default(), &[4, 4, 5, 3]).unwrap();
        let moves = parse_position(Size::default(), &v.fen).unwrap();
        assert_eq!(view(Size::default(), &moves).unwrap().cells, v.cells);
        assert!(parse_position(Size::default(), "8/7/7/7/7/7 x").is_err());
    }
}
