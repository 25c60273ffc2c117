//! `vier solve`: exact scores for positions read one per line.

use crate::bits::Bitboard;
use crate::board::{Position, Size, SizedJob};
use crate::book::Book;
use crate::book::BookSource;
use crate::score;
use crate::solver::Solver;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// `vier solve`'s arguments.
#[derive(clap::Args)]
pub struct SolveArgs {
    /// Win (1), draw (0) or loss (-1) instead of the exact score.
    #[arg(long)]
    weak: bool,
    /// The score of every column (`-` for a full column) instead of the position's.
    #[arg(long)]
    all: bool,
    /// Board size, WxH.
    #[arg(long, default_value = "7x6")]
    size: Size,
    /// Size in MB of the table for positions near the root (the cache-sized table for
    /// the rest is fixed); the empty 7x6 board wants 1024 or more. A small table suits
    /// positions that take milliseconds: each starts with a cold table, and a small one
    /// stays in the cache.
    #[arg(long, default_value_t = 1, value_parser = super::table_mb)]
    hash: usize,
    /// Threads that search each position together (sharing the table).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: u16,
    /// Opening book file to use instead of the one built in.
    #[arg(long, conflicts_with = "no_book")]
    book: Option<PathBuf>,
    /// Search every position, even those the book holds.
    #[arg(long)]
    no_book: bool,
}

/// `vier solve`: positions from stdin, results to stdout, the summary to stderr. Exit status 1
/// when a score differs from the one expected, 2 for a book that cannot be used.
pub fn command(args: SolveArgs) -> io::Result<ExitCode> {
    let source = match (args.no_book, args.book) {
        (true, _) => BookSource::Off,
        (false, None) => BookSource::BuiltIn,
        (false, Some(path)) => BookSource::File(path),
    };
    let book = match crate::book::open(&source) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {source}: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let size = args.size;
    // a file asked for must be of the positions' size (the built-in 7x6 book is simply not
    // consulted on another board)
    if let (BookSource::File(_), Some(b)) = (&source, &book) {
        if (b.width(), b.height()) != (size.width(), size.height()) {
            eprintln!(
                "error: {source}: a {}x{} book, and the positions are {size} (--size)",
                b.width(),
                b.height()
            );
            return Ok(ExitCode::from(2));
        }
    }
    let opts = SolveOptions {
        weak: args.weak,
        all: args.all,
        size,
        hash_mb: args.hash,
        threads: args.threads as usize,
        book,
    };
    let stdin = io::stdin().lock();
    let mut out = io::BufWriter::new(io::stdout().lock());
    let sum = run(&opts, stdin, &mut out)?;
    let _ = out.flush();
    eprintln!("{}", sum.report());
    Ok(if sum.mismatches > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

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
    struct Run<'a, R, O>(&'a SolveOptions, R, &'a mut O);
    impl<R: BufRead, O: Write> SizedJob for Run<'_, R, O> {
        type Output = io::Result<SolveSummary>;
        fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
            run_sized::<W, H, B>(self.0, self.1, self.2)
        }
    }
    opts.size.run(Run(opts, input, out))
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
