//! The protocol loop: owns the engine state, reads commands, drives one searcher thread.
//!
//! Three threads ([`super::threads`]): a reader turns stdin into bounded lines, the searcher
//! runs one job at a time, and this loop `select!`s over both channels. Only this loop writes
//! to the output, flushing every line. Every search gets a fresh [`SearchControl`]; `go`
//! returns at once, `isready` is answered at once even mid-search, `stop` only sets the flag,
//! and the search's `bestmove` comes back as a report. Options and `ucinewgame` sent during a
//! search are applied when it ends, in order. A panic on the searcher is reported and ends the
//! process with a non-zero status.
//!
//! The position lives in a [`Game`] typed by the board size ([`new_game`], re-entered only when
//! `Width`/`Height` change); options come from the table in [`super::options`]; what a search
//! prints is [`super::format`]'s.
//!
//! The opening book: the loop owns the choice (`OwnBook`, `BookFile`), opens a book file itself
//! (when idle, so the searcher never waits for the disk) with [`book::open`] and hands the
//! searcher the book to consult, or none, with [`Job::SetBook`]. A book that fails to load is
//! reported and leaves the engine without a book; it never ends the engine.

use super::format::{InfoStyle, Notation};
use super::game::{new_game, Game};
use super::go::{self, GoSettings};
use super::options::{self, Opt, Value, DEFAULT_HASH_MB, DEFAULT_MOVE_OVERHEAD_MS};
use super::parse::{parse_line, Command, GoParams, Query};
use super::threads::{read_lines, searcher_thread, Input, Job, Report, MAX_LINE};
use crate::bench;
use crate::board::Size;
use crate::book::{self, Book, BookSource};
use crate::control::SearchControl;
use crate::levels::{self, Strength};
use crate::time::TimeLimit;
use crate::tt::{check_size, TableError};
use crossbeam_channel::{select, unbounded, Receiver, Sender};
use std::io::{BufReader, Read, Write};
use std::sync::Arc;
use std::time::Instant;

/// Exit status after a panic on the searcher thread.
pub const PANIC_EXIT: u8 = 101;

/// The search in progress, as the loop sees it.
struct Running {
    control: Arc<SearchControl>,
    /// The position searched (the loop's own may change meanwhile).
    root: Box<dyn Game>,
    style: InfoStyle,
    infinite: bool,
    /// The time limit to apply at `ponderhit`.
    time_limit: TimeLimit,
    /// A strength level's choice at `bestmove` time: the level and its seed, with the lines of
    /// the last complete iteration (every column's value).
    level: Option<(u64, u64)>,
    level_lines: Vec<crate::search::Line>,
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

    fn lines(&mut self, lines: impl IntoIterator<Item = impl AsRef<str>>) {
        for l in lines {
            self.line(l.as_ref());
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

struct Engine<O: Write> {
    out: Out<O>,
    jobs: Sender<Job>,
    reports: Receiver<Report>,
    /// The position, typed by the board size.
    game: Box<dyn Game>,
    /// Width and height as last requested (they may not form a supported size yet).
    want: (usize, usize),
    overhead_ms: u64,
    multipv: usize,
    style: InfoStyle,
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
    /// `Skill Level`, `UCI_LimitStrength`, `UCI_Elo`, `LevelSeed`.
    strength: Strength,
}

impl<O: Write> Engine<O> {
    fn new(out: Out<O>, jobs: Sender<Job>, reports: Receiver<Report>) -> Engine<O> {
        let size = Size::default();
        let _ = jobs.send(Job::SetHash(DEFAULT_HASH_MB));
        // OwnBook defaults to true: the built-in book from the start
        let book = book::open(&BookSource::BuiltIn).ok().flatten();
        let _ = jobs.send(Job::SetBook(book.clone()));
        Engine {
            out,
            jobs,
            reports,
            game: new_game(size),
            want: (size.width(), size.height()),
            overhead_ms: DEFAULT_MOVE_OVERHEAD_MS,
            multipv: 1,
            style: InfoStyle::default(),
            debug: false,
            running: None,
            deferred: Vec::new(),
            allocating: true,
            own_book: true,
            book,
            strength: Strength::default(),
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
                if let Some(run) = &mut self.running {
                    self.out.lines(run.root.info(&it, run.style));
                    if run.level.is_some() {
                        run.level_lines = it.lines;
                    }
                }
            }
            Report::Done(result) => {
                if let Some(run) = self.running.take() {
                    self.out.lines(run.root.info(&result.last, run.style));
                    let mut best = result.best;
                    // a strength level chooses among the columns' values (crate::levels)
                    if let (Some((level, seed)), Some(_)) = (run.level, best) {
                        let values = levels::column_values(&run.level_lines, &result.last.lines);
                        let seed = levels::move_seed(seed, run.root.key());
                        best = levels::choose(level, run.root.size().width(), &values, seed);
                        if let Some(c) = best {
                            self.out.line(&format!(
                                "info string level {level} chooses column {}",
                                c + 1
                            ));
                        }
                    }
                    self.out.line(&run.root.bestmove(best, run.style.notation));
                }
                for cmd in std::mem::take(&mut self.deferred) {
                    self.command(cmd)?;
                }
            }
            Report::Pong => {}
            Report::HashRefused { mb, error } => self.error(&hash_refused(mb, &error)),
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
            Command::Position { start, moves } => {
                if let Err(e) = self.game.set_position(&start, &moves) {
                    self.error(&format!("{e}; position unchanged"));
                }
            }
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
            Command::Display => self.out.lines(self.game.display()),
            Command::Bench => {
                if self.running.is_some() {
                    self.error("bench needs the engine idle; send stop first");
                } else {
                    self.bench();
                }
            }
            Command::Eval => self.out.lines(self.game.eval()),
            Command::Query(q) => self.query(q),
            Command::Empty => {}
        }
        Ok(Flow::Continue)
    }

    fn identify(&mut self, ok: &str) {
        self.out
            .line(&format!("id name vier {}", env!("CARGO_PKG_VERSION")));
        self.out.line("id author the vier developers");
        self.out
            .lines(options::OPTIONS.iter().map(|o| o.uci_line()));
        self.out.line(ok);
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let Some(decl) = options::find(name) else {
            return self.error(&format!("unknown option '{name}'"));
        };
        let result = decl.check(value).and_then(|v| self.apply(decl.opt, v));
        if let Err(e) = result {
            self.error(&e);
        }
    }

    /// Applies a checked option value.
    fn apply(&mut self, opt: Opt, value: Value) -> Result<(), String> {
        match (opt, value) {
            (Opt::Hash, Value::Spin(n)) => {
                // refused at once when the machine has less memory; the searcher thread reports
                // an allocation the system refuses all the same
                check_size(n as usize).map_err(|e| hash_refused(n as usize, &e))?;
                self.allocating = true;
                let _ = self.jobs.send(Job::SetHash(n as usize));
            }
            (Opt::Threads, Value::Spin(n)) => {
                let _ = self.jobs.send(Job::SetThreads(n as usize));
            }
            (Opt::ClearHash, _) => {
                let _ = self.jobs.send(Job::Clear);
            }
            (Opt::MoveOverhead, Value::Spin(n)) => self.overhead_ms = n,
            (Opt::MultiPv, Value::Spin(n)) => self.multipv = n as usize,
            (Opt::ShowWdl, Value::Check(b)) => self.style.show_wdl = b,
            (Opt::OwnBook, Value::Check(b)) => {
                self.own_book = b;
                self.install_book();
            }
            (Opt::BookFile, Value::Text(path)) => self.set_book_file(&path),
            (Opt::SearchLevel, Value::Spin(n)) => {
                let _ = self.jobs.send(Job::SetLevel(n as u8));
            }
            (Opt::Width | Opt::Height, Value::Spin(n)) => {
                if opt == Opt::Width {
                    self.want.0 = n as usize;
                } else {
                    self.want.1 = n as usize;
                }
                let size = Size::new(self.want.0, self.want.1)
                    .map_err(|e| format!("{e}; the board stays {}", self.game.size()))?;
                if size != self.game.size() {
                    self.game = new_game(size);
                    // keys mean other positions on another board
                    let _ = self.jobs.send(Job::Clear);
                }
            }
            (Opt::Variant, Value::Combo(_)) => self.style.notation = Notation::Drops,
            (Opt::LimitStrength, Value::Check(b)) => self.strength.limit = b,
            (Opt::Elo, Value::Spin(n)) => self.strength.elo = n,
            (Opt::Skill, Value::Spin(n)) => self.strength.skill = n,
            (Opt::LevelSeed, Value::Spin(n)) => self.strength.seed = n,
            (opt, value) => unreachable!("{opt:?} was declared with another type than {value:?}"),
        }
        Ok(())
    }

    /// `BookFile`: opens the file at once (empty: the built-in book) and reports the book, or
    /// the error; a book that fails to load leaves the engine without one.
    fn set_book_file(&mut self, path: &str) {
        let source = BookSource::from_path(path);
        match book::open(&source) {
            Ok(Some(book)) => {
                self.out.line(&format!(
                    "info string book {source}: {}x{}, depth {}, {} positions",
                    book.width(),
                    book.height(),
                    book.depth(),
                    book.len()
                ));
                self.book = Some(book);
            }
            Ok(None) => self.book = None,
            Err(e) => {
                self.error(&format!("book: {source}: {e}"));
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

    fn go(&mut self, go: GoParams) {
        let settings = GoSettings {
            overhead_ms: self.overhead_ms,
            multipv: self.multipv,
        };
        let mut plan = go::plan(&go, self.game.size(), self.game.moves(), settings);
        let level = self.strength.level();
        if let Some(l) = level {
            // a level wants every column's value, and thinks no longer than its node budget
            let budget = levels::level(l).nodes;
            plan.limits.multipv = self.game.size().width();
            plan.limits.nodes = Some(plan.limits.nodes.map_or(budget, |n| n.min(budget)));
        }
        if self.debug {
            self.out.line(&format!(
                "info string debug soft {:?} hard {:?} ponder {}",
                plan.deadlines.soft, plan.deadlines.hard, go.ponder
            ));
        }
        let control = SearchControl::new(plan.deadlines, go.ponder);
        let task = self.game.search(plan.limits, control.clone());
        let _ = self.jobs.send(Job::Search(task));
        self.running = Some(Running {
            control,
            root: self.game.clone_box(),
            style: self.style,
            infinite: go.infinite,
            time_limit: plan.time_limit,
            level: level.map(|l| (l, self.strength.seed)),
            level_lines: Vec::new(),
        });
    }

    fn perft(&mut self, depth: u32) {
        let t = Instant::now();
        let n = self.game.perft(depth);
        self.out.line(&format!(
            "info string perft depth {depth} nodes {n} time {}",
            t.elapsed().as_millis()
        ));
    }

    fn query(&mut self, q: Query) {
        let answer = self.game.query(q);
        self.out.line(&format!("response {answer}"));
    }

    fn bench(&mut self) {
        let mut buf = Vec::new();
        let r = bench::run(&mut buf);
        self.out.lines(String::from_utf8_lossy(&buf).lines());
        if let Err(e) = r {
            self.error(&format!("bench failed: {e}"));
        }
    }
}

/// The error printed when a `Hash` size cannot be had.
fn hash_refused(mb: usize, error: &TableError) -> String {
    format!("Hash {mb}: {error}; the tables stay as they were")
}
