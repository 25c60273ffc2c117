//! The protocol loop: owns the engine state, reads commands, drives one searcher thread.
//!
//! Three threads: a reader turns stdin into bounded lines (a line over [`MAX_LINE`] bytes is
//! discarded, never buffered whole), the searcher runs one job at a time, and this loop
//! `select!`s over both channels. Only this loop writes to the output, flushing every line.
//! Every search gets a fresh [`SearchControl`] (stop flag, deadlines); `go` returns at once,
//! `isready` is answered at once even mid-search, `stop` only sets the flag, and the search's
//! `bestmove` comes back as a report. Options and `ucinewgame` sent during a search are applied
//! when it ends, in order. A panic on the searcher is reported and ends the process with a
//! non-zero status.
//!
//! The opening book: the loop owns the choice (`OwnBook`, `BookFile`), loads a book file itself
//! (when idle, so the searcher never waits for the disk) and hands the searcher the book to
//! consult, or none, with [`Job::SetBook`]. A book that fails to load is reported and leaves the
//! engine without a book; it never ends the engine.

use super::parse::{parse_line, Command, GoParams, MoveToken, Query, StartPos};
use crate::board::{perft, BoardError, Player, Position, Size};
use crate::book::{Book, BookError};
use crate::control::SearchControl;
use crate::eval;
use crate::score::{self, Score};
use crate::search::{Iteration, Line, ScoreBound, SearchLimits, SearchResult, Searcher};
use crate::time::{Clock, Deadlines, TimeLimit};
use crate::with_size;
use crossbeam_channel::{select, unbounded, Receiver, Sender};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

/// Longest accepted input line, in bytes (without its line break).
pub const MAX_LINE: usize = 1 << 20;
pub const DEFAULT_HASH_MB: usize = 32;
pub const MAX_HASH_MB: usize = 4096;
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 10;
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5000;
/// Exit status after a panic on the searcher thread.
pub const PANIC_EXIT: u8 = 101;
/// Set this environment variable to make the searcher panic when a search starts (tests).
pub const PANIC_ENV: &str = "VIER_TEST_SEARCHER_PANIC";

/// What the reader thread sends.
enum Input {
    Line(String),
    TooLong,
    Eof,
}

/// Work for the searcher thread.
enum Job {
    Search(Box<SearchJob>),
    SetHash(usize),
    Clear,
    /// The book the searcher consults from now on (`None`: no book).
    SetBook(Option<Arc<Book>>),
    /// Answered by [`Report::Pong`] once every earlier job is done.
    Ping,
}

struct SearchJob {
    size: Size,
    current: u64,
    mask: u64,
    limits: SearchLimits,
    control: Arc<SearchControl>,
}

/// What the searcher thread sends back.
enum Report {
    Info(Iteration),
    Done(SearchResult),
    Pong,
    Panicked(String),
}

/// A position of the run-time size: the raw bitboards of a [`Position`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Root {
    size: Size,
    current: u64,
    mask: u64,
}

impl Root {
    fn start(size: Size) -> Root {
        Root {
            size,
            current: 0,
            mask: 0,
        }
    }
    fn moves(&self) -> u32 {
        self.mask.count_ones()
    }
}

/// The search in progress, as the loop sees it.
struct Running {
    control: Arc<SearchControl>,
    root: Root,
    drops: bool,
    show_wdl: bool,
    infinite: bool,
    /// The time limit to apply at `ponderhit`.
    time_limit: TimeLimit,
}

enum Flow {
    Continue,
    Quit,
}

/// Why the loop ended abnormally.
struct Fatal(String);

/// Writes whole lines, flushing each; a write error (the GUI went away) ends the loop.
struct Out<O: Write> {
    w: O,
    failed: bool,
}

impl<O: Write> Out<O> {
    fn line(&mut self, s: &str) {
        if self.failed {
            return;
        }
        let r = self
            .w
            .write_all(s.as_bytes())
            .and_then(|_| self.w.write_all(b"\n"))
            .and_then(|_| self.w.flush());
        if r.is_err() {
            self.failed = true;
        }
    }
}

/// Runs the protocol on `input` and `output` until `quit` or the end of input; returns the exit
/// status (0, or [`PANIC_EXIT`] after a searcher panic).
pub fn run(input: impl Read + Send + 'static, output: impl Write) -> u8 {
    let (in_tx, in_rx) = unbounded();
    std::thread::Builder::new()
        .name("vier-stdin".into())
        .spawn(move || read_lines(BufReader::with_capacity(1 << 16, input), in_tx))
        .expect("spawn the input reader");
    let (job_tx, job_rx) = unbounded();
    let (rep_tx, rep_rx) = unbounded();
    let searcher = std::thread::Builder::new()
        .name("vier-search".into())
        .spawn(move || searcher_thread(job_rx, rep_tx))
        .expect("spawn the searcher");
    let mut engine = Engine::new(
        Out {
            w: output,
            failed: false,
        },
        job_tx,
        rep_rx.clone(),
    );
    let status = engine.main_loop(&in_rx, &rep_rx);
    let code = match status {
        Ok(()) => 0,
        Err(Fatal(msg)) => {
            engine.error(&msg);
            PANIC_EXIT
        }
    };
    drop(engine); // closes the job channel: the searcher thread ends
    if code == 0 {
        let _ = searcher.join();
    }
    code
}

/// Splits `input` into lines of at most [`MAX_LINE`] bytes; longer ones are skipped as they
/// stream by and reported as [`Input::TooLong`].
fn read_lines(mut r: impl BufRead, tx: Sender<Input>) {
    let mut line: Vec<u8> = Vec::new();
    let mut too_long = false;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if buf.is_empty() {
            if too_long {
                let _ = tx.send(Input::TooLong);
            } else if !line.is_empty() {
                let _ = tx.send(Input::Line(String::from_utf8_lossy(&line).into_owned()));
            }
            break;
        }
        let (chunk, consumed, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_LINE {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        r.consume(consumed);
        if end {
            let msg = if too_long {
                Input::TooLong
            } else {
                Input::Line(String::from_utf8_lossy(&line).into_owned())
            };
            if tx.send(msg).is_err() {
                return;
            }
            line.clear();
            too_long = false;
        }
    }
    let _ = tx.send(Input::Eof);
}

fn searcher_thread(jobs: Receiver<Job>, reports: Sender<Report>) {
    let panic_on_search = std::env::var_os(PANIC_ENV).is_some();
    let mut searcher: Option<Searcher> = None;
    let mut book: Option<Arc<Book>> = None;
    for job in jobs {
        let r = catch_unwind(AssertUnwindSafe(|| match job {
            Job::SetHash(mb) => match searcher.as_mut() {
                // frees the old tables first and keeps the book
                Some(s) => s.set_hash(mb),
                None => {
                    let mut s = Searcher::new(mb);
                    s.set_book(book.clone());
                    searcher = Some(s);
                }
            },
            Job::Clear => {
                if let Some(s) = searcher.as_mut() {
                    s.clear()
                }
            }
            Job::SetBook(b) => {
                if let Some(s) = searcher.as_mut() {
                    s.set_book(b.clone());
                }
                book = b;
            }
            Job::Ping => {
                let _ = reports.send(Report::Pong);
            }
            Job::Search(job) => {
                if panic_on_search {
                    panic!("{PANIC_ENV} is set");
                }
                let s = searcher.get_or_insert_with(|| {
                    let mut s = Searcher::new(DEFAULT_HASH_MB);
                    s.set_book(book.clone());
                    s
                });
                let mut report = |it: &Iteration| {
                    let _ = reports.send(Report::Info(it.clone()));
                };
                let result = with_size!(job.size, {
                    let p = Position::<W, H>::from_raw(job.current, job.mask);
                    s.search(&p, &job.limits, &job.control, &mut report)
                });
                let _ = reports.send(Report::Done(result));
            }
        }));
        if let Err(e) = r {
            let msg = e
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let _ = reports.send(Report::Panicked(msg));
            return;
        }
    }
}

struct Engine<O: Write> {
    out: Out<O>,
    jobs: Sender<Job>,
    reports: Receiver<Report>,
    size: Size,
    /// Width and height as last requested (they may not form a supported size yet).
    want: (usize, usize),
    pos: Root,
    hash_mb: usize,
    overhead_ms: u64,
    multipv: usize,
    show_wdl: bool,
    /// Answer in cutechess drop notation (`UCI_Variant` was set).
    drops: bool,
    debug: bool,
    running: Option<Running>,
    /// Commands that wait for the running search to end.
    deferred: Vec<Command>,
    /// A table (re)allocation was sent to the searcher and `isready` has not waited for it yet.
    allocating: bool,
    /// `OwnBook`: whether the searcher gets [`Engine::book`].
    own_book: bool,
    /// The book `BookFile` names, loaded; `None` if it failed to load.
    book: Option<Arc<Book>>,
}

impl<O: Write> Engine<O> {
    fn new(out: Out<O>, jobs: Sender<Job>, reports: Receiver<Report>) -> Engine<O> {
        let size = Size::default();
        let _ = jobs.send(Job::SetHash(DEFAULT_HASH_MB));
        // OwnBook defaults to true: the built-in book from the start
        let book = Book::embedded();
        let _ = jobs.send(Job::SetBook(book.clone()));
        Engine {
            out,
            jobs,
            reports,
            size,
            want: (size.width(), size.height()),
            pos: Root::start(size),
            hash_mb: DEFAULT_HASH_MB,
            overhead_ms: DEFAULT_MOVE_OVERHEAD_MS,
            multipv: 1,
            show_wdl: false,
            drops: false,
            debug: false,
            running: None,
            deferred: Vec::new(),
            allocating: true,
            own_book: true,
            book,
        }
    }

    fn error(&mut self, msg: &str) {
        self.out.line(&format!("info string error: {msg}"));
    }

    fn main_loop(
        &mut self,
        input: &Receiver<Input>,
        reports: &Receiver<Report>,
    ) -> Result<(), Fatal> {
        loop {
            if self.out.failed {
                // nobody listens any more
                if let Some(r) = &self.running {
                    r.control.stop();
                }
                return Ok(());
            }
            select! {
                recv(input) -> msg => match msg {
                    Ok(Input::Line(line)) => {
                        if let Flow::Quit = self.line(&line)? {
                            return Ok(());
                        }
                    }
                    Ok(Input::TooLong) => {
                        self.error(&format!("line longer than {MAX_LINE} bytes discarded"))
                    }
                    Ok(Input::Eof) | Err(_) => {
                        // end of input: quit once the running search has answered
                        if let Some(r) = &self.running {
                            if r.infinite || r.control.is_pondering() {
                                r.control.stop();
                            }
                        }
                        self.wait_done()?;
                        return Ok(());
                    }
                },
                recv(reports) -> msg => match msg {
                    Ok(r) => self.report(r)?,
                    Err(_) => return Err(Fatal("the searcher thread is gone".into())),
                },
            }
        }
    }

    /// Handles one report from the searcher.
    fn report(&mut self, r: Report) -> Result<(), Fatal> {
        match r {
            Report::Info(it) => {
                if let Some(run) = &self.running {
                    let lines = format_info(&it, run);
                    for l in lines {
                        self.out.line(&l);
                    }
                }
            }
            Report::Done(result) => {
                if let Some(run) = self.running.take() {
                    for l in format_info(&result.last, &run) {
                        self.out.line(&l);
                    }
                    let mv = match result.best {
                        Some(c) => format_moves(run.root, &[c], run.drops)
                            .pop()
                            .unwrap_or_else(|| "(none)".into()),
                        None => "(none)".into(),
                    };
                    self.out.line(&format!("bestmove {mv}"));
                }
                for cmd in std::mem::take(&mut self.deferred) {
                    self.command(cmd)?;
                }
            }
            Report::Pong => {}
            Report::Panicked(msg) => {
                return Err(Fatal(format!("the searcher thread panicked: {msg}")))
            }
        }
        Ok(())
    }

    /// Blocks until the running search (if any) has answered, printing its reports.
    fn wait_done(&mut self) -> Result<(), Fatal> {
        while self.running.is_some() {
            match self.reports.recv() {
                Ok(r) => self.report(r)?,
                Err(_) => return Err(Fatal("the searcher thread is gone".into())),
            }
        }
        Ok(())
    }

    fn stop_and_wait(&mut self) -> Result<(), Fatal> {
        if let Some(r) = &self.running {
            r.control.stop();
        }
        self.wait_done()
    }

    fn line(&mut self, line: &str) -> Result<Flow, Fatal> {
        match parse_line(line) {
            Ok(cmd) => self.command(cmd),
            Err(e) => {
                self.error(&e.to_string());
                Ok(Flow::Continue)
            }
        }
    }

    fn command(&mut self, cmd: Command) -> Result<Flow, Fatal> {
        match cmd {
            Command::Uci => self.identify("uciok"),
            Command::Ugi => self.identify("ugiok"),
            Command::IsReady => {
                // idle after a Hash change: ready once the tables exist (a search is never waited
                // for: mid-search the answer is immediate)
                if self.running.is_none() && self.allocating {
                    self.allocating = false;
                    let _ = self.jobs.send(Job::Ping);
                    loop {
                        match self.reports.recv() {
                            Ok(Report::Pong) => break,
                            Ok(r) => self.report(r)?,
                            Err(_) => return Err(Fatal("the searcher thread is gone".into())),
                        }
                    }
                }
                self.out.line("readyok")
            }
            Command::SetOption { .. } | Command::NewGame if self.running.is_some() => {
                self.deferred.push(cmd)
            }
            Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            Command::NewGame => {
                let _ = self.jobs.send(Job::Clear);
            }
            Command::Position { start, moves } => match self.parse_position(&start, &moves) {
                Ok(pos) => self.pos = pos,
                Err(e) => self.error(&format!("{e}; position unchanged")),
            },
            Command::Go(go) => {
                self.stop_and_wait()?;
                match go.perft {
                    Some(depth) => self.perft(depth),
                    None => self.go(go),
                }
            }
            Command::Stop => {
                if let Some(r) = &self.running {
                    r.control.stop();
                }
            }
            Command::PonderHit => {
                if let Some(r) = &self.running {
                    if r.control.is_pondering() {
                        r.control.ponderhit(r.time_limit.deadlines());
                    }
                }
            }
            Command::Quit => {
                self.stop_and_wait()?;
                return Ok(Flow::Quit);
            }
            Command::Debug(on) => self.debug = on,
            Command::Display => self.display(),
            Command::Bench => {
                if self.running.is_some() {
                    self.error("bench needs the engine idle; send stop first");
                } else {
                    self.bench();
                }
            }
            Command::Eval => self.eval(),
            Command::Query(q) => self.query(q),
            Command::Empty => {}
        }
        Ok(Flow::Continue)
    }

    fn identify(&mut self, ok: &str) {
        let lines = [
            format!("id name vier {}", env!("CARGO_PKG_VERSION")),
            "id author the vier developers".to_string(),
            format!(
                "option name Hash type spin default {DEFAULT_HASH_MB} min 2 max {MAX_HASH_MB}"
            ),
            "option name Clear Hash type button".to_string(),
            format!(
                "option name MoveOverhead type spin default {DEFAULT_MOVE_OVERHEAD_MS} min 0 max {MAX_MOVE_OVERHEAD_MS}"
            ),
            "option name MultiPV type spin default 1 min 1 max 9".to_string(),
            "option name UCI_ShowWDL type check default false".to_string(),
            "option name Width type spin default 7 min 4 max 9".to_string(),
            "option name Height type spin default 6 min 4 max 9".to_string(),
            "option name UCI_Variant type combo default cfour var cfour".to_string(),
            "option name OwnBook type check default true".to_string(),
            "option name BookFile type string default <empty>".to_string(),
            ok.to_string(),
        ];
        for l in lines {
            self.out.line(&l);
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let key = name.to_ascii_lowercase();
        let value = value.map(str::trim);
        let number = |v: Option<&str>, lo: u64, hi: u64| -> Result<u64, String> {
            let v = v
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("option {name} needs a value {lo}..{hi}"))?;
            match v.parse::<u64>() {
                Ok(n) if (lo..=hi).contains(&n) => Ok(n),
                _ => Err(format!(
                    "bad value '{v}' for option {name}: expected a number {lo}..{hi}"
                )),
            }
        };
        let check = |v: Option<&str>| -> Result<bool, String> {
            match v.map(str::to_ascii_lowercase).as_deref() {
                Some("true") => Ok(true),
                Some("false") => Ok(false),
                _ => Err(format!(
                    "bad value '{}' for option {name}: expected true or false",
                    v.unwrap_or("")
                )),
            }
        };
        let result: Result<(), String> = match key.as_str() {
            "hash" => number(value, 2, MAX_HASH_MB as u64).map(|n| {
                self.hash_mb = n as usize;
                self.allocating = true;
                let _ = self.jobs.send(Job::SetHash(self.hash_mb));
            }),
            "clear hash" => {
                let _ = self.jobs.send(Job::Clear);
                Ok(())
            }
            "moveoverhead" => number(value, 0, MAX_MOVE_OVERHEAD_MS).map(|n| self.overhead_ms = n),
            "multipv" => number(value, 1, 9).map(|n| self.multipv = n as usize),
            "uci_showwdl" => check(value).map(|b| self.show_wdl = b),
            "ownbook" => check(value).map(|b| {
                self.own_book = b;
                self.install_book();
            }),
            "bookfile" => {
                self.set_book_file(value.unwrap_or(""));
                Ok(())
            }
            "width" | "height" => number(value, 4, 9).and_then(|n| {
                if key == "width" {
                    self.want.0 = n as usize;
                } else {
                    self.want.1 = n as usize;
                }
                match Size::new(self.want.0, self.want.1) {
                    Ok(size) => {
                        if size != self.size {
                            self.size = size;
                            self.pos = Root::start(size);
                            // keys mean other positions on another board
                            let _ = self.jobs.send(Job::Clear);
                        }
                        Ok(())
                    }
                    Err(e) => Err(format!("{e}; the board stays {}", self.size)),
                }
            }),
            "uci_variant" => match value.map(str::to_ascii_lowercase).as_deref() {
                Some("cfour") => {
                    self.drops = true;
                    Ok(())
                }
                _ => Err(format!(
                    "unsupported variant '{}': only cfour",
                    value.unwrap_or("")
                )),
            },
            _ => Err(format!("unknown option '{name}'")),
        };
        if let Err(e) = result {
            self.error(&e);
        }
    }

    /// `BookFile`: loads the file at once (empty or `<empty>`: the built-in book) and reports
    /// the book, or the error; a book that fails to load leaves the engine without one.
    fn set_book_file(&mut self, value: &str) {
        let path = if value == "<empty>" { "" } else { value };
        let (name, loaded) = if path.is_empty() {
            let book = match Book::embedded() {
                Some(b) => Ok(b),
                None => Err(Book::embedded_result()
                    .err()
                    .unwrap_or_else(|| BookError::Io("the built-in book does not parse".into()))),
            };
            ("(embedded)", book)
        } else {
            (path, Book::load(path.as_ref()).map(Arc::new))
        };
        match loaded {
            Ok(book) => {
                self.out.line(&format!(
                    "info string book {name}: {}x{}, depth {}, {} positions",
                    book.width(),
                    book.height(),
                    book.depth(),
                    book.len()
                ));
                self.book = Some(book);
            }
            Err(e) => {
                self.error(&format!("book: {name}: {e}"));
                self.book = None;
            }
        }
        self.install_book();
    }

    /// Hands the searcher the book it should consult now.
    fn install_book(&mut self) {
        let book = if self.own_book {
            self.book.clone()
        } else {
            None
        };
        let _ = self.jobs.send(Job::SetBook(book));
    }

    fn parse_position(&self, start: &StartPos, moves: &[MoveToken]) -> Result<Root, String> {
        let size = self.size;
        with_size!(size, {
            let mut p = match start {
                StartPos::StartPos => Position::<W, H>::new(),
                StartPos::Fen(f) => Position::<W, H>::from_board_string(f)
                    .map_err(|e| format!("bad fen '{f}': {e}"))?,
            };
            for (i, m) in moves.iter().enumerate() {
                play_token(&mut p, *m).map_err(|e| {
                    format!("illegal move {} '{}' in position: {e}", i + 1, token(*m))
                })?;
            }
            Ok(Root {
                size,
                current: p.current(),
                mask: p.mask(),
            })
        })
    }

    fn go(&mut self, go: GoParams) {
        let root = self.pos;
        let cells = root.size.cells() as u32;
        let moves = root.moves();
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
            overhead_ms: self.overhead_ms,
        };
        let deadlines = if go.infinite {
            Deadlines::default()
        } else {
            time_limit.deadlines()
        };
        if self.debug {
            self.out.line(&format!(
                "info string debug soft {:?} hard {:?} ponder {}",
                deadlines.soft, deadlines.hard, go.ponder
            ));
        }
        let searchmoves = go
            .searchmoves
            .iter()
            .map(|m| match *m {
                MoveToken::Column(c) => c as usize - 1,
                MoveToken::Drop { file, .. } => file as usize - 1,
            })
            .collect();
        // a win with the n-th disc from now lies within its plies, where the search is exact
        let depth = match go.mate {
            Some(n) => Some(go.depth.unwrap_or(u32::MAX).min(Score::mate_depth(n))),
            None => go.depth,
        };
        let limits = SearchLimits {
            depth,
            nodes: go.nodes,
            infinite: go.infinite,
            searchmoves,
            multipv: self.multipv,
        };
        let control = SearchControl::new(deadlines, go.ponder);
        let job = SearchJob {
            size: root.size,
            current: root.current,
            mask: root.mask,
            limits,
            control: control.clone(),
        };
        let _ = self.jobs.send(Job::Search(Box::new(job)));
        self.running = Some(Running {
            control,
            root,
            drops: self.drops,
            show_wdl: self.show_wdl,
            infinite: go.infinite,
            time_limit,
        });
    }

    fn perft(&mut self, depth: u32) {
        let root = self.pos;
        let t = Instant::now();
        let n = with_size!(root.size, {
            perft(&Position::<W, H>::from_raw(root.current, root.mask), depth)
        });
        self.out.line(&format!(
            "info string perft depth {depth} nodes {n} time {}",
            t.elapsed().as_millis()
        ));
    }

    fn display(&mut self) {
        let root = self.pos;
        let (drawing, board, fen, moves) = with_size!(root.size, {
            let p = Position::<W, H>::from_raw(root.current, root.mask);
            (
                p.draw(),
                p.to_board_string(),
                p.to_cfour_fen(),
                p.to_move_string(),
            )
        });
        for l in drawing.lines() {
            self.out.line(l);
        }
        self.out.line(&format!("board {board}"));
        self.out.line(&format!("fen {fen}"));
        let moves = match moves {
            Some(m) if m.is_empty() => "-".to_string(),
            Some(m) => m,
            None => "(unreachable)".to_string(),
        };
        self.out.line(&format!("moves {moves}"));
    }

    fn eval(&mut self) {
        let root = self.pos;
        let (terms, side) = with_size!(root.size, {
            let p = Position::<W, H>::from_raw(root.current, root.mask);
            (eval::explain(&p), p.side_to_move())
        });
        self.out.line(&format!(
            "info string eval side {} (scores from its view)",
            side.symbol()
        ));
        for t in &terms {
            self.out.line(&format!(
                "info string eval term {} us {} them {} weight {} cp {}",
                t.name,
                t.us,
                t.them,
                t.weight,
                t.value()
            ));
        }
        self.out.line(&format!(
            "info string eval total cp {}",
            eval::total(&terms)
        ));
    }

    fn query(&mut self, q: Query) {
        let root = self.pos;
        let (over, side, won, full) = with_size!(root.size, {
            let p = Position::<W, H>::from_raw(root.current, root.mask);
            (
                p.is_game_over(),
                p.side_to_move(),
                p.last_mover_won(),
                p.is_full(),
            )
        });
        let answer = match q {
            Query::GameOver => over.to_string(),
            Query::P1Turn => (side == Player::First).to_string(),
            Query::Result => match (won, full, side) {
                // the winner is the player who moved last
                (true, _, Player::Second) => "p1win".into(),
                (true, _, Player::First) => "p2win".into(),
                (false, true, _) => "draw".into(),
                _ => "none".into(),
            },
        };
        self.out.line(&format!("response {answer}"));
    }

    fn bench(&mut self) {
        let mut buf = Vec::new();
        let r = crate::cli::bench::run(&mut buf);
        for l in String::from_utf8_lossy(&buf).lines() {
            self.out.line(l);
        }
        if let Err(e) = r {
            self.error(&format!("bench failed: {e}"));
        }
    }
}

/// Plays one move token with the board's legality checks, and for a drop, checks its rank.
/// On an error `p` may hold the move already: callers discard it.
fn play_token<const W: usize, const H: usize>(
    p: &mut Position<W, H>,
    m: MoveToken,
) -> Result<(), String> {
    let col = match m {
        MoveToken::Column(c) => c as usize,
        MoveToken::Drop { file, .. } => file as usize,
    };
    p.try_play_column(col, 0).map_err(|e| match e {
        BoardError::ColumnOutOfRange { .. } => format!("column {col} is out of range 1..{W}"),
        BoardError::MoveAfterGameEnd { .. } => "the game is already over".to_string(),
        BoardError::ColumnFull { .. } => format!("column {col} is full"),
        other => other.to_string(),
    })?;
    if let MoveToken::Drop { rank, .. } = m {
        let lands = p.column_height(col - 1);
        if rank as usize != lands {
            return Err(format!(
                "a disc dropped in column {col} lands on rank {lands}, not {rank}"
            ));
        }
    }
    Ok(())
}

/// A move token as it was written.
fn token(m: MoveToken) -> String {
    match m {
        MoveToken::Column(c) => c.to_string(),
        MoveToken::Drop { file, rank } => format!("P@{}{rank}", (b'a' + file - 1) as char),
    }
}

/// 0-based columns from `root` in protocol notation; stops at the first move that cannot be
/// played.
fn format_moves(root: Root, cols: &[usize], drops: bool) -> Vec<String> {
    with_size!(root.size, {
        let mut p = Position::<W, H>::from_raw(root.current, root.mask);
        let mut out = Vec::with_capacity(cols.len());
        for &c in cols {
            if c >= W || !p.can_play(c) || p.is_game_over() {
                break;
            }
            out.push(if drops {
                format!("P@{}{}", (b'a' + c as u8) as char, p.column_height(c) + 1)
            } else {
                (c + 1).to_string()
            });
            p.play_col(c);
        }
        out
    })
}

/// The `info` lines of one report.
fn format_info(it: &Iteration, run: &Running) -> Vec<String> {
    let ms = it.time.as_millis() as u64;
    let nps = it.nodes.saturating_mul(1000) / ms.max(1);
    it.lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let mut s = format!(
                "info depth {} seldepth {} multipv {} score {}",
                it.depth,
                it.seldepth,
                i + 1,
                score_text(line)
            );
            if run.show_wdl {
                let (w, d, l) = score::wdl_permille(line.score);
                s += &format!(" wdl {w} {d} {l}");
            }
            s += &format!(" nodes {} nps {nps}", it.nodes);
            if it.book_hits > 0 {
                s += &format!(" tbhits {}", it.book_hits);
            }
            s += &format!(" hashfull {} time {ms}", it.hashfull);
            let pv = format_moves(run.root, &line.pv, run.drops);
            if !pv.is_empty() {
                s += " pv ";
                s += &pv.join(" ");
            }
            s
        })
        .collect()
}

fn score_text(line: &Line) -> String {
    let mut s = match line.score {
        Score::Cp(x) => format!("cp {x}"),
        Score::Win(n) => format!("mate {n}"),
        Score::Loss(0) => "mate 0".into(),
        Score::Loss(n) => format!("mate -{n}"),
        Score::Draw => "cp 0".into(),
    };
    match line.bound {
        ScoreBound::Exact => {}
        ScoreBound::Lower => s += " lowerbound",
        ScoreBound::Upper => s += " upperbound",
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_bounds_lines() {
        let mut data = b"uci\r\nisready\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        data.extend(b"\nquit");
        let (tx, rx) = unbounded();
        read_lines(io::Cursor::new(data), tx);
        let got: Vec<String> = rx
            .iter()
            .map(|m| match m {
                Input::Line(l) => l,
                Input::TooLong => "<too long>".into(),
                Input::Eof => "<eof>".into(),
            })
            .collect();
        assert_eq!(got, ["uci\r", "isready", "<too long>", "quit", "<eof>"]);
    }

    #[test]
    fn drop_notation() {
        let root = Root {
            size: Size::default(),
            current: 0,
            mask: 0,
        };
        assert_eq!(
            format_moves(root, &[3, 3, 0], true),
            ["P@d1", "P@d2", "P@a1"]
        );
        assert_eq!(format_moves(root, &[3, 3, 0], false), ["4", "4", "1"]);
    }
}
