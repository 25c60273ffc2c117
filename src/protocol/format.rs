//! What the engine writes about a search: `info` lines, `bestmove`, scores and lines of moves,
//! in the notation the GUI asked for.

use crate::board::AnyPosition;
use crate::engine::{wdl_permille, Line, Report, ScoreBound};
use crate::notation;

/// How moves are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Notation {
    /// Column digits, 1-based.
    #[default]
    Digits,
    /// cutechess `cfour` drops: `P@<file><rank>`, rank 1 at the bottom.
    Drops,
}

/// How `info` lines look.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InfoStyle {
    pub notation: Notation,
    /// `UCI_ShowWDL`: add `wdl W D L`.
    pub show_wdl: bool,
}

/// 0-based columns from `root` in `notation`; stops at the first move that cannot be played.
pub fn moves(root: &AnyPosition, cols: &[usize], notation: Notation) -> Vec<String> {
    let mut p = *root;
    let mut out = Vec::with_capacity(cols.len());
    for &c in cols {
        let Ok(next) = p.play(c) else { break };
        out.push(match notation {
            Notation::Drops => notation::drop_text(c, p.column_height(c) + 1),
            Notation::Digits => (c + 1).to_string(),
        });
        p = next;
    }
    out
}

/// `bestmove <move>`, or `bestmove (none)` for a finished game.
pub fn bestmove(root: &AnyPosition, best: Option<usize>, notation: Notation) -> String {
    let mv = best
        .and_then(|c| moves(root, &[c], notation).pop())
        .unwrap_or_else(|| "(none)".into());
    format!("bestmove {mv}")
}

/// The `info` lines of one report on a search from `root`.
pub fn info(root: &AnyPosition, it: &Report, style: InfoStyle) -> Vec<String> {
    let ms = it.time.as_millis() as u64;
    let nps = it.nps();
    it.lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let mut s = format!(
                "info depth {} seldepth {} multipv {} score {}",
                it.depth,
                it.seldepth,
                i + 1,
                score(line)
            );
            if style.show_wdl {
                let (w, d, l) = wdl_permille(line.value.score);
                s += &format!(" wdl {w} {d} {l}");
            }
            s += &format!(" nodes {} nps {nps}", it.nodes);
            if it.book_hits > 0 {
                s += &format!(" tbhits {}", it.book_hits);
            }
            s += &format!(" hashfull {} time {ms}", it.hashfull);
            let pv = moves(root, &line.pv, style.notation);
            if !pv.is_empty() {
                s += " pv ";
                s += &pv.join(" ");
            }
            s
        })
        .collect()
}

/// `cp X`, `mate N` or `mate -N`, with `lowerbound`/`upperbound` for a bound. A proven draw is
/// `cp 0`.
pub fn score(line: &Line) -> String {
    let mut s = line.value.score.to_string();
    match line.value.bound {
        ScoreBound::Exact => {}
        ScoreBound::Lower => s += " lowerbound",
        ScoreBound::Upper => s += " upperbound",
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_notation() {
        let root = AnyPosition::empty(crate::board::Size::default());
        assert_eq!(
            moves(&root, &[3, 3, 0], Notation::Drops),
            ["P@d1", "P@d2", "P@a1"]
        );
        assert_eq!(moves(&root, &[3, 3, 0], Notation::Digits), ["4", "4", "1"]);
        assert_eq!(bestmove(&root, Some(3), Notation::Drops), "bestmove P@d1");
        assert_eq!(bestmove(&root, None, Notation::Digits), "bestmove (none)");
    }
}
