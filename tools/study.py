#!/usr/bin/env python3
"""study.py - what each idea of the lecture buys vier, as thinking time grows.  A reproducible study.

    python3 tools/study.py                      # the full study -> target/study/
    python3 tools/study.py --out-dir docs/study # ... renewing the committed one
    python3 tools/study.py --quick --out-dir /tmp/q
    python3 tools/study.py --replot --out-dir docs/study   # report and plots from results.json

The engine's `SearchLevel` option switches the lecture's techniques on one at a time: 1 minimax,
2 alpha-beta (fixed column order), 3 + ordering by the heuristic, 4 + iterative deepening with the
transposition table, 5 + PVS, killers and history, 6 + the exact solver, 7 + the opening book (the
full engine).  Three parts (`--parts`), each on a fixed sample of Pascal Pons' positions (begin:
Test_L1_R2, middle: Test_L2_R2, end: Test_L3_R1, drawn with `--seed`):

1. depth: the cost of a depth.  Levels 1-5 search `--depth-positions` positions per phase with
   `go depth D` (D capped per level, `--depth-ms` per search at most); every `info depth d` line
   gives the nodes and time to finish depth d.  The effective branching factor is the growth of
   those nodes per ply.
2. sweep: each level at each thinking time (`go movetime T`, `MoveOverhead 0`; levels 1-3 only
   up to `--low-max-ms`): depth reached, the share of positions proven, and move accuracy on
   critical positions (where some legal move throws the game value away) against the exact
   column scores of `vier solve --all` (cached in `--oracle`, checked against Pons' scores).
3. elo: matches through tools/referee.py from the balanced openings (pairs of colour-swapped
   games, one game at a time) against one reference, vier at `--ref-ms`: vier at each of
   `--elo-times`, Fairy-Stockfish at each of `--fsf-times`, every level at `--level-ms`; and vier
   against Fairy-Stockfish at equal time per move (`--h2h-times`).

Intervals: 95% everywhere (Wilson for shares, mean ± 1.96 standard errors for depths,
pentanomial pairs for Elo).  Output in --out-dir (target/study/ by default, never the committed
docs/study/ unless it is named): results.json (everything, and all the raw numbers the report
needs), positions.csv, depth.csv, matches/*.jsonl (game records), report.md and the plots (SVG).
The exact scores are cached in --oracle (<out-dir>/oracle.json); a new folder starts from a copy
of the committed docs/study/oracle.json, which holds those of the default sample.  Plots need matplotlib (`python3 -m pip install matplotlib`); the full study
fails without it, --quick skips the plots with a warning.

The engine binary is copied to a temporary file first, so a rebuild of target/release/vier
during the study does not mix two engines.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from viertools.accuracy import ENGINE_OPTIONS, measure
from viertools.engine import EngineProcess
from viertools.oracle import ensure_oracle
from viertools.study.depth import depth_costs
from viertools.study.design import (DEFAULT_TIMES, DEPTH_CAPS, DEPTH_LEVELS, LEVELS, QUICK_TIMES,
                                    sample_positions)
from viertools.study.matches import find_fsf, match_plan, play_match
from viertools.study.plots import have_matplotlib, plot
from viertools.study.report import fmt_elo, pct, report_md
from viertools.study.strength import strength_of
from viertools.study.sweep import summarize_positions

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def write_outputs(out_dir: str, res: dict) -> list[str]:
    plotted = plot(out_dir, res) if have_matplotlib() else []
    with open(os.path.join(out_dir, "report.md"), "w") as fh:
        fh.write(report_md(res, plotted))
    return plotted


def git_info() -> tuple[str, bool]:
    try:
        # the last commit that changed the engine (src/, Cargo files), not docs or tools
        commit = subprocess.run(["git", "log", "-1", "--format=%h", "--", "src", "Cargo.toml",
                                 "Cargo.lock"], cwd=ROOT,
                                capture_output=True, text=True).stdout.strip() or "unknown"
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--", "src", "Cargo.toml",
                                     "Cargo.lock"], cwd=ROOT, capture_output=True,
                                    text=True).stdout.strip())
        return commit, dirty
    except OSError:
        return "unknown", False


def engine_id(binary: str) -> tuple[str, bool]:
    """The engine's name, and whether it has the SearchLevel option."""
    eng = EngineProcess([binary], "study")
    try:
        eng.start()
        eng.handshake(10, 30, [])
    finally:
        eng.quit(5)
    return eng.id_name or "unknown", eng.option("SearchLevel") is not None


def replot(out_dir: str) -> int:
    path = os.path.join(out_dir, "results.json")
    if not os.path.exists(path):
        print(f"study.py: --replot needs {path}", file=sys.stderr)
        return 2
    with open(path) as fh:
        res = json.load(fh)
    if "sweep" not in res:
        print(f"study.py: {path} was written by an older study.py (no levels): run the study",
              file=sys.stderr)
        return 2
    write_outputs(out_dir, res)
    return 0


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()] if text else []


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "vier"),
                    help="engine binary (default target/release/vier)")
    ap.add_argument("--parts", default="depth,sweep,elo", help="which parts (default all three)")
    ap.add_argument("--levels", help="search levels (default 1-7)")
    ap.add_argument("--times", help="thinking times of the sweep in ms (default 1,3,...,1000)")
    ap.add_argument("--low-max-ms", type=int, help="levels 1-3 only up to this time (default 300)")
    ap.add_argument("--positions", type=int, help="sweep positions per phase (default 50, quick 2)")
    ap.add_argument("--depth-positions", type=int, help="depth-cost positions per phase (default 10, quick 1)")
    ap.add_argument("--depth-ms", type=int, default=4000, help="time cap of a depth-cost search (default 4000)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the position sample (default 1)")
    ap.add_argument("--games", type=int, help="games per match (even; default 60, quick 2)")
    ap.add_argument("--ref-ms", type=int, default=10, help="the reference's ms per move (default 10)")
    ap.add_argument("--elo-times", help="vier's times against the reference (default 1,3,10,30,100,300,1000)")
    ap.add_argument("--fsf-times", help="Fairy-Stockfish's times against the reference (default 10,30,100,300,1000)")
    ap.add_argument("--h2h-times", help="equal times of vier against Fairy-Stockfish (default 10,100)")
    ap.add_argument("--level-ms", help="every level against the reference at these times (default 30; '': none)")
    ap.add_argument("--openings", default=os.path.join(HERE, "openings.txt"))
    ap.add_argument("--margin", type=int, default=50, help="referee --margin in ms (default 50)")
    ap.add_argument("--data", default=os.path.join(ROOT, "tests", "data", "pons"),
                    help="directory of Pons' Test_* files (default tests/data/pons)")
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "target", "study"),
                    help="where the results go (default target/study; docs/study renews the "
                    "committed study)")
    ap.add_argument("--oracle", help="cached exact scores (default <out-dir>/oracle.json, "
                    "started from docs/study/oracle.json)")
    ap.add_argument("--commit", help="the commit the binary was built from, for the report")
    ap.add_argument("--option", action="append", default=[], metavar="Name=Value",
                    help="an engine option for every vier of the study, e.g. --option Hash=64")
    ap.add_argument("--resume", action="store_true",
                    help="continue the matches of an interrupted run (keep matches/*.jsonl)")
    ap.add_argument("--merge", action="store_true",
                    help="add this run's measurements to <out-dir>/results.json (the same settings "
                    "otherwise), e.g. more match times, instead of starting afresh")
    ap.add_argument("--replot", action="store_true",
                    help="only redraw the plots and rewrite report.md from <out-dir>/results.json")
    ap.add_argument("--quick", action="store_true",
                    help="a short smoke run: times 3,30, 2 positions per phase, 2 games a match")
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)

    if args.replot:
        return replot(args.out_dir)
    q = args.quick
    parts = set(args.parts.split(","))
    if not parts <= {"depth", "sweep", "elo"}:
        ap.error(f"--parts {args.parts}: expected some of depth,sweep,elo")
    args.levels = ints(args.levels) or LEVELS
    if not set(args.levels) <= set(LEVELS):
        ap.error(f"--levels: levels are 1..7")
    times = ints(args.times) or (QUICK_TIMES if q else DEFAULT_TIMES)
    args.low_max_ms = args.low_max_ms or (30 if q else 300)
    args.positions = args.positions or (2 if q else 50)
    args.depth_positions = args.depth_positions or 1 if q else args.depth_positions or 10
    args.games = args.games if args.games is not None else (2 if q else 60)
    args.elo_times = ints(args.elo_times) if args.elo_times is not None else (QUICK_TIMES if q else DEFAULT_TIMES)
    args.fsf_times = ints(args.fsf_times) if args.fsf_times is not None else ([30] if q else [10, 30, 100, 300, 1000])
    args.h2h_times = ints(args.h2h_times) if args.h2h_times is not None else ([30] if q else [10, 100])
    args.level_ms = ints(args.level_ms) if args.level_ms is not None else [30]
    if args.games % 2:
        ap.error("--games must be even (pairs of colour-swapped games)")
    if not args.oracle:
        args.oracle = os.path.join(args.out_dir, "oracle.json")
        committed = os.path.join(ROOT, "docs", "study", "oracle.json")
        if not os.path.exists(args.oracle) and os.path.exists(committed):
            # exact scores are the same for every run: start from the committed cache
            os.makedirs(args.out_dir, exist_ok=True)
            shutil.copy(committed, args.oracle)
    args.openings = os.path.abspath(args.openings)
    for opt in args.option:
        name, eq, value = opt.partition("=")
        if not eq or not name.strip():
            ap.error(f"--option {opt!r}: expected Name=Value")
        ENGINE_OPTIONS[name.strip()] = value.strip()
    if not (os.path.isfile(args.bin) and os.access(args.bin, os.X_OK)):
        ap.error(f"--bin {args.bin}: not an executable file (build with cargo build --release)")
    fsf = find_fsf()
    if "elo" in parts and (args.fsf_times or args.h2h_times) and not fsf:
        raise SystemExit("Fairy-Stockfish is not installed (apt-get install -y fairy-stockfish); "
                         "or give --fsf-times '' --h2h-times ''")
    if not have_matplotlib() and not q:
        raise SystemExit("matplotlib is needed for the plots: python3 -m pip install matplotlib")

    def log(msg):
        print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)

    t_start = time.monotonic()
    os.makedirs(os.path.join(args.out_dir, "matches"), exist_ok=True)
    log(f"writing to {os.path.abspath(args.out_dir)}")
    commit, dirty = (args.commit, False) if args.commit else git_info()
    depth_runs, sweep, rows, matches = {}, {}, [], {}
    cmd = "python3 tools/study.py" + ("" if argv is None and len(sys.argv) == 1 else
                                      " " + " ".join(argv if argv is not None else sys.argv[1:]))
    meta = {"command": cmd, "engine_id": None, "commit": commit, "dirty": dirty,
            "cpus": os.cpu_count(), "times": times, "engine_options": dict(ENGINE_OPTIONS),
            "args": {"positions": args.positions, "depth_positions": args.depth_positions,
                     "depth_ms": args.depth_ms, "low_max_ms": args.low_max_ms, "seed": args.seed,
                     "games": args.games, "ref_ms": args.ref_ms, "margin": args.margin,
                     "openings": os.path.relpath(args.openings, ROOT), "quick": q,
                     "levels": args.levels, "level_ms": args.level_ms}}
    if args.merge:
        try:
            with open(os.path.join(args.out_dir, "results.json")) as fh:
                old = json.load(fh)
        except (OSError, ValueError) as e:
            raise SystemExit(f"--merge: cannot read {args.out_dir}/results.json: {e}")
        depth_runs.update(old.get("depth", {}))
        sweep.update(old.get("sweep", {}))
        matches.update(old.get("matches", {}))
        meta["merged_into"] = old["meta"]
        for k in ("command", "date", "wall_s", "positions", "engine_id"):
            meta[k] = old["meta"].get(k)
        meta["merges"] = old["meta"].get("merges", []) + [cmd]
        before = old["meta"]["args"].get("level_ms") or []
        before = [before] if isinstance(before, int) else before
        meta["args"]["level_ms"] = sorted(set(before) | set(args.level_ms))
    res = {"meta": meta, "depth": depth_runs, "sweep": sweep, "matches": matches}
    # the strength levels' calibration travels with the results, so that --replot needs no more
    cal = strength_of({})
    if cal:
        res["strength"] = cal

    def save(done: bool):
        """results.json after every step, so that an interrupted study can still be replotted."""
        meta["complete"] = done
        meta["wall_s"] = round(time.monotonic() - t_start, 1) + \
            (meta["merged_into"].get("wall_s", 0) if args.merge else 0)
        meta["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        with open(os.path.join(args.out_dir, "results.json.tmp"), "w") as fh:
            json.dump(res, fh, indent=1)
            fh.write("\n")
        os.replace(os.path.join(args.out_dir, "results.json.tmp"),
                   os.path.join(args.out_dir, "results.json"))

    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "vier")
        shutil.copy2(args.bin, binary)
        eid, has_levels = engine_id(binary)
        if not has_levels:
            raise SystemExit(f"{args.bin} has no SearchLevel option: build the current engine")
        meta["engine_id"] = eid
        sample = sample_positions(args.data, args.positions, args.seed)
        meta["positions"] = {p: [m for m, _ in rs] for p, rs in sample.items()}
        oracle = ensure_oracle(args.oracle, binary, sample, log)

        if "depth" in parts:
            few = {p: rs[:args.depth_positions] for p, rs in
                   sample_positions(args.data, max(args.positions, args.depth_positions),
                                    args.seed).items()}
            for level in [l for l in DEPTH_LEVELS if l in args.levels]:
                cap = 4 if q else DEPTH_CAPS[level]
                log(f"depth costs, level {level}, to depth {cap} ...")
                depth_runs[str(level)] = depth_costs(binary, level, cap, few, args.depth_ms, log)
                save(False)
        if "sweep" in parts:
            for level in args.levels:
                sweep[str(level)] = {}
                for t in [t for t in times if level > 3 or t <= args.low_max_ms]:
                    log(f"level {level} at {t} ms ...")
                    r = measure(binary, t, sample, oracle, log,
                                {**ENGINE_OPTIONS, "SearchLevel": str(level)})
                    for x in r:
                        x["level"] = level
                    rows += r
                    s = summarize_positions(r)
                    sweep[str(level)][str(t)] = s
                    save(False)
                    log(f"  depth {s['begin']['depth']['mean']:.1f} (begin), proven "
                        f"{pct(s['all']['proven'])}, critical accuracy "
                        f"{pct(s['all']['critical_keeps_value'])}")
        if "elo" in parts and args.games > 0:
            for key, a, b in match_plan(args, binary, fsf):
                log(f"match {key}: {a['name']} vs {b['name']}, {args.games} games ...")
                m = play_match(a, b, args, os.path.join(args.out_dir, "matches", f"{key}.jsonl"))
                matches[key] = m
                save(False)
                log(f"  {m['wins']}/{m['draws']}/{m['losses']}, Elo {fmt_elo(m['elo'])}")

    save(True)
    if rows:
        with open(os.path.join(args.out_dir, "positions.csv"), "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=["level"] + [k for k in rows[0] if k != "level"])
            w.writeheader()
            w.writerows(rows)
    with open(os.path.join(args.out_dir, "depth.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["level", "phase", "moves", "depth", "nodes", "ms"])
        for level, phases in depth_runs.items():
            for phase, positions in phases.items():
                for p in positions:
                    for d, n, ms in p["depths"]:
                        w.writerow([level, phase, p["moves"], d, n, ms])
    plotted = write_outputs(args.out_dir, res)
    if not plotted:
        log("matplotlib missing: no plots (quick mode only)")
    log(f"done in {meta['wall_s']:.0f}s: {args.out_dir}/report.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
