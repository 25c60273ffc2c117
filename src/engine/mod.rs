//! The engine service: one player behind every front end, and the only vocabulary the front
//! ends speak.
//!
//! The protocol, `vier play`, `vier solve`, `vier bench`, `vier serve`, `vier gui`, the Python
//! package and the browser page each turn their input into calls of this module and its
//! answers into their output, and do nothing else: none converts a score, checks a range or
//! runs the solver itself.
//!
//! - [`Engine`] (player.rs): the time-limited player. It takes a position, a [`Request`]
//!   (request.rs: a time limit, [`Limits`], a skill level) and a [`Handle`] (handle.rs: how
//!   whoever asked stops it and sees its progress), reports every finished depth as a
//!   [`Report`] and answers with a [`Thought`] (report.rs). A report's values carry their
//!   bounds ([`Value`]); the exact score is there only where the value is proven.
//! - [`SolverPool`] (pool.rs): exact answers within a budget, with their nodes and time
//!   ([`Solved`]).
//! - [`settings`]: every setting a front end offers, declared once with its range, default and
//!   action; [`options`] how such a declaration is checked and listed.
//! - [`EngineError`]: why there is no answer.
//!
//! Below the service, nothing knows of front ends: the searcher ([`crate::search`]), the
//! solver, the skill levels ([`crate::levels`]: a weaker player's choice after the search) and
//! the stop rule ([`crate::control`]) are reached from here.

mod handle;
pub mod options;
mod player;
mod pool;
mod report;
mod request;
pub mod settings;

pub use crate::book::Book;
/// The host's clock (the page's is the browser's): time since an arbitrary start.
pub use crate::clock;
pub use crate::levels::Strength;
pub use crate::search::TableMemory;
/// A solved position as `vier solve` writes it.
pub use crate::solve_line::{Budget, Found, SolveLine, MAX_LEARNT_PLIES};
#[cfg(feature = "stats")]
pub use crate::solver::stats::Stats;
pub use crate::solver::Below;
pub use handle::{game_over, EngineError, Handle, Progress};
pub use player::{Engine, Evaluation};
pub use pool::{Answer, Question, Solved, SolverPool, SOLVE_HASH_MB};
pub use report::{proven, wdl_permille, Line, Report, Score, ScoreBound, Thought, Value};
pub use request::{Clock, Limits, Request, Skill, TimeLimit};
pub use settings::Settings;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{AnyPosition, Size};
    use std::time::Duration;

    fn seven_by_six(moves: &str) -> AnyPosition {
        AnyPosition::from_moves(Size::default(), moves).unwrap()
    }

    #[test]
    fn a_search_plays_the_win_and_reports_its_depths() {
        let mut e = Engine::new(8).unwrap();
        let p = seven_by_six("414141");
        let mut depths = Vec::new();
        let request = Request {
            limits: Limits {
                depth: Some(3),
                multipv: 1,
                ..Limits::default()
            },
            ..Request::default()
        };
        let t = e.think(&p, &request, &Handle::new(&request), &mut |it| {
            depths.push(it.depth)
        });
        assert_eq!(t.column, Some(3));
        assert_eq!(t.value(), Some(Value::exact(Score::Win(1))));
        assert_eq!(t.exact(), Some(18));
        assert!(!depths.is_empty() && t.chosen_by.is_none());
    }

    #[test]
    fn a_skill_level_chooses_a_legal_column_and_says_so() {
        let mut e = Engine::new(8).unwrap();
        let p = seven_by_six("4453");
        let mut request = Request::movetime(10_000);
        request.skill = Skill::new(1, 7).unwrap();
        for _ in 0..3 {
            let t = e.think(&p, &request, &Handle::new(&request), &mut |_| {});
            assert_eq!(t.chosen_by, Some(1));
            assert!(p.can_play(t.column.unwrap()));
        }
        assert_eq!(Skill::new(crate::levels::FULL_SKILL, 0), Ok(None));
        assert!(Skill::new(0, 0).is_err());
    }

    #[test]
    fn a_finished_game_gets_no_column() {
        let mut e = Engine::new(8).unwrap();
        let p = seven_by_six("4141414");
        let request = Request::movetime(50);
        let t = e.think(&p, &request, &Handle::new(&request), &mut |_| {});
        assert_eq!(t.column, None);
    }

    #[test]
    fn the_pool_answers_exactly_and_says_why_it_does_not() {
        let pool = SolverPool::new(None, SOLVE_HASH_MB);
        let p = seven_by_six("2252576253462244111563365343671351441");
        let none = Handle::unlimited();
        let score = pool.solve(&p, false, &none).unwrap();
        let columns = pool.analyse(&p, false, &none).unwrap();
        assert_eq!(columns.iter().flatten().max(), Some(&score));
        assert_eq!(pool.best_move(&p, &none).unwrap().map(|b| b.1), Some(score));
        let over = seven_by_six("4141414");
        assert!(matches!(
            pool.solve(&over, false, &none),
            Err(EngineError::Invalid(_))
        ));
        let stopped = Handle::unlimited();
        stopped.stop();
        let empty = AnyPosition::empty(Size::default());
        assert_eq!(
            pool.solve(&empty, false, &stopped),
            Err(EngineError::Stopped)
        );
        let late = Handle::within(Some(Duration::ZERO));
        assert_eq!(
            pool.solve(&empty, false, &late),
            Err(EngineError::OutOfTime {
                budget: Duration::ZERO
            })
        );
    }
}
