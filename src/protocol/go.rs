//! What a `go` command asks for, worked out without touching any state: its parameters and the
//! engine's settings in, the engine service's [`Request`] out (its time limit, search limits,
//! pondering and skill level). The loop and `bench` both start their searches from [`plan`].

use super::parse::GoParams;
use crate::board::Size;
use crate::engine::{Clock, Limits, Request, Score, Settings, TimeLimit};

/// Plans `go` on a board of `size` with `moves` discs on it, with the engine's `settings`
/// (`MoveOverhead`, `MultiPV`, the skill level).
pub fn plan(go: &GoParams, size: Size, moves: u32, settings: &Settings) -> Request {
    let cells = size.cells() as u32;
    let first = moves.is_multiple_of(2);
    let (time, inc) = if first {
        (go.wtime, go.winc)
    } else {
        (go.btime, go.binc)
    };
    let time_limit = TimeLimit {
        movetime_ms: go.movetime,
        clock: time.map(|t| Clock {
            remaining_ms: t,
            increment_ms: inc.unwrap_or(0),
            movestogo: go.movestogo,
        }),
        own_moves_left: (cells - moves).div_ceil(2),
        overhead_ms: 0,
    };
    // a win with the n-th disc from now lies within its plies, where the search is exact
    let depth = match go.mate {
        Some(n) => Some(go.depth.unwrap_or(u32::MAX).min(Score::mate_depth(n))),
        None => go.depth,
    };
    let limits = Limits {
        depth,
        nodes: go.nodes,
        infinite: go.infinite,
        // a token that names no column (a 0 in a run of digits) restricts nothing
        searchmoves: go
            .searchmoves
            .iter()
            .flat_map(|m| m.columns(size.width()).unwrap_or_default())
            .map(|c| c - 1)
            .collect(),
        multipv: settings.multipv,
    };
    Request {
        ponder: go.ponder,
        ..settings.request(time_limit, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::parse::{parse_line, Command};
    use crate::time::Deadlines;

    fn go(line: &str) -> GoParams {
        match parse_line(line) {
            Ok(Command::Go(g)) => g,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn plan(g: &GoParams, size: Size, moves: u32) -> Request {
        super::plan(g, size, moves, &Settings::default())
    }

    #[test]
    fn clocks_belong_to_the_side_to_move() {
        let g = go("go wtime 1000 btime 9000");
        let first = plan(&g, Size::default(), 0);
        let second = plan(&g, Size::default(), 1);
        assert_eq!(first.time.clock.unwrap().remaining_ms, 1000);
        assert_eq!(second.time.clock.unwrap().remaining_ms, 9000);
    }

    #[test]
    fn mate_bounds_the_depth_and_infinite_has_no_deadline() {
        let p = plan(&go("go mate 3 depth 20"), Size::default(), 0);
        assert_eq!(p.limits.depth, Some(5));
        let p = plan(&go("go movetime 100 infinite"), Size::default(), 0);
        assert_eq!(p.deadlines(), Deadlines::default());
        let p = plan(&go("go searchmoves 4 P@a1"), Size::default(), 0);
        assert_eq!(p.limits.searchmoves, [3, 0]);
    }
}
