//! `GET /solve?pos=4453`: the exact score of every column as JSON, in the shape of Pascal Pons'
//! public web solver (`{"pos":"4453","score":[-2,-1,...]}`), so that code written for that one can
//! call a local vier instead. `vier serve` serves it alone; `vier gui` serves the same route (this
//! module's [`routes`], not a copy).
//!
//! The scores take the view of the side to move, as the public solver's do (its clients play the
//! column with the highest score): the score of a column is the exact score the side to move gets
//! by playing there, in Pons' convention (0 a draw, `22 - k` on 7x6 for a win with the winner's
//! k-th disc, negative for a loss); 100 marks a full column. Optional parameters: `width` and
//! `height` (7 and 6), `weak` (`1`: win / draw / loss as 1 / 0 / -1), `budget_ms` (at most the
//! server's budget, which is also the default). Bad input is answered 400 with
//! `{"error": "..."}`; a position not proven within its budget 504; more requests than the server
//! takes at once 503.
//!
//! Admission (issue 60): at most `jobs` positions are solved at once, each on a thread of its
//! own, and the permit that lets a solve run is held by the solve itself, not by the request:
//! a client that hangs up stops its solve (the handler is dropped, and the drop stops the
//! solver's control) and its slot is free once the solver has stopped, within its poll. Up to
//! `queue` more requests wait, first come first served: a waiting request costs a connection
//! and a few hundred bytes, not a core, so the queue may be long; it is bounded so that a flood
//! cannot pile up unbounded work, and a request past it is answered at once 503 with
//! `Retry-After: 1`, which costs the client less than a long wait. `--cors ORIGIN` lets pages of
//! the named origins (or of any, `*`) call the route and read its answers.

use crate::board::{AnyPosition, Player, Size};
use crate::engine::settings::BUDGET;
use crate::engine::{game_over, Handle, SolverPool};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use std::collections::HashMap;
use std::io::{self, Write};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// The score of a full column, as the public solver writes it.
pub const FULL_COLUMN: i32 = 100;
/// Requests that may wait for a solver by default (`--queue`), beyond those being solved.
pub const DEFAULT_QUEUE: usize = 64;
/// The most `--queue` may be: with `--jobs`, below the connections a server keeps open
/// ([`crate::http::MAX_CONNECTIONS`]).
pub const MAX_QUEUE: usize = 200;

/// How much the endpoint takes on.
#[derive(Clone, Debug)]
pub struct SolveLimits {
    /// Positions solved at once (each on its own thread).
    pub jobs: usize,
    /// Requests that may wait for a solver; more are answered 503.
    pub queue: usize,
    /// The default and largest budget of one request.
    pub budget: Duration,
    /// Origins whose pages may read the answers (`Access-Control-Allow-Origin`); `*` any.
    pub cors: Vec<String>,
}

impl Default for SolveLimits {
    fn default() -> SolveLimits {
        SolveLimits {
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            queue: DEFAULT_QUEUE,
            budget: Duration::from_millis(BUDGET.default),
            cors: Vec::new(),
        }
    }
}

struct Service {
    limits: SolveLimits,
    /// One permit per solve that may run, held by the solve itself (see the module's
    /// documentation).
    running: Arc<Semaphore>,
    /// Requests admitted: running or waiting for a solver.
    admitted: AtomicUsize,
}

/// The solve route, with its own bounds, for any router (the state is its own).
pub fn routes<S: Clone + Send + Sync + 'static>(limits: SolveLimits) -> Router<S> {
    let jobs = limits.jobs.max(1);
    let service = Arc::new(Service {
        running: Arc::new(Semaphore::new(jobs)),
        admitted: AtomicUsize::new(0),
        limits: SolveLimits { jobs, ..limits },
    });
    Router::new()
        .route("/solve", get(solve).options(preflight))
        .with_state(service)
}

/// Stops a solve's control when the request that started it ends, answered or dropped (its
/// client hung up).
struct StopOnDrop(Handle);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// The CORS header for a request from `origin`, when `--cors` lets that origin's pages read the
/// answers.
fn allowed_origin(cors: &[String], headers: &HeaderMap) -> Option<String> {
    let origin = headers.get(header::ORIGIN)?.to_str().ok()?;
    if cors.iter().any(|c| c == "*") {
        Some("*".into())
    } else {
        cors.iter().any(|c| c == origin).then(|| origin.to_string())
    }
}

/// The answer to a browser's preflight `OPTIONS /solve`: the route's methods for an allowed
/// origin, nothing more for any other.
async fn preflight(State(service): State<Arc<Service>>, headers: HeaderMap) -> Response {
    match allowed_origin(&service.limits.cors, &headers) {
        Some(origin) => (
            StatusCode::NO_CONTENT,
            [
                (header::ACCESS_CONTROL_ALLOW_ORIGIN, origin),
                (header::ACCESS_CONTROL_ALLOW_METHODS, "GET".into()),
                (header::ACCESS_CONTROL_MAX_AGE, "600".into()),
                (header::VARY, "Origin".into()),
            ],
        )
            .into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    }
}

fn refuse(code: StatusCode, msg: String) -> Response {
    (code, Json(serde_json::json!({ "error": msg }))).into_response()
}

/// Counts a request as admitted while it lives.
struct Admitted<'a>(&'a AtomicUsize);

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A request's parameters, checked.
struct SolveQuery {
    pos_text: String,
    pos: AnyPosition,
    weak: bool,
    budget: Duration,
}

fn parse(q: &HashMap<String, String>, max_budget: Duration) -> Result<SolveQuery, String> {
    let number = |name: &str, default: u64| -> Result<u64, String> {
        match q.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse::<u64>()
                .map_err(|_| format!("{name} must be a whole number, not '{v}'")),
        }
    };
    let width = number("width", 7)?;
    let height = number("height", 6)?;
    let size = Size::new(width as usize, height as usize).map_err(|e| e.to_string())?;
    let weak = match q.get("weak").map(String::as_str) {
        None | Some("0") | Some("false") => false,
        Some("1") | Some("true") => true,
        Some(v) => return Err(format!("weak must be 0 or 1, not '{v}'")),
    };
    let max_ms = max_budget.as_millis() as u64;
    let budget_ms = number("budget_ms", max_ms)?;
    if !(1..=max_ms).contains(&budget_ms) {
        return Err(format!("budget_ms must be 1..={max_ms}, not {budget_ms}"));
    }
    let Some(pos_text) = q.get("pos") else {
        return Err("missing pos: the moves as column digits, e.g. pos=4453".into());
    };
    let pos = AnyPosition::from_moves(size, pos_text).map_err(|e| format!("pos: {e}"))?;
    if pos.is_game_over() {
        return Err(match pos.winner() {
            None => "pos: the board is full: there is nothing to solve".into(),
            Some(w) => format!(
                "pos: {}",
                game_over(&format!(
                    "player {} has four in a row",
                    if w == Player::First { 1 } else { 2 }
                ))
            ),
        });
    }
    Ok(SolveQuery {
        pos_text: pos_text.clone(),
        pos,
        weak,
        budget: Duration::from_millis(budget_ms),
    })
}

async fn solve(
    State(service): State<Arc<Service>>,
    headers: HeaderMap,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Response {
    let cors = allowed_origin(&service.limits.cors, &headers);
    let mut response = answer(&service, &headers, query, cors.is_some()).await;
    if let Some(origin) = cors {
        let h = response.headers_mut();
        if let Ok(v) = origin.parse() {
            h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        }
        h.insert(header::VARY, header::HeaderValue::from_static("Origin"));
    }
    response
}

async fn answer(
    service: &Service,
    headers: &HeaderMap,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
    cors_allowed: bool,
) -> Response {
    if let Some(origin) = foreign_origin(headers).filter(|_| !cors_allowed) {
        return refuse(
            StatusCode::FORBIDDEN,
            format!("requests from pages of other sites are refused (Origin '{origin}')"),
        );
    }
    let Ok(Query(q)) = query else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "the query string does not parse".into(),
        );
    };
    let req = match parse(&q, service.limits.budget) {
        Ok(r) => r,
        Err(msg) => return refuse(StatusCode::BAD_REQUEST, msg),
    };
    let cap = service.limits.jobs + service.limits.queue;
    if service.admitted.fetch_add(1, Ordering::SeqCst) >= cap {
        service.admitted.fetch_sub(1, Ordering::SeqCst);
        return (
            [(header::RETRY_AFTER, "1")],
            refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("busy: {cap} requests are in hand, try again shortly"),
            ),
        )
            .into_response();
    }
    let _admitted = Admitted(&service.admitted);
    let Ok(permit) = service.running.clone().acquire_owned().await else {
        return refuse(StatusCode::SERVICE_UNAVAILABLE, "shutting down".into());
    };
    let (pos, weak, budget) = (req.pos, req.weak, req.budget);
    // the budget counts from the start of the solve, not from the wait for a solver
    let handle = Handle::within(Some(budget));
    let _stop = StopOnDrop(handle.clone());
    let result = tokio::task::spawn_blocking(move || {
        // held until the solver has stopped, however the request ends: --jobs bounds the
        // solves that run, not only the requests that wait
        let _permit = permit;
        SolverPool::shared().analyse(&pos, weak, &handle)
    })
    .await;
    match result {
        Ok(Ok(scores)) => {
            let score: Vec<i32> = scores.iter().map(|s| s.unwrap_or(FULL_COLUMN)).collect();
            Json(serde_json::json!({ "pos": req.pos_text, "score": score })).into_response()
        }
        Ok(Err(e)) => refuse(StatusCode::GATEWAY_TIMEOUT, e.to_string()),
        Err(_) => refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the solver failed on this position".into(),
        ),
    }
}

/// The `Origin` of a request made by a page that this machine does not serve, if any
/// (a page elsewhere must not spend this machine's time).
fn foreign_origin(headers: &HeaderMap) -> Option<String> {
    let origin = headers.get(header::ORIGIN)?;
    let text = origin.to_str().unwrap_or("?");
    let host = text
        .split_once("://")
        .map_or("", |(_, rest)| rest.split('/').next().unwrap_or(""));
    let name = match host.rsplit_once(':') {
        Some((n, port)) if port.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => host,
    };
    (!matches!(name, "127.0.0.1" | "localhost" | "[::1]")).then(|| text.to_string())
}

/// `vier serve`'s arguments.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8000)]
    port: u16,
    /// Address to listen on; anything but 127.0.0.1 lets other machines in.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Positions solved at once (default: the machine's cores); `--queue` more wait, the
    /// rest are answered 503.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: Option<u16>,
    /// Requests that may wait for a solver, first come first served; more are answered 503
    /// with Retry-After (a waiting request costs a connection, not a core).
    #[arg(long, default_value_t = DEFAULT_QUEUE as u16,
          value_parser = clap::value_parser!(u16).range(0..=MAX_QUEUE as i64))]
    queue: u16,
    /// Lets pages of this origin (`https://example.org`; repeatable; `*` any) call /solve
    /// and read its answers (CORS); without it, pages of other sites are refused.
    #[arg(long, value_name = "ORIGIN")]
    cors: Vec<String>,
    /// Milliseconds a request may take to prove its position (the default and the most a
    /// request's `budget_ms` may ask).
    #[arg(long, default_value_t = BUDGET.default, value_parser = |s: &str| BUDGET.parse(s))]
    budget_ms: u64,
}

/// `vier serve`: serves until the process is ended.
pub fn command(args: ServeArgs) -> io::Result<std::process::ExitCode> {
    let mut limits = SolveLimits {
        budget: Duration::from_millis(args.budget_ms),
        queue: args.queue as usize,
        cors: args.cors,
        ..Default::default()
    };
    if let Some(j) = args.jobs {
        limits.jobs = j as usize;
    }
    let opts = ServeOptions {
        host: args.host,
        port: args.port,
        limits,
    };
    run(&opts).map(|()| std::process::ExitCode::SUCCESS)
}

pub struct ServeOptions {
    pub host: IpAddr,
    pub port: u16,
    pub limits: SolveLimits,
}

/// Serves the solve route until the process is ended; returns only if it cannot start.
pub fn run(opts: &ServeOptions) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(opts.host, opts.port)).await?;
        let addr = listener.local_addr()?;
        // the book is parsed once, before the first request waits for it
        let _ = SolverPool::shared();
        println!("vier serve: http://{addr}/solve?pos=4453  (Ctrl-C ends it)");
        io::stdout().flush()?;
        let app = routes::<()>(opts.limits.clone())
            .fallback(|| async {
                refuse(
                    StatusCode::NOT_FOUND,
                    "no such page: GET /solve?pos=<moves>".into(),
                )
            })
            .layer(axum::middleware::from_fn_with_state(
                addr.ip().is_loopback(),
                check_host,
            ));
        crate::http::serve(listener, app).await
    })
}

/// On a loopback address, refuses a request that names another host (a page of another site
/// reaching this port through DNS rebinding). `vier gui` guards its routes the same way.
pub(crate) async fn check_host(
    State(loopback): State<bool>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if loopback {
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        let name = match host.rsplit_once(':') {
            Some((n, port)) if port.bytes().all(|b| b.is_ascii_digit()) => n,
            _ => host,
        };
        if !matches!(name, "127.0.0.1" | "localhost" | "[::1]") {
            return refuse(
                StatusCode::FORBIDDEN,
                format!("this server answers only requests for this machine, not '{host}'"),
            );
        }
    }
    next.run(req).await
}
