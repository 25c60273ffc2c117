//! A solved position as one line of text: what `vier solve` prints for each position it reads
//! and `vier prove` reads back from its jobs. One type, written by its `Display` and read by
//! [`SolveLine::parse`], which trusts nothing: the move string within the board, every number
//! within its type and every score within what a position of its discs can score.
//!
//! ```text
//! <moves> <found> <nodes> <microseconds>[ UNPROVEN within <n> nodes|ms][ MISMATCH expected <s>][ LEARNT]
//! 4453 -2 1234 56                                  a score (or with --weak -1, 0, 1)
//! 4453 >=1 1234 56                                 --at-least 1, yes; `<=0` for no
//! 4453 - 3 -1 0 2 -2 - 1234 56                     --all: a score a column, `-` for a full one
//! 4453 - 4096 800 UNPROVEN within 4096 nodes       not proven within its budget (with --all,
//!                                                  a `-` a column)
//! 44531 >=0 0 0 LEARNT                             --learnt: what the search of the line
//!                                                  before, cut short, proved of a position
//!                                                  below it (a score or a bound; no nodes of
//!                                                  its own)
//! ```
//!
//! `-` is the empty board.

use crate::board::Size;
use crate::notation;

/// The most moves below a position not proven that `LEARNT` lines reach (`vier solve
/// --learnt`): a line or two for each position bounded, at most (width)^N of them.
pub const MAX_LEARNT_PLIES: u32 = 3;

/// The most `LEARNT` lines deeper than `--learnt` moves that follow one position not proven:
/// the costliest proofs its search finished beside the line it was on.
pub const MAX_DEEP_LEARNT: usize = 64;
use std::fmt;

/// What was found of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// Its score (win 1, draw 0, loss -1 with `--weak`).
    Score(i32),
    /// Its score is at least this (`>=t`) ...
    AtLeast(i32),
    /// ... or at most this (`<=u`).
    AtMost(i32),
    /// The score of each column, `None` for a full one.
    Columns(Vec<Option<i32>>),
    /// Not proven within the budget; `blanks`: the `-` printed in place of the answer (one, or a
    /// column each with `--all`).
    Unproven { blanks: usize, within: Budget },
}

/// A budget a position was not proven within.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Nodes(u64),
    Millis(u64),
}

/// One line of `vier solve`'s output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveLine {
    /// The move string, as read (`-` for the empty board).
    pub moves: String,
    pub found: Found,
    pub nodes: u64,
    pub micros: u64,
    /// The score the input line expected, where the answer disagrees with it.
    pub mismatch: Option<i32>,
    /// Not a position read but one below it, bounded by a search that was cut short.
    pub learnt: bool,
}

impl SolveLine {
    /// A `LEARNT` line: a bound (or a score) an earlier search proved of `moves`.
    pub fn learnt(moves: String, found: Found) -> SolveLine {
        SolveLine {
            moves,
            found,
            nodes: 0,
            micros: 0,
            mismatch: None,
            learnt: true,
        }
    }
}

impl fmt::Display for SolveLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.moves)?;
        match &self.found {
            Found::Score(s) => write!(f, "{s}")?,
            Found::AtLeast(t) => write!(f, ">={t}")?,
            Found::AtMost(u) => write!(f, "<={u}")?,
            Found::Columns(c) => {
                let c: Vec<String> = c
                    .iter()
                    .map(|s| s.map_or("-".into(), |v| v.to_string()))
                    .collect();
                write!(f, "{}", c.join(" "))?
            }
            Found::Unproven { blanks, .. } => write!(f, "{}", vec!["-"; *blanks].join(" "))?,
        }
        write!(f, " {} {}", self.nodes, self.micros)?;
        match self.found {
            Found::Unproven {
                within: Budget::Nodes(n),
                ..
            } => write!(f, " UNPROVEN within {n} nodes")?,
            Found::Unproven {
                within: Budget::Millis(ms),
                ..
            } => write!(f, " UNPROVEN within {ms} ms")?,
            _ => {}
        }
        if let Some(e) = self.mismatch {
            write!(f, " MISMATCH expected {e}")?;
        }
        if self.learnt {
            write!(f, " LEARNT")?;
        }
        Ok(())
    }
}

impl SolveLine {
    /// Reads a line of positions on `size` (win/draw/loss with `weak`), strictly: anything else
    /// is an error that says why.
    pub fn parse(line: &str, size: Size, weak: bool) -> Result<SolveLine, String> {
        let t: Vec<&str> = line.split(' ').collect();
        // the words after the numbers: `UNPROVEN within N unit`, `MISMATCH expected S`, `LEARNT`
        let tail = t
            .iter()
            .position(|w| ["UNPROVEN", "MISMATCH", "LEARNT"].contains(w))
            .unwrap_or(t.len());
        let (head, mut rest) = t.split_at(tail);
        if head.len() < 4 {
            return Err("not a result line: too few words".into());
        }
        let moves = head[0];
        let discs = discs(moves, size)?;
        let scores = &head[1..head.len() - 2];
        let nodes = number(head[head.len() - 2])?;
        let micros = number(head[head.len() - 1])?;
        let mut within = None;
        if let ["UNPROVEN", "within", n, unit, more @ ..] = rest {
            within = Some(match *unit {
                "nodes" => Budget::Nodes(number(n)?),
                "ms" => Budget::Millis(number(n)?),
                _ => return Err(format!("'{unit}' is not a budget's unit")),
            });
            rest = more;
        }
        let (mismatch, learnt) = match rest {
            [] => (None, false),
            ["MISMATCH", "expected", s] => (Some(number(s)?), false),
            ["LEARNT"] if within.is_none() => (None, true),
            _ => return Err("not a result line: words past its numbers".into()),
        };
        let score = |s: &str| -> Result<i32, String> {
            let v: i32 = number(s)?;
            let most = if weak {
                1
            } else {
                // the best a side can score once `discs` are down, or a finished game's
                crate::score::win_at(size.cells() as i32, discs as i32 - 1)
            };
            if v.unsigned_abs() > most.unsigned_abs() {
                return Err(format!("{v} is no score of a position of {discs} discs"));
            }
            Ok(v)
        };
        let found = match (scores, within) {
            (blanks, Some(within)) => {
                if !(blanks.len() == 1 || blanks.len() == size.width())
                    || blanks.iter().any(|b| *b != "-")
                {
                    return Err("an unproven position with an answer".into());
                }
                Found::Unproven {
                    blanks: blanks.len(),
                    within,
                }
            }
            ([s], None) => match (s.strip_prefix(">="), s.strip_prefix("<=")) {
                (Some(t), _) => Found::AtLeast(score(t)?),
                (_, Some(u)) => Found::AtMost(score(u)?),
                _ => Found::Score(score(s)?),
            },
            (c, None) if c.len() == size.width() => Found::Columns(
                c.iter()
                    .map(|s| {
                        if *s == "-" {
                            Ok(None)
                        } else {
                            score(s).map(Some)
                        }
                    })
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Err("not a result line: neither a score nor one a column".into()),
        };
        if learnt && matches!(found, Found::Columns(_)) {
            return Err("a learnt line with a score a column".into());
        }
        Ok(SolveLine {
            moves: moves.to_string(),
            found,
            nodes,
            micros,
            mismatch,
            learnt,
        })
    }
}

/// The discs of a move string on `size` (`-`: none), if it names only columns of the board and
/// no more discs than it has cells; whether each column has room is the board's to say.
fn discs(moves: &str, size: Size) -> Result<usize, String> {
    if moves == "-" {
        return Ok(0);
    }
    let bad = || format!("'{moves}' is not a move string of {size}");
    if moves.is_empty() || moves.len() > size.cells() {
        return Err(bad());
    }
    let cols = notation::parse_moves(moves, size.width()).map_err(|_| bad())?;
    if cols.iter().any(|&(_, c)| c == 0 || c > size.width()) {
        return Err(bad());
    }
    Ok(cols.len())
}

/// A number written as vier writes it: digits, a minus sign for a negative one, nothing else
/// (no `+`, no spaces), within its type.
pub fn number<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{s}' is not a number"));
    }
    s.parse().map_err(|_| format!("'{s}' is not a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(s: &str) -> Size {
        s.parse().unwrap()
    }

    #[test]
    fn every_kind_of_line_reads_back_as_it_was_written() {
        let line = |moves: &str, found, mismatch| SolveLine {
            moves: moves.into(),
            found,
            nodes: 1234,
            micros: 56,
            mismatch,
            learnt: false,
        };
        for (l, weak, text) in [
            (
                line("4453", Found::Score(-2), None),
                false,
                "4453 -2 1234 56",
            ),
            (
                line("-", Found::Score(1), Some(0)),
                true,
                "- 1 1234 56 MISMATCH expected 0",
            ),
            (
                line("4453", Found::AtLeast(1), None),
                true,
                "4453 >=1 1234 56",
            ),
            (
                line("4453", Found::AtMost(0), None),
                true,
                "4453 <=0 1234 56",
            ),
            (
                line(
                    "44",
                    Found::Columns(vec![
                        Some(1),
                        None,
                        Some(-1),
                        Some(0),
                        None,
                        Some(0),
                        Some(1),
                    ]),
                    None,
                ),
                true,
                "44 1 - -1 0 - 0 1 1234 56",
            ),
            (
                line(
                    "4",
                    Found::Unproven {
                        blanks: 1,
                        within: Budget::Nodes(4096),
                    },
                    None,
                ),
                true,
                "4 - 1234 56 UNPROVEN within 4096 nodes",
            ),
            (
                line(
                    "4",
                    Found::Unproven {
                        blanks: 7,
                        within: Budget::Millis(20),
                    },
                    None,
                ),
                false,
                "4 - - - - - - - 1234 56 UNPROVEN within 20 ms",
            ),
            (
                SolveLine {
                    learnt: true,
                    ..line("44531", Found::AtLeast(0), None)
                },
                true,
                "44531 >=0 1234 56 LEARNT",
            ),
        ] {
            assert_eq!(l.to_string(), text);
            assert_eq!(SolveLine::parse(text, size("7x6"), weak), Ok(l), "{text}");
        }
    }

    #[test]
    fn a_line_out_of_its_ranges_or_shape_is_refused() {
        let bad = |l: &str, weak| SolveLine::parse(l, size("7x6"), weak).is_err();
        for l in [
            "",
            "4453",
            "4453 -1 1234",
            "4453 -1 12x4 56",
            "4453 -1 +1234 56",
            "4453 -1 1234 -56",
            "4453 2 1234 56",
            "4453 >=2 1234 56",
            "4453 >= 1234 56",
            "4453 =>1 1234 56",
            "4453 -1  1234 56",
            "4453 -1 1234 56 ",
            "4453 -1 99999999999999999999 56",
            "4458 -1 1234 56",
            "44a3 -1 1234 56",
            "4;rm -1 1234 56",
            "error: line 1: bad",
            "- - 4096 800 UNPROVEN within 4096",
            "- - 4096 800 UNPROVEN within 4096 hours",
            "- 1 4096 800 UNPROVEN within 4096 nodes",
            "- - - 4096 800 UNPROVEN within 4096 nodes",
            "- 1 - 4096 800",
            "- 1 4096 800 MISMATCH",
            "- 1 4096 800 MISMATCH expected 1 more",
            "- - 4096 800 UNPROVEN within 4096 nodes LEARNT",
            "- 1 4096 800 LEARNT more",
            "- 1 4096 800 MISMATCH expected 1 LEARNT",
            "44 1 - -1 0 - 0 1 0 0 LEARNT",
        ] {
            assert!(bad(l, true), "{l}");
        }
        // scores: within what a position of its discs can score (7x6: 21 cells past the last
        // disc; a finished game one more), the exact score past the weak one
        assert!(!bad("- 18 1 1", false) && bad("- 23 1 1", false));
        assert!(!bad("4 -21 1 1", false) && bad("4 -22 1 1", false));
        assert!(
            bad(&format!("{} 0 1 1", "1234567".repeat(7)), false),
            "past the cells"
        );
        // a wide board's columns are letters
        assert!(SolveLine::parse("ak 0 1 1", size("11x4"), true).is_ok());
        assert!(SolveLine::parse("al 0 1 1", size("11x4"), true).is_err());
    }
}
