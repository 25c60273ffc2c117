//! `vier solve`: exact scores for positions read one per line.
//!
//! Long work shows that it works and can be bounded (issue 60): once a position has taken a
//! second, its progress goes to stderr (the time, the nodes, the nodes per second and the
//! window of scores still open), as one line that rewrites itself on a terminal, else as plain
//! lines at 1, 2, 4, ... seconds (at most a minute apart); `--budget-ms` bounds each position,
//! and one not proven in time is printed as `-` with `UNPROVEN`.

use crate::board::{AnyPosition, Size};
use crate::engine::settings::{BUDGET, THREADS};
use crate::engine::{
    Answer, Below, Book, Budget, EngineError, Found, Handle, Question, Settings, SolveLine,
    SolverPool, MAX_LEARNT_PLIES,
};
use crate::notation;
use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `vier solve`'s arguments.
#[derive(clap::Args)]
pub struct SolveArgs {
    /// Win (1), draw (0) or loss (-1) instead of the exact score.
    #[arg(long)]
    weak: bool,
    /// The score of every column (`-` for a full column) instead of the position's.
    #[arg(long)]
    all: bool,
    /// Only whether the score (with --weak, the win, draw or loss) is at least this: one
    /// null-window test, cheaper than the score. Prints `>=N` when it is, `<=N-1` when not.
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        conflicts_with = "all"
    )]
    at_least: Option<i32>,
    /// Board size, WxH.
    #[arg(long, default_value = "7x6")]
    size: Size,
    /// Size in MB of the table for positions near the root (the cache-sized table for
    /// the rest is fixed); the empty 7x6 board wants 1024 or more. A small table suits
    /// positions that take milliseconds: each starts with a cold table, and a small one
    /// stays in the cache.
    #[arg(long, default_value_t = 1, value_parser = super::table_mb)]
    hash: usize,
    /// Threads that search each position together (sharing the table).
    #[arg(long, default_value_t = THREADS.default, value_parser = |s: &str| THREADS.parse(s))]
    threads: u64,
    /// Opening book file to use instead of the one built in.
    #[arg(long, conflicts_with = "no_book")]
    book: Option<PathBuf>,
    /// Search every position, even those the book holds.
    #[arg(long)]
    no_book: bool,
    /// The most milliseconds one position may take; one not proven by then is printed as
    /// `-` with `UNPROVEN`, and the exit status is 3.
    #[arg(long, value_parser = |s: &str| BUDGET.parse(s))]
    budget_ms: Option<u64>,
    /// The most nodes one position may take (one thread: the same position, table and
    /// budget give the same answer on every run and machine); one not proven within it is
    /// printed as `-` with `UNPROVEN`, and the exit status is 3.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    budget_nodes: Option<u64>,
    /// After a position not proven within its budget, what its search proved of the positions
    /// 1 to N moves below it, a line each marked `LEARNT` (`vier prove`'s jobs keep their work
    /// so).
    #[arg(long, value_name = "N", conflicts_with = "all",
          value_parser = clap::value_parser!(u32).range(1..=MAX_LEARNT_PLIES as i64))]
    learnt: Option<u32>,
    /// Keep the table from one position to the next: each starts from what the positions
    /// before it proved, instead of from a cold table (positions that share positions below them
    /// take far fewer nodes; the results then depend on the positions' order).
    #[arg(long)]
    keep_table: bool,
    /// Keep the table for positions near the root (--hash MB) in this file, made if missing:
    /// every run that names the file shares the table, at once as threads do or one after
    /// another, and its positions start from what the others proved. A file made for another
    /// board or size is refused. Put it in memory (/dev/shm): a table on a disk is written
    /// back again and again; delete it to free the memory.
    #[arg(long, value_name = "PATH")]
    table_file: Option<PathBuf>,
}

/// `vier solve`: positions from stdin, results to stdout, the summary to stderr. Exit status 1
/// when a score differs from the one expected, 2 for a book that cannot be used, 3 when a
/// position was not proven within `--budget-ms` or `--budget-nodes`.
pub fn command(args: SolveArgs) -> io::Result<ExitCode> {
    // the book as the protocol's OwnBook and BookFile choose it
    let mut settings = if args.no_book {
        Settings::without_book()
    } else {
        Settings::default()
    };
    if let Some(path) = &args.book {
        settings
            .set("BookFile", Some(&path.to_string_lossy()))
            .map_err(io::Error::other)?;
        if let Some(Err(e)) = &settings.book_note {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    }
    let book = settings.consulted_book();
    let size = args.size;
    // a file asked for must be of the positions' size (the built-in 7x6 book is simply not
    // consulted on another board)
    if let (Some(path), Some(b)) = (&args.book, &book) {
        if (b.width(), b.height()) != (size.width(), size.height()) {
            eprintln!(
                "error: {}: a {}x{} book, and the positions are {size} (--size)",
                path.display(),
                b.width(),
                b.height()
            );
            return Ok(ExitCode::from(2));
        }
    }
    let opts = SolveOptions {
        weak: args.weak,
        all: args.all,
        at_least: args.at_least,
        size,
        hash_mb: args.hash,
        threads: args.threads as usize,
        book,
        budget: args.budget_ms.map(Duration::from_millis),
        node_budget: args.budget_nodes,
        learnt: args.learnt.unwrap_or(0),
        keep_table: args.keep_table,
        table_file: args.table_file,
        progress: None,
    }
    .progress_on_stderr();
    let stdin = io::stdin().lock();
    let mut out = io::BufWriter::new(io::stdout().lock());
    let sum = run(&opts, stdin, &mut out)?;
    let _ = out.flush();
    eprintln!("{}", sum.report());
    Ok(if sum.mismatches > 0 {
        ExitCode::FAILURE
    } else if sum.unproven > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}

/// How `vier solve` runs.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Win / draw / loss (-1, 0, 1) instead of the exact score.
    pub weak: bool,
    /// The score of every column instead of the position's.
    pub all: bool,
    /// Only whether the position's score is at least this.
    pub at_least: Option<i32>,
    pub size: Size,
    pub hash_mb: usize,
    /// Threads that search each position together.
    pub threads: usize,
    /// Exact scores of early positions, looked up instead of searched (ignored on another size).
    pub book: Option<Arc<Book>>,
    /// The most time one position may take; one not proven by then is reported unproven.
    pub budget: Option<Duration>,
    /// The most nodes one position may take (rounded up to the solver's poll interval).
    pub node_budget: Option<u64>,
    /// After a position not proven within its budget, print what its search proved of the
    /// positions up to this many moves below it (0: nothing).
    pub learnt: u32,
    /// Each position starts from what those before it proved (one table for the run).
    pub keep_table: bool,
    /// The table near the root kept in this file, shared with every run that names it.
    pub table_file: Option<PathBuf>,
    /// Progress of a position that takes long, on stderr: `None` for none (the tests),
    /// `Some(true)` as a line that rewrites itself (a terminal), `Some(false)` as plain lines.
    pub progress: Option<bool>,
}

impl SolveOptions {
    /// Progress on stderr as it suits: a rewritten line on a terminal, plain lines otherwise.
    pub fn progress_on_stderr(mut self) -> SolveOptions {
        self.progress = Some(io::stderr().is_terminal());
        self
    }
}

/// What a run found, for the summary and the exit status.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SolveSummary {
    pub positions: u64,
    pub mismatches: u64,
    /// Positions not proven within `--budget-ms` or `--budget-nodes`.
    pub unproven: u64,
    pub errors: u64,
    pub total_nodes: u64,
    pub total_micros: f64,
    /// The nodes of all positions by discs on the board (a `stats` build only).
    #[cfg(feature = "stats")]
    pub stats: crate::engine::Stats,
}

impl SolveSummary {
    pub fn report(&self) -> String {
        let n = self.positions.max(1) as f64;
        let nps = if self.total_micros > 0.0 {
            self.total_nodes as f64 / self.total_micros * 1e6
        } else {
            0.0
        };
        let unproven = if self.unproven > 0 {
            format!("unproven {}, ", self.unproven)
        } else {
            String::new()
        };
        let report = format!(
            "positions {}, mismatches {}, {unproven}errors {}, mean time {:.1} us, mean nodes {:.1}, {:.0} nodes/s",
            self.positions,
            self.mismatches,
            self.errors,
            self.total_micros / n,
            self.total_nodes as f64 / n,
            nps
        );
        #[cfg(feature = "stats")]
        let report = format!("{report}\nnodes by discs: {}", self.stats);
        report
    }
}

/// Reads positions from `input`, writes one result line per position to `out`.
pub fn run(
    opts: &SolveOptions,
    input: impl BufRead,
    out: &mut impl Write,
) -> io::Result<SolveSummary> {
    let board = (opts.size.width(), opts.size.height());
    let mut pool = match &opts.table_file {
        Some(path) => {
            SolverPool::try_in_file(opts.book.clone(), path, opts.hash_mb, opts.threads, board)
        }
        None => SolverPool::try_new(opts.book.clone(), opts.hash_mb, opts.threads),
    }
    .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e))?;
    if opts.keep_table {
        pool = pool.keeping_tables();
    }
    let width = opts.size.width();
    let question = match (opts.all, opts.at_least) {
        (true, _) => Question::Analyse { weak: opts.weak },
        (false, Some(value)) => Question::AtLeast {
            weak: opts.weak,
            value,
        },
        (false, None) => Question::Solve { weak: opts.weak },
    };
    let mut sum = SolveSummary::default();
    let progress = Progress::start(opts.progress);
    // the learnt lines read, each below the empty board (its columns from there)
    let mut seeds: Vec<Below> = Vec::new();
    for (i, line) in input.lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                sum.errors += 1;
                writeln!(out, "error: line {}: not valid UTF-8", i + 1)?;
                continue;
            }
            Err(e) => return Err(e),
        };
        if line.trim_end().ends_with(" LEARNT") {
            // what an earlier search proved: the positions after it that it lies below start
            // from it
            match seed_of(line.trim(), opts, seeds.len()) {
                Ok(seed) => seeds.push(seed),
                Err(e) => {
                    sum.errors += 1;
                    writeln!(out, "error: line {}: {e}", i + 1)?;
                }
            }
            continue;
        }
        let mut tokens = line.split_whitespace();
        let Some(moves) = tokens.next() else { continue };
        if moves.starts_with('#') {
            continue;
        }
        let expected = match tokens.next().map(str::parse::<i32>) {
            None => None,
            Some(Ok(e)) => Some(e),
            Some(Err(_)) => {
                sum.errors += 1;
                writeln!(out, "error: line {}: bad expected score", i + 1)?;
                continue;
            }
        };
        // `-` is the empty board, which has no digits to write
        let moves_str = if moves == "-" { "" } else { moves };
        let pos = match AnyPosition::from_moves(opts.size, moves_str) {
            Ok(p) => p,
            Err(e) => {
                sum.errors += 1;
                writeln!(out, "error: line {}: {e}", i + 1)?;
                continue;
            }
        };
        let handle = Handle::within(opts.budget).with_nodes(opts.node_budget);
        let (proof, learnt) = progress.watch(moves, &handle, || {
            pool.ask_learning(
                &pos,
                question,
                &handle,
                opts.learnt,
                &below(&seeds, moves_str, width),
            )
        });
        let (found, score, proof) = match proof {
            Ok(proof) => match &proof.answer {
                Answer::Columns(scores) => {
                    let best = scores.iter().flatten().max().copied();
                    (Found::Columns(scores.clone()), best, Ok(proof))
                }
                Answer::Score(s) => (Found::Score(*s), Some(*s), Ok(proof)),
                Answer::AtLeast(yes) => {
                    let t = opts.at_least.expect("asked");
                    if *yes {
                        (Found::AtLeast(t), Some(t), Ok(proof))
                    } else {
                        let u = t.saturating_sub(1);
                        (Found::AtMost(u), Some(u), Ok(proof))
                    }
                }
                Answer::Best(_) => unreachable!("vier solve asks for no best move"),
            },
            Err(e @ EngineError::Invalid(_)) => {
                sum.errors += 1;
                writeln!(out, "error: line {}: {e}", i + 1)?;
                continue;
            }
            Err(e) => {
                let within = match e {
                    EngineError::OutOfNodes { budget } => Budget::Nodes(budget),
                    _ => Budget::Millis(opts.budget.map_or(0, |b| b.as_millis() as u64)),
                };
                let blanks = if opts.all { width } else { 1 };
                sum.unproven += 1;
                (
                    Found::Unproven { blanks, within },
                    None,
                    Err(handle.elapsed()),
                )
            }
        };
        sum.positions += 1;
        let (nodes, micros) = match &proof {
            Ok(p) => (p.nodes, p.time.as_secs_f64() * 1e6),
            Err(elapsed) => (handle.progress().nodes, elapsed.as_secs_f64() * 1e6),
        };
        sum.total_nodes += nodes;
        #[cfg(feature = "stats")]
        if let Ok(p) = &proof {
            sum.stats.add(&p.stats);
        }
        sum.total_micros += micros;
        let mut line = SolveLine {
            moves: moves.to_string(),
            found,
            nodes,
            // as `{:.0}` wrote it
            micros: micros.round_ties_even() as u64,
            mismatch: None,
            learnt: false,
        };
        if let (Some(e), Some(s)) = (expected, score) {
            let e = if opts.weak { e.signum() } else { e };
            // with --at-least, `s` is the bound printed: the expected score must be on its side
            let agrees = match opts.at_least {
                Some(t) => (e >= t) == (s >= t),
                None => e == s,
            };
            if !agrees {
                sum.mismatches += 1;
                line.mismatch = Some(e);
            }
        }
        write!(out, "{line}")?;
        writeln!(out)?;
        for b in learnt {
            let moves = format!(
                "{moves_str}{}",
                notation::move_string(b.columns.iter().copied(), width)
            );
            let found = match (b.lo, b.hi) {
                (Some(lo), Some(hi)) if lo == hi => vec![Found::Score(lo)],
                (lo, hi) => lo
                    .map(Found::AtLeast)
                    .into_iter()
                    .chain(hi.map(Found::AtMost))
                    .collect(),
            };
            for found in found {
                writeln!(out, "{}", SolveLine::learnt(moves.clone(), found))?;
            }
        }
    }
    Ok(sum)
}

/// The most `LEARNT` lines one run reads: enough for a job of `vier prove` (a few hundred), and
/// a bound on what input can make it keep.
pub const MAX_SEEDS: usize = 1 << 16;

/// A learnt line as `--learnt` prints them, checked as every result line is, of a position on
/// the board of the run (its bounds below the empty board, in the question's terms); the
/// `kept`-th one read.
fn seed_of(line: &str, opts: &SolveOptions, kept: usize) -> Result<Below, String> {
    if kept >= MAX_SEEDS {
        return Err(format!("more than {MAX_SEEDS} learnt lines"));
    }
    let l = SolveLine::parse(line, opts.size, opts.weak)?;
    if l.moves == "-" {
        return Err("a learnt line of the empty board, which is below nothing".into());
    }
    if !l.learnt || (l.nodes, l.micros) != (0, 0) {
        return Err("not a learnt line: `<moves> <bound> 0 0 LEARNT`".into());
    }
    AnyPosition::from_moves(opts.size, &l.moves).map_err(|e| e.to_string())?;
    let (lo, hi) = match l.found {
        Found::Score(v) => (Some(v), Some(v)),
        Found::AtLeast(t) => (Some(t), None),
        Found::AtMost(u) => (None, Some(u)),
        _ => return Err("a learnt line without a bound".into()),
    };
    let columns = notation::parse_moves(&l.moves, opts.size.width())
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(_, c)| c - 1)
        .collect();
    Ok(Below { columns, lo, hi })
}

/// The seeds strictly below the position `moves` (a move string on a board `width` wide, `""`
/// for the empty board), as columns from it.
fn below(seeds: &[Below], moves: &str, width: usize) -> Vec<Below> {
    let Ok(from) = notation::parse_moves(moves, width) else {
        return Vec::new();
    };
    let from: Vec<usize> = from.into_iter().map(|(_, c)| c - 1).collect();
    seeds
        .iter()
        .filter(|s| s.columns.len() > from.len() && s.columns.starts_with(&from))
        .map(|s| Below {
            columns: s.columns[from.len()..].to_vec(),
            lo: s.lo,
            hi: s.hi,
        })
        .collect()
}

/// The position being proven, as the progress thread sees it.
struct Current {
    moves: String,
    started: Instant,
    handle: Handle,
}

/// One thread for the whole run that reports on stderr the position being proven once it has
/// taken [`PROGRESS_AFTER`]: the time, the nodes, the nodes per second and the window of scores
/// still open, as its control sees them. One thread, not one per position: most positions take
/// microseconds, less than starting a thread costs.
struct Progress {
    current: Arc<Mutex<Option<Current>>>,
    /// Dropped to end the thread.
    done: Option<Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// With `progress` (`Some(terminal)`), the reporting thread; `None` reports nothing.
    fn start(progress: Option<bool>) -> Progress {
        let current: Arc<Mutex<Option<Current>>> = Arc::new(Mutex::new(None));
        let Some(terminal) = progress else {
            return Progress {
                current,
                done: None,
                thread: None,
            };
        };
        let (done, wait) = channel::<()>();
        let seen = current.clone();
        let thread = std::thread::spawn(move || {
            // the position last shown, its next report, and whether a line waits to be cleared
            let mut shown: Option<Instant> = None;
            let mut next = PROGRESS_AFTER;
            let mut dirty = false;
            while let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(PROGRESS_POLL) {
                let guard = seen.lock().unwrap_or_else(|e| e.into_inner());
                let Some(c) = guard.as_ref() else {
                    continue;
                };
                if shown != Some(c.started) {
                    shown = Some(c.started);
                    next = PROGRESS_AFTER;
                }
                let elapsed = c.started.elapsed();
                if elapsed < next {
                    continue;
                }
                let line = progress_line(&c.moves, elapsed, &c.handle);
                drop(guard);
                let mut err = io::stderr().lock();
                if terminal {
                    // one line, rewritten in place; cleared when the run ends
                    let _ = write!(err, "\r\x1b[K{line}");
                    next = elapsed + Duration::from_millis(250);
                    dirty = true;
                } else {
                    let _ = writeln!(err, "{line}");
                    next = (next * 2).min(next + Duration::from_secs(60));
                }
                let _ = err.flush();
            }
            if dirty {
                let _ = write!(io::stderr().lock(), "\r\x1b[K");
            }
        });
        Progress {
            current,
            done: Some(done),
            thread: Some(thread),
        }
    }

    /// Runs `solve`, the proof of `moves` under `handle`, as the position the thread watches.
    fn watch<T>(&self, moves: &str, handle: &Handle, solve: impl FnOnce() -> T) -> T {
        if self.thread.is_none() {
            return solve();
        }
        let set = |c: Option<Current>| *self.current.lock().unwrap_or_else(|e| e.into_inner()) = c;
        set(Some(Current {
            moves: moves.to_string(),
            started: Instant::now(),
            handle: handle.clone(),
        }));
        let r = solve();
        set(None);
        r
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.done.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// How often the progress thread looks at the position being proven.
const PROGRESS_POLL: Duration = Duration::from_millis(50);

/// A position shows its progress once it has taken this long.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);

/// `4545: 12.0 s, 1.53G nodes, 128M nodes/s, proving -3..5` (the nodes as the solver's threads
/// have counted them at their polls; the window once the root's first test is under way).
fn progress_line(moves: &str, elapsed: Duration, handle: &Handle) -> String {
    let now = handle.progress();
    let secs = elapsed.as_secs_f64();
    let window = now
        .window
        .map_or(String::new(), |(lo, hi)| format!(", proving {lo}..{hi}"));
    format!(
        "{}: {secs:.1} s, {} nodes, {} nodes/s{window}",
        notation::display_moves(moves),
        si(now.nodes as f64),
        si(now.nodes as f64 / secs.max(1e-9))
    )
}

/// 1530000000 as `1.53G`.
fn si(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2}G", x / 1e9),
        x if x >= 1e6 => format!("{:.1}M", x / 1e6),
        x if x >= 1e3 => format!("{:.0}k", x / 1e3),
        x => format!("{x:.0}"),
    }
}
