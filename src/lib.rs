//! vier: a Connect Four engine.
//!
//! Modules by concern, from the ground up (docs/architecture.md draws the layers, and
//! `tests/layers.rs` holds the code to them):
//!
//! - [`rng`]: SplitMix64, the one mixer and seedable generator; [`bits`]: the bitboard type
//!   and the one registry of sizes; [`notation`]: how move strings write columns;
//! - [`board`]: the rules on bitboards of every size, positions as text, perft, and
//!   [`board::AnyPosition`] with [`board::SizedJob`]: the one way from a run-time size to typed
//!   code;
//! - [`score`]: the score encoding; [`tt`], [`ordering`], [`eval`]: the table, move order, the
//!   heuristic at the search's horizon;
//! - [`time`]: a typed limit in, deadlines out; [`clock`]: the host's clock; [`control`]: the
//!   one stop rule the searcher and the solver poll;
//! - [`book`]: the opening book's files and lookups, below the solver; [`solver`]: the exact
//!   solver; [`search`]: the time-limited searcher with the solver interleaved;
//! - [`study`]: the study's search levels; [`levels`]: skill levels, a weaker player's choice
//!   among the engine's values of the columns;
//! - [`engine`]: the engine service every front end calls (a move with its progress, exact
//!   answers within a budget); `book_build`: making books (the `book-build` feature); `prove`:
//!   a proof split into jobs for many machines (the `prove` feature);
//! - [`http`]: the bounded connections of both HTTP servers (how many, how long idle);
//! - the front ends, with the `native` feature: [`serve`] (HTTP `/solve`), [`protocol`] (the
//!   line protocol and `vier bench`), [`cli`] (`vier play`, `solve`, `book`, `perft`) and
//!   [`gui`] (`vier gui`; its game state machine also builds alone, with `page`, for the page
//!   in the browser).
//!
//! Without the default features the crate is the engine core alone (no clap, axum, tokio or
//! threads), and builds for `wasm32-unknown-unknown`.

pub mod bits;
pub mod board;
pub mod book;
#[cfg(feature = "book-build")]
pub mod book_build;
#[cfg(feature = "native")]
pub mod cli;
pub mod clock;
pub mod control;
pub mod engine;
pub mod eval;
#[cfg(feature = "page")]
pub mod gui;
#[cfg(feature = "native")]
pub mod http;
#[cfg(all(feature = "native", unix))]
pub mod keeper;
pub mod levels;
pub mod notation;
pub mod ordering;
#[cfg(feature = "native")]
pub mod protocol;
#[cfg(feature = "prove")]
pub mod prove;
/// Without the `prove` feature, `vier prove`'s ranges alone: its arguments are declared (and
/// checked) in every build.
#[cfg(not(feature = "prove"))]
pub mod prove {
    pub mod settings;
}
pub mod rng;
pub mod score;
pub mod search;
#[cfg(feature = "native")]
pub mod serve;
pub mod solve_line;
pub mod solver;
pub mod study;
pub mod time;
pub mod tt;
