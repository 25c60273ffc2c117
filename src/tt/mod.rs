//! The transposition table: positions already searched, with what is known of their value.
//!
//! Buckets of four 16-byte entries fill one 64-byte cache line, so a probe costs one cache miss.
//! The table never confuses two positions, whatever its size. A key of up to 64 bits is stored
//! whole. A wider key (at most 81 bits on the registered boards: 9x8) is split: its low 64 bits
//! are stored, and the rest `r < 2^17` is added to the bucket index modulo the bucket count `n`,
//! its top 6 bits (`r >> 11`, the tag) stored in the entry. Two keys with the same low bits and
//! tag differ by less than `2^11` in their rests; they meet in one bucket only if the rests are
//! congruent modulo `n`, which for `n >= 2^11` (128 KiB; a table of a megabyte has 16384) means
//! equal. So the bucket, the stored bits and the tag still name one position.
//!
//! Threads share one table without locks. A slot is two 64-bit words written and read one at a
//! time (relaxed atomics: plain moves on x86), so a reader may see one word of a write and one of
//! another. The first word holds `key XOR data`, not the key: a slot is read as the entry of
//! `key` only if its two words agree, which a torn pair (words of two different writes) does
//! not, short of a 2^-64 coincidence. A lost or torn write only loses information the table may
//! lose anyway.
//!
//! Entry layout (`data`, bit 0 = least significant):
//!
//! ```text
//!  bits  0..8   exact-score lower bound + 128   (u8; with the upper bound: exact when equal)
//!  bits  8..16  exact-score upper bound + 128   (u8)
//!  bits 16..20  best move: 0-based column + 1, 0 = none (u4)
//!  bits 20..26  work: bit length of the subtree's node count, 1..=63; 0 = empty slot (u6)
//!  bits 26..34  generation of the search that wrote it (u8); other generations read as empty
//!  bits 34..50  heuristic value of the depth-limited search (i16)
//!  bits 50..56  depth of that heuristic value, 0 = none (u6)
//!  bits 56..58  kind of that heuristic value: 0 none, 1 lower, 2 upper, 3 exact (u2)
//!  bits 58..64  tag: bits 11..17 of a key's bits past 64 (0 on the 64-bit boards)
//! ```
//!
//! Exact-score bounds are true for ever, so they are merged when a position is stored again;
//! replacement within a bucket evicts the entry of another generation first, then the one whose
//! subtree cost the least work, so expensive results survive.

#[cfg(unix)]
mod file;
mod memory;

use crate::bits::Bitboard;
use memory::Pages;
pub use memory::{check_size, check_size_freeing, free_memory_mb, machine_memory_mb, TableError};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// One slot: the position's key (XOR its data) and what is known about it.
#[derive(Default)]
#[repr(C)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    /// The slot's data if it is a whole entry of `key`.
    #[inline(always)]
    fn read(&self, key: u64) -> Option<u64> {
        let d = self.data.load(Ordering::Relaxed);
        (self.check.load(Ordering::Relaxed) ^ d == key).then_some(d)
    }

    /// The key and data of whatever the slot holds (a torn pair yields a key nobody stored).
    #[inline(always)]
    fn load(&self) -> (u64, u64) {
        let d = self.data.load(Ordering::Relaxed);
        (self.check.load(Ordering::Relaxed) ^ d, d)
    }

    #[inline(always)]
    fn write(&self, key: u64, data: u64) {
        self.data.store(data, Ordering::Relaxed);
        self.check.store(key ^ data, Ordering::Relaxed);
    }
}

#[derive(Default)]
#[repr(C, align(64))]
struct Bucket {
    slots: [Slot; 4],
}

const _: () = assert!(std::mem::size_of::<Slot>() == 16);
const _: () = assert!(std::mem::size_of::<Bucket>() == 64);
const _: () = assert!(std::mem::align_of::<Bucket>() == 64);

/// The widest key the table keeps exact (see the module documentation): 64 bits stored, 17 more
/// in the bucket index and the tag.
pub const MAX_KEY_BITS: u32 = 81;
/// The tag's bits: what is left of an entry's 64 bits.
const TAG_BITS: u32 = 64 - TAG_BITS_SHIFT;
/// The rest's bits below the tag. Tables that hold keys wider than 64 bits need at least
/// `2^TAG_SHIFT` buckets.
const TAG_SHIFT: u32 = MAX_KEY_BITS - 64 - TAG_BITS;
const TAG_BITS_SHIFT: u32 = 58;
const _: () = assert!(TAG_SHIFT == 11);

const _: () = {
    // every registered board's key is one the table keeps exact
    let mut i = 0;
    while i < crate::bits::SIZES.len() {
        let (w, h, _) = crate::bits::SIZES[i];
        assert!(w * (h + 1) <= MAX_KEY_BITS as usize);
        i += 1;
    }
};

const SCORE_OFFSET: i32 = 128;
/// Stored for a bound that is not known: beyond every real score (at most 32 in magnitude on
/// the supported boards), so it never cuts; bounds passed in are clamped to this range.
const NO_BOUND: i32 = 127;
const WORK_SHIFT: u32 = 20;
const GEN_SHIFT: u32 = 26;
const HVAL_SHIFT: u32 = 34;
const HDEPTH_SHIFT: u32 = 50;
const HKIND_SHIFT: u32 = 56;

/// What a probe found: valid bounds on the exact score (side to move's view) and a move hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub lower: i32,
    pub upper: i32,
    /// 0-based column of the best move found, in the stored orientation.
    pub best_move: Option<u8>,
    /// Bit length of the node count of the search that stored it.
    pub work: u32,
    /// A depth-limited heuristic result, if one was stored.
    pub heuristic: Option<Heuristic>,
}

/// How a heuristic value relates to the true depth-limited value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Lower,
    Upper,
    Exact,
}

/// A depth-limited search result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heuristic {
    pub value: i16,
    pub depth: u8,
    pub bound: Bound,
}

/// The table; `&self` is enough to store, so threads share one (see the module documentation).
pub struct TransTable {
    buckets: Pages<Bucket>,
    generation: AtomicU8,
    /// Kept in a file other processes may share ([`TransTable::open_file`]): never cleared.
    in_file: bool,
}

impl TransTable {
    /// A table of about `mb` megabytes (at least one bucket), prepared (see
    /// [`TransTable::prepare`]). Aborts, as a `Vec` does, when the memory is refused: for sizes a
    /// user chose, use [`TransTable::try_new`].
    pub fn new(mb: usize) -> TransTable {
        Self::with_buckets(buckets_in(mb))
    }

    /// A table of about `mb` megabytes, prepared, or an error when that is more than the
    /// machine's memory or the memory free now, or the allocator refuses it.
    pub fn try_new(mb: usize) -> Result<TransTable, TableError> {
        let t = TransTable::try_reserve(mb, 0)?;
        t.prepare(&|| false);
        Ok(t)
    }

    /// A table of about `mb` megabytes whose memory is only reserved, not yet taken: call
    /// [`TransTable::prepare`] before searching with it. `freed_mb`: memory its owner gives back
    /// before preparing it (the tables it replaces), counted as free.
    pub fn try_reserve(mb: usize, freed_mb: usize) -> Result<TransTable, TableError> {
        check_size_freeing(mb, freed_mb)?;
        // SAFETY: an all-zero bucket is four empty slots
        let buckets =
            unsafe { Pages::try_new(buckets_in(mb)) }.ok_or(TableError::Refused { mb })?;
        Ok(TransTable {
            buckets,
            generation: AtomicU8::new(1),
            in_file: false,
        })
    }

    /// A table of about `mb` megabytes for `board` (width, height) kept in the file at `path`
    /// and shared with every process that opens it, prepared: made if the file is missing,
    /// else the file's, which must be a table of the same size and board (see the `file`
    /// module). Such a table is never cleared: what it holds is proven, and true for every
    /// process that reads it (every one starts at the same generation).
    pub fn open_file(
        path: &std::path::Path,
        mb: usize,
        board: (usize, usize),
    ) -> Result<TransTable, TableError> {
        #[cfg(unix)]
        {
            // SAFETY: any bytes are a valid bucket of atomics
            let buckets = unsafe { file::open(path, buckets_in(mb), board) }?;
            let t = TransTable {
                buckets,
                generation: AtomicU8::new(1),
                in_file: true,
            };
            t.prepare(&|| false);
            Ok(t)
        }
        #[cfg(not(unix))]
        {
            let _ = (mb, board);
            Err(TableError::File {
                path: path.display().to_string(),
                why: "tables in files need a Unix system".into(),
            })
        }
    }

    /// A table with exactly `n` buckets, prepared (tests use tiny tables to force replacement).
    pub fn with_buckets(n: usize) -> TransTable {
        let t = TransTable {
            // SAFETY: an all-zero bucket is four empty slots
            buckets: unsafe { Pages::try_new(n.max(1)) }.unwrap_or_else(|| {
                std::alloc::handle_alloc_error(std::alloc::Layout::new::<Bucket>())
            }),
            generation: AtomicU8::new(1),
            in_file: false,
        };
        t.prepare(&|| false);
        t
    }

    /// Takes every page of the table's memory now, on several threads for a large table, so
    /// that no search pays for it: the kernel hands out a page (and a virtual machine's host its
    /// memory) at its first touch, which costs from microseconds to, measured on a virtual
    /// machine, 40 ms per 2 MB page; a search that meets untouched pages runs over its time,
    /// since it looks at the clock only every [`crate::control::SEARCH_POLL_NODES`] nodes. The
    /// entries are left as they are. Call it before the table is shared with a search (a word
    /// written meanwhile could be lost). `cancelled` is asked between pieces of a few
    /// megabytes; returns false if it said stop first (the pages not yet taken are then taken
    /// as searches touch them).
    pub fn prepare(&self, cancelled: &(dyn Fn() -> bool + Sync)) -> bool {
        self.buckets.prepare(cancelled, |b| {
            // a write of what is there (a read alone would map the shared zero page, and an
            // atomic "add nothing" is compiled to a read)
            let w = &b.slots[0].check;
            w.store(w.load(Ordering::Relaxed), Ordering::Relaxed);
        })
    }

    pub fn size_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Forgets everything in O(1) by moving to a new generation; every 255 clears the memory is
    /// really wiped so that a recycled generation number never revives an old entry. A table
    /// in a file is not cleared (its entries would vanish for the processes sharing it).
    pub fn clear(&self) {
        if self.in_file {
            return;
        }
        let gen = self.generation();
        if gen == u8::MAX {
            // on all cores: a table of gigabytes is wiped in a fraction of a second
            self.buckets.for_each_piece(&|| false, |piece| {
                for s in piece.iter().flat_map(|b| b.slots.iter()) {
                    s.write(0, 0);
                }
            });
            self.generation.store(1, Ordering::Relaxed);
        } else {
            self.generation.store(gen + 1, Ordering::Relaxed);
        }
    }

    #[inline(always)]
    fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed)
    }

    #[inline(always)]
    fn index(&self, key: u64, rest: u64) -> usize {
        // Fibonacci hashing, then a multiply-shift range reduction: any bucket count works.
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let n = self.buckets.len();
        let i = ((h as u128 * n as u128) >> 64) as usize;
        if rest == 0 {
            // every 64-bit board: the rest is the constant 0 and this branch folds away
            i
        } else {
            debug_assert!(n >= 1 << TAG_SHIFT, "a table too small for wide keys");
            let i = i + rest as usize % n;
            if i >= n {
                i - n
            } else {
                i
            }
        }
    }

    #[inline(always)]
    fn live(&self, data: u64) -> bool {
        (data >> WORK_SHIFT) & 63 != 0 && ((data >> GEN_SHIFT) & 0xFF) as u8 == self.generation()
    }

    /// Hints the CPU to load the bucket of `key` (used before the probe, to overlap the miss).
    #[inline(always)]
    pub fn prefetch<K: Bitboard>(&self, key: K) {
        #[cfg(target_arch = "x86_64")]
        {
            let (key, rest) = key.split();
            let p = &self.buckets[self.index(key, rest)] as *const Bucket as *const i8;
            // SAFETY: prefetching is only a hint and never faults; the pointer is in bounds.
            unsafe { std::arch::x86_64::_mm_prefetch(p, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline(always)]
    pub fn probe<K: Bitboard>(&self, key: K) -> Option<Entry> {
        let (key, rest) = key.split();
        let b = &self.buckets[self.index(key, rest)];
        for s in &b.slots {
            if let Some(d) = s.read(key) {
                if self.live(d) && same_tag::<K>(d, rest) {
                    return Some(decode(d));
                }
            }
        }
        None
    }

    /// Records exact-score bounds (merged with what is known), a best move and the work done.
    /// An unknown bound may be passed as `i32::MIN` / `i32::MAX`.
    #[inline(always)]
    pub fn store<K: Bitboard>(
        &self,
        key: K,
        lower: i32,
        upper: i32,
        best_move: Option<u8>,
        work: u32,
    ) {
        self.update(key, work, |old| {
            let lower = lower.clamp(-NO_BOUND, NO_BOUND);
            let upper = upper.clamp(-NO_BOUND, NO_BOUND);
            let (mut lo, mut hi, mut mv) = (lower, upper, best_move);
            if let Some(o) = old {
                lo = lo.max(o.lower);
                hi = hi.min(o.upper);
                if mv.is_none() {
                    mv = o.best_move;
                }
            }
            (lo, hi, mv, old.and_then(|o| o.heuristic))
        });
    }

    /// Records a depth-limited heuristic result and best move, keeping known exact bounds.
    pub fn store_heuristic<K: Bitboard>(
        &self,
        key: K,
        h: Heuristic,
        best_move: Option<u8>,
        work: u32,
    ) {
        self.update(key, work, |old| match old {
            Some(o) => (o.lower, o.upper, best_move.or(o.best_move), Some(h)),
            None => (-NO_BOUND, NO_BOUND, best_move, Some(h)),
        });
    }

    #[inline(always)]
    fn update<K: Bitboard>(
        &self,
        key: K,
        work: u32,
        merge: impl FnOnce(Option<Entry>) -> (i32, i32, Option<u8>, Option<Heuristic>),
    ) {
        let gen = self.generation();
        let (key, rest) = key.split();
        let idx = self.index(key, rest);
        let live = |d: u64| (d >> WORK_SHIFT) & 63 != 0 && ((d >> GEN_SHIFT) & 0xFF) as u8 == gen;
        let bucket = &self.buckets[idx];
        // the slot to write: the same key if present, else the cheapest (dead slots cost 0)
        let mut target = 0;
        let mut target_cost = u32::MAX;
        let mut old = None;
        for (i, s) in bucket.slots.iter().enumerate() {
            let (k, d) = s.load();
            if live(d) {
                if k == key && same_tag::<K>(d, rest) {
                    target = i;
                    old = Some(decode(d));
                    break;
                }
                let cost = ((d >> WORK_SHIFT) & 63) as u32;
                if cost < target_cost {
                    target = i;
                    target_cost = cost;
                }
            } else if target_cost > 0 {
                target = i;
                target_cost = 0;
            }
        }
        let work = work.clamp(1, 63).max(old.map_or(0, |o| o.work));
        let (lo, hi, mv, h) = merge(old);
        bucket.slots[target].write(key, encode(lo, hi, mv, work, gen, h) | tag::<K>(rest));
    }

    /// Permille of the first thousand slots in use by the current generation (UCI's hashfull).
    pub fn hashfull(&self) -> u32 {
        let mut used = 0u32;
        let mut seen = 0;
        'outer: for b in self.buckets.iter() {
            for s in &b.slots {
                if seen == 1000 {
                    break 'outer;
                }
                seen += 1;
                if self.live(s.load().1) {
                    used += 1;
                }
            }
        }
        (used * 1000).checked_div(seen).unwrap_or(0)
    }
}

fn buckets_in(mb: usize) -> usize {
    (mb.clamp(1, usize::MAX >> 21) << 20) / std::mem::size_of::<Bucket>()
}

/// The tag of a key's `rest` (its bits past 64), as the entry stores it.
#[inline(always)]
fn tag<K: Bitboard>(rest: u64) -> u64 {
    if K::BITS > 64 {
        (rest >> TAG_SHIFT) << TAG_BITS_SHIFT
    } else {
        0
    }
}

/// Whether the entry `d` carries the tag of `rest`; on the 64-bit boards every entry does.
#[inline(always)]
fn same_tag<K: Bitboard>(d: u64, rest: u64) -> bool {
    K::BITS <= 64 || d >> TAG_BITS_SHIFT == rest >> TAG_SHIFT
}

#[inline(always)]
fn encode(lo: i32, hi: i32, mv: Option<u8>, work: u32, gen: u8, h: Option<Heuristic>) -> u64 {
    let mut d = ((lo + SCORE_OFFSET) as u64 & 0xFF)
        | (((hi + SCORE_OFFSET) as u64 & 0xFF) << 8)
        | ((mv.map_or(0, |m| m as u64 + 1) & 0xF) << 16)
        | ((work as u64 & 63) << WORK_SHIFT)
        | ((gen as u64) << GEN_SHIFT);
    if let Some(h) = h {
        let kind = match h.bound {
            Bound::Lower => 1u64,
            Bound::Upper => 2,
            Bound::Exact => 3,
        };
        d |= ((h.value as u16 as u64) << HVAL_SHIFT)
            | ((h.depth.min(63) as u64) << HDEPTH_SHIFT)
            | (kind << HKIND_SHIFT);
    }
    d
}

#[inline(always)]
fn decode(d: u64) -> Entry {
    let mv = ((d >> 16) & 0xF) as u8;
    let heuristic = match (d >> HKIND_SHIFT) & 3 {
        0 => None,
        k => Some(Heuristic {
            value: ((d >> HVAL_SHIFT) & 0xFFFF) as u16 as i16,
            depth: ((d >> HDEPTH_SHIFT) & 63) as u8,
            bound: match k {
                1 => Bound::Lower,
                2 => Bound::Upper,
                _ => Bound::Exact,
            },
        }),
    };
    Entry {
        lower: (d & 0xFF) as i32 - SCORE_OFFSET,
        upper: ((d >> 8) & 0xFF) as i32 - SCORE_OFFSET,
        best_move: if mv == 0 { None } else { Some(mv - 1) },
        work: ((d >> WORK_SHIFT) & 63) as u32,
        heuristic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_merge() {
        let t = TransTable::new(1);
        assert!(
            t.probe(0u64).is_none(),
            "the empty board's key 0 must not read as present"
        );
        t.store(0u64, -3, 5, Some(3), 10);
        let e = t.probe(0u64).unwrap();
        assert_eq!(
            (e.lower, e.upper, e.best_move, e.work),
            (-3, 5, Some(3), 10)
        );
        t.store(0u64, -5, 2, None, 4);
        let e = t.probe(0u64).unwrap();
        assert_eq!(
            (e.lower, e.upper, e.best_move, e.work),
            (-3, 2, Some(3), 10)
        );
        t.store_heuristic(
            0u64,
            Heuristic {
                value: -1234,
                depth: 17,
                bound: Bound::Upper,
            },
            Some(6),
            3,
        );
        let e = t.probe(0u64).unwrap();
        assert_eq!((e.lower, e.upper, e.best_move), (-3, 2, Some(6)));
        assert_eq!(
            e.heuristic,
            Some(Heuristic {
                value: -1234,
                depth: 17,
                bound: Bound::Upper
            })
        );
    }

    #[test]
    fn clear_forgets_and_wraps_safely() {
        let t = TransTable::with_buckets(4);
        t.store(42u64, 1, 1, None, 1);
        t.clear();
        assert!(t.probe(42u64).is_none());
        for _ in 0..600 {
            t.store(42u64, 1, 1, None, 1);
            t.clear();
            assert!(t.probe(42u64).is_none());
        }
    }

    #[test]
    fn replacement_keeps_expensive_entries() {
        let t = TransTable::with_buckets(1);
        t.store(1u64, 0, 0, None, 50);
        for k in 2..100u64 {
            t.store(k, 0, 0, None, 2);
        }
        assert!(
            t.probe(1u64).is_some(),
            "the expensive entry must survive cheap ones"
        );
        assert!(
            t.probe(99u64).is_some(),
            "the newest entry is always written"
        );
        assert!(t.hashfull() > 0);
    }

    /// Four threads store and probe a 16-slot table at once. Every key always gets the same
    /// entry, so any entry read back for a key must be exactly that one: a pair of words from
    /// two different writes would show up as another entry.
    #[test]
    fn threads_never_read_a_torn_entry() {
        let expected = |key: u64| {
            let k = key as i32;
            (
                k % 20 - 10,
                k % 20 - 10 + (k % 3),
                (key % 7) as u8,
                1 + (key % 60) as u32,
            )
        };
        let t = TransTable::with_buckets(4);
        let reads = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|scope| {
            for id in 0..4u64 {
                let (t, reads) = (&t, &reads);
                scope.spawn(move || {
                    let mut x = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(id + 1);
                    for _ in 0..200_000 {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let key = 1 + x % 64;
                        let (lo, hi, mv, work) = expected(key);
                        t.store(key, lo, hi, Some(mv), work);
                        let other = 1 + (x >> 32) % 64;
                        if let Some(e) = t.probe(other) {
                            let (lo, hi, mv, work) = expected(other);
                            assert_eq!(
                                (e.lower, e.upper, e.best_move, e.work),
                                (lo, hi, Some(mv), work),
                                "key {other}"
                            );
                            reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert!(reads.into_inner() > 1000, "the threads read entries back");
    }

    /// The pages of `t`'s memory that are resident (Linux's mincore), and how many there are.
    #[cfg(target_os = "linux")]
    fn resident_pages(t: &TransTable) -> (usize, usize) {
        let bytes = t.size_bytes();
        let page = 4096;
        let mut vec = vec![0u8; bytes.div_ceil(page)];
        // SAFETY: the table's mapping is `bytes` long and page-aligned; vec has a byte per page.
        let r = unsafe {
            libc::mincore(
                t.buckets.as_ptr() as *mut libc::c_void,
                bytes,
                vec.as_mut_ptr(),
            )
        };
        assert_eq!(r, 0, "mincore");
        (vec.iter().filter(|&&b| b & 1 != 0).count(), vec.len())
    }

    /// A reserved table has taken no memory yet; prepared, every page of it is resident, and
    /// what it held is still there: a search on it never meets an untouched page.
    #[cfg(target_os = "linux")]
    #[test]
    fn prepare_takes_every_page_and_keeps_the_entries() {
        let t = TransTable::try_reserve(8, 0).expect("8 MB");
        let (resident, pages) = resident_pages(&t);
        assert!(pages >= 2048);
        t.store(12345u64, -3, 4, Some(2), 9);
        assert!(
            resident_pages(&t).0 < pages,
            "a reserved table is taken lazily ({resident} of {pages} pages before the store)"
        );
        assert!(t.prepare(&|| false));
        assert_eq!(resident_pages(&t), (pages, pages));
        let e = t.probe(12345u64).expect("kept");
        assert_eq!((e.lower, e.upper, e.best_move), (-3, 4, Some(2)));
        // the same from the constructors that prepare
        let t = TransTable::try_new(8).expect("8 MB");
        assert_eq!(resident_pages(&t), (pages, pages));
    }

    /// A preparation that is cancelled stops at once and says so.
    #[test]
    fn a_cancelled_preparation_says_so() {
        let t = TransTable::try_reserve(8, 0).expect("8 MB");
        assert!(!t.prepare(&|| true));
        assert!(t.prepare(&|| false));
    }

    /// The wipe of every 255th clear runs over the whole table: nothing of an old generation
    /// comes back when the generation number wraps.
    #[test]
    fn the_wipe_at_the_wrap_reaches_every_bucket() {
        let t = TransTable::with_buckets(1 << 17); // 8 MB: several pieces
        for k in 0..2000u64 {
            t.store(k * 0x9E37_79B9, 1, 1, None, 5);
        }
        for _ in 0..255 {
            t.clear();
        }
        // back at generation 1, where the entries were written
        assert!((0..2000u64).all(|k| t.probe(k * 0x9E37_79B9).is_none()));
        assert_eq!(t.hashfull(), 0);
    }

    /// Keys past 64 bits that agree in their low 64 bits are told apart by the bucket: each
    /// reads back its own entry, in the smallest table.
    #[test]
    fn wide_keys_that_share_their_low_bits_stay_apart() {
        // the fewest buckets wide keys may have: rests 2048 apart share a bucket, and only the
        // tag tells them apart, up to the widest key's (81 bits: rests below 2^17)
        let n = 1 << TAG_SHIFT;
        let t = TransTable::with_buckets(n as usize);
        let low = 0x0123_4567_89AB_CDEFu128;
        // a bucket's four slots: four rests of one bucket, and the two largest rests of another
        let rests: Vec<u128> = (0..4)
            .map(|i| 5 + i * n)
            .chain([(1 << 17) - 1, (1 << 17) - 1 - n])
            .chain(6..100)
            .collect();
        for &r in &rests {
            t.store(low | (r << 64), (r % 97) as i32, 100, None, 1);
        }
        for &r in &rests {
            let e = t.probe(low | (r << 64)).expect("stored");
            assert_eq!(e.lower, (r % 97) as i32, "rest {r}");
        }
        // same bucket, same stored bits, another tag
        assert!(t.probe(low | ((5 + 4 * n) << 64)).is_none());
        assert!(t.probe(low | (((1 << 17) - 1 - 2 * n) << 64)).is_none());
        assert!(t.probe(low | (300u128 << 64)).is_none());
    }
}
