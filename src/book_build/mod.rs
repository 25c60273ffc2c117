//! Making and choosing books, above the solver that proves their entries: [`build`] makes and
//! checks books (whole, or in shards merged afterwards), [`select`] chooses the positions past
//! the full width that a build should add. The file they write is [`crate::book`]'s.

pub mod build;
pub mod select;
