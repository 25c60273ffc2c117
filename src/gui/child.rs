//! One engine child process spoken to over the line protocol of `protocol.md`, and the parsing
//! of what it says. Moves may come back as column digits or as cutechess drops (`P@d1`).

use crate::notation;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
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

pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    /// The engine offered `UCI_Variant` with `cfour`: we switch it on and send drops.
    pub drops: bool,
    pub pid: Option<u32>,
}

impl Engine {
    /// Starts the engine and completes `uci`/`uciok` and `isready`/`readyok`.
    pub async fn start(cmd: &EngineCmd) -> Result<Engine, String> {
        let mut child = Command::new(&cmd.program)
            .args(&cmd.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start engine '{}': {e}", cmd.program))?;
        let stdin = child.stdin.take().ok_or("engine has no stdin")?;
        let stdout = child.stdout.take().ok_or("engine has no stdout")?;
        let pid = child.id();
        let mut e = Engine {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            drops: false,
            pid,
        };
        e.send("uci").await?;
        let mut cfour = false;
        timeout(HANDSHAKE, async {
            loop {
                let line = e.next_line().await?;
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

    /// The next output line; an error when the engine has closed its output (it died).
    pub async fn next_line(&mut self) -> Result<String, String> {
        match self.lines.next_line().await {
            Ok(Some(l)) => Ok(l),
            Ok(None) => Err(self.death().await),
            Err(e) => Err(format!("cannot read the engine's output: {e}")),
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

    /// Kills the process and waits until it is gone (reaped), so that the slot it held is
    /// handed on only then; SIGKILL cannot be refused, and the bound only guards against a
    /// process stuck in the kernel (2 s was too short under load: a burst of new games then
    /// saw nine engines for a moment).
    pub async fn kill(mut self) {
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
                let v: i64 = t.next()?.parse().ok()?;
                score = Some(match kind {
                    "cp" => Score::Cp(v.clamp(-100_000, 100_000) as i32),
                    // clamped: an engine's absurd number must not overflow anything here
                    "mate" if v > 0 => Score::Win(v.min(100) as u32),
                    "mate" => Score::Loss(v.unsigned_abs().min(100) as u32),
                    _ => return None,
                });
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
