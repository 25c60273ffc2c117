#!/usr/bin/env python3
"""Calibrates vier's strength levels: a chain of referee matches from the beginner up.

The win-and-block beginner (tools/win_block.py) plays `Skill Level` 1, each level plays the next,
and the top level plays the full engine (no level) at --full-ms per move. Each match gives the
Elo difference of its two players with a 95% interval (pentanomial, over colour-swapped pairs
from the balanced openings); summed along the chain they give every player's Elo on a scale
where the beginner is --anchor (1000), with the intervals' variances added. A level's games are
its two matches. Every match goes to DIR/NAME.jsonl and resumes from it when rerun.

    python3 tools/levels.py --games 200 --out docs/levels

writes DIR/levels.json and DIR/table.md (the table protocol.md and src/levels.rs quote).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from viertools.results import read_results, summarize  # noqa: E402
from viertools.stats import pentanomial_stats  # noqa: E402

Z95 = 1.959964


def players(args) -> list[tuple[str, list[str]]]:
    """(name, referee engine arguments) from the beginner up to the full engine."""
    out = [("win-block", ["--engine", f"{sys.executable} {HERE}/win_block.py --seed 1",
                          "--tc", "movetime=1000"])]
    for level in range(1, args.levels + 1):
        out.append((f"level-{level}", ["--engine", args.vier, "--option", f"Skill Level={level}",
                                       "--option", f"LevelSeed={level}",
                                       "--tc", f"movetime={args.level_ms}"]))
    out.append(("full", ["--engine", args.vier, "--tc", f"movetime={args.full_ms}"]))
    return out


def run_match(args, lower, upper) -> dict:
    """Plays (or resumes) lower vs upper; the Elo of upper over lower with its interval."""
    path = os.path.join(args.out, f"{lower[0]}-vs-{upper[0]}.jsonl")
    cmd = [sys.executable, os.path.join(HERE, "referee.py")]
    cmd += lower[1] + ["--name", lower[0]] + upper[1] + ["--name", upper[0]]
    cmd += ["--games", str(args.games), "--openings", args.openings, "--seed", "49"]
    cmd += ["--resume", path] if os.path.exists(path) else ["--out", path]
    done = 0
    if os.path.exists(path):
        done = len(read_results(path)[1])
    if done < args.games:
        print(" ".join(cmd), file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL if args.quiet else None)
    _, games, _ = read_results(path)
    s = summarize(games)
    pen = pentanomial_stats(s["penta"])
    # from lower's (A's) view: the upper player's gain is minus A's Elo
    return {"lower": lower[0], "upper": upper[0], "games": len(games),
            "upper_wins": s["losses"], "draws": s["draws"], "lower_wins": s["wins"],
            "elo": -pen["elo"] if pen["elo"] is not None else None,
            "low": -pen["elo_high"] if pen["elo_high"] is not None else None,
            "high": -pen["elo_low"] if pen["elo_low"] is not None else None,
            "terminations": s["terminations"]}


def chain(matches: list[dict], anchor: float) -> list[dict]:
    """Every player's Elo along the chain, with its 95% interval (variances add); a player's
    games are those of its (one or two) matches."""
    rows = [{"player": matches[0]["lower"], "elo": anchor, "low": anchor, "high": anchor}]
    elo, var = anchor, 0.0
    for m in matches:
        if all(v is not None and math.isfinite(v) for v in (m["elo"], m["low"], m["high"])):
            elo += m["elo"]
            var += ((m["high"] - m["low"]) / (2 * Z95)) ** 2
        else:
            elo, var = math.inf, math.inf
        half = Z95 * math.sqrt(var)
        rows.append({"player": m["upper"], "elo": elo, "low": elo - half, "high": elo + half})
    for i, r in enumerate(rows):
        r["games"] = sum(m["games"] for m in matches[max(i - 1, 0):i + 1])
    return rows


def fmt(x) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:+.0f}" if abs(x) < 1e6 else "inf"


def table(matches: list[dict], rows: list[dict], args) -> str:
    out = ["| player | Elo | 95% interval | games |", "|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['player']} | {r['elo']:.0f} | {r['low']:.0f} .. {r['high']:.0f} | "
                   f"{r['games']} |" if math.isfinite(r["elo"]) else f"| {r['player']} | n/a | | |")
    out += ["", "| match | games | upper W / D / L | Elo gain | 95% interval | excludes 0 |",
            "|---|---|---|---|---|---|"]
    for m in matches:
        excl = m["low"] is not None and (m["low"] > 0 or m["high"] < 0)
        out.append(f"| {m['lower']} -> {m['upper']} | {m['games']} | {m['upper_wins']} / "
                   f"{m['draws']} / {m['lower_wins']} | {fmt(m['elo'])} | {fmt(m['low'])} .. "
                   f"{fmt(m['high'])} | {'yes' if excl else 'no'} |")
    out += ["", f"Levels think {args.level_ms} ms at most per move (in practice their node "
            f"budget), the full engine {args.full_ms} ms; {args.games} games per match from "
            f"{os.path.basename(args.openings)}; the beginner is {args.anchor:.0f}."]
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vier", default="target/release/vier", help="the engine (default: %(default)s)")
    ap.add_argument("--levels", type=int, default=8, help="levels below the full engine")
    ap.add_argument("--games", type=int, default=200, help="games per match")
    ap.add_argument("--level-ms", type=int, default=100, help="movetime of the levels")
    ap.add_argument("--full-ms", type=int, default=10, help="movetime of the full engine")
    ap.add_argument("--anchor", type=float, default=1000.0, help="the beginner's Elo")
    ap.add_argument("--openings", default=os.path.join(HERE, "openings.txt"))
    ap.add_argument("--out", required=True, help="directory for the matches and the table")
    ap.add_argument("--quiet", action="store_true", help="no referee reports")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    ps = players(args)
    matches = [run_match(args, lo, hi) for lo, hi in zip(ps, ps[1:])]
    rows = chain(matches, args.anchor)
    with open(os.path.join(args.out, "levels.json"), "w", encoding="utf-8") as fh:
        json.dump({"matches": matches, "players": rows, "settings": {
            "games": args.games, "level_ms": args.level_ms, "full_ms": args.full_ms,
            "anchor": args.anchor}}, fh, indent=1)
    text = table(matches, rows, args)
    with open(os.path.join(args.out, "table.md"), "w", encoding="utf-8") as fh:
        fh.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
