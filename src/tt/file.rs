//! A table kept in a file: processes that open the same file share one table, as threads share
//! one in memory, and what it holds outlives them (`vier solve --table-file`, the jobs of `vier
//! prove` on one machine). Best on a file system in memory (`/dev/shm`): the table is written at
//! random, and a file on a disk would be written back to it again and again.
//!
//! The file is a header page, then the buckets as [`super::TransTable`] lays them out:
//!
//! ```text
//!  bytes  0..8     "vier-tt" and the format (1): a file of another format is refused
//!  bytes  8..16    bucket count (u64, little-endian)
//!  bytes 16..18    board width (u16)       bytes 18..20  board height (u16)
//!  bytes 20..4096  zero
//!  bytes 4096..    the buckets, 64 bytes each
//! ```
//!
//! The header is checked against the table asked for (format, board, buckets, the file's
//! length) before the buckets are mapped: the positions' keys and the bucket index depend on
//! all of them. The entries themselves are trusted as the process's own memory is: whoever can
//! write the file can make answers wrong, which is why `vier prove --verify` never uses one.
//! The first process to open a missing or empty file makes it, under an exclusive lock, with
//! all its space taken at once: a file system that has no room refuses it then, not with a
//! fault in the middle of a search.

use super::memory::Pages;
use super::TableError;
use std::fs::{File, OpenOptions};
use std::path::Path;

/// The first bytes: the name, then the format (changed whenever the key, the index or an
/// entry's layout is).
const MAGIC: [u8; 8] = *b"vier-tt\x01";
/// The header's bytes: one page, so that the buckets' mapping starts on a page.
pub(super) const HEADER: u64 = 4096;

/// The header of a table of `buckets` buckets on a `width` x `height` board.
fn header(buckets: u64, width: usize, height: usize) -> [u8; 20] {
    let mut h = [0u8; 20];
    h[..8].copy_from_slice(&MAGIC);
    h[8..16].copy_from_slice(&buckets.to_le_bytes());
    h[16..18].copy_from_slice(&(width as u16).to_le_bytes());
    h[18..20].copy_from_slice(&(height as u16).to_le_bytes());
    h
}

/// What a header says, in words, for an error.
fn describe(h: &[u8; 20]) -> String {
    if h[..8] != MAGIC {
        return "not a vier table (or one of another format)".into();
    }
    let buckets = u64::from_le_bytes(h[8..16].try_into().unwrap_or_default());
    let w = u16::from_le_bytes([h[16], h[17]]);
    let ht = u16::from_le_bytes([h[18], h[19]]);
    format!(
        "a table of {} MB for {w}x{ht}",
        buckets.saturating_mul(64) >> 20
    )
}

/// The buckets stored in the file at `path`, made (with its header) if it is missing or empty.
///
/// # Safety
/// All-zero bytes, and any bytes, must be a valid `T` of 64 bytes (a bucket of atomics is).
pub(super) unsafe fn open<T: Sync>(
    path: &Path,
    buckets: usize,
    (width, height): (usize, usize),
) -> Result<Pages<T>, TableError> {
    let fail = |why: String| TableError::File {
        path: path.display().to_string(),
        why,
    };
    let io = |e: std::io::Error| fail(e.to_string());
    let want = header(buckets as u64, width, height);
    let bytes = (buckets as u64)
        .checked_mul(std::mem::size_of::<T>() as u64)
        .and_then(|b| b.checked_add(HEADER))
        .ok_or_else(|| fail("too large".into()))?;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io)?;
    let _lock = Lock::exclusive(&file).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let mut found = [0u8; 20];
    if len >= HEADER {
        read_at(&file, &mut found).map_err(io)?;
    }
    // a file another process began to make and never finished reads as one to make
    let unmade = len == 0 || (len == bytes && found == [0; 20]);
    if unmade {
        crate::tt::check_size_freeing((bytes >> 20) as usize, 0)?;
        file.set_len(0).map_err(io)?;
        take_space(&file, bytes).map_err(|e| {
            let _ = file.set_len(0);
            fail(format!("no room for {} MB: {e}", bytes >> 20))
        })?;
        write_at(&file, &want).map_err(io)?;
    } else if found != want {
        return Err(fail(format!(
            "{}, not the table asked for ({})",
            describe(&found),
            describe(&want)
        )));
    } else if len != bytes {
        return Err(fail(format!(
            "{len} bytes, where its header says {bytes}: cut short or grown"
        )));
    }
    // SAFETY: the file holds the header and `buckets` items (checked or made above); the
    // caller vouches for the items' bytes.
    unsafe { Pages::map_file(&file, HEADER, buckets) }.ok_or(TableError::Refused {
        mb: (bytes >> 20) as usize,
    })
}

/// An exclusive lock on a file, released when dropped (or when the process ends).
struct Lock<'a>(&'a File);

impl<'a> Lock<'a> {
    fn exclusive(file: &'a File) -> std::io::Result<Lock<'a>> {
        use std::os::fd::AsRawFd;
        // SAFETY: flock only locks the open file.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Lock(file))
    }
}

impl Drop for Lock<'_> {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: unlocks the lock taken in `exclusive`.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

/// Makes the file `bytes` long with all its space taken now (zeroed).
fn take_space(file: &File, bytes: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let len = libc::off_t::try_from(bytes).map_err(std::io::Error::other)?;
    // SAFETY: reserves the open file's blocks; returns an error number, not -1 and errno.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) } {
        0 => Ok(()),
        // a file system that cannot reserve space: a plain length (pages taken as touched)
        libc::EOPNOTSUPP | libc::EINVAL => file.set_len(bytes),
        e => Err(std::io::Error::from_raw_os_error(e)),
    }
}

fn read_at(file: &File, buf: &mut [u8]) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, 0)
}

fn write_at(file: &File, buf: &[u8]) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, 0)
}

#[cfg(test)]
mod tests {
    use super::super::TransTable;
    use std::path::PathBuf;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("vier-tt-file-{}-{name}", std::process::id()))
    }

    #[test]
    fn tables_opened_on_one_file_share_their_entries_and_outlive_each_other() {
        let path = temp("share");
        let _ = std::fs::remove_file(&path);
        let a = TransTable::open_file(&path, 1, (7, 6)).unwrap();
        let b = TransTable::open_file(&path, 1, (7, 6)).unwrap();
        a.store(12345u64, -3, 5, Some(2), 10);
        let seen = b.probe(12345u64).expect("the other table reads it");
        assert_eq!((seen.lower, seen.upper, seen.best_move), (-3, 5, Some(2)));
        // a clear of a file's table forgets nothing: others share it
        b.clear();
        assert!(a.probe(12345u64).is_some());
        drop((a, b));
        let c = TransTable::open_file(&path, 1, (7, 6)).unwrap();
        assert_eq!(c.probe(12345u64).map(|e| e.lower), Some(-3));
        assert!(c.probe(54321u64).is_none());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_file_of_another_table_is_refused_and_left_as_it_was() {
        let path = temp("other");
        let _ = std::fs::remove_file(&path);
        drop(TransTable::open_file(&path, 1, (7, 6)).unwrap());
        let before = std::fs::read(&path).unwrap();
        for (mb, board, says) in [(2, (7, 6), "1 MB for 7x6"), (1, (6, 7), "1 MB for 7x6")] {
            let e = TransTable::open_file(&path, mb, board)
                .err()
                .expect("refused");
            assert!(e.to_string().contains(says), "{e}");
        }
        assert_eq!(std::fs::read(&path).unwrap(), before);
        // cut short: refused, not mapped past its end
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(before.len() as u64 - 64).unwrap();
        let e = TransTable::open_file(&path, 1, (7, 6))
            .err()
            .expect("refused");
        assert!(e.to_string().contains("cut short"), "{e}");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_file_that_is_not_a_table_is_refused_unchanged() {
        let path = temp("junk");
        let junk: Vec<u8> = (0..(1 << 20) + 4096).map(|i| (i * 7 + 3) as u8).collect();
        std::fs::write(&path, &junk).unwrap();
        let e = TransTable::open_file(&path, 1, (7, 6))
            .err()
            .expect("refused");
        assert!(e.to_string().contains("not a vier table"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), junk);
        let _ = std::fs::remove_file(&path);
    }
}
