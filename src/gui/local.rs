//! `vier gui`'s command: the local server started on an address, and the browser opened on it.

use super::child::EngineCmd;
use super::server;
use std::io::{self, Write};
use std::net::{IpAddr, SocketAddr};

/// `vier gui`'s arguments.
#[derive(clap::Args)]
pub struct GuiArgs {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Address to listen on; anything but 127.0.0.1 lets other machines in.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Engine command (program and arguments, split at spaces); default: this vier.
    #[arg(long)]
    engine: Option<String>,
    /// Do not open the browser.
    #[arg(long)]
    no_open: bool,
}

/// `vier gui`: serves until the process is ended.
pub fn command(args: GuiArgs) -> io::Result<std::process::ExitCode> {
    run(&GuiOptions {
        host: args.host,
        port: args.port,
        engine: args.engine,
        open: !args.no_open,
    })
    .map(|()| std::process::ExitCode::SUCCESS)
}

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

/// Asks the desktop to open the page, and says so when it cannot (no desktop, no opener): the
/// printed address is then the way in. The opener is waited for on a thread of its own, so
/// that it is reaped when it ends (issue 76: a defunct `xdg-open` stayed beside the server).
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(target_os = "windows") {
        "explorer"
    } else {
        "xdg-open"
    };
    let child = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    let url = url.to_string();
    let cannot = move |why: String| {
        eprintln!("vier gui: no browser was opened ({why}): open {url} in one yourself");
    };
    let also = cannot.clone();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return cannot(format!("{opener}: {e}")),
    };
    // `explorer` answers 1 when it has opened the page: only where the status means something
    let judged = !cfg!(target_os = "windows");
    let spawned = std::thread::Builder::new()
        .name("browser".into())
        .spawn(move || match child.wait() {
            Ok(status) if judged && !status.success() => cannot(format!("{opener} {status}")),
            Ok(_) => {}
            Err(e) => cannot(format!("{opener}: {e}")),
        });
    if let Err(e) = spawned {
        also(format!("no thread to wait for {opener}: {e}"));
    }
}
