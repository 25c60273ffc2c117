//! The opening book: the exact score of every position up to a given number of discs, made by
//! vier itself (`vier book build`, `crate::book_build`, with the `book-build` feature) and
//! looked up by the solver and the searcher. This module is below the solver: files and
//! lookups only.
//!
//! [`lookup`] is the book in memory and its probes ([`Book`]), [`format`](mod@format) its file
//! (documented byte by byte), [`keys`] the keys it is looked up by and the positions they name,
//! [`shard`] a shard file of a build in pieces (its bytes are drawn there), [`error`] why either
//! could not be read, [`journal`] the file that keeps a build resumable, [`openings`] picks
//! balanced openings from a book, and [`open`] is the one place that chooses the book a command
//! uses: the built-in one, a file, or none, and [`regular`] opens only regular files (no FIFO,
//! device or directory).

pub mod error;
mod format;
pub mod journal;
mod keys;
mod lookup;
pub mod openings;
pub mod regular;
pub mod shard;

pub use error::{BookError, FileKind};
pub use format::{checksum, image_checksum, Entry, Packing};
pub use keys::{key_as, key_bytes, key_discs, orient, position_from_key, BookKey};
pub use lookup::Book;

use std::fmt;
use std::sync::Arc;

/// Where the engine takes its book from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookSource {
    /// The book built into the binary.
    BuiltIn,
    /// A book file.
    File(std::path::PathBuf),
    /// No book: every position is searched.
    Off,
}

impl BookSource {
    /// The built-in book unless `path` names a file (empty, or the UCI text `<empty>`: built in).
    pub fn from_path(path: &str) -> BookSource {
        match path {
            "" | "<empty>" => BookSource::BuiltIn,
            p => BookSource::File(p.into()),
        }
    }
}

impl fmt::Display for BookSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookSource::BuiltIn => f.write_str("(embedded)"),
            BookSource::File(p) => write!(f, "{}", p.display()),
            BookSource::Off => f.write_str("(none)"),
        }
    }
}

/// The one place that opens the book a command asked for: the protocol (`OwnBook`, `BookFile`),
/// `vier solve` and `vier play` all come here.
pub fn open(source: &BookSource) -> Result<Option<Arc<Book>>, BookError> {
    match source {
        BookSource::Off => Ok(None),
        BookSource::BuiltIn => match Book::embedded() {
            Some(b) => Ok(Some(b)),
            None => Err(Book::embedded_result()
                .err()
                .unwrap_or_else(|| BookError::Io {
                    file: FileKind::Book,
                    why: "the built-in book does not parse".into(),
                })),
        },
        BookSource::File(path) => Book::load(path).map(|b| Some(Arc::new(b))),
    }
}
