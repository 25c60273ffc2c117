//! Why a book file could not be read: one error for both of vier's book files, the book and a
//! shard of a build, which share their damage (truncation, checksums, entries) and differ only
//! in the name the messages give the file.

use std::fmt;

/// A book file's first bytes ([`super::format`] draws the file).
pub const MAGIC: &[u8; 8] = b"VIERBOOK";
/// The book format this vier writes and reads.
pub const VERSION: u8 = 4;
/// A shard file's first bytes ([`super::shard`] draws the file).
pub const SHARD_MAGIC: &[u8; 8] = b"VIERSHRD";
/// Version 2 added the best moves; version-1 shards are refused (merge them with the vier that
/// made them).
pub const SHARD_VERSION: u8 = 2;

/// Which book file an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A book ([`super::format`]).
    Book,
    /// A shard of a book build ([`super::shard`]).
    Shard,
}

impl FileKind {
    /// What the file is, in a message that it is not.
    fn name(self) -> &'static str {
        match self {
            FileKind::Book => "vier book",
            FileKind::Shard => "vier book shard",
        }
    }

    fn magic(self) -> &'static str {
        let magic = match self {
            FileKind::Book => MAGIC,
            FileKind::Shard => SHARD_MAGIC,
        };
        std::str::from_utf8(magic).expect("the magics are ASCII")
    }

    fn version(self) -> u8 {
        match self {
            FileKind::Book => VERSION,
            FileKind::Shard => SHARD_VERSION,
        }
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Book => "book",
            FileKind::Shard => "shard",
        })
    }
}

/// Why a book or shard file could not be read; `file` says which, for the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BookError {
    Io {
        file: FileKind,
        why: String,
    },
    /// Shorter than its header, or than the header says.
    Truncated {
        file: FileKind,
        expected: usize,
        found: usize,
    },
    /// Longer than the header says.
    TrailingBytes {
        file: FileKind,
        expected: usize,
        found: usize,
    },
    BadMagic {
        file: FileKind,
    },
    UnsupportedVersion {
        file: FileKind,
        version: u8,
    },
    /// The entries (and the header) do not match the checksum in the header.
    Checksum {
        file: FileKind,
        stored: u64,
        computed: u64,
    },
    /// Entry `index` is out of order (keys must be strictly ascending).
    Unsorted {
        file: FileKind,
        index: usize,
    },
    /// Entry `index` has a score no position of this size can have.
    BadScore {
        file: FileKind,
        index: usize,
        score: i32,
    },
    /// Entry `index` has a best move that is no column of the board.
    BadMove {
        file: FileKind,
        index: usize,
        column: u8,
    },
    /// A book of a version before the header was checksummed (1 to 3).
    OldVersion(u8),
    /// The board size in a book's header is not one vier plays.
    BadSize {
        width: u8,
        height: u8,
    },
    /// A book's bucket count is more than the format allows for the board.
    BadBucketBits(u8),
    /// A book's bucket table starts past 0, goes back, or past the entry count at `bucket`.
    BadBuckets {
        bucket: usize,
    },
    /// A shard header's size, depth or shard numbers are impossible.
    BadShardHeader(String),
    /// A book's header claims every position up to `depth` discs, and the file cannot hold them
    /// (`found` says why: the board's cells, the entry count or the deepest entry).
    BadDepth {
        depth: u32,
        found: String,
    },
}

impl BookError {
    /// An error reading `file` from the disk.
    pub fn io(file: FileKind, e: std::io::Error) -> BookError {
        BookError::Io {
            file,
            why: e.to_string(),
        }
    }

    /// The error with the length of the open file `f` where it says how long the file is: a
    /// load reads one byte past what the header says, not the whole file.
    pub(super) fn with_file_len(self, f: &std::fs::File) -> BookError {
        match self {
            BookError::TrailingBytes {
                file,
                expected,
                found,
            } => BookError::TrailingBytes {
                file,
                expected,
                found: f
                    .metadata()
                    .ok()
                    .filter(|m| m.is_file())
                    .map_or(found, |m| m.len() as usize),
            },
            e => e,
        }
    }
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io { file, why } => write!(f, "cannot read the {file}: {why}"),
            BookError::Truncated {
                file,
                expected,
                found,
            } => write!(
                f,
                "the {file} is truncated: {found} bytes, its header needs {expected}"
            ),
            BookError::TrailingBytes {
                file,
                expected,
                found,
            } => write!(
                f,
                "the {file} has {found} bytes, its header says {expected}: trailing garbage"
            ),
            BookError::BadMagic { file } => write!(
                f,
                "not a {} (the file does not start with {})",
                file.name(),
                file.magic()
            ),
            BookError::UnsupportedVersion { file, version } => write!(
                f,
                "{file} format version {version} is not supported (this vier reads version {})",
                file.version()
            ),
            BookError::Checksum {
                file,
                stored,
                computed,
            } => write!(
                f,
                "the {file} is corrupt: checksum {computed:016x}, the header says {stored:016x}"
            ),
            BookError::Unsorted { file, index } => {
                write!(f, "the {file} is corrupt: entry {index} is out of order")
            }
            BookError::BadScore { file, index, score } => write!(
                f,
                "the {file} is corrupt: entry {index} has the impossible score {score}"
            ),
            BookError::BadMove {
                file,
                index,
                column,
            } => write!(
                f,
                "the {file} is corrupt: entry {index} has the impossible best move {column}"
            ),
            BookError::OldVersion(v) => write!(
                f,
                "book format version {v} is no longer read: its checksum does not cover its \
                 header (size, depth, count), version {VERSION}'s does; rebuild the book, or \
                 convert a version-3 book with tools/book_upgrade.py"
            ),
            BookError::BadSize { width, height } => write!(
                f,
                "the book is for a {width}x{height} board, which vier does not play"
            ),
            BookError::BadBucketBits(bits) => {
                write!(f, "the book is corrupt: {bits} bucket bits are too many")
            }
            BookError::BadBuckets { bucket } => write!(
                f,
                "the book is corrupt: its bucket table is out of order at bucket {bucket}"
            ),
            BookError::BadShardHeader(why) => {
                write!(f, "the shard's header is impossible: {why}")
            }
            BookError::BadDepth { depth, found } => write!(
                f,
                "the book is corrupt: its header says it holds every position of up to {depth} \
                 discs, but {found}"
            ),
        }
    }
}

impl std::error::Error for BookError {}
