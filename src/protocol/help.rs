//! What `vier` says to a person at a terminal (issue 60): one line naming itself and the
//! protocol when it starts on one, and the commands for `help`. A GUI never sees the first (its
//! input is a pipe) and never sends the second.

/// The line `vier` prints when it starts with a terminal as its input.
pub fn banner() -> String {
    format!(
        "vier {} by the vier developers: a Connect Four engine speaking the UCI-style protocol of \
         protocol.md (type help for the commands, quit to leave)",
        env!("CARGO_PKG_VERSION")
    )
}

/// The answer to `help`: the commands, one a line, with what they do (protocol.md has all).
pub const HELP: &[&str] = &[
    "commands (protocol.md describes them all):",
    "  uci | ugi                          identify, list the options, uciok / ugiok",
    "  isready                            readyok once the engine is ready",
    "  setoption name <N> [value <V>]     set an option (uci lists them)",
    "  ucinewgame                         forget the tables of the last game",
    "  position startpos|fen <B> [moves <M>...]   set the position (moves: 4453, P@d1, ...)",
    "  go [movetime <ms>|wtime <ms> btime <ms> [winc <ms> binc <ms>]|depth <n>|nodes <n>|infinite]",
    "                                     search; info lines, then bestmove",
    "  go perft <n>                       count the move sequences of n plies",
    "  stop | ponderhit                   end the search / the pondered move was played",
    "  d | eval                           the board / the static evaluation",
    "  query gameover|p1turn|result       UGI's questions",
    "  bench                              the node-count signature of the engine",
    "  debug on|off                       print the deadlines of each go",
    "  help                               this list",
    "  quit                               leave",
    "other subcommands: vier --help (play, solve, gui, serve, book, perft, bench)",
];
