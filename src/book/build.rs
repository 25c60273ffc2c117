//! Building and checking a book: every position with exactly `depth` discs (each mirror pair
//! once, finished games left out) is solved on `threads` threads, each with its own solver and
//! table, taking chunks of neighbouring positions so that a thread's table serves siblings.
//! Every solved position goes to the [`Journal`] at once; a build that is interrupted resumes
//! from it. When the last ply is complete, the shallower plies are scored by negamax over their
//! children (no search), the book is written and the journal removed. [`verify`] re-solves a
//! sample of a book without any book.

use super::journal::{journal_path, Journal};
use super::{key_discs, position_from_key, Book};
use crate::board::{Position, Size};
use crate::ordering::column_order;
use crate::solver::Solver;
use crate::with_size;
use crossbeam_channel::unbounded;
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Positions a thread takes at a time: neighbours in depth-first order, sharing the table.
const CHUNK: usize = 16;

#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub size: Size,
    pub depth: u32,
    pub threads: usize,
    /// Table size per thread, MB.
    pub hash_mb: usize,
    pub out: PathBuf,
    /// Extend the book with the main line up to positions of this many discs (every move from
    /// each line position is scored); at most `depth` for none.
    pub line: u32,
}

fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}s", s)
    }
}

/// Builds the book; progress goes to `log`. Returns the book written.
pub fn build(opts: &BuildOptions, log: &mut dyn Write) -> io::Result<Book> {
    with_size!(opts.size, build_sized::<W, H>(opts, log))
}

fn build_sized<const W: usize, const H: usize>(
    opts: &BuildOptions,
    log: &mut dyn Write,
) -> io::Result<Book> {
    if opts.depth as usize >= W * H {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("depth {} is not below the {} cells", opts.depth, W * H),
        ));
    }
    let started = Instant::now();
    let plies = enumerate::<W, H>(opts.depth);
    let total: usize = plies.iter().map(Vec::len).sum();
    let last = &plies[opts.depth as usize];
    writeln!(
        log,
        "book {}x{} depth {}: {} positions, {} with {} discs to solve ({} ms to enumerate)",
        W,
        H,
        opts.depth,
        total,
        last.len(),
        opts.depth,
        started.elapsed().as_millis()
    )?;
    let jpath = journal_path(&opts.out);
    let (mut journal, mut known) = Journal::open(&jpath, opts.size)?;
    // a book already at `out` (an earlier build, say to another depth) holds exact scores too
    if let Ok(old) = Book::load(&opts.out) {
        if (old.width(), old.height()) == (W, H) {
            known.extend(old.entries().map(|(k, s)| (k, s as i8)));
            writeln!(
                log,
                "reusing the {} scores of the book at {}",
                old.len(),
                opts.out.display()
            )?;
        }
    }
    let todo: Vec<u64> = last
        .iter()
        .copied()
        .filter(|k| !known.contains_key(k))
        .collect();
    if todo.len() < last.len() {
        writeln!(
            log,
            "resuming from {}: {} of {} already solved",
            jpath.display(),
            last.len() - todo.len(),
            last.len()
        )?;
    }

    let next = AtomicUsize::new(0);
    let (tx, rx) = unbounded::<(u64, i32, u64)>();
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
                    for &k in &todo[start..(start + CHUNK).min(todo.len())] {
                        let p = position_from_key::<W, H>(k).expect("enumerated keys decode");
                        solver.reset_nodes();
                        let s = solver.solve(&p).expect("no limits are set");
                        if tx.send((k, s, solver.nodes())).is_err() {
                            return;
                        }
                    }
                }
            });
        }
        drop(tx);
        let (mut done, mut nodes) = (0usize, 0u64);
        let mut last_report = Instant::now();
        for (k, s, n) in rx {
            journal.append(k, s)?;
            known.insert(k, s as i8);
            done += 1;
            nodes += n;
            if last_report.elapsed() >= Duration::from_secs(5) || done == todo.len() {
                last_report = Instant::now();
                let el = solve_started.elapsed();
                let rate = done as f64 / el.as_secs_f64().max(1e-9);
                let left = Duration::from_secs_f64((todo.len() - done) as f64 / rate.max(1e-9));
                writeln!(
                    log,
                    "{}/{} solved ({:.1}%), {:.1} positions/s, {:.1}M nodes/s, elapsed {}, left ~{}",
                    last.len() - todo.len() + done,
                    last.len(),
                    100.0 * (last.len() - todo.len() + done) as f64 / last.len().max(1) as f64,
                    rate,
                    nodes as f64 / el.as_secs_f64().max(1e-9) / 1e6,
                    fmt_duration(el),
                    fmt_duration(left)
                )?;
            }
        }
        Ok(())
    })?;
    let mut entries =
        complete::<W, H>(&plies, |k| known.get(&k).map(|&s| s as i32)).ok_or_else(|| {
            io::Error::other("a position of the last ply has no score (journal incomplete)")
        })?;
    if opts.line > opts.depth {
        let mut scores: HashMap<u64, i8> = entries.iter().copied().collect();
        scores.extend(known.iter().map(|(&k, &s)| (k, s)));
        let line = main_line::<W, H>(opts, &mut scores, &mut journal, log)?;
        writeln!(log, "main line: {}", line)?;
        entries = scores.into_iter().collect();
    }
    journal.sync()?;
    drop(journal);
    let book = Book::from_entries(W, H, opts.depth, entries);
    book.save(&opts.out)?;
    std::fs::remove_file(&jpath)?;
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
fn main_line<const W: usize, const H: usize>(
    opts: &BuildOptions,
    scores: &mut HashMap<u64, i8>,
    journal: &mut Journal,
    log: &mut dyn Write,
) -> io::Result<String> {
    let mut solver = Solver::new(opts.hash_mb);
    let mut p = Position::<W, H>::new();
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
                if let Some(&v) = scores.get(&k) {
                    return Ok(v as i32);
                }
                let v = solver.solve(q).expect("no limits are set");
                journal.append(k, v)?;
                scores.insert(k, v as i8);
                Ok::<i32, io::Error>(v)
            })?;
            if best.is_none_or(|(_, b)| s > b) {
                best = Some((c, s));
            }
        }
        let (c, s) = best.expect("a game that is not over has a move");
        writeln!(
            log,
            "line ply {}: {} scores {s} ({} in)",
            p.moves() + 1,
            c + 1,
            fmt_duration(started.elapsed())
        )?;
        line.push_str(&(c + 1).to_string());
        p.play_col(c);
    }
    Ok(line)
}

/// What `vier book verify` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifySummary {
    pub checked: usize,
    pub mismatches: usize,
}

/// A small deterministic generator (splitmix64) for picking the sample.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Re-solves `sample` entries of `book` picked by `seed` (every entry if the book is smaller),
/// with a solver that does not use any book; one line per entry to `out`.
pub fn verify(
    book: &Book,
    sample: usize,
    seed: u64,
    hash_mb: usize,
    out: &mut dyn Write,
) -> io::Result<VerifySummary> {
    let size = Size::new(book.width(), book.height())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
    let entries: Vec<(u64, i32)> = book.entries().collect();
    let mut picks: Vec<usize> = if sample >= entries.len() {
        (0..entries.len()).collect()
    } else {
        let mut rng = SplitMix(seed);
        let mut set = std::collections::BTreeSet::new();
        while set.len() < sample {
            set.insert((rng.next() % entries.len() as u64) as usize);
        }
        set.into_iter().collect()
    };
    // the deepest (cheapest) first, so that the table helps the shallower ones
    picks.sort_by_key(|&i| std::cmp::Reverse(key_discs(entries[i].0, book.width(), book.height())));
    with_size!(size, {
        let mut solver = Solver::new(hash_mb);
        let mut sum = VerifySummary::default();
        for i in picks {
            let (key, stored) = entries[i];
            let Some(p) = position_from_key::<W, H>(key) else {
                sum.checked += 1;
                sum.mismatches += 1;
                writeln!(out, "{key:#x} is not a position MISMATCH")?;
                continue;
            };
            let moves = p.to_move_string().unwrap_or_else(|| format!("{key:#x}"));
            let s = solver.solve(&p).expect("no limits are set");
            sum.checked += 1;
            write!(out, "{} book {stored} solver {s}", display_moves(&moves))?;
            if s != stored {
                sum.mismatches += 1;
                write!(out, " MISMATCH")?;
            }
            writeln!(out)?;
        }
        Ok(sum)
    })
}

pub(crate) fn display_moves(m: &str) -> &str {
    if m.is_empty() {
        "-"
    } else {
        m
    }
}

/// The symmetric keys of every position with exactly `d` discs, for `d` in `0..=depth`, whose
/// game is not over (reached only through positions whose game was not over), each mirror pair
/// once. Each ply's keys come in depth-first order from the empty board, so neighbours share
/// most of their moves (and a solver's table serves them all).
pub fn enumerate<const W: usize, const H: usize>(depth: u32) -> Vec<Vec<u64>> {
    let mut plies: Vec<Vec<u64>> = vec![Vec::new(); depth as usize + 1];
    let mut seen: Vec<HashSet<u64>> = vec![HashSet::new(); depth as usize + 1];
    fn walk<const W: usize, const H: usize>(
        p: &Position<W, H>,
        depth: u32,
        plies: &mut [Vec<u64>],
        seen: &mut [HashSet<u64>],
    ) {
        let d = p.moves() as usize;
        let key = p.symmetric_key().0;
        if !seen[d].insert(key) {
            return;
        }
        plies[d].push(key);
        if p.moves() == depth {
            return;
        }
        for c in 0..W {
            if p.can_play(c) && !p.is_winning_move(c) {
                let mut q = *p;
                q.play_col(c);
                if !q.is_full() {
                    walk(&q, depth, plies, seen);
                }
            }
        }
    }
    walk(&Position::<W, H>::new(), depth, &mut plies, &mut seen);
    plies
}

/// Scores every position of `plies` (from [`enumerate`]) above the last ply by negamax over its
/// children, given the exact scores `leaf` of the last ply's positions. `None` if a needed
/// score is missing.
pub fn complete<const W: usize, const H: usize>(
    plies: &[Vec<u64>],
    leaf: impl Fn(u64) -> Option<i32>,
) -> Option<Vec<(u64, i8)>> {
    let depth = plies.len() - 1;
    let mut known: std::collections::HashMap<u64, i32> = std::collections::HashMap::new();
    for &k in &plies[depth] {
        known.insert(k, leaf(k)?);
    }
    let cells = (W * H) as i32;
    for d in (0..depth).rev() {
        for &k in &plies[d] {
            let p = position_from_key::<W, H>(k)?;
            let score = if p.can_win_next() {
                crate::score::win_now(cells, d as i32)
            } else {
                let mut best = i32::MIN;
                for c in (0..W).filter(|&c| p.can_play(c)) {
                    let s = crate::score::of_move(&p, c, |q| {
                        known.get(&q.symmetric_key().0).copied().ok_or(())
                    })
                    .ok()?;
                    best = best.max(s);
                }
                best
            };
            known.insert(k, score);
        }
    }
    Some(known.into_iter().map(|(k, s)| (k, s as i8)).collect())
}
