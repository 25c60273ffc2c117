//! One engine child process spoken to over the line protocol of `protocol.md`, and the parsing
//! of what it says. Moves may come back as column digits or as cutechess drops (`P@d1`).

use crate::notation;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::time::timeout;

/// How to start the engine: a program and its arguments.
#[derive(Clone, Debug)]
pub struct EngineCmd {
    pub program: String,
    pub args: Vec<String>,
}

impl EngineCmd {
    /// `--engine CMD` split at whitespace (no shell: nothing in it is interpreted).
    pub fn parse(cmd: &str) -> Result<EngineCmd, String> {
        let mut words = cmd.split_whitespace().map(str::to_string);
        let program = words
            .next()
            .ok_or_else(|| "the engine command is empty".to_string())?;
        Ok(EngineCmd {
            program,
            args: words.collect(),
        })
    }
}

/// Longest wait for the handshake and for `readyok`: an engine slower than this is hung.
const HANDSHAKE: Duration = Duration::from_secs(10);
/// The longest line an engine may write: vier's longest, an `info` line with its principal
/// variation across the largest board, has a few hundred bytes (issue 68: an endless line took
/// the GUI to 3 GB in 15 s). A longer one is an error, and the engine is restarted.
pub const MAX_LINE: usize = 64 * 1024;
/// The most lines an engine may write in one second (the GUI parses each and sends the page a
/// new state): vier writes a few hundred in its fastest second. More is an error, and the
/// engine is restarted.
pub const MAX_LINES_PER_SECOND: u32 = 20_000;
/// How long the keeper has to end the engine and all it started before it is killed itself.
const KEEPER_GRACE: Duration = Duration::from_secs(5);

pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    out: Output,
    /// The engine offered `UCI_Variant` with `cfour`: we switch it on and send drops.
    pub drops: bool,
    /// The process the GUI started: the engine's keeper on Unix (see [`crate::keeper`]).
    pub pid: Option<u32>,
}

/// The engine's output, cut into lines within [`MAX_LINE`] and [`MAX_LINES_PER_SECOND`].
struct Output {
    reader: BufReader<ChildStdout>,
    line: Vec<u8>,
    /// The lines of the second that began at `since`.
    lines: u32,
    since: Instant,
}

impl Output {
    /// The next line; `None` at the end of the output.
    async fn next(&mut self) -> Result<Option<String>, String> {
        self.line.clear();
        loop {
            let buf = self
                .reader
                .fill_buf()
                .await
                .map_err(|e| format!("cannot read the engine's output: {e}"))?;
            if buf.is_empty() {
                if self.line.is_empty() {
                    return Ok(None);
                }
                break;
            }
            let (part, used, end) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], i + 1, true),
                None => (buf, buf.len(), false),
            };
            if self.line.len() + part.len() > MAX_LINE {
                return Err(format!(
                    "the engine wrote a line of more than {} KiB",
                    MAX_LINE / 1024
                ));
            }
            self.line.extend_from_slice(part);
            self.reader.consume(used);
            if end {
                break;
            }
        }
        let now = Instant::now();
        if now.duration_since(self.since) >= Duration::from_secs(1) {
            (self.since, self.lines) = (now, 0);
        }
        self.lines += 1;
        if self.lines > MAX_LINES_PER_SECOND {
            return Err(format!(
                "the engine wrote more than {MAX_LINES_PER_SECOND} lines in a second"
            ));
        }
        if self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        Ok(Some(String::from_utf8_lossy(&self.line).into_owned()))
    }
}

/// The command that runs `cmd`: under a keeper (this binary's `keep-engine`) on Unix, so that
/// ending the engine ends all it started, and when the GUI ends, its engines end too.
fn command(cmd: &EngineCmd) -> Result<Command, String> {
    #[cfg(unix)]
    {
        let me = std::env::current_exe()
            .map_err(|e| format!("cannot find this program to keep the engine: {e}"))?;
        let mut c = Command::new(me);
        c.arg("keep-engine")
            .arg("--")
            .arg(&cmd.program)
            .args(&cmd.args)
            // its own group: a Ctrl-C at the GUI's terminal reaches the GUI, which ends it
            .process_group(0);
        Ok(c)
    }
    #[cfg(not(unix))]
    {
        let mut c = Command::new(&cmd.program);
        c.args(&cmd.args);
        Ok(c)
    }
}

impl EngineProcess {
    /// Starts the engine and completes `uci`/`uciok` and `isready`/`readyok`.
    pub async fn start(cmd: &EngineCmd) -> Result<EngineProcess, String> {
        let mut child = command(cmd)?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start engine '{}': {e}", cmd.program))?;
        let stdin = child.stdin.take().ok_or("engine has no stdin")?;
        let stdout = child.stdout.take().ok_or("engine has no stdout")?;
        let pid = child.id();
        let mut e = EngineProcess {
            child,
            stdin,
            out: Output {
                reader: BufReader::new(stdout),
                line: Vec::new(),
                lines: 0,
                since: Instant::now(),
            },
            drops: false,
            pid,
        };
        e.send("uci").await?;
        let mut cfour = false;
        timeout(HANDSHAKE, async {
            loop {
                let line = e.next_line().await?;
                #[cfg(unix)]
                if let Some(why) = line.strip_prefix(crate::keeper::CANNOT_START) {
                    return Err(format!("cannot start engine {why}"));
                }
                let l = line.to_ascii_lowercase();
                if l.starts_with("option name uci_variant") && l.contains("cfour") {
                    cfour = true;
                }
                if line.trim() == "uciok" {
                    return Ok::<(), String>(());
                }
            }
        })
        .await
        .map_err(|_| "engine did not answer 'uci' with 'uciok' in time".to_string())??;
        if cfour {
            e.send("setoption name UCI_Variant value cfour").await?;
            e.drops = true;
        }
        e.send("setoption name UCI_ShowWDL value true").await?;
        e.ready().await?;
        Ok(e)
    }

    pub async fn send(&mut self, line: &str) -> Result<(), String> {
        let mut buf = line.as_bytes().to_vec();
        buf.push(b'\n');
        self.stdin
            .write_all(&buf)
            .await
            .map_err(|e| format!("engine stopped reading: {e}"))?;
        self.stdin
            .flush()
            .await
            .map_err(|e| format!("engine stopped reading: {e}"))
    }

    /// The next output line; an error when the engine has closed its output (it died), or
    /// broke the bounds on its lines.
    pub async fn next_line(&mut self) -> Result<String, String> {
        match self.out.next().await? {
            Some(l) => Ok(l),
            None => Err(self.death().await),
        }
    }

    async fn death(&mut self) -> String {
        match timeout(Duration::from_millis(500), self.child.wait()).await {
            Ok(Ok(st)) => format!("the engine exited ({st})"),
            _ => "the engine closed its output".to_string(),
        }
    }

    /// `isready`, skipping everything until `readyok`.
    pub async fn ready(&mut self) -> Result<(), String> {
        self.send("isready").await?;
        timeout(HANDSHAKE, async {
            loop {
                if self.next_line().await?.trim() == "readyok" {
                    return Ok::<(), String>(());
                }
            }
        })
        .await
        .map_err(|_| "engine did not answer 'isready' in time".to_string())?
    }

    /// A move as this engine reads it: a digit, or a drop on the rank where the disc lands.
    pub fn move_text(&self, col: usize, lands_on_rank: usize) -> String {
        if self.drops {
            notation::drop_text(col - 1, lands_on_rank)
        } else {
            col.to_string()
        }
    }

    /// Ends the engine and waits until it is gone (reaped), so that the slot it held is handed
    /// on only then. On Unix its keeper is asked to end it with all it started, and killed if it
    /// has not within [`KEEPER_GRACE`]; SIGKILL cannot be refused, and the last bound only
    /// guards against a process stuck in the kernel (2 s was too short under load: a burst of
    /// new games then saw nine engines for a moment).
    pub async fn kill(mut self) {
        #[cfg(unix)]
        if let Some(pid) = self.pid {
            // our own child, not yet reaped (so its pid is not reused)
            crate::keeper::signal(pid as libc::pid_t, libc::SIGTERM);
            if timeout(KEEPER_GRACE, self.child.wait()).await.is_ok() {
                return;
            }
        }
        let _ = self.child.start_kill();
        let _ = timeout(Duration::from_secs(30), self.child.wait()).await;
    }
}

/// A 1-based column from a move token: `4`, `12`, `P@d1` or `p@l1`.
pub fn parse_move(tok: &str) -> Option<usize> {
    let widest = crate::engine::settings::WIDTH.max as usize;
    if tok.starts_with(['P', 'p']) {
        return notation::parse_drop(tok).map(|(c, _)| c + 1);
    }
    match tok.parse::<usize>() {
        Ok(c) if (1..=widest).contains(&c) => Some(c),
        _ => None,
    }
}

/// Scores as the engine reports them (a proven draw is `cp 0` with `wdl 0 1000 0`).
pub use crate::engine::{Score, ScoreBound, Value};

/// One `info` line with a score: its depth, its line's number, the value of its first move
/// with the bound the engine gave, and the line (1-based columns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    pub depth: u32,
    pub multipv: usize,
    pub value: Value,
    pub pv: Vec<usize>,
}

/// Reads an `info` line with a score; other lines (`info string`, `info depth 0` without pv) give
/// `None` or an `Info` with an empty pv.
pub fn parse_info(line: &str) -> Option<Info> {
    let mut t = line.split_whitespace();
    if t.next()? != "info" {
        return None;
    }
    let (mut depth, mut multipv, mut score, mut pv) = (0, 1, None, Vec::new());
    let mut bound = ScoreBound::Exact;
    let mut wdl_draw = false;
    while let Some(k) = t.next() {
        match k {
            "string" => return None,
            "depth" => depth = t.next()?.parse().ok()?,
            "multipv" => multipv = t.next()?.parse().ok()?,
            "score" => {
                let kind = t.next()?;
                score = Some(Score::from_protocol(kind, t.next()?.parse().ok()?)?);
            }
            "lowerbound" => bound = ScoreBound::Lower,
            "upperbound" => bound = ScoreBound::Upper,
            "wdl" => {
                let w: Vec<&str> = t.by_ref().take(3).collect();
                wdl_draw = w == ["0", "1000", "0"];
            }
            "pv" => {
                pv = t.by_ref().map_while(parse_move).collect();
                break;
            }
            _ => {}
        }
    }
    let mut score = score?;
    if score == Score::Cp(0) && wdl_draw {
        score = Score::Draw;
    }
    Some(Info {
        depth,
        multipv,
        value: Value { score, bound },
        pv,
    })
}

/// The column of `bestmove <m>`, `Some(None)` for `bestmove (none)`, `None` for other lines.
pub fn parse_bestmove(line: &str) -> Option<Option<usize>> {
    let mut t = line.split_whitespace();
    if t.next() != Some("bestmove") {
        return None;
    }
    Some(t.next().and_then(parse_move))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_in_both_notations() {
        let i = parse_info("info depth 3 seldepth 3 multipv 2 score mate -4 wdl 0 0 1000 nodes 5 nps 1 hashfull 0 time 1 pv P@d1 P@d2 4").unwrap();
        assert_eq!(i.multipv, 2);
        assert_eq!(i.value.score, Score::Loss(4));
        assert_eq!(i.pv, vec![4, 4, 4]);
        let d = parse_info("info depth 9 multipv 1 score cp 0 wdl 0 1000 0 pv 3").unwrap();
        assert_eq!(d.value.score, Score::Draw);
        let h = parse_info("info depth 9 multipv 1 score cp 0 wdl 119 762 119 pv 3").unwrap();
        assert_eq!(h.value.score, Score::Cp(0));
        assert!(parse_info("info string error: x").is_none());
        let m = parse_info("info score mate -9223372036854775808 pv 1").unwrap();
        assert_eq!(m.value.score, Score::Loss(100));
    }

    #[test]
    fn bestmove_lines() {
        assert_eq!(parse_bestmove("bestmove 4"), Some(Some(4)));
        assert_eq!(parse_bestmove("bestmove P@g3"), Some(Some(7)));
        assert_eq!(parse_bestmove("bestmove P@l1"), Some(Some(12)));
        assert_eq!(parse_bestmove("bestmove 11"), Some(Some(11)));
        assert_eq!(parse_bestmove("bestmove P@m1"), Some(Some(13)));
        assert_eq!(parse_bestmove("bestmove 13"), Some(Some(13)));
        assert_eq!(parse_bestmove("bestmove P@n1"), Some(None));
        assert_eq!(parse_bestmove("bestmove 14"), Some(None));
        assert_eq!(parse_bestmove("bestmove (none)"), Some(None));
        assert_eq!(parse_bestmove("info depth 1"), None);
    }
}
