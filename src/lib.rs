//! vier: a Connect Four engine.
pub mod protocol;
