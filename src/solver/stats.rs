//! Counts of where the solver's work goes, compiled with the `stats` feature only: the nodes
//! searched by the number of discs on the board, all threads together. Set against one
//! thread's counts, they show at which depth helper threads duplicate work. `vier solve` built
//! with the feature adds them, over all its positions, to its summary.

use crate::bits::{MAX_HEIGHT, MAX_WIDTH};
use std::fmt;

/// One count per number of discs, for the largest board.
const DISCS: usize = MAX_WIDTH * MAX_HEIGHT + 1;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    nodes_by_discs: [u64; DISCS],
}

impl Default for Stats {
    fn default() -> Stats {
        Stats {
            nodes_by_discs: [0; DISCS],
        }
    }
}

impl Stats {
    #[inline(always)]
    pub(super) fn node(&mut self, discs: u32) {
        self.nodes_by_discs[discs as usize] += 1;
    }

    /// Takes over another thread's counts, leaving that one's empty.
    pub(super) fn absorb(&mut self, other: &mut Stats) {
        self.add(&std::mem::take(other));
    }

    /// Adds another run's counts (the positions of a `vier solve` run).
    pub fn add(&mut self, other: &Stats) {
        for (a, b) in self.nodes_by_discs.iter_mut().zip(&other.nodes_by_discs) {
            *a += b;
        }
    }

    /// The nodes searched with `discs` discs on the board.
    pub fn nodes_at(&self, discs: usize) -> u64 {
        self.nodes_by_discs.get(discs).copied().unwrap_or(0)
    }

    pub fn nodes(&self) -> u64 {
        self.nodes_by_discs.iter().sum()
    }
}

/// `discs:nodes` for every number of discs that has nodes, in order.
impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let mut sep = "";
        for (discs, &n) in self.nodes_by_discs.iter().enumerate() {
            if n > 0 {
                write!(f, "{sep}{discs}:{n}")?;
                sep = " ";
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_print_by_discs_and_absorbing_moves_them_over() {
        let mut a = Stats::default();
        let mut b = Stats::default();
        a.node(3);
        a.node(3);
        b.node(3);
        b.node(40);
        assert_eq!(a.to_string(), "3:2");
        a.absorb(&mut b);
        assert_eq!(a.to_string(), "3:3 40:1");
        assert_eq!((a.nodes(), b.nodes()), (4, 0));
        assert_eq!(a.nodes_at(DISCS + 5), 0);
    }
}
