//! `vier bench`: a fixed, deterministic node-count signature of the whole engine, plus its speed.
//!
//! Two parts over the same positions: the exact solver solves each with a freshly cleared table
//! of a fixed size; then the engine service searches each to a fixed depth through the path a
//! GUI's `position startpos moves ...` and `go depth N` take (parsed commands, the position,
//! the planned request, the engine with the built-in book and default `Hash`, tables cleared
//! as by `ucinewgame`). Node counts depend only on the code: any change of behaviour of the
//! solver, the searcher, the evaluation, the book or the protocol's planning changes the
//! signature, the total of both parts.

use super::format;
use super::go;
use super::parse::{parse_line, Command};
use super::position::set_position;
use crate::board::{AnyPosition, Size};
use crate::engine::{Answer, Engine, Handle, Question, Settings, SolverPool};
use std::io::{self, Write};
use std::time::Instant;

/// Table size for the bench's solves, fixed so the signature does not depend on options.
pub const BENCH_HASH_MB: usize = 16;
/// Depth of the bench's searches: every part of the searcher runs (ordering, table, killers,
/// solver attempts between iterations), in about a second in all.
pub const BENCH_DEPTH: u32 = 12;

/// Move strings (7x6) from Pascal Pons' public test sets, begin, middle and end of the game.
pub const BENCH_POSITIONS: &[&str] = &[
    // Test_L3_R1 (end): its first four lines
    "2252576253462244111563365343671351441",
    "7422341735647741166133573473242566",
    "23163416124767223154467471272416755633",
    "71255763773133525731261364622167124446454",
    // Test_L2_R1 (middle, easy): its first four lines
    "5554224333234511764415115",
    "52753311433677442422121",
    "1233722555341451114725221333",
    "271713432331713132",
    // Test_L2_R2 (middle, medium): its first four lines
    "274552224131661",
    "5455174361263362",
    "2531276566711153",
    "37313333717124171162542",
    // Test_L1_R1 (begin, easy): its first four lines
    "32164625",
    "6146",
    "243335424257",
    "5512243243536",
    // Test_L1_R2 (begin, medium): its first four lines
    "32751571231557",
    "335662333565",
    "2416615552",
    "157564142155",
];

/// Solves the bench positions, then searches them; writes a line per position and part, and
/// the signature line last. Returns the total node count.
pub fn run(out: &mut impl Write) -> io::Result<u64> {
    let start = Instant::now();
    let total_nodes = solve_all(out)? + search_all(out)?;
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    writeln!(
        out,
        "{total_nodes} nodes {:.0} nps",
        total_nodes as f64 / secs
    )?;
    Ok(total_nodes)
}

/// The solver part: each position solved exactly, its table cleared first.
fn solve_all(out: &mut impl Write) -> io::Result<u64> {
    let pool = SolverPool::new(None, BENCH_HASH_MB);
    let mut total_nodes = 0u64;
    for moves in BENCH_POSITIONS {
        let pos = AnyPosition::from_moves(Size::default(), moves).map_err(io::Error::other)?;
        let proof = pool
            .ask(&pos, Question::Solve { weak: false }, &Handle::unlimited())
            .map_err(io::Error::other)?;
        let Answer::Score(score) = proof.answer else {
            unreachable!("a solve answers with a score")
        };
        writeln!(
            out,
            "{moves} score {score} nodes {} time {:.1} ms",
            proof.nodes,
            proof.time.as_secs_f64() * 1e3
        )?;
        total_nodes += proof.nodes;
    }
    Ok(total_nodes)
}

/// The searcher part: `position startpos moves ...` and `go depth BENCH_DEPTH` for each
/// position, as the protocol runs them.
fn search_all(out: &mut impl Write) -> io::Result<u64> {
    // the defaults: built-in book, default Hash, full strength, one line
    let settings = Settings::default();
    let mut engine = Engine::with_settings(&settings).map_err(io::Error::other)?;
    let Ok(Command::Go(go)) = parse_line(&format!("go depth {BENCH_DEPTH}")) else {
        unreachable!("a well-formed go command")
    };
    let mut total_nodes = 0u64;
    for moves in BENCH_POSITIONS {
        let Ok(Command::Position {
            start,
            moves: tokens,
        }) = parse_line(&format!("position startpos moves {moves}"))
        else {
            unreachable!("a well-formed position command")
        };
        let game = set_position(Size::default(), &start, &tokens).map_err(io::Error::other)?;
        let request = go::plan(&go, game.size(), game.discs(), &settings);
        engine.clear();
        let t = Instant::now();
        let thought = engine.think(&game, &request, &Handle::new(&request), &mut |_| {});
        writeln!(
            out,
            "{moves} depth {} {} nodes {} time {:.1} ms",
            thought.last.depth,
            format::bestmove(&game, thought.column, Default::default()),
            thought.last.nodes,
            t.elapsed().as_secs_f64() * 1e3
        )?;
        total_nodes += thought.last.nodes;
    }
    Ok(total_nodes)
}
