//! A whole build in one process: every position with exactly `depth` discs (each mirror pair
//! once, finished games left out) is solved ([`super::solve`]); when the last ply is complete,
//! the finishing step scores the shallower plies by negamax over their children, adds the main
//! line if asked, writes the book and removes the journal. [`merge`](super::merge) takes the
//! same finishing step over a split build's shards.

use super::options::{extra_keys, given_book, BuildOptions};
use super::plies::{complete, plan, settle};
use super::solve::{fmt_duration, learn, learn_book, reuse_book, solve_entry, solve_part};
use crate::bits::Bitboard;
use crate::board::{Position, SizedJob};
use crate::book::journal::{journal_path, Journal};
use crate::book::{Book, Entry};
use crate::ordering::column_order;
use crate::solver::Solver;
use std::collections::HashMap;
use std::io::{self, Write};
use std::time::Instant;

/// Builds the book; progress goes to `log`. Returns the book written.
pub fn build(opts: &BuildOptions, log: &mut dyn Write) -> io::Result<Book> {
    struct Build<'a>(&'a BuildOptions, &'a mut dyn Write);
    impl SizedJob for Build<'_> {
        type Output = io::Result<Book>;
        fn run<const W: usize, const H: usize, B: Bitboard>(self) -> Self::Output {
            build_sized::<W, H, B>(self.0, self.1)
        }
    }
    opts.size.run(Build(opts, log))
}

/// An unsharded build: the one shard of the whole ply, solved here, then the finishing step
/// that [`merge`](super::merge()) takes too. Over the bits type `B` the caller chooses:
/// [`build`] takes the registry's; a wider one (`u128` on a 64-bit board) builds the same book,
/// byte for byte, which is how the tests check the code of the boards past 64 bits.
pub fn build_sized<const W: usize, const H: usize, B: Bitboard>(
    opts: &BuildOptions,
    log: &mut dyn Write,
) -> io::Result<Book> {
    let started = Instant::now();
    // a bad list is refused before anything is solved or written
    let extra = extra_keys::<W, H, B>(opts)?;
    let given = given_book::<W, H>(opts)?;
    let plies = plan::<W, H, B>(opts.depth, log)?;
    let jpath = journal_path(&opts.out);
    let (mut journal, mut known) = Journal::open(&jpath, opts.size)?;
    reuse_book::<W, H, B>(&opts.out, &mut known, log)?;
    if let Some(book) = &given {
        learn_book(book, "the --book", &mut known, log)?;
    }
    solve_part::<W, H, B>(
        &plies[opts.depth as usize],
        opts,
        &mut known,
        &mut journal,
        &jpath,
        log,
    )?;
    if !extra.is_empty() {
        writeln!(log, "extra positions: {}", extra.len())?;
        solve_part::<W, H, B>(&extra, opts, &mut known, &mut journal, &jpath, log)?;
    }
    finish::<W, H, B>(opts, &plies, &extra, known, journal, started, log)
}

/// The finishing step of [`build`] and [`merge`](super::merge()), given the exact score of
/// every position with `opts.depth` discs in `known`: the shallower plies by negamax, the main
/// line if asked, the book written to `opts.out` and the journal removed.
pub(super) fn finish<const W: usize, const H: usize, B: Bitboard>(
    opts: &BuildOptions,
    plies: &[Vec<B>],
    extra: &[B],
    known: HashMap<B, Entry>,
    mut journal: Journal,
    started: Instant,
    log: &mut dyn Write,
) -> io::Result<Book> {
    let mut entries = complete::<W, H, B>(plies, |k| known.get(&k).copied()).ok_or_else(|| {
        io::Error::other("a position of the last ply has no score (journal incomplete)")
    })?;
    entries.extend(extra.iter().filter_map(|k| known.get(k).map(|&e| (*k, e))));
    if opts.line > opts.depth {
        let mut scores: HashMap<B, Entry> = entries.iter().copied().collect();
        for (&k, &e) in &known {
            learn(&mut scores, k, e);
        }
        let line = main_line::<W, H, B>(opts, &mut scores, &mut journal, log)?;
        writeln!(log, "main line: {}", line)?;
        entries = scores.into_iter().collect();
    }
    let settled = settle::<W, H, B>(&mut entries, opts.depth)?;
    if settled > 0 {
        writeln!(
            log,
            "{settled} moves taken from the children instead of the solved entries"
        )?;
    }
    if let Some((k, _)) = entries.iter().find(|(_, e)| e.best == 0) {
        return Err(io::Error::other(format!(
            "the position with key {:#x} has no best move (journal incomplete)",
            k.to_u128()
        )));
    }
    journal.sync()?;
    drop(journal);
    let book = Book::from_entries(W, H, opts.depth, entries);
    book.save(&opts.out)?;
    std::fs::remove_file(journal_path(&opts.out))?;
    writeln!(
        log,
        "wrote {}: {} positions, {} bytes, in {}",
        opts.out.display(),
        book.len(),
        book.to_bytes().len(),
        fmt_duration(started.elapsed())
    )?;
    Ok(book)
}

/// Follows best play from the empty board while the position has at most `opts.line` discs,
/// scoring every move from each line position (solving those not yet known, journalled like
/// the rest) so that the book holds them; ties go to the column nearest the centre, as in
/// [`Solver::move_with_value`]. Returns the line's moves.
fn main_line<const W: usize, const H: usize, B: Bitboard>(
    opts: &BuildOptions,
    scores: &mut HashMap<B, Entry>,
    journal: &mut Journal,
    log: &mut dyn Write,
) -> io::Result<String> {
    let mut solver = Solver::new(opts.hash_mb);
    let mut p = Position::<W, H, B>::new();
    let mut line = String::new();
    let started = Instant::now();
    while p.moves() <= opts.line && !p.is_game_over() {
        let mut best: Option<(usize, i32)> = None;
        for &c in column_order::<W>().iter() {
            if !p.can_play(c) {
                continue;
            }
            let s = crate::score::of_move(&p, c, |q| {
                let k = q.symmetric_key().0;
                let known = scores.get(&k).copied();
                if let Some(e) = known.filter(|e| e.best != 0) {
                    return Ok(e.score as i32);
                }
                let e = solve_entry(&mut solver, q, known.map(|e| e.score as i32));
                journal.append(k, e)?;
                scores.insert(k, e);
                Ok::<i32, io::Error>(e.score as i32)
            })?;
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((c, s));
            }
        }
        let (c, s) = best.expect("a game that is not over has a move");
        writeln!(
            log,
            "line ply {} of at most {}: {} scores {s} ({} in)",
            p.moves() + 1,
            (opts.line + 1).min((W * H) as u32),
            c + 1,
            fmt_duration(started.elapsed())
        )?;
        line.push_str(&(c + 1).to_string());
        p.play_col(c);
    }
    Ok(line)
}
