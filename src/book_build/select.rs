//! Choosing what the book holds past its full width (Tromp's way for his 8x8 book): a candidate
//! position is kept when the engine's own proof, a move that keeps the value (win, draw or
//! loss), costs more than a node budget from an empty table. The rest the engine proves in play
//! within that budget, so the book need not hold them. The kept list goes to
//! `vier book build --extra`.
//!
//! Each candidate is probed from a cleared table of its own, so the choice depends on the
//! position and the budget alone: the same list whatever the threads or the order. It is probed
//! in both orientations: the book holds a mirror pair once, but the engine may meet either
//! image, and the solver breaks ties between columns leftwards, so the two proofs can differ
//! by far (`1144724667112254`: 58,585 nodes; its mirror image: 3,770).

use crate::bits::Bitboard;
use crate::board::{Position, Size, SizedJob};
use crate::book::shard::ShardSpec;
use crate::book::{key_as, key_discs, position_from_key, Book};
use crate::ordering::column_order;
use crate::solver::Solver;
use crossbeam_channel::unbounded;
use std::collections::HashSet;
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Candidates a thread takes at a time.
const CHUNK: usize = 64;

#[derive(Clone, Debug)]
pub struct SelectOptions {
    pub size: Size,
    /// The proof budget: candidates that need more nodes are kept.
    pub nodes: u64,
    pub threads: usize,
    /// Table size per thread, MB (cleared before each candidate).
    pub hash_mb: usize,
}

/// What [`select`] found: the kept candidates in their input order, and the costs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    pub kept: Vec<String>,
    pub candidates: usize,
    /// Nodes of every probe, the kept ones' counted up to the budget.
    pub nodes: u64,
}

/// The nodes the engine's proof of `p` takes from an empty table (the win, draw or loss, then a
/// column that keeps it, as [`Solver::prove_root`] does first), or `None` past `budget`.
pub fn proof_cost<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver,
    p: &Position<W, H, B>,
    budget: u64,
) -> Option<u64> {
    solver.clear();
    solver.reset_nodes();
    solver.set_limits(None, Some(budget));
    let proved = solver.solve_weak(p).ok().and_then(|outcome| {
        if outcome < 0 {
            // lost: every move keeps the value
            return Some(());
        }
        solver
            .move_with_value(p, outcome)
            .ok()
            .flatten()
            .map(|_| ())
    });
    solver.set_limits(None, None);
    // the limit is polled, so a proof can end a little past it: that is over budget too
    proved.map(|()| solver.nodes()).filter(|&n| n <= budget)
}

/// The nodes of [`proof_cost`] in both orientations of `p` (once when it is its own mirror
/// image), or `None` when either is past `budget`.
pub fn pair_cost<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver,
    p: &Position<W, H, B>,
    budget: u64,
) -> Option<u64> {
    let first = proof_cost(solver, p, budget)?;
    if p.mirror_key() == p.key() {
        return Some(first);
    }
    Some(first + proof_cost(solver, &p.mirrored(), budget)?)
}

/// Probes every candidate (move strings) and keeps those whose proof costs more than
/// `opts.nodes` in either orientation ([`pair_cost`]); progress goes to `log`. A candidate that
/// is not a position, or whose game is over, is refused before anything is probed; repeated
/// positions (mirror images too) are probed once, at their first place.
pub fn select(
    opts: &SelectOptions,
    candidates: &[String],
    log: &mut dyn Write,
) -> io::Result<Selection> {
    struct Select<'a>(&'a SelectOptions, &'a [String], &'a mut dyn Write);
    impl SizedJob for Select<'_> {
        type Output = io::Result<Selection>;
        fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
            select_sized::<W, H, B>(self.0, self.1, self.2)
        }
    }
    opts.size.run(Select(opts, candidates, log))
}

fn select_sized<const W: usize, const H: usize, B: Bitboard>(
    opts: &SelectOptions,
    candidates: &[String],
    log: &mut dyn Write,
) -> io::Result<Selection> {
    let mut todo: Vec<(usize, Position<W, H, B>)> = Vec::new();
    let mut seen = HashSet::new();
    for (i, m) in candidates.iter().enumerate() {
        let p = super::options::listed_position::<W, H, B>(m, "candidate")?;
        if seen.insert(p.symmetric_key().0) {
            todo.push((i, p));
        }
    }
    super::options::thread_tables_fit(opts.hash_mb, opts.threads)?;
    let next = AtomicUsize::new(0);
    let (tx, rx) = unbounded::<(usize, Option<u64>)>();
    let started = Instant::now();
    let mut cost: Vec<Option<u64>> = vec![None; todo.len()];
    std::thread::scope(|scope| -> io::Result<()> {
        for _ in 0..opts.threads.max(1) {
            let tx = tx.clone();
            let (todo, next) = (&todo, &next);
            let (hash, budget) = (opts.hash_mb, opts.nodes);
            scope.spawn(move || {
                let mut solver = Solver::new(hash);
                loop {
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= todo.len() {
                        break;
                    }
                    for (j, (_, p)) in todo.iter().enumerate().skip(start).take(CHUNK) {
                        if tx.send((j, pair_cost(&mut solver, p, budget))).is_err() {
                            return;
                        }
                    }
                }
            });
        }
        drop(tx);
        let (mut done, mut kept) = (0usize, 0usize);
        let mut last_report = Instant::now();
        for (j, c) in rx {
            cost[j] = c;
            done += 1;
            kept += usize::from(c.is_none());
            if last_report.elapsed() >= Duration::from_secs(5) || done == todo.len() {
                last_report = Instant::now();
                let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-9);
                writeln!(
                    log,
                    "{done}/{} probed, {kept} kept ({:.1}%), {rate:.0} positions/s",
                    todo.len(),
                    100.0 * kept as f64 / done as f64
                )?;
            }
        }
        Ok(())
    })?;
    let kept = todo
        .iter()
        .zip(&cost)
        .filter(|(_, c)| c.is_none())
        .map(|((i, _), _)| candidates[*i].clone())
        .collect();
    let nodes = cost.iter().map(|c| c.unwrap_or(opts.nodes)).sum();
    Ok(Selection {
        kept,
        candidates: todo.len(),
        nodes,
    })
}

/// Every position with exactly `discs` discs whose game is not over (reached only through
/// positions whose game was not over), each mirror pair once, as a move string: depth-first
/// from the empty board, centre column first, so that neighbours share their first moves.
/// These are the candidates of a ply (and the ply a full-width build solves, in this order).
pub fn positions_with<const W: usize, const H: usize, B: Bitboard>(discs: u32) -> Vec<String> {
    ply_in::<W, H, B>(discs, ShardSpec::WHOLE)
}

/// [`positions_with`] for a board size known at run time, only those in `shard`.
pub fn positions(size: Size, discs: u32, shard: ShardSpec) -> Vec<String> {
    struct Ply(u32, ShardSpec);
    impl SizedJob for Ply {
        type Output = Vec<String>;
        fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Vec<String> {
            ply_in::<W, H, B>(self.0, self.1)
        }
    }
    size.run(Ply(discs, shard))
}

/// The positions of [`positions_with`] in `shard`, in the same order.
fn ply_in<const W: usize, const H: usize, B: Bitboard>(
    discs: u32,
    shard: ShardSpec,
) -> Vec<String> {
    fn walk<const W: usize, const H: usize, B: Bitboard>(
        p: &Position<W, H, B>,
        moves: &mut String,
        discs: u32,
        shard: ShardSpec,
        seen: &mut [HashSet<B>],
        out: &mut Vec<String>,
    ) {
        let key = p.symmetric_key().0;
        if !seen[p.moves() as usize].insert(key) {
            return;
        }
        if p.moves() == discs {
            if shard.holds::<W, H, B>(key) {
                out.push(moves.clone());
            }
            return;
        }
        for c in column_order::<W>() {
            if p.can_play(c) && !p.is_winning_move(c) {
                let mut q = *p;
                q.play_col(c);
                if !q.is_full() {
                    moves.push(crate::notation::column_char(c, W));
                    walk(&q, moves, discs, shard, seen, out);
                    moves.pop();
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut seen = vec![HashSet::new(); discs as usize + 1];
    if (discs as usize) < W * H {
        walk(
            &Position::<W, H, B>::new(),
            &mut String::new(),
            discs,
            shard,
            &mut seen,
            &mut out,
        );
    }
    out
}

/// The positions `book` holds past its full width (with `discs`, only those with that many), in
/// shard `shard`, as move strings in key order: the `build --extra` list that makes the book
/// again, so that a layer can be added to it in pieces.
pub fn held_past_depth(
    book: &Book,
    discs: Option<u32>,
    shard: ShardSpec,
) -> io::Result<Vec<String>> {
    let size = Size::new(book.width(), book.height())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
    struct Held<'a>(&'a Book, Option<u32>, ShardSpec);
    impl SizedJob for Held<'_> {
        type Output = io::Result<Vec<String>>;
        fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
            let Held(book, discs, shard) = self;
            let mut list = Vec::new();
            for (key, _) in book.entries() {
                let d = key_discs(key, W, H);
                let Some(k) = key_as::<B>(key) else {
                    continue;
                };
                if d <= book.depth() || discs.is_some_and(|n| n != d) || !shard.holds::<W, H, B>(k)
                {
                    continue;
                }
                let m = position_from_key::<W, H, B>(k)
                    .and_then(|p| p.to_move_string())
                    .ok_or_else(|| {
                        io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("the book's key {key:#x} is no position reached by play"),
                        )
                    })?;
                list.push(m);
            }
            Ok(list)
        }
    }
    size.run(Held(book, discs, shard))
}
