#!/usr/bin/env python3
"""The share of positions whose value vier proves within a time per move, with any Threads.

For every line `moves score` of one of Pons' sets, vier gets a fresh game (`ucinewgame`),
`setoption name Threads value T` (set once, after the handshake), `position startpos moves
...` and `go movetime M`. Its last report before `bestmove` counts as proven when its score is
`mate N` or a proven draw (`cp 0` with `wdl 0 1000 0`; the tool turns `UCI_ShowWDL` on), and
not a bound (`lowerbound`/`upperbound`). A proven value is turned back into Pons' score and
compared with the set's: any mismatch is an engine bug, reported, and makes the exit status 1.

    python3 tools/proven_share.py --threads 2 --movetime 100             # all of Test_L1_R2
    python3 tools/proven_share.py --threads 1 --movetime 10 --limit 100  # its first 100 lines

`MoveOverhead` is 0, so M ms means M ms of search. The machine should be otherwise idle: the
share depends on the time the engine really gets.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from viertools.engine import EngineProcess, parse_info
from viertools.oracle import read_pons
from viertools.stats import wilson

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CELLS = 42  # Pons' sets are 7x6


def win_at(cells: int, discs: int) -> int:
    """Pons' score of the player who connects four with the disc it drops when `discs` discs
    are on the board (vier's score::win_at)."""
    return (cells + 1 - discs) // 2


def proven_score(info_line: str, discs: int, cells: int = CELLS) -> int | None:
    """Pons' score (side to move's view) of a report whose value is proven, else None.

    `mate N`: the side to move connects four with its N-th disc from now, dropped when
    discs + 2(N-1) are on the board; `mate -N`: the opponent does with its N-th, dropped at
    discs + 1 + 2(N-1); a proven draw is `cp 0` with `wdl 0 1000 0`."""
    words = info_line.split()
    if "lowerbound" in words or "upperbound" in words:
        return None
    info = parse_info(info_line)
    score = info.get("score", {})
    if "mate" in score:
        n = score["mate"]
        if n > 0:
            return win_at(cells, discs + 2 * (n - 1))
        if n < 0:
            return -win_at(cells, discs + 1 + 2 * (-n - 1))
        return None  # mate 0: the game is already over, not a position of the sets
    if score.get("cp") == 0 and info.get("wdl") == [0, 1000, 0]:
        return 0
    return None


def measure(binary: str, rows: list[tuple[str, int]], threads: int, movetime: int,
            hash_mb: int | None = None, book: bool = True, log=None) -> list[dict]:
    """One engine process for all positions; one result per position, in order."""
    eng = EngineProcess([binary], f"proven-share-T{threads}")
    options = [("MoveOverhead", "0"), ("UCI_ShowWDL", "true"), ("Threads", str(threads))]
    if hash_mb is not None:
        options.append(("Hash", str(hash_mb)))
    if not book:
        options.append(("OwnBook", "false"))
    out = []
    try:
        eng.start()
        eng.handshake(10, 60, options)
        for i, (moves, exact) in enumerate(rows):
            eng.send("ucinewgame")
            eng.send(f"position startpos moves {moves}")
            eng.isready(60)
            eng.send(f"go movetime {movetime}")
            _, lines = eng.read_until("bestmove", movetime / 1000 + 60, "go")
            errors = [l for l in lines if l.startswith("info string error")]
            if errors:
                raise RuntimeError(f"{moves}: {errors[0]}")
            infos = [l for l in lines if l.startswith("info depth")]
            last = infos[-1] if infos else ""
            fields = parse_info(last)
            value = proven_score(last, len(moves))
            out.append({
                "moves": moves, "exact": exact,
                "score": " ".join(f"{k} {v}" for k, v in fields.get("score", {}).items()),
                "proven": value is not None, "value": value,
                "mismatch": value is not None and value != exact,
                "depth": fields.get("depth", 0), "nodes": fields.get("nodes", 0),
                "time": fields.get("time", 0), "bestmove": (lines[-1].split() + [None])[1],
            })
            if log and (i + 1) % 50 == 0:
                log(f"{i + 1}/{len(rows)} positions")
    finally:
        eng.quit(5)
    return out


def summarize(results: list[dict]) -> dict:
    n = len(results)
    proven = sum(r["proven"] for r in results)
    lo, hi = wilson(proven, n)
    return {
        "positions": n,
        "proven": proven,
        "share": proven / n if n else None,
        "share_low": lo, "share_high": hi,
        "mismatches": [r["moves"] for r in results if r["mismatch"]],
        "mean_nodes": sum(r["nodes"] for r in results) / n if n else None,
        "mean_depth": sum(r["depth"] for r in results) / n if n else None,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "vier"))
    ap.add_argument("--set", default=os.path.join(ROOT, "tests", "data", "pons", "Test_L1_R2"),
                    help="a Pons set file: lines 'moves score' (default Test_L1_R2)")
    ap.add_argument("--threads", type=int, default=1, help="the engine's Threads (default 1)")
    ap.add_argument("--movetime", type=int, default=100, help="ms per position (default 100)")
    ap.add_argument("--limit", type=int, help="only the first N positions")
    ap.add_argument("--hash", type=int, help="the engine's Hash in MB (default: its own)")
    ap.add_argument("--no-book", action="store_true", help="OwnBook false")
    ap.add_argument("--json", help="write every position's result and the summary here")
    args = ap.parse_args(argv)

    rows = read_pons(args.set)
    if args.limit is not None:
        rows = rows[:args.limit]
    if not rows:
        print(f"no positions in {args.set}", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    results = measure(args.bin, rows, args.threads, args.movetime, args.hash,
                      not args.no_book, log=lambda m: print(m, file=sys.stderr, flush=True))
    summary = summarize(results)
    summary.update({"set": os.path.basename(args.set), "threads": args.threads,
                    "movetime": args.movetime, "book": not args.no_book, "hash": args.hash,
                    "seconds": round(time.monotonic() - t0, 1)})
    print(f"{summary['set']}: {summary['positions']} positions, Threads {args.threads}, "
          f"movetime {args.movetime} ms: proven {summary['proven']} "
          f"({100 * summary['share']:.1f}%, 95% {100 * summary['share_low']:.1f}"
          f"-{100 * summary['share_high']:.1f}%), "
          f"mismatches {len(summary['mismatches'])}, mean depth {summary['mean_depth']:.1f}")
    for m in summary["mismatches"]:
        r = next(r for r in results if r["moves"] == m)
        print(f"MISMATCH {m}: engine {r['score']} = {r['value']}, set {r['exact']}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"summary": summary, "positions": results}, fh, indent=1)
            fh.write("\n")
    return 1 if summary["mismatches"] else 0


if __name__ == "__main__":
    sys.exit(main())
