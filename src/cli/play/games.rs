//! The games of one `vier play` run: what the person types, the engine's moves, the hints.

use super::{draw, First, PlayOptions, HINT_HASH_MB};
use crate::board::{AnyPosition, Player, Record};
use crate::engine::settings::{MOVETIME, SKILL};
use crate::engine::{proven, Engine, Handle, Limits, Report, Request, Settings, SolverPool};
use std::io::{self, BufRead, Write};
use std::time::Duration;

/// What the person typed.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Command {
    Column(usize),
    Hint,
    Undo,
    New,
    Time(u64),
    /// A skill level (the top one the full engine).
    Skill(u64),
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
            [ms] => match ms.parse::<i128>().map(|n| MOVETIME.check(n)) {
                Ok(Ok(ms)) => Command::Time(ms),
                _ => Command::Bad(format!(
                    "'{ms}' is not a time: type t and milliseconds, {} to {}, e.g. t 500",
                    MOVETIME.min, MOVETIME.max
                )),
            },
            _ => Command::Bad(
                "type t and the engine's time per move in milliseconds, e.g. t 500".into(),
            ),
        },
        "l" | "level" | "skill" => match rest.as_slice() {
            [n] => match parse_skill(n) {
                Ok(skill) => Command::Skill(skill),
                Err(e) => Command::Bad(e),
            },
            _ => Command::Bad(format!(
                "type l and a skill level, {} (a beginner) to {} (full strength), e.g. l 3",
                SKILL.min, SKILL.max
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

/// A skill level as typed (`l N`), checked against the engine's `Skill Level`.
pub fn parse_skill(s: &str) -> Result<u64, String> {
    match s.parse::<i128>().map(|n| SKILL.check(n)) {
        Ok(Ok(n)) => Ok(n),
        _ => Err(format!(
            "'{s}' is not a skill level: {} (a beginner) to {} (full strength)",
            SKILL.min, SKILL.max
        )),
    }
}

/// The state of the games of one `vier play` run.
pub struct PlaySession<'a, R: BufRead, O: Write> {
    opts: &'a PlayOptions,
    input: R,
    out: O,
    /// The game: every one starts at the same position.
    record: Record,
    pos: AnyPosition,
    /// The person's side in the current game.
    person: Player,
    movetime_ms: u64,
    /// The engine's settings now (`l N` changes the skill level mid-game).
    settings: Settings,
    /// The engine that plays, made at its first move.
    engine: Option<Engine>,
    /// Exact values for the hints, with the book the engine consults.
    hints: SolverPool,
}

/// What to do after a line at the end of a game.
enum AfterGame {
    Again,
    Continue,
    Quit,
}

impl<'a, R: BufRead, O: Write> PlaySession<'a, R, O> {
    pub fn new(opts: &'a PlayOptions, start: AnyPosition, input: R, out: O) -> Self {
        let mover = start.side_to_move();
        let person = match opts.first {
            First::Me => mover,
            First::Engine => mover.other(),
        };
        let settings = opts.settings.clone();
        PlaySession {
            opts,
            input,
            out,
            record: Record::new(start),
            pos: start,
            person,
            movetime_ms: opts.movetime_ms.max(1),
            hints: SolverPool::new(settings.consulted_book(), HINT_HASH_MB),
            settings,
            engine: None,
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
                    self.settings.strength.skill = skill;
                    let line = format!("vier now plays at {}", draw::skill_words(skill));
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
        if self.record.play(col).is_ok() {
            self.pos = self.record.position();
        }
    }

    fn glyph(&self, p: Player, highlight: bool) -> String {
        draw::glyph(p, highlight, self.opts.color)
    }

    fn side_name(&self, p: Player) -> String {
        format!(
            "{} {}",
            self.glyph(p, false),
            if p == self.person { "(you)" } else { "(vier)" }
        )
    }

    fn announce_game(&mut self) -> io::Result<()> {
        let first = self.record.start().side_to_move();
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
            match self.settings.skill() {
                Some(s) => format!(" at {}", draw::skill_words(s.level)),
                None => String::new(),
            }
        );
        self.say(&line)
    }

    fn new_game(&mut self) -> io::Result<()> {
        self.person = self.person.other();
        self.record.restart();
        self.pos = self.record.position();
        self.announce_game()
    }

    /// Draws the board; `four` lists the cells (column, row from the bottom) to highlight.
    fn show_board(&mut self, four: &[(usize, usize)]) -> io::Result<()> {
        let last = self.record.moves().last().copied();
        let text = draw::board(&self.pos, last, four, self.opts.color);
        write!(self.out, "{text}")
    }

    fn show_to_move(&mut self) -> io::Result<()> {
        let mover = self.pos.side_to_move();
        let last = match self.record.moves().last() {
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
            SKILL.max,
            self.settings.strength.skill
        );
        self.say(&text)
    }

    /// Takes back moves until the person's last move is undone. Returns whether anything changed.
    fn undo(&mut self) -> io::Result<bool> {
        let person = self.person;
        let Some(taken) = self.record.undo_until(|p| p.side_to_move() == person) else {
            self.say("nothing to take back")?;
            return Ok(false);
        };
        self.pos = self.record.position();
        let taken: Vec<String> = taken.iter().map(|c| (c + 1).to_string()).collect();
        self.say(&format!("took back {}", taken.join(" and ")))?;
        Ok(true)
    }

    fn engine_move(&mut self) -> io::Result<()> {
        let request = self.settings.request(
            Request::movetime(self.movetime_ms).time,
            Limits {
                multipv: 1,
                ..Limits::default()
            },
        );
        let live = self.opts.live;
        if live {
            write!(self.out, "vier thinks...")?;
            self.out.flush()?;
        }
        let engine = match &mut self.engine {
            Some(e) => {
                let _ = e.configure(&self.settings, &|| false);
                e
            }
            None => {
                let e = Engine::with_settings(&self.settings)
                    .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e.to_string()))?;
                self.engine.insert(e)
            }
        };
        let out = &mut self.out;
        let mut failed: Option<io::Error> = None;
        let mut report = |it: &Report| {
            if !live || failed.is_some() {
                return;
            }
            let line = format!("\r\x1b[2Kvier thinks: {}", draw::summary(it));
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
        let line = format!("vier plays {} ({})", col + 1, draw::summary(&thought.last));
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
                        format!("{}{mark}", draw::hint_words(proven(&p, s).score))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Size;
    use crate::book::Book;
    use std::sync::Arc;

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
        assert!(opts.settings.own_book);
        let start = AnyPosition::empty(Size::default());
        let s = PlaySession::new(&opts, start, io::empty(), io::sink());
        assert_eq!(s.settings.consulted_book(), Book::embedded());
        let mut opts = PlayOptions::default();
        opts.settings.own_book = false;
        let s = PlaySession::new(&opts, start, io::empty(), io::sink());
        assert!(s.settings.consulted_book().is_none());
    }

    #[test]
    fn hints_and_moves_consult_the_book() {
        let mut opts = PlayOptions {
            movetime_ms: 20_000,
            ..Default::default()
        };
        opts.settings.size = Size::new(5, 4).unwrap();
        opts.settings.book = Some(small_book());
        let mut out = Vec::new();
        let start = AnyPosition::empty(opts.settings.size);
        let mut s = PlaySession::new(&opts, start, io::empty(), &mut out);
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
