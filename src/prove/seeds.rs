//! What jobs that ran out of budget learnt below their positions, kept for the jobs that come
//! after them: a job below one of those positions starts from it (`vier solve` reads `LEARNT`
//! lines before its positions and seeds its table with those below each).

use super::jobs::{Line, MAX_SEEDS};
use crate::solve_line::{Found, SolveLine};
use std::collections::BTreeMap;

/// The most learnt lines kept: a hint store, so past this the proof goes on without more.
const MAX_KEPT: usize = 1 << 21;

/// Learnt lines, written as `vier solve` reads them, by their position's move string.
#[derive(Default)]
pub struct Seeds {
    lines: BTreeMap<String, Vec<String>>,
    kept: usize,
}

impl Seeds {
    /// Keeps the learnt lines among a checked run's results.
    pub fn add(&mut self, results: &[Line]) {
        for r in results {
            let Line::Result {
                moves,
                bounds: Some((lo, hi)),
                learnt: true,
                ..
            } = r
            else {
                continue;
            };
            if self.kept >= MAX_KEPT {
                return;
            }
            let found = match (*lo, *hi) {
                (lo, hi) if lo == hi => Found::Score(lo),
                (lo, i32::MAX) => Found::AtLeast(lo),
                (_, hi) => Found::AtMost(hi),
            };
            let line = SolveLine::learnt(moves.clone(), found).to_string();
            let at = self.lines.entry(moves.clone()).or_default();
            if !at.contains(&line) {
                at.push(line);
                self.kept += 1;
            }
        }
    }

    /// The lines of positions strictly below `positions` (move strings, `-` for the empty
    /// board), the nearest first, at most [`MAX_SEEDS`].
    pub fn below(&self, positions: &[String]) -> Vec<String> {
        let mut found: Vec<(usize, &String)> = Vec::new();
        for p in positions {
            let from = if p == "-" { "" } else { p.as_str() };
            for (moves, lines) in self.lines.range(from.to_string()..) {
                if !moves.starts_with(from) {
                    break;
                }
                if moves.len() > from.len() {
                    found.extend(lines.iter().map(|l| (moves.len(), l)));
                }
            }
        }
        found.sort();
        found.dedup();
        found.truncate(MAX_SEEDS);
        found.into_iter().map(|(_, l)| l.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learnt(moves: &str, bounds: (i32, i32)) -> Line {
        Line::Result {
            moves: moves.into(),
            bounds: Some(bounds),
            nodes: 0,
            micros: 0,
            learnt: true,
        }
    }

    #[test]
    fn a_job_starts_from_the_learnt_lines_below_its_positions_the_nearest_first() {
        let mut s = Seeds::default();
        s.add(&[
            learnt("44123", (1, i32::MAX)),
            learnt("441", (i32::MIN, 0)),
            learnt("45", (0, 0)),
            learnt("4", (0, 0)),
            Line::Result {
                moves: "442".into(),
                bounds: Some((1, i32::MAX)),
                nodes: 9,
                micros: 1,
                learnt: false,
            },
        ]);
        // a rerun learns the same again
        s.add(&[learnt("441", (i32::MIN, 0))]);
        assert_eq!(
            s.below(&["44".into()]),
            ["441 <=0 0 0 LEARNT", "44123 >=1 0 0 LEARNT"],
            "a job's own result is no seed, nor a position beside it"
        );
        assert_eq!(s.below(&["-".into()]).len(), 4);
        assert_eq!(
            s.below(&["4".into(), "44".into()]).len(),
            3,
            "each line once"
        );
        assert!(s.below(&["44123".into()]).is_empty(), "nothing below");
    }
}
