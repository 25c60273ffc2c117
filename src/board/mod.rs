//! The board: the rules of Connect Four on bitboards of every supported size, positions as text,
//! perft, the run-time board size, and the one way from that size to code typed by it.
//!
//! The parts, from the ground up: [`rules`] (a [`Position`] typed by its width `W`, height `H`
//! and bitboard type `B`; moves, four in a row, keys), [`text`] (move strings, board strings,
//! FEN, the drawn board, and [`BoardError`]), [`perft`], [`size`] (a [`Size`] chosen at run
//! time) and [`any`] ([`AnyPosition`], the erased position every front end holds, and
//! [`SizedJob`]/[`PositionJob`], the only way from a run-time size to typed code), and
//! [`record`] (a game's moves from its start, with the ones taken back).

pub mod any;
pub mod perft;
pub mod record;
pub mod rules;
pub mod size;
pub mod text;

pub use any::{AnyPosition, PositionJob, SizedJob};
pub use perft::{perft, perft_until};
pub use record::Record;
pub use rules::{mirror, Cell, Geometry, Player, Position};
pub use size::{Size, SizeError};
pub use text::BoardError;
