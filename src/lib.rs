//! vier: a Connect Four engine.
//!
//! Modules by concern, from the ground up:
//!
//! - [`board`]: the rules on bitboards of every supported size, notation, perft;
//! - [`score`]: the score encoding (exact score, winning disc, `mate N`, moves left, WDL);
//! - [`tt`]: the transposition table; [`ordering`]: move ordering; [`eval`]: the heuristic
//!   evaluation at the search's horizon;
//! - [`solver`]: the exact solver; [`search`]: the time-limited searcher (iterative deepening,
//!   with the solver interleaved), told which techniques to use; [`study`]: the study's levels,
//!   values of those techniques;
//! - [`time`]: time management (a typed limit in, deadlines out); [`control`]: the one stop
//!   rule the searcher and the solver poll;
//! - [`book`]: the opening book's files and lookups (format, shards, the choice of book), below
//!   the solver; `book_build`: making and choosing books with the solver, above it (offline
//!   code: compiled with the `book-build` feature only);
//! - [`protocol`]: the UCI-style line protocol of protocol.md, and `vier bench`'s deterministic
//!   node-count signature of the whole engine through the protocol's path;
//! - [`levels`]: strength levels, a weaker player's choice among the engine's values of the
//!   columns (above the search, below the fronts);
//! - [`gui`]: `vier gui`, a local web server that plays and analyses in the browser, talking to
//!   an engine process over the protocol;
//! - [`api`]: the engine with the board size chosen at run time, for the Python package and
//!   [`serve`], the HTTP solve endpoint in the shape of Pons' web solver (`vier serve`, `vier gui`);
//! - [`http`]: the bounded connections of both HTTP servers (how many, how long idle);
//! - [`cli`]: the subcommands people run (`vier play`, `solve`, `book`, `perft`), thin layers
//!   of input and output over the rest.

pub mod api;
pub mod bits;
pub mod board;
pub mod book;
#[cfg(feature = "book-build")]
pub mod book_build;
pub mod cli;
pub mod control;
pub mod eval;
pub mod gui;
pub mod http;
pub mod levels;
pub mod notation;
pub mod ordering;
pub mod protocol;
pub mod score;
pub mod search;
pub mod serve;
pub mod solver;
pub mod study;
pub mod time;
pub mod tt;
