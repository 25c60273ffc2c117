//! The book file's bytes: its header, the packing of its entries, its checksum, and the
//! version-2 entry table a shard file holds. What a book holds, and the reader and lookups of
//! the book in memory, are [`super::lookup`]'s; the keys are [`super::keys`].
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
//!     11     1  depth: the book holds every position with at most this many discs
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
//! A build in shards writes shard files first, with their own header and version-2 entries:
//! their bytes are drawn in [`super::shard`].

use super::error::{BookError, FileKind, MAGIC, VERSION};
use super::keys::{key_bytes, key_discs, BookKey};
use crate::bits::Bitboard;

/// Bytes of the header before the bucket bits: the magic to the checksum.
pub(super) const HEADER: usize = 24;
/// A bucket table of more than 2^24 buckets (64 MiB) is refused as damage.
const MAX_BUCKET_BITS: u32 = 24;

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
    pub(super) fn body_bytes(&self, count: usize) -> usize {
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
    pub(super) fn encode<K: Bitboard>(&self, keys: &[K], values: &[Entry]) -> Vec<u8> {
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
    pub(super) fn entry(&self, code: u128) -> Entry {
        // codes have a few bits (9 on 7x6): no 128-bit division
        let (code, width) = (code as u64, self.width as u64 + 1);
        Entry {
            score: ((code / width) as i64 - self.max_score as i64) as i8,
            best: (code % width) as u8,
        }
    }

    /// Every `(key, code)` of `body`, by key.
    pub(super) fn codes<'a>(
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
    pub(super) fn check(&self, body: &[u8], count: usize, height: usize) -> Result<u32, BookError> {
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
    pub(super) fn find(&self, body: &[u8], count: usize, key: BookKey) -> Option<Entry> {
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

/// The file image of sorted distinct `keys` and their `values`, packed by `packing`.
pub(super) fn file_image<K: Bitboard>(
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

/// The length of the book file that starts with `head` (its first 25 bytes, or all of a
/// shorter file), or why `head` is no book's start.
pub(super) fn expected_len(head: &[u8]) -> Result<usize, BookError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Size;
    // the whole file, written and read again, goes through the book's reader
    use crate::book::lookup::Book;
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
            let book = Book::from_entries(w, h, 3, keys.iter().copied().zip(values.iter().copied()).collect());
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
}
