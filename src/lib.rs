//! vier: a Connect Four engine.
//!
//! Modules by concern: [`board`] (rules, notation), [`tt`] (transposition table), [`ordering`]
//! (move ordering), [`solver`] (exact solver), [`protocol`] (the line protocol).

pub mod board;
pub mod cli;
pub mod ordering;
pub mod protocol;
pub mod solver;
pub mod tt;
