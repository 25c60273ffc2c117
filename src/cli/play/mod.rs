//! `vier play`: a person plays the engine in the terminal.
//!
//! The engine moves through the engine service ([`crate::engine::Engine::think`], a `movetime`
//! under the protocol's time rules); hints come from its exact answers within a budget
//! ([`crate::engine::SolverPool::analyse_within`]); both consult the opening book built into
//! the binary unless the settings' `OwnBook` is off (`--no-book`). Everything goes through the
//! streams given to [`run`], so the tests drive a whole game through pipes. Terminal niceties
//! depend on [`PlayOptions`]: `color` (ANSI colours and disc glyphs, else `x`/`o`/`.`), `live`
//! (a status line redrawn with `\r` while the engine thinks, else only its final summary) and
//! `echo` (input lines repeated after the prompt, so a transcript of piped input reads like a
//! session).
//!
//! By job: this file the arguments and options, [`games`] the games and what the person
//! types, [`draw`] the board and the words.

pub mod draw;
pub mod games;

use crate::board::{AnyPosition, Size};
use crate::engine::settings::{self, MOVETIME, SKILL};
use crate::engine::{game_over, Settings, Strength};
use games::PlaySession;
use std::fmt;
use std::io::{self, BufRead, IsTerminal, Write};
use std::str::FromStr;

/// The hint solver's table in megabytes.
pub const HINT_HASH_MB: usize = 16;

/// `vier play`'s arguments.
#[derive(clap::Args)]
pub struct PlayArgs {
    /// Who moves first in the first game: me or engine (each new game swaps).
    #[arg(long, default_value = "me")]
    first: First,
    /// The engine's time per move in milliseconds (also the time a hint may take), as the
    /// game's `t` command takes it.
    #[arg(long, default_value_t = MOVETIME.default, value_parser = |s: &str| MOVETIME.parse(s))]
    movetime: u64,
    /// Board size, WxH.
    #[arg(long, default_value = "7x6")]
    size: Size,
    /// Move string (1-based columns) of the position the games start from.
    #[arg(long, default_value = "")]
    position: String,
    /// Play (and give hints) without the opening book built into the binary.
    #[arg(long)]
    no_book: bool,
    /// vier's skill level: 1 (a beginner) to 9 (full strength, the default); `l N` changes it.
    #[arg(long, default_value_t = SKILL.default, value_parser = |s: &str| SKILL.parse(s))]
    skill: u64,
    /// Threads vier searches with.
    #[arg(long, default_value_t = settings::THREADS.default,
          value_parser = |s: &str| settings::THREADS.parse(s))]
    threads: u64,
}

/// `vier play` on the terminal: exit status 2 for a bad start position.
pub fn command(args: PlayArgs) -> io::Result<std::process::ExitCode> {
    let defaults = Settings::default();
    let settings = Settings {
        size: args.size,
        want: (args.size.width(), args.size.height()),
        own_book: !args.no_book,
        threads: args.threads as usize,
        strength: Strength {
            skill: args.skill,
            // a person meets other moves in every run
            seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos() as u64),
            ..defaults.strength
        },
        ..defaults
    };
    let opts = PlayOptions {
        first: args.first,
        movetime_ms: args.movetime,
        position: args.position,
        settings,
        ..Default::default()
    }
    .detect_terminal();
    match run(&opts, io::stdin().lock(), io::stdout().lock()) {
        Err(e) if e.kind() == io::ErrorKind::InvalidInput => {
            eprintln!("error: {e}");
            Ok(std::process::ExitCode::from(2))
        }
        r => r.map(|()| std::process::ExitCode::SUCCESS),
    }
}

/// Who moves first in the first game (from the start position).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum First {
    Me,
    Engine,
}

impl FromStr for First {
    type Err = String;
    fn from_str(s: &str) -> Result<First, String> {
        match s.to_ascii_lowercase().as_str() {
            "me" | "you" | "person" | "human" => Ok(First::Me),
            "engine" | "vier" | "computer" => Ok(First::Engine),
            _ => Err(format!("'{s}': expected 'me' or 'engine'")),
        }
    }
}

impl fmt::Display for First {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            First::Me => "me",
            First::Engine => "engine",
        })
    }
}

/// How `vier play` runs.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// Who moves first (from `position`) in the first game; each new game swaps.
    pub first: First,
    /// The engine's time per move; also the time a hint may take.
    pub movetime_ms: u64,
    /// Move string (1-based columns) of the position every game starts from.
    pub position: String,
    /// The engine's settings: the board size, tables, threads, book, skill level and its seed.
    pub settings: Settings,
    /// ANSI colours and disc glyphs.
    pub color: bool,
    /// A status line redrawn in place while the engine thinks.
    pub live: bool,
    /// Repeat each input line after its prompt (input that the terminal does not show).
    pub echo: bool,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            first: First::Me,
            movetime_ms: MOVETIME.default,
            position: String::new(),
            settings: Settings::default(),
            color: false,
            live: false,
            echo: false,
        }
    }
}

impl PlayOptions {
    /// Sets `color`, `live` and `echo` from the real stdin/stdout and `NO_COLOR`.
    pub fn detect_terminal(mut self) -> Self {
        let tty = io::stdout().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        self.color = tty && !no_color;
        self.live = tty;
        self.echo = !io::stdin().is_terminal();
        self
    }
}

/// Plays games on `input`/`output` until the person quits or the input ends. A bad start
/// position is an `InvalidInput` error, before anything is written.
pub fn run(opts: &PlayOptions, input: impl BufRead, output: impl Write) -> io::Result<()> {
    let bad = |why: String| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("bad --position '{}': {why}", opts.position),
        )
    };
    let start = AnyPosition::from_moves(opts.settings.size, &opts.position)
        .map_err(|e| bad(e.to_string()))?;
    if start.is_game_over() {
        return Err(bad(game_over("it has no move to play").to_string()));
    }
    PlaySession::new(opts, start, input, output).run()
}
