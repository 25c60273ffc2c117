//! A game's record: its start position, the columns played since, and the columns taken back,
//! to be played again. `vier play` and the game of `vier gui` and the page keep their moves in
//! one, so that taking back and replaying work the same everywhere.

use super::any::AnyPosition;
use super::text::BoardError;

/// A game from a start position: the 0-based columns played, and the ones taken back (the last
/// taken back first to be played again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    start: AnyPosition,
    moves: Vec<usize>,
    /// Taken back, the most recent last.
    undone: Vec<usize>,
    now: AnyPosition,
}

impl Record {
    /// A game that starts at `start`, with no move played.
    pub fn new(start: AnyPosition) -> Record {
        Record {
            start,
            moves: Vec::new(),
            undone: Vec::new(),
            now: start,
        }
    }

    /// A game from `start` with `moves` played, or why one of them cannot be.
    pub fn from_moves(start: AnyPosition, moves: &[usize]) -> Result<Record, BoardError> {
        let mut r = Record::new(start);
        for &c in moves {
            r.play(c)?;
        }
        Ok(r)
    }

    pub fn start(&self) -> AnyPosition {
        self.start
    }

    /// The position now.
    pub fn position(&self) -> AnyPosition {
        self.now
    }

    /// The 0-based columns played since the start.
    pub fn moves(&self) -> &[usize] {
        &self.moves
    }

    /// The position after the first `n` moves (the start for 0).
    pub fn position_after(&self, n: usize) -> AnyPosition {
        self.moves[..n.min(self.moves.len())]
            .iter()
            .fold(self.start, |p, &c| p.play(c).expect("a move played before"))
    }

    /// Plays the 0-based `col` (the moves taken back are forgotten), or why it cannot be played
    /// (nothing changes then).
    pub fn play(&mut self, col: usize) -> Result<(), BoardError> {
        self.now = self.now.play(col)?;
        self.moves.push(col);
        self.undone.clear();
        Ok(())
    }

    /// Takes back moves to the latest earlier position where `stop` holds (for a person against
    /// the engine: the last time it was their turn); the columns taken back, in the order they
    /// were played, or `None` when no earlier position qualifies (nothing changes then).
    pub fn undo_until(&mut self, stop: impl Fn(&AnyPosition) -> bool) -> Option<Vec<usize>> {
        let k = (0..self.moves.len())
            .rev()
            .find(|&k| stop(&self.position_after(k)))?;
        let taken = self.moves.split_off(k);
        self.undone.extend(taken.iter().rev());
        self.now = self.position_after(k);
        Some(taken)
    }

    /// Plays moves taken back again, up to the first later position where `stop` holds or the
    /// game is over (or all of them); the columns played, `None` when there is none to play.
    pub fn redo_until(&mut self, stop: impl Fn(&AnyPosition) -> bool) -> Option<Vec<usize>> {
        let mut played = Vec::new();
        while let Some(c) = self.undone.pop() {
            self.now = self.now.play(c).expect("a move taken back fits again");
            self.moves.push(c);
            played.push(c);
            if self.now.is_game_over() || stop(&self.now) {
                break;
            }
        }
        (!played.is_empty()).then_some(played)
    }

    /// Whether there are moves taken back to play again.
    pub fn can_redo(&self) -> bool {
        !self.undone.is_empty()
    }

    /// Back to the start, every move forgotten.
    pub fn restart(&mut self) {
        *self = Record::new(self.start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Player, Size};

    fn record(moves: &[usize]) -> Record {
        Record::from_moves(AnyPosition::empty(Size::default()), moves).unwrap()
    }

    #[test]
    fn taking_back_goes_to_the_persons_last_turn_and_replays_to_the_next() {
        // the person plays x: moves 0 and 2 are theirs
        let mut r = record(&[3, 3, 4, 2]);
        let persons_turn = |p: &AnyPosition| p.side_to_move() == Player::First;
        assert_eq!(r.undo_until(persons_turn), Some(vec![4, 2]));
        assert_eq!(r.moves(), [3, 3]);
        assert!(r.can_redo());
        assert_eq!(r.redo_until(persons_turn), Some(vec![4, 2]));
        assert_eq!(r.moves(), [3, 3, 4, 2]);
        assert_eq!(r.redo_until(persons_turn), None);
        r.undo_until(persons_turn);
        r.play(0).unwrap();
        assert!(!r.can_redo(), "a new move forgets what was taken back");
    }

    #[test]
    fn nothing_is_taken_back_before_the_persons_first_turn() {
        // the engine plays x and has made its first move: the person has not moved yet
        let mut r = record(&[3]);
        let persons_turn = |p: &AnyPosition| p.side_to_move() == Player::Second;
        assert_eq!(r.undo_until(persons_turn), None);
        assert_eq!(r.moves(), [3]);
        assert_eq!(r.position(), r.position_after(1));
    }
}
