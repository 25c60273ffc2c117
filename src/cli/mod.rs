//! The subcommands people run: each reads and writes through the streams it is given, so the
//! tests drive them without a terminal.

pub mod book;
pub mod play;
pub mod solve;

use crate::board::{perft as perft_from, BoardError, Position, Size};
use crate::with_size;

/// Perft from a move string on a board of the given size.
pub fn perft(size: Size, moves: &str, depth: u32) -> Result<u64, BoardError> {
    with_size!(size, {
        let p = Position::<W, H, B>::from_moves(moves)?;
        Ok(perft_from(&p, depth))
    })
}

/// A `--hash` size: a number of megabytes the machine has.
pub fn table_mb(s: &str) -> Result<usize, String> {
    let mb: usize = s
        .parse()
        .map_err(|_| format!("'{s}' is not a number of megabytes"))?;
    if mb == 0 {
        return Err("a table needs at least 1 MB".into());
    }
    crate::tt::check_size(mb).map_err(|e| e.to_string())?;
    Ok(mb)
}
