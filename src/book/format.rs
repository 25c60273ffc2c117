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
//!      8     1  format version (4; older versions are refused: their checksum left the
//!                 header out, so a damaged depth or size went unnoticed)
//!      9     1  board width W
//!     10     1  board height H
//!     11     1  depth: the book holds every position with at most this many discs (below
//!                 W*H; a reader checks that it has more entries than this and one as deep)
//!     12     4  entry count N
//!     16     8  FNV-1a 64 checksum of the whole file but this field: bytes 0 to 15,
//!                 then every byte from offset 24 to the end
//!     24     1  bucket bits B (at most min(W*(H+1), 24))
//!     25  4*2^B bucket table: for each bucket b = 0 .. 2^B-1, as a u32, the index of its
//!                 first entry (0 for bucket 0, never decreasing, at most N); bucket b holds
//!                 the keys whose top B bits (of W*(H+1)) are b, and ends where b+1 starts
//!                 (the last bucket at N)
//!      T   N*E  entries sorted by key, ascending, each an E-byte little-endian integer:
//!                 bits 0 .. L-1      the key's low L = W*(H+1) - B bits
//!                 bits L .. L+C-1    the code (score + S) * (W+1) + best, where
//!                                    S = ceil(W*H/2) is the largest score, best the
//!                                    1-based column of the best move in the orientation of
//!                                    the key (the mirror image's column when the position
//!                                    was stored as its mirror), C the bits of the largest
//!                                    code (2S+1)*(W+1)-1 (a best of 0, no move, is
//!                                    refused)
//!                 bits L+C ..        zero (else the code's score is impossible)
//!               E = ceil((L+C)/8); T = 25 + 4*2^B
//! ```
//!
//! The boards past 64 bits (5x12 to 8x9, 80 bits at most) are written the same way: their
//! keys' low bits and code make entries of up to 12 bytes (8x9 with no buckets: 80 + 10 bits).
//! On 7x6 a key has 49 bits and the code 9 (43 scores times 8). The writer picks the B that
//! makes the file smallest ([`Packing::smallest`]): from 1.1 million entries on B = 18, so an
//! entry is 5 bytes (31 key bits and the code) and the table 1 MiB. The buckets make the stored
//! keys short without losing one bit: a book answers exactly or not at all.
//!
//! Version 3 was this layout with a checksum of the bytes from offset 24 only; versions 1 and 2
//! stored each key whole, in K = ceil(W*(H+1)/8) bytes (7 on 7x6), followed by the score as an
//! i8 and (version 2) the best move as a u8. All three are refused with the reason; a version-3
//! book becomes a version-4 one by rewriting its header alone (`tools/book_upgrade.py`).
//! In memory a book is its format-3 image, searched where it lies: a key's top bits name its
//! bucket, binary search on the low bits finds it in the bucket's few entries or not at all. The
//! book built into the binary is used in place, checked once, never copied or decoded. A build
//! in shards writes shard files first, with their own header and version-2 entries: their bytes
//! are drawn in [`super::shard`].

use super::error::{BookError, FileKind};
pub use super::error::{MAGIC, VERSION};
use crate::bits::Bitboard;
use crate::board::Position;
use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// A key as a book holds it, in memory and at its interface: wide enough for every registered
/// board (80 bits at most), so one `Book` type serves them all and a file needs no width of its
/// own. The code that makes a book holds its keys as the board's bits type instead (`u64` on
/// the 64-bit boards: a 7x6 build's tables keep their size) and widens them only here, at the
/// book's boundary; a lookup widens a `u64` key for free. Packed in the file, a key takes its
/// board's `W*(H+1)` bits, whatever this type: the format does not depend on it.
pub type BookKey = u128;
const HEADER: usize = 24;
/// A bucket table of more than 2^24 buckets (64 MiB) is refused as damage.
const MAX_BUCKET_BITS: u32 = 24;

/// The book that ships inside the binary (7x6), built with `vier book build`; none without the
/// `embedded-book` feature (the page in the browser loads a small one instead).
#[cfg(feature = "embedded-book")]
static EMBEDDED_BYTES: &[u8] = include_bytes!("../../book/7x6.book");
#[cfg(not(feature = "embedded-book"))]
static EMBEDDED_BYTES: &[u8] = &[];

/// FNV-1a, 64 bits: enough to catch corruption, not meant against forgery.
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The checksum a book file's header holds: of the whole image but the checksum field itself
/// (bytes 16 to 23), so that the size, depth and count are covered as well as the entries.
pub fn image_checksum(image: &[u8]) -> u64 {
    let fold = |h: u64, bytes: &[u8]| {
        bytes.iter().fold(h, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    let head = fold(0xcbf2_9ce4_8422_2325, &image[..16.min(image.len())]);
    fold(head, image.get(HEADER..).unwrap_or_default())
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
    keys: &[BookKey],
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
/// Errors name `file`.
pub(crate) fn decode_entries(
    file: FileKind,
    body: &[u8],
    width: usize,
    height: usize,
    with_moves: bool,
) -> Result<(Vec<BookKey>, Vec<Entry>), BookError> {
    let kb = key_bytes(width, height);
    let max = (width * height).div_ceil(2) as i32;
    let size = entry_bytes(width, height, with_moves);
    let count = body.len() / size;
    let mut keys = Vec::with_capacity(count);
    let mut values = Vec::with_capacity(count);
    for (index, e) in body.chunks_exact(size).enumerate() {
        let mut k = [0u8; 16];
        k[..kb].copy_from_slice(&e[..kb]);
        let key = BookKey::from_le_bytes(k);
        let score = e[kb] as i8;
        if keys.last().is_some_and(|&last| last >= key) {
            return Err(BookError::Unsorted { file, index });
        }
        if (score as i32).abs() > max {
            return Err(BookError::BadScore {
                file,
                index,
                score: score as i32,
            });
        }
        let best = if with_moves { e[kb + 1] } else { 0 };
        if with_moves && (best == 0 || best as usize > width) {
            return Err(BookError::BadMove {
                file,
                index,
                column: best,
            });
        }
        keys.push(key);
        values.push(Entry { score, best });
    }
    Ok((keys, values))
}

/// How a version-3 entry table packs a board's keys and entries (see the module documentation):
/// the key's top `bucket_bits` are the bucket's number, the rest and the entry's code are the
/// entry's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packing {
    width: usize,
    max_score: i32,
    key_bits: u32,
    code_bits: u32,
    bucket_bits: u32,
}

impl Packing {
    /// The packing with `bucket_bits` buckets' bits, if the format allows as many on the board.
    pub fn new(width: usize, height: usize, bucket_bits: u32) -> Option<Packing> {
        let key_bits = (width * (height + 1)) as u32;
        let max_score = (width * height).div_ceil(2) as i32;
        let largest = (2 * max_score as u64 + 1) * (width as u64 + 1) - 1;
        // an entry is read and written as one u128: the widest board's 80 key bits and
        // 10 code bits fit
        debug_assert!(key_bits + (64 - largest.leading_zeros()) <= u128::BITS);
        (bucket_bits <= key_bits.min(MAX_BUCKET_BITS)).then_some(Packing {
            width,
            max_score,
            key_bits,
            code_bits: 64 - largest.leading_zeros(),
            bucket_bits,
        })
    }

    /// The packing that makes a table of `count` entries smallest (the fewest buckets of
    /// those that do).
    pub fn smallest(width: usize, height: usize, count: usize) -> Packing {
        (0..=MAX_BUCKET_BITS)
            .filter_map(|b| Packing::new(width, height, b))
            .min_by_key(|p| p.table_bytes() + count * p.entry_bytes())
            .expect("0 bucket bits always fit")
    }

    pub fn bucket_bits(&self) -> u32 {
        self.bucket_bits
    }

    fn low_bits(&self) -> u32 {
        self.key_bits - self.bucket_bits
    }

    /// Bytes of an entry: the key's low bits and the code.
    pub fn entry_bytes(&self) -> usize {
        (self.low_bits() + self.code_bits).div_ceil(8) as usize
    }

    /// Bytes of the bucket table.
    pub fn table_bytes(&self) -> usize {
        4 << self.bucket_bits
    }

    /// Bytes from offset 24 to the end of a file of `count` entries.
    fn body_bytes(&self, count: usize) -> usize {
        1 + self.table_bytes() + count * self.entry_bytes()
    }

    fn bucket(&self, key: BookKey) -> usize {
        (key >> self.low_bits()) as usize
    }

    fn low_mask(&self) -> u128 {
        (1u128 << self.low_bits()) - 1
    }

    /// The bytes from offset 24 on: the bucket bits, the table and the entries (keys sorted
    /// ascending by the caller).
    fn encode<K: Bitboard>(&self, keys: &[K], values: &[Entry]) -> Vec<u8> {
        let mut body = Vec::with_capacity(self.body_bytes(keys.len()));
        body.push(self.bucket_bits as u8);
        let mut next = 0;
        for b in 0..1usize << self.bucket_bits {
            while next < keys.len() && self.bucket(keys[next].to_u128()) < b {
                next += 1;
            }
            body.extend_from_slice(&(next as u32).to_le_bytes());
        }
        let width = self.width as u128 + 1;
        for (&k, e) in keys.iter().zip(values) {
            let code = (e.score as i64 + self.max_score as i64) as u128 * width + e.best as u128;
            let packed = (k.to_u128() & self.low_mask()) | code << self.low_bits();
            body.extend_from_slice(&packed.to_le_bytes()[..self.entry_bytes()]);
        }
        body
    }

    /// Where bucket `bucket`'s entries start in `body` (the bytes from offset 24 on).
    fn start(&self, body: &[u8], bucket: usize) -> usize {
        let at = 1 + 4 * bucket;
        u32::from_le_bytes(body[at..at + 4].try_into().expect("4 bytes")) as usize
    }

    /// Where bucket `bucket`'s entries end: where the next one's start, or at `count`.
    fn end(&self, body: &[u8], bucket: usize, count: usize) -> usize {
        if bucket + 1 < 1 << self.bucket_bits {
            self.start(body, bucket + 1)
        } else {
            count
        }
    }

    /// Entry `index` of `body` as one integer: the key's low bits, then the code.
    fn packed(&self, body: &[u8], index: usize) -> u128 {
        let size = self.entry_bytes();
        let at = 1 + self.table_bytes() + index * size;
        let mut bytes = [0u8; 16];
        bytes[..size].copy_from_slice(&body[at..at + size]);
        u128::from_le_bytes(bytes)
    }

    /// The score and move of a code, unchecked (see [`Packing::check`]).
    fn entry(&self, code: u128) -> Entry {
        // codes have a few bits (9 on 7x6): no 128-bit division
        let (code, width) = (code as u64, self.width as u64 + 1);
        Entry {
            score: ((code / width) as i64 - self.max_score as i64) as i8,
            best: (code % width) as u8,
        }
    }

    /// Every `(key, code)` of `body`, by key.
    fn codes<'a>(
        &'a self,
        body: &'a [u8],
        count: usize,
    ) -> impl Iterator<Item = (BookKey, u128)> + 'a {
        (0..1usize << self.bucket_bits).flat_map(move |bucket| {
            let high = (bucket as u128) << self.low_bits();
            (self.start(body, bucket)..self.end(body, bucket, count)).map(move |index| {
                let packed = self.packed(body, index);
                (high | (packed & self.low_mask()), packed >> self.low_bits())
            })
        })
    }

    /// Checks the bytes from offset 24 on (their length checked by the caller against
    /// [`Packing::body_bytes`]): the table, the order of the keys and every entry's score and
    /// move. Returns the most discs of an entry's position (one pass: the engine does this
    /// at every start).
    fn check(&self, body: &[u8], count: usize, height: usize) -> Result<u32, BookError> {
        let mut previous = 0;
        for bucket in 0..1usize << self.bucket_bits {
            let start = self.start(body, bucket);
            if start > count || start < previous || (bucket == 0 && start != 0) {
                return Err(BookError::BadBuckets { bucket });
            }
            previous = start;
        }
        let width = self.width as u128 + 1;
        let (mut last, mut most) = (None, 0);
        for (index, (key, code)) in self.codes(body, count).enumerate() {
            if last.is_some_and(|last| last >= key) {
                return Err(BookError::Unsorted {
                    file: FileKind::Book,
                    index,
                });
            }
            last = Some(key);
            // a code with spare bits set is wider than 64 bits: divided whole, it reads as an
            // impossible score
            let score = (code / width).min(i32::MAX as u128) as i64 - self.max_score as i64;
            if score > self.max_score as i64 {
                return Err(BookError::BadScore {
                    file: FileKind::Book,
                    index,
                    score: score as i32,
                });
            }
            if code % width == 0 {
                return Err(BookError::BadMove {
                    file: FileKind::Book,
                    index,
                    column: 0,
                });
            }
            most = most.max(key_discs(key, self.width, height));
        }
        Ok(most)
    }

    /// The entry of `key` in `body`, if it is there: its bucket's entries searched by binary
    /// search on the low bits.
    fn find(&self, body: &[u8], count: usize, key: BookKey) -> Option<Entry> {
        if key >> self.key_bits != 0 {
            return None;
        }
        let bucket = self.bucket(key);
        let low = key & self.low_mask();
        let (mut lo, mut hi) = (self.start(body, bucket), self.end(body, bucket, count));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let packed = self.packed(body, mid);
            match (packed & self.low_mask()).cmp(&low) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(self.entry(packed >> self.low_bits())),
            }
        }
        None
    }
}

/// An opening book in memory: its file image in format 3, looked up where it lies (a key's
/// bucket, then binary search), so the book built into the binary is neither copied nor decoded.
/// A book read from an older version, or made from entries, is packed first.
#[derive(Clone)]
pub struct Book {
    width: usize,
    height: usize,
    depth: u32,
    /// Discs of the deepest entry (past `depth`: a main line, a deeper build's results).
    max_moves: u32,
    count: usize,
    packing: Packing,
    /// The whole file image, header included; in memory an entry's best move may be 0 (a
    /// version-1 book, a build under way), which a file of version 3 refuses.
    image: Cow<'static, [u8]>,
}

/// The file image of sorted distinct `keys` and their `values`, packed by `packing`.
fn file_image<K: Bitboard>(
    (width, height, depth): (usize, usize, u32),
    packing: Packing,
    keys: &[K],
    values: &[Entry],
) -> Vec<u8> {
    let body = packing.encode(keys, values);
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.push(width as u8);
    out.push(height as u8);
    out.push(depth as u8);
    out.extend_from_slice(&(keys.len() as u32).to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&body);
    let sum = image_checksum(&out);
    out[16..24].copy_from_slice(&sum.to_le_bytes());
    out
}

/// The header's depth against what the file holds (issue 68: a header that claimed 255 discs
/// over one entry was taken at its word). A book of depth `d` holds a position of every number
/// of discs up to `d` (a game can go on past any number of discs below the cells), so at least
/// `d + 1` entries and one of `d` discs; the builder makes books of depths below the cells.
fn check_depth(depth: u32, deepest: u32, count: usize, cells: usize) -> Result<(), BookError> {
    let found = if depth as usize >= cells {
        format!("the board has {cells} cells")
    } else if count <= depth as usize {
        format!("it has {count} entries")
    } else if deepest < depth {
        format!("its deepest entry has {deepest}")
    } else {
        return Ok(());
    };
    Err(BookError::BadDepth { depth, found })
}

/// Two books are equal when they hold the same entries, however packed.
impl PartialEq for Book {
    fn eq(&self, other: &Book) -> bool {
        (self.width, self.height, self.depth, self.count)
            == (other.width, other.height, other.depth, other.count)
            && self.values().eq(other.values())
    }
}

impl Eq for Book {}

/// A book's size, not its megabytes of entries.
impl fmt::Debug for Book {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Book")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("depth", &self.depth)
            .field("max_moves", &self.max_moves)
            .field("len", &self.count)
            .field("bucket_bits", &self.packing.bucket_bits)
            .finish()
    }
}

/// Discs on the board of a position key (see [`position_from_key`]): each column's field is
/// `2^h - 1 + own discs`, whose highest set bit after adding 1 is at `h`.
#[inline(always)]
pub fn key_discs(key: BookKey, width: usize, height: usize) -> u32 {
    // The engine's start runs this once per entry of the built-in book: u64 on the 64-bit
    // boards and a plain loop (an iterator's `sum` over `u128`, not inlined, made the start a
    // quarter slower).
    let h1 = height + 1;
    let mut discs = 0;
    if width * h1 <= 64 {
        let (key, column) = (key as u64, (1u64 << h1) - 1);
        for c in 0..width {
            discs += 63 - (((key >> (c * h1)) & column) + 1).leading_zeros();
        }
    } else {
        let column = (1u128 << h1) - 1;
        for c in 0..width {
            discs += 127 - (((key >> (c * h1)) & column) + 1).leading_zeros();
        }
    }
    discs
}

impl Book {
    /// A book from `(symmetric key, entry)` pairs in any order (duplicates keep the first). The
    /// keys come as the board's bits type `K` (a build's `u64` on 7x6, say: its millions of
    /// entries are not widened to sort them), or as [`BookKey`]s.
    pub fn from_entries<K: Bitboard>(
        width: usize,
        height: usize,
        depth: u32,
        mut entries: Vec<(K, Entry)>,
    ) -> Book {
        entries.sort_unstable_by_key(|e| e.0);
        entries.dedup_by_key(|e| e.0);
        let max_moves = entries
            .iter()
            .map(|e| key_discs(e.0.to_u128(), width, height))
            .fold(depth, u32::max);
        let (keys, values): (Vec<K>, Vec<Entry>) = entries.into_iter().unzip();
        let packing = Packing::smallest(width, height, keys.len());
        Book {
            width,
            height,
            depth,
            max_moves,
            count: keys.len(),
            packing,
            image: Cow::Owned(file_image((width, height, depth), packing, &keys, &values)),
        }
    }

    /// The book of the positions with at most `depth` discs of this one (every one it holds
    /// up to there, the main line's included): a small book cut from a large one, such as the
    /// page's (`vier book cut`). It holds every position up to the smaller of the two depths.
    pub fn cut(&self, depth: u32) -> Book {
        let (w, h) = (self.width, self.height);
        let entries: Vec<(BookKey, Entry)> = self
            .values()
            .filter(|&(k, _)| key_discs(k, w, h) <= depth)
            .collect();
        Book::from_entries(w, h, depth.min(self.depth), entries)
    }

    /// The length of the book file that starts with `head` (its first 25 bytes, or all of a
    /// shorter file), or why `head` is no book's start.
    fn expected_len(head: &[u8]) -> Result<usize, BookError> {
        let truncated = |expected| BookError::Truncated {
            file: FileKind::Book,
            expected,
            found: head.len(),
        };
        if head.len() < HEADER {
            if head.len() < 8 || &head[..8] == MAGIC {
                return Err(truncated(HEADER));
            }
            return Err(BookError::BadMagic {
                file: FileKind::Book,
            });
        }
        if &head[..8] != MAGIC {
            return Err(BookError::BadMagic {
                file: FileKind::Book,
            });
        }
        let version = head[8];
        let (width, height) = (head[9], head[10]);
        if (1..VERSION).contains(&version) {
            return Err(BookError::OldVersion(version));
        }
        if version != VERSION {
            return Err(BookError::UnsupportedVersion {
                file: FileKind::Book,
                version,
            });
        }
        if crate::board::Size::new(width as usize, height as usize).is_err() {
            return Err(BookError::BadSize { width, height });
        }
        let (w, h) = (width as usize, height as usize);
        let count = u32::from_le_bytes(head[12..16].try_into().expect("4 bytes")) as usize;
        let bits = *head.get(HEADER).ok_or_else(|| truncated(HEADER + 1))?;
        let packing = Packing::new(w, h, bits as u32).ok_or(BookError::BadBucketBits(bits))?;
        Ok(HEADER + packing.body_bytes(count))
    }

    /// Parses and checks a book file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        Book::read(Cow::Owned(bytes.to_vec()))
    }

    /// Checks a book file's bytes, and keeps them if they are of the current version.
    fn read(bytes: Cow<'static, [u8]>) -> Result<Book, BookError> {
        let expected = Book::expected_len(&bytes)?;
        if bytes.len() < expected {
            return Err(BookError::Truncated {
                file: FileKind::Book,
                expected,
                found: bytes.len(),
            });
        }
        if bytes.len() > expected {
            return Err(BookError::TrailingBytes {
                file: FileKind::Book,
                expected,
                found: bytes.len(),
            });
        }
        let (w, h) = (bytes[9] as usize, bytes[10] as usize);
        let depth = bytes[11] as u32;
        let count = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
        let stored = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
        let computed = image_checksum(&bytes);
        if computed != stored {
            return Err(BookError::Checksum {
                file: FileKind::Book,
                stored,
                computed,
            });
        }
        let body = &bytes[HEADER..];
        let packing =
            Packing::new(w, h, body[0] as u32).ok_or(BookError::BadBucketBits(body[0]))?;
        let deepest = packing.check(body, count, h)?;
        check_depth(depth, deepest, count, w * h)?;
        let max_moves = deepest.max(depth);
        Ok(Book {
            width: w,
            height: h,
            depth,
            max_moves,
            count,
            packing,
            image: bytes,
        })
    }

    /// Reads and checks a book file, reading no more than its header says the book holds (so a
    /// huge file or a device such as `/dev/zero` is refused without being read whole). Errors
    /// do not name the file: callers say which file they read.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        use std::io::Read;
        let io = |e| BookError::io(FileKind::Book, e);
        // a FIFO or a device is refused before it is opened
        let mut f = super::regular::open_regular(path).map_err(io)?;
        let mut bytes = Vec::new();
        (&mut f)
            .take(HEADER as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let expected = match Book::expected_len(&bytes) {
            Ok(expected) => expected,
            Err(BookError::Truncated { .. }) => return Book::from_bytes(&bytes),
            Err(e) => return Err(e),
        };
        // one byte more than expected, to tell trailing bytes
        (&mut f)
            .take((expected + 1).saturating_sub(bytes.len()) as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        Book::read(Cow::Owned(bytes)).map_err(|e| e.with_file_len(&f))
    }

    /// The book built into the binary (parsed once, shared); `None` only if it does not parse,
    /// which the test suite rules out.
    pub fn embedded() -> Option<Arc<Book>> {
        static BOOK: OnceLock<Option<Arc<Book>>> = OnceLock::new();
        BOOK.get_or_init(|| Book::read(Cow::Borrowed(EMBEDDED_BYTES)).ok().map(Arc::new))
            .clone()
    }

    /// The embedded book's parse result, for the test that it parses.
    pub fn embedded_result() -> Result<Book, BookError> {
        if EMBEDDED_BYTES.is_empty() {
            return Err(BookError::Io {
                file: FileKind::Book,
                why: "this build has no built-in book (the embedded-book feature is off)".into(),
            });
        }
        Book::read(Cow::Borrowed(EMBEDDED_BYTES))
    }

    /// The file image (see the module documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let smallest = Packing::smallest(self.width, self.height, self.count);
        if self.packing == smallest {
            // a file is read only if it is what the writer makes of its entries
            self.image.to_vec()
        } else {
            self.image(smallest)
        }
    }

    fn image(&self, packing: Packing) -> Vec<u8> {
        let (keys, values): (Vec<BookKey>, Vec<Entry>) = self.values().unzip();
        file_image(
            (self.width, self.height, self.depth),
            packing,
            &keys,
            &values,
        )
    }

    fn body(&self) -> &[u8] {
        &self.image[HEADER..]
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
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// `(symmetric key, score)` of every entry, by key.
    pub fn entries(&self) -> impl Iterator<Item = (BookKey, i32)> + '_ {
        self.values().map(|(k, e)| (k, e.score as i32))
    }

    /// `(symmetric key, entry)` of every entry, by key.
    pub fn values(&self) -> impl Iterator<Item = (BookKey, Entry)> + '_ {
        self.packing
            .codes(self.body(), self.count)
            .map(|(k, code)| (k, self.packing.entry(code)))
    }

    /// The score stored under a symmetric key.
    pub fn probe_key(&self, key: BookKey) -> Option<i32> {
        self.entry_key(key).map(|e| e.score as i32)
    }

    /// The entry stored under a symmetric key.
    pub fn entry_key(&self, key: BookKey) -> Option<Entry> {
        self.packing.find(self.body(), self.count, key)
    }

    /// Whether the book is for positions of this size and may hold one with this many discs.
    #[inline(always)]
    pub fn covers<const W: usize, const H: usize>(&self, moves: u32) -> bool {
        moves <= self.max_moves && self.width == W && self.height == H
    }

    /// The exact score of `p` (side to move's view) if the book holds it.
    pub fn get<const W: usize, const H: usize, B: Bitboard>(
        &self,
        p: &Position<W, H, B>,
    ) -> Option<i32> {
        if !self.covers::<W, H>(p.moves()) {
            return None;
        }
        self.probe_key(p.symmetric_key().0.to_u128())
    }

    /// The exact score of `p` and its best move (a 0-based column of `p`), if the book holds
    /// both.
    pub fn best_move<const W: usize, const H: usize, B: Bitboard>(
        &self,
        p: &Position<W, H, B>,
    ) -> Option<(usize, i32)> {
        if !self.covers::<W, H>(p.moves()) {
            return None;
        }
        let (key, mirrored) = p.symmetric_key();
        let e = self.entry_key(key.to_u128())?;
        Some((orient(e.best_col()?, W, mirrored), e.score as i32))
    }
}

/// A book key as the key of a board whose bits are `B`: `None` if it has bits that `B` has not
/// (then it is the key of no position of that board).
#[inline(always)]
pub fn key_as<B: Bitboard>(key: BookKey) -> Option<B> {
    (B::BITS >= BookKey::BITS || key >> B::BITS == 0).then(|| B::from_u128(key))
}

/// The position with this key (see [`Position::key`]), if the key is one: each column's bits
/// hold `2^h - 1 + own discs` for a column of height `h`, and the side to move must have as
/// many discs as the other side, or one fewer. The key is of the board's own bits type `B` (a
/// book's [`BookKey`] goes through [`key_as`] first).
pub fn position_from_key<const W: usize, const H: usize, B: Bitboard>(
    key: B,
) -> Option<Position<W, H, B>> {
    let h1 = H + 1;
    let column = B::from_u128((1u128 << h1) - 1);
    if W * h1 < B::BITS as usize && !(key >> (W * h1)).is_zero() {
        return None;
    }
    let (mut current, mut mask) = (B::ZERO, B::ZERO);
    for c in 0..W {
        let v = (key >> (c * h1)) & column;
        // the height is the position of the highest set bit of v + 1
        let h = (B::BITS - (v + B::ONE).leading_zeros() - 1) as usize;
        if h > H {
            return None;
        }
        let own = v + B::ONE - B::bit(h);
        let col_mask = B::bit(h) - B::ONE;
        current |= own << (c * h1);
        mask |= col_mask << (c * h1);
    }
    let own = current.count_ones();
    let theirs = (mask & !current).count_ones();
    if theirs != own && theirs != own + 1 {
        return None;
    }
    let p = Position::<W, H, B>::from_raw(current, mask);
    debug_assert!(p.key() == key);
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Size, SizedJob};
    use proptest::prelude::*;

    /// Sorted distinct keys of a board's key width, with entries of every score and column.
    fn table(size: Size, raw: &[(u128, i8, u8)]) -> (Vec<BookKey>, Vec<Entry>) {
        let (w, h) = (size.width(), size.height());
        let bits = w * (h + 1);
        let max = (w * h).div_ceil(2) as i32;
        let mut rows: Vec<(BookKey, Entry)> = raw
            .iter()
            .map(|&(k, s, b)| {
                let key = k & ((1 << bits) - 1);
                let score = (s as i32).rem_euclid(2 * max + 1) - max;
                let best = b % w as u8 + 1;
                (key, Entry::new(score, Some(best as usize - 1)))
            })
            .collect();
        rows.sort_unstable_by_key(|r| r.0);
        rows.dedup_by_key(|r| r.0);
        rows.into_iter().unzip()
    }

    /// Packs `raw` on `size` with `bits` bucket bits and checks that it reads back: the
    /// entries, their order, and every lookup, hit or miss.
    fn reads_back(size: Size, raw: &[(u128, i8, u8)], bits: u32) -> Result<(), TestCaseError> {
        let (keys, values) = table(size, raw);
        let (w, h) = (size.width(), size.height());
        let packing = Packing::new(w, h, bits).unwrap();
        let body = packing.encode(&keys, &values);
        prop_assert_eq!(body.len(), packing.body_bytes(keys.len()));
        let n = keys.len();
        let most = keys.iter().map(|&k| key_discs(k, w, h)).max().unwrap_or(0);
        prop_assert_eq!(packing.check(&body, n, h), Ok(most));
        let read: Vec<(BookKey, Entry)> = packing
            .codes(&body, n)
            .map(|(k, c)| (k, packing.entry(c)))
            .collect();
        let written: Vec<(BookKey, Entry)> =
            keys.iter().copied().zip(values.iter().copied()).collect();
        prop_assert_eq!(read, written);
        // every key is found where it lies, and its neighbours that are not keys are not
        let top = w * (h + 1) - 1;
        for (&k, &e) in keys.iter().zip(&values) {
            prop_assert_eq!(packing.find(&body, n, k), Some(e));
            for other in [
                k.wrapping_sub(1),
                k.wrapping_add(1),
                k ^ 1 << 40,
                k ^ 1 << top,
            ] {
                if keys.binary_search(&other).is_err() {
                    prop_assert_eq!(packing.find(&body, n, other), None);
                }
            }
        }
        Ok(())
    }

    proptest! {
        /// Every packing the format allows reads back what was written, on every 64-bit board.
        #[test]
        fn every_packing_reads_back(
            size in 0..Size::all().filter(|s| s.bits() == 64).count(),
            raw in proptest::collection::vec(any::<(u64, i8, u8)>(), 0..200),
            bits in 0..=MAX_BUCKET_BITS.min(12),
        ) {
            let size = Size::all().filter(|s| s.bits() == 64).nth(size).unwrap();
            let raw: Vec<(u128, i8, u8)> = raw.iter().map(|&(k, s, b)| (k as u128, s, b)).collect();
            reads_back(size, &raw, bits)?;
        }

        /// On the boards of more than 64 bits too, with keys whose bits above 64 are set: the
        /// packing and the whole file, written and read again.
        #[test]
        fn every_packing_of_a_wide_board_reads_back(
            size in 0..Size::all().filter(|s| s.bits() == 128).count(),
            raw in proptest::collection::vec(any::<(u128, i8, u8)>(), 1..200),
            bits in 0..=MAX_BUCKET_BITS.min(12),
        ) {
            let size = Size::all().filter(|s| s.bits() == 128).nth(size).unwrap();
            let (w, h) = (size.width(), size.height());
            prop_assume!(raw.iter().any(|&(k, _, _)| k >> 64 & ((1 << (w * (h + 1) - 64)) - 1) != 0));
            reads_back(size, &raw, bits)?;
            let (keys, values) = table(size, &raw);
            prop_assert!(keys.iter().any(|&k| k >> 64 != 0));
            // depth 0: random keys hold no whole depth
            let book = Book::from_entries(w, h, 0, keys.iter().copied().zip(values.iter().copied()).collect());
            let bytes = book.image(Packing::new(w, h, bits).unwrap());
            let read = Book::from_bytes(&bytes).unwrap();
            prop_assert_eq!(&read, &book);
            prop_assert_eq!((read.width(), read.height(), read.len()), (w, h, keys.len()));
            for (&k, &e) in keys.iter().zip(&values) {
                prop_assert_eq!(read.entry_key(k), Some(e));
            }
            prop_assert_eq!(Book::from_bytes(&read.to_bytes()).unwrap().to_bytes(), book.to_bytes());
        }
    }

    /// Plays `moves` (column choices, each taken modulo the legal ones) on a board of `size`
    /// over its own bits type, and checks at every position that its key and its symmetric
    /// key decode to it (or its mirror image) and count its discs. Returns the widest key's
    /// highest bit.
    fn keys_decode(size: Size, moves: &[u8]) -> Result<u32, TestCaseError> {
        struct Decode<'a>(&'a [u8]);
        impl SizedJob for Decode<'_> {
            type Output = Result<u32, TestCaseError>;
            fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
                let moves = self.0;
                let mut p = Position::<W, H, B>::new();
                let mut top = 0;
                for &m in moves {
                    for (key, q) in [
                        (p.key(), p),
                        (p.symmetric_key().0, {
                            if p.symmetric_key().1 {
                                p.mirrored()
                            } else {
                                p
                            }
                        }),
                    ] {
                        prop_assert_eq!(position_from_key::<W, H, B>(key), Some(q));
                        let wide = key.to_u128();
                        prop_assert_eq!(key_as::<B>(wide), Some(key));
                        prop_assert_eq!(key_discs(wide, W, H), p.moves());
                        top = top.max(128 - wide.leading_zeros());
                    }
                    let legal: Vec<usize> = p.legal_columns().collect();
                    if p.is_game_over() || legal.is_empty() {
                        break;
                    }
                    p.play_col(legal[m as usize % legal.len()]);
                }
                Ok(top)
            }
        }
        size.run(Decode(moves))
    }

    proptest! {
        /// On every board past 64 bits, positions of random games decode from their keys,
        /// whose bits reach past 64 (on 8x8, say, the last column starts at bit 63).
        #[test]
        fn wide_positions_decode_from_their_keys(
            size in 0..Size::all().filter(|s| s.bits() == 128).count(),
            moves in proptest::collection::vec(any::<u8>(), 0..90),
        ) {
            let size = Size::all().filter(|s| s.bits() == 128).nth(size).unwrap();
            keys_decode(size, &moves)?;
        }

        /// The same over the 64-bit boards (their keys widened to book keys and back).
        #[test]
        fn narrow_positions_decode_from_their_keys(
            size in 0..Size::all().filter(|s| s.bits() == 64).count(),
            moves in proptest::collection::vec(any::<u8>(), 0..70),
        ) {
            let size = Size::all().filter(|s| s.bits() == 64).nth(size).unwrap();
            keys_decode(size, &moves)?;
        }
    }

    /// The key bits past 64 are a board's own: a key wider than the board's is no position,
    /// and no entry of its book.
    #[test]
    fn keys_past_the_board_are_nobodys() {
        let mut p = Position::<8, 9, u128>::new();
        for c in [7, 7, 0, 6, 7] {
            p.play_col(c);
        }
        let key = p.symmetric_key().0;
        assert!(key >> 64 != 0, "the last column lies past bit 64");
        assert_eq!(position_from_key::<8, 9, u128>(key | 1 << 80), None);
        assert_eq!(key_as::<u64>(key), None);
        let book = Book::from_entries(8, 9, 0, vec![(key, Entry::new(3, Some(2)))]);
        assert_eq!(book.probe_key(key), Some(3));
        assert_eq!(book.probe_key(key | 1 << 80), None);
        assert_eq!(book.probe_key(key ^ 1 << 70), None);
        assert_eq!(book.get(&p), Some(3));
    }

    /// The writer's choice on 7x6 for the sizes the shipped book has had and may have:
    /// 5-byte entries and 2^18 buckets, against 9 bytes an entry in version 2; below a million
    /// entries the table costs more than it saves.
    #[test]
    fn a_7x6_book_of_millions_packs_five_bytes_an_entry() {
        for count in [1_389_385, 2_500_000, 40_000_000] {
            let p = Packing::smallest(7, 6, count);
            assert_eq!((p.bucket_bits(), p.entry_bytes()), (18, 5), "{count}");
        }
        assert_eq!(Packing::smallest(7, 6, 1_000_000).entry_bytes(), 6);
        // a small book needs no table worth the name
        assert!(Packing::smallest(5, 4, 1000).bucket_bits() <= 8);
        // the largest key (8x7: 64 bits) with 0 bucket bits still fits
        let p = Packing::new(8, 7, 0).unwrap();
        assert_eq!(p.entry_bytes(), (64 + 10usize).div_ceil(8));
        assert_eq!(Packing::new(7, 6, MAX_BUCKET_BITS + 1), None);
    }

    /// A cut keeps the entries up to its depth, main line included, and none past it; its
    /// depth is never more than the book's.
    #[test]
    fn a_cut_book_holds_exactly_the_positions_up_to_its_depth() {
        let mut p = Position::<7, 6, u64>::new();
        let mut entries = vec![(p.symmetric_key().0, Entry::new(1, Some(3)))];
        for (i, c) in [3, 3, 2, 4, 1, 5].into_iter().enumerate() {
            p.play_col(c);
            entries.push((p.symmetric_key().0, Entry::new(i as i32 - 2, Some(c))));
        }
        // a book of depth 4 with a main line to 6 discs
        let book = Book::from_entries(7, 6, 4, entries.clone());
        let cut = book.cut(5);
        assert_eq!((cut.depth(), cut.len(), cut.max_moves()), (4, 6, 5));
        for (discs, &(k, e)) in entries.iter().enumerate() {
            let want = (discs <= 5).then_some(e);
            assert_eq!(cut.entry_key(k.to_u128()), want, "{discs} discs");
        }
        let small = book.cut(2);
        assert_eq!((small.depth(), small.len()), (2, 3));
        let bytes = small.to_bytes();
        assert_eq!(Book::from_bytes(&bytes), Ok(small));
    }

    /// A bucket table that does not start at 0, goes back or runs past the entries is refused,
    /// as are more bucket bits than the board's key has (the checksum made right each time).
    #[test]
    fn a_damaged_bucket_table_is_refused() {
        let entries = (0..100u64)
            .map(|i| (i << 40 | i, Entry::new(i as i32 % 21, Some(3))))
            .collect();
        let book = Book::from_entries(7, 6, 9, entries);
        let packing = Packing::new(7, 6, 4).unwrap();
        let good = book.image(packing);
        let read = Book::from_bytes(&good).unwrap();
        assert_eq!(read, book);
        // a file read in place is written back as the writer packs it, whatever it was
        assert_ne!(Packing::smallest(7, 6, 100), packing);
        assert_eq!(read.to_bytes(), book.to_bytes());
        assert_eq!(
            Book::from_bytes(&book.to_bytes()).unwrap().to_bytes(),
            book.to_bytes()
        );
        let start = |bytes: &mut Vec<u8>, bucket: usize, value: u32| {
            let at = HEADER + 1 + 4 * bucket;
            bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
            let sum = image_checksum(bytes);
            bytes[16..24].copy_from_slice(&sum.to_le_bytes());
        };
        for (bucket, value) in [(0, 1), (5, 101), (15, 0)] {
            let mut bad = good.clone();
            start(&mut bad, bucket, value);
            assert_eq!(
                Book::from_bytes(&bad),
                Err(BookError::BadBuckets { bucket }),
                "{bucket} {value}"
            );
        }
        let mut bits = good.clone();
        bits[HEADER] = 50;
        assert_eq!(Book::from_bytes(&bits), Err(BookError::BadBucketBits(50)));
    }
}
