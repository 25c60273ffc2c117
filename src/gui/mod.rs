//! `vier gui`: play and analyse in the browser. A local web server serves one embedded page and
//! runs an engine child process per game over the line protocol of `protocol.md`; the same
//! page also runs without a server, with the engine in WebAssembly (`web/`).
//!
//! [`state`] is one game as a state machine with no input or output, [`conductor`] the work its
//! engine does (which search next, what its reports change), [`game`] the rules as the page
//! needs them, [`review`] a game's review, [`words`] the values in a player's words and
//! [`published`] the published results of the empty boards; all of these build for the browser
//! too (the `page` feature). The rest is the local
//! server's: [`local`] starts it, [`server`] is the HTTP side, [`session`] one tab's game and its
//! engine, [`child`] the engine's child process and the parsing of its output, `keeper` (on
//! Unix) the process between the GUI and each engine that ends the engine with all it started.

#[cfg(feature = "native")]
pub mod child;
pub mod conductor;
pub mod game;
#[cfg(all(feature = "native", unix))]
pub mod keeper;
#[cfg(feature = "native")]
pub mod local;
pub mod published;
pub mod review;
#[cfg(feature = "native")]
pub mod server;
#[cfg(feature = "native")]
pub mod session;
pub mod state;
pub mod words;

#[cfg(feature = "native")]
pub use local::{command, run, GuiArgs, GuiOptions};
