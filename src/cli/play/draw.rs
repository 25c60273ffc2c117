//! What `vier play` draws and says: the board, the discs, the values in words.
//!
//! The board: one 3-character cell per column, the last move in brackets (`[x]`), the discs of a
//! finished game's four in a row in upper case (`X`, `O`) or, in colour, reversed.

use crate::board::{AnyPosition, Cell, Player};
use crate::engine::{Report, Score, ScoreBound, Value};
use crate::notation::ordinal;

/// Heuristic scores within this distance of 0 are called "even".
const EVEN_CP: i32 = 25;

/// A disc: `x`/`o` (upper case when `highlight`ed), or in colour.
pub fn glyph(p: Player, highlight: bool, color: bool) -> String {
    if color {
        colour_disc(p, highlight)
    } else {
        let c = p.symbol();
        if highlight {
            c.to_ascii_uppercase().to_string()
        } else {
            c.to_string()
        }
    }
}

/// The board drawn row by row from the top, the 0-based column `last` played last bracketed,
/// the cells of `four` (column, row from the bottom) highlighted, the column numbers below.
pub fn board(p: &AnyPosition, last: Option<usize>, four: &[(usize, usize)], color: bool) -> String {
    let last = last.map(|c| (c, p.column_height(c) - 1));
    let (w, h) = (p.width(), p.height());
    let mut s = String::new();
    for row in (0..h).rev() {
        let mut line = String::new();
        for col in 0..w {
            let inner = match p.cell(col, row) {
                Cell::Empty => ".".to_string(),
                Cell::Disc(d) => glyph(d, four.contains(&(col, row)), color),
            };
            if last == Some((col, row)) {
                line += &format!("[{inner}]");
            } else {
                line += &format!(" {inner} ");
            }
        }
        s += line.trim_end();
        s.push('\n');
    }
    // three characters a column, as the cells: "10" and up fill two of them
    let numbers: String = (1..=w).map(|c| format!("{c:^3}")).collect();
    s += numbers.trim_end();
    s.push('\n');
    s
}

/// "skill level N" or "full strength".
pub fn skill_words(skill: u64) -> String {
    match crate::engine::Skill::new(skill, 0) {
        Ok(Some(_)) => format!("skill level {skill}"),
        _ => "full strength".to_string(),
    }
}

/// A hint's words for a column's exact score from the person's view.
pub fn hint_words(score: Score) -> String {
    match score {
        Score::Win(1) => "wins at once".into(),
        Score::Win(n) => format!("wins (with your {} disc from now)", ordinal(n)),
        Score::Loss(n) => format!(
            "loses (vier connects four with its {} disc from now)",
            ordinal(n.max(1))
        ),
        Score::Draw => "draws".into(),
        Score::Cp(_) => "unknown".into(),
    }
}

/// A disc in colour. The two sides differ in shape as well (filled and hollow), for players
/// who cannot tell the colours apart.
fn colour_disc(p: Player, highlight: bool) -> String {
    let (colour, disc) = match p {
        Player::First => ("33", '\u{25cf}'),
        Player::Second => ("31", '\u{25cb}'),
    };
    let rev = if highlight { ";7" } else { "" };
    format!("\x1b[1;{colour}{rev}m{disc}\x1b[0m")
}

/// The engine's value in words, from the engine's view; a win or loss the search found but
/// has not proven the distance of is "in at most" so many moves.
pub fn score_words(value: Value) -> String {
    let at_most = if value.bound == ScoreBound::Exact {
        ""
    } else {
        "at most "
    };
    let moves = |n: u32| {
        if n == 1 {
            format!("{at_most}move")
        } else {
            format!("{at_most}{n} moves")
        }
    };
    match value.score {
        Score::Win(1) if at_most.is_empty() => "I win with my next move".into(),
        Score::Win(n) => format!("I win in {}", moves(n)),
        Score::Loss(0) => "you have won".into(),
        Score::Loss(1) if at_most.is_empty() => "you can win with your next move".into(),
        Score::Loss(n) => format!("you can win in {}", moves(n)),
        Score::Draw => "drawn".into(),
        Score::Cp(v) if v >= EVEN_CP => "I am better".into(),
        Score::Cp(v) if v <= -EVEN_CP => "you are better".into(),
        Score::Cp(_) => "even".into(),
    }
}

/// `depth 12, I am better, 12345 nodes` for a report.
pub fn summary(it: &Report) -> String {
    let words = it
        .lines
        .first()
        .map_or_else(|| "even".to_string(), |l| score_words(l.value));
    format!("depth {}, {words}, {} nodes", it.depth, it.nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coloured_discs_differ_in_shape_without_their_colours() {
        let shape = |p, h| {
            let s = colour_disc(p, h);
            // what is left with the escape sequences taken out
            let plain: String = s.split('m').nth(1).unwrap().chars().take(1).collect();
            plain
        };
        for h in [false, true] {
            assert_ne!(shape(Player::First, h), shape(Player::Second, h));
        }
    }

    #[test]
    fn words() {
        assert_eq!(ordinal(1), "1st");
        assert_eq!(ordinal(12), "12th");
        assert_eq!(ordinal(22), "22nd");
        assert_eq!(score_words(Value::exact(Score::Win(7))), "I win in 7 moves");
        let found = Value {
            score: Score::Win(7),
            bound: ScoreBound::Lower,
        };
        assert_eq!(score_words(found), "I win in at most 7 moves");
        assert_eq!(
            score_words(Value::exact(Score::Loss(1))),
            "you can win with your next move"
        );
        assert_eq!(score_words(Value::exact(Score::Cp(0))), "even");
        assert_eq!(score_words(Value::exact(Score::Cp(-80))), "you are better");
        assert_eq!(
            hint_words(Score::Win(5)),
            "wins (with your 5th disc from now)"
        );
    }
}
