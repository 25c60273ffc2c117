//! The book in memory and its lookups: the exact score and best move of every position up to a
//! given number of discs, keyed by the mirror-symmetric key ([`super::keys`]).
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
//! In memory a book is its format-3 image, searched where it lies: a key's top bits name its
//! bucket, binary search on the low bits finds it in the bucket's few entries or not at all. The
//! book built into the binary is used in place, checked once, never copied or decoded. The
//! file's bytes are drawn in [`super::format`].

use super::error::{BookError, FileKind};
use super::format::{expected_len, file_image, image_checksum, Entry, Packing, HEADER};
use super::keys::{key_discs, orient, BookKey};
use crate::bits::Bitboard;
use crate::board::Position;
use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The book that ships inside the binary (7x6), built with `vier book build`; none without the
/// `embedded-book` feature (the page in the browser loads a small one instead).
#[cfg(feature = "embedded-book")]
static EMBEDDED_BYTES: &[u8] = include_bytes!("../../book/7x6.book");
#[cfg(not(feature = "embedded-book"))]
static EMBEDDED_BYTES: &[u8] = &[];

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
            .field("bucket_bits", &self.packing.bucket_bits())
            .finish()
    }
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

    /// Parses and checks a book file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        Book::read(Cow::Owned(bytes.to_vec()))
    }

    /// Checks a book file's bytes, and keeps them if they are of the current version.
    fn read(bytes: Cow<'static, [u8]>) -> Result<Book, BookError> {
        let expected = expected_len(&bytes)?;
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
        let max_moves = packing.check(body, count, h)?.max(depth);
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
        let expected = match expected_len(&bytes) {
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

    pub(super) fn image(&self, packing: Packing) -> Vec<u8> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::keys::{key_as, position_from_key};

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
