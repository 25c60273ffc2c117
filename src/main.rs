//! The `vier` command: the line protocol by default, subcommands for people.

use clap::{Parser, Subcommand};
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use vier::board::Size;
use vier::cli;

#[derive(Parser)]
#[command(
    name = "vier",
    version,
    about = "A Connect Four engine. Without a subcommand it speaks the UCI-style protocol of protocol.md on stdin/stdout."
)]
struct Args {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Exact scores for positions read from stdin, one move string per line (optionally followed
    /// by an expected score); prints `<moves> <score> <nodes> <microseconds>` per line. A
    /// position that takes over a second shows its progress on stderr.
    Solve {
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
        #[arg(long, default_value_t = 1, value_parser = cli::table_mb)]
        hash: usize,
        /// Threads that search each position together (sharing the table).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
        threads: u16,
        /// Opening book file to use instead of the one built in.
        #[arg(long, conflicts_with = "no_book")]
        book: Option<std::path::PathBuf>,
        /// Search every position, even those the book holds.
        #[arg(long)]
        no_book: bool,
        /// The most milliseconds one position may take; one not proven by then is printed as
        /// `-` with `UNPROVEN`, and the exit status is 3.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        budget_ms: Option<u64>,
    },
    /// Solves and searches a fixed list of positions; the last line `<N> nodes <M> nps` is the
    /// node-count signature of the whole engine.
    Bench,
    /// Build, check or inspect an opening book (exact scores of every early position).
    Book {
        #[command(subcommand)]
        cmd: cli::book::BookCmd,
    },
    /// Counts move sequences of a given length from a position (rules check).
    Perft {
        depth: u32,
        /// Move string of the start position.
        #[arg(long, default_value = "")]
        moves: String,
        #[arg(long, default_value = "7x6")]
        size: Size,
    },
    /// Play Connect Four against the engine in the terminal (type a column number and Enter).
    Play {
        /// Who moves first in the first game: me or engine (each new game swaps).
        #[arg(long, default_value = "me")]
        first: cli::play::First,
        /// The engine's time per move in milliseconds (also the time a hint may take), 1 to
        /// 3600000 like the game's `t` command.
        #[arg(long, default_value_t = 1000,
              value_parser = clap::value_parser!(u64).range(1..=cli::play::MAX_MOVETIME_MS))]
        movetime: u64,
        /// Board size, WxH.
        #[arg(long, default_value = "7x6")]
        size: Size,
        /// Move string (1-based columns) of the position the games start from.
        #[arg(long, default_value = "")]
        position: String,
        /// Play (and give hints) without the opening book built into the binary.
        #[arg(long)]
        no_book: bool,
        /// vier's strength: 1 (a beginner) to 9 (full strength, the default); `l N` changes it.
        #[arg(long, default_value_t = vier::levels::FULL_SKILL,
              value_parser = clap::value_parser!(u64).range(1..=vier::levels::FULL_SKILL))]
        level: u64,
    },
    /// Play and analyse in the browser: serves a local page and prints its address.
    Gui {
        /// Port to listen on (0: any free port).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Address to listen on; anything but 127.0.0.1 lets other machines in.
        #[arg(long, default_value = "127.0.0.1")]
        host: std::net::IpAddr,
        /// Engine command (program and arguments, split at spaces); default: this vier.
        #[arg(long)]
        engine: Option<String>,
        /// Do not open the browser.
        #[arg(long)]
        no_open: bool,
    },
    /// Serve `GET /solve?pos=4453` (every column's exact score as JSON, in the shape of Pascal
    /// Pons' web solver) over HTTP.
    Serve {
        /// Port to listen on (0: any free port).
        #[arg(long, default_value_t = 8000)]
        port: u16,
        /// Address to listen on; anything but 127.0.0.1 lets other machines in.
        #[arg(long, default_value = "127.0.0.1")]
        host: std::net::IpAddr,
        /// Positions solved at once (default: the machine's cores); `--queue` more wait, the
        /// rest are answered 503.
        #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
        jobs: Option<u16>,
        /// Requests that may wait for a solver, first come first served; more are answered 503
        /// with Retry-After (a waiting request costs a connection, not a core).
        #[arg(long, default_value_t = vier::serve::DEFAULT_QUEUE as u16,
              value_parser = clap::value_parser!(u16).range(0..=vier::serve::MAX_QUEUE as i64))]
        queue: u16,
        /// Lets pages of this origin (`https://example.org`; repeatable; `*` any) call /solve
        /// and read its answers (CORS); without it, pages of other sites are refused.
        #[arg(long, value_name = "ORIGIN")]
        cors: Vec<String>,
        /// Milliseconds a request may take to prove its position (the default and the most a
        /// request's `budget_ms` may ask).
        #[arg(long, default_value_t = vier::serve::DEFAULT_BUDGET_MS,
              value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
        budget_ms: u64,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        None => {
            // a person at a terminal learns what this is (issue 60); a GUI's pipe gets nothing
            if io::stdin().is_terminal() {
                println!("{}", vier::protocol::help::banner());
            }
            Ok(ExitCode::from(vier::protocol::run(
                io::stdin(),
                io::stdout(),
            )))
        }
        Some(Cmd::Solve {
            weak,
            all,
            size,
            hash,
            threads,
            book,
            no_book,
            budget_ms,
        }) => {
            let source = match (no_book, book) {
                (true, _) => vier::book::BookSource::Off,
                (false, None) => vier::book::BookSource::BuiltIn,
                (false, Some(path)) => vier::book::BookSource::File(path),
            };
            let book = match vier::book::open(&source) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("error: {source}: {e}");
                    return ExitCode::from(2);
                }
            };
            // a file asked for must be of the positions' size (the built-in 7x6 book is
            // simply not consulted on another board)
            if let (vier::book::BookSource::File(_), Some(b)) = (&source, &book) {
                if (b.width(), b.height()) != (size.width(), size.height()) {
                    eprintln!(
                        "error: {source}: a {}x{} book, and the positions are {size} (--size)",
                        b.width(),
                        b.height()
                    );
                    return ExitCode::from(2);
                }
            }
            let opts = cli::solve::SolveOptions {
                weak,
                all,
                size,
                hash_mb: hash,
                threads: threads as usize,
                book,
                budget: budget_ms.map(std::time::Duration::from_millis),
                progress: None,
            }
            .progress_on_stderr();
            let stdin = io::stdin().lock();
            let mut out = io::BufWriter::new(io::stdout().lock());
            cli::solve::run(&opts, stdin, &mut out).map(|sum| {
                let _ = out.flush();
                eprintln!("{}", sum.report());
                if sum.mismatches > 0 {
                    ExitCode::FAILURE
                } else if sum.unproven > 0 {
                    ExitCode::from(3)
                } else {
                    ExitCode::SUCCESS
                }
            })
        }
        Some(Cmd::Bench) => {
            vier::protocol::bench::run(&mut io::stdout().lock()).map(|_| ExitCode::SUCCESS)
        }
        Some(Cmd::Book { cmd }) => cli::book::run(cmd).or_else(|e| {
            if matches!(
                e.kind(),
                io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput | io::ErrorKind::NotFound
            ) {
                eprintln!("error: {e}");
                Ok(ExitCode::from(2))
            } else {
                Err(e)
            }
        }),
        Some(Cmd::Perft { depth, moves, size }) => cli::perft(size, &moves, depth)
            .map(|n| {
                println!("{n}");
                ExitCode::SUCCESS
            })
            .or_else(|e| {
                eprintln!("error: {e}");
                Ok(ExitCode::from(2))
            }),
        Some(Cmd::Play {
            first,
            movetime,
            size,
            position,
            no_book,
            level,
        }) => {
            let opts = cli::play::PlayOptions {
                first,
                movetime_ms: movetime,
                size,
                position,
                book: !no_book,
                // the top level is the full engine
                level: (level < vier::levels::FULL_SKILL).then_some(level),
                // a person meets other moves in every run
                seed: std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64),
                ..Default::default()
            }
            .detect_terminal();
            match cli::play::run(&opts, io::stdin().lock(), io::stdout().lock()) {
                Err(e) if e.kind() == io::ErrorKind::InvalidInput => {
                    eprintln!("error: {e}");
                    Ok(ExitCode::from(2))
                }
                r => r.map(|()| ExitCode::SUCCESS),
            }
        }
        Some(Cmd::Gui {
            port,
            host,
            engine,
            no_open,
        }) => vier::gui::run(&vier::gui::GuiOptions {
            host,
            port,
            engine,
            open: !no_open,
        })
        .map(|()| ExitCode::SUCCESS),
        Some(Cmd::Serve {
            port,
            host,
            jobs,
            queue,
            cors,
            budget_ms,
        }) => {
            let mut limits = vier::serve::SolveLimits {
                budget: std::time::Duration::from_millis(budget_ms),
                queue: queue as usize,
                cors,
                ..Default::default()
            };
            if let Some(j) = jobs {
                limits.jobs = j as usize;
            }
            vier::serve::run(&vier::serve::ServeOptions { host, port, limits })
                .map(|()| ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
