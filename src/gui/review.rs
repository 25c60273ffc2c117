//! The review of a game: every position of it proven, each move marked where it changed the
//! outcome or lost ground, and the value over the game for the page's graph, filled in as the
//! positions are proven. Bookkeeping only: the conductor runs one search per position, the
//! last position first (the end of a game is proven fastest, and what the engine's tables learn
//! there helps with the positions before it).
//!
//! A position's value is its best column's, proven by a search that ends once the root is
//! proven; the value of the move played is the next position's, from the other side. Both are
//! Pons' exact scores, which negate from one position to the next.

use super::view::{self, Status};
use super::words;
use crate::board::Size;
use crate::engine::{Line, Score, Value};
use serde::Serialize;

/// How long the review searches one position before it leaves it open.
pub const REVIEW_MS: u64 = 10_000;

/// What is known of one position.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Known {
    /// The side to move's value, its exact score and the best column (1-based).
    Proven {
        value: Value,
        exact: i32,
        best: usize,
    },
    /// Searched, not proven.
    Open,
}

/// A game under review: its moves, and what is known of each position.
#[derive(Clone, Debug)]
pub struct Review {
    size: Size,
    /// 1-based columns.
    line: Vec<usize>,
    /// Per position, 0 (the start) to `line.len()`.
    known: Vec<Option<Known>>,
    /// The latest proven line of each position under search.
    latest: Vec<Option<Known>>,
    /// The last position ends the game (a four, or a full board): it needs no search.
    over: Option<Status>,
}

/// One move's mark: `blunder` (it changed the outcome), `mistake` (it lost ground: a slower
/// win, a quicker loss), `good` (it kept the value), `open` (not known yet).
#[derive(Clone, Debug, Serialize)]
pub struct Note {
    /// The move's number in the game, 1 for the first.
    pub ply: usize,
    pub mark: &'static str,
    pub words: String,
}

/// What the page draws of a review.
#[derive(Clone, Debug, Serialize)]
pub struct ReviewView {
    /// The game reviewed, as a move string.
    pub moves: String,
    /// Positions to prove (the final position of a finished game needs no search), and how
    /// many are proven and how many searched so far.
    pub positions: usize,
    pub proven: usize,
    pub searched: usize,
    pub complete: bool,
    /// Per position (0 the start): its value for the first player (✕), from 1 (a win at once)
    /// through 0 (a draw) to -1, stronger the sooner; `None` while not proven.
    pub points: Vec<Option<f32>>,
    /// Per move.
    pub notes: Vec<Note>,
    /// In a sentence: how many moves changed the outcome or lost ground.
    pub summary: String,
}

impl Review {
    pub fn new(size: Size, line: Vec<usize>) -> Review {
        let n = line.len();
        let over = view::view(size, &line)
            .ok()
            .map(|v| v.status)
            .filter(|&s| s != Status::Playing);
        Review {
            size,
            line,
            known: vec![None; n + 1],
            latest: vec![None; n + 1],
            over,
        }
    }

    pub fn line(&self) -> &[usize] {
        &self.line
    }

    /// The same review for another line of moves on the same board: the positions both lines
    /// share keep what is known of them.
    pub fn follow(&self, size: Size, line: &[usize]) -> Review {
        let mut r = Review::new(size, line.to_vec());
        if size == self.size {
            let shared = self
                .line
                .iter()
                .zip(line)
                .take_while(|(a, b)| a == b)
                .count();
            for k in 0..=shared {
                r.known[k] = self.known[k];
            }
        }
        r
    }

    /// Whether position `k` ends the game (no search).
    fn is_over(&self, k: usize) -> bool {
        k == self.line.len() && self.over.is_some()
    }

    /// The next position to search, not searched yet nor under search (`running`): the last
    /// one first.
    pub fn next(&self, running: &[usize]) -> Option<usize> {
        (0..self.known.len())
            .rev()
            .find(|&k| self.known[k].is_none() && !self.is_over(k) && !running.contains(&k))
    }

    /// Every position has been searched.
    pub fn complete(&self) -> bool {
        (0..self.known.len()).all(|k| self.known[k].is_some() || self.is_over(k))
    }

    /// A report of the search of position `k`: its best line, once proven, is the position's
    /// value.
    pub fn report(&mut self, k: usize, lines: &[Line]) {
        let Some(l) = lines.first() else { return };
        if let (Some(exact), Some(c), true) = (l.exact, l.column(), l.value.is_proven()) {
            if let Some(slot) = self.latest.get_mut(k) {
                *slot = Some(Known::Proven {
                    value: l.value,
                    exact,
                    best: c + 1,
                });
            }
        }
    }

    /// The search of position `k` has ended: proven, or left open.
    pub fn searched(&mut self, k: usize) {
        if k < self.known.len() {
            self.known[k] = Some(self.latest[k].take().unwrap_or(Known::Open));
        }
    }

    /// The exact score of position `k` for its side to move, once proven.
    fn exact(&self, k: usize) -> Option<i32> {
        match self.known.get(k)? {
            Some(Known::Proven { exact, .. }) => Some(*exact),
            _ => None,
        }
    }

    /// The exact score the move from position `k` got, for the side that played it: the next
    /// position's from the other side, or the game's end.
    fn played(&self, k: usize) -> Option<i32> {
        if self.is_over(k + 1) {
            let cells = self.size.cells() as i32;
            return match self.over? {
                Status::Draw => Some(0),
                _ => Value::exact(Score::Win(1)).exact_score(cells, k as i32),
            };
        }
        self.exact(k + 1).map(|e| -e)
    }

    /// A value of position `k` (its side to move's) from an exact score.
    fn value(&self, k: usize, exact: i32) -> Value {
        Value::proven(self.size.cells() as i32, k as i32, exact)
    }

    /// The value of position `k` for the first player, for the graph.
    fn point(&self, k: usize) -> Option<f32> {
        let first_to_move = k.is_multiple_of(2);
        let (value, exact) = if self.is_over(k) {
            // the side to move has lost (or the board is full): as the last move's value
            let e = -self.played(k - 1)?;
            (self.value(k, e), e)
        } else {
            let e = self.exact(k)?;
            (self.value(k, e), e)
        };
        let height = words::shade(value, self.size) * exact.signum() as f32;
        Some(if first_to_move { height } else { -height })
    }

    fn note(&self, k: usize) -> Note {
        let w = self.size.width();
        let ply = k + 1;
        let (Some(best), Some(played)) = (self.exact(k), self.played(k)) else {
            return Note {
                ply,
                mark: "open",
                words: "not proven yet".into(),
            };
        };
        let best_col = match self.known[k] {
            Some(Known::Proven { best, .. }) => words::column(best, w),
            _ => String::new(),
        };
        let (bv, pv) = (self.value(k, best), self.value(k, played));
        let outcome = |s: i32| match s.signum() {
            1 => "win",
            0 => "draw",
            _ => "loss",
        };
        let hint = format!("best was {best_col}, {}", result(bv));
        let (mark, words) = if best.signum() != played.signum() {
            (
                "blunder",
                format!(
                    "gave away the {}: {} now; {hint}",
                    outcome(best),
                    match outcome(played) {
                        "draw" => "a draw",
                        _ => "a loss",
                    }
                ),
            )
        } else if played < best {
            let lost = match (bv.score, pv.score) {
                (Score::Win(b), Score::Win(p)) => {
                    format!("still wins, but in {p} of its moves instead of {b}")
                }
                (Score::Loss(b), Score::Loss(p)) => {
                    format!("loses sooner than it had to: in {p} of the opponent's moves instead of {b}")
                }
                _ => "lost ground".into(),
            };
            ("mistake", format!("{lost}; {hint}"))
        } else {
            let kept = match pv.score {
                Score::Win(1) if self.is_over(k + 1) => "wins".to_string(),
                Score::Win(_) => format!("keeps the win: {}", result(pv)),
                Score::Loss(_) => format!("holds out longest: {}", result(pv)),
                _ => "keeps the draw".to_string(),
            };
            ("good", kept)
        };
        Note { ply, mark, words }
    }

    /// The review in the page's words.
    pub fn view(&self) -> ReviewView {
        let n = self.line.len();
        let notes: Vec<Note> = (0..n).map(|k| self.note(k)).collect();
        let count = |m: &str| notes.iter().filter(|x| x.mark == m).count();
        let (blunders, mistakes) = (count("blunder"), count("mistake"));
        let moves_word = |c: usize| if c == 1 { "move" } else { "moves" };
        let summary = match (blunders, mistakes) {
            (0, 0) => "No move changed the outcome or lost ground.".to_string(),
            (b, 0) => format!("{b} {} changed the outcome.", moves_word(b)),
            (0, m) => format!("{m} {} lost ground.", moves_word(m)),
            (b, m) => format!(
                "{b} {} changed the outcome; {m} lost ground.",
                moves_word(b)
            ),
        };
        let positions = (0..=n).filter(|&k| !self.is_over(k)).count();
        ReviewView {
            moves: crate::notation::move_string(self.line.iter().map(|c| c - 1), self.size.width()),
            positions,
            proven: (0..=n).filter(|&k| self.exact(k).is_some()).count(),
            searched: (0..=n).filter(|&k| self.known[k].is_some()).count(),
            complete: self.complete(),
            points: (0..=n).map(|k| self.point(k)).collect(),
            notes,
            summary,
        }
    }
}

/// A proven result of a move for the side that played it: "a win in 5 of its moves".
fn result(v: Value) -> String {
    match v.score {
        Score::Win(1) => "a win with its next move".into(),
        Score::Win(n) => format!("a win in {n} of its moves"),
        Score::Loss(1) => "a loss to the opponent's next move".into(),
        Score::Loss(n) => format!("a loss in {n} of the opponent's moves"),
        _ => "a draw".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::AnyPosition;
    use crate::engine::{proven, ScoreBound};

    /// A report line for position `k` of `line` with Pons' score `s` and best column `c`.
    fn line_at(size: Size, line: &[usize], k: usize, s: i32, c: usize) -> Line {
        let zero: Vec<usize> = line[..k].iter().map(|c| c - 1).collect();
        let p = AnyPosition::from_moves(size, &crate::notation::move_string(zero, size.width()))
            .unwrap();
        Line::new(&p, proven(&p, s), vec![c - 1])
    }

    /// The review of `line` with the positions' (score, best column), all searched.
    fn reviewed(line: &[usize], scores: &[(i32, usize)]) -> ReviewView {
        let size = Size::default();
        let mut r = Review::new(size, line.to_vec());
        for (k, &(s, c)) in scores.iter().enumerate() {
            r.report(k, &[line_at(size, line, k, s, c)]);
            r.searched(k);
        }
        assert!(r.complete());
        r.view()
    }

    #[test]
    fn a_move_that_gives_away_a_win_is_a_blunder_and_a_slower_win_a_mistake() {
        let line = [4, 4, 3, 5];
        let r = Review::new(Size::default(), line.to_vec());
        assert_eq!(r.next(&[]), Some(4), "the last position first");
        assert_eq!(r.next(&[4, 3]), Some(2));
        // made-up scores that negate from one position to the next where the best move is
        // played: ✕'s third move turns its win (2) into a draw
        let v = reviewed(&line, &[(2, 4), (-2, 4), (2, 3), (0, 5), (0, 4)]);
        let marks: Vec<&str> = v.notes.iter().map(|n| n.mark).collect();
        assert_eq!(marks, ["good", "good", "blunder", "good"]);
        assert_eq!(
            v.notes[2].words,
            "gave away the win: a draw now; best was 3, a win in 19 of its moves"
        );
        assert_eq!(v.summary, "1 move changed the outcome.");
        assert_eq!(v.proven, 5);
        assert!(v.points[0].unwrap() > 0.0);
        assert_eq!(v.points[4], Some(0.0));
        // ... or into a slower win (1 instead of 2)
        let v = reviewed(&line, &[(2, 4), (-2, 4), (2, 3), (-1, 5), (1, 4)]);
        let marks: Vec<&str> = v.notes.iter().map(|n| n.mark).collect();
        assert_eq!(marks, ["good", "good", "mistake", "good"]);
        assert!(
            v.notes[2].words.starts_with("still wins, but in"),
            "{}",
            v.notes[2].words
        );
        assert_eq!(v.summary, "1 move lost ground.");
    }

    #[test]
    fn a_finished_game_needs_no_search_of_its_last_position() {
        let size = Size::default();
        let line = vec![1, 7, 2, 7, 3, 6, 4];
        let r = Review::new(size, line.clone());
        assert_eq!(r.next(&[]), Some(6));
        let v = r.view();
        assert_eq!(v.positions, 7);
        // the winning move is known without a search once the position before it is proven
        let mut r = r;
        r.report(6, &[line_at(size, &line, 6, 18, 4)]);
        r.searched(6);
        let v = r.view();
        assert_eq!(v.notes[6].mark, "good");
        assert_eq!(v.points[7], Some(1.0), "✕ has won");
    }

    #[test]
    fn another_line_keeps_what_is_known_of_the_positions_both_share() {
        let size = Size::default();
        let mut r = Review::new(size, vec![4, 4, 3]);
        let l = line_at(size, &[4, 4, 3], 1, -2, 3);
        r.report(1, std::slice::from_ref(&l));
        r.searched(1);
        r.searched(3);
        let moved = r.follow(size, &[4, 4, 5, 5]);
        assert_eq!(moved.exact(1), Some(-2));
        assert_eq!(
            moved.known[3], None,
            "a position after the lines part is new"
        );
        // an estimate is not a proof
        let mut r = Review::new(size, vec![4]);
        let guess = Line {
            value: Value {
                score: Score::Cp(30),
                bound: ScoreBound::Exact,
            },
            exact: None,
            pv: vec![3],
        };
        r.report(0, &[guess]);
        r.searched(0);
        assert_eq!(r.known[0], Some(Known::Open));
    }
}
