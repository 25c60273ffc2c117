//! `vier gui`: play and analyse in the browser. A local web server serves one embedded page and
//! runs an engine child process per game over the line protocol of `protocol.md`; the same
//! page also runs without a server, with the engine in WebAssembly (`web/`).
//!
//! The game, with no input or output of its own, by job: [`game`] the game itself (its record,
//! sides and settings, the person's moves), [`change`] the changes the page asks for and their
//! one dispatch, [`plan`] the engine's next search and what its answers change, [`saved`] the
//! link and what a reload restores, [`snapshot`] what the page draws; [`conductor`] runs the
//! engine's work for both drivers, [`view`] the rules as the page needs them, [`review`] a
//! game's review, [`words`] the values in a player's words and [`published`] the published
//! results of the empty boards. All of these build for the browser too (the `page` feature).
//!
//! The rest is the local server's: [`local`] starts it, [`server`] is the HTTP side, [`tab`]
//! one tab's game and its engine, [`child`] the engine's child process and the parsing of its
//! output; on Unix each engine runs under [`crate::keeper`], which ends it with all it started.

pub mod change;
#[cfg(feature = "native")]
pub mod child;
pub mod conductor;
pub mod game;
#[cfg(feature = "native")]
pub mod local;
pub mod plan;
pub mod published;
pub mod review;
pub mod saved;
#[cfg(feature = "native")]
pub mod server;
pub mod snapshot;
#[cfg(feature = "native")]
pub mod tab;
pub mod view;
pub mod words;

#[cfg(feature = "native")]
pub use local::{command, run, GuiArgs, GuiOptions};
