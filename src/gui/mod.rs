//! `vier gui`: play and analyse in the browser. A local web server serves one embedded page and
//! runs an engine child process per game over the line protocol of `protocol.md`.
//!
//! [`server`] is the HTTP side, [`session`] one tab's game and its engine, [`engine`] the child
//! process and the parsing of its output, [`game`] the rules as the page needs them.

pub mod engine;
pub mod game;
pub mod server;
pub mod session;

use engine::EngineCmd;
use std::io::{self, Write};
use std::net::{IpAddr, SocketAddr};

pub struct GuiOptions {
    pub host: IpAddr,
    /// 0: any free port.
    pub port: u16,
    /// `None`: this binary itself.
    pub engine: Option<String>,
    pub open: bool,
}

/// Serves until the process is ended; returns only if the server cannot start.
pub fn run(opts: &GuiOptions) -> io::Result<()> {
    let engine = match &opts.engine {
        Some(cmd) => {
            EngineCmd::parse(cmd).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?
        }
        None => EngineCmd {
            program: std::env::current_exe()?.to_string_lossy().into_owned(),
            args: Vec::new(),
        },
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(opts.host, opts.port)).await?;
        let addr = listener.local_addr()?;
        let url = if addr.ip().is_unspecified() {
            format!("http://127.0.0.1:{}/", addr.port())
        } else {
            format!("http://{addr}/")
        };
        println!("vier gui: {url}  (Ctrl-C ends it)");
        io::stdout().flush()?;
        if opts.open {
            open_browser(&url);
        }
        crate::http::serve(listener, server::router(engine, addr.ip().is_loopback())).await
    })
}

/// Asks the desktop to open the page; without a desktop the printed URL is enough.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(target_os = "windows") {
        "explorer"
    } else {
        "xdg-open"
    };
    let _ = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}
