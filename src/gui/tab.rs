//! One browser tab's game in `vier gui` (a session of its API, `/api/session/{id}`): the game
//! of [`super::game`] behind a lock, its snapshots streamed to the page, and the task that
//! drives the tab's own engine process over the protocol. Each tab has its own engine, so that
//! tabs cannot see or disturb each other's searches, and a crash takes down one game's engine
//! only.

use super::change::Refused;
use super::child::{parse_bestmove, parse_info, EngineCmd, EngineProcess};
use super::conductor::{Conductor, Next, Order};
use super::game::Game;
use crate::board::{AnyPosition, Size};
use crate::engine::Line;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::{sleep, sleep_until};

/// Time an engine gets past its limit before it is asked to stop, and again to answer `stop`.
const GRACE: Duration = Duration::from_secs(3);
/// Time an engine gets to answer the `stop` of a search no longer wanted (the position changed,
/// the game was dropped) before it is ended: `vier` answers in milliseconds.
const STOP_GRACE: Duration = Duration::from_secs(1);

pub struct Tab {
    pub id: String,
    /// The game and its engine's work.
    conductor: Mutex<Conductor>,
    /// When the page last asked for anything: the game used least recently makes room.
    last_seen: Mutex<Instant>,
    /// The latest snapshot (JSON) for the event streams.
    snapshots: watch::Sender<String>,
    /// Wakes the engine task after a change.
    kick: Notify,
    closed: watch::Sender<bool>,
    /// The event streams open now: once the last one closes, the conductor hears that the game
    /// is dropped (its tab closed), stops its search and starts none (issue 68: its engine
    /// searched on for its whole minute) until a stream opens or a change comes.
    watchers: Mutex<usize>,
}

/// Counts an event stream of a session while it is open.
pub struct Watching(Arc<Tab>);

impl Drop for Watching {
    fn drop(&mut self) {
        let mut open = self.0.watchers();
        *open -= 1;
        if *open == 0 {
            // told under the count's lock, so that a stream opening meanwhile comes after
            self.0.conductor().watched(false);
            drop(open);
            self.0.kick.notify_one();
        }
    }
}

impl Tab {
    /// `slots` bounds the engine processes of all sessions together: one is held from before
    /// an engine starts until it has been ended.
    pub fn new(id: String, engine: EngineCmd, slots: Arc<Semaphore>) -> Arc<Tab> {
        // another session, other moves: a skill level is not the same opponent every time
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos() as u64);
        let game = Game::new(seed);
        let s = Arc::new(Tab {
            id,
            conductor: Mutex::new(Conductor::new(game)),
            last_seen: Mutex::new(Instant::now()),
            snapshots: watch::Sender::new(String::new()),
            kick: Notify::new(),
            closed: watch::Sender::new(false),
            watchers: Mutex::new(0),
        });
        s.publish(&mut s.conductor().game);
        tokio::spawn(drive_engine(s.clone(), engine, slots));
        s
    }

    /// The game, also after a panic elsewhere (every change is checked before it is made, so
    /// the state is consistent at any point).
    fn conductor(&self) -> MutexGuard<'_, Conductor> {
        self.conductor.lock().unwrap_or_else(|e| e.into_inner())
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
        let mut open = self.watchers();
        *open += 1;
        self.conductor().watched(true);
        drop(open);
        self.kick.notify_one();
        Watching(self.clone())
    }

    fn watchers(&self) -> MutexGuard<'_, usize> {
        self.watchers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ends the engine task (and so the engine process).
    pub fn close(&self) {
        self.closed.send_replace(true);
        self.kick.notify_one();
    }

    /// Applies a change the page asked for: `f` checks and changes the state, or says why not
    /// (and then changes nothing). The engine's task hears of it and asks the conductor what
    /// to do.
    pub fn change(
        &self,
        f: impl FnOnce(&mut Game) -> Result<(), Refused>,
    ) -> Result<String, Refused> {
        self.touch();
        let mut g = self.conductor();
        f(&mut g.game)?;
        // someone is there to ask
        g.watched(true);
        self.publish(&mut g.game);
        drop(g);
        self.kick.notify_one();
        Ok(self.snapshot())
    }

    pub fn touch(&self) {
        *self.last_seen.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    pub fn last_seen(&self) -> Instant {
        *self.last_seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn publish(&self, st: &mut Game) {
        st.version += 1;
        self.snapshots.send_replace(st.snapshot(&self.id));
    }

    /// Calls the conductor (`f`) and publishes the state it leaves.
    fn conduct<T>(&self, f: impl FnOnce(&mut Conductor) -> T) -> T {
        let mut g = self.conductor();
        let out = f(&mut g);
        self.publish(&mut g.game);
        out
    }

    fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }
}

/// Drives the session's engine: starts it, runs the searches the conductor hands out,
/// restarts it when it dies or hangs, and ends it when the session closes.
async fn drive_engine(tab: Arc<Tab>, cmd: EngineCmd, slots: Arc<Semaphore>) {
    let mut engine: Option<EngineProcess> = None;
    // held while `engine` may be alive: a game's engine starts only once an evicted game's
    // engine has been ended, so a burst of new games never runs more engines than games
    let mut slot: Option<OwnedSemaphorePermit> = None;
    let mut configured: Option<Configured> = None;
    let mut failures = 0u32;
    let mut pending: Option<Order> = None;
    let mut closed = tab.closed.subscribe();
    while !tab.is_closed() {
        // started before the person's first move when there is an opponent to play, so that
        // its start-up is not added to that move's time; two people never need it
        let wanted = tab.conductor().wants_engine();
        if engine.is_none() && wanted {
            tab.conduct(|g| {
                g.game.engine.pid = None;
                g.engine("starting", "")
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
            match EngineProcess::start(&cmd).await {
                Ok(e) => {
                    let pid = e.pid;
                    pending = tab
                        .conduct(|g| {
                            g.game.engine.pid = pid;
                            g.engine("ready", "")
                        })
                        .search;
                    engine = Some(e);
                    configured = None;
                }
                Err(msg) => {
                    failures += 1;
                    tab.conduct(|g| g.engine("error", &format!("{msg}; trying again")));
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
        if pending.is_none() && engine.is_some() {
            pending = tab.conduct(|g| g.work()).search;
        }
        let (Some(e), Some(order)) = (engine.as_mut(), pending.take()) else {
            tokio::select! {
                _ = tab.kick.notified() => {}
                _ = closed.changed() => {}
            }
            continue;
        };
        // a game dropped to make room (or closed) ends its engine at once, whatever it is
        // doing: the search is of no use any more, and its slot is wanted (issue 60)
        let done = tokio::select! {
            r = run_search(e, &tab, &order, &mut configured) => r,
            _ = closed.changed() => break,
        };
        match done {
            Ok(next) => {
                failures = 0;
                pending = next;
            }
            Err(msg) => {
                failures += 1;
                if let Some(e) = engine.take() {
                    e.kill().await;
                }
                slot = None;
                tab.conduct(|g| {
                    g.game.engine.pid = None;
                    g.failed(order.key, &msg)
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

/// What the engine was last set up for: the board, the lines, the skill level and its seed
/// (each game has its own).
type Configured = (Size, usize, u64, u64);

/// Runs one search of the conductor's on the engine: its options, the position, `go`, the
/// reports as they come. `Ok` with the next search the conductor hands out (after the answer,
/// or after a stop because the search was of no use any more); `Err` when the engine died or
/// hung and must be restarted.
async fn run_search(
    e: &mut EngineProcess,
    tab: &Tab,
    order: &Order,
    configured: &mut Option<Configured>,
) -> Result<Option<Order>, String> {
    let full = crate::engine::settings::SKILL.max;
    let (size, multipv, level) = (order.size, order.multipv, order.level);
    if *configured != Some((size, multipv, level, order.seed)) {
        // an engine that was never given a level is left without the option (another engine
        // may not have it)
        let leveled = configured.is_some_and(|c| c.2 != full);
        if level != full || leveled {
            e.send(&format!("setoption name LevelSeed value {}", order.seed))
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
        *configured = Some((size, multipv, level, order.seed));
    }
    let mut line = String::from("position startpos");
    let mut heights = vec![0usize; size.width()];
    if !order.moves.is_empty() {
        line += " moves";
        for &c in &order.moves {
            heights[c] += 1;
            line.push(' ');
            line += &e.move_text(c + 1, heights[c]);
        }
    }
    e.send(&line).await?;
    let root = order
        .moves
        .iter()
        .try_fold(AnyPosition::empty(size), |p, &c| p.play(c))
        .map_err(|e| e.to_string())?;
    let only = match order.only {
        Some(c) => format!(" searchmoves {}", e.move_text(c + 1, heights[c] + 1)),
        None => String::new(),
    };
    let limit = order.movetime;
    e.send(&format!("go movetime {limit}{only}")).await?;
    let mut deadline = tokio::time::Instant::now() + Duration::from_millis(limit) + GRACE;
    let mut stopped = false;
    // the conductor dropped the search (the position or the settings changed), and this
    // search is the next one it handed out
    let mut cancelled: Option<Option<Order>> = None;
    // the lines of the depth being reported: an `info` line per line, `multipv` 1 first
    let mut lines: Vec<Line> = Vec::new();
    let mut depth = 0;
    loop {
        tokio::select! {
            text = e.next_line() => {
                let text = text?;
                if let Some(best) = parse_bestmove(&text) {
                    return Ok(match cancelled {
                        Some(next) => next,
                        None => tab.conduct(|g| g.searched(order.key, best.map(|c| c - 1))).search,
                    });
                }
                if cancelled.is_some() {
                    continue;
                }
                if let Some(info) = parse_info(&text) {
                    if info.pv.is_empty() {
                        continue;
                    }
                    if info.multipv == 1 || info.depth != depth {
                        lines.clear();
                        depth = info.depth;
                    }
                    let pv = info.pv.iter().map(|c| c - 1).collect();
                    lines.push(Line::new(&root, info.value, pv));
                    tab.conduct(|g| g.report(order.key, depth, &lines));
                }
            }
            _ = tab.kick.notified(), if !stopped => {
                let Next { stop, search } = tab.conduct(|g| g.work());
                if stop {
                    // the position or the settings changed, or the game was dropped: this
                    // search is of no use any more
                    e.send("stop").await?;
                    stopped = true;
                    cancelled = Some(search);
                    deadline = tokio::time::Instant::now() + STOP_GRACE;
                }
            }
            _ = sleep_until(deadline) => {
                if stopped {
                    let waited = if cancelled.is_some() { STOP_GRACE } else { GRACE };
                    return Err(format!("the engine did not answer 'stop' within {} s (hung)", waited.as_secs()));
                }
                e.send("stop").await?;
                stopped = true;
                deadline = tokio::time::Instant::now() + GRACE;
            }
        }
    }
}
