#!/usr/bin/env python3
"""latency.py - measure vier's time keeping through its protocol (Python stdlib only).

    python3 tools/latency.py [--engine target/release/vier] [--positions FILE] [-n 200]

Three measurements, each printed as one summary line:

* overshoot: for N `go movetime T` searches on varied positions, the time from sending `go` to
  reading `bestmove`, minus T (p50 / p99 / max, ms);
* stop: for N searches (`go infinite`) stopped after a random 5..40 ms, the time from sending
  `stop` to reading `bestmove` (p50 / p99 / max, ms);
* depth: the depth of the last `info` line at 10 / 100 / 1000 ms (`go movetime`), on the empty
  board and on the first positions of the given file (move strings, one per line; the first
  token of a line is used).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

from viertools.engine import EngineProcess


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


def summary(name, xs):
    return (f"{name}: n={len(xs)} p50={pct(xs, 50):.2f} ms p99={pct(xs, 99):.2f} ms "
            f"max={max(xs):.2f} ms min={min(xs):.2f} ms")


def load_positions(path, limit):
    out = []
    if path and os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                tok = line.split()
                if tok and tok[0].isdigit():
                    out.append(tok[0])
                if len(out) >= limit:
                    break
    return out


def random_positions(n, rng):
    """Random short openings (legal; a game that ends is cut before its last move)."""
    out = []
    while len(out) < n:
        heights = [0] * 7
        moves = []
        for _ in range(rng.randint(0, 16)):
            c = rng.choice([i for i in range(7) if heights[i] < 6])
            heights[c] += 1
            moves.append(str(c + 1))
        out.append("".join(moves))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", default="target/release/vier")
    ap.add_argument("--positions", default="../shared/data/pons/Test_L2_R2")
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--movetime", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--overhead", type=int, default=None,
                    help="MoveOverhead to set for the overshoot runs (default: the engine's)")
    ap.add_argument("--skip-depth", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)

    file_positions = load_positions(args.positions, args.n // 2)
    positions = (file_positions + random_positions(args.n, rng))[: args.n]

    e = EngineProcess([args.engine], "latency")
    e.start()
    e.handshake(30, 30, [] if args.overhead is None else [("MoveOverhead", str(args.overhead))])

    def sync():
        e.isready(30)

    def until(token):
        return e.read_until(token, 30, token)

    # validity filter: positions whose game is over are skipped (bestmove (none) is immediate)
    over = []
    unsolved = []  # searches that used their time (not ended early by a proof)
    inside = []  # the engine's own view: `time` of the final info - movetime
    for i, moves in enumerate(positions):
        e.send(f"position startpos moves {moves}" if moves else "position startpos")
        sync()
        t0 = e.send(f"go movetime {args.movetime}")
        t1, lines = until("bestmove")
        if lines[-1] == "bestmove (none)":
            continue
        over.append((t1 - t0) * 1000 - args.movetime)
        if "mate" not in lines[-2] and " cp 0 " not in lines[-2]:
            unsolved.append(over[-1])
            w = lines[-2].split()
            if "time" in w:
                inside.append(int(w[w.index("time") + 1]) - args.movetime)
    print(summary(f"overshoot (go movetime {args.movetime}: time to bestmove - {args.movetime})",
                  over))
    if unsolved:
        print(summary("  of which searches not ended early by a proof", unsolved))
        print(summary("  the same, as the engine timed itself (final info time - movetime)", inside))

    stops = []
    for i, moves in enumerate(positions):
        e.send(f"position startpos moves {moves}" if moves else "position startpos")
        sync()
        e.send("go infinite")
        time.sleep(rng.uniform(0.005, 0.040))
        t0 = e.send("stop")
        t1, lines = until("bestmove")
        stops.append((t1 - t0) * 1000)
    print(summary("stop latency (stop -> bestmove)", stops))

    if not args.skip_depth:
        # time to depth: no overhead, so 10 ms means 10 ms of search
        e.send("setoption name MoveOverhead value 0")
        names = [("empty", "")] + [(m, m) for m in file_positions[:4]]
        for name, moves in names:
            depths = []
            for ms in (10, 100, 1000):
                e.send("ucinewgame")
                e.send(f"position startpos moves {moves}" if moves else "position startpos")
                sync()
                e.send(f"go movetime {ms}")
                _, lines = until("bestmove")
                infos = [l for l in lines if l.startswith("info depth")]
                last = infos[-1].split() if infos else []
                d = last[last.index("depth") + 1] if "depth" in last else "?"
                score = " ".join(last[last.index("score") + 1:last.index("score") + 3]) \
                    if "score" in last else "?"
                depths.append(f"{ms} ms: depth {d} ({score})")
            print(f"depth {name or 'empty'}: " + "; ".join(depths))
    e.quit(5)


if __name__ == "__main__":
    sys.exit(main())
