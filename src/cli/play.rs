//! `vier play`: a person plays the engine in the terminal.
//!
//! The engine moves through the engine service ([`Engine::think`], a `movetime` under the
//! protocol's time rules); hints come from its exact answers within a budget
//! ([`SolverPool::analyse_within`]); both consult the opening book built into the binary unless
//! [`PlayOptions::book`] is off (`--no-book`). Everything goes through the streams given to [`run`], so the tests
//! drive a whole game through pipes. Terminal niceties depend on [`PlayOptions`]: `color` (ANSI
//! colours and disc glyphs, else `x`/`o`/`.`), `live` (a status line redrawn with `\r` while the
//! engine thinks, else only its final summary) and `echo` (input lines repeated after the
//! prompt, so a transcript of piped input reads like a session).
//!
//! The board: one 3-character cell per column, the last move in brackets (`[x]`), the discs of a
//! finished game's four in a row in upper case (`X`, `O`) or, in colour, reversed.

use crate::board::{AnyPosition, Cell, Player, Size};
use crate::book::{self, Book, BookSource};
use crate::engine::{Engine, Handle, Report, Request, Skill, SolverPool};
use crate::levels::FULL_SKILL;
use crate::score::{ordinal, Score, ScoreBound, Value};
use std::fmt;
use std::io::{self, BufRead, IsTerminal, Write};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// The engine's table in megabytes (the protocol's default `Hash`).
pub const ENGINE_HASH_MB: usize = crate::search::DEFAULT_HASH_MB;
/// The hint solver's table in megabytes.
pub const HINT_HASH_MB: usize = 16;
/// The longest time per move `t` accepts (one hour).
pub const MAX_MOVETIME_MS: u64 = 3_600_000;
/// Heuristic scores within this distance of 0 are called "even".
const EVEN_CP: i32 = 25;

/// `vier play`'s arguments.
#[derive(clap::Args)]
pub struct PlayArgs {
    /// Who moves first in the first game: me or engine (each new game swaps).
    #[arg(long, default_value = "me")]
    first: First,
    /// The engine's time per move in milliseconds (also the time a hint may take), 1 to
    /// 3600000 like the game's `t` command.
    #[arg(long, default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(1..=MAX_MOVETIME_MS))]
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
    #[arg(long, default_value_t = FULL_SKILL,
          value_parser = clap::value_parser!(u64).range(1..=FULL_SKILL))]
    skill: u64,
}

/// `vier play` on the terminal: exit status 2 for a bad start position.
pub fn command(args: PlayArgs) -> io::Result<std::process::ExitCode> {
    let opts = PlayOptions {
        first: args.first,
        movetime_ms: args.movetime,
        size: args.size,
        position: args.position,
        book: !args.no_book,
        // the top skill level is the full engine
        skill: (args.skill < FULL_SKILL).then_some(args.skill),
        // a person meets other moves in every run
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
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
    pub size: Size,
    /// Move string (1-based columns) of the position every game starts from.
    pub position: String,
    /// ANSI colours and disc glyphs.
    pub color: bool,
    /// A status line redrawn in place while the engine thinks.
    pub live: bool,
    /// Repeat each input line after its prompt (input that the terminal does not show).
    pub echo: bool,
    pub hash_mb: usize,
    /// Consult the opening book built into the binary (for the engine's moves and the hints);
    /// off with `--no-book`.
    pub book: bool,
    /// The skill level (`Skill Level` 1.., see [`crate::levels`]); `None`: the full engine.
    pub skill: Option<u64>,
    /// Seeds a skill level's choices (with the position).
    pub seed: u64,
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            first: First::Me,
            movetime_ms: 1000,
            size: Size::default(),
            position: String::new(),
            color: false,
            live: false,
            echo: false,
            hash_mb: ENGINE_HASH_MB,
            book: true,
            skill: None,
            seed: 0,
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
    let start = AnyPosition::from_moves(opts.size, &opts.position).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("bad --position '{}': {e}", opts.position),
        )
    })?;
    if start.is_game_over() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "bad --position '{}': the game is already over",
                opts.position
            ),
        ));
    }
    PlaySession::new(opts, start, input, output).run()
}

/// What the person typed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Command {
    Column(usize),
    Hint,
    Undo,
    New,
    Time(u64),
    /// A skill level, or `None` for the full engine.
    Skill(Option<u64>),
    Board,
    Help,
    Quit,
    Yes,
    Empty,
    Bad(String),
}

fn parse_command(line: &str, width: usize) -> Command {
    let line = line.trim();
    let mut words = line.split_whitespace();
    let Some(word) = words.next() else {
        return Command::Empty;
    };
    let rest: Vec<&str> = words.collect();
    let lower = word.to_ascii_lowercase();
    if word.bytes().all(|b| b.is_ascii_digit()) {
        if !rest.is_empty() {
            return Command::Bad(format!("type one column number, 1 to {width}"));
        }
        return match word.parse::<usize>() {
            Ok(n) if (1..=width).contains(&n) => Command::Column(n),
            _ => Command::Bad(format!(
                "there is no column {word}: type a column number, 1 to {width}"
            )),
        };
    }
    let no_args = |c: Command| {
        if rest.is_empty() {
            c
        } else {
            Command::Bad(format!("'{word}' takes no argument (? lists the keys)"))
        }
    };
    match lower.as_str() {
        "h" | "hint" => no_args(Command::Hint),
        "u" | "undo" => no_args(Command::Undo),
        "n" | "new" | "no" => no_args(Command::New),
        "b" | "board" => no_args(Command::Board),
        "?" | "help" => no_args(Command::Help),
        "q" | "quit" | "exit" => no_args(Command::Quit),
        "y" | "yes" => no_args(Command::Yes),
        "t" | "time" => match rest.as_slice() {
            [ms] => match ms.parse::<u64>() {
                Ok(ms) if (1..=MAX_MOVETIME_MS).contains(&ms) => Command::Time(ms),
                _ => Command::Bad(format!(
                    "'{ms}' is not a time: type t and milliseconds, 1 to {MAX_MOVETIME_MS}, e.g. t 500"
                )),
            },
            _ => Command::Bad("type t and the engine's time per move in milliseconds, e.g. t 500".into()),
        },
        "l" | "level" | "skill" => match rest.as_slice() {
            [n] => match parse_skill(n) {
                Ok(skill) => Command::Skill(skill),
                Err(e) => Command::Bad(e),
            },
            _ => Command::Bad(format!(
                "type l and a skill level, 1 (a beginner) to {FULL_SKILL} (full strength), e.g. l 3"
            )),
        },
        _ => {
            let shown: String = line.chars().take(20).collect();
            let more = if line.chars().count() > 20 { "..." } else { "" };
            Command::Bad(format!(
                "unknown command '{shown}{more}': type a column number 1 to {width}, or ? for the keys"
            ))
        }
    }
}

/// A skill level as typed (`--skill`, `l N`): 1.. for a weaker player, the top one for the
/// full engine.
pub fn parse_skill(s: &str) -> Result<Option<u64>, String> {
    match s.parse::<u64>() {
        Ok(n) if (1..FULL_SKILL).contains(&n) => Ok(Some(n)),
        Ok(n) if n == FULL_SKILL => Ok(None),
        _ => Err(format!(
            "'{s}' is not a skill level: 1 (a beginner) to {FULL_SKILL} (full strength)"
        )),
    }
}

/// "skill level N" or "full strength".
fn skill_words(skill: Option<u64>) -> String {
    match skill {
        Some(n) => format!("skill level {n}"),
        None => "full strength".to_string(),
    }
}

/// The state of the games of one `vier play` run.
pub struct PlaySession<'a, R: BufRead, O: Write> {
    opts: &'a PlayOptions,
    input: R,
    out: O,
    /// Every game starts here.
    start: AnyPosition,
    /// 0-based columns played since `start`.
    history: Vec<usize>,
    pos: AnyPosition,
    /// The person's side in the current game.
    person: Player,
    movetime_ms: u64,
    /// The skill level now (`l N` changes it mid-game).
    skill: Option<u64>,
    /// The engine that plays, made at its first move.
    engine: Option<Engine>,
    /// Exact values for the hints.
    hints: SolverPool,
    /// The book the engine and the hints consult.
    book: Option<Arc<Book>>,
}

/// What to do after a line at the end of a game.
enum AfterGame {
    Again,
    Continue,
    Quit,
}

impl<'a, R: BufRead, O: Write> PlaySession<'a, R, O> {
    pub fn new(opts: &'a PlayOptions, start: AnyPosition, input: R, out: O) -> Self {
        let book = book::open(&if opts.book {
            BookSource::BuiltIn
        } else {
            BookSource::Off
        })
        .ok()
        .flatten();
        Self::with_book(opts, start, input, out, book)
    }

    /// A session whose engine and hints consult `book`.
    fn with_book(
        opts: &'a PlayOptions,
        start: AnyPosition,
        input: R,
        out: O,
        book: Option<Arc<Book>>,
    ) -> Self {
        let mover = start.side_to_move();
        let person = match opts.first {
            First::Me => mover,
            First::Engine => mover.other(),
        };
        PlaySession {
            opts,
            input,
            out,
            start,
            history: Vec::new(),
            pos: start,
            person,
            movetime_ms: opts.movetime_ms.max(1),
            skill: opts.skill,
            engine: None,
            hints: SolverPool::new(book.clone(), HINT_HASH_MB),
            book,
        }
    }

    /// Plays until the person quits or the input ends.
    pub fn run(mut self) -> io::Result<()> {
        self.announce_game()?;
        let mut show_board = true;
        loop {
            if self.pos.is_game_over() {
                self.game_over()?;
                match self.after_game()? {
                    AfterGame::Again => {
                        self.new_game()?;
                        show_board = true;
                        continue;
                    }
                    AfterGame::Continue => {
                        show_board = true;
                        continue;
                    }
                    AfterGame::Quit => break,
                }
            }
            if self.pos.side_to_move() != self.person {
                self.engine_move()?;
                show_board = true;
                continue;
            }
            if show_board {
                self.show_board(&[])?;
                self.show_to_move()?;
                show_board = false;
            }
            let Some(line) = self.read_line("your move: ")? else {
                break;
            };
            match parse_command(&line, self.pos.width()) {
                Command::Column(c) => {
                    if self.pos.can_play(c - 1) {
                        self.play(c - 1);
                        show_board = true;
                    } else {
                        self.say(&format!("column {c} is full: choose another"))?;
                    }
                }
                Command::Hint => self.hint()?,
                Command::Undo => show_board = self.undo()?,
                Command::New | Command::Yes => {
                    self.new_game()?;
                    show_board = true;
                }
                Command::Time(ms) => {
                    self.movetime_ms = ms;
                    self.say(&format!("vier now thinks {ms} ms per move"))?;
                }
                Command::Skill(skill) => {
                    self.skill = skill;
                    let line = format!("vier now plays at {}", skill_words(skill));
                    self.say(&line)?;
                }
                Command::Board => show_board = true,
                Command::Help => self.help()?,
                Command::Quit => break,
                Command::Empty => self.say(&format!(
                    "type a column number, 1 to {}, and Enter (? lists the keys)",
                    self.pos.width()
                ))?,
                Command::Bad(msg) => self.say(&msg)?,
            }
        }
        self.say("bye")?;
        self.out.flush()
    }

    fn say(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.out, "{line}")
    }

    /// Prompts and reads one line; `None` at the end of the input.
    fn read_line(&mut self, prompt: &str) -> io::Result<Option<String>> {
        write!(self.out, "{prompt}")?;
        self.out.flush()?;
        let mut buf = Vec::new();
        let n = self.input.read_until(b'\n', &mut buf)?;
        if n == 0 {
            writeln!(self.out)?;
            return Ok(None);
        }
        let line = String::from_utf8_lossy(&buf)
            .trim_end_matches(['\n', '\r'])
            .to_string();
        if self.opts.echo {
            writeln!(self.out, "{line}")?;
        }
        Ok(Some(line))
    }

    /// Plays a column the caller checked is open.
    fn play(&mut self, col: usize) {
        if let Ok(next) = self.pos.play(col) {
            self.pos = next;
            self.history.push(col);
        }
    }

    fn glyph(&self, p: Player, highlight: bool) -> String {
        if self.opts.color {
            colour_disc(p, highlight)
        } else {
            let c = p.symbol();
            if highlight {
                c.to_ascii_uppercase().to_string()
            } else {
                c.to_string()
            }
        }
    }

    fn side_name(&self, p: Player) -> String {
        format!(
            "{} {}",
            self.glyph(p, false),
            if p == self.person { "(you)" } else { "(vier)" }
        )
    }

    fn announce_game(&mut self) -> io::Result<()> {
        let first = self.start.side_to_move();
        let who = if first == self.person {
            "you move first"
        } else {
            "vier moves first"
        };
        let line = format!(
            "new game on {}: you play {}, vier plays {}; {who}. vier thinks {} ms per move{}; ? lists the keys.",
            self.pos.size(),
            self.glyph(self.person, false),
            self.glyph(self.person.other(), false),
            self.movetime_ms,
            match self.skill {
                Some(_) => format!(" at {}", skill_words(self.skill)),
                None => String::new(),
            }
        );
        self.say(&line)
    }

    fn new_game(&mut self) -> io::Result<()> {
        self.person = self.person.other();
        self.history.clear();
        self.pos = self.start;
        self.announce_game()
    }

    /// Draws the board; `four` lists the cells (column, row from the bottom) to highlight.
    fn show_board(&mut self, four: &[(usize, usize)]) -> io::Result<()> {
        let last = self.history.last().copied().map(|c| {
            let row = self.pos.column_height(c) - 1;
            (c, row)
        });
        let (w, h) = (self.pos.width(), self.pos.height());
        let mut s = String::new();
        for row in (0..h).rev() {
            let mut line = String::new();
            for col in 0..w {
                let inner = match self.pos.cell(col, row) {
                    Cell::Empty => ".".to_string(),
                    Cell::Disc(p) => self.glyph(p, four.contains(&(col, row))),
                };
                if last == Some((col, row)) {
                    line += &format!("[{inner}]");
                } else {
                    line += &format!(" {inner} ");
                }
            }
            s += line.trim_end();
            s.push('\n');
        }
        // three characters a column, as the cells: "10" and up fill two of them
        let numbers: String = (1..=w).map(|c| format!("{c:^3}")).collect();
        s += numbers.trim_end();
        s.push('\n');
        write!(self.out, "{s}")
    }

    fn show_to_move(&mut self) -> io::Result<()> {
        let mover = self.pos.side_to_move();
        let last = match self.history.last() {
            Some(&c) => {
                let who = if mover == self.person { "vier" } else { "you" };
                format!(" ({who} played {})", c + 1)
            }
            None => String::new(),
        };
        let line = format!(
            "move {}: {} to play{last}",
            self.pos.discs() + 1,
            self.side_name(mover)
        );
        self.say(&line)
    }

    fn help(&mut self) -> io::Result<()> {
        let text = format!(
            "keys (then Enter):\n\
             \x20 1-{}    drop a disc in that column\n\
             \x20 h      hint: the exact value of each column for you (within vier's time per move)\n\
             \x20 u      take back your last move and vier's reply\n\
             \x20 n      new game (you and vier swap who goes first)\n\
             \x20 t MS   vier's time per move in milliseconds (now {})\n\
             \x20 l N    vier's skill level, 1 (a beginner) to {} (full strength; now {})\n\
             \x20 b      draw the board again\n\
             \x20 ?      this list\n\
             \x20 q      quit",
            self.pos.width(),
            self.movetime_ms,
            FULL_SKILL,
            self.skill.unwrap_or(FULL_SKILL)
        );
        self.say(&text)
    }

    /// Takes back moves until the person's last move is undone. Returns whether anything changed.
    fn undo(&mut self) -> io::Result<bool> {
        let base = self.start.discs() as usize;
        let person_parity = usize::from(self.person == Player::Second);
        let Some(i) = (0..self.history.len())
            .rev()
            .find(|i| (base + i) % 2 == person_parity)
        else {
            self.say("nothing to take back")?;
            return Ok(false);
        };
        let taken: Vec<String> = self.history[i..]
            .iter()
            .map(|c| (c + 1).to_string())
            .collect();
        self.history.truncate(i);
        let mut p = self.start;
        for &c in &self.history {
            p = p.play(c).expect("a column played before");
        }
        self.pos = p;
        self.say(&format!("took back {}", taken.join(" and ")))?;
        Ok(true)
    }

    fn engine_move(&mut self) -> io::Result<()> {
        let mut request = Request::movetime(self.movetime_ms);
        request.skill = self.skill.map(|level| Skill {
            level,
            seed: self.opts.seed,
        });
        let live = self.opts.live;
        if live {
            write!(self.out, "vier thinks...")?;
            self.out.flush()?;
        }
        let (mb, book) = (self.opts.hash_mb, self.book.clone());
        let engine = match &mut self.engine {
            Some(e) => e,
            None => {
                let mut e = Engine::new(mb)
                    .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e.to_string()))?;
                e.set_book(book);
                self.engine.insert(e)
            }
        };
        let out = &mut self.out;
        let mut failed: Option<io::Error> = None;
        let mut report = |it: &Report| {
            if !live || failed.is_some() {
                return;
            }
            let line = format!("\r\x1b[2Kvier thinks: {}", summary(it));
            if let Err(e) = out.write_all(line.as_bytes()).and_then(|_| out.flush()) {
                failed = Some(e);
            }
        };
        let thought = engine.think(&self.pos, &request, &Handle::new(&request), &mut report);
        if let Some(e) = failed {
            return Err(e);
        }
        if live {
            write!(self.out, "\r\x1b[2K")?;
        }
        let col = thought
            .column
            .expect("a game that goes on has a legal column");
        self.play(col);
        let line = format!("vier plays {} ({})", col + 1, summary(&thought.last));
        self.say(&line)
    }

    fn hint(&mut self) -> io::Result<()> {
        let budget = Duration::from_millis(self.movetime_ms);
        if self.opts.live {
            write!(
                self.out,
                "working out the hint (up to {} ms)...",
                self.movetime_ms
            )?;
            self.out.flush()?;
        }
        let p = self.pos;
        let scores = self.hints.analyse_within(&p, budget);
        let open = p.legal_moves();
        if self.opts.live {
            write!(self.out, "\r\x1b[2K")?;
        }
        let me = self.glyph(self.person, false);
        let mut text = format!("hint: exact values for you ({me}), move {}:", p.discs() + 1);
        let best = scores.iter().flatten().max().copied();
        let all_known = open.iter().all(|&c| scores[c].is_some());
        for (c, score) in scores.iter().enumerate() {
            let what = if !p.can_play(c) {
                "full".to_string()
            } else {
                match *score {
                    None => "unknown (not proven in time)".to_string(),
                    Some(s) => {
                        let mark = if all_known && Some(s) == best {
                            "  <- best"
                        } else {
                            ""
                        };
                        format!(
                            "{}{mark}",
                            hint_words(Score::from_exact(
                                p.size().cells() as i32,
                                p.discs() as i32,
                                s
                            ))
                        )
                    }
                }
            };
            text += &format!("\n  {}: {what}", c + 1);
        }
        self.say(&text)
    }

    fn game_over(&mut self) -> io::Result<()> {
        let four = self.pos.four_cells();
        self.show_board(&four)?;
        let Some(winner) = self.pos.winner() else {
            return self.say("Draw: the board is full.");
        };
        let cells: Vec<String> = four
            .iter()
            .map(|(col, row)| format!("{}/{}", col + 1, row + 1))
            .collect();
        let verdict = if winner == self.person {
            "You win!"
        } else {
            "vier wins."
        };
        let line = format!(
            "{verdict} four in a row (column/row from the bottom): {}",
            cells.join(" ")
        );
        self.say(&line)
    }

    fn after_game(&mut self) -> io::Result<AfterGame> {
        loop {
            let Some(line) = self.read_line("play again? [y/n] ")? else {
                return Ok(AfterGame::Quit);
            };
            match parse_command(&line, self.pos.width()) {
                Command::Yes => return Ok(AfterGame::Again),
                Command::New | Command::Quit => return Ok(AfterGame::Quit),
                Command::Undo => {
                    if self.undo()? {
                        return Ok(AfterGame::Continue);
                    }
                }
                Command::Help => self.say("y: a new game (who goes first swaps), n or q: quit, u: take back your last move")?,
                _ => self.say("the game is over: y for a new game, n to quit, u to take back your last move")?,
            }
        }
    }
}

/// A hint's words for a column's exact score from the person's view.
pub fn hint_words(score: Score) -> String {
    match score {
        Score::Win(1) => "wins at once".into(),
        Score::Win(n) => format!("wins (with your {} disc from now)", ordinal(n)),
        Score::Loss(n) => format!(
            "loses (vier connects four with its {} disc from now)",
            ordinal(n.max(1))
        ),
        Score::Draw => "draws".into(),
        Score::Cp(_) => "unknown".into(),
    }
}

/// A disc in colour. The two sides differ in shape as well (filled and hollow), for players
/// who cannot tell the colours apart.
fn colour_disc(p: Player, highlight: bool) -> String {
    let (colour, disc) = match p {
        Player::First => ("33", '\u{25cf}'),
        Player::Second => ("31", '\u{25cb}'),
    };
    let rev = if highlight { ";7" } else { "" };
    format!("\x1b[1;{colour}{rev}m{disc}\x1b[0m")
}

/// The engine's value in words, from the engine's view; a win or loss the search found but
/// has not proven the distance of is "in at most" so many moves.
pub fn score_words(value: Value) -> String {
    let at_most = if value.bound == ScoreBound::Exact {
        ""
    } else {
        "at most "
    };
    let moves = |n: u32| {
        if n == 1 {
            format!("{at_most}move")
        } else {
            format!("{at_most}{n} moves")
        }
    };
    match value.score {
        Score::Win(1) if at_most.is_empty() => "I win with my next move".into(),
        Score::Win(n) => format!("I win in {}", moves(n)),
        Score::Loss(0) => "you have won".into(),
        Score::Loss(1) if at_most.is_empty() => "you can win with your next move".into(),
        Score::Loss(n) => format!("you can win in {}", moves(n)),
        Score::Draw => "drawn".into(),
        Score::Cp(v) if v >= EVEN_CP => "I am better".into(),
        Score::Cp(v) if v <= -EVEN_CP => "you are better".into(),
        Score::Cp(_) => "even".into(),
    }
}

/// `depth 12, I am better, 12345 nodes` for a report.
fn summary(it: &Report) -> String {
    let words = it
        .lines
        .first()
        .map_or_else(|| "even".to_string(), |l| score_words(l.value));
    format!("depth {}, {words}, {} nodes", it.depth, it.nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(parse_command(" 4 ", 7), Command::Column(4));
        assert!(matches!(parse_command("8", 7), Command::Bad(_)));
        assert!(matches!(parse_command("0", 7), Command::Bad(_)));
        assert!(matches!(
            parse_command("99999999999999999999999", 7),
            Command::Bad(_)
        ));
        assert!(matches!(parse_command("-1", 7), Command::Bad(_)));
        assert_eq!(parse_command("", 7), Command::Empty);
        assert_eq!(parse_command("t 500", 7), Command::Time(500));
        assert!(matches!(parse_command("t", 7), Command::Bad(_)));
        assert!(matches!(parse_command("t 0", 7), Command::Bad(_)));
        assert!(matches!(parse_command("t x", 7), Command::Bad(_)));
        assert_eq!(parse_command("H", 7), Command::Hint);
        assert_eq!(parse_command("?", 7), Command::Help);
        assert!(matches!(parse_command("é\u{0}", 7), Command::Bad(_)));
    }

    #[test]
    fn coloured_discs_differ_in_shape_without_their_colours() {
        let shape = |p, h| {
            let s = colour_disc(p, h);
            // what is left with the escape sequences taken out
            let plain: String = s.split('m').nth(1).unwrap().chars().take(1).collect();
            plain
        };
        for h in [false, true] {
            assert_ne!(shape(Player::First, h), shape(Player::Second, h));
        }
    }

    #[test]
    fn words() {
        assert_eq!(ordinal(1), "1st");
        assert_eq!(ordinal(12), "12th");
        assert_eq!(ordinal(22), "22nd");
        assert_eq!(score_words(Value::exact(Score::Win(7))), "I win in 7 moves");
        let found = Value {
            score: Score::Win(7),
            bound: ScoreBound::Lower,
        };
        assert_eq!(score_words(found), "I win in at most 7 moves");
        assert_eq!(
            score_words(Value::exact(Score::Loss(1))),
            "you can win with your next move"
        );
        assert_eq!(score_words(Value::exact(Score::Cp(0))), "even");
        assert_eq!(score_words(Value::exact(Score::Cp(-80))), "you are better");
        assert_eq!(
            hint_words(Score::Win(5)),
            "wins (with your 5th disc from now)"
        );
    }

    /// Every 5x4 position with up to 4 discs, solved here.
    fn small_book() -> Arc<Book> {
        let plies = crate::book_build::enumerate::<5, 4, u64>(4);
        let solver = std::cell::RefCell::new(crate::solver::Solver::new(4));
        let entries = crate::book_build::complete::<5, 4, u64>(&plies, |k| {
            let p = crate::book::position_from_key::<5, 4, _>(k)?;
            Some(crate::book_build::solve_entry(
                &mut solver.borrow_mut(),
                &p,
                None,
            ))
        })
        .expect("every leaf solved");
        Arc::new(Book::from_entries(5, 4, 4, entries))
    }

    #[test]
    fn book_follows_the_option() {
        let opts = PlayOptions::default();
        assert!(opts.book);
        let start = AnyPosition::empty(Size::default());
        let s = PlaySession::new(&opts, start, io::empty(), io::sink());
        assert_eq!(s.book, Book::embedded());
        let opts = PlayOptions {
            book: false,
            ..Default::default()
        };
        let s = PlaySession::new(&opts, start, io::empty(), io::sink());
        assert!(s.book.is_none());
    }

    #[test]
    fn hints_and_moves_consult_the_book() {
        let opts = PlayOptions {
            size: Size::new(5, 4).unwrap(),
            movetime_ms: 20_000,
            book: false,
            ..Default::default()
        };
        let mut out = Vec::new();
        let start = AnyPosition::empty(opts.size);
        let book = Some(small_book());
        let mut s = PlaySession::with_book(&opts, start, io::empty(), &mut out, book);
        s.hint().unwrap();
        // the empty 5x4 board is a draw; the book answers after depth 1, centre first (a
        // search would use the 20 s and go deeper: the "depth 1" below tells the two apart)
        s.engine_move().unwrap();
        drop(s);
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\n  1: loses "), "{text}");
        assert!(text.contains("\n  3: draws  <- best"), "{text}");
        assert!(!text.contains("unknown"), "{text}");
        assert!(text.contains("\nvier plays 3 (depth 1, drawn, "), "{text}");
    }
}
