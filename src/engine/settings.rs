//! Every setting a front end offers, declared once: its name, default and range, and the action
//! that applies a value. The protocol lists and sets them by name (`uci`, `setoption`), `vier
//! play`, `vier solve`, `vier gui`, `vier serve`, Python and the page check their own arguments
//! against the same declarations, so a setting has one range everywhere (protocol.md's table
//! is checked against [`OPTIONS`] by the protocol's tests).
//!
//! The actions change a [`Settings`], the value every front end holds; [`super::Engine::configure`]
//! then gives an engine what its settings ask (tables, threads, techniques, book), and
//! [`Settings::request`] makes a search's request (overhead, lines, skill level).

pub use super::options::Spin;
use super::options::{Kind, OptionDecl, EMPTY};
use super::request::{Limits, Request, Skill, TimeLimit};
use crate::bits::{MAX_HEIGHT, MAX_WIDTH, MIN_SIDE};
use crate::board::Size;
use crate::book::{self, Book, BookSource};
use crate::levels::{self, Strength};
use crate::solver::MAX_THREADS;
use crate::study;
use std::sync::Arc;

/// The tables' megabytes (search and solver together). As Stockfish's, the limit is not the
/// machine's: a size the machine has not got is refused when it is set.
pub const HASH: Spin = Spin {
    name: "Hash",
    default: crate::search::DEFAULT_HASH_MB as u64,
    min: 2,
    max: 1 << 25,
};
pub const THREADS: Spin = Spin {
    name: "Threads",
    default: 1,
    min: 1,
    max: MAX_THREADS as u64,
};
/// Milliseconds kept back from a movetime or a clock for the GUI's and the pipe's delays.
pub const MOVE_OVERHEAD: Spin = Spin {
    name: "MoveOverhead",
    default: 10,
    min: 0,
    max: 5000,
};
/// Lines a search reports.
pub const MULTIPV: Spin = Spin {
    name: "MultiPV",
    default: 1,
    min: 1,
    max: MAX_WIDTH as u64,
};
pub const WIDTH: Spin = Spin {
    name: "Width",
    default: 7,
    min: MIN_SIDE as u64,
    max: MAX_WIDTH as u64,
};
pub const HEIGHT: Spin = Spin {
    name: "Height",
    default: 6,
    min: MIN_SIDE as u64,
    max: MAX_HEIGHT as u64,
};
/// The study's search level (see [`crate::study`]): the full engine by default.
pub const SEARCH_LEVEL: Spin = Spin {
    name: "SearchLevel",
    default: study::FULL as u64,
    min: study::MINIMAX as u64,
    max: study::FULL as u64,
};
pub const UCI_ELO: Spin = Spin {
    name: "UCI_Elo",
    default: levels::ELO[levels::ELO.len() - 1] as u64,
    min: levels::ELO[0] as u64,
    max: levels::ELO[levels::ELO.len() - 1] as u64,
};
/// Each skill level's Elo, level 1 first and the full engine last: what the GUI and the page
/// show beside the levels ([`crate::levels`] says how they were measured).
pub use crate::levels::ELO as SKILL_ELO;

/// Skill levels 1 (a beginner) to the full engine.
pub const SKILL: Spin = Spin {
    name: "Skill Level",
    default: levels::FULL_SKILL,
    min: 1,
    max: levels::FULL_SKILL,
};
/// Seeds a skill level's choices: the same seed replays the same games.
pub const LEVEL_SEED: Spin = Spin {
    name: "LevelSeed",
    default: 0,
    min: 0,
    max: u32::MAX as u64,
};

/// The time a search may take per move, in milliseconds, where a person sets it: `vier play`'s
/// `--movetime` and `t`, the GUI's thinking time, Python's and the page's `movetime_ms`. At
/// most a day: a larger number there is a typing mistake.
pub const MOVETIME: Spin = Spin {
    name: "movetime",
    default: 1000,
    min: 1,
    max: 86_400_000,
};
/// `go movetime`'s range, and the most milliseconds any time of `go` may say (protocol.md):
/// the protocol takes whatever time a tournament manager sends, up to 2^63 - 1 ms, so that a
/// game under a long or unusual time control is never refused a move mid-game; a search that
/// long ends when it is stopped or the game is solved.
pub const GO_MOVETIME: Spin = Spin {
    name: "movetime",
    default: MOVETIME.default,
    min: MOVETIME.min,
    max: i64::MAX as u64,
};
/// The time an exact answer may take, in milliseconds (`budget_ms`, `--budget-ms`).
pub const BUDGET: Spin = Spin {
    name: "budget_ms",
    default: 10_000,
    min: 1,
    max: 86_400_000,
};
/// The plies a search may look ahead (`go depth`, `depth`): the board bounds it anyway.
pub const DEPTH: Spin = Spin {
    name: "depth",
    default: 1,
    min: 1,
    max: u32::MAX as u64,
};
/// The nodes a search may take (`go nodes`, `nodes`).
pub const NODES: Spin = Spin {
    name: "nodes",
    default: 1,
    min: 1,
    max: u64::MAX,
};

/// The megabytes of one exact question's table (`vier solve --hash`): cache-sized by default,
/// each position starts cold.
pub const SOLVE_HASH: Spin = Spin {
    name: "hash",
    default: super::pool::SOLVE_HASH_MB as u64,
    min: 1,
    max: 1 << 25,
};

/// Whether tables of `mb` megabytes fit this machine, in words if not.
pub fn table_fits(mb: usize) -> Result<(), String> {
    crate::tt::check_size(mb).map_err(|e| e.to_string())
}

/// What the settings ask of an engine and of its searches. Every front end holds one, changed
/// only through [`OPTIONS`]' actions (by name) or the typed setters below, which check the
/// same declarations.
#[derive(Clone, Debug)]
pub struct Settings {
    pub hash_mb: usize,
    pub threads: usize,
    pub overhead_ms: u64,
    pub multipv: usize,
    /// `UCI_ShowWDL`: reports add win/draw/loss per mille.
    pub show_wdl: bool,
    /// `UCI_Variant cfour`: moves are written as cutechess drops (`P@d1`).
    pub drops: bool,
    /// Width and height as last asked (they may not form a supported size yet).
    pub want: (usize, usize),
    /// The board size: the last `want` that formed a supported one.
    pub size: Size,
    /// `OwnBook`: whether the engine consults [`Settings::book`].
    pub own_book: bool,
    /// The book `BookFile` names, loaded (`None` if it failed to load, which `book_note`
    /// says).
    pub book: Option<Arc<Book>>,
    /// What the last `BookFile` did: the book it loaded, or why it could not.
    pub book_note: Option<Result<String, String>>,
    pub search_level: u8,
    /// `Skill Level`, `UCI_LimitStrength`, `UCI_Elo`, `LevelSeed`.
    pub strength: Strength,
    /// `Clear Hash` presses: an engine clears its tables when this moves on.
    pub clears: u64,
}

impl Default for Settings {
    /// The defaults of every declaration; the built-in book.
    fn default() -> Settings {
        Settings {
            own_book: true,
            book: book::open(&BookSource::BuiltIn).ok().flatten(),
            ..Settings::without_book()
        }
    }
}

impl Settings {
    /// The defaults of every declaration, `OwnBook` off and no book opened: what a process
    /// that is told to use none starts from. Opening the built-in book reads all of it, about
    /// a third of a second, which a `vier solve` job of `vier prove` would pay every time.
    pub fn without_book() -> Settings {
        Settings {
            hash_mb: HASH.default as usize,
            threads: THREADS.default as usize,
            overhead_ms: MOVE_OVERHEAD.default,
            multipv: MULTIPV.default as usize,
            show_wdl: false,
            drops: false,
            want: (WIDTH.default as usize, HEIGHT.default as usize),
            size: Size::default(),
            own_book: false,
            book: None,
            book_note: None,
            search_level: SEARCH_LEVEL.default as u8,
            strength: Strength::default(),
            clears: 0,
        }
    }
    /// Sets the setting `name` (case-insensitive) to `value` as text (`None`: none given, for a
    /// button), checked against its declaration; or the error to print, nothing changed.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let decl = super::options::find(OPTIONS, name)
            .ok_or_else(|| format!("unknown option '{name}'"))?;
        decl.set(self, value)
    }

    /// Sets a whole-number setting, `label` naming it in the error as the caller knows it
    /// (Python's `threads`, the GUI's thinking time).
    pub fn set_spin(&mut self, spin: Spin, label: &str, value: i128) -> Result<(), String> {
        let n = spin.check_as(label, value)?;
        self.set(spin.name, Some(&n.to_string()))
    }

    /// The book the engine consults: [`Settings::book`] with `OwnBook`, none without.
    pub fn consulted_book(&self) -> Option<Arc<Book>> {
        self.own_book.then(|| self.book.clone()).flatten()
    }

    /// The skill level to play at with its seed, `None` for the full engine.
    pub fn skill(&self) -> Option<Skill> {
        self.strength.skill()
    }

    /// The request of a search with these settings: `time` (whose overhead is `MoveOverhead`),
    /// `limits` (whose lines are `MultiPV` unless set) and the skill level.
    pub fn request(&self, time: TimeLimit, limits: Limits) -> Request {
        Request {
            time: TimeLimit {
                overhead_ms: self.overhead_ms,
                ..time
            },
            limits: Limits {
                multipv: if limits.multipv == 0 {
                    self.multipv
                } else {
                    limits.multipv
                },
                ..limits
            },
            ponder: false,
            skill: self.skill(),
        }
    }

    /// `Width` or `Height` (the other as last asked): the size they make, or why none.
    fn set_size(&mut self, width: usize, height: usize) -> Result<(), String> {
        self.want = (width, height);
        self.size =
            Size::new(width, height).map_err(|e| format!("{e}; the board stays {}", self.size))?;
        Ok(())
    }

    /// `BookFile`: loads the file (empty: the built-in book); a book that fails to load leaves
    /// the engine without one, and `book_note` says why.
    fn set_book_file(&mut self, path: &str) {
        let source = BookSource::from_path(path);
        match book::open(&source) {
            Ok(Some(b)) => {
                self.book_note = Some(Ok(format!(
                    "book {source}: {}x{}, depth {}, {} positions",
                    b.width(),
                    b.height(),
                    b.depth(),
                    b.len()
                )));
                self.book = Some(b);
            }
            Ok(None) => {
                self.book_note = None;
                self.book = None;
            }
            Err(e) => {
                self.book_note = Some(Err(format!("book: {source}: {e}")));
                self.book = None;
            }
        }
    }
}

/// Why a `Hash` of `mb` megabytes is not had, in words.
pub fn hash_refused(mb: usize, error: &crate::tt::TableError) -> String {
    format!("Hash {mb}: {error}; the tables stay as they were")
}

/// Every setting, in the order `uci` lists them, each declared with its action.
pub const OPTIONS: &[OptionDecl<Settings>] = &[
    OptionDecl::spin(HASH, |s, mb| {
        // refused at once when the machine has less memory; a size the system then refuses
        // all the same is reported by the engine that takes it (Engine::configure)
        crate::tt::check_size(mb as usize).map_err(|e| hash_refused(mb as usize, &e))?;
        s.hash_mb = mb as usize;
        Ok(())
    }),
    OptionDecl::spin(THREADS, |s, n| {
        s.threads = n as usize;
        Ok(())
    }),
    OptionDecl {
        name: "Clear Hash",
        kind: Kind::Button {
            press: |s| {
                s.clears += 1;
                Ok(())
            },
        },
    },
    OptionDecl::spin(MOVE_OVERHEAD, |s, ms| {
        s.overhead_ms = ms;
        Ok(())
    }),
    OptionDecl::spin(MULTIPV, |s, n| {
        s.multipv = n as usize;
        Ok(())
    }),
    OptionDecl {
        name: "UCI_ShowWDL",
        kind: Kind::Check {
            default: false,
            set: |s, on| {
                s.show_wdl = on;
                Ok(())
            },
        },
    },
    OptionDecl::spin(WIDTH, |s, w| s.set_size(w as usize, s.want.1)),
    OptionDecl::spin(HEIGHT, |s, h| s.set_size(s.want.0, h as usize)),
    OptionDecl {
        name: "UCI_Variant",
        kind: Kind::Combo {
            default: "cfour",
            vars: &["cfour"],
            set: |s, _| {
                s.drops = true;
                Ok(())
            },
        },
    },
    OptionDecl {
        name: "OwnBook",
        kind: Kind::Check {
            default: true,
            set: |s, on| {
                s.own_book = on;
                Ok(())
            },
        },
    },
    OptionDecl {
        name: "BookFile",
        kind: Kind::Text {
            default: EMPTY,
            set: |s, path| {
                s.set_book_file(path);
                Ok(())
            },
        },
    },
    // For the study (tools/study.py) only: the lecture's techniques one at a time, see
    // crate::study. The default is the full engine.
    OptionDecl::spin(SEARCH_LEVEL, |s, level| {
        s.search_level = level as u8;
        Ok(())
    }),
    // Strength levels (crate::levels): a weaker player for people, chosen after the search.
    // As UCI has it, UCI_LimitStrength with UCI_Elo takes precedence over Skill Level.
    OptionDecl {
        name: "UCI_LimitStrength",
        kind: Kind::Check {
            default: false,
            set: |s, on| {
                s.strength.limit = on;
                Ok(())
            },
        },
    },
    OptionDecl::spin(UCI_ELO, |s, elo| {
        s.strength.elo = elo;
        Ok(())
    }),
    OptionDecl::spin(SKILL, |s, skill| {
        s.strength.skill = skill;
        Ok(())
    }),
    OptionDecl::spin(LEVEL_SEED, |s, seed| {
        s.strength.seed = seed;
        Ok(())
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every declared setting is found by its name in any case, and its action accepts its own
    /// default: a declaration whose default its range or its action refuses fails here.
    #[test]
    fn every_setting_is_found_by_name_and_accepts_its_own_default() {
        let mut s = Settings::default();
        for o in OPTIONS {
            let found = super::super::options::find(OPTIONS, &o.name.to_ascii_uppercase());
            assert!(std::ptr::eq(found.expect("found"), o), "{}", o.name);
            assert_eq!(
                s.set(o.name, Some(&o.default_value())),
                Ok(()),
                "{}",
                o.name
            );
        }
        assert_eq!(s.size, Size::default());
        for spin in [MOVETIME, BUDGET, DEPTH, NODES] {
            assert_eq!(
                spin.check(spin.default as i128),
                Ok(spin.default),
                "{}",
                spin.name
            );
        }
    }

    #[test]
    fn a_value_out_of_range_is_refused_in_the_callers_words_and_changes_nothing() {
        let mut s = Settings::default();
        assert_eq!(
            s.set_spin(THREADS, "threads", 0),
            Err("threads must be 1..=64, not 0".into())
        );
        assert_eq!(s.threads, 1);
        assert!(s.set("Hash", Some("1")).is_err());
        assert_eq!(s.hash_mb, HASH.default as usize);
        assert!(s.set_spin(MOVETIME, "movetime_ms", -5).is_err());
        s.set_spin(THREADS, "threads", 2).unwrap();
        assert_eq!(s.threads, 2);
    }

    #[test]
    fn a_size_is_made_of_the_last_width_and_height_asked() {
        let mut s = Settings::default();
        assert!(s.set("Width", Some("12")).is_err(), "12x6 is no size");
        assert_eq!((s.want, s.size), ((12, 6), Size::default()));
        s.set("Height", Some("4")).unwrap();
        assert_eq!(s.size.to_string(), "12x4");
    }
}
