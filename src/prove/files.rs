//! The state folder's files read and written as untrusted places: a file is read only if it is
//! a regular file (not a FIFO, a device or a symbolic link) of at most a size given, and a
//! file is written only as a new file (`O_EXCL`, `O_NOFOLLOW`), so that a link planted in a
//! shared folder cannot redirect a write nor a `/dev/zero` fill the memory.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

/// The most bytes of each kind of file.
pub const MAX_PROOF: u64 = 4 << 10;
pub const MAX_JOB: u64 = 64 << 10;
/// A job's lines: 32 positions, each with up to 2 x (16 + 16^2 + 64) learnt lines of 60 bytes
/// at most (`--learnt 2`, and the deeper ones), fit.
pub const MAX_RESULT: u64 = 2 << 20;
/// A Slurm task's output: a job's lines, and what Slurm adds.
pub const MAX_TASK: u64 = 4 << 20;
pub const MAX_EXPANDED: u64 = 16 << 20;
pub const MAX_CERTIFICATE: u64 = 64 << 20;

/// Opens `path` to read: no link followed, no wait on a FIFO, and only a regular file.
fn open_regular(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let f = o.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return io::Error::other("a symbolic link, not a file: not read");
        }
        e
    })?;
    if !f.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file: not read"));
    }
    Ok(f)
}

/// The bytes of the regular file `path`, refused when it holds more than `max` (the error
/// names the file).
pub fn read_bounded(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    read(path, max).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => e,
        kind => io::Error::new(kind, format!("{}: {e}", path.display())),
    })
}

fn read(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let f = open_regular(path)?;
    let len = f.metadata()?.len();
    if len > max {
        return Err(io::Error::other(format!(
            "{len} bytes, more than the {max} such a file holds: not read"
        )));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // a file that grows while it is read is cut at the limit, and refused
    f.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::other(format!(
            "more than the {max} bytes such a file holds: not read"
        )));
    }
    Ok(bytes)
}

/// [`read_bounded`] as text: a file that is not UTF-8 is refused.
pub fn read_text(path: &Path, max: u64) -> io::Result<String> {
    String::from_utf8(read_bounded(path, max)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text: not read"))
}

/// Options that open only what is there or new, never through a link.
pub fn no_follow() -> OpenOptions {
    let mut o = OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut o, libc::O_NOFOLLOW);
    o
}

/// Creates `path` as a new file (what is there, a planted link included, is removed first:
/// the name is this process's own), to write.
pub fn create_new(path: &Path) -> io::Result<File> {
    match no_follow().write(true).create_new(true).open(path) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(path)?;
            no_follow().write(true).create_new(true).open(path)
        }
        r => r,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_their_size_are_read_and_links_are_never_written_through() {
        let dir = std::env::temp_dir().join(format!("vier-prove-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let small = dir.join("small");
        std::fs::write(&small, "abc\n").unwrap();
        assert_eq!(read_text(&small, 4).unwrap(), "abc\n");
        assert!(read_text(&small, 3).is_err(), "larger than its limit");
        // a device that never ends, a link, a FIFO (which would block an open without
        // O_NONBLOCK), a folder
        assert!(read_bounded(Path::new("/dev/zero"), 1 << 20).is_err());
        let link = dir.join("link");
        std::os::unix::fs::symlink(&small, &link).unwrap();
        assert!(read_bounded(&link, 1 << 20).is_err());
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a path made above, NUL-terminated
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(read_bounded(&fifo, 1 << 20).is_err());
        assert!(read_bounded(&dir, 1 << 20).is_err());
        // a link planted where a new file goes: the link goes, its target stays
        let target = dir.join("target");
        std::fs::write(&target, "keep").unwrap();
        let planted = dir.join("new");
        std::os::unix::fs::symlink(&target, &planted).unwrap();
        use std::io::Write;
        create_new(&planted).unwrap().write_all(b"mine").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&planted).unwrap(), "mine");
        assert!(!std::fs::symlink_metadata(&planted).unwrap().is_symlink());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
