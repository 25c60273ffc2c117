#!/usr/bin/env python3
"""referee.py - engine-versus-engine Connect Four matches you can trust.

Python 3.11 standard library only.  See `referee.py --help` and tools/README.md.

The referee is the arbiter: it keeps its own board, checks every move the
engines send, detects four in a row and full boards itself, and measures time
with its own monotonic clock.  Nothing an engine claims is trusted.  This
script is the command line; the referee itself is in viertools/.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import signal
import sys

from viertools.compliance import Compliance
from viertools.engine import ProtocolLog
from viertools.game import EngineSpec, Settings, now_iso
from viertools.match import Match
from viertools.openings import Schedule, load_openings
from viertools.results import read_results
from viertools.rules import NOTATIONS, parse_size
from viertools.stats import SPRT_MODEL, Sprt
from viertools.timecontrol import TimeControl

HELP_EPILOG = """\
engine options (repeat the group once per engine; two engines, or any number
with --tournament):
  --engine CMD        command line of an engine (split like a shell would),
                      e.g. "/usr/games/fairy-stockfish load tools/fairy-stockfish/cfour.ini"
  --name N            name for the engine just given (default: program name)
  --option Name=Value send 'setoption name Name value Value' to that engine
  --tc TC             time control for that engine only; a --tc before the
                      first --engine applies to all engines
  --notation N        digits | cfour: how to speak to that engine (default:
                      cfour drops and FENs if its 'uci' offers UCI_Variant
                      cfour, then 'setoption name UCI_Variant value cfour' is
                      sent after its --options; column digits otherwise)

time controls (TC):
  movetime=MS         fixed time per move ('go movetime MS'); over MS + margin
                      is a time forfeit
  BASE+INC            BASE seconds per game plus INC seconds per move, e.g.
                      10+0.1 ('go wtime .. btime .. winc .. binc ..'); the
                      referee runs the clocks, running out (beyond margin) is
                      a time forfeit
  depth=N, nodes=N    'go depth N' / 'go nodes N'; a hard watchdog
                      (--move-timeout) declares a stall if no bestmove comes

how games end (field "termination" in the results):
  win           four in a row (any direction), detected by the referee
  draw          full board
  time_forfeit  the engine answered after its time (+ margin) had run out
  illegal_move  a move not in the engine's notation, out of range, into a
                full column, or a drop onto a floating or taken cell
  crash         the engine exited or closed its pipes (also: failed to start, or
                exited while a process it started holds its output open)
  stall         no reply: no bestmove within the watchdog or within --grace
                after 'stop', no uciok / readyok within their timeouts
  The offender loses.  Every engine runs in a process group of its own, and
  the whole group is killed whenever the referee ends the engine (a crash,
  a stall, the end of the match).  After a crash or stall the match stops
  (exit 1, results kept) unless --recover is given, which restarts the engine.

results file (--out / --resume): JSON lines; first a {"type":"match"} header,
then one {"type":"game"} line per finished game, flushed at once, with
opening, colours (first/second = A or B), engine names, moves, per ply the
time used and the engine's last depth/score, termination, reason and result
("1-0" = first player won; score_a = points of engine A).

summary: W/D/L from engine A's view (the first --engine), score, Elo with a
95% interval (pentanomial over pairs and trinomial over games), LOS, draw
ratio, pentanomial pair counts and, with --sprt, the LLR (logistic Elo,
GSPRT approximation over pentanomial pairs) with its bounds.

examples:
  referee.py --engine target/release/vier --name new \\
             --engine old/vier --name old --tc movetime=100 --games 200 \\
             --openings tools/openings.txt --concurrency 2 --out new-old.jsonl
  referee.py --tc 10+0.1 --engine ./a --engine ./b \\
             --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 --max-games 20000 \\
             --openings tools/openings.txt --seed 1 --out sprt.jsonl
  referee.py --resume sprt.jsonl --tc 10+0.1 --engine ./a --engine ./b \\
             --sprt elo0=0 elo1=10 --openings tools/openings.txt --seed 1
  referee.py --compliance target/release/vier

exit status: 0 finished, 1 match stopped by a failing engine, 2 usage
error, 130 interrupted; --compliance: 0 all checks passed, 1 otherwise.
"""

ENGINE_SCOPED = ("--engine", "--name", "--option", "--tc", "--notation")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="referee.py",
        description="Play Connect Four engine-versus-engine matches (UCI-style protocol)\n"
                    "with the referee as the only arbiter of rules and time, or check one\n"
                    "engine's protocol compliance (--compliance CMD).",
        epilog=HELP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("engines (see below: these bind to the preceding --engine)")
    g.add_argument("--engine", metavar="CMD", action="append", help="engine command (give two, or more "
                   "with --tournament)")
    g.add_argument("--name", metavar="N", action="append", help="name of the preceding engine")
    g.add_argument("--option", metavar="Name=Value", action="append", help="UCI option for the preceding engine")
    g.add_argument("--tc", metavar="TC", action="append",
                   help="time control: movetime=MS | BASE+INC | depth=N | nodes=N")
    g.add_argument("--notation", metavar="digits|cfour", action="append",
                   help="force the preceding engine's notation (default: from its uci options)")
    m = p.add_argument_group("match")
    m.add_argument("--games", type=int, metavar="N",
                   help="number of games (pairs of colour-swapped games); with --tournament per pairing")
    m.add_argument("--tournament", choices=("round-robin", "gauntlet"),
                   help="any number of engines: every pair meets (round-robin) or the first engine "
                        "meets each other one (gauntlet); a joint Elo table at the end")
    m.add_argument("--sprt", nargs="+", metavar="K=V",
                   help="run an SPRT instead: elo0=0 elo1=10 alpha=0.05 beta=0.05 (logistic Elo)")
    m.add_argument("--max-games", type=int, metavar="N", help="with --sprt: stop after N games at most")
    m.add_argument("--openings", nargs="+", metavar="FILE|K=V",
                   help="opening file, as FILE or file=FILE, with format=moves|epd|pgn (default: by "
                        "the extension .epd/.pgn, else one move string per line, '4453' or "
                        "'4 4 5 3', '#' comments), order=sequential|random, plies=N (use the first "
                        "N moves); each opening is played twice with colours swapped (default: the "
                        "empty board)")
    m.add_argument("--seed", type=int, metavar="S",
                   help="play openings in an order shuffled with seed S (default: file order)")
    m.add_argument("--size", default="7x6", metavar="WxH",
                   help="board size (default 7x6; others sent as setoption Width/Height)")
    m.add_argument("--concurrency", type=int, default=1, metavar="K",
                   help="games played at once, each with its own engine processes (default 1)")
    m.add_argument("--out", metavar="FILE.jsonl", help="write results (JSON lines) to FILE; must not exist yet")
    m.add_argument("--pgn", metavar="FILE.pgn",
                   help="also write every game as PGN (cutechess's cfour), appended per game; on "
                        "--resume rewritten from the results file first")
    m.add_argument("--resume", metavar="FILE.jsonl",
                   help="continue the match recorded in FILE: play only its missing games, appending to it")
    m.add_argument("--recover", action="store_true",
                   help="restart an engine that crashed or stalled and carry on (default: stop the match)")
    m.add_argument("--log", metavar="FILE", help="append all protocol traffic to FILE (debugging)")
    t = p.add_argument_group("timing")
    t.add_argument("--margin", type=float, default=50.0, metavar="MS",
                   help="tolerance in ms over movetime / clock for process latency (default 50)")
    t.add_argument("--grace", type=float, default=1000.0, metavar="MS",
                   help="after time is up the referee sends 'stop'; no bestmove within this many ms "
                        "more is a stall (default 1000)")
    t.add_argument("--startup-timeout", type=float, default=10.0, metavar="SEC",
                   help="seconds to wait for 'uciok' after 'uci' (default 10)")
    t.add_argument("--isready-timeout", type=float, default=5.0, metavar="SEC",
                   help="seconds to wait for 'readyok' after 'isready' (default 5)")
    t.add_argument("--move-timeout", type=float, default=60.0, metavar="SEC",
                   help="watchdog for depth=/nodes= searches: seconds without bestmove "
                        "before a stall (default 60)")
    c = p.add_argument_group("compliance")
    c.add_argument("--compliance", metavar="CMD",
                   help="check one engine against the protocol, print PASS/FAIL per check")
    return p


def split_engine_args(argv, parser):
    """Pull the engine-scoped options out of argv, in order; returns (engines, global_tc, rest)."""
    engines, global_tc, rest = [], None, []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            rest.extend(argv[i:])
            break
        key, eq, val = tok.partition("=") if tok.startswith("--") else (tok, "", "")
        if key in ENGINE_SCOPED:
            if eq:
                value, i = val, i + 1
            else:
                if i + 1 >= len(argv):
                    parser.error(f"{key} needs a value")
                value, i = argv[i + 1], i + 2
            if key == "--engine":
                engines.append({"cmd": value, "name": None, "options": [], "tc": None, "notation": None})
            elif not engines:
                if key == "--tc":
                    if global_tc is not None:
                        parser.error("two --tc before the first --engine")
                    global_tc = value
                else:
                    parser.error(f"{key} must follow the --engine it belongs to")
            elif key == "--name":
                engines[-1]["name"] = value
            elif key == "--option":
                engines[-1]["options"].append(value)
            elif key == "--notation":
                if value not in NOTATIONS:
                    parser.error(f"--notation {value}: want one of {', '.join(NOTATIONS)}")
                engines[-1]["notation"] = value
            else:
                if engines[-1]["tc"] is not None:
                    parser.error("two --tc for the same engine")
                engines[-1]["tc"] = value
        else:
            rest.append(tok)
            i += 1
    return engines, global_tc, rest


def parse_openings_arg(tokens) -> dict:
    """--openings FILE | file=FILE [format=moves|epd|pgn] [order=sequential|random] [plies=N]."""
    out = {"file": None, "format": None, "order": None, "plies": None}
    for tok in tokens or []:
        key, eq, value = tok.partition("=")
        if not eq and out["file"] is None:
            key, value = "file", tok
        elif key not in out or not eq:
            raise ValueError(f"--openings: '{tok}' (want FILE, file=, format=, order=, plies=)")
        out[key] = value
    if tokens and out["file"] is None:
        raise ValueError("--openings: no file given")
    if out["order"] not in (None, "sequential", "random"):
        raise ValueError(f"--openings order={out['order']}: want sequential or random")
    if out["plies"] is not None:
        if not out["plies"].isdigit() or int(out["plies"]) < 0:
            raise ValueError(f"--openings plies={out['plies']}: want a count of moves")
        out["plies"] = int(out["plies"])
    return out


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    engines, global_tc, rest = split_engine_args(argv, parser)
    args = parser.parse_args(rest)
    try:
        width, height = parse_size(args.size)
    except ValueError as e:
        parser.error(str(e))
    log = ProtocolLog(args.log)
    settings = Settings(width, height, args.margin, args.grace, args.startup_timeout,
                        args.isready_timeout, args.move_timeout, log)

    if args.compliance:
        if engines:
            parser.error("--compliance takes the engine command itself; no --engine")
        return Compliance(args.compliance, settings).run()

    if args.tournament is None and len(engines) != 2:
        parser.error(f"need exactly two --engine options (got {len(engines)}; more with --tournament)")
    if args.tournament is not None and len(engines) < 2:
        parser.error(f"--tournament needs at least two --engine options (got {len(engines)})")
    if args.tournament is not None and args.sprt is not None:
        parser.error("--sprt is for a match of two engines, not a --tournament")
    if (args.games is None) == (args.sprt is None):
        parser.error("give either --games N or --sprt ...")
    if args.games is not None and args.games <= 0:
        parser.error("--games must be positive")
    if args.max_games is not None and args.sprt is None:
        parser.error("--max-games only goes with --sprt")
    if args.concurrency < 1:
        parser.error("--concurrency must be at least 1")
    sprt = None
    if args.sprt is not None:
        try:
            sprt = Sprt.parse(args.sprt)
        except ValueError as e:
            parser.error(str(e))

    specs = []
    for k, e in enumerate(engines):
        role = "AB"[k] if len(engines) == 2 else f"#{k + 1}"
        tc_text = e["tc"] or global_tc
        if tc_text is None:
            parser.error(f"engine {role} ('{e['cmd']}') has no time control: put --tc before the first "
                         f"--engine for all, or after each --engine for that engine")
        try:
            tc = TimeControl.parse(tc_text)
            argv0 = shlex.split(e["cmd"])
        except ValueError as err:
            parser.error(str(err))
        if not argv0:
            parser.error("empty --engine command")
        name = e["name"] or os.path.basename(argv0[0])
        try:
            specs.append(EngineSpec(e["cmd"], name, e["options"], tc, e["notation"]))
        except ValueError as err:
            parser.error(str(err))
    names = [spec.name for spec in specs]
    for k, spec in enumerate(specs):  # the same name twice: number them all
        if names.count(spec.name) > 1:
            spec.name += f"#{names[:k + 1].count(spec.name)}"
    pairings = None
    if args.tournament == "round-robin":
        pairings = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    elif args.tournament == "gauntlet":
        pairings = [(0, j) for j in range(1, len(specs))]

    try:
        source = parse_openings_arg(args.openings)
        openings = load_openings(source["file"], width, height, source["format"], source["plies"])
    except (OSError, ValueError) as e:
        parser.error(str(e))
    seed = args.seed
    if source["order"] == "sequential":
        seed = None
    elif source["order"] == "random" and seed is None:
        seed = random.randrange(1 << 31)  # recorded in the header; --resume takes it from there

    header = {"type": "match", "version": 1, "started": now_iso(), "size": f"{width}x{height}",
              "engines": ({r: spec.to_json() for r, spec in zip("AB", specs)} if pairings is None
                          else [spec.to_json() for spec in specs]),
              "tournament": args.tournament, "pairings": pairings,
              "openings": openings, "seed": seed, "games": args.games,
              "sprt": ({"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
                        "max_games": args.max_games, "model": SPRT_MODEL} if sprt else None),
              "margin_ms": args.margin, "argv": argv}
    done = {}
    out_path = args.out
    if args.resume:
        if args.out and os.path.abspath(args.out) != os.path.abspath(args.resume):
            parser.error("--resume appends to its own file; do not give a different --out")
        out_path = args.resume
        if not os.path.exists(args.resume):
            parser.error(f"--resume: {args.resume} does not exist")
        old, done, bad = read_results(args.resume)
        if bad:
            print(f"referee: {args.resume}: ignored {bad} unreadable line(s) "
                  f"(e.g. cut off when the referee was killed)", file=sys.stderr)
        if old is not None:
            if source["order"] == "random" and args.seed is None:
                header["seed"] = old.get("seed")  # the shuffle the run started with
            diffs = [k for k in ("size", "openings", "seed", "tournament") if old.get(k) != header[k]]
            if diffs:
                parser.error(f"--resume: the schedule differs from {args.resume} in: {', '.join(diffs)} "
                             f"(give the same --size / --openings / --seed / --tournament)")
            old_engines = old["engines"] if isinstance(old["engines"], list) else \
                [old["engines"][r] for r in ("A", "B") if r in old["engines"]]
            if len(old_engines) != len(specs):
                parser.error(f"--resume: {args.resume} has {len(old_engines)} engines, not {len(specs)}")
            for k, (o, spec) in enumerate(zip(old_engines, specs)):
                if o["name"] != spec.name or o["cmd"] != spec.cmd:
                    print(f"referee: warning: engine {k + 1} ({spec.name}) differs from the one in "
                          f"{args.resume}", file=sys.stderr)
        elif done:
            print(f"referee: warning: {args.resume} has no match header", file=sys.stderr)
        bad_size = [g for g, r in done.items() if r.get("size") != header["size"]]
        if bad_size:
            parser.error(f"--resume: {len(bad_size)} recorded games have another board size")
        print(f"referee: resuming {args.resume}: {len(done)} game(s) already played", file=sys.stderr)
    elif out_path and os.path.exists(out_path) and os.path.getsize(out_path) > 0:
        parser.error(f"--out {out_path} already exists; use --resume {out_path} to continue it, "
                     f"or choose another file")
    elif args.pgn and os.path.exists(args.pgn) and os.path.getsize(args.pgn) > 0:
        parser.error(f"--pgn {args.pgn} already exists (only --resume rewrites a PGN)")

    try:
        match = Match(specs, settings, Schedule(openings, header["seed"]), args.games, sprt,
                      args.max_games, args.concurrency, args.recover, out_path, done, header,
                      pairings=pairings, pgn_path=args.pgn)
    except OSError as e:
        parser.error(f"cannot write results: {e}")

    def on_term(signum, frame):
        raise KeyboardInterrupt()

    try:
        signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # not in the main thread (e.g. called from tests)
        pass
    return match.run()


if __name__ == "__main__":
    sys.exit(main())
