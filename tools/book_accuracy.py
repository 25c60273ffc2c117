#!/usr/bin/env python3
"""Move accuracy with and without the opening book, on Pons' begin positions (4-14 discs)
and, with --random N, on seeded positions of random games (4-24 discs unless --random-discs).

For every position of the chosen sets, vier gets `go movetime T` from a fresh game (ucinewgame),
with OwnBook true and with OwnBook false, and its move is judged against the exact score of
every column (the oracle). The oracle comes from `vier solve --all --no-book`, so it does not
depend on the book being measured, and each position's best column must equal Pons' score.

    python3 tools/book_accuracy.py                 # all 2000 begin positions, 10 and 100 ms
    python3 tools/book_accuracy.py --positions 50  # the first 50 of a seeded shuffle per set
    python3 tools/book_accuracy.py --sets '' --random 1000 --oracle docs/book/oracle-random.json

Writes docs/book/accuracy.json and docs/book/accuracy.md (the table the README quotes) and
caches the oracle in docs/book/oracle.json. The study tool's move judging is reused: a move
keeps the value if its exact score has the sign of the best column's; a position is critical
if some legal move does not.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import random
import subprocess
import sys
import time

from viertools.accuracy import ENGINE_OPTIONS, measure
from viertools.oracle import ensure_oracle as ensure_cached_oracle, read_pons, seeded_prefix, solve_all
from viertools.rules import Board, board_from_moves
from viertools.stats import wilson
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SETS = ["Test_L1_R1", "Test_L1_R2"]


def sample(data_dir: str, sets: list[str], n: int | None, seed: int) -> dict:
    out = {}
    for name in sets:
        rows = read_pons(os.path.join(data_dir, name))
        out[name] = seeded_prefix(rows, n, f"vier-book:{seed}:{name}")
    return out


def random_positions(n: int, lo: int, hi: int, seed: int) -> list[tuple[str, None]]:
    """`n` distinct positions of random games (every move uniform among the legal columns),
    with a number of discs uniform in lo..hi, seeded: neither finished nor won at once by the
    side to move (those need no thought). No score is known before the oracle's."""
    rng = random.Random(f"vier-random:{seed}")
    out: list[tuple[str, None]] = []
    seen = set()
    while len(out) < n:
        board = Board()
        discs = rng.randint(lo, hi)
        while board.ply < discs and not board.is_over():
            board.play(rng.choice(board.legal_columns()))
        if board.is_over() or board.ply < discs or board.move_string() in seen:
            continue
        if any(wins_at_once(board, c) for c in board.legal_columns()):
            continue
        seen.add(board.move_string())
        out.append((board.move_string(), None))
    return out


def wins_at_once(board: Board, col: int) -> bool:
    trial = board_from_moves(board.moves)
    return trial.play(col) == "win"


def ensure_oracle(path: str, binary: str, positions: dict, jobs: int, log) -> dict:
    # the oracle must not depend on the book being measured
    return ensure_cached_oracle(
        path, binary, positions, log,
        solve=lambda b, moves: solve_all(b, moves, ("--no-book", "--hash", "64"), jobs),
        about="exact score of every column (null = full column) from the side to move, "
              "Pons' convention; `vier solve --all --no-book`, written by tools/book_accuracy.py")


def summarize(rows: list[dict]) -> dict:
    n = len(rows)
    crit = [r for r in rows if r["critical"]]
    keep = sum(r["keeps_value"] for r in rows)
    ck = sum(r["keeps_value"] for r in crit)
    lo, hi = wilson(ck, len(crit))
    return {
        "positions": n,
        "keeps_value": keep / n if n else None,
        "critical": len(crit),
        "critical_keeps_value": ck / len(crit) if crit else None,
        "critical_low": lo, "critical_high": hi,
        "optimal": sum(r["optimal"] for r in rows) / n if n else None,
        "proven": sum(r["proven"] for r in rows) / n if n else None,
        "errors": [r["moves"] for r in rows if not r["keeps_value"]],
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "vier"))
    ap.add_argument("--times", default="10,100", help="ms per move, comma-separated")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--positions", type=int, help="per set (default: all)")
    ap.add_argument("--random", type=int, default=0, metavar="N",
                    help="also N seeded positions from random games (set `random`)")
    ap.add_argument("--random-discs", default="4-24", metavar="LO-HI",
                    help="discs of the random positions (default 4-24)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, help="engines run at once (default 2)")
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "pons"))
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "docs", "book"))
    ap.add_argument("--oracle", help="default <out-dir>/oracle.json")
    args = ap.parse_args(argv)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if not os.path.exists(args.bin):
        raise SystemExit(f"no engine at {args.bin}: cargo build --release")
    times = [int(t) for t in args.times.split(",")]
    sets = [x for x in args.sets.split(",") if x]
    positions = sample(args.data, sets, args.positions, args.seed)
    if args.random:
        lo, hi = (int(x) for x in args.random_discs.split("-"))
        positions["random"] = random_positions(args.random, lo, hi, args.seed)
        sets.append("random")
    if not positions:
        raise SystemExit("no positions: give --sets or --random")
    oracle = ensure_oracle(args.oracle or os.path.join(args.out_dir, "oracle.json"),
                           args.bin, positions, args.jobs, log)
    runs = [(t, book) for t in times for book in (True, False)]

    def run(cfg):
        t, book = cfg
        opts = dict(ENGINE_OPTIONS, OwnBook="true" if book else "false")
        t0 = time.monotonic()
        rows = measure(args.bin, t, positions, oracle, log, options=opts)
        log(f"{t} ms, book {'on' if book else 'off'}: {len(rows)} positions in "
            f"{time.monotonic() - t0:.0f}s")
        return cfg, rows

    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for (t, book), rows in ex.map(run, runs):
            for name in sets + ["all"]:
                rs = rows if name == "all" else [r for r in rows if r["phase"] == name]
                results[f"{t} {'book' if book else 'nobook'} {name}"] = summarize(rs)

    os.makedirs(args.out_dir, exist_ok=True)
    meta = {"date": datetime.date.today().isoformat(), "times": times, "sets": sets,
            "positions": {k: len(v) for k, v in positions.items()}, "seed": args.seed,
            "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                     capture_output=True, text=True).stdout.strip()}
    with open(os.path.join(args.out_dir, "accuracy.json"), "w") as fh:
        json.dump({"meta": meta, "results": results}, fh, indent=1, sort_keys=True)
        fh.write("\n")
    lines = [
        "# Move accuracy with and without the opening book",
        "",
        f"`python3 tools/book_accuracy.py` at {meta['commit']} ({meta['date']}): "
        f"positions ({', '.join(f'{k} {v}' for k, v in meta['positions'].items())}; Test_*: "
        f"Pons' begin sets, random: random games with {args.random_discs} discs), "
        "`go movetime T` from a fresh game, one engine per configuration, "
        f"{args.jobs} at a time on a 2-core machine.",
        "",
        "| ms | book | set | positions | keeps value | critical | keeps value on critical "
        "(95% CI) | optimal | proven |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for t in times:
        for book in ("book", "nobook"):
            for name in sets + ["all"]:
                r = results[f"{t} {book} {name}"]
                lines.append(
                    f"| {t} | {'on' if book == 'book' else 'off'} | {name} | {r['positions']} | "
                    f"{100 * r['keeps_value']:.1f}% | {r['critical']} | "
                    f"{100 * r['critical_keeps_value']:.1f}% "
                    f"({100 * r['critical_low']:.1f}-{100 * r['critical_high']:.1f}) | "
                    f"{100 * r['optimal']:.1f}% | {100 * r['proven']:.1f}% |")
    lines += ["", "Positions where the move threw the value away (moves played):", ""]
    for t in times:
        for book in ("book", "nobook"):
            errs = results[f"{t} {book} all"]["errors"]
            lines.append(f"- {t} ms, book {'on' if book == 'book' else 'off'}: {len(errs)}"
                         + (": " + " ".join(errs[:20]) + (" ..." if len(errs) > 20 else "")
                            if errs else ""))
    with open(os.path.join(args.out_dir, "accuracy.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
