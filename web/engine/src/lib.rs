//! vier in the browser: the engine crate compiled to `wasm32-unknown-unknown`, with no
//! wasm-bindgen. The page's worker (web/worker.js, through web/wasm.js) sees five exports:
//!
//! - `alloc(len) -> ptr` and `dealloc(ptr, len)`: bytes in the module's memory;
//! - `load_book(ptr, len) -> u64`: an opening book file's bytes (freed by the call);
//! - `call(ptr, len) -> u64`: one request as JSON (freed by the call), one answer as JSON;
//!
//! where a `u64` answer packs the answer's pointer (high 32 bits) and length (low 32 bits); the
//! host reads it and hands it back with `dealloc`. The module imports two functions from `env`:
//! `now_ms() -> f64` (the clock, `performance.now()`: see `vier::engine::clock`) and `progress(ptr, len)`
//! (a JSON report during a search, read at once by the host; the bytes stay the module's).
//!
//! Only translation lives here: JSON in, calls of the engine service (`vier::engine`) and the
//! solver, JSON out. A bad request is answered `{"error": "..."}`, never with a trap. The engine
//! (its tables) and the book stay in the instance from one call to the next. The requests are
//! documented in docs/web.md.

mod game;

use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;
use vier::board::{AnyPosition, Size};

use vier::engine::settings::{self, Spin};
use vier::engine::{
    clock, Answer, Book, Engine, Handle, Limits, Line, Question, Report, Request, ScoreBound,
    Settings, SolverPool, Thought, TimeLimit, SOLVE_HASH_MB,
};
use vier::notation;

#[cfg(target_arch = "wasm32")]
mod host {
    #[link(wasm_import_module = "env")]
    extern "C" {
        /// A JSON report: the host reads it during the call.
        fn progress(ptr: *const u8, len: usize);
    }

    pub fn report(text: &str) {
        // SAFETY: the host reads `len` bytes at `ptr` before it returns, and keeps nothing.
        unsafe { progress(text.as_ptr(), text.len()) }
    }
}

/// Natively (a check of this crate on the build machine) there is nobody to tell.
#[cfg(not(target_arch = "wasm32"))]
mod host {
    pub fn report(_: &str) {}
}

/// What the instance keeps between calls.
struct Instance {
    /// The time-limited player, made at the first `think` (its tables are its memory).
    engine: Option<Engine>,
    /// The engine's settings (the protocol's defaults); their book is the one the host loaded,
    /// which the engine and the analysis consult.
    settings: Settings,
    /// Exact answers with the book: `analyse`.
    pool: SolverPool,
    /// Exact answers without the book, one table cleared before each: `solve`, as
    /// `vier solve --no-book` runs (the same node counts).
    bookless: SolverPool,
}

impl Instance {
    fn new() -> Instance {
        Instance {
            engine: None,
            settings: Settings {
                book: None,
                ..Settings::default()
            },
            pool: SolverPool::new(None, SOLVE_HASH_MB),
            bookless: SolverPool::new(None, SOLVE_HASH_MB),
        }
    }
}

thread_local! {
    static INSTANCE: RefCell<Instance> = RefCell::new(Instance::new());
    /// The page's game, in the page's own instance (`game_*` requests).
    static GAME: RefCell<Option<game::Page>> = const { RefCell::new(None) };
}

/// `len` bytes for the host to write into; freed by `call`, `load_book` or `dealloc`.
#[no_mangle]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    let mut bytes = std::mem::ManuallyDrop::new(vec![0u8; len].into_boxed_slice());
    bytes.as_mut_ptr()
}

/// Frees bytes from `alloc` or an answer.
///
/// # Safety
/// `ptr` and `len` must be those of one `alloc` or one answer, freed once.
#[no_mangle]
pub unsafe extern "C" fn dealloc(ptr: *mut u8, len: usize) {
    // SAFETY: the caller hands back a boxed slice of this length that it got from here.
    drop(unsafe { take(ptr, len) });
}

/// The boxed slice at `ptr`, `len` (from `alloc`).
///
/// # Safety
/// As for [`dealloc`].
unsafe fn take(ptr: *mut u8, len: usize) -> Box<[u8]> {
    // SAFETY: see the caller.
    unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) }
}

/// An answer's text in the module's memory, packed as `ptr << 32 | len` for the host.
fn answer(value: Value) -> u64 {
    let text = value.to_string().into_bytes().into_boxed_slice();
    let len = text.len() as u64;
    let ptr = Box::into_raw(text) as *mut u8 as usize as u64;
    (ptr << 32) | len
}

/// Installs the panic hook once: a panic (a bug, never bad input) tells the host why before
/// the module traps, as a report `{"panic": "..."}`.
fn hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            host::report(&json!({ "panic": info.to_string() }).to_string());
        }))
    });
}

/// Takes a book file's bytes (freed here) as the book of the engine and of `analyse`; answers
/// what it holds, or why it cannot be used (the instance keeps the book it had).
///
/// # Safety
/// `ptr` and `len` must be those of one `alloc`, written by the host.
#[no_mangle]
pub unsafe extern "C" fn load_book(ptr: *mut u8, len: usize) -> u64 {
    hook();
    // SAFETY: the caller's promise.
    let bytes = unsafe { take(ptr, len) };
    answer(match Book::from_bytes(&bytes) {
        Ok(book) => {
            let info = book_info(&book);
            let book = Arc::new(book);
            INSTANCE.with_borrow_mut(|st| {
                st.settings.book = Some(book.clone());
                if let Some(e) = st.engine.as_mut() {
                    let _ = e.configure(&st.settings, &|| false);
                }
                st.pool = SolverPool::new(Some(book), SOLVE_HASH_MB);
            });
            info
        }
        Err(e) => json!({ "error": e.to_string() }),
    })
}

/// One request as JSON (freed here); the answer as JSON (see the module documentation).
///
/// # Safety
/// `ptr` and `len` must be those of one `alloc`, written by the host.
#[no_mangle]
pub unsafe extern "C" fn call(ptr: *mut u8, len: usize) -> u64 {
    hook();
    // SAFETY: the caller's promise.
    let bytes = unsafe { take(ptr, len) };
    answer(match request(&bytes) {
        Ok(v) => v,
        Err(e) => json!({ "error": e }),
    })
}

/// The engine, made with the book at its first use (its tables take a moment to allocate).
fn engine(st: &mut Instance) -> Result<&mut Engine, String> {
    if st.engine.is_none() {
        st.engine = Some(Engine::with_settings(&st.settings).map_err(|e| e.to_string())?);
    }
    Ok(st.engine.as_mut().expect("made above"))
}

/// Reads a request and runs it.
fn request(bytes: &[u8]) -> Result<Value, String> {
    let v: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    let req = v.as_object().ok_or("a request is a JSON object")?;
    let op = req
        .get("op")
        .and_then(Value::as_str)
        .ok_or("a request needs \"op\": think, analyse, solve, clear or info")?;
    match op {
        "think" => think(req),
        "analyse" => analyse(req),
        "solve" => solve(req),
        "clear" => INSTANCE.with_borrow_mut(|st| {
            // `hash_mb`: the tables' size from now on (the page's helper workers take less)
            if let Some(mb) = number(req, settings::HASH)?.map(|mb| mb as usize) {
                if mb != st.settings.hash_mb {
                    st.settings.hash_mb = mb;
                    st.engine = None;
                }
            }
            // made now if it was not: the page's first move then waits for no table
            engine(st)?.clear();
            Ok(json!({ "cleared": true, "hash_mb": st.settings.hash_mb }))
        }),
        "info" => Ok(info()),
        op if op.starts_with("game_") => game_request(op, req),
        other => Err(format!(
            "unknown op {other:?}: think, analyse, solve, clear, info or game_*"
        )),
    }
}

/// The page's game (game.rs): `game_new` {seed, lanes} starts it (`lanes`: the searches the
/// page runs at once, 1 if absent); `game_request` {what, body} is a
/// change the page asks for; `game_engine` {state, message} the worker's state;
/// `game_report` {key, report} and `game_searched` {key, answer} what a search sends back,
/// `game_failed` {key, message} a search that failed; `game_snapshot`. Each answers the
/// outcome: the snapshot, `stop` and the `searches` to start.
fn game_request(op: &str, req: &Map<String, Value>) -> Result<Value, String> {
    let text = |key: &str| req.get(key).and_then(Value::as_str).unwrap_or("");
    let key = whole(req, "key")?.unwrap_or(0);
    if op == "game_new" {
        let seed = number(req, settings::LEVEL_SEED)?.unwrap_or(0);
        let lanes = whole(req, "lanes")?.unwrap_or(1).clamp(1, 64) as usize;
        let mut g = game::Page::new(seed, lanes);
        let out = g.snapshot();
        GAME.with_borrow_mut(|slot| *slot = Some(g));
        return Ok(out);
    }
    GAME.with_borrow_mut(|slot| {
        let g = slot.as_mut().ok_or("no game: send game_new first")?;
        match op {
            "game_request" => g.request(text("what"), text("body")),
            "game_engine" => Ok(g.engine(text("state"), text("message"))),
            "game_report" => Ok(g.report(key, req.get("report").unwrap_or(&Value::Null))),
            "game_searched" => Ok(g.searched(key, req.get("answer").unwrap_or(&Value::Null))),
            "game_failed" => Ok(g.failed(key, text("message"))),
            "game_snapshot" => Ok(g.snapshot()),
            other => Err(format!("unknown op {other:?}")),
        }
    })
}

/// A whole number field, if present.
fn whole(req: &Map<String, Value>, key: &str) -> Result<Option<u64>, String> {
    match req.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("{key} must be a whole number, not {v}")),
    }
}

/// The field of a setting (named as the setting, `movetime_ms` for `movetime`), if present,
/// checked against the engine's declaration of it.
fn number(req: &Map<String, Value>, spin: Spin) -> Result<Option<u64>, String> {
    let key = match spin.name {
        "movetime" => "movetime_ms",
        "Skill Level" => "level",
        "LevelSeed" => "seed",
        "Hash" => "hash_mb",
        "MultiPV" => "multipv",
        name => name,
    };
    match req.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            let given = v
                .as_i64()
                .map(i128::from)
                .or_else(|| v.as_u64().map(i128::from))
                .ok_or_else(|| format!("{key} must be a whole number, not {v}"))?;
            spin.check_as(key, given).map(Some)
        }
    }
}

fn flag(req: &Map<String, Value>, key: &str) -> Result<bool, String> {
    match req.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(format!("{key} must be true or false, not {v}")),
    }
}

/// The position of a request: `size` ("7x6" if absent) and `moves` (a move string, `-` or ""
/// for the empty board) or `board` (a board string or cutechess FEN).
fn position(req: &Map<String, Value>) -> Result<AnyPosition, String> {
    let text = |key: &str| -> Result<Option<&str>, String> {
        match req.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(format!("{key} must be a string, not {v}")),
        }
    };
    let size: Size = match text("size")? {
        Some(s) => s.parse().map_err(|e| format!("{e}"))?,
        None => Size::default(),
    };
    match (text("moves")?, text("board")?) {
        (Some(_), Some(_)) => Err("give moves or board, not both".into()),
        (Some(m), None) => AnyPosition::from_moves(size, m).map_err(|e| e.to_string()),
        (None, Some(b)) => AnyPosition::from_board_string(size, b).map_err(|e| e.to_string()),
        (None, None) => Ok(AnyPosition::empty(size)),
    }
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn bound(b: ScoreBound) -> &'static str {
    match b {
        ScoreBound::Exact => "exact",
        ScoreBound::Lower => "lower",
        ScoreBound::Upper => "upper",
    }
}

/// A line as the GUI shows it: the protocol's score words, the line in the page's notation
/// (digits, letters past 9 columns), its 0-based columns, and the exact score once proven.
fn line(p: &AnyPosition, l: &Line) -> Value {
    json!({
        "score": l.value.score.to_string(),
        "bound": bound(l.value.bound),
        "exact": l.exact,
        "pv": notation::move_string(l.pv.iter().copied(), p.width()),
        "columns": l.pv,
    })
}

/// A finished depth: what the GUI shows while the engine thinks (the best line's fields at the
/// top, every line in `lines`).
fn iteration(p: &AnyPosition, it: &Report) -> Value {
    let best = it.best();
    json!({
        "depth": it.depth,
        "seldepth": it.seldepth,
        "score": best.map(|l| l.value.score.to_string()),
        "exact": best.and_then(|l| l.exact),
        "pv": best.map(|l| notation::move_string(l.pv.iter().copied(), p.width())),
        "column": best.and_then(|l| l.column()),
        "move": best.and_then(|l| l.column()).map(|c| notation::move_string([c], p.width())),
        "nodes": it.nodes,
        "nps": it.nps(),
        "time_ms": millis(it.time),
        "hashfull": it.hashfull,
        "solved": it.solved,
        "book_hits": it.book_hits,
        "lines": it.lines.iter().map(|l| line(p, l)).collect::<Vec<_>>(),
        // the engine's own report, which the page's game reads (web/engine/src/game.rs)
        "report": it,
    })
}

/// `think`: the engine's move within `movetime_ms` (and/or `depth`, `nodes`), as full strength
/// or at skill `level` 1-8 (9 = full) with `seed`; `multipv` lines, `searchmoves` 0-based
/// columns. Every finished depth goes to the host as a progress report.
fn think(req: &Map<String, Value>) -> Result<Value, String> {
    let p = position(req)?;
    let movetime = number(req, settings::MOVETIME)?;
    let mut asked = INSTANCE.with_borrow(|st| st.settings.clone());
    if let Some(level) = number(req, settings::SKILL)? {
        asked.strength.skill = level;
    }
    asked.strength.seed = number(req, settings::LEVEL_SEED)?.unwrap_or(0);
    let searchmoves = match req.get("searchmoves") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(cols)) => cols
            .iter()
            .map(|c| {
                c.as_u64()
                    .filter(|&c| (c as usize) < p.width())
                    .map(|c| c as usize)
                    .ok_or_else(|| format!("searchmoves holds {c}: 0-based columns expected"))
            })
            .collect::<Result<_, _>>()?,
        Some(v) => return Err(format!("searchmoves must be a list of columns, not {v}")),
    };
    let time = match movetime {
        Some(ms) => Request::movetime(ms).time,
        None => TimeLimit::default(),
    };
    let request = asked.request(
        TimeLimit {
            overhead_ms: 0,
            ..time
        },
        Limits {
            depth: number(req, settings::DEPTH)?.map(|d| d as u32),
            nodes: number(req, settings::NODES)?,
            multipv: number(req, settings::MULTIPV)?.unwrap_or(1) as usize,
            searchmoves,
            infinite: false,
        },
    );
    let handle = Handle::new(&request);
    let thought = INSTANCE.with_borrow_mut(|st| -> Result<Thought, String> {
        Ok(engine(st)?.think(&p, &request, &handle, &mut |it| {
            host::report(&iteration(&p, it).to_string())
        }))
    })?;
    let mut out = iteration(&p, &thought.last);
    let played = thought.line();
    out["column"] = json!(thought.column);
    out["move"] = json!(thought
        .column
        .map(|c| notation::move_string([c], p.width())));
    out["score"] = json!(played.map(|l| l.value.score.to_string()));
    out["bound"] = json!(played.map(|l| bound(l.value.bound)));
    out["exact"] = json!(thought.exact());
    out["chosen_by"] = json!(thought.chosen_by);
    Ok(out)
}

/// `analyse`: the exact score of every column (`null` for a full one), as `vier solve --all`
/// prints them; with `budget_ms`, those proven within it (the others `null`, `complete` false).
fn analyse(req: &Map<String, Value>) -> Result<Value, String> {
    let p = position(req)?;
    let weak = flag(req, "weak")?;
    let budget = number(req, settings::BUDGET)?;
    let started = clock::now();
    let columns = INSTANCE.with_borrow(|st| match budget {
        None => st
            .pool
            .analyse(&p, weak, &Handle::unlimited())
            .map_err(|e| e.to_string()),
        Some(_) if weak => Err("weak is for an analysis without budget_ms".into()),
        Some(ms) => Ok(st.pool.analyse_within(&p, Duration::from_millis(ms))),
    })?;
    let legal = p.legal_moves();
    let complete = legal.iter().all(|&c| columns[c].is_some());
    Ok(json!({
        "columns": columns,
        "legal": legal,
        "complete": complete,
        "time_ms": millis(clock::now() - started),
    }))
}

/// `solve`: one position's exact score (`weak`: 1 / 0 / -1) without the book, from a cleared
/// table of `vier solve`'s size, with the solver's node count: the solver's own speed.
fn solve(req: &Map<String, Value>) -> Result<Value, String> {
    let p = position(req)?;
    let weak = flag(req, "weak")?;
    INSTANCE.with_borrow(|st| {
        let proof = st
            .bookless
            .ask(&p, Question::Solve { weak }, &Handle::unlimited())
            .map_err(|e| e.to_string())?;
        let Answer::Score(score) = proof.answer else {
            unreachable!("a solve answers with a score")
        };
        Ok(json!({
            "score": score,
            "nodes": proof.nodes,
            "time_ms": millis(proof.time),
        }))
    })
}

fn book_info(b: &Book) -> Value {
    json!({
        "size": format!("{}x{}", b.width(), b.height()),
        "depth": b.depth(),
        "positions": b.len(),
    })
}

/// `info`: what the page needs to offer: the sizes, the levels with their Elo, the book.
fn info() -> Value {
    INSTANCE.with_borrow(|st| {
        json!({
            "version": vier_version(),
            "sizes": Size::all().map(|s| s.to_string()).collect::<Vec<_>>(),
            "unsolved": Size::all().filter(|s| !s.published()).map(|s| s.to_string()).collect::<Vec<_>>(),
            "levels": (1..).zip(settings::SKILL_ELO).collect::<Vec<(u64, u32)>>(),
            "full_level": settings::SKILL.max,
            "book": st.settings.book.as_deref().map(book_info),
            "hash_mb": st.settings.hash_mb,
        })
    })
}

fn vier_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
