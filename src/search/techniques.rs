//! Which techniques a search uses, as a plain description the searcher reads once per search.
//! The engine uses them all; the study ([`crate::study`]) switches them on one at a time to
//! measure what each buys. The switches below `engine` are what the simple searches of
//! [`super::simple`] read; the engine's own searcher always has them.

/// The techniques of one search, each a switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Techniques {
    /// Alpha-beta pruning; without it, plain minimax: every move searched with the full window.
    pub pruning: bool,
    /// Children ordered by the heuristic value of the position they lead to; without it, the
    /// columns left to right.
    pub ordering: bool,
    /// Iterative deepening that learns: the transposition table's move first, its bounds cut,
    /// the last iteration's best root move first. Without it each depth starts from scratch.
    pub table: bool,
    /// The engine's own searcher: PVS, killers, history, threat ordering, forced moves that use
    /// no depth, helper threads. It has the three techniques above whatever they say; without
    /// it the simple searcher runs with them, on one thread.
    pub engine: bool,
    /// The exact solver tried between iterations (with `engine`).
    pub solver: bool,
    /// The opening book: answers at the root and inside the solver's proofs (with `engine`).
    pub book: bool,
}

impl Techniques {
    /// Every technique: the engine as it plays.
    pub const ALL: Techniques = Techniques {
        pruning: true,
        ordering: true,
        table: true,
        engine: true,
        solver: true,
        book: true,
    };

    /// None: minimax with the heuristic at the horizon, columns left to right.
    pub const NONE: Techniques = Techniques {
        pruning: false,
        ordering: false,
        table: false,
        engine: false,
        solver: false,
        book: false,
    };
}

impl Default for Techniques {
    fn default() -> Self {
        Techniques::ALL
    }
}
