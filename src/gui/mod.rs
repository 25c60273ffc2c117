//! `vier gui`: play and analyse in the browser. A local web server serves one embedded page and
//! runs an engine child process per game over the line protocol of `protocol.md`; the same
//! page also runs without a server, with the engine in WebAssembly (`web/`).
//!
//! [`state`] is one game as a state machine with no input or output, [`conductor`] the work its
//! engine does (which search next, what its reports change), [`game`] the rules as the page
//! needs them; all three build for the browser too (the `page` feature). The rest is the local
//! server's: [`local`] starts it, [`server`] is the HTTP side, [`session`] one tab's game and its
//! engine, [`child`] the engine's child process and the parsing of its output.

#[cfg(feature = "native")]
pub mod child;
pub mod conductor;
pub mod game;
#[cfg(feature = "native")]
pub mod local;
#[cfg(feature = "native")]
pub mod server;
#[cfg(feature = "native")]
pub mod session;
pub mod state;

#[cfg(feature = "native")]
pub use local::{command, run, GuiArgs, GuiOptions};
