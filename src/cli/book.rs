//! `vier book`: its arguments and commands, reading a book for them, and describing what it
//! holds. The building and checking are the library's (`crate::book_build`, with the
//! `book-build` feature).

use crate::bits::Bitboard;
use crate::board::{AnyPosition, Position, PositionJob, Size};
use crate::book::{key_discs, Book, BookError};
use crate::notation::display_moves;
use clap::Subcommand;
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

#[derive(Subcommand)]
pub enum BookCmd {
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
        #[arg(long, default_value_t = 16, value_parser = super::table_mb)]
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
        shard: Option<crate::book::shard::ShardSpec>,
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
        #[arg(long, default_value_t = 1024, value_parser = super::table_mb)]
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
        #[arg(long, default_value_t = 1, value_parser = super::table_mb)]
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
        shard: Option<crate::book::shard::ShardSpec>,
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
        #[arg(long, default_value_t = 256, value_parser = super::table_mb)]
        hash: usize,
    },
    /// Writes the positions of a book with at most DEPTH discs as a book of their own: the
    /// small book the page in the browser loads (tools/web.sh: `--depth 9`, from the built-in
    /// book).
    Cut {
        /// The new book holds the positions with at most this many discs.
        #[arg(long)]
        depth: u32,
        /// The book to cut from (default: the one built in).
        #[arg(long)]
        book: Option<std::path::PathBuf>,
        /// The book file to write.
        #[arg(long)]
        out: std::path::PathBuf,
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

/// Runs a `vier book` command.
/// `vier book ...`: exit status 2 for a book, a position or a file that cannot be used.
pub fn command(cmd: BookCmd) -> io::Result<ExitCode> {
    run(cmd).or_else(|e| {
        if matches!(
            e.kind(),
            io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput | io::ErrorKind::NotFound
        ) {
            eprintln!("error: {e}");
            Ok(ExitCode::from(2))
        } else {
            Err(e)
        }
    })
}

pub fn run(cmd: BookCmd) -> io::Result<ExitCode> {
    let mut out = io::stdout().lock();
    match cmd {
        BookCmd::Openings {
            book,
            min_plies,
            max_plies,
            max_score,
        } => {
            let source = book.map_or(
                crate::book::BookSource::BuiltIn,
                crate::book::BookSource::File,
            );
            let book = crate::book::open(&source)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{source}: {e}")))?
                .expect("a book was asked for");
            let opts = crate::book::openings::OpeningsOptions {
                min_plies,
                max_plies,
                max_score,
            };
            let list = crate::book::openings::openings(&book, opts)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
            let mut command = format!(
                "vier book openings --min-plies {min_plies} --max-plies {max_plies} --max-score {max_score}"
            );
            if let crate::book::BookSource::File(path) = &source {
                command += &format!(" --book {}", path.display());
            }
            openings_file(&book, &command, &opts, &list, &mut out).map(|_| ExitCode::SUCCESS)
        }
        BookCmd::Cut {
            depth,
            book,
            out: file,
        } => {
            let source = book.map_or(
                crate::book::BookSource::BuiltIn,
                crate::book::BookSource::File,
            );
            let book = crate::book::open(&source)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{source}: {e}")))?
                .expect("a book was asked for");
            let cut = book.cut(depth);
            cut.save(&file)?;
            info(&cut, None, &mut out)?;
            Ok(ExitCode::SUCCESS)
        }
        BookCmd::Info { file, moves } => {
            let book = load(&file)?;
            info(&book, moves.as_deref(), &mut out).map(|_| ExitCode::SUCCESS)
        }
        cmd @ (BookCmd::Build { .. }
        | BookCmd::Merge { .. }
        | BookCmd::Verify { .. }
        | BookCmd::Select { .. }
        | BookCmd::Positions { .. }) => build_commands(cmd, &mut out),
    }
}

/// The commands that make and check books: the `book-build` feature's code.
#[cfg(feature = "book-build")]
fn build_commands(cmd: BookCmd, out: &mut dyn Write) -> io::Result<ExitCode> {
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
            let opts = crate::book_build::BuildOptions {
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
                None => crate::book_build::build(&opts, &mut io::stderr()).map(|_| ()),
                Some(spec) => {
                    crate::book_build::build_shard(&opts, spec, &mut io::stderr()).map(|_| ())
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
            let opts = crate::book_build::MergeOptions {
                out: file,
                line,
                hash_mb: hash,
                extra: read_list(extra)?,
            };
            crate::book_build::merge(&opts, &shards, &mut io::stderr()).map(|_| ExitCode::SUCCESS)
        }
        BookCmd::Verify {
            file,
            sample,
            seed,
            hash,
        } => {
            let book = load(&file)?;
            let sum = crate::book_build::verify(&book, sample, seed, hash, out)?;
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
        BookCmd::Select {
            nodes,
            candidates,
            threads,
            hash,
            size,
        } => {
            let list = if candidates.as_os_str() == "-" {
                crate::book_build::read_move_lines(io::stdin().lock())?
            } else {
                crate::book_build::read_move_list(&candidates)?
            };
            let opts = crate::book_build::select::SelectOptions {
                size,
                nodes,
                threads,
                hash_mb: hash,
            };
            let started = std::time::Instant::now();
            let sel = crate::book_build::select::select(&opts, &list, &mut io::stderr())?;
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
            let shard = shard.unwrap_or(crate::book::shard::ShardSpec::WHOLE);
            let list = match (book, discs) {
                (Some(file), discs) => {
                    let book = load(&file)?;
                    crate::book_build::select::held_past_depth(&book, discs, shard)?
                }
                (None, Some(discs)) => {
                    if discs as usize >= size.width() * size.height() {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidInput,
                            format!("{discs} discs do not leave a move on {size}"),
                        ));
                    }
                    crate::book_build::select::positions(size, discs, shard)
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
        BookCmd::Openings { .. } | BookCmd::Info { .. } | BookCmd::Cut { .. } => {
            Err(io::Error::other("not a command that builds books"))
        }
    }
}

/// Without the `book-build` feature, the commands that make and check books say how to get them.
#[cfg(not(feature = "book-build"))]
fn build_commands(_: BookCmd, _: &mut dyn Write) -> io::Result<ExitCode> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "this vier was built without book building (offline code, compiled on request): \
         `cargo install --locked --path . --features book-build` installs one with `book build`, \
         `merge`, `select`, `positions` and `verify` (docs/book/README.md)",
    ))
}

/// The move strings of an `--extra` list, none without one.
#[cfg(feature = "book-build")]
fn read_list(path: Option<std::path::PathBuf>) -> io::Result<Vec<String>> {
    path.map_or(Ok(Vec::new()), |p| crate::book_build::read_move_list(&p))
}

/// Reads a book for the commands, turning its error into an `io::Error` that says which file.
pub fn load(path: &Path) -> io::Result<Book> {
    Book::load(path).map_err(|e: BookError| {
        let e = match e {
            BookError::BadMagic { .. } if crate::book::shard::Shard::load(path).is_ok() => {
                "a shard of a book build, not a book: join all the shards with vier book merge"
                    .to_string()
            }
            e => e.to_string(),
        };
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    })
}

/// One line about the book, then the score of every move from `moves` if given.
pub fn info(book: &Book, moves: Option<&str>, out: &mut dyn Write) -> io::Result<()> {
    let mut per_ply = vec![0usize; book.max_moves() as usize + 1];
    for (k, _) in book.entries() {
        if let Some(n) = per_ply.get_mut(key_discs(k, book.width(), book.height()) as usize) {
            *n += 1;
        }
    }
    let counts = |r: &[usize]| {
        r.iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let full = book.depth() as usize + 1;
    write!(
        out,
        "{}x{} book, depth {}, {} positions (by discs: {})",
        book.width(),
        book.height(),
        book.depth(),
        book.len(),
        counts(&per_ply[..full])
    )?;
    if book.max_moves() > book.depth() {
        write!(
            out,
            ", and {} past it up to {} discs ({})",
            per_ply[full..].iter().sum::<usize>(),
            book.max_moves(),
            counts(&per_ply[full..])
        )?;
    }
    writeln!(out)?;
    if let Some(m) = moves {
        let size = Size::new(book.width(), book.height()).expect("checked at load");
        let p = AnyPosition::from_moves(size, m)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
        let (score, columns, best) = p.run(Lookup(book));
        let text = |s: Option<i32>| s.map_or("?".to_string(), |s| s.to_string());
        let cols: Vec<String> = (0..size.width())
            .map(|c| match columns[c] {
                None => "-".to_string(),
                Some(s) => text(s),
            })
            .collect();
        write!(
            out,
            "{} {} columns: {}",
            display_moves(if m == "-" { "" } else { m }),
            text(score),
            cols.join(" ")
        )?;
        if let Some(c) = best {
            write!(out, " best {}", c + 1)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// What a book says of a position: its score, each column's (`None`: the column cannot be
/// played; `Some(None)`: the book does not know), and its best move.
struct Lookup<'a>(&'a Book);

impl PositionJob for Lookup<'_> {
    type Output = (Option<i32>, Vec<Option<Option<i32>>>, Option<usize>);
    fn run<const W: usize, const H: usize, B: Bitboard>(
        self,
        p: Position<W, H, B>,
    ) -> Self::Output {
        let book = self.0;
        let columns = (0..W)
            .map(|c| {
                (p.can_play(c) && !p.is_game_over())
                    .then(|| crate::score::of_move(&p, c, |q| book.get(q).ok_or(())).ok())
            })
            .collect();
        (book.get(&p), columns, book.best_move(&p).map(|(c, _)| c))
    }
}

/// The openings file `tools/referee.py` reads: a header of `#` comments saying how it was made
/// (`command`, the line that makes it again), then `<moves>  # score <+N>` per opening.
pub fn openings_file(
    book: &Book,
    command: &str,
    opts: &crate::book::openings::OpeningsOptions,
    list: &[crate::book::openings::Opening],
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut per_ply = std::collections::BTreeMap::new();
    for o in list {
        *per_ply.entry(o.moves.len()).or_insert(0usize) += 1;
    }
    let per_ply: Vec<String> = per_ply
        .iter()
        .map(|(plies, n)| format!("{n} of {plies} plies"))
        .collect();
    writeln!(
        out,
        "# Balanced openings for tools/referee.py (one move string per line, '#' comments)."
    )?;
    writeln!(out, "# Made with: {command}")?;
    writeln!(
        out,
        "# From the {}x{} book of depth {} (exact scores): every position of {} to {} plies, mirror",
        book.width(),
        book.height(),
        book.depth(),
        opts.min_plies,
        opts.max_plies
    )?;
    writeln!(
        out,
        "# images merged, whose score for the side to move is a draw or a win within {} of the",
        opts.max_score
    )?;
    writeln!(
        out,
        "# end (+1: the winner wins with its last disc, +2 the one before); left out: a win at"
    )?;
    writeln!(
        out,
        "# once, or a single move that does not lose at once (a forced block)."
    )?;
    writeln!(out, "# {} openings: {}.", list.len(), per_ply.join(", "))?;
    for o in list {
        writeln!(out, "{}  # score {:+}", o.moves, o.score)?;
    }
    Ok(())
}
