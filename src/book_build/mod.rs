//! Making and choosing books, above the solver that proves their entries: [`build`] makes and
//! checks books (whole, or in shards merged afterwards), [`select`] chooses the positions past
//! the full width that a build should add. The file they write is [`crate::book`]'s.

pub mod build;
pub mod select;

/// Why a book of this size is not built: books are written over 64-bit boards (their file's
/// keys and the shards'), so the sizes whose board needs 128 bits have none.
pub fn wide_refusal(size: crate::board::Size) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "no book for {size}: books are built for boards of at most 64 bits, and {size} needs {}",
            size.width() * (size.height() + 1)
        ),
    )
}
