//! The engine's two helper threads and what travels between them and the loop: a reader turns
//! the input into bounded lines (a line over [`MAX_LINE`] bytes is discarded as it streams by,
//! never buffered whole), and the searcher thread owns the [`Engine`], runs one [`Task`] at a
//! time and sends [`Reply`]s back. A panic on the searcher is caught and reported.

use super::parse::{parse_line, Command};
use crate::board::AnyPosition;
use crate::engine::settings::{hash_refused, HASH};
use crate::engine::{Engine, EngineError, Handle, Report, Request, Settings, Thought};
use crossbeam_channel::{Receiver, Sender};
use std::io::{self, BufRead};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Longest accepted input line, in bytes (without its line break).
pub const MAX_LINE: usize = 1 << 20;
/// Set this environment variable to make the searcher panic when a search starts (tests).
pub const PANIC_ENV: &str = "VIER_TEST_SEARCHER_PANIC";

/// What the reader thread sends.
pub enum Input {
    Line(String),
    TooLong,
    Eof,
}

/// Work for the searcher thread.
pub enum Task {
    /// `go`: answered by [`Reply::Info`] per depth and [`Reply::Done`].
    Think {
        position: AnyPosition,
        request: Request,
        handle: Handle,
    },
    /// `go perft`: answered by [`Reply::Perft`]; the handle's `stop` ends it early.
    Perft {
        position: AnyPosition,
        depth: u32,
        handle: Handle,
    },
    /// The options as they are now: the engine takes what it has not got (tables, threads,
    /// techniques, book, a `Clear Hash`).
    Configure(Box<Settings>),
    /// `ucinewgame`, or a new board: forget what was learnt.
    Clear,
    /// Answered by [`Reply::Pong`] once every earlier job is done.
    Ping,
}

/// What the searcher thread sends back.
pub enum Reply {
    Info(Report),
    Done(Thought),
    /// A perft's count, and whether it ran to the end (not stopped).
    Perft {
        nodes: u64,
        complete: bool,
    },
    Pong,
    /// The machine could not give the tables of a `Hash` change; the old ones stay.
    Refused(EngineError),
    Panicked(String),
}

/// Splits `input` into lines of at most [`MAX_LINE`] bytes; longer ones are skipped as they
/// stream by and reported as [`Input::TooLong`]. Sets `quitting` as soon as it reads `quit` or
/// the end of input (issue 60: the searcher then gives up preparing a `Hash`'s memory, even
/// while the loop waits for it to answer an `isready` sent before).
pub fn read_lines(mut r: impl BufRead, tx: Sender<Input>, quitting: &AtomicBool) {
    let mut line: Vec<u8> = Vec::new();
    let mut too_long = false;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if buf.is_empty() {
            quitting.store(true, Ordering::Relaxed);
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
            if let Input::Line(l) = &msg {
                if matches!(parse_line(l), Ok(Command::Quit)) {
                    quitting.store(true, Ordering::Relaxed);
                }
            }
            if tx.send(msg).is_err() {
                return;
            }
            line.clear();
            too_long = false;
        }
    }
    let _ = tx.send(Input::Eof);
}

/// Runs the jobs until the channel closes. `quitting` (set by the loop on `quit` and at the end
/// of input) gives up a `Hash` change's preparation of its memory (issue 60).
pub fn searcher_thread(jobs: Receiver<Task>, reports: Sender<Reply>, quitting: Arc<AtomicBool>) {
    let cancelled = move || quitting.load(Ordering::Relaxed);
    let panic_on_search = std::env::var_os(PANIC_ENV).is_some();
    let mut engine: Option<Engine> = None;
    // the options last sent: an engine made later (after a refused `Hash`) starts with them
    let mut settings = Settings::default();
    for job in jobs {
        let r = catch_unwind(AssertUnwindSafe(|| match job {
            Task::Configure(s) => {
                settings = *s;
                // a refused size leaves the tables as they were, and the rest is applied
                let result = match engine.as_mut() {
                    Some(e) => e.configure(&settings, &cancelled),
                    None => match Engine::new_until(settings.hash_mb, &cancelled) {
                        Ok(e) => engine.insert(e).configure(&settings, &cancelled),
                        Err(e) => Err(EngineError::Invalid(hash_refused(settings.hash_mb, &e))),
                    },
                };
                if let Err(error) = result {
                    let _ = reports.send(Reply::Refused(error));
                }
            }
            Task::Clear => {
                if let Some(e) = engine.as_mut() {
                    e.clear()
                }
            }
            Task::Ping => {
                let _ = reports.send(Reply::Pong);
            }
            Task::Perft {
                position,
                depth,
                handle,
            } => {
                let (nodes, complete) = position.perft_until(depth, &|| handle.is_stopped());
                let _ = reports.send(Reply::Perft { nodes, complete });
            }
            Task::Think {
                position,
                request,
                handle,
            } => {
                if panic_on_search {
                    panic!("{PANIC_ENV} is set");
                }
                let e = engine.get_or_insert_with(|| {
                    let defaults = Settings {
                        hash_mb: HASH.default as usize,
                        ..settings.clone()
                    };
                    Engine::with_settings(&defaults).expect("the default tables")
                });
                let mut report = |it: &Report| {
                    let _ = reports.send(Reply::Info(it.clone()));
                };
                let thought = e.think(&position, &request, &handle, &mut report);
                let _ = reports.send(Reply::Done(thought));
            }
        }));
        if let Err(e) = r {
            let msg = e
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let _ = reports.send(Reply::Panicked(msg));
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam_channel::unbounded;

    #[test]
    fn reader_bounds_lines() {
        let mut data = b"uci\r\nisready\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        data.extend(b"\nquit");
        let (tx, rx) = unbounded();
        let quitting = AtomicBool::new(false);
        read_lines(io::Cursor::new(data), tx, &quitting);
        assert!(
            quitting.load(Ordering::Relaxed),
            "quit and the end of input are noted"
        );
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
}
