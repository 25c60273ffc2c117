//! What one search is asked, settled once before it deepens: the root, the root moves in
//! order, the lines, the depth, and its limits. Every part of a search reads it: the main
//! thread, the helpers, the prover, the study's simple searches.

use super::SearchLimits;
use crate::bits::Bitboard;
use crate::board::Position;
use crate::control::SearchControl;
use crate::ordering::column_order;
use crate::score::Value;
use std::sync::Arc;

/// What one search of a root that is no finished game is asked: settled once before it
/// deepens, and read by all its parts (the main thread, the helpers, the prover, the simple
/// searches).
pub(super) struct Job<'a, const W: usize, const H: usize, B: Bitboard> {
    pub(super) root: &'a Position<W, H, B>,
    /// The root moves to search, centre first: the `searchmoves` that are legal, or every
    /// legal column.
    pub(super) order: Vec<usize>,
    /// Lines to report: the limits' `multipv`, at most the moves in `order`.
    pub(super) multipv: usize,
    /// The deepest iteration: the limits' depth or the empty cells, whichever is fewer.
    pub(super) max_depth: u32,
    /// Only the best move is asked (one line, over every legal column): a move the book or a
    /// proof shows to keep the root's value answers it without the other columns' scores.
    pub(super) one_line: bool,
    /// The main thread gives the exact solver a try between iterations (one thread: with more,
    /// the prover proves beside the search instead).
    pub(super) interleave: bool,
    pub(super) limits: &'a SearchLimits,
    pub(super) control: &'a Arc<SearchControl>,
}

impl<'a, const W: usize, const H: usize, B: Bitboard> Job<'a, W, H, B> {
    pub(super) fn new(
        root: &'a Position<W, H, B>,
        limits: &'a SearchLimits,
        control: &'a Arc<SearchControl>,
        interleave: bool,
    ) -> Self {
        let legal: Vec<usize> = column_order::<W>()
            .into_iter()
            .filter(|&c| root.can_play(c))
            .collect();
        let mut order: Vec<usize> = legal
            .iter()
            .copied()
            .filter(|c| limits.searchmoves.contains(c))
            .collect();
        if order.is_empty() {
            order = legal;
        }
        let multipv = limits.multipv.clamp(1, order.len());
        let cells = (W * H) as u32;
        let max_depth = (cells - root.moves())
            .min(limits.depth.unwrap_or(u32::MAX))
            .max(1);
        let one_line = multipv == 1 && order.len() == root.legal_columns().count();
        Job {
            root,
            order,
            multipv,
            max_depth,
            one_line,
            interleave,
            limits,
            control,
        }
    }

    /// The proven value of the root (or of a root move) whose exact score is `s`.
    pub(super) fn proven(&self, s: i32) -> Value {
        Value::proven((W * H) as i32, self.root.moves() as i32, s)
    }
}
