#!/usr/bin/env python3
"""Every value a front end calls proven, checked against the solver.

Drives each of vier's front ends over seeded random positions with short searches and compares
every value it reports as proven with `vier solve --all` (the exact score of every column):

- `protocol`: `go movetime` with `Threads` 1 and 2, MultiPV 1 or every column; a proven value is
  `score mate N` or `mate -N` without `lowerbound`/`upperbound`, or `cp 0` with `wdl 0 1000 0`
  (a proven draw), for the line's first move, in every `info` line;
- `python`: `Engine(threads=...).search()` (`exact`, and `solved`), `best_move()` without a time
  (the exact best column), `analyse()`, `solve()`;
- `serve`: `GET /solve` of `vier serve`;
- `web`: the page's engine (WebAssembly) in node: `think` (every report's `exact`) and `analyse`;
- `play`: `vier play`'s hint (`h`: exact values of every column) and the engine's summary of its
  move ("I win in 7 moves"; "in at most" is a bound).

Prints a table (positions, searches, proven values, mismatches per front end and thread count)
and writes it as JSON with `--out`; the exit status is 1 if any value called proven is wrong.

    python3 tools/proven.py --vier target/release/vier --positions 2000
    python3 tools/proven.py --vier target/release/vier --python target/venv/bin/python \\
        --web target/web --fronts protocol,python,serve,web,play

The suite runs a short version (tests/proven.rs). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from viertools.oracle import solve_all  # noqa: E402

# The sizes the positions are drawn on: 7x6 (with the book) and two others written in digits.
SIZES = [(7, 6)] * 8 + [(6, 5), (8, 4)]


def win_at(cells: int, moves: int) -> int:
    """Pons' score of a win with the disc dropped when `moves` discs are down."""
    return (cells + 1 - moves) // 2


def exact_of_mate(cells: int, discs: int, n: int) -> int:
    """The exact score of `mate n` (n > 0: a win with the n-th disc from now; n < 0: a loss to
    the opponent's -n-th) at a position with `discs` discs, as protocol.md defines it."""
    if n > 0:
        return win_at(cells, discs + 2 * (n - 1))
    return -win_at(cells, discs + 1 + 2 * (-n - 1))


def random_positions(n: int, seed: int) -> list[dict]:
    """`n` positions of random games (no finished game), with their sizes."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        w, h = rng.choice(SIZES)
        cells = w * h
        target = rng.randint(0, min(cells - 4, 32))
        heights = [0] * w
        moves = []
        board = {}
        over = False
        while len(moves) < target:
            col = rng.choice([c for c in range(w) if heights[c] < h])
            who = len(moves) % 2
            board[(col, heights[col])] = who
            heights[col] += 1
            moves.append(col)
            if four(board, col, heights[col] - 1, who):
                over = True
                break
        if over:
            continue
        out.append({"size": f"{w}x{h}", "w": w, "h": h,
                    "moves": "".join(str(c + 1) for c in moves)})
    return out


def four(board: dict, c: int, r: int, who: int) -> bool:
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            k = 1
            while board.get((c + sign * k * dc, r + sign * k * dr)) == who:
                run += 1
                k += 1
        if run >= 4:
            return True
    return False


class Tally:
    """Proven values and mismatches per (front end, threads)."""

    def __init__(self):
        self.rows: dict[tuple[str, int], dict] = {}
        self.mismatches: list[dict] = []

    def row(self, front: str, threads: int) -> dict:
        return self.rows.setdefault((front, threads), {
            "front": front, "threads": threads, "positions": 0, "searches": 0,
            "proven": 0, "mismatches": 0})

    def claim(self, front, threads, pos, column, value, truth, what):
        """`value` called proven for `column` of `pos` (None: the whole position's best)."""
        r = self.row(front, threads)
        r["proven"] += 1
        want = max(s for s in truth if s is not None) if column is None else truth[column]
        if value != want:
            r["mismatches"] += 1
            self.mismatches.append({"front": front, "threads": threads, "size": pos["size"],
                                    "moves": pos["moves"] or "-", "column": column,
                                    "claimed": value, "truth": want, "what": what})


def reference(vier: str, positions: list[dict], log) -> dict:
    """`vier solve --all` of every position, by size."""
    by_size: dict[str, list[str]] = {}
    for p in positions:
        by_size.setdefault(p["size"], []).append(p["moves"] or "-")
    truth = {}
    for size, moves in by_size.items():
        started = time.monotonic()
        solved = solve_all(vier, sorted(set(moves)), ("--size", size))
        log(f"reference: {len(set(moves))} positions of {size} in {time.monotonic() - started:.1f} s")
        for m, scores in solved.items():
            truth[(size, "" if m == "-" else m)] = scores
    return truth


def read_until(proc, word: str) -> list[str]:
    lines = []
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"the engine ended before '{word}'")
        line = line.strip()
        lines.append(line)
        if line.split()[:1] == [word]:
            return lines


def parse_claims(line: str, cells: int, discs: int):
    """The (column, exact score) an `info` line calls proven, if it does."""
    t = line.split()
    if t[:1] != ["info"] or "score" not in t or "pv" not in t:
        return None
    i = t.index("score")
    kind, n = t[i + 1], int(t[i + 2])
    bounded = "lowerbound" in t or "upperbound" in t
    pv = t[t.index("pv") + 1:]
    if bounded or not pv:
        return None
    column = int(pv[0]) - 1
    if kind == "mate":
        return column, exact_of_mate(cells, discs, n)
    if kind == "cp" and n == 0 and "wdl" in t:
        w = t.index("wdl")
        if t[w + 1:w + 4] == ["0", "1000", "0"]:
            return column, 0
    return None


def drive_protocol(vier, positions, truth, threads, rng, tally):
    proc = subprocess.Popen([vier], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(s):
        proc.stdin.write(s + "\n")
        proc.stdin.flush()

    send("uci")
    read_until(proc, "uciok")
    send("setoption name UCI_ShowWDL value true")
    send(f"setoption name Threads value {threads}")
    size = None
    for p in positions:
        if p["size"] != size:
            send(f"setoption name Width value {p['w']}")
            send(f"setoption name Height value {p['h']}")
            size = p["size"]
        multipv = rng.choice([1, p["w"]])
        send(f"setoption name MultiPV value {multipv}")
        send("position startpos" + (" moves " + " ".join(p["moves"]) if p["moves"] else ""))
        send(f"go movetime {rng.randint(1, 20)}")
        row = tally.row("protocol", threads)
        row["positions"] += 1
        row["searches"] += 1
        cells, discs = p["w"] * p["h"], len(p["moves"])
        for line in read_until(proc, "bestmove"):
            claim = parse_claims(line, cells, discs)
            if claim:
                tally.claim("protocol", threads, p, claim[0], claim[1],
                            truth[(p["size"], p["moves"])], line)
    send("quit")
    proc.wait(timeout=30)


def python_client() -> None:
    """Run inside the Python package's environment: searches as asked on stdin, claims out."""
    import vier  # noqa: F401  (the package under test)

    job = json.load(sys.stdin)
    out = []
    for threads in job["threads"]:
        engine = vier.Engine(threads=threads)
        for p, ms in zip(job["positions"], job["movetimes"]):
            pos = vier.Position(p["moves"], width=p["w"], height=p["h"])
            r = engine.search(pos, movetime_ms=ms)
            claims = []
            if r["exact"] is not None:
                claims.append([r["move"], r["exact"], f"Engine.search exact {r}"])
            if r["solved"] and r["exact"] is None:
                claims.append([r["move"], None, f"Engine.search solved without exact {r}"])
            if r["solved"]:
                claims.append([None, r["exact"], f"Engine.search solved {r}"])
            out.append({"threads": threads, "index": p["index"], "claims": claims})
    for p in job["positions"][: job["exact_calls"]]:
        pos = vier.Position(p["moves"], width=p["w"], height=p["h"])
        claims = [[c, s, "analyse"] for c, s in enumerate(vier.analyse(pos)) if s is not None]
        claims.append([None, vier.solve(pos), "solve"])
        out.append({"threads": 1, "index": p["index"], "claims": claims,
                    "best_move": vier.best_move(pos)})
    json.dump(out, sys.stdout)


def drive_python(python, positions, truth, threads_list, rng, tally, exact_calls):
    job = {"threads": threads_list, "exact_calls": exact_calls,
           "positions": [dict(p, index=i) for i, p in enumerate(positions)],
           "movetimes": [rng.randint(1, 20) for _ in positions]}
    res = subprocess.run([python, os.path.abspath(__file__), "--python-client"],
                         input=json.dumps(job), capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"the Python client failed:\n{res.stderr}")
    for r in json.loads(res.stdout):
        p = positions[r["index"]]
        t = truth[(p["size"], p["moves"])]
        row = tally.row("python", r["threads"])
        row["searches"] += 1
        if "best_move" in r:
            best = max(s for s in t if s is not None)
            tally.claim("python", 1, p, r["best_move"], best, t, "best_move (exact)")
        for column, value, what in r["claims"]:
            tally.claim("python", r["threads"], p, column, value, t, what)
    for th in threads_list:
        tally.row("python", th)["positions"] = len(positions)


def drive_serve(vier, positions, truth, tally):
    proc = subprocess.Popen([vier, "serve", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        first = proc.stdout.readline()
        base = first.split()[2].split("/solve")[0]
        for p in positions:
            url = f"{base}/solve?pos={p['moves']}&width={p['w']}&height={p['h']}"
            row = tally.row("serve", 1)
            row["positions"] += 1
            row["searches"] += 1
            try:
                with urllib.request.urlopen(url, timeout=60) as r:
                    answer = json.load(r)
            except urllib.error.HTTPError as e:
                # 504: not proven within the server's budget (a loaded machine), so no claim
                if e.code == 504:
                    continue
                raise
            t = truth[(p["size"], p["moves"])]
            for c, s in enumerate(answer["score"]):
                if s != 100:
                    tally.claim("serve", 1, p, c, s, t, f"GET /solve {answer}")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def drive_web(web, positions, truth, rng, tally):
    requests = [{"size": p["size"], "moves": p["moves"], "movetime_ms": rng.randint(1, 20),
                 "multipv": rng.choice([1, p["w"]])} for p in positions]
    res = subprocess.run(["node", os.path.join(HERE, "proven_web.mjs"),
                          os.path.join(web, "vier.wasm.gz"), os.path.join(web, "7x6.book.gz")],
                         input=json.dumps(requests), capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"node tools/proven_web.mjs failed:\n{res.stderr}")
    for p, r in zip(positions, json.loads(res.stdout)):
        t = truth[(p["size"], p["moves"])]
        row = tally.row("web", 1)
        row["positions"] += 1
        row["searches"] += 1
        for report in r["reports"] + [r["answer"]]:
            for line in report.get("lines", []):
                if line.get("exact") is not None:
                    tally.claim("web", 1, p, line["columns"][0], line["exact"], t, f"think report {line}")
        a = r["answer"]
        if a.get("exact") is not None:
            tally.claim("web", 1, p, a["column"], a["exact"], t, f"think {a}")
        for c, s in enumerate(r["analyse"]["columns"]):
            if s is not None:
                tally.claim("web", 1, p, c, s, t, "analyse")


def ordinal_in(words: str) -> int:
    """The number of the first ordinal in `words` ("with its 3rd disc" gives 3)."""
    for w in words.split():
        digits = "".join(ch for ch in w if ch.isdigit())
        if digits and w.rstrip(")").endswith(("st", "nd", "rd", "th")):
            return int(digits)
    raise ValueError(f"no ordinal in {words!r}")


def hint_exact(words: str, cells: int, discs: int):
    """The exact score `vier play`'s hint states for a column, or None (full, unknown)."""
    if words.startswith("wins at once"):
        return exact_of_mate(cells, discs, 1)
    if words.startswith("wins"):
        return exact_of_mate(cells, discs, ordinal_in(words))
    if words.startswith("loses"):
        return exact_of_mate(cells, discs, -ordinal_in(words))
    if words.startswith("draws"):
        return 0
    return None


def summary_exact(words: str, cells: int, discs: int):
    """The exact score of vier's summary of its own move ("I win in 7 moves"), if it states one;
    "at most" is a bound."""
    if "at most" in words:
        return None
    if "I win with my next move" in words:
        return exact_of_mate(cells, discs, 1)
    if "you can win with your next move" in words:
        return exact_of_mate(cells, discs, -1)
    for lead, sign in (("I win in ", 1), ("you can win in ", -1)):
        if lead in words:
            n = int(words.split(lead)[1].split()[0])
            return exact_of_mate(cells, discs, sign * n)
    if " drawn" in words or words.startswith("drawn"):
        return 0
    return None


def drive_play(vier, positions, truth, rng, tally):
    # a process a position (each starts in about half a second): a sample of them
    for p in positions:
        t = truth[(p["size"], p["moves"])]
        cells, discs = p["w"] * p["h"], len(p["moves"])
        first = rng.choice(["me", "engine"])
        ms = rng.randint(1, 20)
        res = subprocess.run([vier, "play", "--position", p["moves"], "--size", p["size"],
                              "--movetime", str(ms), "--first", first],
                             input="h\nq\n", capture_output=True, text=True, timeout=120)
        row = tally.row("play", 1)
        row["positions"] += 1
        row["searches"] += 1
        lines = res.stdout.splitlines()
        hint_discs = discs
        for line in lines:
            s = line.strip()
            if s.startswith("vier plays "):
                col = int(s.split()[2]) - 1
                inside = s[s.index("(") + 1:s.rindex(")")]
                value = summary_exact(inside, cells, discs)
                if value is not None:
                    tally.claim("play", 1, p, col, value, t, s)
                hint_discs = discs + 1
        if hint_discs != discs:
            # the hint is of the position after vier's move: not this position's columns
            continue
        in_hint = False
        for line in lines:
            s = line.strip()
            if s.startswith("hint:"):
                in_hint = True
                continue
            if in_hint and len(s) > 2 and s[0].isdigit() and s[1] == ":":
                value = hint_exact(s[2:].strip(), cells, discs)
                if value is not None:
                    tally.claim("play", 1, p, int(s[0]) - 1, value, t, f"hint {s}")
            elif in_hint:
                in_hint = False


def main() -> int:
    if "--python-client" in sys.argv:
        python_client()
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vier", required=True, help="the vier binary")
    ap.add_argument("--python", help="a Python with the vier package installed")
    ap.add_argument("--web", help="the static folder tools/web.sh builds (vier.wasm.gz, 7x6.book.gz)")
    ap.add_argument("--fronts", default="protocol,serve,play",
                    help="comma-separated: protocol, python, serve, web, play")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--play-positions", type=int, default=40,
                    help="how many of the positions `vier play` gets (one process each)")
    ap.add_argument("--threads", default="1,2", help="thread counts for the protocol and Python")
    ap.add_argument("--seed", type=int, default=66)
    ap.add_argument("--out", help="write the table and the mismatches as JSON here")
    args = ap.parse_args()
    fronts = [f for f in args.fronts.split(",") if f]
    threads = [int(t) for t in args.threads.split(",")]

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    positions = random_positions(args.positions, args.seed)
    truth = reference(args.vier, positions, log)
    tally = Tally()
    for front in fronts:
        rng = random.Random(f"{args.seed}-{front}")
        started = time.monotonic()
        if front == "protocol":
            for th in threads:
                drive_protocol(args.vier, positions, truth, th, rng, tally)
        elif front == "python":
            if not args.python:
                raise SystemExit("--fronts python needs --python")
            drive_python(args.python, positions, truth, threads, rng, tally,
                         exact_calls=min(len(positions), 100))
        elif front == "serve":
            drive_serve(args.vier, positions, truth, tally)
        elif front == "web":
            if not args.web:
                raise SystemExit("--fronts web needs --web")
            drive_web(args.web, positions, truth, rng, tally)
        elif front == "play":
            drive_play(args.vier, positions[: args.play_positions], truth, rng, tally)
        else:
            raise SystemExit(f"unknown front end {front!r}")
        log(f"{front}: {time.monotonic() - started:.1f} s")
    rows = list(tally.rows.values())
    print("| front end | threads | positions | searches | proven values | mismatches |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['front']} | {r['threads']} | {r['positions']} | {r['searches']} | "
              f"{r['proven']} | {r['mismatches']} |")
    for m in tally.mismatches[:20]:
        print(f"MISMATCH {json.dumps(m)}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"seed": args.seed, "rows": rows, "mismatches": tally.mismatches}, fh, indent=1)
    return 1 if tally.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
