//! How columns are written: one character per move, whatever the board's width.
//!
//! Columns are numbered from 1 at the left. A move string has one character per move:
//!
//! - up to 9 columns, the column's digit (`4453`), as Pons' sets and most tools write it;
//! - on any board, the column's letter, `a` for column 1 .. `m` for column 13 (the widest
//!   board's, [`LAST_LETTER`]), as cutechess names files (`ddec` is `4453`); on boards of 10 or
//!   more columns only letters, since `10` would read as two moves.
//!
//! One string uses one notation: digits and letters mixed are refused, since a string that
//! mixes them is most likely two strings run together. Written out, a string is in digits up
//! to 9 columns and in letters past them, so that what vier prints reads back the same on
//! every width and stays one character per move (the GUI, the referee and the book's tools
//! rely on it).

use std::fmt;

/// The widest board whose columns are written as digits.
pub const MAX_DIGIT_WIDTH: usize = 9;

/// The letter of the widest registered board's last column.
pub const LAST_LETTER: char = (b'a' + crate::bits::MAX_WIDTH as u8 - 1) as char;

/// The character of the 0-based column `col` on a board `width` columns wide.
pub fn column_char(col: usize, width: usize) -> char {
    if width <= MAX_DIGIT_WIDTH {
        char::from(b'1' + col as u8)
    } else {
        char::from(b'a' + col as u8)
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, ...: how a winning disc is named in words ("with its 3rd disc").
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A cutechess `cfour` drop: the 0-based column `col` (file `a` first) with the disc landing on
/// `rank` (1 at the bottom): `P@d1`.
pub fn drop_text(col: usize, rank: usize) -> String {
    format!("P@{}{rank}", char::from(b'a' + col as u8))
}

/// The 0-based column and the rank of a drop token: `P@d1`, `p@m12` (files `a`..[`LAST_LETTER`],
/// ranks from 1); `None` for anything else.
pub fn parse_drop(tok: &str) -> Option<(usize, usize)> {
    let rest = tok.strip_prefix("P@").or_else(|| tok.strip_prefix("p@"))?;
    let mut chars = rest.chars();
    let file = chars.next().filter(|f| ('a'..=LAST_LETTER).contains(f))?;
    let rank = chars.as_str();
    if rank.is_empty() || !rank.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rank: usize = rank.parse().ok().filter(|&r| r >= 1)?;
    Some((file as usize - 'a' as usize, rank))
}

/// A move string as the commands print it: `-` for the empty board, which has no character.
pub fn display_moves(m: &str) -> &str {
    if m.is_empty() {
        "-"
    } else {
        m
    }
}

/// A move string of 0-based columns.
pub fn move_string(cols: impl IntoIterator<Item = usize>, width: usize) -> String {
    cols.into_iter().map(|c| column_char(c, width)).collect()
}

/// Why a move string cannot be read; positions are 0-based character offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// A character that names no column.
    BadChar { pos: usize, ch: char },
    /// A digit on a board of 10 or more columns (which take letters).
    DigitOnWideBoard { pos: usize, width: usize },
    /// Digits and letters in one string.
    MixedNotation { pos: usize },
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            NotationError::BadChar { pos, ch } => {
                write!(f, "unexpected character '{ch}' at position {}", pos + 1)
            }
            NotationError::DigitOnWideBoard { pos, width } => write!(
                f,
                "digit at position {} on a board of {width} columns: columns past 9 are written as letters a..{}",
                pos + 1,
                column_char(width - 1, width)
            ),
            NotationError::MixedNotation { pos } => write!(
                f,
                "move string mixes digits and letters at position {}: use one notation",
                pos + 1
            ),
        }
    }
}

/// The 1-based columns of a move string with their character offsets; the columns are not
/// checked against the width (the board does that, with the offset in its error).
pub fn parse_moves(s: &str, width: usize) -> Result<Vec<(usize, usize)>, NotationError> {
    let mut out = Vec::with_capacity(s.len());
    let mut digits = None;
    for (pos, ch) in s.char_indices() {
        let (col, is_digit) = match ch {
            '1'..='9' => (ch as usize - '0' as usize, true),
            'a'..='z' => (ch as usize - 'a' as usize + 1, false),
            'A'..='Z' => (ch as usize - 'A' as usize + 1, false),
            _ => return Err(NotationError::BadChar { pos, ch }),
        };
        if is_digit && width > MAX_DIGIT_WIDTH {
            return Err(NotationError::DigitOnWideBoard { pos, width });
        }
        match digits {
            Some(d) if d != is_digit => return Err(NotationError::MixedNotation { pos }),
            _ => digits = Some(is_digit),
        }
        out.push((pos, col));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_and_letters_name_the_same_columns() {
        let cols = |s| {
            parse_moves(s, 7)
                .unwrap()
                .into_iter()
                .map(|(_, c)| c)
                .collect::<Vec<_>>()
        };
        assert_eq!(cols("4453"), vec![4, 4, 5, 3]);
        assert_eq!(cols("ddec"), vec![4, 4, 5, 3]);
        assert_eq!(cols("DDEC"), vec![4, 4, 5, 3]);
        assert_eq!(move_string([3, 3, 4, 2], 7), "4453");
        assert_eq!(move_string([9, 11, 0], 12), "jla");
    }

    #[test]
    fn wide_boards_take_letters_only_and_no_string_mixes() {
        assert_eq!(
            parse_moves("jl", 12).unwrap(),
            vec![(0, 10), (1, 12)],
            "letters past i"
        );
        assert_eq!(
            parse_moves("1", 10),
            Err(NotationError::DigitOnWideBoard { pos: 0, width: 10 })
        );
        assert_eq!(
            parse_moves("44d", 7),
            Err(NotationError::MixedNotation { pos: 2 })
        );
        assert_eq!(
            parse_moves("4 4", 7),
            Err(NotationError::BadChar { pos: 1, ch: ' ' })
        );
        assert_eq!(
            parse_moves("40", 7),
            Err(NotationError::BadChar { pos: 1, ch: '0' })
        );
    }
}
