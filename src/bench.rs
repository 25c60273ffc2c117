//! `vier bench`: a fixed, deterministic node-count signature of the solver, plus its speed.
//!
//! Every position is solved with a freshly cleared table of a fixed size, so the node count
//! depends only on the search code: any change of behaviour changes the signature.

use crate::board::Position;
use crate::solver::Solver;
use std::io::{self, Write};
use std::time::Instant;

/// Table size for the bench, fixed so the signature does not depend on options.
pub const BENCH_HASH_MB: usize = 16;

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

/// Solves the bench positions; writes a line per position and the signature line last.
/// Returns the total node count.
pub fn run(out: &mut impl Write) -> io::Result<u64> {
    let mut solver = Solver::new(BENCH_HASH_MB);
    let mut total_nodes = 0u64;
    let start = Instant::now();
    for moves in BENCH_POSITIONS {
        let pos = Position::<7, 6>::from_moves(moves).map_err(io::Error::other)?;
        solver.clear();
        solver.reset_nodes();
        let t = Instant::now();
        let score = solver
            .solve(&pos)
            .map_err(|_| io::Error::other("stopped"))?;
        writeln!(
            out,
            "{moves} score {score} nodes {} time {:.1} ms",
            solver.nodes(),
            t.elapsed().as_secs_f64() * 1e3
        )?;
        total_nodes += solver.nodes();
    }
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    writeln!(
        out,
        "{total_nodes} nodes {:.0} nps",
        total_nodes as f64 / secs
    )?;
    Ok(total_nodes)
}
