pub mod engine;
pub mod parse;
