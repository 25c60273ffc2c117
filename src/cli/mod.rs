//! The subcommands people run: each reads and writes through the streams it is given, so the
//! tests drive them without a terminal.

pub mod book;
pub mod play;
pub mod prove;
pub mod solve;

use crate::board::{AnyPosition, BoardError, Size};
use crate::engine::settings::{table_fits, SOLVE_HASH};
use std::io;
use std::process::ExitCode;

/// `vier perft`'s arguments.
#[derive(clap::Args)]
pub struct PerftArgs {
    depth: u32,
    /// Move string of the start position.
    #[arg(long, default_value = "")]
    moves: String,
    #[arg(long, default_value = "7x6")]
    size: Size,
}

/// `vier perft`: the count on stdout; exit status 2 for a bad start position.
pub fn perft_command(args: PerftArgs) -> io::Result<ExitCode> {
    Ok(match perft(args.size, &args.moves, args.depth) {
        Ok(n) => {
            println!("{n}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    })
}

/// Perft from a move string on a board of the given size.
pub fn perft(size: Size, moves: &str, depth: u32) -> Result<u64, BoardError> {
    let p = AnyPosition::from_moves(size, moves)?;
    Ok(p.perft_until(depth, &|| false).0)
}

/// A `--hash` size: a number of megabytes the machine has.
pub fn table_mb(s: &str) -> Result<usize, String> {
    let mb: i128 = s
        .parse()
        .map_err(|_| format!("'{s}' is not a number of megabytes"))?;
    let mb = SOLVE_HASH.check_as("a table's megabytes", mb)? as usize;
    table_fits(mb)?;
    Ok(mb)
}
