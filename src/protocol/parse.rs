//! Parsing of one protocol line (UCI, plus the UGI variant) into a typed [`Command`].
//!
//! [`parse_line`] is pure: no I/O, no engine state. The protocol loop reports
//! an `Err` as `info string error: ...` and carries on, so every rejection is a
//! typed [`ParseError`] whose message names the offending token.
//!
//! nom does the character-level work (splitting the line into tokens, numbers,
//! move tokens); the command grammar then walks the token list, because UCI's
//! rules ("skip unknown tokens", "parameters in any order") are about whole
//! tokens, not characters.

use crate::engine::settings::GO_MOVETIME;
use crate::notation;
use std::fmt;
use std::ops::RangeInclusive;

use nom::{
    branch::alt,
    bytes::complete::{take_till1, take_while},
    character::complete::{char, digit1, one_of, satisfy},
    combinator::{all_consuming, map, map_opt, opt, recognize},
    multi::{many0, many1},
    sequence::{preceded, terminated},
    IResult, Offset, Parser,
};

/// One command received from the GUI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `uci`: identify the engine and list its options.
    Uci,
    /// `ugi`: like `uci`, for GUIs speaking the UGI variant.
    Ugi,
    /// `isready`: answer `readyok` once idle.
    IsReady,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// Option name as written, case kept; inner whitespace collapsed to single spaces.
        name: String,
        /// Everything after `value`, inner whitespace kept verbatim;
        /// `None` for buttons (no `value` token at all).
        value: Option<String>,
    },
    /// `ucinewgame` or `uginewgame`.
    NewGame,
    /// `position (startpos | fen <board>) [moves ...]`.
    Position {
        /// Where the moves start from.
        start: StartPos,
        /// Moves to play from `start`, in order.
        moves: Vec<MoveToken>,
    },
    /// `go ...`: start searching (or run perft).
    Go(GoParams),
    /// `stop`: finish the search and report the best move.
    Stop,
    /// `ponderhit`: the opponent played the pondered move.
    PonderHit,
    /// `quit`: leave as soon as possible.
    Quit,
    /// `debug on` (`true`) or `debug off` (`false`).
    Debug(bool),
    /// `d`: print the current board.
    Display,
    /// `bench`: run the fixed benchmark.
    Bench,
    /// `help`: list the commands (for a person at a terminal).
    Help,
    /// `eval`: print the static evaluation of the current position.
    Eval,
    /// UGI `query ...`.
    Query(Query),
    /// Blank line, or no known command word: nothing to do.
    Empty,
}

/// Starting position of a `position` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartPos {
    /// `startpos`: the empty board, first player to move.
    StartPos,
    /// `fen <board>`: the board tokens re-joined with single spaces.
    ///
    /// Either vier's notation (`7/7/7/7/3o3/2oxx3 x`) or cutechess's `cfour`
    /// FEN; the board module validates it, this parser only collects it.
    Fen(String),
}

/// One move as written on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveToken {
    /// A column, 1-based: one digit (`4`) or one letter of a run (`ddec`, see
    /// [`crate::notation`]).
    Column(u8),
    /// A number of two digits (`44`, `12`): two columns up to 9 columns, the column's number
    /// on wider boards, where a column takes two digits.
    Digits(u8),
    /// One digit of a run of three or more (`4453`): a column on boards of at most 9 columns;
    /// wider boards take no runs of digits.
    RunDigit(u8),
    /// A cutechess drop `P@<file><rank>`; the board checks the rank matches
    /// the column's fill height.
    Drop {
        /// Column, 1-based: `a` = 1 .. `l` = 12.
        file: u8,
        /// Row, 1-based: 1 = bottom.
        rank: u8,
    },
}

impl MoveToken {
    /// The columns the token names on a board `width` columns wide, 1-based: one, or a run of
    /// digits on a board of at most 9 columns.
    pub fn columns(self, width: usize) -> Result<Vec<usize>, String> {
        match self {
            MoveToken::Column(c) => Ok(vec![c as usize]),
            MoveToken::Drop { file, .. } => Ok(vec![file as usize]),
            MoveToken::Digits(n) if width > crate::notation::MAX_DIGIT_WIDTH => Ok(vec![n as usize]),
            MoveToken::Digits(n) if n % 10 == 0 => {
                Err(format!("column 0 in '{n}': columns are 1..{width}"))
            }
            MoveToken::Digits(n) => Ok(vec![n as usize / 10, n as usize % 10]),
            MoveToken::RunDigit(_) if width > crate::notation::MAX_DIGIT_WIDTH => Err(format!(
                "a run of digits on a board of {width} columns: write one number per move, or letters"
            )),
            MoveToken::RunDigit(d) => Ok(vec![d as usize]),
        }
    }
}

/// Parameters of `go`. Absent parameters are `None` / `false` / empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoParams {
    /// `movetime` in ms.
    pub movetime: Option<i64>,
    /// `wtime` (UGI `p1time`): first player's clock in ms, possibly negative.
    pub wtime: Option<i64>,
    /// `btime` (UGI `p2time`): second player's clock in ms, possibly negative.
    pub btime: Option<i64>,
    /// `winc` (UGI `p1inc`): first player's increment in ms.
    pub winc: Option<i64>,
    /// `binc` (UGI `p2inc`): second player's increment in ms.
    pub binc: Option<i64>,
    /// `movestogo`: moves until the next time control.
    pub movestogo: Option<u32>,
    /// `depth`: search depth limit in plies.
    pub depth: Option<u32>,
    /// `nodes`: node limit.
    pub nodes: Option<u64>,
    /// `mate`: look for a win in this many moves.
    pub mate: Option<u32>,
    /// `infinite`: search until `stop`.
    pub infinite: bool,
    /// `ponder`: search in ponder mode until `ponderhit` or `stop`.
    pub ponder: bool,
    /// `searchmoves`: restrict the root to these moves (empty = all).
    pub searchmoves: Vec<MoveToken>,
    /// `perft <depth>`: count leaf nodes instead of searching.
    pub perft: Option<u32>,
}

/// UGI `query` subjects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    /// `query gameover`: is the game finished?
    GameOver,
    /// `query p1turn`: is it the first player's turn?
    P1Turn,
    /// `query result`: the result of the finished game.
    Result,
}

/// Why a line was rejected. The `Display` text names the offending token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// A `go` parameter's value is not a number of the right kind.
    BadNumber {
        /// The parameter as written (`movetime`, `p1time`, ...).
        param: String,
        /// The token that should have been a number.
        token: String,
    },
    /// A `go` parameter's value is a number outside what it accepts.
    OutOfRange {
        /// The parameter as written.
        param: String,
        /// The value as written.
        token: String,
        min: i128,
        max: i128,
    },
    /// A `go` parameter came last, without its value.
    MissingNumber {
        /// The parameter as written.
        param: String,
    },
    /// A move token is malformed (includes column 0 and rank 0).
    BadMove {
        /// The whole offending token.
        token: String,
    },
    /// `setoption` without the `name` keyword.
    MissingOptionName,
    /// `setoption name` followed directly by `value` or nothing.
    EmptyOptionName,
    /// `position` without `startpos` or `fen`.
    MissingStartPos,
    /// `position fen` without any board tokens.
    MissingFen,
    /// A command lacks its required argument (`debug`, `query`).
    MissingArgument {
        /// The command word.
        command: &'static str,
        /// What would have been accepted, for the message.
        expected: &'static str,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadNumber { param, token } => write!(f, "bad number '{token}' for {param}"),
            Self::OutOfRange {
                param,
                token,
                min,
                max,
            } => {
                let bound = if saturating(token) < *min {
                    format!("at least {min}")
                } else {
                    format!("at most {max}")
                };
                write!(f, "{param} {token} is out of range: {bound}")
            }
            Self::MissingNumber { param } => write!(f, "missing number after {param}"),
            Self::BadMove { token } => write!(f, "bad move '{token}'"),
            Self::MissingOptionName => f.write_str("missing 'name' in setoption"),
            Self::EmptyOptionName => f.write_str("empty option name in setoption"),
            Self::MissingStartPos => f.write_str("position needs startpos or fen"),
            Self::MissingFen => f.write_str("missing board after 'fen' in position"),
            Self::MissingArgument { command, expected } => {
                write!(f, "{command} needs {expected}")
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses one protocol line.
///
/// Leading unknown tokens are skipped until a known command word (a whole
/// token, so `ucinewgame` never reads as `uci`); unknown tokens inside a
/// command are skipped too. A line with no known command word is
/// [`Command::Empty`].
pub fn parse_line(line: &str) -> Result<Command, ParseError> {
    let tokens = tokenize(line);
    for (i, &word) in tokens.iter().enumerate() {
        let args = &tokens[i + 1..];
        let command = match word {
            "uci" => Command::Uci,
            "ugi" => Command::Ugi,
            "isready" => Command::IsReady,
            "setoption" => parse_setoption(line, args)?,
            "ucinewgame" | "uginewgame" => Command::NewGame,
            "position" => parse_position(args)?,
            "go" => Command::Go(parse_go(args)?),
            "stop" => Command::Stop,
            "ponderhit" => Command::PonderHit,
            "quit" => Command::Quit,
            "debug" => Command::Debug(parse_debug(args)?),
            "d" => Command::Display,
            "bench" => Command::Bench,
            "eval" => Command::Eval,
            "help" => Command::Help,
            "query" => Command::Query(parse_query(args)?),
            _ => continue,
        };
        return Ok(command);
    }
    Ok(Command::Empty)
}

type NomResult<'a, O> = IResult<&'a str, O, nom::error::Error<&'a str>>;

/// Token separators. `\r` and `\n` count too, so a line read with its
/// terminator (Windows GUIs send `\r\n`) parses the same as a trimmed one.
fn is_separator(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '\x0b' | '\x0c')
}

/// Splits a line into tokens; the slices borrow from `line`, which lets
/// `setoption` recover the verbatim text of a value.
fn tokenize(line: &str) -> Vec<&str> {
    let parsed: NomResult<Vec<&str>> = all_consuming(preceded(
        take_while(is_separator),
        many0(terminated(
            take_till1(is_separator),
            take_while(is_separator),
        )),
    ))
    .parse(line);
    // Every char is either a separator or part of a token, so this cannot
    // fail; an empty list would merely make the line a no-op.
    parsed.map(|(_, tokens)| tokens).unwrap_or_default()
}

/// `setoption name <name...> [value <value...>]`.
fn parse_setoption(line: &str, args: &[&str]) -> Result<Command, ParseError> {
    let name_at = args
        .iter()
        .position(|&t| t == "name")
        .ok_or(ParseError::MissingOptionName)?;
    let rest = &args[name_at + 1..];
    let (name, value) = match rest.iter().position(|&t| t == "value") {
        Some(v) => (&rest[..v], Some(verbatim(line, &rest[v + 1..]))),
        None => (rest, None),
    };
    if name.is_empty() {
        return Err(ParseError::EmptyOptionName);
    }
    Ok(Command::SetOption {
        name: name.join(" "),
        value,
    })
}

/// The text of `line` spanned by `tokens` (which must borrow from it), inner
/// whitespace untouched: option values such as paths may hold double spaces.
fn verbatim(line: &str, tokens: &[&str]) -> String {
    match (tokens.first(), tokens.last()) {
        (Some(first), Some(last)) => {
            line[line.offset(first)..line.offset(last) + last.len()].to_string()
        }
        _ => String::new(),
    }
}

/// `position (startpos | fen <board...>) [moves ...]`.
fn parse_position(args: &[&str]) -> Result<Command, ParseError> {
    let mut i = 0;
    let start = loop {
        match args.get(i) {
            None | Some(&"moves") => return Err(ParseError::MissingStartPos),
            Some(&"startpos") => {
                i += 1;
                break StartPos::StartPos;
            }
            Some(&"fen") => {
                let board: Vec<&str> = args[i + 1..]
                    .iter()
                    .take_while(|&&t| t != "moves")
                    .copied()
                    .collect();
                if board.is_empty() {
                    return Err(ParseError::MissingFen);
                }
                i += 1 + board.len();
                break StartPos::Fen(board.join(" "));
            }
            Some(_) => i += 1,
        }
    };
    let mut moves = Vec::new();
    if let Some(m) = args[i..].iter().position(|&t| t == "moves") {
        for token in &args[i + m + 1..] {
            push_moves(token, &mut moves)?;
        }
    }
    Ok(Command::Position { start, moves })
}

/// Keywords of `go`. One function serves both dispatch and the end of the
/// `searchmoves` list, so the two cannot disagree.
#[derive(Clone, Copy)]
enum GoKey {
    SearchMoves,
    Ponder,
    Infinite,
    WTime,
    BTime,
    WInc,
    BInc,
    MovesToGo,
    Depth,
    Nodes,
    Mate,
    MoveTime,
    Perft,
}

fn go_key(token: &str) -> Option<GoKey> {
    Some(match token {
        "searchmoves" => GoKey::SearchMoves,
        "ponder" => GoKey::Ponder,
        "infinite" => GoKey::Infinite,
        "wtime" | "p1time" => GoKey::WTime,
        "btime" | "p2time" => GoKey::BTime,
        "winc" | "p1inc" => GoKey::WInc,
        "binc" | "p2inc" => GoKey::BInc,
        "movestogo" => GoKey::MovesToGo,
        "depth" => GoKey::Depth,
        "nodes" => GoKey::Nodes,
        "mate" => GoKey::Mate,
        "movetime" => GoKey::MoveTime,
        "perft" => GoKey::Perft,
        _ => return None,
    })
}

/// `go [param ...]`, parameters in any order, later duplicates winning.
fn parse_go(args: &[&str]) -> Result<GoParams, ParseError> {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < args.len() {
        let param = args[i];
        i += 1;
        let Some(key) = go_key(param) else {
            continue; // unknown token: skipped, as UCI asks
        };
        // The value token of a numeric parameter; consumed here so the loop
        // never mistakes a number for a keyword.
        let mut value = || -> Result<&str, ParseError> {
            let token = args.get(i).ok_or_else(|| ParseError::MissingNumber {
                param: param.to_string(),
            })?;
            i += 1;
            Ok(token)
        };
        match key {
            GoKey::Ponder => go.ponder = true,
            GoKey::Infinite => go.infinite = true,
            // `number` checks the value against `go_range`, so every cast below is exact
            GoKey::WTime => go.wtime = Some(number(key, param, value()?)? as i64),
            GoKey::BTime => go.btime = Some(number(key, param, value()?)? as i64),
            GoKey::WInc => go.winc = Some(number(key, param, value()?)? as i64),
            GoKey::BInc => go.binc = Some(number(key, param, value()?)? as i64),
            GoKey::MoveTime => go.movetime = Some(number(key, param, value()?)? as i64),
            GoKey::MovesToGo => go.movestogo = Some(number(key, param, value()?)? as u32),
            GoKey::Depth => go.depth = Some(number(key, param, value()?)? as u32),
            GoKey::Mate => go.mate = Some(number(key, param, value()?)? as u32),
            GoKey::Perft => go.perft = Some(number(key, param, value()?)? as u32),
            GoKey::Nodes => go.nodes = Some(number(key, param, value()?)? as u64),
            GoKey::SearchMoves => {
                while let Some(token) = args.get(i).filter(|t| go_key(t).is_none()) {
                    push_moves(token, &mut go.searchmoves)?;
                    i += 1;
                }
            }
        }
    }
    Ok(go)
}

/// `debug on|off`; unknown tokens before the switch are skipped.
fn parse_debug(args: &[&str]) -> Result<bool, ParseError> {
    args.iter()
        .find_map(|&t| match t {
            "on" => Some(true),
            "off" => Some(false),
            _ => None,
        })
        .ok_or(ParseError::MissingArgument {
            command: "debug",
            expected: "'on' or 'off'",
        })
}

/// UGI `query gameover|p1turn|result`.
fn parse_query(args: &[&str]) -> Result<Query, ParseError> {
    args.iter()
        .find_map(|&t| match t {
            "gameover" => Some(Query::GameOver),
            "p1turn" => Some(Query::P1Turn),
            "result" => Some(Query::Result),
            _ => None,
        })
        .ok_or(ParseError::MissingArgument {
            command: "query",
            expected: "'gameover', 'p1turn' or 'result'",
        })
}

/// The values a numeric `go` parameter accepts, the one place that says so: a value outside is
/// refused with `info string error:` and the `go` changes nothing (issue 68: `movetime 0`, `-5`
/// and `18446744073709551616` were taken silently). Times are milliseconds.
fn go_range(key: GoKey) -> RangeInclusive<i128> {
    let ms = i128::from(GO_MOVETIME.max);
    let count = i128::from(u32::MAX);
    match key {
        // a clock that has run out still wants a move (cutechess's `timemargin` lets a game go
        // on below zero and sends the clock as it is); it counts as 1 ms
        GoKey::WTime | GoKey::BTime => i128::from(i64::MIN)..=ms,
        GoKey::WInc | GoKey::BInc => 0..=ms,
        GoKey::MoveTime => i128::from(GO_MOVETIME.min)..=ms,
        GoKey::Depth => 1..=count,
        GoKey::Nodes => 1..=i128::from(u64::MAX),
        GoKey::MovesToGo | GoKey::Mate | GoKey::Perft => 0..=count,
        // no value
        GoKey::SearchMoves | GoKey::Ponder | GoKey::Infinite => 0..=0,
    }
}

/// A number (optional sign, digits) within [`go_range`] of `key`.
fn number(key: GoKey, param: &str, token: &str) -> Result<i128, ParseError> {
    let digits: NomResult<&str> =
        all_consuming(recognize((opt(one_of("+-")), digit1))).parse(token);
    let (_, digits) = digits.map_err(|_| bad_number(param, token))?;
    let range = go_range(key);
    let value = saturating(digits);
    if range.contains(&value) {
        return Ok(value);
    }
    Err(ParseError::OutOfRange {
        param: param.to_string(),
        token: token.to_string(),
        min: *range.start(),
        max: *range.end(),
    })
}

/// Signed digits as a number; only overflow can make `parse` fail after the grammar check, and
/// then it is past every range.
fn saturating(digits: &str) -> i128 {
    digits.parse().unwrap_or(if digits.starts_with('-') {
        i128::MIN
    } else {
        i128::MAX
    })
}

fn bad_number(param: &str, token: &str) -> ParseError {
    ParseError::BadNumber {
        param: param.to_string(),
        token: token.to_string(),
    }
}

/// cutechess drop `P@d1` (either case of `P`, files `a`..`m`, rank >= 1), read by
/// [`notation::parse_drop`].
fn drop_move(input: &str) -> NomResult<'_, MoveToken> {
    map_opt(
        recognize((
            one_of("Pp"),
            char('@'),
            satisfy(|c| c.is_ascii_lowercase()),
            digit1,
        )),
        |t: &str| {
            let (col, rank) = notation::parse_drop(t)?;
            Some(MoveToken::Drop {
                file: col as u8 + 1,
                rank: u8::try_from(rank).ok()?,
            })
        },
    )
    .parse(input)
}

/// One column digit 1..9 (`4`), two digits (`44`, `12`: read with the board's width), a run of
/// three or more digits 1..9 (`4453`), or a run of column letters (`ddec`, `j`).
fn column_run(input: &str) -> NomResult<'_, Vec<MoveToken>> {
    let digit = |c: u8| c - b'0';
    alt((
        map_opt(
            recognize((satisfy(|c| ('1'..='9').contains(&c)), opt(digit1))),
            move |d: &str| match d.as_bytes() {
                &[a] => Some(vec![MoveToken::Column(digit(a))]),
                &[a, b] => Some(vec![MoveToken::Digits(digit(a) * 10 + digit(b))]),
                run if !run.contains(&b'0') => {
                    Some(run.iter().map(|&c| MoveToken::RunDigit(digit(c))).collect())
                }
                _ => None,
            },
        ),
        many1(map(
            satisfy(|c| c.is_ascii_lowercase() && c <= crate::notation::LAST_LETTER),
            |c| MoveToken::Column(c as u8 - b'a' + 1),
        )),
    ))
    .parse(input)
}

/// Appends the move(s) in one token, or rejects the whole token.
fn push_moves(token: &str, out: &mut Vec<MoveToken>) -> Result<(), ParseError> {
    let parsed: NomResult<Vec<MoveToken>> =
        all_consuming(alt((map(drop_move, |m| vec![m]), column_run))).parse(token);
    let (_, moves) = parsed.map_err(|_| ParseError::BadMove {
        token: token.to_string(),
    })?;
    out.extend(moves);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Command {
        parse_line(line).unwrap_or_else(|e| panic!("{line:?} rejected: {e}"))
    }

    fn go(line: &str) -> GoParams {
        match ok(line) {
            Command::Go(p) => p,
            other => panic!("{line:?} gave {other:?}"),
        }
    }

    fn err(line: &str) -> ParseError {
        match parse_line(line) {
            Err(e) => e,
            Ok(c) => panic!("{line:?} accepted as {c:?}"),
        }
    }

    fn position(line: &str) -> (StartPos, Vec<MoveToken>) {
        match ok(line) {
            Command::Position { start, moves } => (start, moves),
            other => panic!("{line:?} gave {other:?}"),
        }
    }

    fn cols(cs: &[u8]) -> Vec<MoveToken> {
        cs.iter().map(|&c| MoveToken::Column(c)).collect()
    }

    #[test]
    fn simple_commands() {
        assert_eq!(ok("uci"), Command::Uci);
        assert_eq!(ok("ugi"), Command::Ugi);
        assert_eq!(ok("isready"), Command::IsReady);
        assert_eq!(ok("ucinewgame"), Command::NewGame);
        assert_eq!(ok("uginewgame"), Command::NewGame);
        assert_eq!(ok("stop"), Command::Stop);
        assert_eq!(ok("ponderhit"), Command::PonderHit);
        assert_eq!(ok("quit"), Command::Quit);
        assert_eq!(ok("d"), Command::Display);
        assert_eq!(ok("bench"), Command::Bench);
        assert_eq!(ok("help"), Command::Help);
        assert_eq!(ok("eval"), Command::Eval);
        assert_eq!(ok("debug on"), Command::Debug(true));
        assert_eq!(ok("debug off"), Command::Debug(false));
    }

    #[test]
    fn empty_and_unknown_lines() {
        for line in [
            "",
            " ",
            "\t \t",
            "\r\n",
            "\n",
            "hello world",
            "register later",
        ] {
            assert_eq!(ok(line), Command::Empty, "{line:?}");
        }
    }

    #[test]
    fn junk_before_and_after_commands() {
        assert_eq!(ok("joho debug on"), Command::Debug(true));
        assert_eq!(ok("xyzzy 42 isready"), Command::IsReady);
        assert_eq!(ok("uci please now"), Command::Uci);
        assert_eq!(ok("quit 0"), Command::Quit);
        assert_eq!(ok("debug maybe on"), Command::Debug(true));
        assert_eq!(ok("foo bar go foo movetime 100 baz"), {
            Command::Go(GoParams {
                movetime: Some(100),
                ..GoParams::default()
            })
        });
        assert_eq!(
            position("hmm position foo startpos bar moves 4"),
            (StartPos::StartPos, cols(&[4]))
        );
        assert_eq!(
            ok("setoption junk name Hash value 1"),
            Command::SetOption {
                name: "Hash".into(),
                value: Some("1".into())
            }
        );
    }

    #[test]
    fn whitespace_tabs_and_carriage_returns() {
        assert_eq!(ok("  \t isready \t\r\n"), Command::IsReady);
        assert_eq!(ok("isready\r"), Command::IsReady);
        assert_eq!(
            go("go\twtime\t\t1000   btime \t 2000\r"),
            GoParams {
                wtime: Some(1000),
                btime: Some(2000),
                ..GoParams::default()
            }
        );
        assert_eq!(
            position("\tposition   startpos\tmoves 4\t\t4  5 \r"),
            (StartPos::StartPos, cols(&[4, 4, 5]))
        );
    }

    #[test]
    fn prefix_traps() {
        assert_eq!(ok("ucinewgame"), Command::NewGame);
        assert_eq!(ok("ucix"), Command::Empty);
        assert_eq!(ok("isreadyx"), Command::Empty);
        assert_eq!(ok("xisready"), Command::Empty);
        assert_eq!(ok("gox"), Command::Empty);
        assert_eq!(ok("gox movetime 100"), Command::Empty);
        assert_eq!(ok("dd"), Command::Empty);
        assert_eq!(ok("display"), Command::Empty);
        assert_eq!(ok("debugon"), Command::Empty);
        assert_eq!(ok("stopp"), Command::Empty);
        assert_eq!(ok("dd d"), Command::Display);
        assert_eq!(ok("isreadyx isready"), Command::IsReady);
        // Command words are case sensitive, as in UCI.
        assert_eq!(ok("UCI"), Command::Empty);
    }

    #[test]
    fn go_every_parameter() {
        let p = go(
            "go wtime 1 btime 2 winc 3 binc 4 movestogo 5 depth 6 nodes 7 mate 8 \
             movetime 9 infinite ponder searchmoves 1 P@b1 34 perft 10",
        );
        assert_eq!(
            p,
            GoParams {
                movetime: Some(9),
                wtime: Some(1),
                btime: Some(2),
                winc: Some(3),
                binc: Some(4),
                movestogo: Some(5),
                depth: Some(6),
                nodes: Some(7),
                mate: Some(8),
                infinite: true,
                ponder: true,
                searchmoves: vec![
                    MoveToken::Column(1),
                    MoveToken::Drop { file: 2, rank: 1 },
                    MoveToken::Digits(34),
                ],
                perft: Some(10),
            }
        );
        assert_eq!(go("go"), GoParams::default());
        assert_eq!(go("go perft 5").perft, Some(5));
        assert!(go("go infinite").infinite);
    }

    #[test]
    fn go_parameters_in_any_order() {
        let a = go("go movetime 50 depth 3 btime 7 wtime 8");
        let b = go("go wtime 8 btime 7 depth 3 movetime 50");
        let c = go("go depth 3 wtime 8 movetime 50 btime 7");
        assert_eq!(a, b);
        assert_eq!(b, c);
        // searchmoves ends at the next keyword, wherever it stands.
        let d = go("go searchmoves 4 5 depth 2 ponder");
        assert_eq!(d.searchmoves, cols(&[4, 5]));
        assert_eq!(d.depth, Some(2));
        assert!(d.ponder);
        // A repeated parameter: the last one wins.
        assert_eq!(go("go depth 2 depth 9").depth, Some(9));
    }

    #[test]
    fn go_clock_extremes() {
        let p = go("go wtime -500 btime -1 winc -0 binc +20");
        assert_eq!(
            (p.wtime, p.btime, p.winc, p.binc),
            (Some(-500), Some(-1), Some(0), Some(20))
        );
        let p = go("go wtime 9223372036854775807 btime -9223372036854775808 \
                    movetime 9223372036854775807");
        assert_eq!(p.wtime, Some(i64::MAX));
        assert_eq!(p.btime, Some(i64::MIN));
        assert_eq!(p.movetime, Some(i64::MAX));
        let p = go("go depth 4294967295 nodes 18446744073709551615 mate 4294967295 perft 0");
        assert_eq!(p.depth, Some(u32::MAX));
        assert_eq!(p.nodes, Some(u64::MAX));
        assert_eq!(p.mate, Some(u32::MAX));
        assert_eq!(p.perft, Some(0));
    }

    #[test]
    fn go_values_out_of_range_are_refused_with_the_range() {
        for (line, param, token, said) in [
            ("go movetime -5", "movetime", "-5", "at least 1"),
            ("go movetime 0", "movetime", "0", "at least 1"),
            ("go movetime -0", "movetime", "-0", "at least 1"),
            (
                "go movetime 18446744073709551616",
                "movetime",
                "18446744073709551616",
                "at most 9223372036854775807",
            ),
            (
                "go wtime 99999999999999999999999999",
                "wtime",
                "99999999999999999999999999",
                "at most 9223372036854775807",
            ),
            (
                "go p2time -99999999999999999999999",
                "p2time",
                "-99999999999999999999999",
                "at least -9223372036854775808",
            ),
            ("go winc -1", "winc", "-1", "at least 0"),
            ("go p2inc -20", "p2inc", "-20", "at least 0"),
            ("go nodes 0", "nodes", "0", "at least 1"),
            (
                "go nodes 18446744073709551616",
                "nodes",
                "18446744073709551616",
                "at most 18446744073709551615",
            ),
            ("go depth 0", "depth", "0", "at least 1"),
            ("go depth -3", "depth", "-3", "at least 1"),
            (
                "go depth 4294967296",
                "depth",
                "4294967296",
                "at most 4294967295",
            ),
            (
                "go mate 99999999999",
                "mate",
                "99999999999",
                "at most 4294967295",
            ),
            (
                "go movestogo 1000000000000000000000000000000000000000000000000",
                "movestogo",
                "1000000000000000000000000000000000000000000000000",
                "at most 4294967295",
            ),
        ] {
            let e = err(line);
            assert!(
                matches!(&e, ParseError::OutOfRange { param: p, token: t, .. } if p == param && t == token),
                "{line}: {e:?}"
            );
            assert_eq!(
                e.to_string(),
                format!("{param} {token} is out of range: {said}")
            );
        }
    }

    #[test]
    fn go_ugi_clock_names() {
        assert_eq!(
            go("go p1time 60000 p2time 59000 p1inc 100 p2inc 200"),
            GoParams {
                wtime: Some(60000),
                btime: Some(59000),
                winc: Some(100),
                binc: Some(200),
                ..GoParams::default()
            }
        );
    }

    #[test]
    fn go_bad_numbers() {
        let e = err("go movetime x12");
        assert_eq!(
            e,
            ParseError::BadNumber {
                param: "movetime".into(),
                token: "x12".into()
            }
        );
        assert_eq!(e.to_string(), "bad number 'x12' for movetime");
        for (line, param, token) in [
            ("go wtime 12x", "wtime", "12x"),
            ("go p1time 1.5", "p1time", "1.5"),
            ("go nodes 1e6", "nodes", "1e6"),
            ("go mate --1", "mate", "--1"),
            ("go perft five", "perft", "five"),
            ("go movestogo +", "movestogo", "+"),
            ("go depth movetime 100", "depth", "movetime"),
            ("go binc ５", "binc", "５"),
        ] {
            assert_eq!(
                err(line),
                ParseError::BadNumber {
                    param: param.into(),
                    token: token.into()
                },
                "{line}"
            );
        }
        let e = err("go depth");
        assert_eq!(
            e,
            ParseError::MissingNumber {
                param: "depth".into()
            }
        );
        assert_eq!(e.to_string(), "missing number after depth");
    }

    #[test]
    fn position_startpos() {
        assert_eq!(position("position startpos"), (StartPos::StartPos, vec![]));
        assert_eq!(
            position("position startpos moves"),
            (StartPos::StartPos, vec![])
        );
        assert_eq!(
            position("position startpos moves 4 4 5 3"),
            (StartPos::StartPos, cols(&[4, 4, 5, 3]))
        );
    }

    #[test]
    fn move_notations() {
        // A digit run, two digits and letters are the same as separate digits on 7 columns.
        let on = |line: &str, width: usize| -> Vec<usize> {
            position(line)
                .1
                .into_iter()
                .flat_map(|m| m.columns(width).unwrap())
                .collect()
        };
        for line in [
            "position startpos moves 4453",
            "position startpos moves 44 53",
            "position startpos moves ddec",
            "position startpos moves dd e 3",
        ] {
            assert_eq!(on(line, 7), vec![4, 4, 5, 3], "{line}");
        }
        // From 10 columns on, two digits are one column, and letters reach column 12.
        assert_eq!(
            on("position startpos moves 10 12 4 jl P@l1", 12),
            vec![10, 12, 4, 10, 12, 12]
        );
        let run = position("position startpos moves 4453").1;
        assert!(run[0].columns(10).is_err(), "no digit runs on 10 columns");
        assert!(MoveToken::Digits(40).columns(7).is_err(), "column 0");
        assert_eq!(
            position("position startpos moves P@d1 p@d2 P@i6").1,
            vec![
                MoveToken::Drop { file: 4, rank: 1 },
                MoveToken::Drop { file: 4, rank: 2 },
                MoveToken::Drop { file: 9, rank: 6 },
            ]
        );
        // All three forms mixed on one line.
        assert_eq!(
            position("position startpos moves 44 P@e1 3 19 p@a12").1,
            vec![
                MoveToken::Digits(44),
                MoveToken::Drop { file: 5, rank: 1 },
                MoveToken::Column(3),
                MoveToken::Digits(19),
                MoveToken::Drop { file: 1, rank: 12 },
            ]
        );
    }

    #[test]
    fn bad_moves_reject_the_command() {
        let e = err("position startpos moves 4 P@z9 5");
        assert_eq!(
            e,
            ParseError::BadMove {
                token: "P@z9".into()
            }
        );
        assert_eq!(e.to_string(), "bad move 'P@z9'");
        for bad in [
            "0", "405", "4a", "a4", "dn", "P@d0", "P@d", "P@", "Q@d1", "P@D1", "P@n1", "P@d1x",
            "P@d256", "Pd1", "@d1", "-4", "４", "P@d-1",
        ] {
            assert_eq!(
                err(&format!("position startpos moves 4 {bad}")),
                ParseError::BadMove { token: bad.into() },
                "{bad}"
            );
            assert_eq!(
                err(&format!("go searchmoves {bad}")),
                ParseError::BadMove { token: bad.into() },
                "{bad}"
            );
        }
    }

    #[test]
    fn position_fen_both_notations() {
        assert_eq!(
            position("position fen 7/7/7/7/3o3/2oxx3 x"),
            (StartPos::Fen("7/7/7/7/3o3/2oxx3 x".into()), vec![])
        );
        assert_eq!(
            position("position   fen\t7/7/7/7/3o3/2oxx3   o  moves 12 P@a1"),
            (
                StartPos::Fen("7/7/7/7/3o3/2oxx3 o".into()),
                vec![MoveToken::Digits(12), MoveToken::Drop { file: 1, rank: 1 }]
            )
        );
        let cfour = "7/7/7/7/7/7[PPPPPPPPPPPPPPPPPPPPPppppppppppppppppppppp] w - - 0 1";
        assert_eq!(
            position(&format!("position fen {cfour} moves P@d1 P@d2")),
            (
                StartPos::Fen(cfour.into()),
                vec![
                    MoveToken::Drop { file: 4, rank: 1 },
                    MoveToken::Drop { file: 4, rank: 2 }
                ]
            )
        );
    }

    #[test]
    fn position_errors() {
        for line in ["position", "position moves 4", "position foo"] {
            let e = err(line);
            assert_eq!(e, ParseError::MissingStartPos, "{line}");
            assert_eq!(e.to_string(), "position needs startpos or fen");
        }
        assert_eq!(err("position fen"), ParseError::MissingFen);
        assert_eq!(err("position fen moves 4"), ParseError::MissingFen);
    }

    #[test]
    fn setoption_names_and_values() {
        assert_eq!(
            ok("setoption name Hash value 64"),
            Command::SetOption {
                name: "Hash".into(),
                value: Some("64".into())
            }
        );
        // Button: no value at all; multi-word name, case kept, single-spaced.
        assert_eq!(
            ok("setoption name  Clear\tHash "),
            Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }
        );
        // Value keeps its inner whitespace verbatim.
        assert_eq!(
            ok("setoption name Book File value C:\\My  Books\\four.bin \r"),
            Command::SetOption {
                name: "Book File".into(),
                value: Some("C:\\My  Books\\four.bin".into())
            }
        );
        // `value` with nothing after it is an empty string, not a button.
        assert_eq!(
            ok("setoption name SyzygyPath value"),
            Command::SetOption {
                name: "SyzygyPath".into(),
                value: Some(String::new())
            }
        );
        let e = err("setoption Hash value 64");
        assert_eq!(e, ParseError::MissingOptionName);
        assert_eq!(e.to_string(), "missing 'name' in setoption");
        assert_eq!(err("setoption name"), ParseError::EmptyOptionName);
        assert_eq!(err("setoption name value 3"), ParseError::EmptyOptionName);
    }

    #[test]
    fn debug_and_query() {
        assert_eq!(ok("query gameover"), Command::Query(Query::GameOver));
        assert_eq!(ok("query p1turn"), Command::Query(Query::P1Turn));
        assert_eq!(ok("query  result "), Command::Query(Query::Result));
        assert_eq!(
            err("query"),
            ParseError::MissingArgument {
                command: "query",
                expected: "'gameover', 'p1turn' or 'result'"
            }
        );
        assert_eq!(err("query winner").to_string(), {
            "query needs 'gameover', 'p1turn' or 'result'"
        });
        assert_eq!(err("debug").to_string(), "debug needs 'on' or 'off'");
        assert_eq!(err("debug ON").to_string(), "debug needs 'on' or 'off'");
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        fn separator() -> impl Strategy<Value = &'static str> {
            prop::sample::select(vec![" ", "\t", "  ", " \t ", "\t\t", " \r "])
        }

        /// A move and one way of writing it.
        fn move_token() -> impl Strategy<Value = (MoveToken, String)> {
            prop_oneof![
                (1u8..=9).prop_map(|c| (MoveToken::Column(c), c.to_string())),
                (1u8..=9, 1u8..=u8::MAX, any::<bool>()).prop_map(|(file, rank, upper)| {
                    let p = if upper { 'P' } else { 'p' };
                    let f = char::from(b'a' + file - 1);
                    (MoveToken::Drop { file, rank }, format!("{p}@{f}{rank}"))
                }),
            ]
        }

        /// GoParams plus its tokens grouped per parameter (so groups can be
        /// shuffled without splitting a keyword from its value).
        fn go_command() -> impl Strategy<Value = (GoParams, Vec<Vec<String>>)> {
            use proptest::option::of;
            // every value within its `go_range`
            let clocks = (
                of(1..=i64::MAX),
                of(any::<i64>()),
                of(any::<i64>()),
                of(0..=i64::MAX),
                of(0..=i64::MAX),
                any::<[bool; 4]>(),
            );
            let counts = (
                of(any::<u32>()),
                of(1..=u32::MAX),
                of(1..=u64::MAX),
                of(any::<u32>()),
                of(any::<u32>()),
            );
            let rest = (
                any::<bool>(),
                any::<bool>(),
                prop::collection::vec(move_token(), 0..6),
            );
            (clocks, counts, rest).prop_map(|(clocks, counts, rest)| {
                let (movetime, wtime, btime, winc, binc, ugi) = clocks;
                let (movestogo, depth, nodes, mate, perft) = counts;
                let (infinite, ponder, moves) = rest;
                let mut groups: Vec<Vec<String>> = Vec::new();
                let mut num = |key: &str, v: Option<String>| {
                    if let Some(v) = v {
                        groups.push(vec![key.to_string(), v]);
                    }
                };
                let pick = |u: bool, a: &'static str, b: &'static str| if u { a } else { b };
                num("movetime", movetime.map(|v| v.to_string()));
                num(
                    pick(ugi[0], "p1time", "wtime"),
                    wtime.map(|v| v.to_string()),
                );
                num(
                    pick(ugi[1], "p2time", "btime"),
                    btime.map(|v| v.to_string()),
                );
                num(pick(ugi[2], "p1inc", "winc"), winc.map(|v| v.to_string()));
                num(pick(ugi[3], "p2inc", "binc"), binc.map(|v| v.to_string()));
                num("movestogo", movestogo.map(|v| v.to_string()));
                num("depth", depth.map(|v| v.to_string()));
                num("nodes", nodes.map(|v| v.to_string()));
                num("mate", mate.map(|v| v.to_string()));
                num("perft", perft.map(|v| v.to_string()));
                if infinite {
                    groups.push(vec!["infinite".into()]);
                }
                if ponder {
                    groups.push(vec!["ponder".into()]);
                }
                let searchmoves: Vec<MoveToken> = moves.iter().map(|(m, _)| *m).collect();
                if !moves.is_empty() {
                    let mut g = vec!["searchmoves".to_string()];
                    g.extend(moves.into_iter().map(|(_, s)| s));
                    groups.push(g);
                }
                let params = GoParams {
                    movetime,
                    wtime,
                    btime,
                    winc,
                    binc,
                    movestogo,
                    depth,
                    nodes,
                    mate,
                    infinite,
                    ponder,
                    searchmoves,
                    perft,
                };
                (params, groups)
            })
        }

        /// Lines made of protocol words and junk, to reach deep code paths
        /// that random unicode almost never hits.
        fn protocol_ish() -> impl Strategy<Value = String> {
            let word = prop_oneof![
                prop::sample::select(
                    "uci ugi isready setoption name value ucinewgame uginewgame position \
                     startpos fen moves go wtime btime winc binc p1time p2time p1inc p2inc \
                     movestogo depth nodes mate movetime infinite ponder searchmoves perft \
                     stop ponderhit quit debug on off d bench eval query gameover p1turn \
                     result P@d1 p@ P@i255 4453 0 -1 99999999999999999999999"
                        .split_whitespace()
                        .collect::<Vec<_>>(),
                )
                .prop_map(String::from),
                "\\PC{0,6}",
            ];
            (
                prop::collection::vec(word, 0..16),
                prop::collection::vec(separator(), 16),
            )
                .prop_map(|(words, seps)| {
                    words
                        .iter()
                        .zip(seps)
                        .flat_map(|(w, s)| [w.as_str(), s])
                        .collect()
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            #[test]
            fn never_panics_on_unicode(line in any::<String>()) {
                let _ = parse_line(&line);
            }

            #[test]
            fn never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
                let _ = parse_line(&String::from_utf8_lossy(&bytes));
            }

            #[test]
            fn never_panics_on_protocol_like_lines(line in protocol_ish()) {
                let _ = parse_line(&line);
            }

            #[test]
            fn go_round_trips_in_any_order(
                (params, groups) in go_command().prop_flat_map(|(p, g)| {
                    (Just(p), Just(g).prop_shuffle())
                }),
                seps in prop::collection::vec(separator(), 64),
                lead in separator(),
            ) {
                let tokens: Vec<String> =
                    std::iter::once("go".to_string()).chain(groups.into_iter().flatten()).collect();
                let mut line = lead.to_string();
                for (token, sep) in tokens.iter().zip(seps.iter().cycle()) {
                    line.push_str(token);
                    line.push_str(sep);
                }
                prop_assert_eq!(parse_line(&line), Ok(Command::Go(params)), "line {:?}", line);
            }
        }
    }
}
