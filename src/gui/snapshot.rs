//! What the page draws of a game, as one JSON snapshot: the board, the settings, and the
//! engine's values in a player's words ([`super::words`]), worked out from the game's facts
//! each time a snapshot is taken.

use super::game::{Analysis, ColumnReport, EngineState, Game, Side, Thinking};
use super::review::{Review, ReviewView};
use super::saved::Saved;
use super::view::View;
use super::words;
use crate::board::Size;
use crate::engine::settings::SKILL_ELO;
use crate::engine::{Score, ScoreBound, Value};
use serde::Serialize;

/// The value of one column in an analysis.
#[derive(Clone, Debug, Serialize)]
pub struct ColumnValue {
    pub column: usize,
    /// Two short lines for above the column (`win` / `in 3`, `draw`, `loss` / `in 5`, `?`).
    pub short: String,
    /// The sentence for screen readers and the tooltip ("column 4 wins in 3 of your moves").
    pub long: String,
    /// The expert's numbers: the protocol's score and Pons' (`score mate 3 · Pons +18`).
    pub expert: String,
    /// `win`, `draw`, `loss` or `open` (not proven yet), and how strongly to shade it (0.3 for
    /// a result far off to 1 for one with the next disc).
    pub outcome: &'static str,
    pub shade: f32,
    /// Pons' score (as `vier solve --all`) when proven.
    pub score: Option<i32>,
    pub exact: bool,
    pub best: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct AnalysisView {
    /// The position it belongs to.
    pub moves: String,
    pub depth: u32,
    /// True once the engine has finished with it.
    pub complete: bool,
    pub columns: Vec<ColumnValue>,
    /// The one line under the board: which columns win, draw and lose.
    pub summary: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct ThinkingView {
    pub depth: u32,
    pub score: String,
    /// 1-based columns, with spaces between.
    pub pv: String,
}

#[derive(Serialize)]
struct Snapshot<'a> {
    id: &'a str,
    version: u64,
    size: String,
    #[serde(flatten)]
    view: View,
    last_move: Option<(usize, usize)>,
    /// Where the four of a won game lies, in words ("across the bottom row").
    four: Option<String>,
    engine_side: Side,
    movetime: u64,
    /// The skill level, and every skill level with its Elo (the full engine last).
    level: u64,
    levels: Vec<(u64, u32)>,
    analysis_always: bool,
    analysis: Option<AnalysisView>,
    /// The game's record as a move string (the moves ahead of the position shown included),
    /// and how many of its moves are on the board.
    line: String,
    ply: usize,
    review: Option<ReviewView>,
    /// The position's link (`7x6/4453`), and what a reload needs to restore the game.
    link: String,
    saved: Saved,
    thinking: Option<ThinkingView>,
    engine: &'a EngineState,
    last_engine_ms: Option<u64>,
    can_undo: bool,
    can_redo: bool,
    sizes: Vec<String>,
    /// Those of `sizes` whose result nobody has published.
    unsolved: Vec<String>,
}

impl Game {
    /// The snapshot the page draws, as JSON, for the session `id`.
    pub fn snapshot(&self, id: &str) -> String {
        serde_json::to_string(&snapshot(id, self)).unwrap_or_default()
    }
}

fn snapshot<'a>(id: &'a str, g: &'a Game) -> Snapshot<'a> {
    let view = g.view();
    let moves = g.moves();
    let last_move = moves.last().map(|&c| {
        let h = moves.iter().filter(|&&m| m == c).count();
        (c, h)
    });
    // an analysis of another position is not shown
    let analysis = g
        .analysis
        .as_ref()
        .filter(|a| a.moves == view.moves)
        .map(|a| analysis(g.size(), &view, a));
    Snapshot {
        id,
        version: g.version,
        size: g.size().to_string(),
        last_move,
        four: (!view.winning.is_empty()).then(|| words::four(&view.winning, view.width)),
        engine_side: g.engine_side,
        movetime: g.movetime,
        level: g.level,
        levels: (1..).zip(SKILL_ELO).collect(),
        analysis_always: g.analysis_always,
        analysis,
        line: crate::notation::move_string(g.record.line(), g.size().width()),
        ply: g.record.moves().len(),
        review: g.review.as_ref().map(Review::view),
        link: g.link(),
        saved: g.saved(),
        thinking: g.thinking.as_ref().map(thinking),
        engine: &g.engine,
        last_engine_ms: g.last_engine_ms,
        // the engine's opening move alone is not taken back (undo goes to the person's turn)
        can_undo: g.record.clone().undo_until(|p| g.persons_turn(p)).is_some(),
        can_redo: g.record.can_redo(),
        sizes: Size::all().map(|s| s.to_string()).collect(),
        unsolved: Size::all()
            .filter(|s| !s.published())
            .map(|s| s.to_string())
            .collect(),
        view,
    }
}

fn thinking(t: &Thinking) -> ThinkingView {
    ThinkingView {
        depth: t.depth,
        score: words::thinking(t.value),
        pv: t
            .pv
            .iter()
            .map(|c| (c + 1).to_string())
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// The analysis `a` of `view` in words: each column's value, the best marked, and the summary.
/// Only a proven column is marked best, and only when no column is ranked above it: an
/// estimate may be better or worse than it says (issue 76: a "?" was outlined as best).
fn analysis(size: Size, view: &View, a: &Analysis) -> AnalysisView {
    let top = a.columns.values().map(|c| c.value.score.rank()).max();
    let columns: Vec<ColumnValue> = a
        .columns
        .iter()
        .map(|(&column, c)| {
            let best = c.exact.is_some() && Some(c.value.score.rank()) == top;
            column_value(column, c, best, size, view.width)
        })
        .collect();
    let proven: Vec<(usize, Value, bool)> = columns
        .iter()
        .filter(|c| c.exact)
        .map(|c| (c.column, a.columns[&c.column].value, c.best))
        .collect();
    // nothing to say before the first report
    let summary = if a.columns.is_empty() && !a.complete {
        String::new()
    } else {
        words::summary(
            size,
            view.moves.is_empty(),
            &view.legal,
            &proven,
            a.complete,
        )
    };
    AnalysisView {
        moves: a.moves.clone(),
        depth: a.depth,
        complete: a.complete,
        columns,
        summary,
    }
}

/// One column's report in words; `best`: no other column does better.
fn column_value(
    column: usize,
    c: &ColumnReport,
    best: bool,
    size: Size,
    width: usize,
) -> ColumnValue {
    let v = c.value;
    // a bound or an estimate reads as not proven, whatever its score
    let shown = if c.exact.is_some() {
        v
    } else {
        Value {
            score: match v.score {
                Score::Draw => Score::Cp(0),
                s => s,
            },
            bound: ScoreBound::Lower,
        }
    };
    ColumnValue {
        column,
        short: words::short(shown),
        // a losing best column holds out longest
        long: format!(
            "column {} {}",
            words::column(column, width),
            words::sentence(shown, best)
        ),
        expert: words::expert(v, c.exact),
        outcome: words::outcome(shown),
        shade: words::shade(shown, size),
        score: c.exact,
        exact: c.exact.is_some(),
        best,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gui::view;

    /// The analysis of 7x6's `4453` (four discs) with each column's (1-based column, value, Pons'
    /// score once proven), as the page gets it.
    fn analysed(columns: &[(usize, Value, Option<i32>)]) -> AnalysisView {
        let size = Size::default();
        let v = view::view(size, &[4, 4, 5, 3]).unwrap();
        let a = Analysis {
            moves: "4453".into(),
            depth: 12,
            complete: false,
            columns: columns
                .iter()
                .map(|&(column, value, exact)| (column, ColumnReport { value, exact }))
                .collect(),
        };
        analysis(size, &v, &a)
    }

    /// The columns marked best.
    fn best(a: &AnalysisView) -> Vec<usize> {
        a.columns
            .iter()
            .filter(|c| c.best)
            .map(|c| c.column)
            .collect()
    }

    #[test]
    fn an_unproven_column_is_never_marked_best() {
        let draw = (Value::proven(42, 4, 0), Some(0));
        let loss = (Value::proven(42, 4, -2), Some(-2));
        // an estimate above every proven column may be a win: nothing is marked (issue 76: the
        // "?" of an estimate was outlined as best)
        let a = analysed(&[
            (1, loss.0, loss.1),
            (3, Value::exact(Score::Cp(40)), None),
            (4, draw.0, draw.1),
        ]);
        assert_eq!(best(&a), Vec::<usize>::new());
        assert_eq!(a.columns[1].short.trim(), "?");
        // a win found but not proven the fastest (a lower bound) outranks the draw, yet is no
        // proof of the best column either
        let found = Value {
            score: Score::Win(3),
            bound: ScoreBound::Lower,
        };
        let a = analysed(&[(3, found, None), (4, draw.0, draw.1)]);
        assert_eq!(best(&a), Vec::<usize>::new());
        // an estimate that ties the proven draw: only the proven column is marked
        let a = analysed(&[(3, Value::exact(Score::Draw), None), (4, draw.0, draw.1)]);
        assert_eq!(best(&a), [4]);
        // below a proven column, an estimate changes nothing: the proven best is marked
        let a = analysed(&[
            (1, Value::exact(Score::Cp(-30)), None),
            (4, draw.0, draw.1),
            (7, loss.0, loss.1),
        ]);
        assert_eq!(best(&a), [4]);
    }
}
