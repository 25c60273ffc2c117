//! `vier book`'s output: reading a book for the commands, and describing what it holds. The
//! building and checking are the library's ([`crate::book::build`]).

use crate::board::{Position, Size};
use crate::book::build::display_moves;
use crate::book::{key_discs, Book, BookError};
use crate::with_size;
use std::io::{self, Write};
use std::path::Path;

/// Reads a book for the commands, turning its error into an `io::Error` that says which file.
pub fn load(path: &Path) -> io::Result<Book> {
    Book::load(path).map_err(|e: BookError| {
        let e = match e {
            BookError::BadMagic if crate::book::shard::Shard::load(path).is_ok() => {
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
        with_size!(size, {
            let m = if m == "-" { "" } else { m };
            let p = Position::<W, H>::from_moves(m)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
            let cols: Vec<String> = (0..W)
                .map(|c| {
                    if !p.can_play(c) || p.is_game_over() {
                        "-".to_string()
                    } else {
                        crate::score::of_move(&p, c, |q| book.get(q).ok_or(()))
                            .map_or("?".into(), |s| s.to_string())
                    }
                })
                .collect();
            write!(
                out,
                "{} {} columns: {}",
                display_moves(m),
                book.get(&p).map_or("?".into(), |s| s.to_string()),
                cols.join(" ")
            )?;
            if let Some((c, _)) = book.best_move(&p) {
                write!(out, " best {}", c + 1)?;
            }
            writeln!(out)?;
        });
    }
    Ok(())
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
