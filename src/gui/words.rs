//! Values in the words a player reads: above a column, in a sentence, in the one-line summary
//! under the board and in the review, and how strongly the page shades each. The page shows
//! what is written here; the expert's numbers (`mate N`, Pons' score) stay one click away.
//!
//! A value is always the side to move's: "you" are whoever is to move in the position shown.

use super::published;
use crate::board::Size;
use crate::engine::{Score, ScoreBound, Value};
use crate::notation;

/// A column as move strings write it (1-based in, a digit or a letter out).
pub fn column(c: usize, width: usize) -> String {
    notation::column_char(c - 1, width).to_string()
}

/// `4`, `3 and 5`, `1, 2 and 7`: columns (1-based) as a list in words.
pub fn list(columns: &[usize], width: usize) -> String {
    let names: Vec<String> = columns.iter().map(|&c| column(c, width)).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// What a value says, for the page's colours: `win`, `draw`, `loss`, or `open` (not proven).
pub fn outcome(v: Value) -> &'static str {
    if !v.is_proven() {
        return "open";
    }
    match v.score {
        Score::Win(_) => "win",
        Score::Loss(_) => "loss",
        _ => "draw",
    }
}

/// How strongly a proven win or loss is shaded: 1 when it comes with the next disc, down to
/// 0.3 for one as far off as the board allows; a draw and an open value 0.5.
pub fn shade(v: Value, size: Size) -> f32 {
    let far = size.cells().div_ceil(2).max(2) as f32;
    match (v.is_proven(), v.score) {
        (true, Score::Win(n) | Score::Loss(n)) => 1.0 - 0.7 * (n.max(1) as f32 - 1.0) / (far - 1.0),
        _ => 0.5,
    }
}

/// The two short lines above a column: the result, and how many of the winner's moves it
/// takes. A value not proven yet is `?`.
pub fn short(v: Value) -> String {
    match (v.is_proven(), v.score) {
        (true, Score::Win(n)) => format!("win\nin {n}"),
        (true, Score::Loss(n)) => format!("loss\nin {n}"),
        (true, _) => "draw\n".into(),
        (false, _) => "?\n".into(),
    }
}

/// The value of playing a column, as a sentence about the player to move ("wins in 5 of your
/// moves"); `best` says no other column does better.
pub fn sentence(v: Value, best: bool) -> String {
    let theirs = |n: u32| {
        if n == 1 {
            "the opponent wins with its next move".to_string()
        } else {
            format!("the opponent wins in {n} of its moves")
        }
    };
    match (v.is_proven(), v.score) {
        (true, Score::Win(1)) => "wins at once".into(),
        (true, Score::Win(n)) => format!("wins in {n} of your moves"),
        (true, Score::Loss(n)) if best => format!("holds out longest: {}", theirs(n)),
        (true, Score::Loss(n)) => format!("loses: {}", theirs(n)),
        (true, _) => "draws with best play on both sides".into(),
        (false, Score::Win(_)) => "not proven yet (the engine sees a win)".into(),
        (false, Score::Loss(_)) => "not proven yet (the engine sees a loss)".into(),
        (false, Score::Cp(x)) if x > 50 => {
            "not proven yet (the engine's guess: good for you)".into()
        }
        (false, Score::Cp(x)) if x < -50 => {
            "not proven yet (the engine's guess: good for the opponent)".into()
        }
        (false, _) => "not proven yet (the engine's guess: about even)".into(),
    }
}

/// Where a won game's four in a row lies, in a player's words: "across the bottom row", "across
/// row 3", "up column 4", "on a diagonal from column 2 up to column 5"; `cells` are the winning
/// cells, 1-based (column, row from the bottom), as [`super::view::View::winning`] lists them.
/// Two fours at once are "in two lines at once".
pub fn four(cells: &[(usize, usize)], width: usize) -> String {
    let mut cells = cells.to_vec();
    cells.sort_unstable();
    let (Some(&(c0, r0)), Some(&(c1, r1))) = (cells.first(), cells.last()) else {
        return String::new();
    };
    let along = |dc: usize, up: bool| {
        cells.windows(2).all(|w| {
            let (a, b) = (w[0], w[1]);
            b.0 == a.0 + dc && if up { b.1 == a.1 + 1 } else { b.1 + 1 == a.1 }
        })
    };
    if cells.iter().all(|&(_, r)| r == r0) {
        if r0 == 1 {
            "across the bottom row".into()
        } else {
            format!("across row {r0}")
        }
    } else if cells.iter().all(|&(c, _)| c == c0) {
        format!("up column {}", column(c0, width))
    } else if along(1, true) || along(1, false) {
        let way = if r1 > r0 { "up" } else { "down" };
        format!(
            "on a diagonal from column {} {way} to column {}",
            column(c0, width),
            column(c1, width)
        )
    } else {
        "in two lines at once".into()
    }
}

/// The engine's value of its own line while it thinks, from the view of the side to move
/// ("wins with its 3rd disc from now, at least").
pub fn thinking(v: Value) -> String {
    let t = match v.score {
        Score::Win(n) => format!("wins with its {} disc from now", notation::ordinal(n)),
        Score::Loss(n) => format!(
            "loses: the opponent connects with its {} disc",
            notation::ordinal(n)
        ),
        Score::Draw => "draw (proven)".into(),
        Score::Cp(x) => format!("{:+.2} (estimate)", x as f64 / 100.0),
    };
    match v.bound {
        ScoreBound::Exact => t,
        ScoreBound::Lower => t + ", at least",
        ScoreBound::Upper => t + ", at most",
    }
}

/// The expert's numbers of a value: the protocol's score with its bound, and Pons' exact score
/// when proven.
pub fn expert(v: Value, exact: Option<i32>) -> String {
    let bound = match v.bound {
        ScoreBound::Exact => "",
        ScoreBound::Lower => " (lower bound)",
        ScoreBound::Upper => " (upper bound)",
    };
    let score = match v.score {
        Score::Cp(x) => format!("estimate {:+.2}", x as f64 / 100.0),
        s => format!("score {s}"),
    };
    match exact {
        Some(e) => format!("{score}{bound} · Pons {e:+}"),
        None => format!("{score}{bound}"),
    }
}

/// The one line under the board: which columns win, draw and lose ("4 wins; 3 and 5 draw; the
/// rest lose."), from the values proven so far (`(column, value, best)`, 1-based columns) of
/// the `legal` columns. `done`: the analysis has ended (columns still open stay open). On the
/// `empty_board` of a size not proven here, the published result follows.
pub fn summary(
    size: Size,
    empty_board: bool,
    legal: &[usize],
    values: &[(usize, Value, bool)],
    done: bool,
) -> String {
    let w = size.width();
    let with = |what: &str| -> Vec<usize> {
        legal
            .iter()
            .copied()
            .filter(|c| {
                values
                    .iter()
                    .any(|&(vc, v, _)| vc == *c && outcome(v) == what)
            })
            .collect()
    };
    let (wins, draws, losses) = (with("win"), with("draw"), with("loss"));
    let open: Vec<usize> = legal
        .iter()
        .copied()
        .filter(|c| !wins.contains(c) && !draws.contains(c) && !losses.contains(c))
        .collect();
    let verb = |cs: &[usize], one: &str, many: &str| {
        format!("{} {}", list(cs, w), if cs.len() == 1 { one } else { many })
    };
    let mut parts = Vec::new();
    let all = legal.len();
    if wins.len() == all && all > 1 {
        parts.push("every column wins".to_string());
    } else if draws.len() == all && all > 1 {
        parts.push("every column draws".to_string());
    } else if losses.len() == all && all > 1 {
        let best: Vec<usize> = values
            .iter()
            .filter(|&&(_, _, b)| b)
            .map(|&(c, _, _)| c)
            .collect();
        parts.push(format!(
            "every column loses; {} longest",
            verb(&best, "holds out", "hold out")
        ));
    } else {
        if !wins.is_empty() {
            parts.push(verb(&wins, "wins", "win"));
        }
        if !draws.is_empty() {
            parts.push(verb(&draws, "draws", "draw"));
        }
        if !losses.is_empty() {
            if open.is_empty() && (!wins.is_empty() || !draws.is_empty()) {
                parts.push(if losses.len() == 1 {
                    format!("{} loses", list(&losses, w))
                } else {
                    "the rest lose".to_string()
                });
            } else if wins.is_empty() && draws.is_empty() && open.is_empty() {
                // a single legal column that loses
                parts.push(format!("{} loses", list(&losses, w)));
            } else {
                parts.push(verb(&losses, "loses", "lose"));
            }
        }
    }
    if !open.is_empty() {
        let what = if done {
            "not proven yet"
        } else {
            "being proven"
        };
        if open.len() == all {
            parts.push(format!("{what}: every column"));
        } else {
            parts.push(format!("{} {what}", list(&open, w)));
        }
    }
    let mut line = parts.join("; ");
    if let Some(first) = line.get(0..1) {
        line = first.to_uppercase() + &line[1..];
    }
    line.push('.');
    if empty_board && !open.is_empty() {
        if let Some(p) = published::empty_board(size) {
            line.push(' ');
            line += &p;
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn won(n: u32) -> Value {
        Value::exact(Score::Win(n))
    }
    fn lost(n: u32) -> Value {
        Value::exact(Score::Loss(n))
    }
    fn drawn() -> Value {
        Value::exact(Score::Draw)
    }

    #[test]
    fn the_summary_names_the_winning_and_drawing_columns_and_lumps_the_rest() {
        let s = Size::default();
        let v = [
            (1, lost(3), false),
            (2, lost(3), false),
            (3, drawn(), false),
            (4, won(5), true),
            (5, drawn(), false),
            (6, lost(2), false),
            (7, lost(2), false),
        ];
        let legal: Vec<usize> = (1..=7).collect();
        assert_eq!(
            summary(s, false, &legal, &v, true),
            "4 wins; 3 and 5 draw; the rest lose."
        );
    }

    #[test]
    fn a_lost_position_names_the_column_that_holds_out_longest() {
        let s = Size::default();
        let v = [(1, lost(2), false), (2, lost(9), true), (3, lost(1), false)];
        assert_eq!(
            summary(s, false, &[1, 2, 3], &v, true),
            "Every column loses; 2 holds out longest."
        );
        assert!(sentence(lost(9), true).starts_with("holds out longest"));
        assert_eq!(sentence(won(5), true), "wins in 5 of your moves");
    }

    #[test]
    fn columns_not_proven_are_said_so_with_the_published_result_on_an_empty_board() {
        let s: Size = "8x8".parse().unwrap();
        let guess = Value::exact(Score::Cp(12));
        let legal: Vec<usize> = (1..=8).collect();
        let v: Vec<(usize, Value, bool)> = legal.iter().map(|&c| (c, guess, false)).collect();
        let line = summary(s, true, &legal, &v, true);
        assert!(line.starts_with("Not proven yet: every column."), "{line}");
        assert!(line.contains("second player wins"), "{line}");
        assert!(line.contains("Tromp"), "{line}");
    }

    #[test]
    fn a_four_is_said_where_it_lies() {
        let row = [(2, 1), (3, 1), (4, 1), (5, 1)];
        assert_eq!(four(&row, 7), "across the bottom row");
        assert_eq!(four(&[(4, 3), (4, 4), (4, 5), (4, 6)], 7), "up column 4");
        assert_eq!(
            four(&[(1, 1), (2, 2), (3, 3), (4, 4)], 12),
            "on a diagonal from column a up to column d"
        );
        assert_eq!(
            four(&[(4, 4), (5, 3), (6, 2), (7, 1)], 7),
            "on a diagonal from column 4 down to column 7"
        );
        assert_eq!(
            four(&[(1, 2), (2, 2), (3, 2), (4, 2), (5, 2)], 7),
            "across row 2"
        );
        let two = [(1, 1), (2, 1), (3, 1), (4, 1), (4, 2), (4, 3), (4, 4)];
        assert_eq!(four(&two, 7), "in two lines at once");
    }

    #[test]
    fn wide_boards_name_columns_in_letters() {
        assert_eq!(list(&[1, 10, 12], 12), "a, j and l");
        assert_eq!(list(&[3, 5], 7), "3 and 5");
    }

    #[test]
    fn sooner_results_are_shaded_more_strongly() {
        let s = Size::default();
        assert!(shade(won(1), s) > shade(won(5), s));
        assert!(shade(lost(2), s) > shade(lost(15), s));
        assert_eq!(shade(won(1), s), 1.0);
        assert_eq!(outcome(Value::exact(Score::Cp(40))), "open");
        assert_eq!(
            outcome(Value {
                score: Score::Win(3),
                bound: ScoreBound::Lower
            }),
            "open"
        );
    }
}
