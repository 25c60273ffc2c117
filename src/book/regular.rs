//! Opens a file for reading only when it is a regular file (issue 60). A book, a shard, a
//! journal or a list named by the user may be a FIFO (its open blocks until a writer comes), a
//! device (`/dev/zero` never ends) or a directory: each is refused with a reason that names
//! what it is, checked before opening, so that `BookFile`, `isready`, `quit`, `vier book info`
//! and `vier solve --book` always answer.

use std::fs::{File, FileType, Metadata, OpenOptions};
use std::io;
use std::path::Path;

/// The file at `path` (links followed), opened for reading, or why not: an error of kind
/// `InvalidInput` that says what the path is when it is no regular file.
pub fn open_regular(path: &Path) -> io::Result<File> {
    regular(&std::fs::metadata(path)?)?;
    let mut options = OpenOptions::new();
    options.read(true);
    // a path swapped for a FIFO between the check and the open still opens at once (and is
    // refused below); on a regular file the flag changes nothing
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    regular(&file.metadata()?)?;
    Ok(file)
}

fn regular(meta: &Metadata) -> io::Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("not a regular file but {}", what(meta.file_type())),
    ))
}

/// What a file that is no regular file is, in words.
fn what(t: FileType) -> &'static str {
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_opens_and_a_directory_is_refused_with_its_kind() {
        let dir = std::env::temp_dir().join(format!("vier-regular-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        std::fs::write(&file, b"x").unwrap();
        assert!(open_regular(&file).is_ok());
        let e = open_regular(&dir).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("a directory"), "{e}");
        #[cfg(unix)]
        {
            let e = open_regular(Path::new("/dev/zero")).unwrap_err();
            assert!(e.to_string().contains("a device"), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
