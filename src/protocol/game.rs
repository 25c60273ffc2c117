//! The engine's position, typed by its board size: the one place where the protocol's run-time
//! size (`Width`, `Height`) becomes code typed by `<W, H, B>`.
//!
//! [`new_game`] dispatches once, when the size is set; from then on the loop holds a
//! `Box<dyn Game>` and everything it does with the position (set it, search it, draw it, format
//! a line of moves) runs in code compiled for that size. A search leaves for the searcher
//! thread as a [`SearchTask`] that carries its typed root.

use super::format::{self, InfoStyle, Notation};
use super::parse::{MoveToken, Query, StartPos};
use crate::bits::Bitboard;
use crate::board::{perft_until, BoardError, Player, Position, Size};
use crate::control::SearchControl;
use crate::eval;
use crate::search::{Iteration, Reporter, SearchLimits, SearchResult, Searcher};
use crate::with_size;
use std::sync::Arc;

/// A search of one root, ready to run on a searcher.
pub type SearchTask = Box<dyn FnOnce(&mut Searcher, &mut dyn Reporter) -> SearchResult + Send>;
/// A perft of one root, ready to run on the searcher thread: the count so far and whether it is
/// complete (a `stop` ends it early).
pub type PerftTask = Box<dyn FnOnce() -> (u64, bool) + Send>;

/// What the protocol does with its position, on a board whose size the implementation knows.
pub trait Game: Send {
    fn size(&self) -> Size;
    /// Discs on the board.
    fn moves(&self) -> u32;
    /// `position ...`: the new position, or why not (the position stays as it was).
    fn set_position(&mut self, start: &StartPos, moves: &[MoveToken]) -> Result<(), String>;
    /// A search of the current position.
    fn search(&self, limits: SearchLimits, control: Arc<SearchControl>) -> SearchTask;
    /// The `info` lines of a report on a search of the current position.
    fn info(&self, it: &Iteration, style: InfoStyle) -> Vec<String>;
    /// `bestmove ...` for a 0-based column of the current position.
    fn bestmove(&self, best: Option<usize>, notation: Notation) -> String;
    /// A perft of the current position that ends early once `control` is stopped.
    fn perft(&self, depth: u32, control: Arc<SearchControl>) -> PerftTask;
    /// `d`: the drawing, then `board`, `fen` and `moves` lines.
    fn display(&self) -> Vec<String>;
    /// `eval`: the evaluation's terms, as `info string` lines.
    fn eval(&self) -> Vec<String>;
    /// The answer to a `query`.
    fn query(&self, q: Query) -> String;
    fn clone_box(&self) -> Box<dyn Game>;
    /// The position's key (seeds a strength level's choice, [`crate::levels::move_seed`]).
    fn key(&self) -> u64;
}

/// The start position on a board of `size`.
pub fn new_game(size: Size) -> Box<dyn Game> {
    with_size!(size, Box::new(Typed::<W, H, B>(Position::new())))
}

#[derive(Clone, Copy)]
struct Typed<const W: usize, const H: usize, B: Bitboard>(Position<W, H, B>);

impl<const W: usize, const H: usize, B: Bitboard> Game for Typed<W, H, B> {
    fn size(&self) -> Size {
        Size::new(W, H).expect("a supported size")
    }

    fn moves(&self) -> u32 {
        self.0.moves()
    }

    fn set_position(&mut self, start: &StartPos, moves: &[MoveToken]) -> Result<(), String> {
        let mut p = match start {
            StartPos::StartPos => Position::<W, H, B>::new(),
            StartPos::Fen(f) => Position::<W, H, B>::from_board_string(f)
                .map_err(|e| format!("bad fen '{f}': {e}"))?,
        };
        for (i, m) in moves.iter().enumerate() {
            play_token(&mut p, *m)
                .map_err(|e| format!("illegal move {} '{}' in position: {e}", i + 1, token(*m)))?;
        }
        self.0 = p;
        Ok(())
    }

    fn search(&self, limits: SearchLimits, control: Arc<SearchControl>) -> SearchTask {
        let root = self.0;
        Box::new(move |searcher, reporter| searcher.search(&root, &limits, &control, reporter))
    }

    fn info(&self, it: &Iteration, style: InfoStyle) -> Vec<String> {
        format::info(&self.0, it, style)
    }

    fn bestmove(&self, best: Option<usize>, notation: Notation) -> String {
        format::bestmove(&self.0, best, notation)
    }

    fn perft(&self, depth: u32, control: Arc<SearchControl>) -> PerftTask {
        let root = self.0;
        Box::new(move || perft_until(&root, depth, &|| control.is_stopped()))
    }

    fn display(&self) -> Vec<String> {
        let p = &self.0;
        let mut out: Vec<String> = p.draw().lines().map(str::to_string).collect();
        out.push(format!("board {}", p.to_board_string()));
        out.push(format!("fen {}", p.to_cfour_fen()));
        let moves = match p.to_move_string() {
            Some(m) if m.is_empty() => "-".to_string(),
            Some(m) => m,
            None => "(unreachable)".to_string(),
        };
        out.push(format!("moves {moves}"));
        out
    }

    fn eval(&self) -> Vec<String> {
        let terms = eval::explain(&self.0);
        let mut out = vec![format!(
            "info string eval side {} (scores from its view)",
            self.0.side_to_move().symbol()
        )];
        for t in &terms {
            out.push(format!(
                "info string eval term {} us {} them {} weight {} cp {}",
                t.name,
                t.us,
                t.them,
                t.weight,
                t.value()
            ));
        }
        out.push(format!("info string eval total cp {}", eval::total(&terms)));
        out
    }

    fn query(&self, q: Query) -> String {
        let p = &self.0;
        let side = p.side_to_move();
        match q {
            Query::GameOver => p.is_game_over().to_string(),
            Query::P1Turn => (side == Player::First).to_string(),
            Query::Result => match (p.last_mover_won(), p.is_full(), side) {
                // the winner is the player who moved last
                (true, _, Player::Second) => "p1win".into(),
                (true, _, Player::First) => "p2win".into(),
                (false, true, _) => "draw".into(),
                _ => "none".into(),
            },
        }
    }

    fn clone_box(&self) -> Box<dyn Game> {
        Box::new(*self)
    }

    fn key(&self) -> u64 {
        self.0.key().fold64()
    }
}

/// Plays one move token with the board's legality checks, and for a drop, checks its rank.
/// On an error `p` may hold the move already: callers discard it.
fn play_token<const W: usize, const H: usize, B: Bitboard>(
    p: &mut Position<W, H, B>,
    m: MoveToken,
) -> Result<(), String> {
    let cols = m.columns(W)?;
    for &col in &cols {
        p.try_play_column(col, 0).map_err(|e| match e {
            BoardError::ColumnOutOfRange { .. } => format!("column {col} is out of range 1..{W}"),
            BoardError::MoveAfterGameEnd { .. } => "the game is already over".to_string(),
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
    Ok(())
}

/// A move token as it was written.
fn token(m: MoveToken) -> String {
    match m {
        MoveToken::Column(c) => c.to_string(),
        MoveToken::Digits(n) => n.to_string(),
        MoveToken::RunDigit(d) => d.to_string(),
        MoveToken::Drop { file, rank } => format!("P@{}{rank}", (b'a' + file - 1) as char),
    }
}
