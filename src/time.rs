//! Time management: a typed limit goes in, a soft and a hard deadline come out.
//!
//! * `soft`: the searcher starts no new iteration (and no new solver attempt) past it;
//! * `hard`: the searcher aborts whatever it is doing and answers.
//!
//! Both are durations from the moment the search started (or, when pondering, from `ponderhit`).
//! Nothing here reads a clock, so every rule is unit-tested with plain numbers.
//!
//! Rules:
//! * `movetime T`: used almost fully, never exceeded: `soft = hard = T - min(overhead, T / 5)` (at
//!   least 1 ms). The cap keeps a short movetime a search: with the default 10 ms overhead,
//!   `movetime 10` would otherwise leave nothing, and it gets 8 ms.
//! * a clock (`remaining`, `increment`, `movestogo`): the target is a share of the remaining time
//!   (`remaining / moves_to_go`) plus the increment; `soft = target / 2`,
//!   `hard = min(3 * target, available)` where `available = remaining - overhead`, so a move never
//!   takes more than the clock holds. Negative clocks are treated as 1 ms; nothing underflows or
//!   overflows, whatever the numbers.
//! * both: the tighter of the two.
//! * neither: no deadlines (depth, nodes, mate, infinite, ponder).

use std::time::Duration;

/// The smallest time the searcher is ever given: enough to finish depth 1.
pub const MIN_MS: u64 = 1;

/// A player's clock as the GUI sent it (milliseconds; may be negative or absurd).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub remaining_ms: i64,
    pub increment_ms: i64,
    /// Moves until the next time control, if the GUI said so.
    pub movestogo: Option<u32>,
}

/// What limits the time of one search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeLimit {
    /// `go movetime`, in ms (may be negative or absurd).
    pub movetime_ms: Option<i64>,
    /// The side to move's clock, if any.
    pub clock: Option<Clock>,
    /// How many moves the side to move can still make in this game at most (its discs left); used
    /// as the share divisor when `movestogo` is absent. 0 is treated as 1.
    pub own_moves_left: u32,
    /// `MoveOverhead` in ms: kept back for the GUI's and the pipe's delays (from a movetime, at
    /// most a fifth of it).
    pub overhead_ms: u64,
}

/// The deadlines of one search, from its start. `None` = no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deadlines {
    pub soft: Option<Duration>,
    pub hard: Option<Duration>,
}

/// The divisor used when the GUI sends no `movestogo`: at most this many moves are planned for,
/// so early moves (where Connect Four is decided) get a bigger share.
pub const DEFAULT_MOVES_TO_GO: u32 = 20;

impl TimeLimit {
    /// The deadlines for this limit.
    pub fn deadlines(&self) -> Deadlines {
        let overhead = self.overhead_ms as i128;
        let by_movetime = self.movetime_ms.map(|t| {
            let t = t as i128;
            let ms = clamp_ms(t - overhead.min(t / 5));
            (ms, ms)
        });
        let by_clock = self.clock.map(|c| {
            let remaining = (c.remaining_ms as i128).max(MIN_MS as i128);
            let inc = (c.increment_ms as i128).max(0);
            let available = clamp_ms(remaining - overhead) as i128;
            let mtg = c
                .movestogo
                .unwrap_or(DEFAULT_MOVES_TO_GO)
                .min(self.own_moves_left.max(1))
                .max(1) as i128;
            let target = (remaining / mtg + inc).min(available);
            let hard = (target * 3).min(available);
            (clamp_ms(target / 2), clamp_ms(hard))
        });
        let (soft, hard) = match (by_movetime, by_clock) {
            (None, None) => return Deadlines::default(),
            (Some(a), None) | (None, Some(a)) => a,
            (Some(a), Some(b)) => (a.0.min(b.0), a.1.min(b.1)),
        };
        Deadlines {
            soft: Some(Duration::from_millis(soft.min(hard))),
            hard: Some(Duration::from_millis(hard)),
        }
    }
}

/// Milliseconds clamped to `MIN_MS ..= ~31 years`, so any input yields a usable duration.
fn clamp_ms(ms: i128) -> u64 {
    ms.clamp(MIN_MS as i128, 1_000_000_000_000) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(d: Option<Duration>) -> u64 {
        d.expect("a deadline").as_millis() as u64
    }

    fn clock(remaining: i64, inc: i64, mtg: Option<u32>) -> TimeLimit {
        TimeLimit {
            movetime_ms: None,
            clock: Some(Clock {
                remaining_ms: remaining,
                increment_ms: inc,
                movestogo: mtg,
            }),
            own_moves_left: 21,
            overhead_ms: 10,
        }
    }

    #[test]
    fn no_limit_no_deadline() {
        assert_eq!(TimeLimit::default().deadlines(), Deadlines::default());
    }

    /// The (soft, hard) deadlines of `go movetime` alone, in ms.
    fn movetime(movetime: i64, overhead: u64) -> (u64, u64) {
        let d = TimeLimit {
            movetime_ms: Some(movetime),
            overhead_ms: overhead,
            ..Default::default()
        }
        .deadlines();
        (ms(d.soft), ms(d.hard))
    }

    #[test]
    fn movetime_is_used_almost_fully_never_exceeded() {
        assert_eq!(movetime(100, 10), (90, 90));
        // a short movetime keeps four fifths of itself, whatever the overhead
        for (t, overhead, kept) in [(10, 10, 8), (20, 10, 16), (50, 10, 40), (50, 5, 45)] {
            assert_eq!(movetime(t, overhead), (kept, kept), "movetime {t}");
        }
        for (t, overhead) in [(0, 10), (1, 10), (-50, 0), (i64::MIN, 10), (1, 0)] {
            assert_eq!(
                movetime(t, overhead).1,
                MIN_MS,
                "movetime {t} overhead {overhead}"
            );
        }
        // an absurd overhead takes a fifth at most; an absurd movetime is clamped, not overflowed
        assert_eq!(movetime(i64::MAX, u64::MAX).1, 1_000_000_000_000);
    }

    #[test]
    fn clock_share_plus_increment() {
        // 20 moves to go (default), 10 s: 500 ms + 100 ms increment
        let d = clock(10_000, 100, None).deadlines();
        assert_eq!(ms(d.soft), 300);
        assert_eq!(ms(d.hard), 1800);
        // movestogo counts
        let d = clock(10_000, 0, Some(5)).deadlines();
        assert_eq!((ms(d.soft), ms(d.hard)), (1000, 6000));
        // few discs left: a bigger share
        let mut t = clock(10_000, 0, None);
        t.own_moves_left = 2;
        assert_eq!(ms(t.deadlines().soft), 2500);
    }

    #[test]
    fn clock_never_exceeds_remaining_minus_overhead() {
        for remaining in [-1000, -1, 0, 1, 5, 10, 11, 50, 100, 1000, 60_000, i64::MAX] {
            for inc in [-5, 0, 10, 1000, i64::MAX] {
                for mtg in [None, Some(0), Some(1), Some(2), Some(40), Some(u32::MAX)] {
                    let d = clock(remaining, inc, mtg).deadlines();
                    let (soft, hard) = (ms(d.soft), ms(d.hard));
                    let cap = (remaining as i128 - 10).max(MIN_MS as i128) as u64;
                    assert!(hard >= MIN_MS && soft >= MIN_MS && soft <= hard);
                    assert!(
                        hard <= cap.min(1_000_000_000_000),
                        "remaining {remaining} inc {inc} mtg {mtg:?}: hard {hard} > {cap}"
                    );
                }
            }
        }
    }

    #[test]
    fn negative_clock_is_tiny() {
        let d = clock(-500, 0, None).deadlines();
        assert_eq!((ms(d.soft), ms(d.hard)), (MIN_MS, MIN_MS));
    }

    #[test]
    fn movetime_and_clock_take_the_tighter() {
        let mut t = clock(10_000, 0, Some(1));
        t.movetime_ms = Some(200);
        let d = t.deadlines();
        assert_eq!((ms(d.soft), ms(d.hard)), (190, 190));
    }
}
