//! `vier solve`: exact scores for positions read one per line.

use crate::bits::Bitboard;
use crate::board::{Position, Size};
use crate::book::Book;
use crate::score;
use crate::solver::Solver;
use crate::with_size;
use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::time::Instant;

/// How `vier solve` runs.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Win / draw / loss (-1, 0, 1) instead of the exact score.
    pub weak: bool,
    /// The score of every column instead of the position's.
    pub all: bool,
    pub size: Size,
    pub hash_mb: usize,
    /// Threads that search each position together.
    pub threads: usize,
    /// Exact scores of early positions, looked up instead of searched (ignored on another size).
    pub book: Option<Arc<Book>>,
}

/// What a run found, for the summary and the exit status.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveSummary {
    pub positions: u64,
    pub mismatches: u64,
    pub errors: u64,
    pub total_nodes: u64,
    pub total_micros: f64,
    /// The nodes of all positions by discs on the board (a `stats` build only).
    #[cfg(feature = "stats")]
    pub stats: crate::solver::stats::Stats,
}

impl SolveSummary {
    pub fn report(&self) -> String {
        let n = self.positions.max(1) as f64;
        let nps = if self.total_micros > 0.0 {
            self.total_nodes as f64 / self.total_micros * 1e6
        } else {
            0.0
        };
        let report = format!(
            "positions {}, mismatches {}, errors {}, mean time {:.1} us, mean nodes {:.1}, {:.0} nodes/s",
            self.positions,
            self.mismatches,
            self.errors,
            self.total_micros / n,
            self.total_nodes as f64 / n,
            nps
        );
        #[cfg(feature = "stats")]
        let report = format!("{report}\nnodes by discs: {}", self.stats);
        report
    }
}

/// Reads positions from `input`, writes one result line per position to `out`.
pub fn run(
    opts: &SolveOptions,
    input: impl BufRead,
    out: &mut impl Write,
) -> io::Result<SolveSummary> {
    with_size!(opts.size, run_sized::<W, H, B>(opts, input, out))
}

fn run_sized<const W: usize, const H: usize, B: Bitboard>(
    opts: &SolveOptions,
    input: impl BufRead,
    out: &mut impl Write,
) -> io::Result<SolveSummary> {
    let mut solver =
        Solver::try_new(opts.hash_mb).map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e))?;
    solver.set_book(opts.book.clone());
    solver.set_threads(opts.threads);
    let mut sum = SolveSummary::default();
    for (i, line) in input.lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                sum.errors += 1;
                writeln!(out, "error: line {}: not valid UTF-8", i + 1)?;
                continue;
            }
            Err(e) => return Err(e),
        };
        let mut tokens = line.split_whitespace();
        let Some(moves) = tokens.next() else { continue };
        if moves.starts_with('#') {
            continue;
        }
        let expected = match tokens.next().map(str::parse::<i32>) {
            None => None,
            Some(Ok(e)) => Some(e),
            Some(Err(_)) => {
                sum.errors += 1;
                writeln!(out, "error: line {}: bad expected score", i + 1)?;
                continue;
            }
        };
        // `-` is the empty board, which has no digits to write
        let moves_str = if moves == "-" { "" } else { moves };
        let pos = match Position::<W, H, B>::from_moves(moves_str) {
            Ok(p) => p,
            Err(e) => {
                sum.errors += 1;
                writeln!(out, "error: line {}: {e}", i + 1)?;
                continue;
            }
        };
        solver.clear();
        solver.reset_nodes();
        let start = Instant::now();
        let (text, score) = if opts.all {
            let scores = solver.analyse(&pos, opts.weak).unwrap_or_default();
            let best = scores.iter().flatten().max().copied();
            let text = scores
                .iter()
                .map(|s| s.map_or("-".to_string(), |v| v.to_string()))
                .collect::<Vec<_>>()
                .join(" ");
            (text, best)
        } else {
            let s = if opts.weak {
                solver.solve_weak(&pos)
            } else {
                solver.solve(&pos)
            }
            .ok();
            (s.map_or("-".into(), |v| v.to_string()), s)
        };
        let micros = start.elapsed().as_secs_f64() * 1e6;
        sum.positions += 1;
        sum.total_nodes += solver.nodes();
        #[cfg(feature = "stats")]
        sum.stats.add(solver.stats());
        sum.total_micros += micros;
        write!(out, "{moves} {text} {} {:.0}", solver.nodes(), micros)?;
        if let (Some(e), Some(s)) = (expected, score) {
            let e = if opts.weak { score::outcome(e) } else { e };
            if e != s {
                sum.mismatches += 1;
                write!(out, " MISMATCH expected {e}")?;
            }
        }
        writeln!(out)?;
    }
    Ok(sum)
}
