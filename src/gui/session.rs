//! One browser tab's game: its state, the changes the page asks for, and the task that drives
//! the session's own engine process. Each session has its own engine, so that tabs cannot see or
//! disturb each other's searches, and a crash takes down one game's engine only.

use super::engine::{parse_bestmove, parse_info, Engine, EngineCmd, Info, Score};
use super::game::{self, Status, View};
use crate::board::Size;
use crate::score::ordinal;
use serde::Serialize;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::{sleep, sleep_until};

/// Who the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    X,
    O,
    None,
}

impl Side {
    pub fn parse(s: &str) -> Result<Side, String> {
        match s {
            "x" => Ok(Side::X),
            "o" => Ok(Side::O),
            "none" => Ok(Side::None),
            _ => Err(format!("bad engine side '{s}': expected x, o or none")),
        }
    }
    fn plays(self, to_move: &str) -> bool {
        matches!((self, to_move), (Side::X, "x") | (Side::O, "o"))
    }
}

pub const MOVETIME_MIN: u64 = 10;
pub const MOVETIME_MAX: u64 = 60_000;
/// An analysis gives up after this long; columns not proven by then are shown as estimates.
const ANALYSIS_MS: u64 = 30_000;
/// Time an engine gets past its limit before it is asked to stop, and again to answer `stop`.
const GRACE: Duration = Duration::from_secs(3);

/// The value of one column in an analysis.
#[derive(Clone, Debug, Serialize)]
pub struct ColumnValue {
    pub column: usize,
    /// Short text for above the column (`win 3`, `draw`, `loss 5`, `+0.4`).
    pub short: String,
    /// The sentence for screen readers and the tooltip.
    pub long: String,
    /// Pons' score (as `vier solve --all`) when proven.
    pub score: Option<i32>,
    pub exact: bool,
    pub best: bool,
    #[serde(skip)]
    rank: i32,
}

#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The position it belongs to.
    pub moves: String,
    pub depth: u32,
    /// True once the engine has finished with it.
    pub complete: bool,
    pub columns: Vec<ColumnValue>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Thinking {
    pub depth: u32,
    pub score: String,
    pub pv: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct EngineState {
    /// `idle` (not started), `starting`, `ready`, `thinking`, `analysing`, `error`.
    pub state: &'static str,
    pub message: String,
    pub pid: Option<u32>,
    /// Times the engine was restarted after it crashed or hung.
    pub restarts: u32,
}

pub struct State {
    pub size: Size,
    pub moves: Vec<usize>,
    pub redo: Vec<usize>,
    pub engine_side: Side,
    pub movetime: u64,
    /// The engine's strength level (`Skill Level`, crate::levels); kept across new games.
    pub level: u64,
    /// Seeds the level's choices (`LevelSeed`), drawn when the session starts.
    seed: u64,
    /// Analysis after every move, or only when asked.
    pub analysis_always: bool,
    /// The page asked for the analysis of this position (by its move string).
    analysis_wanted: Option<String>,
    analysis: Option<Analysis>,
    thinking: Option<Thinking>,
    engine: EngineState,
    last_engine_ms: Option<u64>,
    pub version: u64,
    pub last_seen: Instant,
}

pub struct Session {
    pub id: String,
    state: Mutex<State>,
    /// The latest snapshot (JSON) for the event streams.
    snapshots: watch::Sender<String>,
    /// Wakes the engine task after a change.
    kick: Notify,
    closed: watch::Sender<bool>,
}

/// What the engine is asked to do; compared with the state to see whether it is still wanted.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Job {
    Move {
        size: Size,
        moves: Vec<usize>,
        movetime: u64,
        level: u64,
    },
    Analyse {
        size: Size,
        moves: Vec<usize>,
    },
}

impl Session {
    /// `slots` bounds the engine processes of all sessions together: one is held from before
    /// an engine starts until it has been ended.
    pub fn new(id: String, engine: EngineCmd, slots: Arc<Semaphore>) -> Arc<Session> {
        let state = State {
            size: Size::default(),
            moves: Vec::new(),
            redo: Vec::new(),
            engine_side: Side::O,
            movetime: 1000,
            level: crate::levels::FULL_SKILL,
            // another session, other moves: a level is not the same opponent every time
            seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos() as u64),
            analysis_always: false,
            analysis_wanted: None,
            analysis: None,
            thinking: None,
            engine: EngineState {
                // started only when there is something to search
                state: "idle",
                message: String::new(),
                pid: None,
                restarts: 0,
            },
            last_engine_ms: None,
            version: 0,
            last_seen: Instant::now(),
        };
        let s = Arc::new(Session {
            id,
            state: Mutex::new(state),
            snapshots: watch::Sender::new(String::new()),
            kick: Notify::new(),
            closed: watch::Sender::new(false),
        });
        s.publish(&mut s.lock());
        tokio::spawn(engine_task(s.clone(), engine, slots));
        s
    }

    /// The state, also after a panic elsewhere (every change is checked before it is made, so
    /// the state is consistent at any point).
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn subscribe(&self) -> watch::Receiver<String> {
        self.snapshots.subscribe()
    }

    /// Every new snapshot, until the session is closed: then the stream ends (issue 60: the
    /// event stream of a game dropped to make room ended only once its engine's job had).
    pub fn snapshots_until_closed(&self) -> impl tokio_stream::Stream<Item = String> {
        use tokio_stream::wrappers::WatchStream;
        use tokio_stream::StreamExt;
        let end = WatchStream::new(self.closed.subscribe()).map(|closed| !closed);
        WatchStream::new(self.subscribe())
            .map(Some)
            .merge(end.filter(|open| !open).map(|_| None))
            .take_while(Option::is_some)
            .map(Option::unwrap_or_default)
    }

    pub fn snapshot(&self) -> String {
        self.snapshots.borrow().clone()
    }

    /// Ends the engine task (and so the engine process).
    pub fn close(&self) {
        self.closed.send_replace(true);
        self.kick.notify_one();
    }

    /// Applies a change the page asked for: `f` checks and changes the state, or says why not
    /// (and then changes nothing).
    pub fn change(
        &self,
        f: impl FnOnce(&mut State) -> Result<(), String>,
    ) -> Result<String, String> {
        let mut st = self.lock();
        st.last_seen = Instant::now();
        f(&mut st)?;
        self.publish(&mut st);
        drop(st);
        self.kick.notify_one();
        Ok(self.snapshot())
    }

    pub fn touch(&self) {
        self.lock().last_seen = Instant::now();
    }

    fn publish(&self, st: &mut State) {
        st.version += 1;
        let json = serde_json::to_string(&snapshot(&self.id, st)).unwrap_or_default();
        self.snapshots.send_replace(json);
    }

    fn update(&self, f: impl FnOnce(&mut State)) {
        let mut st = self.lock();
        f(&mut st);
        self.publish(&mut st);
    }

    fn job(&self) -> Option<Job> {
        let st = self.lock();
        let v = game::view(st.size, &st.moves).ok()?;
        if v.status != Status::Playing {
            return None;
        }
        if st.engine_side.plays(v.to_move) {
            return Some(Job::Move {
                size: st.size,
                moves: st.moves.clone(),
                movetime: st.movetime,
                level: st.level,
            });
        }
        let done = st
            .analysis
            .as_ref()
            .is_some_and(|a| a.complete && a.moves == v.moves);
        if !done && (st.analysis_always || st.analysis_wanted.as_deref() == Some(&v.moves)) {
            return Some(Job::Analyse {
                size: st.size,
                moves: st.moves.clone(),
            });
        }
        None
    }

    fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }
}

impl State {
    pub fn view(&self) -> View {
        // the moves are only ever changed to legal ones, so this cannot fail
        game::view(self.size, &self.moves).unwrap_or_else(|_| game::view(self.size, &[]).unwrap())
    }

    /// After a change the person made: a note about an engine failure that is over has been
    /// seen (one still going on stays).
    fn position_changed(&mut self) {
        self.thinking = None;
        self.analysis_wanted = None;
        if self.engine.state != "error" {
            self.engine.message.clear();
        }
    }

    /// The person's move.
    pub fn play(&mut self, column: usize) -> Result<(), String> {
        let v = self.view();
        if v.status != Status::Playing {
            return Err("the game is over".into());
        }
        if self.engine_side.plays(v.to_move) {
            return Err("it is the engine's turn".into());
        }
        if column == 0 || column > v.width {
            return Err(format!("column {column} is not on a {} board", self.size));
        }
        if !v.legal.contains(&column) {
            return Err(format!("column {column} is full"));
        }
        self.moves.push(column);
        self.redo.clear();
        self.position_changed();
        Ok(())
    }

    /// Takes back moves up to the person's previous turn (one move with two people).
    pub fn undo(&mut self) -> Result<(), String> {
        if self.moves.is_empty() {
            return Err("nothing to undo".into());
        }
        let mut moves = self.moves.clone();
        let mut redo = self.redo.clone();
        while let Some(c) = moves.pop() {
            redo.push(c);
            let v = game::view(self.size, &moves).map_err(|e| e.to_string())?;
            if !self.engine_side.plays(v.to_move) {
                break;
            }
        }
        if moves.is_empty() && self.engine_side.plays("x") {
            // the engine's first move cannot be taken back alone: keep it
            if let Some(c) = redo.pop() {
                moves.push(c);
            }
            if moves == self.moves {
                return Err("nothing to undo".into());
            }
        }
        self.moves = moves;
        self.redo = redo;
        self.position_changed();
        Ok(())
    }

    /// Replays taken-back moves up to the person's next turn.
    pub fn redo(&mut self) -> Result<(), String> {
        if self.redo.is_empty() {
            return Err("nothing to redo".into());
        }
        while let Some(c) = self.redo.pop() {
            self.moves.push(c);
            let v = self.view();
            if v.status != Status::Playing || !self.engine_side.plays(v.to_move) {
                break;
            }
        }
        self.position_changed();
        Ok(())
    }

    pub fn new_game(&mut self, size: Size, moves: Vec<usize>) {
        self.size = size;
        self.moves = moves;
        self.redo.clear();
        self.analysis = None;
        self.last_engine_ms = None;
        self.position_changed();
    }

    pub fn want_analysis(&mut self) -> Result<(), String> {
        let v = self.view();
        if v.status != Status::Playing {
            return Err("the game is over: there is nothing to analyse".into());
        }
        self.analysis_wanted = Some(v.moves);
        Ok(())
    }
}

#[derive(Serialize)]
struct Snapshot<'a> {
    id: &'a str,
    version: u64,
    size: String,
    #[serde(flatten)]
    view: View,
    last_move: Option<(usize, usize)>,
    engine_side: Side,
    movetime: u64,
    /// The level, and every level with its Elo (the full engine last).
    level: u64,
    levels: Vec<(u64, u32)>,
    analysis_always: bool,
    analysis: Option<&'a Analysis>,
    thinking: Option<&'a Thinking>,
    engine: &'a EngineState,
    last_engine_ms: Option<u64>,
    can_undo: bool,
    can_redo: bool,
    sizes: Vec<String>,
}

fn snapshot<'a>(id: &'a str, st: &'a State) -> Snapshot<'a> {
    let view = st.view();
    let last_move = st.moves.last().map(|&c| {
        let h = st.moves.iter().filter(|&&m| m == c).count();
        (c, h)
    });
    // an analysis of another position is not shown
    let analysis = st.analysis.as_ref().filter(|a| a.moves == view.moves);
    Snapshot {
        id,
        version: st.version,
        size: st.size.to_string(),
        last_move,
        engine_side: st.engine_side,
        movetime: st.movetime,
        level: st.level,
        levels: (1..).zip(crate::levels::ELO).collect(),
        analysis_always: st.analysis_always,
        analysis,
        thinking: st.thinking.as_ref(),
        engine: &st.engine,
        last_engine_ms: st.last_engine_ms,
        // the engine's opening move alone is not taken back (undo goes to the person's turn)
        can_undo: match st.moves.len() {
            0 => false,
            1 => !st.engine_side.plays("x"),
            _ => true,
        },
        can_redo: !st.redo.is_empty(),
        sizes: Size::all().map(|s| s.to_string()).collect(),
        view,
    }
}

/// A score in words, from the view of the side to move.
fn score_words(s: Score, bound: bool) -> String {
    let t = match s {
        Score::Win(n) => format!("wins with its {} disc from now", ordinal(n)),
        Score::Loss(n) => format!("loses: the opponent connects with its {} disc", ordinal(n)),
        Score::Draw => "draw (proven)".into(),
        Score::Cp(x) => format!("{:+.2} (estimate)", x as f64 / 100.0),
    };
    if bound {
        t + ", at least"
    } else {
        t
    }
}

/// The value of playing `info.pv[0]` for the side to move of `v`.
fn column_value(v: &View, info: &Info) -> Option<ColumnValue> {
    let column = *info.pv.first()?;
    let cells = (v.width * v.height) as i32;
    let moves = v.moves.len() as i32;
    let exact = !info.bound && !matches!(info.score, Score::Cp(_));
    // the root's exact score under the line that starts with the column: the column's score
    let score = info.score.to_exact(cells, moves).unwrap_or(0);
    let (short, long, score, rank) = match info.score {
        Score::Win(n) => (
            format!("win {n}"),
            format!(
                "column {column} wins: four with the {} disc from now",
                ordinal(n)
            ),
            score,
            10_000 - n as i32,
        ),
        Score::Loss(n) => (
            format!("loss {n}"),
            format!(
                "column {column} loses: the opponent connects four with its {} disc",
                ordinal(n)
            ),
            score,
            -10_000 + n as i32,
        ),
        Score::Draw => ("draw".into(), format!("column {column} draws"), score, 0),
        Score::Cp(x) => (
            format!("{:+.1}", x as f64 / 100.0),
            format!(
                "column {column}: about {:+.2} (not proven yet)",
                x as f64 / 100.0
            ),
            0,
            x.clamp(-9_000, 9_000),
        ),
    };
    Some(ColumnValue {
        column,
        short: if exact { short } else { format!("≈{short}") },
        long,
        score: exact.then_some(score),
        exact,
        best: false,
        rank,
    })
}

/// Drives the session's engine: starts it, gives it the job the state asks for, restarts it when
/// it dies or hangs, and ends it when the session closes.
async fn engine_task(sess: Arc<Session>, cmd: EngineCmd, slots: Arc<Semaphore>) {
    let mut engine: Option<Engine> = None;
    // held while `engine` may be alive: a game's engine starts only once an evicted game's
    // engine has been ended, so a burst of new games never runs more engines than games
    let mut slot: Option<OwnedSemaphorePermit> = None;
    let mut configured: Option<(Size, usize, u64)> = None;
    let mut failures = 0u32;
    let mut closed = sess.closed.subscribe();
    while !sess.is_closed() {
        let job = sess.job();
        // started before the person's first move when there is an opponent to play, so that
        // its start-up is not added to that move's time; two people never need it
        let wanted = job.is_some() || sess.lock().engine_side != Side::None;
        if engine.is_none() && wanted {
            sess.update(|st| {
                st.engine.state = "starting";
                st.engine.pid = None;
            });
            if slot.is_none() {
                tokio::select! {
                    permit = slots.clone().acquire_owned() => match permit {
                        Ok(p) => slot = Some(p),
                        Err(_) => break, // the server is shutting down
                    },
                    _ = closed.changed() => continue,
                }
            }
            // not given up when the game is dropped meanwhile: the handshake is short (at most
            // HANDSHAKE), and a child ended with it would outlive its slot until reaped
            match Engine::start(&cmd).await {
                Ok(e) => {
                    let pid = e.pid;
                    sess.update(|st| {
                        st.engine.state = "ready";
                        st.engine.pid = pid;
                    });
                    engine = Some(e);
                    configured = None;
                }
                Err(msg) => {
                    failures += 1;
                    sess.update(|st| {
                        st.engine.state = "error";
                        st.engine.message = format!("{msg}; trying again");
                    });
                    // back off, so that an engine that cannot start does not spin
                    let wait = Duration::from_secs(u64::from(failures.min(5)) * 2);
                    tokio::select! {
                        _ = sleep(wait) => {}
                        _ = closed.changed() => {}
                    }
                    continue;
                }
            }
        }
        let (Some(e), Some(job)) = (engine.as_mut(), job) else {
            tokio::select! {
                _ = sess.kick.notified() => {}
                _ = closed.changed() => {}
            }
            continue;
        };
        // a game dropped to make room (or closed) ends its engine at once, whatever it is
        // doing: the job is of no use any more, and its slot is wanted (issue 60)
        let done = tokio::select! {
            r = run_job(e, &sess, &job, &mut configured) => r,
            _ = closed.changed() => break,
        };
        match done {
            Ok(()) => {
                failures = 0;
                sess.update(|st| {
                    st.engine.state = "ready";
                    st.thinking = None;
                });
            }
            Err(msg) => {
                failures += 1;
                if let Some(e) = engine.take() {
                    e.kill().await;
                }
                slot = None;
                sess.update(|st| {
                    st.engine.state = "error";
                    st.engine.message = format!("{msg}; the engine was restarted");
                    st.engine.restarts += 1;
                    st.engine.pid = None;
                    st.thinking = None;
                });
                if failures > 1 {
                    let wait = Duration::from_secs(u64::from(failures.min(5)));
                    tokio::select! {
                        _ = sleep(wait) => {}
                        _ = closed.changed() => {}
                    }
                }
            }
        }
    }
    if let Some(e) = engine.take() {
        e.kill().await;
    }
    drop(slot);
}

/// Runs one job; `Err` means the engine died or hung and must be restarted.
async fn run_job(
    e: &mut Engine,
    sess: &Session,
    job: &Job,
    configured: &mut Option<(Size, usize, u64)>,
) -> Result<(), String> {
    let full = crate::levels::FULL_SKILL;
    // the analysis is always the full engine's
    let (size, moves, multipv, level) = match job {
        Job::Move {
            size, moves, level, ..
        } => (*size, moves, 1, *level),
        Job::Analyse { size, moves } => (*size, moves, size.width(), full),
    };
    let view = game::view(size, moves)?;
    if *configured != Some((size, multipv, level)) {
        // an engine that was never given a level is left without the option (another engine
        // may not have it)
        let leveled = configured.is_some_and(|c| c.2 != full);
        if level != full || leveled {
            let seed = sess.lock().seed;
            e.send(&format!("setoption name LevelSeed value {seed}"))
                .await?;
            e.send(&format!("setoption name Skill Level value {level}"))
                .await?;
        }
        // both values are remembered by the engine, so the order does not matter for the result
        e.send(&format!("setoption name Width value {}", size.width()))
            .await?;
        e.send(&format!("setoption name Height value {}", size.height()))
            .await?;
        e.send(&format!("setoption name MultiPV value {multipv}"))
            .await?;
        e.ready().await?;
        *configured = Some((size, multipv, level));
    }
    let mut line = String::from("position startpos");
    let mut heights = vec![0usize; size.width() + 1];
    if !moves.is_empty() {
        line += " moves";
        for &c in moves {
            heights[c] += 1;
            line.push(' ');
            line += &e.move_text(c, heights[c]);
        }
    }
    e.send(&line).await?;
    match job {
        Job::Move { movetime, .. } => {
            sess.update(|st| st.engine.state = "thinking");
            let started = Instant::now();
            if let Some(best) = search(e, sess, job, &view, "", *movetime).await? {
                let ms = started.elapsed().as_millis() as u64;
                finish_move(sess, job, &view, best, ms);
            }
        }
        Job::Analyse { .. } => {
            sess.update(|st| {
                st.engine.state = "analysing";
                st.analysis = Some(Analysis {
                    moves: view.moves.clone(),
                    depth: 0,
                    complete: false,
                    columns: Vec::new(),
                });
            });
            // MultiPV gives every column at once, but the search ends as soon as the best one
            // is proven; each column left unproven is then searched alone (`searchmoves`)
            if search(e, sess, job, &view, "", ANALYSIS_MS)
                .await?
                .is_none()
            {
                return Ok(());
            }
            for &c in &view.legal {
                if exact_value(sess, &view, c) {
                    continue;
                }
                let only = format!(" searchmoves {}", e.move_text(c, heights[c] + 1));
                if search(e, sess, job, &view, &only, ANALYSIS_MS)
                    .await?
                    .is_none()
                {
                    return Ok(());
                }
            }
            sess.update(|st| {
                if let Some(a) = st.analysis.as_mut().filter(|a| a.moves == view.moves) {
                    a.complete = true;
                }
            });
        }
    }
    Ok(())
}

/// True if the analysis shown holds a proven value for the column.
fn exact_value(sess: &Session, view: &View, column: usize) -> bool {
    sess.lock().analysis.as_ref().is_some_and(|a| {
        a.moves == view.moves && a.columns.iter().any(|c| c.column == column && c.exact)
    })
}

/// One `go movetime <limit><extra>`, its `info` lines reported as they come. `Some(bestmove)`
/// when it ran to its end, `None` when it was stopped because the job is no longer wanted.
async fn search(
    e: &mut Engine,
    sess: &Session,
    job: &Job,
    view: &View,
    extra: &str,
    limit: u64,
) -> Result<Option<Option<usize>>, String> {
    e.send(&format!("go movetime {limit}{extra}")).await?;
    let mut deadline = tokio::time::Instant::now() + Duration::from_millis(limit) + GRACE;
    let mut stopped = false;
    let mut cancelled = false;
    loop {
        tokio::select! {
            line = e.next_line() => {
                let line = line?;
                if let Some(best) = parse_bestmove(&line) {
                    return Ok((!cancelled).then_some(best));
                }
                if !cancelled {
                    if let Some(info) = parse_info(&line) {
                        report(sess, job, view, &info);
                    }
                }
            }
            _ = sess.kick.notified(), if !stopped => {
                if sess.job().as_ref() != Some(job) {
                    // the position or the settings changed: this search is of no use any more
                    e.send("stop").await?;
                    stopped = true;
                    cancelled = true;
                    deadline = tokio::time::Instant::now() + GRACE;
                }
            }
            _ = sleep_until(deadline) => {
                if stopped {
                    return Err(format!("the engine did not answer 'stop' within {} s (hung)", GRACE.as_secs()));
                }
                e.send("stop").await?;
                stopped = true;
                deadline = tokio::time::Instant::now() + GRACE;
            }
        }
    }
}

/// An `info` line: the thinking line for a move, or one column's value for an analysis.
fn report(sess: &Session, job: &Job, view: &View, info: &Info) {
    sess.update(|st| match job {
        Job::Move { .. } => {
            if info.multipv == 1 && !info.pv.is_empty() {
                st.thinking = Some(Thinking {
                    depth: info.depth,
                    score: score_words(info.score, info.bound),
                    pv: info
                        .pv
                        .iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                });
            }
        }
        Job::Analyse { .. } => {
            let Some(a) = st.analysis.as_mut().filter(|a| a.moves == view.moves) else {
                return;
            };
            let Some(cv) = column_value(view, info) else {
                return;
            };
            if !view.legal.contains(&cv.column) {
                return;
            }
            a.depth = a.depth.max(info.depth);
            a.columns.retain(|c| c.column != cv.column);
            a.columns.push(cv);
            a.columns.sort_by_key(|c| c.column);
            let top = a.columns.iter().map(|c| c.rank).max();
            for c in &mut a.columns {
                c.best = Some(c.rank) == top;
            }
        }
    });
}

fn finish_move(sess: &Session, job: &Job, view: &View, best: Option<usize>, ms: u64) {
    let Job::Move { size, moves, .. } = job else {
        return;
    };
    sess.update(|st| {
        if st.size != *size || st.moves != *moves {
            return;
        }
        match best {
            Some(c) if view.legal.contains(&c) => {
                st.moves.push(c);
                st.redo.clear();
                st.last_engine_ms = Some(ms);
                st.thinking = None;
                st.analysis_wanted = None;
            }
            _ => {
                // asking again would get the same answer: hand the moves to the person
                st.engine_side = Side::None;
                st.engine.state = "error";
                st.engine.message = format!(
                    "the engine answered an illegal move ({}); both sides are yours now",
                    best.map_or("none".to_string(), |c| c.to_string())
                );
            }
        }
    });
}
