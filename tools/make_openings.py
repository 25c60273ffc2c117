#!/usr/bin/env python3
"""make_openings.py - build a balanced opening file for tools/referee.py with `vier solve`.

Enumerates every position reachable in --plies moves (e.g. 2-4), keeps one
move string per distinct position (transpositions and mirror images are the
same opening), solves each with `vier solve`, and keeps the balanced ones:
exact value a draw or a narrow win (|score| <= --max-abs-score; with the
solver's scale a score of +-1 means the winner only wins with its very last
stone, bigger means sooner).

`vier solve` reads one move string per line on stdin and prints
`<moves> <score> <nodes> <microseconds>` per line, score from the side to
move's view (0 draw, > 0 side to move wins).  Each position gets its own
`vier solve` process with a --timeout, so one slow position cannot stall the
whole run; positions that time out are listed in the header and left out.

Python 3.11 standard library only.

Example:
  python3 tools/make_openings.py --bin target/release/vier --plies 2-4 \\
      --max-abs-score 2 --out tools/openings.txt
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import os
import re
import sys

from viertools.openings import distinct_positions
from viertools.oracle import solve_score
from viertools.rules import parse_size


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="target/release/vier", help="vier binary (default target/release/vier)")
    ap.add_argument("--size", default="7x6", help="board size WxH (default 7x6)")
    ap.add_argument("--plies", default="2-4", help="opening lengths, N or MIN-MAX (default 2-4)")
    ap.add_argument("--columns", metavar="MIN-MAX",
                    help="only openings whose moves are all in these columns, e.g. 3-5 (default: all); "
                         "central positions solve much faster")
    ap.add_argument("--max-abs-score", type=int, default=2,
                    help="keep positions whose |score| is at most this (0 = draws only; default 2)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per position (default 300)")
    ap.add_argument("--jobs", type=int, default=1, help="solver processes at once (default 1)")
    ap.add_argument("--limit", type=int, default=0, help="solve at most this many candidates (0 = all)")
    ap.add_argument("--solve-arg", action="append", default=[], metavar="ARG",
                    help="extra argument for 'vier solve' (repeatable), e.g. --solve-arg=--hash=256")
    ap.add_argument("--cache", metavar="FILE",
                    help="'<moves> <score>' lines: positions found here are not solved again, new "
                         "results are appended as they come (so an interrupted run can be continued "
                         "and the threshold changed without solving again)")
    ap.add_argument("--no-solve", action="store_true",
                    help="do not run the solver: use only the scores in --cache (unsolved "
                         "candidates are listed in the header and left out)")
    ap.add_argument("--out", default="-", help="output file (default stdout)")
    args = ap.parse_args(argv)

    width, height = parse_size(args.size)
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", args.plies)
    if not m:
        ap.error("--plies wants N or MIN-MAX")
    lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
    if lo > hi:
        ap.error("--plies: MIN > MAX")
    if args.no_solve and not args.cache:
        ap.error("--no-solve needs --cache")
    if not args.no_solve and not (os.path.isfile(args.bin) and os.access(args.bin, os.X_OK)):
        ap.error(f"--bin {args.bin}: not an executable (build it with cargo build --release)")

    columns = None
    if args.columns:
        mc = re.fullmatch(r"(\d)-(\d)", args.columns)
        if not mc or not 1 <= int(mc.group(1)) <= int(mc.group(2)) <= width:
            ap.error(f"--columns wants MIN-MAX within 1-{width}")
        columns = set(range(int(mc.group(1)), int(mc.group(2)) + 1))
    cands = distinct_positions(width, height, lo, hi, columns)
    if args.limit:
        cands = cands[:args.limit]
    size = f"{width}x{height}"
    print(f"make_openings: solving {len(cands)} positions of {lo}-{hi} plies on {size}", file=sys.stderr)
    results = {}
    cache = None
    if args.cache:
        if os.path.exists(args.cache):
            with open(args.cache, encoding="utf-8") as fh:
                for line in fh:
                    words = line.split()
                    if len(words) == 2 and re.fullmatch(r"-?\d+", words[1]):
                        results[words[0]] = (int(words[1]), "cached")
        cache = open(args.cache, "a", encoding="utf-8")
    todo = [c for c in cands if c not in results]
    if args.no_solve:
        for c in todo:
            results[c] = (None, "not solved yet")
        todo = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = [pool.submit(solve_score, args.bin, size, c, args.timeout, args.solve_arg) for c in todo]
        for i, fut in enumerate(concurrent.futures.as_completed(futs), 1):
            moves, score, note = fut.result()
            results[moves] = (score, note)
            if cache is not None and score is not None:
                cache.write(f"{moves} {score}\n")
                cache.flush()
            msg = f"  {i}/{len(todo)} {moves}: {score if score is not None else note}"
            if sys.stderr.isatty():
                print("\r" + msg + "\x1b[K", end="", file=sys.stderr, flush=True)
            else:
                print(msg, file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)

    kept = [c for c in cands if results[c][0] is not None and abs(results[c][0]) <= args.max_abs_score]
    failed = [c for c in cands if results[c][0] is None]
    lines = [
        "# Balanced openings for tools/referee.py (one move string per line, '#' comments).",
        f"# Made by tools/make_openings.py on {datetime.date.today().isoformat()} with '{args.bin} solve':",
        f"#   python3 tools/make_openings.py --bin {args.bin} --size {size} --plies {args.plies} "
        f"--max-abs-score {args.max_abs_score}" + (f" --columns {args.columns}" if args.columns else "")
        + (f" --limit {args.limit}" if args.limit else "") + f" --timeout {args.timeout:g}"
        + (" --cache FILE" if args.cache else "") + (" --no-solve" if args.no_solve else ""),
        f"# {len(cands)} distinct positions of {lo}-{hi} plies"
        + (f" in columns {args.columns}" if args.columns else "")
        + " (transpositions and mirror images merged),",
        f"# {len(kept)} kept with exact |score| <= {args.max_abs_score} "
        "(score from the side to move: 0 draw, +1 wins with its last stone, -1 loses to the last stone).",
    ]
    if failed:
        lines.append(f"# Not solved ({len(failed)}, left out): "
                     + " ".join(f"{c}({results[c][1]})" for c in failed[:20])
                     + (" ..." if len(failed) > 20 else ""))
    for c in kept:
        lines.append(f"{c}  # score {results[c][0]:+d}")
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"make_openings: wrote {len(kept)} openings to {args.out}", file=sys.stderr)
    return 0 if kept else 1


if __name__ == "__main__":
    sys.exit(main())
