//! The `vier` command: the line protocol by default, subcommands for people.

use clap::{Parser, Subcommand};
use std::io::{self, IsTerminal};
use std::process::ExitCode;
use vier::cli;

#[derive(Parser)]
#[command(
    name = "vier",
    version,
    about = "A Connect Four engine. Without a subcommand it speaks the UCI-style protocol of protocol.md on stdin/stdout."
)]
struct Args {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Exact scores for positions read from stdin, one move string per line (optionally followed
    /// by an expected score); prints `<moves> <score> <nodes> <microseconds>` per line.
    Solve(cli::solve::SolveArgs),
    /// Solves and searches a fixed list of positions; the last line `<N> nodes <M> nps` is the
    /// node-count signature of the whole engine.
    Bench,
    /// Build, check or inspect an opening book (exact scores of every early position).
    Book {
        #[command(subcommand)]
        cmd: cli::book::BookCmd,
    },
    /// Proves a position's value (win/draw/loss, or the exact score) in jobs that this machine,
    /// GNU parallel, xargs or Slurm run; resumable, with a certificate to verify (docs/prove.md).
    Prove(cli::prove::ProveArgs),
    /// Counts move sequences of a given length from a position (rules check).
    Perft(cli::PerftArgs),
    /// Play Connect Four against the engine in the terminal (type a column number and Enter).
    Play(cli::play::PlayArgs),
    /// Play and analyse in the browser: serves a local page and prints its address.
    Gui(vier::gui::GuiArgs),
    /// Serve `GET /solve?pos=4453` (every column's exact score as JSON, in the shape of Pascal
    /// Pons' web solver) over HTTP.
    Serve(vier::serve::ServeArgs),
    /// Runs an engine of `vier gui` and ends everything it started with it (`vier gui` starts
    /// it; not for people).
    #[cfg(unix)]
    #[command(hide = true)]
    KeepEngine {
        /// The engine's program and arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        cmd: Vec<String>,
    },
}

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        None => {
            // a person at a terminal learns what this is; a GUI's pipe gets nothing
            if io::stdin().is_terminal() {
                println!("{}", vier::protocol::help::banner());
            }
            Ok(ExitCode::from(vier::protocol::run(
                io::stdin(),
                io::stdout(),
            )))
        }
        Some(Cmd::Solve(args)) => cli::solve::command(args),
        Some(Cmd::Bench) => {
            vier::protocol::bench::run(&mut io::stdout().lock()).map(|_| ExitCode::SUCCESS)
        }
        Some(Cmd::Book { cmd }) => cli::book::command(cmd),
        Some(Cmd::Prove(args)) => cli::prove::command(args),
        Some(Cmd::Perft(args)) => cli::perft_command(args),
        Some(Cmd::Play(args)) => cli::play::command(args),
        Some(Cmd::Gui(args)) => vier::gui::command(args),
        Some(Cmd::Serve(args)) => vier::serve::command(args),
        #[cfg(unix)]
        Some(Cmd::KeepEngine { cmd }) => vier::keeper::run(&cmd),
    };
    match result {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
