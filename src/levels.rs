//! Strength levels: how a weaker vier chooses its move from the engine's own values of the
//! columns (the protocol's `Skill Level`, `UCI_LimitStrength` and `UCI_Elo`).
//!
//! The production search is untouched: a level asks it for the value of every column (a
//! `MultiPV` search to the level's [`Level::nodes`] at most), then [`choose`] picks the move the way a
//! person of that strength might, with a seeded random draw so that a game can be replayed:
//!
//! 1. **A horizon.** A proven win or loss is seen only when it comes within the level's
//!    [`Level::horizon`] plies; a deeper one (and a proven draw) looks like an ordinary move,
//!    with at most a vague [`Level::hunch`] that it is good or bad. Deep threats are missed.
//! 2. **Overlooking.** Even within the horizon, each column's win or loss is overlooked with the
//!    level's [`Level::overlook`] chance: the trap a person sometimes walks into.
//! 3. **Natural-looking moves.** Central columns get a bonus ([`Level::natural`]), as people
//!    prefer them when they cannot tell moves apart.
//! 4. **A soft choice.** The move is drawn with probability proportional to
//!    `exp(perceived / temperature)` ([`Level::temperature`]): close alternatives are played
//!    often, clearly worse ones seldom.
//!
//! Every parameter moves towards perfect play as the level rises, so mistakes become rarer and
//! smaller; the top level sees every proven result and only hesitates between moves of about
//! the same heuristic value. The move is always one of the columns given: never illegal.

use crate::rng::Rng;
use crate::score::Score;
use crate::search::{Line, SearchLimits};

/// The `Skill Level` of the full engine (no limit); levels 1 to `FULL_SKILL - 1` are weaker.
pub const FULL_SKILL: u64 = LEVELS.len() as u64 + 1;

/// How one level perceives and chooses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// Plies within which a proven win or loss is seen (a win with the N-th disc from now is
    /// `2N - 1` plies away, a loss to the opponent's N-th disc `2N`).
    pub horizon: u32,
    /// Chance of overlooking a proven result within the horizon, per column.
    pub overlook: f64,
    /// Perceived value of a proven win (minus: loss) beyond the horizon.
    pub hunch: f64,
    /// Bonus of the centre column over the edge ones, falling off linearly.
    pub natural: f64,
    /// Softness of the choice (perceived units; 100 is a clear heuristic advantage).
    pub temperature: f64,
    /// Search work (nodes) spent on the values of the columns, whatever time the level is
    /// given: a few milliseconds, the same values on every machine (games replay).
    pub nodes: u64,
}

/// Levels 1 (a beginner) to 8, weakest first.
pub const LEVELS: [Level; 8] = [
    Level {
        horizon: 2,
        overlook: 0.8,
        hunch: 0.0,
        natural: 60.0,
        temperature: 300.0,
        nodes: 20_000,
    },
    Level {
        horizon: 2,
        overlook: 0.4,
        hunch: 0.0,
        natural: 80.0,
        temperature: 200.0,
        nodes: 20_000,
    },
    Level {
        horizon: 2,
        overlook: 0.1,
        hunch: 0.0,
        natural: 80.0,
        temperature: 150.0,
        nodes: 20_000,
    },
    Level {
        horizon: 4,
        overlook: 0.05,
        hunch: 0.0,
        natural: 60.0,
        temperature: 100.0,
        nodes: 20_000,
    },
    Level {
        horizon: 6,
        overlook: 0.03,
        hunch: 30.0,
        natural: 40.0,
        temperature: 60.0,
        nodes: 20_000,
    },
    Level {
        horizon: 10,
        overlook: 0.01,
        hunch: 60.0,
        natural: 30.0,
        temperature: 40.0,
        nodes: 50_000,
    },
    Level {
        horizon: 16,
        overlook: 0.0,
        hunch: 100.0,
        natural: 20.0,
        temperature: 25.0,
        nodes: 100_000,
    },
    Level {
        horizon: 64,
        overlook: 0.0,
        hunch: 0.0,
        natural: 10.0,
        temperature: 10.0,
        nodes: 300_000,
    },
];

/// Perceived value of a proven result seen within the horizon, before its distance.
const SEEN: f64 = 1000.0;
/// Heuristic scores are trusted up to this size.
const CP_CAP: i32 = 400;

/// The Elo of each `Skill Level` from 1 to [`FULL_SKILL`] (the full engine last), as measured
/// by `tools/levels.py` (docs/levels/README.md: the table with its intervals and the command).
pub const ELO: [u32; LEVELS.len() + 1] = [537, 692, 883, 1035, 1223, 1496, 1736, 1803, 1911];

/// The `Skill Level` that `UCI_Elo` asks for: the strongest whose Elo does not exceed it (the
/// weakest for anything below the table).
pub fn skill_for_elo(elo: u64) -> u64 {
    let below = ELO.iter().filter(|&&e| u64::from(e) <= elo).count() as u64;
    below.max(1)
}

/// The seed of one move: the game's seed mixed with the position, so that the same seed and
/// position always give the same move, whatever came before.
pub fn move_seed(seed: u64, position_key: u64) -> u64 {
    Rng::new(seed ^ position_key.rotate_left(17)).next_u64()
}

/// The level `level` (1-based, clamped to the table).
pub fn level(level: u64) -> &'static Level {
    &LEVELS[(level.clamp(1, LEVELS.len() as u64) - 1) as usize]
}

/// How `level` perceives a column of value `score` (`overlooked`: it missed the result).
fn perceived(level: &Level, score: Score, overlooked: bool) -> f64 {
    let seen = |plies: u32| !overlooked && plies <= level.horizon;
    match score {
        Score::Cp(cp) => f64::from(cp.clamp(-CP_CAP, CP_CAP)),
        Score::Draw => 0.0,
        Score::Win(_) => {
            let plies = score.plies().unwrap_or(0);
            if seen(plies) {
                SEEN - f64::from(plies)
            } else {
                level.hunch
            }
        }
        Score::Loss(_) => {
            let plies = score.plies().unwrap_or(0);
            if seen(plies) {
                -SEEN + f64::from(plies)
            } else {
                -level.hunch
            }
        }
    }
}

/// The move `level` (1-based, 1..[`FULL_SKILL`]) plays among `columns`: each a 0-based column
/// with the engine's value of playing it (from the side to move's view), on a board `width`
/// wide; `seed` from [`move_seed`]. `None` only when `columns` is empty.
pub fn choose(level: u64, width: usize, columns: &[(usize, Score)], seed: u64) -> Option<usize> {
    let lv = self::level(level);
    let mut rng = Rng::new(seed);
    let centre = (width as f64 - 1.0) / 2.0;
    let utility: Vec<f64> = columns
        .iter()
        .map(|&(col, score)| {
            let overlooked = rng.unit() < lv.overlook;
            let off_centre = (col as f64 - centre).abs() / centre.max(1.0);
            perceived(lv, score, overlooked) + lv.natural * (1.0 - off_centre)
        })
        .collect();
    let top = utility.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = utility
        .iter()
        .map(|u| ((u - top) / lv.temperature).exp())
        .collect();
    let mut pick = rng.unit() * weights.iter().sum::<f64>();
    for (&(col, _), w) in columns.iter().zip(&weights) {
        if pick < *w {
            return Some(col);
        }
        pick -= w;
    }
    columns.last().map(|&(col, _)| col)
}

/// A skill level below the full engine (1 .. [`FULL_SKILL`] - 1) and the seed of its choices:
/// the same seed and position give the same move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skill {
    pub level: u64,
    pub seed: u64,
}

impl Skill {
    /// The skill level `level` with `seed`; `None` for the full engine ([`FULL_SKILL`], no
    /// skill level at all), or why the number is none.
    pub fn new(level: u64, seed: u64) -> Result<Option<Skill>, String> {
        if !(1..=FULL_SKILL).contains(&level) {
            return Err(format!("skill level must be 1..={FULL_SKILL}, not {level}"));
        }
        Ok((level < FULL_SKILL).then_some(Skill { level, seed }))
    }
}

/// What the protocol's options ask for: a level below the full engine, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strength {
    /// `Skill Level`, 1..=[`FULL_SKILL`].
    pub skill: u64,
    /// `UCI_LimitStrength`: `UCI_Elo` decides the level instead of `Skill Level`.
    pub limit: bool,
    /// `UCI_Elo`.
    pub elo: u64,
    /// `LevelSeed`: the seed of the level's choices.
    pub seed: u64,
}

impl Default for Strength {
    fn default() -> Self {
        Strength {
            skill: FULL_SKILL,
            limit: false,
            elo: u64::from(ELO[ELO.len() - 1]),
            seed: 0,
        }
    }
}

impl Strength {
    /// The level to play at, `None` for the full engine (as UCI has it, `UCI_LimitStrength`
    /// with `UCI_Elo` takes precedence over `Skill Level`).
    pub fn level(&self) -> Option<u64> {
        let skill = if self.limit {
            skill_for_elo(self.elo)
        } else {
            self.skill
        };
        (skill < FULL_SKILL).then_some(skill)
    }

    /// The skill level to play at with its seed (`LevelSeed`), `None` for the full engine.
    pub fn skill(&self) -> Option<Skill> {
        self.level().map(|level| Skill {
            level,
            seed: self.seed,
        })
    }
}

/// Sets `limits` for a search at `level` on a board `width` wide: every column's value (MultiPV
/// as wide as the board), within the level's node budget (or a smaller one already set).
pub fn limit(level: u64, width: usize, limits: &mut SearchLimits) {
    let budget = self::level(level).nodes;
    limits.multipv = width;
    limits.nodes = Some(limits.nodes.map_or(budget, |n| n.min(budget)));
}

/// The move `level` plays after a search set by [`limit`]: [`choose`] over the
/// [`column_values`] of its last complete iteration (`complete`) and its final report (`last`),
/// seeded by the game's `seed` and the position (`position_key`).
pub fn pick(
    level: u64,
    width: usize,
    (seed, position_key): (u64, u64),
    complete: &[Line],
    last: &[Line],
) -> Option<usize> {
    let values = column_values(complete, last);
    choose(level, width, &values, move_seed(seed, position_key))
}

/// The values of the columns a search reported, for [`choose`]: each column's latest value,
/// from `last` (the search's final report, which may be an interrupted iteration) or else from
/// `complete` (the last complete iteration's lines).
pub fn column_values(complete: &[Line], last: &[Line]) -> Vec<(usize, Score)> {
    let mut out: Vec<(usize, Score)> = Vec::new();
    for line in last.iter().chain(complete) {
        if let Some(&col) = line.pv.first() {
            if !out.iter().any(|&(c, _)| c == col) {
                out.push((col, line.value.score));
            }
        }
    }
    // a fixed order, so that the choice depends on the values only, not on the search's order
    out.sort_by_key(|&(c, _)| c);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Centre column wins at once, the others are ordinary.
    fn one_win() -> Vec<(usize, Score)> {
        (0..7)
            .map(|c| (c, if c == 3 { Score::Win(1) } else { Score::Cp(0) }))
            .collect()
    }

    fn share(level: u64, columns: &[(usize, Score)], col: usize) -> f64 {
        let n = 2000;
        let hits = (0..n)
            .filter(|&s| choose(level, 7, columns, move_seed(s, 42)) == Some(col))
            .count();
        hits as f64 / n as f64
    }

    #[test]
    fn the_same_seed_gives_the_same_move_and_seeds_vary_it() {
        let cols: Vec<(usize, Score)> = (0..7).map(|c| (c, Score::Cp(0))).collect();
        let a: Vec<_> = (0..50).map(|s| choose(1, 7, &cols, s)).collect();
        let b: Vec<_> = (0..50).map(|s| choose(1, 7, &cols, s)).collect();
        assert_eq!(a, b);
        let distinct: std::collections::BTreeSet<_> = a.iter().collect();
        assert!(distinct.len() > 3, "{a:?}");
    }

    #[test]
    fn a_move_is_always_one_of_the_columns_given() {
        let cols = [(1, Score::Loss(1)), (5, Score::Loss(2)), (6, Score::Draw)];
        for level in 1..FULL_SKILL {
            for s in 0..200 {
                let c = choose(level, 7, &cols, s).unwrap();
                assert!([1, 5, 6].contains(&c));
            }
        }
        assert_eq!(choose(3, 7, &[], 1), None);
    }

    #[test]
    fn immediate_wins_are_missed_less_often_as_the_level_rises() {
        let shares: Vec<f64> = (1..FULL_SKILL).map(|l| share(l, &one_win(), 3)).collect();
        for pair in shares.windows(2) {
            assert!(pair[0] <= pair[1] + 0.03, "{shares:?}");
        }
        assert!(shares[0] < 0.6, "{shares:?}");
        assert!(shares[LEVELS.len() - 1] > 0.99, "{shares:?}");
    }

    #[test]
    fn deep_threats_lie_beyond_the_low_levels_horizon() {
        // column 0 loses to the opponent's 4th disc (8 plies), the others draw
        let cols: Vec<(usize, Score)> = (0..7)
            .map(|c| (c, if c == 0 { Score::Loss(4) } else { Score::Draw }))
            .collect();
        assert!(share(1, &cols, 0) > 0.02);
        assert_eq!(share(LEVELS.len() as u64, &cols, 0), 0.0);
    }

    #[test]
    fn the_centre_looks_natural_when_moves_look_alike() {
        let cols: Vec<(usize, Score)> = (0..7).map(|c| (c, Score::Draw)).collect();
        assert!(share(2, &cols, 3) > share(2, &cols, 0) + 0.05);
    }

    #[test]
    fn elo_maps_onto_the_table() {
        assert_eq!(skill_for_elo(0), 1);
        for (i, &e) in ELO.iter().enumerate() {
            assert_eq!(skill_for_elo(u64::from(e)), i as u64 + 1);
        }
        assert_eq!(skill_for_elo(u64::MAX), FULL_SKILL);
        assert!(ELO.windows(2).all(|w| w[0] < w[1]));
    }
}
