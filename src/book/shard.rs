//! Shards of a book build: the positions with exactly `depth` discs, and those of the build's
//! `--extra` list, split into N fixed parts, so that N processes (on one machine or many) solve
//! one part each and `vier book merge` makes the book from them.
//!
//! A position belongs to shard [`shard_of`]`(key, N)`: a mix of the mirror-symmetric key of its
//! canonical grandparent, modulo N (the canonical parent is the position before the last
//! mover's disc on top of the leftmost column that has one). The split depends on the key alone
//! (not on the enumeration order, the threads or the machine), and the mix spreads the
//! grandparents evenly over the shards. Close relatives stay together so that a thread's table
//! serves them as in an unsharded build: on 6x5 at depth 6, 4 shards took 15.8 s of one core in
//! all, 20.4 s with each position's own key mixed, the unsharded build 9-10 s. Changing the
//! rule would change which shard holds a position: it is part of the file format's version.
//!
//! Shard file format (all integers little-endian):
//!
//! ```text
//! offset  size  field
//!      0     8  magic "VIERSHRD"
//!      8     1  format version (2)
//!      9     1  board width W
//!     10     1  board height H
//!     11     1  depth: the shard holds positions with exactly this many discs (and extras)
//!     12     4  shard index K (0-based, K < N)
//!     16     4  shard count N
//!     20     4  positions with `depth` discs in the whole ply (all N shards together)
//!     24     4  entry count E: the positions of this shard, every one of them (its part of
//!                 the ply and of the `--extra` list; `merge --extra` checks both)
//!     28     8  FNV-1a 64 checksum of bytes 0..28 followed by the E entries' bytes
//!     36 E*(Y+2) entries sorted by key, ascending, as in a version-2 book: the key's low
//!                 Y = ceil(W*(H+1)/8) bytes (7 on 7x6, at most 8 up to 64 bits, 9 or 10 on
//!                 the boards past 64 bits), the score as an i8, the best move as a u8
//! ```
//!
//! A shard file is written only when its part is complete (until then the build's journal
//! holds the work); the checksum also covers the header, so a damaged K or N is caught.

use super::error::{BookError, FileKind};
use super::format::{checksum, decode_entries, encode_entries, entry_bytes, Entry};
use super::keys::{position_from_key, BookKey};
use crate::bits::Bitboard;
use crate::board::{Position, Size};
use crate::rng::splitmix64;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

pub use super::error::{SHARD_MAGIC, SHARD_VERSION};
const SHARD_HEADER: usize = 36;

/// Which part of a build: shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShardSpec {
    pub index: u32,
    pub count: u32,
}

impl ShardSpec {
    /// The whole ply as one shard: what an unsharded build solves.
    pub const WHOLE: ShardSpec = ShardSpec { index: 0, count: 1 };

    /// Shard `index` of `count`, if `index < count`.
    pub fn new(index: u32, count: u32) -> Result<ShardSpec, String> {
        if count == 0 {
            return Err("the shard count must be at least 1".into());
        }
        if index >= count {
            return Err(format!(
                "shard {index}/{count}: shards are numbered 0 to {}",
                count - 1
            ));
        }
        Ok(ShardSpec { index, count })
    }

    /// Whether the position with this symmetric key is in this shard.
    pub fn holds<const W: usize, const H: usize, B: Bitboard>(&self, key: B) -> bool {
        // the whole holds every key: no grandparent to find
        self.count == 1 || shard_of::<W, H, B>(key, self.count) == self.index
    }
}

impl FromStr for ShardSpec {
    type Err = String;

    /// `K/N`, as `--shard` takes it.
    fn from_str(s: &str) -> Result<ShardSpec, String> {
        let bad = || format!("'{s}' is not a shard: want K/N, e.g. 0/4 (shards 0 to N-1)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k = k.trim().parse::<u32>().map_err(|_| bad())?;
        let n = n.trim().parse::<u32>().map_err(|_| bad())?;
        ShardSpec::new(k, n)
    }
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The shard of `count` that holds the position with this symmetric key (see the module
/// documentation: its grandparent's key, mixed). A key of more than 64 bits is folded to 64
/// first ([`Bitboard::fold64`]), which leaves a 64-bit key as it is.
pub fn shard_of<const W: usize, const H: usize, B: Bitboard>(key: B, count: u32) -> u32 {
    let grandparent = canonical_parent::<W, H, B>(canonical_parent::<W, H, B>(key));
    (splitmix64(grandparent.fold64()) % count.max(1) as u64) as u32
}

/// The symmetric key of the position before the last mover's top disc in the leftmost column
/// with one (the last disc dropped is on top of its column, so there is one); the key itself
/// for the empty board or a key that is no position.
fn canonical_parent<const W: usize, const H: usize, B: Bitboard>(key: B) -> B {
    let Some(p) = position_from_key::<W, H, B>(key) else {
        return key;
    };
    let last_mover = p.mask() & !p.current();
    (0..W)
        .map(|c| p.column_height(c))
        .enumerate()
        .filter(|&(_, h)| h > 0)
        .map(|(c, h)| B::bit(c * (H + 1) + h - 1))
        .find(|&top| !(last_mover & top).is_zero())
        .map_or(key, |top| {
            let parent = Position::<W, H, B>::from_raw(last_mover & !top, p.mask() & !top);
            parent.symmetric_key().0
        })
}

/// One finished shard: the exact score and best move of every position with `depth` discs that
/// the shard holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    pub size: Size,
    pub depth: u32,
    pub spec: ShardSpec,
    /// Positions with `depth` discs in the whole ply, over all shards.
    pub ply_positions: u32,
    /// Widened to [`BookKey`]s, as a book's: a shard is read before its size is known.
    keys: Vec<BookKey>,
    values: Vec<Entry>,
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

impl Shard {
    /// A shard from `(symmetric key, entry)` pairs in any order, the keys of the board's bits
    /// type or [`BookKey`]s.
    pub fn new<K: Bitboard>(
        size: Size,
        depth: u32,
        spec: ShardSpec,
        ply_positions: u32,
        mut entries: Vec<(K, Entry)>,
    ) -> Shard {
        entries.sort_unstable_by_key(|e| e.0);
        entries.dedup_by_key(|e| e.0);
        Shard {
            size,
            depth,
            spec,
            ply_positions,
            keys: entries.iter().map(|e| e.0.to_u128()).collect(),
            values: entries.iter().map(|e| e.1).collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// `(symmetric key, entry)` of every entry, by key.
    pub fn entries(&self) -> impl Iterator<Item = (BookKey, Entry)> + '_ {
        self.keys.iter().copied().zip(self.values.iter().copied())
    }

    /// The file image (see the module documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let (w, h) = (self.size.width(), self.size.height());
        let body = encode_entries(w, h, &self.keys, &self.values);
        let mut out = Vec::with_capacity(SHARD_HEADER + body.len());
        out.extend_from_slice(SHARD_MAGIC);
        out.extend_from_slice(&[SHARD_VERSION, w as u8, h as u8, self.depth as u8]);
        out.extend_from_slice(&self.spec.index.to_le_bytes());
        out.extend_from_slice(&self.spec.count.to_le_bytes());
        out.extend_from_slice(&self.ply_positions.to_le_bytes());
        out.extend_from_slice(&(self.keys.len() as u32).to_le_bytes());
        let sum = Shard::sum_of(&out, &body);
        out.extend_from_slice(&sum.to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// The checksum over the header's first 28 bytes and the entries.
    fn sum_of(head: &[u8], body: &[u8]) -> u64 {
        let mut all = Vec::with_capacity(head.len() + body.len());
        all.extend_from_slice(head);
        all.extend_from_slice(body);
        checksum(&all)
    }

    /// The file's length if its header is sound (magic, version, size, shard numbers), from
    /// the first [`SHARD_HEADER`] bytes.
    fn expected_len(head: &[u8]) -> Result<usize, BookError> {
        if head.len() < 8 || &head[..8] != SHARD_MAGIC {
            if head.len() < 8 && SHARD_MAGIC.starts_with(head) {
                return Err(BookError::Truncated {
                    file: FileKind::Shard,
                    expected: SHARD_HEADER,
                    found: head.len(),
                });
            }
            return Err(BookError::BadMagic {
                file: FileKind::Shard,
            });
        }
        if head.len() < SHARD_HEADER {
            if head.len() > 8 && head[8] != SHARD_VERSION {
                return Err(BookError::UnsupportedVersion {
                    file: FileKind::Shard,
                    version: head[8],
                });
            }
            return Err(BookError::Truncated {
                file: FileKind::Shard,
                expected: SHARD_HEADER,
                found: head.len(),
            });
        }
        if head[8] != SHARD_VERSION {
            return Err(BookError::UnsupportedVersion {
                file: FileKind::Shard,
                version: head[8],
            });
        }
        let size = Size::new(head[9] as usize, head[10] as usize).map_err(|_| {
            BookError::BadShardHeader(format!(
                "a {}x{} board, which vier does not play",
                head[9], head[10]
            ))
        })?;
        if head[11] as usize >= size.cells() {
            return Err(BookError::BadShardHeader(format!(
                "depth {} on a {size} board",
                head[11]
            )));
        }
        ShardSpec::new(u32_at(head, 12), u32_at(head, 16)).map_err(BookError::BadShardHeader)?;
        let count = u32_at(head, 24) as usize;
        Ok(SHARD_HEADER + count * entry_bytes(size.width(), size.height(), true))
    }

    /// Parses and checks a shard file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Shard, BookError> {
        let expected = Shard::expected_len(&bytes[..bytes.len().min(SHARD_HEADER)])?;
        if bytes.len() < expected {
            return Err(BookError::Truncated {
                file: FileKind::Shard,
                expected,
                found: bytes.len(),
            });
        }
        if bytes.len() > expected {
            return Err(BookError::TrailingBytes {
                file: FileKind::Shard,
                expected,
                found: bytes.len(),
            });
        }
        let stored = u64::from_le_bytes(bytes[28..36].try_into().expect("8 bytes"));
        let body = &bytes[SHARD_HEADER..];
        let computed = Shard::sum_of(&bytes[..28], body);
        if computed != stored {
            return Err(BookError::Checksum {
                file: FileKind::Shard,
                stored,
                computed,
            });
        }
        let size = Size::new(bytes[9] as usize, bytes[10] as usize).expect("checked");
        let (keys, values) =
            decode_entries(FileKind::Shard, body, size.width(), size.height(), true)?;
        Ok(Shard {
            size,
            depth: bytes[11] as u32,
            spec: ShardSpec::new(u32_at(bytes, 12), u32_at(bytes, 16)).expect("checked"),
            ply_positions: u32_at(bytes, 20),
            keys,
            values,
        })
    }

    /// Reads and checks a shard file, reading no more than its header says it holds (so a
    /// huge file or a device is refused without being read whole).
    pub fn load(path: &Path) -> Result<Shard, BookError> {
        use std::io::Read;
        let io = |e| BookError::io(FileKind::Shard, e);
        // a FIFO or a device is refused before it is opened
        let mut f = super::regular::open_regular(path).map_err(io)?;
        let mut bytes = Vec::new();
        (&mut f)
            .take(SHARD_HEADER as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let expected = Shard::expected_len(&bytes)?;
        // one byte more than expected, to tell trailing bytes
        (&mut f)
            .take((expected + 1 - SHARD_HEADER) as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        Shard::from_bytes(&bytes).map_err(|e| e.with_file_len(&f))
    }

    /// Writes the shard to `path` through a temporary file, so a reader never sees half of it.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        // beside the file under its whole name plus .tmp: shards of one book written at once
        // (book.0, book.1, ...) must not share a temporary file
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = std::path::PathBuf::from(tmp);
        std::fs::write(&tmp, self.to_bytes())?;
        std::fs::rename(&tmp, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries of `size` whose keys fill its `W*(H+1)` bits: the top one set, so that on the
    /// boards past 64 bits the key bytes past the eighth are used.
    fn entries(size: Size) -> Vec<(BookKey, Entry)> {
        let bits = size.width() * (size.height() + 1);
        (0..50u128)
            .map(|i| {
                let key = (1 << (bits - 1)) | (i << (bits - 8)) | i;
                (
                    key,
                    Entry::new((i % 7) as i32 - 3, Some(i as usize % size.width())),
                )
            })
            .collect()
    }

    /// A shard of every board reads back, its keys in their K bytes (9 and 10 on the boards past
    /// 64 bits), and a size it was not written for does not read it.
    #[test]
    fn shards_of_every_board_read_back_in_their_key_bytes() {
        for size in Size::all() {
            let shard = Shard::new(size, 3, ShardSpec::new(1, 4).unwrap(), 77, entries(size));
            let bytes = shard.to_bytes();
            let k = (size.width() * (size.height() + 1)).div_ceil(8);
            assert_eq!(bytes.len(), SHARD_HEADER + shard.len() * (k + 2), "{size}");
            assert_eq!(Shard::from_bytes(&bytes), Ok(shard.clone()), "{size}");
            let mut sorted = entries(size);
            sorted.sort_unstable_by_key(|e| e.0);
            assert_eq!(shard.entries().collect::<Vec<_>>(), sorted, "{size}");
        }
    }

    /// On the 64-bit boards a key mixes to its shard as it did when keys were `u64`, whatever
    /// bits type holds it: the split is part of the shard format.
    #[test]
    fn a_key_goes_to_the_same_shard_over_either_bits_type() {
        let mut p = Position::<7, 6>::new();
        let mut q = Position::<7, 6, u128>::new();
        for c in [3, 3, 2, 4, 0, 6, 6, 1, 5] {
            p.play_col(c);
            q.play_col(c);
            let (k, wide) = (p.symmetric_key().0, q.symmetric_key().0);
            assert_eq!(k as u128, wide);
            for n in [2, 7, 1000] {
                assert_eq!(shard_of::<7, 6, u64>(k, n), shard_of::<7, 6, u128>(wide, n));
            }
            let grandparent = canonical_parent::<7, 6, u64>(canonical_parent::<7, 6, u64>(k));
            assert_eq!(
                shard_of::<7, 6, u64>(k, 1000),
                (splitmix64(grandparent) % 1000) as u32
            );
        }
    }
}
