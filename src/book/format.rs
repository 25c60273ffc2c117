//! The book file and the book in memory: the exact score of every position up to a given
//! number of discs, keyed by the mirror-symmetric key, looked up by binary search.
//!
//! A book maps a position's mirror-symmetric key ([`Position::symmetric_key`]) to its exact score
//! (see [`crate::solver`]) and its best move: the column nearest the centre among those that keep
//! the score. The move is what saves the time at the book's edge: a position whose children are
//! not in the book is played from its entry alone, where finding a move that keeps its value
//! would take a search (proving a 7-disc position's only drawing move can take a second). It
//! holds every position with at most `depth` discs whose game is not over, once per mirror pair,
//! so a lookup at `depth` or fewer discs never misses. Past `depth` it may hold more: a main line
//! (the positions of best play for both sides, ties to the column nearest the centre as the
//! engine breaks them, with every move from each), so that the expected game is known exactly
//! beyond the full-width part, and the positions a deeper build has solved so far (any exact
//! score is worth keeping; a later build reuses them).
//!
//! File format (all integers little-endian):
//!
//! ```text
//! offset  size  field
//!      0     8  magic "VIERBOOK"
//!      8     1  format version (2; version 1, without the moves, is still read)
//!      9     1  board width W
//!     10     1  board height H
//!     11     1  depth: the book holds every position with at most this many discs
//!     12     4  entry count N
//!     16     8  FNV-1a 64 checksum of the N entries' bytes
//!     24   N*E  entries sorted by key, ascending; E = K + 2 bytes:
//!                 K = ceil(W*(H+1)/8) bytes of key (7 on 7x6),
//!                 the score as an i8,
//!                 the best move as a u8: its 1-based column in the orientation of the key
//!                 (the mirror image's column when the position was stored as its mirror)
//! ```
//!
//! A version-1 file has E = K + 1 (no move byte); its entries read with no best move.
//! The sorted table is searched by binary search: no index, no hashing, and the file is its own
//! in-memory image. On 7x6 an entry is 9 bytes. A build in shards writes shard files first,
//! with their own header and the same entries: their bytes are drawn in [`super::shard`].

use crate::board::Position;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

pub const MAGIC: &[u8; 8] = b"VIERBOOK";
pub const VERSION: u8 = 2;
/// The first version, without the best moves: still read (a build reuses its scores).
const VERSION_SCORES_ONLY: u8 = 1;
const HEADER: usize = 24;

/// The book that ships inside the binary (7x6), built with `vier book build`.
static EMBEDDED_BYTES: &[u8] = include_bytes!("../../book/7x6.book");

/// Why a book could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BookError {
    Io(String),
    /// Shorter than its header, or than the header says.
    Truncated {
        expected: usize,
        found: usize,
    },
    /// Longer than the header says.
    TrailingBytes {
        expected: usize,
        found: usize,
    },
    BadMagic,
    UnsupportedVersion(u8),
    /// The board size in the header is not one vier plays.
    BadSize {
        width: u8,
        height: u8,
    },
    /// The entries do not match the checksum in the header.
    Checksum {
        stored: u64,
        computed: u64,
    },
    /// Entry `index` is out of order (keys must be strictly ascending).
    Unsorted {
        index: usize,
    },
    /// Entry `index` has a score no position of this size can have.
    BadScore {
        index: usize,
        score: i32,
    },
    /// Entry `index` has a best move that is no column of the board.
    BadMove {
        index: usize,
        column: u8,
    },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io(e) => write!(f, "cannot read the book: {e}"),
            BookError::Truncated { expected, found } => write!(
                f,
                "the book is truncated: {found} bytes, its header needs {expected}"
            ),
            BookError::TrailingBytes { expected, found } => write!(
                f,
                "the book has {found} bytes, its header says {expected}: trailing garbage"
            ),
            BookError::BadMagic => {
                write!(f, "not a vier book (the file does not start with VIERBOOK)")
            }
            BookError::UnsupportedVersion(v) => {
                write!(
                    f,
                    "book format version {v} is not supported (this vier reads {VERSION_SCORES_ONLY} and {VERSION})"
                )
            }
            BookError::BadSize { width, height } => {
                write!(
                    f,
                    "the book is for a {width}x{height} board, which vier does not play"
                )
            }
            BookError::Checksum { stored, computed } => write!(
                f,
                "the book is corrupt: checksum {computed:016x}, the header says {stored:016x}"
            ),
            BookError::Unsorted { index } => {
                write!(f, "the book is corrupt: entry {index} is out of order")
            }
            BookError::BadScore { index, score } => {
                write!(
                    f,
                    "the book is corrupt: entry {index} has the impossible score {score}"
                )
            }
            BookError::BadMove { index, column } => {
                write!(
                    f,
                    "the book is corrupt: entry {index} has the impossible best move {column}"
                )
            }
        }
    }
}

impl std::error::Error for BookError {}

/// FNV-1a, 64 bits: enough to catch corruption, not meant against forgery.
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Bytes of a key on a board of this size.
pub fn key_bytes(width: usize, height: usize) -> usize {
    (width * (height + 1)).div_ceil(8)
}

/// What a book or shard entry holds besides its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The exact score, the side to move's view.
    pub score: i8,
    /// The best move: the column nearest the centre among those that keep `score`, 1-based, in
    /// the orientation of the stored (symmetric) key; 0 where the book does not say (a
    /// version-1 file, or a build that has not found it yet).
    pub best: u8,
}

impl Entry {
    pub fn new(score: i32, best_col: Option<usize>) -> Entry {
        Entry {
            score: score as i8,
            best: best_col.map_or(0, |c| c as u8 + 1),
        }
    }

    /// The best move's 0-based column in the stored key's orientation, if the entry has one.
    pub fn best_col(&self) -> Option<usize> {
        (self.best > 0).then(|| self.best as usize - 1)
    }
}

/// Column `c` of a position, in the orientation of its symmetric key (or back: the mapping is
/// its own inverse), given whether that key is the mirror image's.
pub fn orient(c: usize, width: usize, mirrored: bool) -> usize {
    if mirrored {
        width - 1 - c
    } else {
        c
    }
}

/// The entry table of a book or shard file: for each entry its key's low [`key_bytes`] bytes,
/// its score as an i8 and its best move as a u8 (keys sorted ascending by the caller).
pub(crate) fn encode_entries(
    width: usize,
    height: usize,
    keys: &[u64],
    values: &[Entry],
) -> Vec<u8> {
    let kb = key_bytes(width, height);
    let mut body = Vec::with_capacity(keys.len() * (kb + 2));
    for (k, e) in keys.iter().zip(values) {
        body.extend_from_slice(&k.to_le_bytes()[..kb]);
        body.push(e.score as u8);
        body.push(e.best);
    }
    body
}

/// Bytes of an entry: the key, the score and (from version 2) the best move.
pub(crate) fn entry_bytes(width: usize, height: usize, with_moves: bool) -> usize {
    key_bytes(width, height) + 1 + with_moves as usize
}

/// Reads an entry table (its length a whole number of entries, checked by the caller), checking
/// that keys ascend strictly, every score is possible on the board and every best move is a
/// column (`with_moves`: the table has the move byte of version 2, which must name a column).
pub(crate) fn decode_entries(
    body: &[u8],
    width: usize,
    height: usize,
    with_moves: bool,
) -> Result<(Vec<u64>, Vec<Entry>), BookError> {
    let kb = key_bytes(width, height);
    let max = (width * height).div_ceil(2) as i32;
    let size = entry_bytes(width, height, with_moves);
    let count = body.len() / size;
    let mut keys = Vec::with_capacity(count);
    let mut values = Vec::with_capacity(count);
    for (index, e) in body.chunks_exact(size).enumerate() {
        let mut k = [0u8; 8];
        k[..kb].copy_from_slice(&e[..kb]);
        let key = u64::from_le_bytes(k);
        let score = e[kb] as i8;
        if keys.last().is_some_and(|&last| last >= key) {
            return Err(BookError::Unsorted { index });
        }
        if (score as i32).abs() > max {
            return Err(BookError::BadScore {
                index,
                score: score as i32,
            });
        }
        let best = if with_moves { e[kb + 1] } else { 0 };
        if with_moves && (best == 0 || best as usize > width) {
            return Err(BookError::BadMove {
                index,
                column: best,
            });
        }
        keys.push(key);
        values.push(Entry { score, best });
    }
    Ok((keys, values))
}

/// An opening book in memory: sorted keys with their entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    width: usize,
    height: usize,
    depth: u32,
    /// Discs of the deepest entry (past `depth`: a main line, a deeper build's results).
    max_moves: u32,
    keys: Vec<u64>,
    values: Vec<Entry>,
}

/// Discs on the board of a position key (see [`position_from_key`]).
pub fn key_discs(key: u64, width: usize, height: usize) -> u32 {
    let h1 = height + 1;
    let column = (1u64 << h1) - 1;
    (0..width)
        .map(|c| 63 - (((key >> (c * h1)) & column) + 1).leading_zeros())
        .sum()
}

impl Book {
    /// A book from `(symmetric key, entry)` pairs in any order (duplicates keep the first).
    pub fn from_entries(
        width: usize,
        height: usize,
        depth: u32,
        mut entries: Vec<(u64, Entry)>,
    ) -> Book {
        entries.sort_unstable_by_key(|e| e.0);
        entries.dedup_by_key(|e| e.0);
        let max_moves = entries
            .iter()
            .map(|e| key_discs(e.0, width, height))
            .fold(depth, u32::max);
        Book {
            width,
            height,
            depth,
            max_moves,
            keys: entries.iter().map(|e| e.0).collect(),
            values: entries.iter().map(|e| e.1).collect(),
        }
    }

    /// Parses and checks a book file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        if bytes.len() < HEADER {
            if bytes.len() < 8 || &bytes[..8] == MAGIC {
                return Err(BookError::Truncated {
                    expected: HEADER,
                    found: bytes.len(),
                });
            }
            return Err(BookError::BadMagic);
        }
        if &bytes[..8] != MAGIC {
            return Err(BookError::BadMagic);
        }
        let version = bytes[8];
        if version != VERSION && version != VERSION_SCORES_ONLY {
            return Err(BookError::UnsupportedVersion(version));
        }
        let with_moves = version == VERSION;
        let (width, height) = (bytes[9], bytes[10]);
        if crate::board::Size::new(width as usize, height as usize).is_err() {
            return Err(BookError::BadSize { width, height });
        }
        let (w, h) = (width as usize, height as usize);
        let depth = bytes[11] as u32;
        let count = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
        let stored = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
        let expected = HEADER + count * entry_bytes(w, h, with_moves);
        if bytes.len() < expected {
            return Err(BookError::Truncated {
                expected,
                found: bytes.len(),
            });
        }
        if bytes.len() > expected {
            return Err(BookError::TrailingBytes {
                expected,
                found: bytes.len(),
            });
        }
        let body = &bytes[HEADER..];
        let computed = checksum(body);
        if computed != stored {
            return Err(BookError::Checksum { stored, computed });
        }
        let (keys, values) = decode_entries(body, w, h, with_moves)?;
        let max_moves = keys
            .iter()
            .map(|&k| key_discs(k, w, h))
            .fold(depth, u32::max);
        Ok(Book {
            width: w,
            height: h,
            depth,
            max_moves,
            keys,
            values,
        })
    }

    /// Reads and checks a book file, reading no more than its header says the book holds (so a
    /// huge file or a device such as `/dev/zero` is refused without being read whole). Errors
    /// do not name the file: callers say which file they read.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        use std::io::Read;
        let io = |e: std::io::Error| BookError::Io(e.to_string());
        let mut f = std::fs::File::open(path).map_err(io)?;
        let mut bytes = Vec::new();
        (&mut f)
            .take(HEADER as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() < HEADER {
            return Book::from_bytes(&bytes);
        }
        // a header alone parses as a book of no entries, or tells how long the book must be
        let expected = match Book::from_bytes(&bytes) {
            Err(BookError::Truncated { expected, .. }) => expected as u64,
            Err(
                e @ (BookError::BadMagic
                | BookError::UnsupportedVersion(_)
                | BookError::BadSize { .. }),
            ) => return Err(e),
            _ => HEADER as u64,
        };
        // one byte more than expected, to tell trailing bytes
        (&mut f)
            .take(expected + 1 - HEADER as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        Book::from_bytes(&bytes).map_err(|e| match e {
            BookError::TrailingBytes { expected, found } => BookError::TrailingBytes {
                expected,
                found: f
                    .metadata()
                    .ok()
                    .filter(|m| m.is_file())
                    .map_or(found, |m| m.len() as usize),
            },
            e => e,
        })
    }

    /// The book built into the binary (parsed once, shared); `None` only if it does not parse,
    /// which the test suite rules out.
    pub fn embedded() -> Option<Arc<Book>> {
        static BOOK: OnceLock<Option<Arc<Book>>> = OnceLock::new();
        BOOK.get_or_init(|| Book::from_bytes(EMBEDDED_BYTES).ok().map(Arc::new))
            .clone()
    }

    /// The embedded book's parse result, for the test that it parses.
    pub fn embedded_result() -> Result<Book, BookError> {
        Book::from_bytes(EMBEDDED_BYTES)
    }

    /// The file image (see the module documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let body = encode_entries(self.width, self.height, &self.keys, &self.values);
        let mut out = Vec::with_capacity(HEADER + body.len());
        out.extend_from_slice(MAGIC);
        out.push(VERSION);
        out.push(self.width as u8);
        out.push(self.height as u8);
        out.push(self.depth as u8);
        out.extend_from_slice(&(self.keys.len() as u32).to_le_bytes());
        out.extend_from_slice(&checksum(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Writes the book to `path` through a temporary file, so a reader never sees half a book.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, self.to_bytes())?;
        std::fs::rename(&tmp, path)
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// Every position with at most this many discs is in the book.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// Discs of the deepest position in the book (past `depth`: a main line, or a deeper
    /// build's results so far).
    pub fn max_moves(&self) -> u32 {
        self.max_moves
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// `(symmetric key, score)` of every entry, by key.
    pub fn entries(&self) -> impl Iterator<Item = (u64, i32)> + '_ {
        self.keys
            .iter()
            .zip(&self.values)
            .map(|(&k, e)| (k, e.score as i32))
    }

    /// `(symmetric key, entry)` of every entry, by key.
    pub fn values(&self) -> impl Iterator<Item = (u64, Entry)> + '_ {
        self.keys.iter().copied().zip(self.values.iter().copied())
    }

    /// The score stored under a symmetric key.
    pub fn probe_key(&self, key: u64) -> Option<i32> {
        self.entry_key(key).map(|e| e.score as i32)
    }

    /// The entry stored under a symmetric key.
    pub fn entry_key(&self, key: u64) -> Option<Entry> {
        self.keys.binary_search(&key).ok().map(|i| self.values[i])
    }

    /// Whether the book is for positions of this size and may hold one with this many discs.
    #[inline(always)]
    pub fn covers<const W: usize, const H: usize>(&self, moves: u32) -> bool {
        moves <= self.max_moves && self.width == W && self.height == H
    }

    /// The exact score of `p` (side to move's view) if the book holds it.
    pub fn get<const W: usize, const H: usize>(&self, p: &Position<W, H>) -> Option<i32> {
        if !self.covers::<W, H>(p.moves()) {
            return None;
        }
        self.probe_key(p.symmetric_key().0)
    }

    /// The exact score of `p` and its best move (a 0-based column of `p`), if the book holds
    /// both.
    pub fn best_move<const W: usize, const H: usize>(
        &self,
        p: &Position<W, H>,
    ) -> Option<(usize, i32)> {
        if !self.covers::<W, H>(p.moves()) {
            return None;
        }
        let (key, mirrored) = p.symmetric_key();
        let e = self.entry_key(key)?;
        Some((orient(e.best_col()?, W, mirrored), e.score as i32))
    }
}

/// The position with this key (see [`Position::key`]), if the key is one: each column's bits
/// hold `2^h - 1 + own discs` for a column of height `h`, and the side to move must have as
/// many discs as the other side, or one fewer.
pub fn position_from_key<const W: usize, const H: usize>(key: u64) -> Option<Position<W, H>> {
    let h1 = H + 1;
    let column = (1u64 << h1) - 1;
    if W * h1 < 64 && key >> (W * h1) != 0 {
        return None;
    }
    let (mut current, mut mask) = (0u64, 0u64);
    for c in 0..W {
        let v = (key >> (c * h1)) & column;
        // the height is the position of the highest set bit of v + 1
        let h = (64 - (v + 1).leading_zeros() - 1) as usize;
        if h > H {
            return None;
        }
        let own = v + 1 - (1u64 << h);
        let col_mask = (1u64 << h) - 1;
        current |= own << (c * h1);
        mask |= col_mask << (c * h1);
    }
    let own = current.count_ones();
    let theirs = (mask & !current).count_ones();
    if theirs != own && theirs != own + 1 {
        return None;
    }
    let p = Position::<W, H>::from_raw(current, mask);
    debug_assert_eq!(p.key(), key);
    Some(p)
}
