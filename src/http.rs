//! The connections of both HTTP servers, `vier serve` and `vier gui` (issue 60): every resource a
//! client can hold is bounded.
//!
//! * At most [`MAX_CONNECTIONS`] are open at once; one more is answered `503` (with
//!   `Retry-After`) and closed at once, without a task or a buffer of its own.
//! * A connection that has no request in hand and moves no byte for [`IDLE`] is closed: an idle
//!   keep-alive, a request whose head is half sent, a client that stopped reading. A request in
//!   hand (a solve that takes its budget, say) is never cut; a body the server reads is read
//!   within its own limit (`vier gui` reads its bodies within [`IDLE`]).
//! * A request's head (the line and the headers) may have at most [`MAX_HEAD`] bytes; a larger
//!   one is answered `431`. Counted here, as the bytes read while no request is in hand: hyper's
//!   own bound (`max_buf_size`) is checked between reads, so a head that came in one read of
//!   up to about 100 KB passed it (issue 68).
//!
//! When the handler of a request is dropped (its client hung up), whatever it started must end
//! with it: `/solve` stops its solver (see [`crate::serve`]).

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// Connections open at once; more are refused. Above `vier serve`'s solves and waiting requests
/// together (the most `--jobs` and `--queue` allow), and `vier gui`'s few tabs with their event
/// streams.
pub const MAX_CONNECTIONS: usize = 512;
/// A connection with no request in hand that moves no byte this long is closed.
pub const IDLE: Duration = Duration::from_secs(5);
/// The largest request head (request line and headers) read.
pub const MAX_HEAD: usize = 64 * 1024;

/// What a connection refused for want of room gets before it is closed.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: application/json\r\nContent-Length: 61\r\nConnection: close\r\n\r\n{\"error\": \"too many connections are open, try again shortly\"}";

/// Serves `app` on `listener` within the bounds above until the process ends.
pub async fn serve(listener: TcpListener, app: Router) -> io::Result<()> {
    let open = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(_) => {
                // out of file descriptors, say: wait for some to come back instead of spinning
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        match open.clone().try_acquire_owned() {
            Ok(permit) => {
                let app = app.clone();
                tokio::spawn(async move {
                    connection(stream, app).await;
                    drop(permit);
                });
            }
            // a socket's buffer takes the whole answer: one try, then it is closed
            Err(_) => {
                let _ = stream.try_write(BUSY);
            }
        }
    }
}

/// When a connection last moved a byte, and its requests in hand.
struct Activity {
    start: Instant,
    /// Milliseconds from `start`.
    last: AtomicU64,
    in_hand: AtomicUsize,
    /// Bytes read since the last request came in hand: the next request's head (and what
    /// follows it in the same reads), held to [`MAX_HEAD`].
    head_read: AtomicUsize,
}

impl Activity {
    fn touch(&self) {
        let ms = self.start.elapsed().as_millis() as u64;
        self.last.store(ms, Ordering::Relaxed);
    }

    fn idle(&self) -> Duration {
        let last = Duration::from_millis(self.last.load(Ordering::Relaxed));
        self.start.elapsed().saturating_sub(last)
    }
}

/// Counts a request in hand while it lives.
struct InHand(Arc<Activity>);

impl Drop for InHand {
    fn drop(&mut self) {
        self.0.in_hand.fetch_sub(1, Ordering::Relaxed);
        self.0.touch();
    }
}

/// Serves one connection until it ends or is idle too long (dropping it closes the socket and
/// drops any handler still running).
async fn connection(stream: TcpStream, app: Router) {
    let _ = stream.set_nodelay(true);
    let activity = Arc::new(Activity {
        start: Instant::now(),
        last: AtomicU64::new(0),
        in_hand: AtomicUsize::new(0),
        head_read: AtomicUsize::new(0),
    });
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: activity.clone(),
    });
    let counted = activity.clone();
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        counted.in_hand.fetch_add(1, Ordering::Relaxed);
        counted.head_read.store(0, Ordering::Relaxed);
        let guard = InHand(counted.clone());
        let mut app = app.clone();
        async move {
            let response = tower_service::Service::call(&mut app, req).await;
            drop(guard);
            response
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(IDLE)
        .max_buf_size(MAX_HEAD)
        .serve_connection(io, service);
    tokio::pin!(conn);
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = tokio::time::sleep(IDLE / 4) => {
                if activity.in_hand.load(Ordering::Relaxed) == 0 && activity.idle() >= IDLE {
                    return;
                }
            }
        }
    }
}

/// A socket that notes every byte it moves in its [`Activity`].
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        // while no request is in hand hyper is reading a head: it gets at most MAX_HEAD bytes
        // of it, so that a head whose end is not among them is too large for it (431)
        let heading = self.activity.in_hand.load(Ordering::Relaxed) == 0;
        let left = MAX_HEAD.saturating_sub(self.activity.head_read.load(Ordering::Relaxed));
        let r = if heading && left > 0 && buf.remaining() > left {
            let (r, n) = {
                let mut part = ReadBuf::new(buf.initialize_unfilled_to(left));
                let r = Pin::new(&mut self.inner).poll_read(cx, &mut part);
                (r, part.filled().len())
            };
            buf.advance(n);
            r
        } else {
            Pin::new(&mut self.inner).poll_read(cx, buf)
        };
        let n = buf.filled().len() - before;
        if n > 0 {
            self.activity.touch();
            if heading {
                self.activity.head_read.fetch_add(n, Ordering::Relaxed);
            }
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, data);
        if let Poll::Ready(Ok(n)) = r {
            if n > 0 {
                self.activity.touch();
            }
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
