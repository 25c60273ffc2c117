pub mod parse;
pub mod engine;
