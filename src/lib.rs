//! vier: a Connect Four engine.
//!
//! Modules by concern: [`board`] (rules, notation), [`tt`] (transposition table), [`ordering`]
//! (move ordering), [`solver`] (exact solver), [`protocol`] (the line protocol).

pub mod board;
pub mod book;
pub mod cli;
pub mod eval;
pub mod gui;
pub mod ordering;
pub mod protocol;
pub mod search;
pub mod solver;
pub mod time;
pub mod tt;
