//! One browser tab's game in `vier gui`: the state machine of [`super::state`] behind a lock,
//! its snapshots streamed to the page, and the task that drives the session's own engine
//! process over the protocol. Each session has its own engine, so that tabs cannot see or
//! disturb each other's searches, and a crash takes down one game's engine only.

use super::child::{parse_bestmove, parse_info, Engine, EngineCmd};
use super::game::{self, View};
use super::state::{Job, Refused, Search, Side, State};
use crate::board::Size;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::{sleep, sleep_until};

/// Time an engine gets past its limit before it is asked to stop, and again to answer `stop`.
const GRACE: Duration = Duration::from_secs(3);
/// Time an engine gets to answer the `stop` of a search no longer wanted (the position changed,
/// the game was dropped) before it is ended: `vier` answers in milliseconds.
const STOP_GRACE: Duration = Duration::from_secs(1);

pub struct Session {
    pub id: String,
    state: Mutex<State>,
    /// When the page last asked for anything: the game used least recently makes room.
    last_seen: Mutex<Instant>,
    /// The latest snapshot (JSON) for the event streams.
    snapshots: watch::Sender<String>,
    /// Wakes the engine task after a change.
    kick: Notify,
    closed: watch::Sender<bool>,
    /// The event streams open now, and whether the last one has closed since anything asked
    /// for the game: a dropped game (its tab closed) has its search stopped and starts none
    /// (issue 68: its engine searched on for its whole minute).
    watchers: Mutex<Watchers>,
}

#[derive(Default)]
struct Watchers {
    open: usize,
    dropped: bool,
}

/// Counts an event stream of a session while it is open.
pub struct Watching(Arc<Session>);

impl Drop for Watching {
    fn drop(&mut self) {
        let mut w = self.0.watchers();
        w.open -= 1;
        if w.open == 0 {
            w.dropped = true;
            drop(w);
            self.0.kick.notify_one();
        }
    }
}

impl Session {
    /// `slots` bounds the engine processes of all sessions together: one is held from before
    /// an engine starts until it has been ended.
    pub fn new(id: String, engine: EngineCmd, slots: Arc<Semaphore>) -> Arc<Session> {
        // another session, other moves: a skill level is not the same opponent every time
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos() as u64);
        let state = State::new(seed);
        let s = Arc::new(Session {
            id,
            state: Mutex::new(state),
            last_seen: Mutex::new(Instant::now()),
            snapshots: watch::Sender::new(String::new()),
            kick: Notify::new(),
            closed: watch::Sender::new(false),
            watchers: Mutex::new(Watchers::default()),
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

    /// An event stream of this session opens: the game is wanted (again) while it is open;
    /// once the last one closes, the game is dropped until one opens or a change comes.
    pub fn watch(self: &Arc<Self>) -> Watching {
        let mut w = self.watchers();
        w.open += 1;
        w.dropped = false;
        drop(w);
        self.kick.notify_one();
        Watching(self.clone())
    }

    fn watchers(&self) -> MutexGuard<'_, Watchers> {
        self.watchers.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn is_dropped(&self) -> bool {
        self.watchers().dropped
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
        f: impl FnOnce(&mut State) -> Result<(), Refused>,
    ) -> Result<String, Refused> {
        self.touch();
        let mut st = self.lock();
        f(&mut st)?;
        // someone is there to ask
        self.watchers().dropped = false;
        self.publish(&mut st);
        drop(st);
        self.kick.notify_one();
        Ok(self.snapshot())
    }

    pub fn touch(&self) {
        *self.last_seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    pub fn last_seen(&self) -> Instant {
        *self.last_seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn publish(&self, st: &mut State) {
        st.version += 1;
        self.snapshots.send_replace(st.snapshot(&self.id));
    }

    fn update(&self, f: impl FnOnce(&mut State)) {
        let mut st = self.lock();
        f(&mut st);
        self.publish(&mut st);
    }

    /// What the engine should do: nothing for a dropped game.
    fn job(&self) -> Option<Job> {
        if self.is_dropped() {
            return None;
        }
        self.lock().job()
    }

    fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }
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
        let wanted = job.is_some() || (sess.lock().engine_side != Side::None && !sess.is_dropped());
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
    let (size, moves, multipv, level) = (job.size(), job.moves(), job.multipv(), job.level());
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
    sess.update(|st| st.begin(job, &view));
    let started = Instant::now();
    let mut done: Vec<Search> = Vec::new();
    loop {
        let next = sess.lock().next_search(job, &view, &done);
        let Some(s) = next else { break };
        let only = match s.only {
            Some(c) => format!(" searchmoves {}", e.move_text(c, heights[c] + 1)),
            None => String::new(),
        };
        let Some(best) = search(e, sess, job, &view, &only, s.movetime).await? else {
            // stopped: the job is no longer wanted
            return Ok(());
        };
        if let Job::Move { .. } = job {
            let ms = started.elapsed().as_millis() as u64;
            sess.update(|st| st.finish_move(job, &view, best, ms));
        }
        done.push(s);
    }
    if let Job::Analyse { .. } = job {
        sess.update(|st| st.analysis_done(&view));
    }
    Ok(())
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
                        sess.update(|st| st.report(job, view, &info));
                    }
                }
            }
            _ = sess.kick.notified(), if !stopped => {
                if sess.job().as_ref() != Some(job) {
                    // the position or the settings changed, or the game was dropped: this
                    // search is of no use any more
                    e.send("stop").await?;
                    stopped = true;
                    cancelled = true;
                    deadline = tokio::time::Instant::now() + STOP_GRACE;
                }
            }
            _ = sleep_until(deadline) => {
                if stopped {
                    let waited = if cancelled { STOP_GRACE } else { GRACE };
                    return Err(format!("the engine did not answer 'stop' within {} s (hung)", waited.as_secs()));
                }
                e.send("stop").await?;
                stopped = true;
                deadline = tokio::time::Instant::now() + GRACE;
            }
        }
    }
}
