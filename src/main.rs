//! The `vier` command: the line protocol by default, subcommands for people.

use clap::{Parser, Subcommand};
use std::io::{self, Write};
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
    /// by an expected score); prints `<moves> <score> <nodes> <microseconds>` per line.
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
        #[arg(long, default_value_t = 1, value_parser = table_mb)]
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
    },
    /// Solves and searches a fixed list of positions; the last line `<N> nodes <M> nps` is the
    /// node-count signature of the whole engine.
    Bench,
    /// Build, check or inspect an opening book (exact scores of every early position).
    Book {
        #[command(subcommand)]
        cmd: BookCmd,
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
        /// The engine's time per move in milliseconds (also the time a hint may take).
        #[arg(long, default_value_t = 1000)]
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
}

#[derive(Subcommand)]
enum BookCmd {
    /// Solves every position with exactly DEPTH discs, scores the earlier ones from them and
    /// writes the book; interrupted builds resume from OUT.partial. With --shard K/N, solves
    /// only shard K of N into OUT (a shard file for `vier book merge`).
    Build {
        /// The book holds every position with at most this many discs.
        #[arg(long)]
        depth: u32,
        /// Solver threads (each with its own table).
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Table size per thread, MB. A book's positions take milliseconds each: a table that
        /// stays near the cache solves them faster than a large one.
        #[arg(long, default_value_t = 16, value_parser = table_mb)]
        hash: usize,
        #[arg(long, default_value = "7x6")]
        size: Size,
        /// The book file to write.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Add the main line (best play for both sides, every move from each of its positions
        /// scored) up to positions of this many discs (with shards: at the merge).
        #[arg(long, default_value_t = 0)]
        line: u32,
        /// Solve only shard K of N (0 <= K < N) of the positions with DEPTH discs.
        #[arg(long, value_name = "K/N")]
        shard: Option<vier::book::shard::ShardSpec>,
        /// Also solve and keep the positions listed in FILE (one move string per line, `#`
        /// comments), wherever they lie past DEPTH: chosen positions the full width misses.
        /// With --shard, the shard's part of them (split by key, as the ply).
        #[arg(long, value_name = "FILE")]
        extra: Option<std::path::PathBuf>,
        /// Take the exact scores this book holds instead of solving them again (say the shipped
        /// book, for the shards of a layer built over it).
        #[arg(long, value_name = "FILE")]
        book: Option<std::path::PathBuf>,
    },
    /// Checks that the shard files of a build belong together and are complete, and writes the
    /// book they make: the same bytes as an unsharded build.
    Merge {
        /// The book file to write.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Add the main line up to positions of this many discs, as `build --line` does.
        #[arg(long, default_value_t = 0)]
        line: u32,
        /// Table size for the main line's solves, MB.
        #[arg(long, default_value_t = 1024, value_parser = table_mb)]
        hash: usize,
        /// The list the shards were built with (`build --extra`): every shard must hold its
        /// part of it.
        #[arg(long, value_name = "FILE")]
        extra: Option<std::path::PathBuf>,
        /// The shard files, all N of them, in any order.
        #[arg(required = true)]
        shards: Vec<std::path::PathBuf>,
    },
    /// Chooses positions for `build --extra` (Tromp's way): of the candidates, prints those
    /// whose proof (a move that keeps the value, from an empty table) costs the engine more
    /// than NODES in either orientation (the position or its mirror image); the engine proves
    /// the rest in play within that.
    Select {
        /// The proof budget, in nodes.
        #[arg(long)]
        nodes: u64,
        /// The candidates: a file of move strings, one a line (`#` comments), `-` for stdin
        /// (`vier book positions` lists a whole ply).
        candidates: std::path::PathBuf,
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Table size per thread, MB (cleared for each candidate).
        #[arg(long, default_value_t = 1, value_parser = table_mb)]
        hash: usize,
        #[arg(long, default_value = "7x6")]
        size: Size,
    },
    /// Every position with DISCS discs whose game is not over, each mirror pair once, as move
    /// strings: depth-first from the empty board, centre column first (the order a build
    /// solves them in). Candidates for `vier book select`. With --book, the positions a book
    /// holds past its full width instead: the `--extra` list that builds it again.
    Positions {
        /// The number of discs (with --book: only the book's positions with this many).
        #[arg(long, required_unless_present = "book")]
        discs: Option<u32>,
        #[arg(long, default_value = "7x6")]
        size: Size,
        /// Only the positions in shard K of N (split by key, as `build --shard` splits).
        #[arg(long)]
        shard: Option<vier::book::shard::ShardSpec>,
        /// List what this book holds past its depth, in key order (its size, not --size).
        #[arg(long)]
        book: Option<std::path::PathBuf>,
    },
    /// Balanced openings for matches: the positions of a few plies that the book scores a draw
    /// or a narrow win, written as tools/openings.txt is.
    Openings {
        /// Book file (default: the one built in).
        #[arg(long)]
        book: Option<std::path::PathBuf>,
        #[arg(long, default_value_t = 2)]
        min_plies: u32,
        #[arg(long, default_value_t = 6)]
        max_plies: u32,
        /// Keep draws and wins whose score is at most this (1: a win with the winner's last disc).
        #[arg(long, default_value_t = 1)]
        max_score: i32,
    },
    /// Re-solves a random sample of a book's entries without any book; exit status 1 on a
    /// mismatch.
    Verify {
        file: std::path::PathBuf,
        /// Entries to check (all if the book has fewer).
        #[arg(long, default_value_t = 100)]
        sample: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 256, value_parser = table_mb)]
        hash: usize,
    },
    /// Size and depth of a book; with --moves, the book's score of that position and of every
    /// column.
    Info {
        file: std::path::PathBuf,
        /// Move string (`-` for the empty board).
        #[arg(long)]
        moves: Option<String>,
    },
}

fn book_command(cmd: BookCmd) -> io::Result<ExitCode> {
    let mut out = io::stdout().lock();
    match cmd {
        BookCmd::Build {
            depth,
            threads,
            hash,
            size,
            out: file,
            line,
            shard,
            extra,
            book,
        } => {
            let extra = read_list(extra)?;
            let opts = vier::book::build::BuildOptions {
                size,
                depth,
                threads,
                hash_mb: hash,
                out: file,
                line,
                extra,
                book,
            };
            match shard {
                None => vier::book::build::build(&opts, &mut io::stderr()).map(|_| ()),
                Some(spec) => {
                    vier::book::build::build_shard(&opts, spec, &mut io::stderr()).map(|_| ())
                }
            }
            .map(|()| ExitCode::SUCCESS)
        }
        BookCmd::Merge {
            out: file,
            line,
            hash,
            extra,
            shards,
        } => {
            let opts = vier::book::build::MergeOptions {
                out: file,
                line,
                hash_mb: hash,
                extra: read_list(extra)?,
            };
            vier::book::build::merge(&opts, &shards, &mut io::stderr()).map(|_| ExitCode::SUCCESS)
        }
        BookCmd::Verify {
            file,
            sample,
            seed,
            hash,
        } => {
            let book = cli::book::load(&file)?;
            let sum = vier::book::build::verify(&book, sample, seed, hash, &mut out)?;
            eprintln!(
                "checked {} of {} entries, mismatches {}",
                sum.checked,
                book.len(),
                sum.mismatches
            );
            Ok(if sum.mismatches > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        BookCmd::Openings {
            book,
            min_plies,
            max_plies,
            max_score,
        } => {
            let source = book.map_or(
                vier::book::BookSource::BuiltIn,
                vier::book::BookSource::File,
            );
            let book = vier::book::open(&source)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{source}: {e}")))?
                .expect("a book was asked for");
            let opts = vier::book::openings::OpeningsOptions {
                min_plies,
                max_plies,
                max_score,
            };
            let list = vier::book::openings::openings(&book, opts)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
            let mut command = format!(
                "vier book openings --min-plies {min_plies} --max-plies {max_plies} --max-score {max_score}"
            );
            if let vier::book::BookSource::File(path) = &source {
                command += &format!(" --book {}", path.display());
            }
            cli::book::openings_file(&book, &command, &opts, &list, &mut out)
                .map(|_| ExitCode::SUCCESS)
        }
        BookCmd::Select {
            nodes,
            candidates,
            threads,
            hash,
            size,
        } => {
            let list = if candidates.as_os_str() == "-" {
                vier::book::build::read_move_lines(io::stdin().lock())?
            } else {
                vier::book::build::read_move_list(&candidates)?
            };
            let opts = vier::book::select::SelectOptions {
                size,
                nodes,
                threads,
                hash_mb: hash,
            };
            let started = std::time::Instant::now();
            let sel = vier::book::select::select(&opts, &list, &mut io::stderr())?;
            for m in &sel.kept {
                writeln!(out, "{m}")?;
            }
            eprintln!(
                "kept {} of {} candidates ({:.1}%) that cost more than {} nodes to prove; \
                 probes {} nodes in {:.1} s",
                sel.kept.len(),
                sel.candidates,
                100.0 * sel.kept.len() as f64 / sel.candidates.max(1) as f64,
                nodes,
                sel.nodes,
                started.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
        BookCmd::Positions {
            discs,
            size,
            shard,
            book,
        } => {
            let shard = shard.unwrap_or(vier::book::shard::ShardSpec::WHOLE);
            let list = match (book, discs) {
                (Some(file), discs) => {
                    let book = cli::book::load(&file)?;
                    vier::book::select::held_past_depth(&book, discs, shard)?
                }
                (None, Some(discs)) => {
                    if discs as usize >= size.width() * size.height() {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidInput,
                            format!("{discs} discs do not leave a move on {size}"),
                        ));
                    }
                    vier::book::select::positions(size, discs, shard)
                }
                (None, None) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "--discs or --book: which positions to list",
                    ))
                }
            };
            for m in list {
                writeln!(out, "{m}")?;
            }
            Ok(ExitCode::SUCCESS)
        }
        BookCmd::Info { file, moves } => {
            let book = cli::book::load(&file)?;
            cli::book::info(&book, moves.as_deref(), &mut out).map(|_| ExitCode::SUCCESS)
        }
    }
}

/// The move strings of an `--extra` list, none without one.
fn read_list(path: Option<std::path::PathBuf>) -> io::Result<Vec<String>> {
    path.map_or(Ok(Vec::new()), |p| vier::book::build::read_move_list(&p))
}

/// A `--hash` size: a number of megabytes the machine has.
fn table_mb(s: &str) -> Result<usize, String> {
    let mb: usize = s
        .parse()
        .map_err(|_| format!("'{s}' is not a number of megabytes"))?;
    if mb == 0 {
        return Err("a table needs at least 1 MB".into());
    }
    vier::tt::check_size(mb).map_err(|e| e.to_string())?;
    Ok(mb)
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        None => Ok(ExitCode::from(vier::protocol::run(
            io::stdin(),
            io::stdout(),
        ))),
        Some(Cmd::Solve {
            weak,
            all,
            size,
            hash,
            threads,
            book,
            no_book,
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
            let opts = cli::solve::SolveOptions {
                weak,
                all,
                size,
                hash_mb: hash,
                threads: threads as usize,
                book,
            };
            let stdin = io::stdin().lock();
            let mut out = io::BufWriter::new(io::stdout().lock());
            cli::solve::run(&opts, stdin, &mut out).map(|sum| {
                let _ = out.flush();
                eprintln!("{}", sum.report());
                if sum.mismatches > 0 {
                    ExitCode::FAILURE
                } else {
                    ExitCode::SUCCESS
                }
            })
        }
        Some(Cmd::Bench) => vier::bench::run(&mut io::stdout().lock()).map(|_| ExitCode::SUCCESS),
        Some(Cmd::Book { cmd }) => book_command(cmd).or_else(|e| {
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
