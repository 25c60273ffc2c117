//! vier: a Connect Four engine.
//!
//! Modules by concern: [`board`] (rules, notation), [`tt`] (transposition table), [`ordering`]
//! (move ordering), [`solver`] (exact solver), [`protocol`] (the line protocol).

pub mod bench;
pub mod board;
pub mod book;
pub mod cli;
pub mod control;
pub mod eval;
pub mod ordering;
pub mod protocol;
pub mod score;
pub mod search;
pub mod solver;
pub mod time;
pub mod tt;
