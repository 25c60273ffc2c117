//! A game kept outside the page: the link that names its position (`7x6/4453`, the page's
//! address), and what a reload needs to restore it ([`Saved`]). Both are read back checked
//! whole: a bad one changes nothing.

use super::game::{Game, Side};
use super::view;
use crate::board::Size;
use serde::{Deserialize, Serialize};

/// What a reload needs to restore a game (`restore`'s body, the snapshot's `saved`): the
/// board, the game's record and the position shown in it, and the settings.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Saved {
    pub size: String,
    /// Every move of the record, as a move string.
    pub line: String,
    /// The moves of `line` on the board.
    pub ply: usize,
    pub engine: String,
    pub movetime: u64,
    pub level: u64,
    pub analysis_always: bool,
}

impl Game {
    /// The page's link of the position shown: `7x6/4453`, or `7x6` for the empty board.
    pub fn link(&self) -> String {
        let v = self.view();
        if v.moves.is_empty() {
            self.size().to_string()
        } else {
            format!("{}/{}", self.size(), v.moves)
        }
    }

    /// What a reload needs to restore this game.
    pub fn saved(&self) -> Saved {
        Saved {
            size: self.size().to_string(),
            line: crate::notation::move_string(self.record.line(), self.size().width()),
            ply: self.record.moves().len(),
            engine: self.engine_side.name().into(),
            movetime: self.movetime,
            level: self.level,
            analysis_always: self.analysis_always,
        }
    }

    /// A link's position as a new game on its board: `7x6/4453` (the size and the moves; the
    /// moves alone are on 7x6, the size alone its empty board), as the page's address holds
    /// it. The person moves next: an engine that would have been to move takes the other side.
    pub fn open_link(&mut self, link: &str) -> Result<(), String> {
        let t = link.trim().trim_start_matches('#').trim_matches('/');
        let (size, moves) = match t.split_once('/') {
            Some((s, m)) => (s, m),
            None if t.contains('x') => (t, ""),
            None => ("", t),
        };
        let size = match size {
            "" => Size::default(),
            s => s
                .parse::<Size>()
                .map_err(|e| format!("a link names a size: {e}"))?,
        };
        let moves = view::parse_position(size, moves)?;
        self.new_game(size, moves);
        let to_move = self.view().to_move;
        if self.engine_side.plays(to_move) {
            self.engine_side = if to_move == "x" { Side::O } else { Side::X };
        }
        Ok(())
    }

    /// A game a reload saved ([`Game::saved`]), checked whole before anything changes.
    pub fn restore(&mut self, saved: Saved) -> Result<(), String> {
        let size = saved.size.parse::<Size>().map_err(|e| e.to_string())?;
        let line = view::parse_position(size, &saved.line)?;
        if saved.ply > line.len() {
            return Err(format!(
                "the saved game has {} moves, not {}",
                line.len(),
                saved.ply
            ));
        }
        let side = Side::parse(&saved.engine)?;
        let before = (
            self.engine_side,
            self.movetime,
            self.level,
            self.analysis_always,
        );
        self.set(
            Some(side),
            Some(saved.movetime),
            Some(saved.level),
            Some(saved.analysis_always),
        )?;
        self.new_game(size, line);
        if let Err(e) = self.goto(saved.ply) {
            (
                self.engine_side,
                self.movetime,
                self.level,
                self.analysis_always,
            ) = before;
            return Err(e);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game of two people (no engine move in the way) after `moves`.
    fn two_people(moves: &str) -> Game {
        let mut g = Game::new(7);
        g.engine_side = Side::None;
        g.open_link(&format!("7x6/{moves}")).unwrap();
        g
    }

    #[test]
    fn a_link_opens_its_position_with_the_person_to_move() {
        let mut g = Game::new(7);
        assert_eq!(g.engine_side, Side::O);
        g.open_link("7x6/445").unwrap();
        assert_eq!(g.view().moves, "445");
        assert_eq!(g.engine_side, Side::X, "o is to move: the person plays it");
        assert_eq!(g.link(), "7x6/445");
        g.open_link("8x8").unwrap();
        assert_eq!(
            (g.size().to_string(), g.view().moves),
            ("8x8".into(), String::new())
        );
        assert_eq!(g.link(), "8x8");
        g.open_link("4453").unwrap();
        assert_eq!(g.link(), "7x6/4453");
        for bad in ["9x9/1", "7x6/8", "7x6/4444444"] {
            assert!(g.open_link(bad).is_err(), "{bad}");
        }
        assert_eq!(g.link(), "7x6/4453", "a bad link changes nothing");
    }

    #[test]
    fn a_saved_game_is_restored_with_its_settings_and_place_in_the_record() {
        let mut g = two_people("44531");
        g.set(None, Some(300), Some(3), None).unwrap();
        g.goto(2).unwrap();
        let saved = g.saved();
        let mut again = Game::new(8);
        again.restore(saved.clone()).unwrap();
        assert_eq!(again.saved(), g.saved());
        assert_eq!(again.view().moves, "44");
        assert_eq!((again.movetime, again.level), (300, 3));
        let bad = Saved { ply: 9, ..saved };
        assert!(again.restore(bad).is_err());
        assert_eq!(again.saved(), g.saved(), "a bad saved game changes nothing");
    }
}
