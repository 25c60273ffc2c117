//! The protocol loop: owns the protocol's state, reads commands, drives the engine service on
//! one searcher thread.
//!
//! Three threads ([`super::threads`]): a reader turns stdin into bounded lines, the searcher
//! thread owns the [`crate::engine::Engine`] and runs one job at a time, and this loop
//! `select!`s over both channels. Only this loop writes to the output, flushing every line.
//! Every search gets a fresh [`Handle`]; `go` returns at once, `isready` is answered at once
//! even mid-search, `stop` only sets the flag, and the search's `bestmove` comes back as a
//! report. Options and `ucinewgame` sent during a search are applied when it ends, in order. A
//! panic on the searcher is reported and ends the process with a non-zero status.
//!
//! The position is an [`AnyPosition`] of the board size `Width` and `Height` chose; options
//! come from the table in [`super::options`]; what a search prints is [`super::format`]'s.
//!
//! The opening book: the loop owns the choice (`OwnBook`, `BookFile`), opens a book file itself
//! (when idle, so the searcher never waits for the disk) with [`book::open`] and hands the
//! searcher the book to consult, or none, with [`Task::SetBook`]. A book that fails to load is
//! reported and leaves the engine without a book; it never ends the engine.

use super::bench;
use super::format::{self, InfoStyle, Notation};
use super::game;
use super::go::{self, GoSettings};
use super::options::{self, Kind, OptionDecl, DEFAULT_HASH_MB, DEFAULT_MOVE_OVERHEAD_MS};
use super::options::{EMPTY, MAX_HASH_MB, MAX_MOVE_OVERHEAD_MS};
use super::parse::{parse_line, Command, GoParams, Query};
use super::threads::{read_lines, searcher_thread, Input, Reply, Task, MAX_LINE};
use crate::bits::{MAX_HEIGHT, MAX_WIDTH, MIN_SIDE};
use crate::board::{AnyPosition, Size};
use crate::book::{self, Book, BookSource};
use crate::engine::Handle;
use crate::levels::{self, Strength};
use crate::solver::MAX_THREADS;
use crate::study;
use crate::tt::{check_size, TableError};
use crossbeam_channel::{select, unbounded, Receiver, Sender};
use std::io::{BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Exit status after a panic on the searcher thread.
pub const PANIC_EXIT: u8 = 101;

/// The search in progress, as the loop sees it.
struct Running {
    handle: Handle,
    /// The position searched (the loop's own may change meanwhile).
    root: AnyPosition,
    style: InfoStyle,
    /// `go perft` of this depth, not a search: it ends with [`Reply::Perft`].
    perft: Option<u32>,
}

enum Flow {
    Continue,
    Quit,
}

/// Why the loop ended abnormally.
struct Fatal(String);

/// Writes whole lines, flushing each; a write error (the GUI went away) ends the loop.
struct Out {
    w: Box<dyn Write>,
    failed: bool,
}

impl Out {
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
pub fn run(input: impl Read + Send + 'static, output: impl Write + 'static) -> u8 {
    let (in_tx, in_rx) = unbounded();
    // issue 60: set when `quit` or the end of input is read, and when the loop ends, so that a
    // Hash's preparation never delays the exit
    let quitting = Arc::new(AtomicBool::new(false));
    let reader_quitting = quitting.clone();
    std::thread::Builder::new()
        .name("vier-stdin".into())
        .spawn(move || {
            let input = BufReader::with_capacity(1 << 16, input);
            read_lines(input, in_tx, &reader_quitting)
        })
        .expect("spawn the input reader");
    let (job_tx, job_rx) = unbounded();
    let (rep_tx, rep_rx) = unbounded();
    let searcher_quitting = quitting.clone();
    let searcher = std::thread::Builder::new()
        .name("vier-search".into())
        .spawn(move || searcher_thread(job_rx, rep_tx, searcher_quitting))
        .expect("spawn the searcher");
    let mut engine = Session::new(
        Out {
            w: Box::new(output),
            failed: false,
        },
        job_tx,
        rep_rx.clone(),
    );
    let status = engine.main_loop(&in_rx, &rep_rx, &quitting);
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

struct Session {
    out: Out,
    jobs: Sender<Task>,
    reports: Receiver<Reply>,
    /// The position, on the board `Width` and `Height` chose.
    game: AnyPosition,
    /// Width and height as last requested (they may not form a supported size yet).
    want: (usize, usize),
    overhead_ms: u64,
    multipv: usize,
    style: InfoStyle,
    debug: bool,
    running: Option<Running>,
    /// Commands that wait for the running search to end.
    deferred: Vec<Command>,
    /// `OwnBook`: whether the searcher gets [`Session::book`].
    own_book: bool,
    /// The book `BookFile` names, loaded; `None` if it failed to load.
    book: Option<Arc<Book>>,
    /// `Skill Level`, `UCI_LimitStrength`, `UCI_Elo`, `LevelSeed`.
    strength: Strength,
}

/// Every option, in the order `uci` lists them, each declared with its action (see
/// [`options`]); protocol.md's option table documents them (a test compares the two).
const OPTIONS: &[OptionDecl<Session>] = &[
    OptionDecl {
        name: "Hash",
        kind: Kind::Spin {
            default: DEFAULT_HASH_MB as u64,
            min: 2,
            max: MAX_HASH_MB as u64,
            set: |e, mb| e.set_hash(mb as usize),
        },
    },
    OptionDecl {
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: MAX_THREADS as u64,
            set: |e, n| e.send(Task::SetThreads(n as usize)),
        },
    },
    OptionDecl {
        name: "Clear Hash",
        kind: Kind::Button {
            press: |e| e.send(Task::Clear),
        },
    },
    OptionDecl {
        name: "MoveOverhead",
        kind: Kind::Spin {
            default: DEFAULT_MOVE_OVERHEAD_MS,
            min: 0,
            max: MAX_MOVE_OVERHEAD_MS,
            set: |e, ms| {
                e.overhead_ms = ms;
                Ok(())
            },
        },
    },
    OptionDecl {
        name: "MultiPV",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: MAX_WIDTH as u64,
            set: |e, n| {
                e.multipv = n as usize;
                Ok(())
            },
        },
    },
    OptionDecl {
        name: "UCI_ShowWDL",
        kind: Kind::Check {
            default: false,
            set: |e, on| {
                e.style.show_wdl = on;
                Ok(())
            },
        },
    },
    OptionDecl {
        name: "Width",
        kind: Kind::Spin {
            default: 7,
            min: MIN_SIDE as u64,
            max: MAX_WIDTH as u64,
            set: |e, w| e.set_size(w as usize, e.want.1),
        },
    },
    OptionDecl {
        name: "Height",
        kind: Kind::Spin {
            default: 6,
            min: MIN_SIDE as u64,
            max: MAX_HEIGHT as u64,
            set: |e, h| e.set_size(e.want.0, h as usize),
        },
    },
    OptionDecl {
        name: "UCI_Variant",
        kind: Kind::Combo {
            default: "cfour",
            vars: &["cfour"],
            set: |e, _| {
                e.style.notation = Notation::Drops;
                Ok(())
            },
        },
    },
    OptionDecl {
        name: "OwnBook",
        kind: Kind::Check {
            default: true,
            set: |e, on| {
                e.own_book = on;
                e.install_book();
                Ok(())
            },
        },
    },
    OptionDecl {
        name: "BookFile",
        kind: Kind::Text {
            default: EMPTY,
            set: |e, path| {
                e.set_book_file(path);
                Ok(())
            },
        },
    },
    // For the study (tools/study.py) only: the lecture's techniques one at a time, see
    // crate::study. The default is the full engine.
    OptionDecl {
        name: "SearchLevel",
        kind: Kind::Spin {
            default: study::FULL as u64,
            min: study::MINIMAX as u64,
            max: study::FULL as u64,
            set: |e, level| e.send(Task::SetTechniques(study::techniques(level as u8))),
        },
    },
    // Strength levels (crate::levels): a weaker player for people, chosen after the search.
    // As UCI has it, UCI_LimitStrength with UCI_Elo takes precedence over Skill Level.
    OptionDecl {
        name: "UCI_LimitStrength",
        kind: Kind::Check {
            default: false,
            set: |e, on| {
                e.strength.limit = on;
                Ok(())
            },
        },
    },
    OptionDecl {
        name: "UCI_Elo",
        kind: Kind::Spin {
            default: levels::ELO[levels::ELO.len() - 1] as u64,
            min: levels::ELO[0] as u64,
            max: levels::ELO[levels::ELO.len() - 1] as u64,
            set: |e, elo| {
                e.strength.elo = elo;
                Ok(())
            },
        },
    },
    OptionDecl {
        name: "Skill Level",
        kind: Kind::Spin {
            default: levels::FULL_SKILL,
            min: 1,
            max: levels::FULL_SKILL,
            set: |e, skill| {
                e.strength.skill = skill;
                Ok(())
            },
        },
    },
    OptionDecl {
        name: "LevelSeed",
        kind: Kind::Spin {
            default: 0,
            min: 0,
            max: u32::MAX as u64,
            set: |e, seed| {
                e.strength.seed = seed;
                Ok(())
            },
        },
    },
];

impl Session {
    fn new(out: Out, jobs: Sender<Task>, reports: Receiver<Reply>) -> Session {
        let size = Size::default();
        let _ = jobs.send(Task::SetHash(DEFAULT_HASH_MB));
        // OwnBook defaults to true: the built-in book from the start
        let book = book::open(&BookSource::BuiltIn).ok().flatten();
        let _ = jobs.send(Task::SetBook(book.clone()));
        Session {
            out,
            jobs,
            reports,
            game: AnyPosition::empty(size),
            want: (size.width(), size.height()),
            overhead_ms: DEFAULT_MOVE_OVERHEAD_MS,
            multipv: 1,
            style: InfoStyle::default(),
            debug: false,
            running: None,
            deferred: Vec::new(),
            own_book: true,
            book,
            strength: Strength::default(),
        }
    }

    /// Hands the searcher thread a job (it runs them in order).
    fn send(&self, job: Task) -> Result<(), String> {
        let _ = self.jobs.send(job);
        Ok(())
    }

    fn error(&mut self, msg: &str) {
        self.out.line(&format!("info string error: {msg}"));
    }

    fn main_loop(
        &mut self,
        input: &Receiver<Input>,
        reports: &Receiver<Reply>,
        quitting: &AtomicBool,
    ) -> Result<(), Fatal> {
        let r = self.lines_until_quit(input, reports);
        quitting.store(true, Ordering::Relaxed);
        r.and_then(|()| self.stop_and_wait())
    }

    /// The loop proper, until `quit` or the end of input; [`Engine::main_loop`] then stops the
    /// search (issue 60: after it has told the searcher to give up a preparation).
    fn lines_until_quit(
        &mut self,
        input: &Receiver<Input>,
        reports: &Receiver<Reply>,
    ) -> Result<(), Fatal> {
        loop {
            if self.out.failed {
                // nobody listens any more
                if let Some(r) = &self.running {
                    r.handle.stop();
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
                        // end of input: the GUI is gone, so no search may keep a core busy for
                        // it, whatever its limit; main_loop stops it and quits once it has
                        // answered
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
    fn report(&mut self, r: Reply) -> Result<(), Fatal> {
        match r {
            Reply::Info(it) => {
                if let Some(run) = &self.running {
                    self.out.lines(format::info(&run.root, &it, run.style));
                }
            }
            Reply::Done(thought) => {
                if let Some(run) = self.running.take() {
                    self.out
                        .lines(format::info(&run.root, &thought.last, run.style));
                    // a skill level chose among the columns' values (crate::levels)
                    if let (Some(level), Some(c)) = (thought.chosen_by, thought.column) {
                        self.out.line(&format!(
                            "info string level {level} chooses column {}",
                            c + 1
                        ));
                    }
                    self.out.line(&format::bestmove(
                        &run.root,
                        thought.column,
                        run.style.notation,
                    ));
                }
                self.run_deferred()?;
            }
            Reply::Perft { nodes, complete } => {
                if let Some(run) = self.running.take() {
                    let depth = run.perft.unwrap_or_default();
                    let ms = run.handle.elapsed().as_millis();
                    // a stopped count says so: it is the leaves counted so far, not the answer
                    let stopped = if complete { "" } else { " stopped" };
                    self.out.line(&format!(
                        "info string perft depth {depth} nodes {nodes} time {ms}{stopped}"
                    ));
                }
                self.run_deferred()?;
            }
            Reply::Pong => {}
            Reply::HashRefused { mb, error } => self.error(&hash_refused(mb, &error)),
            Reply::Panicked(msg) => {
                return Err(Fatal(format!("the searcher thread panicked: {msg}")))
            }
        }
        Ok(())
    }

    /// Applies the commands that waited for the search that just ended.
    fn run_deferred(&mut self) -> Result<(), Fatal> {
        for cmd in std::mem::take(&mut self.deferred) {
            self.command(cmd)?;
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
            r.handle.stop();
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
                // idle: ready once the searcher has done every job sent (a Hash's tables
                // allocated and prepared, a clear, the threads: issue 60), so that no `go` pays
                // for them; a search is never waited for: mid-search the answer is immediate
                if self.running.is_none() {
                    let _ = self.jobs.send(Task::Ping);
                    loop {
                        match self.reports.recv() {
                            Ok(Reply::Pong) => break,
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
                let _ = self.jobs.send(Task::Clear);
            }
            Command::Position { start, moves } => {
                match game::set_position(self.game.size(), &start, &moves) {
                    Ok(p) => self.game = p,
                    Err(e) => self.error(&format!("{e}; position unchanged")),
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
                    r.handle.stop();
                }
            }
            Command::PonderHit => {
                if let Some(r) = &self.running {
                    r.handle.ponderhit();
                }
            }
            // main_loop stops the search and waits for its answer
            Command::Quit => return Ok(Flow::Quit),
            Command::Debug(on) => self.debug = on,
            Command::Display => self.out.lines(game::display(&self.game)),
            Command::Bench => {
                if self.running.is_some() {
                    self.error("bench needs the engine idle; send stop first");
                } else {
                    self.bench();
                }
            }
            Command::Eval => self.out.lines(game::eval(&self.game)),
            Command::Help => self.out.lines(super::help::HELP),
            Command::Query(q) => self.query(q),
            Command::Empty => {}
        }
        Ok(Flow::Continue)
    }

    fn identify(&mut self, ok: &str) {
        self.out
            .line(&format!("id name vier {}", env!("CARGO_PKG_VERSION")));
        self.out.line("id author the vier developers");
        self.out.lines(OPTIONS.iter().map(|o| o.uci_line()));
        self.out.line(ok);
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let Some(decl) = options::find(OPTIONS, name) else {
            return self.error(&format!("unknown option '{name}'"));
        };
        if let Err(e) = decl.set(self, value) {
            self.error(&e);
        }
    }

    /// `Hash`: refused at once when the machine has less memory; the searcher thread reports an
    /// allocation the system refuses all the same.
    fn set_hash(&mut self, mb: usize) -> Result<(), String> {
        check_size(mb).map_err(|e| hash_refused(mb, &e))?;
        let _ = self.jobs.send(Task::SetHash(mb));
        Ok(())
    }

    /// `Width` or `Height` (the other as last requested): a new empty board when they make a
    /// supported size other than the current one.
    fn set_size(&mut self, width: usize, height: usize) -> Result<(), String> {
        self.want = (width, height);
        let size = Size::new(width, height)
            .map_err(|e| format!("{e}; the board stays {}", self.game.size()))?;
        if size != self.game.size() {
            self.game = AnyPosition::empty(size);
            // keys mean other positions on another board
            let _ = self.jobs.send(Task::Clear);
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
        let _ = self.jobs.send(Task::SetBook(book));
    }

    fn go(&mut self, go: GoParams) {
        let settings = GoSettings {
            overhead_ms: self.overhead_ms,
            multipv: self.multipv,
        };
        let mut request = go::plan(&go, self.game.size(), self.game.discs(), settings);
        request.skill = self.strength.skill();
        if self.debug {
            let d = request.deadlines();
            self.out.line(&format!(
                "info string debug soft {:?} hard {:?} ponder {}",
                d.soft, d.hard, go.ponder
            ));
        }
        let handle = Handle::new(&request);
        let _ = self.jobs.send(Task::Think {
            position: self.game,
            request,
            handle: handle.clone(),
        });
        self.running = Some(Running {
            handle,
            root: self.game,
            style: self.style,
            perft: None,
        });
    }

    /// `go perft`: runs on the searcher thread like a search, so that `stop`, `isready`, `quit`
    /// and the end of input work meanwhile. A depth past the board's empty cells is refused:
    /// no sequence is that long, and a huge depth is a mistake, not a question.
    fn perft(&mut self, depth: u32) {
        let empty = self.game.empty_cells();
        if depth > empty {
            return self.error(&format!(
                "perft depth too large: the board has {empty} empty cells"
            ));
        }
        let handle = Handle::unlimited();
        let _ = self.jobs.send(Task::Perft {
            position: self.game,
            depth,
            handle: handle.clone(),
        });
        self.running = Some(Running {
            handle,
            root: self.game,
            style: self.style,
            perft: Some(depth),
        });
    }

    fn query(&mut self, q: Query) {
        let answer = game::query(&self.game, q);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every declared option is found by its name in any case, and its action accepts its own
    /// default: a declaration whose default its range or its action refuses fails here.
    #[test]
    fn every_option_is_found_by_name_and_accepts_its_own_default() {
        let (jobs, _job_rx) = unbounded();
        let (_report_tx, reports) = unbounded();
        let out = Out {
            w: Box::new(std::io::sink()),
            failed: false,
        };
        let mut e = Session::new(out, jobs, reports);
        for o in OPTIONS {
            let found = options::find(OPTIONS, &o.name.to_ascii_uppercase()).expect("found");
            assert!(std::ptr::eq(found, o), "{} is declared once", o.name);
            assert_eq!(
                o.set(&mut e, Some(&o.default_value())),
                Ok(()),
                "{}",
                o.name
            );
        }
        assert_eq!(e.game.size(), Size::default());
    }
}
