//! The rules as the page needs them: a game is a board size and a list of columns; everything
//! the page shows (cells, status, the winning four, notations) is derived here from
//! [`crate::board`], so that the JavaScript never has to know the rules.

use crate::bits::Bitboard;
use crate::board::{Cell, Player, Position, Size};
use crate::with_size;
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
    with_size!(size, view_sized::<W, H, B>(moves))
}

fn view_sized<const W: usize, const H: usize, B: Bitboard>(
    moves: &[usize],
) -> Result<View, String> {
    let mut p = Position::<W, H, B>::new();
    for (i, &c) in moves.iter().enumerate() {
        p.try_play_column(c, i)
            .map_err(|e| format!("move {} (column {c}): {e}", i + 1))?;
    }
    let mut cells = vec![vec![""; W]; H];
    for (r, row) in cells.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            *cell = match p.cell(c, r) {
                Cell::Empty => "",
                Cell::Disc(Player::First) => "x",
                Cell::Disc(Player::Second) => "o",
            };
        }
    }
    let winning = if p.last_mover_won() {
        four(&p)
    } else {
        Vec::new()
    };
    let status = if p.last_mover_won() {
        // the side to move is the loser
        if p.side_to_move() == Player::First {
            Status::OWins
        } else {
            Status::XWins
        }
    } else if p.is_full() {
        Status::Draw
    } else {
        Status::Playing
    };
    let legal = if status == Status::Playing {
        p.legal_columns().map(|c| c + 1).collect()
    } else {
        Vec::new()
    };
    Ok(View {
        width: W,
        height: H,
        cells,
        status,
        to_move: if p.side_to_move() == Player::First {
            "x"
        } else {
            "o"
        },
        winning,
        legal,
        moves: crate::notation::move_string(moves.iter().map(|&c| c - 1), W),
        fen: p.to_cfour_fen(),
    })
}

/// Every cell of the winner's four (or more) in a row, 1-based (column, row).
fn four<const W: usize, const H: usize, B: Bitboard>(p: &Position<W, H, B>) -> Vec<(usize, usize)> {
    // the winner moved last: its discs are the ones of the side not to move
    let cells = Position::<W, H, B>::four_cells(p.opponent());
    (0..W)
        .flat_map(|c| (0..H).map(move |r| (c, r)))
        .filter(|&(c, r)| !(cells & B::bit(c * (H + 1) + r)).is_zero())
        .map(|(c, r)| (c + 1, r + 1))
        .collect()
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
    with_size!(size, {
        let p = Position::<W, H, B>::from_board_string(t)
            .map_err(|e| format!("not a move string, board string or FEN for {size}: {e}"))?;
        let s = p
            .to_move_string()
            .ok_or_else(|| "no game reaches this position".to_string())?;
        Ok(crate::notation::parse_moves(&s, W)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|(_, c)| c)
            .collect())
    })
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
