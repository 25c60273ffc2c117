//! The journal of a book build: every solved position is appended at once, so that a build that
//! is interrupted (killed, out of time) resumes where it stopped.
//!
//! File format (`<out>.partial`, integers little-endian):
//!
//! ```text
//! offset  size  field
//!      0     8  magic "VIERJRN2"
//!      8     1  board width W
//!      9     1  board height H
//!     10  10*N  N records: the position's symmetric key (u64), its exact score (i8), its best
//!                 move (u8: 1-based column in the key's orientation, as in the book)
//! ```
//!
//! A torn last record (a write cut short) is dropped when the journal is opened; a journal of
//! another board size, or of the first format (magic "VIERJRNL", records without the move), is
//! refused.

use super::format::Entry;
use crate::board::Size;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

const JOURNAL_MAGIC: &[u8; 8] = b"VIERJRN2";
/// Bytes per record: key, score and best move.
const RECORD: usize = 10;

/// The journal of a build writing `out`.
pub fn journal_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

/// A build's journal, open for appending.
pub struct Journal(File);

impl Journal {
    /// Reads the journal's `(key, entry)` records, creating the journal if there is none. A torn
    /// last record (from an interrupted write) is dropped and overwritten.
    pub fn open(path: &Path, size: Size) -> io::Result<(Journal, HashMap<u64, Entry>)> {
        let header = {
            let mut h = JOURNAL_MAGIC.to_vec();
            h.push(size.width() as u8);
            h.push(size.height() as u8);
            h
        };
        let mut known = HashMap::new();
        if path.exists() {
            let mut bytes = Vec::new();
            File::open(path)?.read_to_end(&mut bytes)?;
            if bytes.len() < header.len() || bytes[..header.len()] != header[..] {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{} is not a journal of a {size} book build; remove it to start over",
                        path.display()
                    ),
                ));
            }
            let body = &bytes[header.len()..];
            for r in body.chunks_exact(RECORD) {
                let key = u64::from_le_bytes(r[..8].try_into().expect("8 bytes"));
                known.insert(
                    key,
                    Entry {
                        score: r[8] as i8,
                        // a move that is no column is found again
                        best: if r[9] as usize <= size.width() {
                            r[9]
                        } else {
                            0
                        },
                    },
                );
            }
            let whole = header.len() + body.len() / RECORD * RECORD;
            let f = OpenOptions::new().write(true).open(path)?;
            f.set_len(whole as u64)?;
            drop(f);
            let f = OpenOptions::new().append(true).open(path)?;
            Ok((Journal(f), known))
        } else {
            let mut f = File::create(path)?;
            f.write_all(&header)?;
            Ok((Journal(f), known))
        }
    }

    /// Appends one solved position.
    pub fn append(&mut self, key: u64, e: Entry) -> io::Result<()> {
        let mut rec = [0u8; RECORD];
        rec[..8].copy_from_slice(&key.to_le_bytes());
        rec[8] = e.score as u8;
        rec[9] = e.best;
        self.0.write_all(&rec)
    }

    /// Flushes the journal to the disk.
    pub fn sync(&self) -> io::Result<()> {
        self.0.sync_all()
    }
}
