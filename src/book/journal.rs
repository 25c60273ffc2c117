//! The journal of a book build: every solved position is appended at once, so that a build that
//! is interrupted (killed, out of time) resumes where it stopped.
//!
//! File format (`<out>.partial`, integers little-endian):
//!
//! ```text
//! offset     size  field
//!      0        8  magic "VIERJRN3"
//!      8        1  board width W
//!      9        1  board height H
//!     10  (Y+2)*N  N records: the position's symmetric key in Y = ceil(W*(H+1)/8) bytes (7 on
//!                    7x6, 9 or 10 on the boards past 64 bits), its exact score (i8), its best
//!                    move (u8: 1-based column in the key's orientation, as in the book)
//! ```
//!
//! The second format (magic "VIERJRN2") is this one with every key in 8 bytes (records of 10
//! bytes), so it has no room for the keys past 64 bits. Such a journal is still read, and a
//! build that resumes from it goes on appending 8-byte keys to it: an interrupted build of
//! an older vier resumes. A torn last record (a write cut short) is dropped when the journal
//! is opened; a journal of another board size, or of the first format (magic "VIERJRNL",
//! records without the move), is refused.

use super::format::Entry;
use super::keys::key_bytes;
use crate::bits::Bitboard;
use crate::board::Size;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

const JOURNAL_MAGIC: &[u8; 8] = b"VIERJRN3";
/// The format before keys took their board's bytes: 8 bytes a key.
const JOURNAL2_MAGIC: &[u8; 8] = b"VIERJRN2";
/// Bytes of the header: the magic and the size.
const HEADER: usize = 10;

/// The journal of a build writing `out`.
pub fn journal_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

/// A build's journal, open for appending.
pub struct Journal {
    file: File,
    /// Bytes of a record's key: the board's (format 3), or 8 (format 2).
    key_bytes: usize,
}

impl Journal {
    /// Reads the journal's `(key, entry)` records, creating the journal if there is none. A torn
    /// last record (from an interrupted write) is dropped and overwritten. The keys are of the
    /// board's bits type `B`.
    pub fn open<B: Bitboard>(path: &Path, size: Size) -> io::Result<(Journal, HashMap<B, Entry>)> {
        let header = |magic: &[u8; 8]| {
            let mut h = magic.to_vec();
            h.push(size.width() as u8);
            h.push(size.height() as u8);
            h
        };
        let mut known = HashMap::new();
        let own_bytes = key_bytes(size.width(), size.height());
        debug_assert!(own_bytes * 8 <= B::BITS as usize);
        if !path.exists() {
            let mut file = File::create(path)?;
            file.write_all(&header(JOURNAL_MAGIC))?;
            let key_bytes = own_bytes;
            return Ok((Journal { file, key_bytes }, known));
        }
        let mut bytes = Vec::new();
        super::regular::open_regular(path)?.read_to_end(&mut bytes)?;
        let head = bytes.get(..HEADER);
        let key_bytes = if head == Some(&header(JOURNAL_MAGIC)[..]) {
            own_bytes
        } else if head == Some(&header(JOURNAL2_MAGIC)[..]) && own_bytes <= 8 {
            8
        } else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} is not a journal of a {size} book build; remove it to start over",
                    path.display()
                ),
            ));
        };
        let record = key_bytes + 2;
        let body = &bytes[HEADER..];
        for r in body.chunks_exact(record) {
            let mut k = [0u8; 16];
            k[..key_bytes].copy_from_slice(&r[..key_bytes]);
            let (score, best) = (r[key_bytes], r[key_bytes + 1]);
            known.insert(
                B::from_u128(u128::from_le_bytes(k)),
                Entry {
                    score: score as i8,
                    // a move that is no column is found again
                    best: if best as usize <= size.width() {
                        best
                    } else {
                        0
                    },
                },
            );
        }
        let whole = HEADER + body.len() / record * record;
        let f = OpenOptions::new().write(true).open(path)?;
        f.set_len(whole as u64)?;
        drop(f);
        let file = OpenOptions::new().append(true).open(path)?;
        Ok((Journal { file, key_bytes }, known))
    }

    /// Appends one solved position.
    pub fn append<B: Bitboard>(&mut self, key: B, e: Entry) -> io::Result<()> {
        let mut rec = [0u8; 18];
        let kb = self.key_bytes;
        rec[..kb].copy_from_slice(&key.to_u128().to_le_bytes()[..kb]);
        rec[kb] = e.score as u8;
        rec[kb + 1] = e.best;
        self.file.write_all(&rec[..kb + 2])
    }

    /// Flushes the journal to the disk.
    pub fn sync(&self) -> io::Result<()> {
        self.file.sync_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("vier-journal-{}-{name}", std::process::id()))
    }

    /// Keys of `size`'s bits type, the top one of its `W*(H+1)` bits set (past bit 64 on the
    /// wide boards), with their entries.
    fn records<B: Bitboard>(size: Size) -> Vec<(B, Entry)> {
        let bits = size.width() * (size.height() + 1);
        (0..20u128)
            .map(|i| {
                let key = B::from_u128((1 << (bits - 1)) | (i * 0x1_0001));
                (
                    key,
                    Entry::new(i as i32 % 5 - 2, Some(i as usize % size.width())),
                )
            })
            .collect()
    }

    fn round_trip<B: Bitboard>(size: Size) {
        let path = temp(&size.to_string());
        let _ = std::fs::remove_file(&path);
        let written = records::<B>(size);
        let (mut journal, known) = Journal::open::<B>(&path, size).unwrap();
        assert!(known.is_empty());
        for &(k, e) in &written {
            journal.append(k, e).unwrap();
        }
        drop(journal);
        let mut bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], JOURNAL_MAGIC);
        let record = key_bytes(size.width(), size.height()) + 2;
        assert_eq!(bytes.len(), HEADER + written.len() * record, "{size}");
        // a torn record is dropped
        bytes.extend_from_slice(&[9; 5]);
        std::fs::write(&path, &bytes).unwrap();
        let (_, known) = Journal::open::<B>(&path, size).unwrap();
        assert_eq!(known, written.iter().copied().collect(), "{size}");
        assert_eq!(
            std::fs::metadata(&path).unwrap().len() as usize,
            HEADER + written.len() * record
        );
        // another size's build does not take it
        let other = if size.width() == 5 { "6x10" } else { "5x12" };
        let err = Journal::open::<u128>(&path, other.parse().unwrap())
            .err()
            .unwrap();
        assert!(err.to_string().contains("not a journal of a"), "{err}");
        std::fs::remove_file(&path).unwrap();
    }

    /// A journal keeps every record's key whole, in its board's bytes: 9 and 10 on the boards
    /// past 64 bits, 7 on 7x6.
    #[test]
    fn journals_of_wide_and_narrow_boards_read_back() {
        for size in ["5x12", "11x5", "8x9", "6x12", "9x7"] {
            round_trip::<u128>(size.parse().unwrap());
        }
        round_trip::<u64>("7x6".parse().unwrap());
        round_trip::<u64>("8x7".parse().unwrap());
    }

    /// A journal of the second format (8-byte keys) resumes, and goes on in its own layout;
    /// a board past 64 bits cannot have one.
    #[test]
    fn a_journal_of_the_second_format_resumes_in_its_layout() {
        let size: Size = "7x6".parse().unwrap();
        let path = temp("jrn2");
        let mut bytes = b"VIERJRN2\x07\x06".to_vec();
        bytes.extend_from_slice(&0x0012_3456_789a_u64.to_le_bytes());
        bytes.extend_from_slice(&[(-3i8) as u8, 4]);
        std::fs::write(&path, &bytes).unwrap();
        let (mut journal, known) = Journal::open::<u64>(&path, size).unwrap();
        assert_eq!(known, [(0x0012_3456_789a, Entry::new(-3, Some(3)))].into());
        journal.append(77u64, Entry::new(5, Some(0))).unwrap();
        drop(journal);
        assert_eq!(std::fs::read(&path).unwrap().len(), 10 + 2 * 10);
        let (_, known) = Journal::open::<u64>(&path, size).unwrap();
        assert_eq!(known.len(), 2);
        assert_eq!(known[&77], Entry::new(5, Some(0)));
        std::fs::write(&path, b"VIERJRN2\x05\x0c").unwrap();
        let err = Journal::open::<u128>(&path, "5x12".parse().unwrap())
            .err()
            .unwrap();
        assert!(err.to_string().contains("not a journal of a 5x12"), "{err}");
        std::fs::remove_file(&path).unwrap();
    }
}
