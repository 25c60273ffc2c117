//! The UCI-style line protocol of protocol.md, by job: [`parse`] turns a line into a typed
//! command (a pure function), [`session`] is the loop that owns the protocol's state,
//! [`threads`] holds its reader and searcher threads, [`position`] the position typed by the
//! board size, [`go`] the plan of a search (limits and deadlines, a pure function),
//! [`format`](mod@format) what the engine writes about a search, [`bench`](mod@bench) the
//! signature of the whole engine through the path a GUI's commands take, and [`help`] what it
//! says to a person. The options are the engine's settings (`crate::engine::settings`).

pub mod bench;
pub mod format;
pub mod go;
pub mod help;
pub mod parse;
pub mod position;
pub mod session;
pub mod threads;

pub use session::run;
