#!/usr/bin/env python3
"""overrun.py - how far vier's searches run past their own time limit, at several Hash sizes,
thread counts and MultiPV widths (Python stdlib only; a benchmark to run and quote, not a test).

    python3 tools/overrun.py [--engine target/release/vier] [--hash 32,1024,4096] [-n 10]
                             [--threads 1,2] [--multipv 1,7]

For every Hash size, `Threads` and `MultiPV` (every combination of the lists) a fresh engine
gets those options and `isready` (as a GUI sends them), the book off so that every move is
searched, `debug on` so that each `go` prints its deadlines. Then:

* `movetime 10` and `movetime 100`: N searches each, on the first N openings of
  tools/openings.txt, each after `ucinewgame` and `isready` (the first one is the first search
  on the new tables);
* `wtime 1000 winc 10`: one whole game of the engine against itself on those clocks (each side
  1 s plus 10 ms a move), `ucinewgame` and `isready` before it, as a tournament manager plays;
* `movetime 10, no isready`: N times `setoption name Hash value H` (new tables of that size)
  followed at once by `go movetime 10`, as a GUI that sends no `isready` does; then `isready`,
  which waits for the tables' memory, before the next.

The overrun of a search is the time from writing `go` to reading `bestmove`, on this side of
the pipe, minus the hard deadline the engine printed for it (`info string debug ... hard`):
the time the engine promised itself never to pass, `MoveOverhead` already kept back. One line
per Hash size and kind, worst and median in ms, and the goal (5 ms + 5 % of the deadline)
met or not.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time

from viertools.engine import EngineProcess

HERE = os.path.dirname(os.path.abspath(__file__))
HARD = re.compile(r"hard Some\(([0-9.]+)(ms|s|µs|us|ns)\)")


def deadline_ms(line: str) -> float | None:
    m = HARD.search(line)
    if not m:
        return None
    v, unit = float(m.group(1)), m.group(2)
    return v * {"s": 1000.0, "ms": 1.0, "µs": 1e-3, "us": 1e-3, "ns": 1e-6}[unit]


def openings(n: int) -> list[str]:
    out = []
    with open(os.path.join(HERE, "openings.txt")) as fh:
        for line in fh:
            line = line.split("#")[0].strip()
            if line:
                out.append(line.split()[0])
            if len(out) == n:
                break
    return out


def search(e: EngineProcess, position: str, go: str) -> tuple[float, float, str]:
    """(overrun ms, deadline ms, bestmove) of one search."""
    e.drain()
    e.send(position)
    t0 = time.monotonic()
    e.send(go)
    hard = None
    while True:
        item = e.read(t0 + 120)
        if item is None:
            raise RuntimeError(f"no bestmove within 120 s for '{position}' '{go}'")
        t, line = item
        if line.startswith("info string debug"):
            hard = deadline_ms(line)
        elif line.startswith("bestmove"):
            if hard is None:
                raise RuntimeError("the engine printed no deadline (debug on)")
            return (t - t0) * 1000.0 - hard, hard, line.split()[1]


def run_hash(engine: str, mb: int, n: int, threads: int,
             multipv: int) -> dict[str, list[tuple[float, float]]]:
    e = EngineProcess(engine, f"hash{mb}")
    e.start()
    try:
        e.uci(30)
        for name, value in (("OwnBook", "false"), ("Threads", str(threads)),
                            ("MultiPV", str(multipv)), ("Hash", str(mb))):
            e.setoption(name, value)
        e.send("debug on")
        e.isready(600)
        res: dict[str, list[tuple[float, float]]] = {}
        for t in (10, 100):
            rows = []
            for moves in openings(n):
                e.send("ucinewgame")
                e.isready(600)
                rows.append(search(e, f"position startpos moves {moves}", f"go movetime {t}")[:2])
            res[f"movetime {t}"] = rows
        res["wtime 1000 winc 10"] = play(e)
        rows = []
        for moves in openings(n):
            e.setoption("Hash", str(mb))
            rows.append(search(e, f"position startpos moves {moves}", "go movetime 10")[:2])
            e.isready(600)
        res["movetime 10, no isready"] = rows
        return res
    finally:
        e.quit()


def play(e: EngineProcess) -> list[tuple[float, float]]:
    """One game on a 1 s + 10 ms clock; the game ends by the engine's own `query gameover`."""
    e.send("ucinewgame")
    e.isready(600)
    clocks = [1000.0, 1000.0]
    moves: list[str] = []
    out = []
    while True:
        side = len(moves) % 2
        go = f"go wtime {int(clocks[0])} btime {int(clocks[1])} winc 10 binc 10"
        pos = "position startpos" + (" moves " + " ".join(moves) if moves else "")
        t0 = time.monotonic()
        over, hard, best = search(e, pos, go)
        clocks[side] += 10 - (time.monotonic() - t0) * 1000.0
        out.append((over, hard))
        if best == "(none)" or clocks[side] < 0:
            return out
        moves.append(best)
        e.send("position startpos moves " + " ".join(moves))
        e.send("query gameover")
        lines = e.wait_for("response", 10, "query gameover")
        if lines[-1].split()[1:2] == ["true"]:
            return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default=os.path.join(HERE, "..", "target", "release", "vier"))
    ap.add_argument("--hash", default="32,1024,4096", help="Hash sizes in MB, comma-separated")
    ap.add_argument("-n", type=int, default=10, help="searches per movetime (default 10)")
    ap.add_argument("--threads", default="1", help="Threads values, comma-separated")
    ap.add_argument("--multipv", default="1", help="MultiPV values, comma-separated")
    a = ap.parse_args(argv)
    sizes = [int(x) for x in a.hash.split(",") if x]
    threads = [int(x) for x in a.threads.split(",") if x]
    widths = [int(x) for x in a.multipv.split(",") if x]
    print(f"engine {a.engine}, {a.n} searches per movetime; load {os.getloadavg()[0]:.2f}")
    print(f"{'Hash':>6} {'Threads':>7} {'MultiPV':>7}  {'search':<24} {'n':>3}  {'worst':>8}  "
          f"{'median':>8}  goal (5 ms + 5 %)")
    ok = True
    for t in threads:
        for m in widths:
            for mb in sizes:
                for kind, rows in run_hash(a.engine, mb, a.n, t, m).items():
                    overs = [o for o, _ in rows]
                    missed = sum(o > 5 + 0.05 * h for o, h in rows)
                    ok &= missed == 0
                    print(f"{mb:>6} {t:>7} {m:>7}  {kind:<24} {len(rows):>3}  {max(overs):>8.1f}  "
                          f"{statistics.median(overs):>8.1f}  "
                          f"{'met' if not missed else f'MISSED by {missed}'}", flush=True)
    print(f"load {os.getloadavg()[0]:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
