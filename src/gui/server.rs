//! The HTTP side: the embedded page, a small JSON API per session, and a server-sent event
//! stream of the session's state. Every answer to a bad request is a 4xx with a JSON
//! `{"error": "..."}` and leaves the session as it was.

use super::change::Refused;
use super::child::EngineCmd;
use super::tab::Tab;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::convert::Infallible;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;
use tokio_stream::StreamExt;

/// At most this many games (each with its engine process) at once; a new one ends the game
/// that was used least recently.
pub const MAX_SESSIONS: usize = 8;
/// Requests carry a few small fields; anything larger is refused unread.
const BODY_LIMIT: usize = 16 * 1024;
/// A body announced as larger than [`BODY_LIMIT`] is read and thrown away up to this much, so
/// that the client gets its 413 instead of a connection reset; past it the connection is cut.
const DRAIN_LIMIT: usize = 64 * 1024 * 1024;
/// ... and for at most this long.
const DRAIN_TIME: std::time::Duration = std::time::Duration::from_secs(10);

const INDEX: &str = include_str!("web/index.html");
const SCRIPT: &str = include_str!("web/app.js");
/// How this page reaches the engine: through this server (the static page has its own).
const BACKEND: &str = include_str!("web/server.js");
const STYLE: &str = include_str!("web/style.css");
const ICON: &str = include_str!("web/icon.svg");
const MANIFEST: &str = include_str!("web/manifest.webmanifest");

pub struct App {
    engine: EngineCmd,
    sessions: Mutex<HashMap<String, Arc<Tab>>>,
    ids: RandomState,
    counter: std::sync::atomic::AtomicU64,
    /// One permit per engine process that may run: [`MAX_SESSIONS`].
    engine_slots: Arc<tokio::sync::Semaphore>,
}

type Shared = Arc<App>;

/// `loopback`: the server listens on a loopback address, so every request must name this
/// machine in its `Host` (a web page elsewhere cannot then reach the games by DNS rebinding).
pub fn router(engine: EngineCmd, loopback: bool) -> Router {
    let app = Arc::new(App {
        engine,
        sessions: Mutex::new(HashMap::new()),
        ids: RandomState::new(),
        counter: Default::default(),
        engine_slots: Arc::new(tokio::sync::Semaphore::new(MAX_SESSIONS)),
    });
    Router::new()
        .route(
            "/",
            get(|| async { page("text/html; charset=utf-8", INDEX) }),
        )
        .route(
            "/app.js",
            get(|| async { page("text/javascript; charset=utf-8", SCRIPT) }),
        )
        .route(
            "/backend.js",
            get(|| async { page("text/javascript; charset=utf-8", BACKEND) }),
        )
        .route(
            "/style.css",
            get(|| async { page("text/css; charset=utf-8", STYLE) }),
        )
        .route("/icon.svg", get(|| async { page("image/svg+xml", ICON) }))
        .route(
            "/manifest.webmanifest",
            get(|| async { page("application/manifest+json", MANIFEST) }),
        )
        .route("/api/session", post(create))
        .route("/api/session/{id}", get(state))
        .route("/api/session/{id}/events", get(events))
        // every change of a game, by its name: its body is read and checked by the game's one
        // dispatch (`Game::request`)
        .route("/api/session/{id}/{what}", post(change))
        // Pons-style `GET /solve`, the route `vier serve` serves (issue 50)
        .merge(crate::serve::routes(crate::serve::SolveLimits::default()))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such page".into()) })
        .method_not_allowed_fallback(|| async {
            error(
                StatusCode::METHOD_NOT_ALLOWED,
                "this method is not allowed here".into(),
            )
        })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn(check_origin))
        .layer(axum::middleware::from_fn(refuse_large_bodies))
        .layer(axum::middleware::from_fn_with_state(
            loopback,
            crate::serve::check_host,
        ))
        .with_state(app)
}

/// Refuses a request that changes state when a page of another origin sent it: a page elsewhere
/// must not start or end a person's games, even knowing the port. Browsers say where a request
/// comes from in `Sec-Fetch-Site` and `Origin`; a request with neither (a script, curl) is no
/// page's and passes.
async fn check_origin(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let safe = matches!(
        *req.method(),
        axum::http::Method::GET | axum::http::Method::HEAD | axum::http::Method::OPTIONS
    );
    if !safe {
        let headers = req.headers();
        let text = |name| {
            headers
                .get(name)
                .and_then(|h: &header::HeaderValue| h.to_str().ok())
        };
        // "none": typed by the person; "same-origin": this page
        let site_ok = text("sec-fetch-site").is_none_or(|s| s == "same-origin" || s == "none");
        let host = text(header::HOST.as_str()).unwrap_or("");
        let origin_ok = text(header::ORIGIN.as_str()).is_none_or(|o| {
            o.strip_prefix("http://")
                .or_else(|| o.strip_prefix("https://"))
                .is_some_and(|rest| rest == host)
        });
        if !site_ok || !origin_ok {
            return error(
                StatusCode::FORBIDDEN,
                "requests that change a game must come from this server's own page".into(),
            )
            .into_response();
        }
    }
    next.run(req).await
}

/// A body announced as larger than [`BODY_LIMIT`] gets a 413 after it has been read and dropped
/// (within [`DRAIN_LIMIT`] and [`DRAIN_TIME`]): answering before reading it would close the
/// connection under a client still sending, which sees a reset, not the reason.
async fn refuse_large_bodies(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let announced = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|h| h.to_str().ok())
        .and_then(|s| s.parse::<u64>().ok());
    let Some(len) = announced.filter(|&n| n > BODY_LIMIT as u64) else {
        return match whole_body(req).await {
            Ok(req) => next.run(req).await,
            Err(refused) => refused.into_response(),
        };
    };
    if len <= DRAIN_LIMIT as u64 {
        let mut data = req.into_body().into_data_stream();
        let _ = tokio::time::timeout(DRAIN_TIME, async {
            let mut read = 0usize;
            while let Some(Ok(chunk)) = data.next().await {
                read += chunk.len();
                if read > DRAIN_LIMIT {
                    break;
                }
            }
        })
        .await;
    }
    error(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("the request body has {len} bytes; at most {BODY_LIMIT} are accepted"),
    )
    .into_response()
}

/// The request with its body read whole, within [`BODY_LIMIT`] bytes and [`crate::http::IDLE`]
/// (issue 60): a body sent in part and then no more holds a connection and a handler no
/// longer than that.
async fn whole_body(req: axum::extract::Request) -> Result<axum::extract::Request, ApiError> {
    let (parts, body) = req.into_parts();
    let limit = crate::http::IDLE;
    match tokio::time::timeout(limit, axum::body::to_bytes(body, BODY_LIMIT)).await {
        Ok(Ok(bytes)) => Ok(axum::extract::Request::from_parts(
            parts,
            axum::body::Body::from(bytes),
        )),
        Ok(Err(_)) => Err(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body could not be read whole (at most {BODY_LIMIT} bytes are accepted)"),
        )),
        Err(_) => Err(error(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} s",
                limit.as_secs()
            ),
        )),
    }
}

fn page(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// A refused request: its status and the reason, sent as `{"error": "..."}`.
pub struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(serde_json::json!({ "error": self.1 }))).into_response()
    }
}

fn error(code: StatusCode, msg: String) -> ApiError {
    ApiError(code, msg)
}

type Answer = Result<Response, ApiError>;

fn ok(snapshot: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], snapshot).into_response()
}

fn session(app: &App, id: &str) -> Result<Arc<Tab>, ApiError> {
    let s = app
        .sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(id)
        .cloned();
    s.ok_or_else(|| {
        error(
            StatusCode::NOT_FOUND,
            format!("no game '{id}' (it may have ended to make room for a newer one)"),
        )
    })
}

/// Applies the change `what` with its JSON `body`; a refused one is a 400 (malformed), a 422
/// (a body of the wrong shape) or a 409 (impossible now).
fn apply(app: &App, id: &str, what: &str, body: &str) -> Answer {
    session(app, id)?
        .change(|game| game.request(what, body))
        .map(ok)
        .map_err(|r| match r {
            Refused::Bad(msg) => error(StatusCode::BAD_REQUEST, msg),
            Refused::Shape(msg) => error(StatusCode::UNPROCESSABLE_ENTITY, msg),
            Refused::Conflict(msg) => error(StatusCode::CONFLICT, msg),
        })
}

async fn create(State(app): State<Shared>) -> Response {
    let mut h = app.ids.build_hasher();
    h.write_u64(
        app.counter
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
    );
    h.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let id = format!("{:016x}", h.finish());
    let s = Tab::new(id.clone(), app.engine.clone(), app.engine_slots.clone());
    let mut all = app.sessions.lock().unwrap_or_else(|e| e.into_inner());
    while all.len() >= MAX_SESSIONS {
        let oldest = all
            .iter()
            .min_by_key(|(_, s)| s.last_seen())
            .map(|(k, _)| k.clone());
        match oldest.and_then(|k| all.remove(&k)) {
            Some(old) => old.close(),
            None => break,
        }
    }
    all.insert(id, s.clone());
    drop(all);
    (StatusCode::CREATED, ok(s.snapshot())).into_response()
}

async fn state(State(app): State<Shared>, Path(id): Path<String>) -> Answer {
    let s = session(&app, &id)?;
    s.touch();
    Ok(ok(s.snapshot()))
}

async fn events(State(app): State<Shared>, Path(id): Path<String>) -> Answer {
    let s = session(&app, &id)?;
    s.touch();
    // every new snapshot is one `state` event; a slow reader skips to the latest; the stream
    // ends when the session is closed (dropped to make room) or dropped; while it is open the
    // game is watched, and when the last stream closes (the tab is gone) its search stops
    let watching = s.watch();
    let stream = s.snapshots_until_closed().map(move |json| {
        let _ = &watching;
        Ok::<_, Infallible>(Event::default().event("state").data(json))
    });
    // a comment now and then: a quiet stream is not an idle connection (crate::http::IDLE)
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(crate::http::IDLE / 3))
        .into_response())
}

/// A change: a body, if any, must be JSON (415 otherwise, as axum's JSON reader answers).
async fn change(
    State(app): State<Shared>,
    Path((id, what)): Path<(String, String)>,
    headers: axum::http::HeaderMap,
    body: String,
) -> Answer {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|h| h.to_str().ok())
        .and_then(|t| t.split(';').next())
        .is_some_and(|t| {
            let t = t.trim().to_ascii_lowercase();
            t == "application/json" || (t.starts_with("application/") && t.ends_with("+json"))
        });
    if !body.is_empty() && !json {
        return Err(error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "a request body must be sent as `Content-Type: application/json`".into(),
        ));
    }
    apply(&app, &id, &what, &body)
}
