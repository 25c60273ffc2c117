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
use super::go;
use super::parse::{parse_line, Command, GoParams, Query};
use super::position;
use super::threads::{read_lines, searcher_thread, Input, Reply, Task, MAX_LINE};
use crate::board::AnyPosition;
use crate::engine::options as decl;
use crate::engine::settings::OPTIONS;
use crate::engine::{Handle, Settings};
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
    /// Every option's value (the engine's settings).
    settings: Settings,
    debug: bool,
    running: Option<Running>,
    /// Commands that wait for the running search to end.
    deferred: Vec<Command>,
}

impl Session {
    fn new(out: Out, jobs: Sender<Task>, reports: Receiver<Reply>) -> Session {
        let settings = Settings::default();
        let _ = jobs.send(Task::Configure(Box::new(settings.clone())));
        Session {
            out,
            jobs,
            reports,
            game: AnyPosition::empty(settings.size),
            settings,
            debug: false,
            running: None,
            deferred: Vec::new(),
        }
    }

    /// How `info` lines look: the settings' notation and WDL.
    fn style(&self) -> InfoStyle {
        InfoStyle {
            notation: if self.settings.drops {
                Notation::Drops
            } else {
                Notation::Digits
            },
            show_wdl: self.settings.show_wdl,
        }
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
                    // a skill level chose among the columns' values
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
            Reply::Refused(e) => self.error(&e.to_string()),
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
                match position::set_position(self.game.size(), &start, &moves) {
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
            Command::Display => self.out.lines(position::display(&self.game)),
            Command::Bench => {
                if self.running.is_some() {
                    self.error("bench needs the engine idle; send stop first");
                } else {
                    self.bench();
                }
            }
            Command::Eval => self.out.lines(position::eval(&self.game)),
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

    /// `setoption`: the engine's settings check and apply it; the searcher gets them whole,
    /// and a new board size starts a new empty board.
    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let Some(declared) = decl::find(OPTIONS, name) else {
            return self.error(&format!("unknown option '{name}'"));
        };
        if let Err(e) = declared.set(&mut self.settings, value) {
            return self.error(&e);
        }
        if declared.name == "BookFile" {
            match self.settings.book_note.clone() {
                Some(Ok(note)) => self.out.line(&format!("info string {note}")),
                Some(Err(e)) => self.error(&e),
                None => {}
            }
        }
        if self.settings.size != self.game.size() {
            self.game = AnyPosition::empty(self.settings.size);
            // keys mean other positions on another board
            let _ = self.jobs.send(Task::Clear);
        }
        let _ = self
            .jobs
            .send(Task::Configure(Box::new(self.settings.clone())));
    }

    fn go(&mut self, go: GoParams) {
        let request = go::plan(&go, self.game.size(), self.game.discs(), &self.settings);
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
            style: self.style(),
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
            style: self.style(),
            perft: Some(depth),
        });
    }

    fn query(&mut self, q: Query) {
        let answer = position::query(&self.game, q);
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
