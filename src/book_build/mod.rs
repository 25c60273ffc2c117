//! Making and choosing books, above the solver that proves their entries; the file they write
//! is [`crate::book`]'s.
//!
//! A build solves every position with exactly `depth` discs and scores the shallower ones from
//! them; it runs whole in one process ([`build()`]) or split into shards solved anywhere
//! ([`build_shard`]) and merged ([`merge()`]), which makes the same book, byte for byte: the
//! whole build is itself the one shard `0/1` solved in process. The parts, each below the ones
//! that use it:
//!
//! - [`options`]: what a build is asked (its options, move lists, a given book), checked before
//!   anything is solved;
//! - [`plies`]: the positions ply by ply, and the shallower plies scored from the deeper;
//! - [`solve`]: a part of a ply solved on threads into the journal, resumable;
//! - [`build`](mod@build): a whole build and the finishing step that writes the book;
//! - [`shards`]: one shard of a split build; [`merge`](mod@merge): the shards made a book;
//! - [`verify`](mod@verify): a sample of a book solved again;
//! - [`select`]: which positions past the full width a build should add.

mod build;
mod merge;
mod options;
mod plies;
pub mod select;
mod shards;
mod solve;
mod verify;

pub use build::{build, build_sized};
pub use merge::{merge, MergeError, MergeOptions};
pub use options::{read_move_lines, read_move_list, BuildOptions};
pub use plies::{complete, enumerate};
pub use shards::build_shard;
pub use solve::solve_entry;
pub use verify::{verify, VerifySummary};
