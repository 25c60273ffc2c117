//! vier: a Connect Four engine.
//!
//! Modules by concern, from the ground up:
//!
//! - [`board`]: the rules on bitboards of every supported size, notation, perft;
//! - [`score`]: the score encoding (exact score, winning disc, `mate N`, moves left, WDL);
//! - [`tt`]: the transposition table; [`ordering`]: move ordering; [`eval`]: the heuristic
//!   evaluation at the search's horizon;
//! - [`solver`]: the exact solver; [`search`]: the time-limited searcher (iterative deepening,
//!   with the solver interleaved); [`ablation`]: the study's lower levels of the searcher;
//! - [`time`]: time management (a typed limit in, deadlines out); [`control`]: the one stop
//!   rule the searcher and the solver poll;
//! - [`levels`]: strength levels, a weaker player's choice among the engine's values;
//! - [`book`]: the opening book (file format, building, the choice of book);
//! - [`bench`](mod@bench): the deterministic node-count signature of the whole engine;
//! - [`protocol`]: the UCI-style line protocol of protocol.md;
//! - [`gui`]: `vier gui`, a local web server that plays and analyses in the browser, talking to
//!   an engine process over the protocol;
//! - [`cli`]: the subcommands people run (`vier play`, `solve`, `book`, `perft`), thin layers
//!   of input and output over the rest.

pub mod ablation;
pub mod bench;
pub mod board;
pub mod book;
pub mod cli;
pub mod control;
pub mod eval;
pub mod gui;
pub mod levels;
pub mod ordering;
pub mod protocol;
pub mod score;
pub mod search;
pub mod solver;
pub mod time;
pub mod tt;
