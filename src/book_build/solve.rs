//! Solving a part of a build: every position not yet known is solved, with its best move, on
//! `threads` threads, each with its own solver and table, taking chunks of neighbouring
//! positions so that a thread's table serves siblings. Every solved position goes to the
//! [`Journal`] at once, so that a build that is interrupted resumes from it; what is known
//! already (the journal, a book at the output, a book given) is not solved again. Progress
//! goes to the log as it comes.

use super::options::{thread_tables_fit, BuildOptions};
use crate::bits::Bitboard;
use crate::board::Position;
use crate::book::journal::Journal;
use crate::book::{key_as, position_from_key, Book, Entry};
use crate::solver::Solver;
use crossbeam_channel::unbounded;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Positions a thread takes at a time: neighbours in depth-first order, sharing the table.
const CHUNK: usize = 16;

pub(super) fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}s", s)
    }
}

/// Records what is known of a position, keeping a best move over none (a book of format
/// version 1 has scores only: its positions need just their moves found).
pub(super) fn learn<B: Bitboard>(known: &mut HashMap<B, Entry>, key: B, e: Entry) {
    let slot = known.entry(key).or_insert(e);
    if slot.best == 0 {
        *slot = e;
    }
}

/// The entry of `p`, in the orientation of its symmetric key: its exact score (`known`, or
/// solved) and its best move. The move is found in that orientation too: where two columns
/// as near the centre keep the value, the one chosen must not depend on which mirror image
/// was met first (the main line meets positions as played, a list as keyed).
pub fn solve_entry<const W: usize, const H: usize, B: Bitboard>(
    solver: &mut Solver,
    p: &Position<W, H, B>,
    known: Option<i32>,
) -> Entry {
    let p = if p.symmetric_key().1 {
        p.mirrored()
    } else {
        *p
    };
    let score = known.unwrap_or_else(|| solver.solve(&p).expect("no limits are set"));
    let best = solver.best_column(&p, score).expect("no limits are set");
    Entry::new(score, best)
}

/// A book already at `out` (an earlier build, say to another depth) holds exact scores too.
pub(super) fn reuse_book<const W: usize, const H: usize, B: Bitboard>(
    out: &Path,
    known: &mut HashMap<B, Entry>,
    log: &mut dyn Write,
) -> io::Result<()> {
    match Book::load(out) {
        Ok(old) if (old.width(), old.height()) == (W, H) => {
            learn_book(&old, &format!("the book at {}", out.display()), known, log)
        }
        _ => Ok(()),
    }
}

/// Takes a book's scores as known (a book of the build's size: its keys fit `B`).
pub(super) fn learn_book<B: Bitboard>(
    book: &Book,
    what: &str,
    known: &mut HashMap<B, Entry>,
    log: &mut dyn Write,
) -> io::Result<()> {
    for (k, e) in book.values() {
        if let Some(k) = key_as::<B>(k) {
            learn(known, k, e);
        }
    }
    writeln!(log, "reusing the {} scores of {what}", book.len())
}

/// Solves the positions of `part` not yet `known` (or known without a best move) on
/// `opts.threads` threads, each with its own solver and table, taking chunks of neighbouring
/// positions; every entry goes to the journal and to `known` as it comes.
pub(super) fn solve_part<const W: usize, const H: usize, B: Bitboard>(
    part: &[B],
    opts: &BuildOptions,
    known: &mut HashMap<B, Entry>,
    journal: &mut Journal,
    jpath: &Path,
    log: &mut dyn Write,
) -> io::Result<()> {
    // with the score known, only the move is left to find
    let todo: Vec<(B, Option<i32>)> = part
        .iter()
        .filter_map(|k| match known.get(k) {
            None => Some((*k, None)),
            Some(e) if e.best == 0 => Some((*k, Some(e.score as i32))),
            Some(_) => None,
        })
        .collect();
    if todo.len() < part.len() {
        writeln!(
            log,
            "resuming from {}: {} of {} already solved",
            jpath.display(),
            part.len() - todo.len(),
            part.len()
        )?;
    }
    let scored = todo.iter().filter(|t| t.1.is_some()).count();
    if scored > 0 {
        writeln!(
            log,
            "{scored} scores known without a best move: finding the moves"
        )?;
    }
    thread_tables_fit(opts.hash_mb, opts.threads)?;
    let next = AtomicUsize::new(0);
    let (tx, rx) = unbounded::<(B, Entry, u64)>();
    let solve_started = Instant::now();
    std::thread::scope(|scope| -> io::Result<()> {
        for _ in 0..opts.threads.max(1) {
            let tx = tx.clone();
            let (todo, next) = (&todo, &next);
            let hash = opts.hash_mb;
            scope.spawn(move || {
                let mut solver = Solver::new(hash);
                loop {
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= todo.len() {
                        break;
                    }
                    for &(k, score) in &todo[start..(start + CHUNK).min(todo.len())] {
                        let p = position_from_key::<W, H, B>(k).expect("enumerated keys decode");
                        solver.reset_nodes();
                        let e = solve_entry(&mut solver, &p, score);
                        if tx.send((k, e, solver.nodes())).is_err() {
                            return;
                        }
                    }
                }
            });
        }
        drop(tx);
        let (mut done, mut nodes) = (0usize, 0u64);
        let before = part.len() - todo.len();
        // done / total and the time left: after a second, then every five (issue 60)
        let mut next_report = Duration::from_secs(1);
        for (k, e, n) in rx {
            journal.append(k, e)?;
            known.insert(k, e);
            done += 1;
            nodes += n;
            if solve_started.elapsed() >= next_report || done == todo.len() {
                next_report = solve_started.elapsed() + Duration::from_secs(5);
                let el = solve_started.elapsed();
                let rate = done as f64 / el.as_secs_f64().max(1e-9);
                let left = Duration::from_secs_f64((todo.len() - done) as f64 / rate.max(1e-9));
                writeln!(
                    log,
                    "{}/{} solved ({:.1}%), {:.1} positions/s, {:.1}M nodes/s, elapsed {}, left ~{}",
                    before + done,
                    part.len(),
                    100.0 * (before + done) as f64 / part.len().max(1) as f64,
                    rate,
                    nodes as f64 / el.as_secs_f64().max(1e-9) / 1e6,
                    fmt_duration(el),
                    fmt_duration(left)
                )?;
            }
        }
        Ok(())
    })
}
