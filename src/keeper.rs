//! The keeper of one engine of `vier gui`, or one job of `vier prove` (`vier keep-engine -- CMD...`,
//! a hidden subcommand): a small process between vier and the engine that ends, with the engine,
//! every process the engine started (issue 68: an engine that started a child in a session of
//! its own and exited left the child behind, and a hung engine outlived the GUI). [`signal`] is
//! vier's one way to send a process a signal.
//!
//! The engine runs in a process group of its own, on the keeper's standard input and output,
//! which the keeper itself then lets go of: the GUI's pipes reach the engine directly. On Linux
//! the keeper is its engine's subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`): whatever the engine
//! starts and leaves behind, in whatever group or session, becomes the keeper's child, not
//! init's. The keeper ends its engine's group and all its children (and their groups, over and
//! over until none is left) when
//!
//! * the engine exits (so that no process it left holds the GUI's pipe open or a core busy),
//! * the keeper gets `SIGTERM`, `SIGINT` or `SIGHUP` (the GUI ending the engine), or
//! * the GUI is gone (the keeper's parent changes: the GUI ended by any signal, even `SIGKILL`),
//!
//! and then exits as its engine did (its status, or its signal). The engine dies with its keeper
//! (`PR_SET_PDEATHSIG`), should the keeper be killed outright. Elsewhere than on Linux, the
//! engine's group is ended, and processes that left it are not found.

use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The keeper's one line when the engine cannot be started, before the reason.
pub const CANNOT_START: &str = "keep-engine: cannot start engine ";

/// Set by the signal handler: the GUI (or a person) asks the keeper to end its engine.
static ASKED_TO_END: AtomicBool = AtomicBool::new(false);

extern "C" fn end_asked(_: libc::c_int) {
    ASKED_TO_END.store(true, Ordering::SeqCst);
}

/// How often the keeper looks at its engine, its signals and its parent.
const LOOK_EVERY: Duration = Duration::from_millis(20);

/// Runs `cmd` (a program and its arguments) as the kept engine until one of the ends above;
/// the exit code mirrors the engine's.
pub fn run(cmd: &[String]) -> std::io::Result<ExitCode> {
    use std::os::unix::process::CommandExt;
    let Some((program, args)) = cmd.split_first() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "keep-engine needs the engine's command",
        ));
    };
    // SAFETY: getppid and getpid cannot fail; the handler only stores to an atomic, which is
    // async-signal-safe; prctl sets a flag of this process.
    let (parent, me) = unsafe {
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::signal(sig, end_asked as *const () as libc::sighandler_t);
        }
        #[cfg(target_os = "linux")]
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        (libc::getppid(), libc::getpid())
    };
    let mut command = Command::new(program);
    command.args(args).process_group(0);
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe; the engine is killed when its keeper dies.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            Ok(())
        });
    }
    let engine = match command.spawn() {
        Ok(child) => child.id() as libc::pid_t,
        Err(e) => {
            // the GUI reads this as the reason, in place of the handshake
            println!("{CANNOT_START}'{program}': {e}");
            return Ok(ExitCode::from(127));
        }
    };
    let_go_of_the_pipes();
    let mut status = None;
    while status.is_none() {
        std::thread::sleep(LOOK_EVERY);
        status = reap(engine);
        // SAFETY: getppid cannot fail
        let orphaned = unsafe { libc::getppid() } != parent;
        if ASKED_TO_END.load(Ordering::SeqCst) || orphaned {
            break;
        }
    }
    end_all(engine, me);
    status = status.or_else(|| reap(engine));
    Ok(mirror(status))
}

/// Points the keeper's own standard input and output at /dev/null: the engine holds the GUI's
/// pipes, and once it and what it started are gone the GUI sees the end of its output.
fn let_go_of_the_pipes() {
    // SAFETY: plain descriptor calls on this process's own descriptors
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::dup2(null, 1);
            if null > 2 {
                libc::close(null);
            }
        }
    }
}

/// Reaps every child that has ended (left-behind processes that became the keeper's too); the
/// engine's wait status if it was among them.
fn reap(engine: libc::pid_t) -> Option<libc::c_int> {
    let mut found = None;
    loop {
        let mut st = 0;
        // SAFETY: waitpid writes the status of an ended child of this process
        let pid = unsafe { libc::waitpid(-1, &mut st, libc::WNOHANG) };
        if pid <= 0 {
            return found;
        }
        if pid == engine {
            found = Some(st);
        }
    }
}

/// Sends `sig` to the process `pid`, or with a negative `pid` to its group. Harmless when the
/// process is gone (the call fails); callers signal only processes they started and have not
/// reaped, so that the pid is not another's.
pub fn signal(pid: libc::pid_t, sig: libc::c_int) {
    // SAFETY: kill only sends a signal
    unsafe {
        libc::kill(pid, sig);
    }
}

/// Ends the engine's group and every process left with the keeper, over and over: a killed
/// process's children become the keeper's in turn (on Linux), until none is left.
fn end_all(engine: libc::pid_t, me: libc::pid_t) {
    signal(-engine, libc::SIGKILL);
    signal(engine, libc::SIGKILL);
    // SAFETY: getpgrp cannot fail
    let own_group = unsafe { libc::getpgrp() };
    for _ in 0..1000 {
        reap(0);
        let children = children_of(me);
        if children.is_empty() {
            return;
        }
        for pid in children {
            // a child's group too, never the keeper's own nor its parent's: a child in one of
            // them is ended alone
            // SAFETY: getpgid and getppid only read
            let (group, parents) = unsafe { (libc::getpgid(pid), libc::getpgid(libc::getppid())) };
            if group > 1 && group != own_group && group != parents {
                signal(-group, libc::SIGKILL);
            }
            signal(pid, libc::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The processes whose parent is `pid` (from /proc; none where there is no /proc).
fn children_of(pid: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|&p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                // "pid (name) state ppid ...": the name may hold spaces and parentheses
                s.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse().ok())
                    == Some(pid)
            })
        })
        .collect()
}

/// The keeper's exit: the engine's exit code, or its death by the same signal.
fn mirror(status: Option<libc::c_int>) -> ExitCode {
    let Some(st) = status else {
        return ExitCode::FAILURE;
    };
    if libc::WIFEXITED(st) {
        return ExitCode::from(libc::WEXITSTATUS(st) as u8);
    }
    if libc::WIFSIGNALED(st) {
        let sig = libc::WTERMSIG(st);
        // SAFETY: the default action for the signal, then the signal to this process
        let me = unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::getpid()
        };
        signal(me, sig);
    }
    ExitCode::FAILURE
}
