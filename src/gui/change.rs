//! The changes the page asks of a game, each by its name (`vier gui`'s route
//! `POST /api/session/{id}/{name}`, the page without a server's `game_request`) and its JSON
//! body, and their one dispatch, [`Game::request`]: the body read, the change checked, then
//! made, or refused with why, changing nothing.

use super::game::{Game, Side};
use super::saved::Saved;
use super::view;
use crate::board::Size;
use serde::Deserialize;

/// A change the page asked for that was not made: a body that is not JSON or a change that
/// is malformed (HTTP 400), a body of the wrong shape (422: a field missing, unknown or of
/// another type), or a change impossible now (409).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    Bad(String),
    Shape(String),
    Conflict(String),
}

impl Refused {
    /// Why, in words.
    pub fn message(&self) -> &str {
        match self {
            Refused::Bad(m) | Refused::Shape(m) | Refused::Conflict(m) => m,
        }
    }
}

/// `move`'s body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveReq {
    column: usize,
}

/// `new`'s body: the board size and the engine's side, each kept when not given.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewReq {
    size: Option<String>,
    engine: Option<String>,
}

/// `settings`' body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsReq {
    engine: Option<String>,
    movetime: Option<u64>,
    analysis_always: Option<bool>,
    /// `Skill Level`: 1.. (`engine::settings::SKILL`), the top one the full engine.
    level: Option<u64>,
}

/// `position`'s body: moves, a board string or a FEN, on the board of `size` (or this one).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PositionReq {
    text: String,
    size: Option<String>,
}

/// `goto`'s body: the position after the first `ply` moves of the game's record.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GotoReq {
    ply: usize,
}

/// `link`'s body: a link's position, as [`Game::open_link`] reads it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkReq {
    link: String,
}

/// A body read as `T` (an empty body as `{}`): not JSON is a 400, JSON of another shape a 422,
/// as axum's JSON reader answers them.
fn read<'a, T: Deserialize<'a>>(body: &'a str) -> Result<T, Refused> {
    let text = if body.trim().is_empty() { "{}" } else { body };
    serde_json::from_str(text).map_err(|e| {
        let why = format!("bad request body: {e}");
        match e.classify() {
            serde_json::error::Category::Data => Refused::Shape(why),
            _ => Refused::Bad(why),
        }
    })
}

/// The `engine` field of a body: which side the engine plays, if given.
fn side(field: Option<&str>) -> Result<Option<Side>, Refused> {
    field.map(Side::parse).transpose().map_err(Refused::Bad)
}

/// A size field of a body, if given.
fn size(field: Option<&str>) -> Result<Option<Size>, Refused> {
    field
        .map(|s| s.parse::<Size>().map_err(|e| Refused::Bad(e.to_string())))
        .transpose()
}

impl Game {
    /// The change called `what` with its JSON `body`: `move`, `undo`, `redo`, `analyse`,
    /// `new`, `settings`, `position`, `goto`, `resume`, `review`, `link`, `restore`. Every
    /// front end of the game sends its changes here.
    pub fn request(&mut self, what: &str, body: &str) -> Result<(), Refused> {
        let conflict = |r: Result<(), String>| r.map_err(Refused::Conflict);
        let bad = |r: Result<(), String>| r.map_err(Refused::Bad);
        match what {
            "move" => {
                let m: MoveReq = read(body)?;
                conflict(self.play(m.column))
            }
            "undo" => conflict(self.undo()),
            "redo" => conflict(self.redo()),
            "analyse" => conflict(self.want_analysis()),
            "review" => conflict(self.want_review()),
            "resume" => conflict(self.resume()),
            "goto" => {
                let g: GotoReq = read(body)?;
                conflict(self.goto(g.ply))
            }
            "new" => {
                let n: NewReq = read(body)?;
                let size = size(n.size.as_deref())?;
                if let Some(s) = side(n.engine.as_deref())? {
                    self.engine_side = s;
                }
                self.new_game(size.unwrap_or(self.size()), Vec::new());
                Ok(())
            }
            "settings" => {
                let s: SettingsReq = read(body)?;
                let side = side(s.engine.as_deref())?;
                bad(self.set(side, s.movetime, s.level, s.analysis_always))
            }
            "position" => {
                let p: PositionReq = read(body)?;
                let size = size(p.size.as_deref())?.unwrap_or(self.size());
                let moves = view::parse_position(size, &p.text).map_err(Refused::Bad)?;
                self.new_game(size, moves);
                Ok(())
            }
            "link" => {
                let l: LinkReq = read(body)?;
                bad(self.open_link(&l.link))
            }
            "restore" => bad(self.restore(read::<Saved>(body)?)),
            other => Err(Refused::Bad(format!("no change called '{other}'"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_change_says_why_in_its_kind_and_changes_nothing() {
        let mut g = Game::new(7);
        g.request("settings", r#"{"engine": "none"}"#).unwrap();
        g.request("move", r#"{"column": 4}"#).unwrap();
        let before = g.saved();
        let cases = [
            ("move", "{not json", "bad"),
            ("move", r#"{"column": "four"}"#, "shape"),
            ("move", r#"{"column": 4, "extra": 1}"#, "shape"),
            ("move", r#"{"column": 0}"#, "conflict"),
            ("move", r#"{"column": 8}"#, "conflict"),
            ("settings", r#"{"movetime": 0}"#, "bad"),
            ("settings", r#"{"engine": "martian", "movetime": 5}"#, "bad"),
            ("settings", r#"{"level": "weak"}"#, "shape"),
            ("new", r#"{"size": "9x9"}"#, "bad"),
            ("position", r#"{"text": "4444444"}"#, "bad"),
            ("redo", "", "conflict"),
            ("goto", r#"{"ply": 5}"#, "conflict"),
            ("link", r#"{"link": "7x6/8"}"#, "bad"),
            ("fly", "", "bad"),
        ];
        for (what, body, kind) in cases {
            let got = match g.request(what, body) {
                Err(Refused::Bad(_)) => "bad",
                Err(Refused::Shape(_)) => "shape",
                Err(Refused::Conflict(_)) => "conflict",
                Ok(()) => "made",
            };
            assert_eq!(got, kind, "{what} {body}");
            assert_eq!(g.saved(), before, "{what} {body} changed the game");
        }
    }

    #[test]
    fn every_change_is_reached_by_its_name() {
        let mut g = Game::new(7);
        g.request("settings", r#"{"engine": "none", "movetime": 300}"#)
            .unwrap();
        g.request("link", r#"{"link": "7x6/4453"}"#).unwrap();
        g.request("move", r#"{"column": 1}"#).unwrap();
        g.request("undo", "").unwrap();
        g.request("redo", "").unwrap();
        g.request("goto", r#"{"ply": 2}"#).unwrap();
        g.request("resume", "").unwrap();
        g.request("analyse", "").unwrap();
        g.request("review", "").unwrap();
        assert_eq!(g.link(), "7x6/44");
        let saved = serde_json::to_string(&g.saved()).unwrap();
        g.request("position", r#"{"text": "1234", "size": "8x7"}"#)
            .unwrap();
        assert_eq!(g.link(), "8x7/1234");
        g.request("new", r#"{"size": "5x4", "engine": "x"}"#)
            .unwrap();
        assert_eq!((g.link(), g.engine_side), ("5x4".into(), Side::X));
        g.request("restore", &saved).unwrap();
        assert_eq!((g.link(), g.movetime), ("7x6/44".into(), 300));
    }
}
