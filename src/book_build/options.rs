//! What a build is asked to do, checked before anything is solved or written: its
//! [`BuildOptions`], the move lists it reads (`--extra`, `vier book select`'s candidates), the
//! book it is given (`--book`) and whether its threads' tables fit the machine.

use crate::bits::Bitboard;
use crate::board::{Position, Size};
use crate::book::Book;
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub size: Size,
    pub depth: u32,
    pub threads: usize,
    /// Table size per thread, MB.
    pub hash_mb: usize,
    pub out: PathBuf,
    /// Extend the book with the main line up to positions of this many discs (every move from
    /// each line position is scored); at most `depth` for none.
    pub line: u32,
    /// Positions (move strings) to solve and keep besides the full width: the book need not
    /// hold every position of a ply to be worth more past its depth.
    pub extra: Vec<String>,
    /// A book whose exact scores are taken as they are (say the shipped one, under a layer
    /// built over it): the positions it holds are not solved again. Shards read no book at
    /// their `out`, so this is how a shard of a deep layer skips what is already known.
    pub book: Option<PathBuf>,
}

/// The move strings of a list file (`--extra`): one a line, `#` starting a comment, blank lines
/// skipped; whether they are positions is [`build`](super::build())'s to check.
pub fn read_move_list(path: &Path) -> io::Result<Vec<String>> {
    let file = crate::book::regular::open_regular(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    read_move_lines(io::BufReader::new(file))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// [`read_move_list`] from any reader (standard input, say).
pub fn read_move_lines(input: impl io::BufRead) -> io::Result<Vec<String>> {
    let mut list = Vec::new();
    for line in input.lines() {
        let line = line?;
        let m = line.split('#').next().unwrap_or("").trim();
        if !m.is_empty() {
            list.push(m.to_string());
        }
    }
    Ok(list)
}

/// The keys of `opts.extra` past the full-width depth, each once; an error names a move string
/// that is not a position, or one whose game is over.
pub(super) fn extra_keys<const W: usize, const H: usize, B: Bitboard>(
    opts: &BuildOptions,
) -> io::Result<Vec<B>> {
    let mut keys = Vec::new();
    let mut seen = HashSet::new();
    for m in &opts.extra {
        let p = listed_position::<W, H, B>(m, "extra position")?;
        let k = p.symmetric_key().0;
        if p.moves() > opts.depth && seen.insert(k) {
            keys.push(k);
        }
    }
    Ok(keys)
}

/// The position of move string `m` from a list (`what` names the list's items in the error):
/// one that is not a position, or whose game is over, is refused.
pub(crate) fn listed_position<const W: usize, const H: usize, B: Bitboard>(
    m: &str,
    what: &str,
) -> io::Result<Position<W, H, B>> {
    let refuse =
        |why: String| io::Error::new(io::ErrorKind::InvalidInput, format!("{what} {m}: {why}"));
    let p = Position::<W, H, B>::from_moves(m).map_err(|e| refuse(e.to_string()))?;
    if p.is_game_over() {
        return Err(refuse("the game is over".into()));
    }
    Ok(p)
}

/// Every thread has its own table of `hash_mb`: together they must fit the machine.
pub(crate) fn thread_tables_fit(hash_mb: usize, threads: usize) -> io::Result<()> {
    crate::tt::check_size(hash_mb.saturating_mul(threads.max(1))).map_err(|e| {
        io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!("{e} (--hash per thread)"),
        )
    })
}

/// The book given with `opts.book`, loaded before anything is written. Unlike the one at
/// `out` it was asked for, so a file that does not load or is of another size is an error.
pub(super) fn given_book<const W: usize, const H: usize>(
    opts: &BuildOptions,
) -> io::Result<Option<Book>> {
    let Some(path) = &opts.book else {
        return Ok(None);
    };
    let book = Book::load(path).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("--book {}: {e}", path.display()),
        )
    })?;
    if (book.width(), book.height()) != (W, H) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "--book {} is a {}x{} book, the build is {W}x{H}",
                path.display(),
                book.width(),
                book.height(),
            ),
        ));
    }
    Ok(Some(book))
}
