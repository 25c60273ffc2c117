#!/usr/bin/env python3
"""study.py - what does more thinking time buy vier?  A reproducible study.

    python3 tools/study.py                      # the full study -> docs/study/
    python3 tools/study.py --quick --out-dir /tmp/q --oracle /tmp/q/oracle.json

For each thinking time (default 1, 3, 10, 30, 100, 300, 1000 ms per move, `go movetime T` with
`MoveOverhead 0`) it measures, on a fixed sample of Pascal Pons' positions (begin: Test_L1_R2,
middle: Test_L2_R2, end: Test_L3_R1; `--positions N` each, drawn with `--seed`):

1. depth and nodes: the last `info` line before `bestmove` (mean, standard deviation, median,
   range; per phase), and the share of positions whose value the engine proved in time;
2. move accuracy: the share of positions where the chosen move keeps the position's exact game
   value (its column's exact score has the sign - win, draw or loss - of the best column's), and
   the share where it is an optimal move (the best column's exact score).  The exact column
   scores come from `vier solve --all`, computed once and cached in `--oracle` (a committed JSON
   file), and are checked against the score in Pons' file;
3. strength: a match with tools/referee.py against a fixed reference (the same binary at
   `--ref-ms`, default 10 ms per move), `--games` games (pairs of colour-swapped games over
   tools/openings.txt), one game at a time; score and Elo with a 95% interval.

Output in --out-dir: results.json (everything), summary.csv (one row per time), positions.csv
(one row per position and time), matches/T.jsonl (the referee's game records), report.md, and
the plots accuracy.svg, elo.svg, depth.svg and study.svg (all three).  Plots need matplotlib
(`python3 -m pip install matplotlib`); the full study fails without it, --quick skips the plots
with a warning.  Everything else is the Python 3.11 standard library.

The engine binary is copied to a temporary file first, so a rebuild of target/release/vier
during the study does not mix two engines.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from viertools.accuracy import ENGINE_OPTIONS, measure
from viertools.engine import EngineProcess
from viertools.oracle import ensure_oracle, read_pons, seeded_prefix
from viertools.results import summarize as summarize_games
from viertools.stats import fmt_elo as _fmt_elo, pentanomial_stats, trinomial_stats, wilson
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REFEREE = os.path.join(HERE, "referee.py")

DEFAULT_TIMES = [1, 3, 10, 30, 100, 300, 1000]
QUICK_TIMES = [3, 30]
PHASES = [("begin", "Test_L1_R2"), ("middle", "Test_L2_R2"), ("end", "Test_L3_R1")]


# ---------------------------------------------------------------------------
# Positions and the oracle
# ---------------------------------------------------------------------------

def sample_positions(data_dir: str, n: int, seed: int) -> dict[str, list[tuple[str, int]]]:
    """n positions per phase, the first n of a seeded shuffle (so a smaller n is a prefix)."""
    out = {}
    for phase, name in PHASES:
        rows = read_pons(os.path.join(data_dir, name))
        out[phase] = seeded_prefix(rows, n, f"vier-study:{seed}:{name}")
    return out


# ---------------------------------------------------------------------------
# Talking to the engine
# ---------------------------------------------------------------------------

def describe(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    return {"n": len(values), "mean": statistics.fmean(values),
            "sd": statistics.pstdev(values) if len(values) > 1 else 0.0,
            "median": statistics.median(values), "min": min(values), "max": max(values)}


def summarize_positions(rows: list[dict]) -> dict:
    out = {}
    groups = {p: [r for r in rows if r["phase"] == p] for p, _ in PHASES}
    groups["all"] = rows
    for name, rs in groups.items():
        n = len(rs)
        keep = sum(r["keeps_value"] for r in rs)
        opt = sum(r["optimal"] for r in rs)
        lo, hi = wilson(keep, n)
        crit = [r for r in rs if r["critical"]]
        ck = sum(r["keeps_value"] for r in crit)
        clo, chi = wilson(ck, len(crit))
        out[name] = {"positions": n,
                     "critical": len(crit),
                     "critical_keeps_value": ck / len(crit) if crit else None,
                     "critical_keeps_value_low": clo, "critical_keeps_value_high": chi,
                     "critical_random": statistics.fmean(r["random_keeps"] for r in crit)
                     if crit else None,
                     "random_keeps_value": statistics.fmean(r["random_keeps"] for r in rs)
                     if rs else None,
                     "keeps_value": keep / n if n else None, "keeps_value_low": lo,
                     "keeps_value_high": hi, "optimal": opt / n if n else None,
                     "proven": sum(r["proven"] for r in rs) / n if n else None,
                     "depth": describe([r["depth"] for r in rs]),
                     "nodes": describe([r["nodes"] for r in rs]),
                     "engine_ms": describe([r["engine_ms"] for r in rs]),
                     "wall_ms": describe([r["wall_ms"] for r in rs])}
    return out


# ---------------------------------------------------------------------------
# Matches
# ---------------------------------------------------------------------------

def opening_values(path: str) -> dict[str, int]:
    """Exact scores written as '# score +N' comments by make_openings.py (side to move's view)."""
    out = {}
    try:
        with open(path) as fh:
            for line in fh:
                body, _, comment = line.partition("#")
                words = comment.split()
                if body.strip() and len(words) >= 2 and words[0] == "score":
                    out[body.strip().replace(" ", "")] = int(words[1])
    except OSError:
        pass
    return out


VALUE_CLASSES = ("won for vier", "drawn", "lost for vier")


def value_breakdown(games, values: dict[str, int]) -> dict | None:
    """vier's (A's) points by the opening's exact value for A: [points, games] per class."""
    out = {k: [0.0, 0] for k in VALUE_CLASSES}
    for g in games:
        v = values.get(g["opening"])
        if v is None:
            return None
        a_to_move = (g["first"] == "A") == (len(g["opening"]) % 2 == 0)
        v = v if a_to_move else -v
        k = VALUE_CLASSES[0] if v > 0 else VALUE_CLASSES[1] if v == 0 else VALUE_CLASSES[2]
        out[k][0] += g["score_a"]
        out[k][1] += 1
    return out


def play_match(binary: str, ms: int, args, path: str, log) -> dict:
    resume = args.resume and os.path.exists(path)
    if os.path.exists(path) and not resume:
        os.remove(path)
    cmd = [sys.executable, REFEREE,
           "--engine", binary, "--name", f"vier-{ms}ms", "--tc", f"movetime={ms}",
           "--engine", binary, "--name", f"ref-{args.ref_ms}ms", "--tc", f"movetime={args.ref_ms}",
           "--games", str(args.games), "--openings", args.openings, "--concurrency", "1",
           "--margin", str(args.margin), "--resume" if resume else "--out", path]
    # options after each --engine bind to it: insert them behind both engines' names
    for k, v in ENGINE_OPTIONS.items():
        for anchor in (f"vier-{ms}ms", f"ref-{args.ref_ms}ms"):
            i = cmd.index(anchor) + 1
            cmd[i:i] = ["--option", f"{k}={v}"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"referee failed ({res.returncode}) at {ms} ms:\n{res.stdout}\n{res.stderr}")
    with open(path) as fh:
        recs = [json.loads(l) for l in fh if l.strip()]
    games = {r["game"]: r for r in recs if r.get("type") == "game"}
    s = summarize_games(games)
    think = {"A": 0.0, "B": 0.0}
    moves = {"A": 0, "B": 0}
    for g in games.values():
        for ply in g.get("plies", []):
            think[ply["by"]] += ply.get("time_ms", 0.0)
            moves[ply["by"]] += 1
    tri = trinomial_stats(s["wins"], s["draws"], s["losses"])
    pen = pentanomial_stats(s["penta"])
    header = next((r for r in recs if r.get("type") == "match"), {})
    return {"ms": ms, "ref_ms": args.ref_ms, "games": len(games),
            "by_opening_value": value_breakdown(games.values(), opening_values(args.openings)),
            "openings": header.get("openings", []), "wins": s["wins"],
            "draws": s["draws"], "losses": s["losses"], "score": tri["score"],
            "penta": s["penta"], "terminations": s["terminations"],
            "elo": pen["elo"], "elo_low": pen["elo_low"], "elo_high": pen["elo_high"],
            "elo_trinomial": tri["elo"], "elo_trinomial_low": tri["elo_low"],
            "elo_trinomial_high": tri["elo_high"], "los": tri["los"],
            "mean_move_ms": round(think["A"] / max(1, moves["A"]), 1),
            "ref_mean_move_ms": round(think["B"] / max(1, moves["B"]), 1),
            "think_s": round((think["A"] + think["B"]) / 1000, 1),
            "referee_summary": res.stdout.strip()}


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

def finite(x):
    return x is not None and math.isfinite(x)


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401  (optional: only the plots need it)
    except ImportError:
        return False
    return True


def fmt_elo(x) -> str:
    return _fmt_elo(x, digits=0)


def write_csvs(out_dir: str, rows: list[dict], summary: dict, matches: dict):
    with open(os.path.join(out_dir, "positions.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    cols = ["ms"]
    for ph in [p for p, _ in PHASES] + ["all"]:
        cols += [f"{ph}_keeps_value", f"{ph}_critical", f"{ph}_critical_keeps_value",
                 f"{ph}_critical_random", f"{ph}_optimal", f"{ph}_proven", f"{ph}_depth_mean",
                 f"{ph}_depth_sd", f"{ph}_nodes_mean", f"{ph}_nodes_sd", f"{ph}_time_used_ms"]
    cols += ["games", "wins", "draws", "losses", "score", "elo", "elo_low", "elo_high"]
    with open(os.path.join(out_dir, "summary.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for ms, s in summary.items():
            row = [ms]
            for ph in [p for p, _ in PHASES] + ["all"]:
                g = s[ph]
                ck, cr = g["critical_keeps_value"], g["critical_random"]
                row += [round(g["keeps_value"], 4), g["critical"],
                        "" if ck is None else round(ck, 4), "" if cr is None else round(cr, 4),
                        round(g["optimal"], 4), round(g["proven"], 4),
                        round(g["depth"]["mean"], 2), round(g["depth"]["sd"], 2),
                        round(g["nodes"]["mean"]), round(g["nodes"]["sd"]),
                        round(g["engine_ms"]["mean"], 1)]
            m = matches.get(ms)
            if m:
                row += [m["games"], m["wins"], m["draws"], m["losses"], round(m["score"], 4)]
                row += [round(x, 1) if finite(x) else x for x in (m["elo"], m["elo_low"], m["elo_high"])]
            else:
                row += [""] * 8
            w.writerow(row)


ELO_CAP = 1000  # an infinite Elo (all games won or lost) is drawn at the cap, marked with a triangle


def plot(out_dir: str, times: list[int], summary: dict, matches: dict, ref_ms: int, title: str):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "vier-study"
    import matplotlib.pyplot as plt

    colors = {"begin": "tab:blue", "middle": "tab:orange", "end": "tab:green", "all": "black"}

    def acc(ax):
        for ph in [p for p, _ in PHASES] + ["all"]:
            if summary[times[0]][ph]["critical"] == 0:
                continue
            n = summary[times[0]][ph]["critical"]
            y = [100 * summary[t][ph]["critical_keeps_value"] for t in times]
            ax.plot(times, y, marker="o", color=colors[ph], label=f"{ph} ({n})",
                    linestyle="--" if ph == "all" else "-")
        if summary[times[0]]["all"]["critical"]:
            ax.axhline(100 * summary[times[0]]["all"]["critical_random"], color="grey",
                       linestyle=":", label="random move (all)")
        ax.set_xscale("log")
        ax.set_xlabel("thinking time per move (ms)")
        ax.set_ylabel("moves that keep the exact game value (%)")
        ax.set_title("Move accuracy on critical positions")
        ax.set_ylim(0, 102)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="lower right")

    def elo(ax):
        ts = [t for t in times if t in matches]
        seen = [abs(v) for t in ts for v in (matches[t]["elo"], matches[t]["elo_low"],
                                             matches[t]["elo_high"]) if finite(v)]
        cap = min(ELO_CAP, max(seen + [100.0]) * 1.15)  # the axis limit; infinities drawn there
        for t in ts:
            m = matches[t]
            e = m["elo"]
            if e is None:
                continue
            if math.isinf(e):
                ax.plot([t], [math.copysign(cap, e)], marker="^" if e > 0 else "v",
                        color="tab:red", markersize=9, linestyle="none")
                continue
            # an unbounded end of the interval is drawn up to the axis limit
            lo = -cap if m["elo_low"] is None or not finite(m["elo_low"]) else m["elo_low"]
            hi = cap if m["elo_high"] is None or not finite(m["elo_high"]) else m["elo_high"]
            if m["elo_low"] is None:  # no spread in the results: no interval
                lo = hi = e
            ax.errorbar([t], [e], yerr=[[max(0.0, e - lo)], [max(0.0, hi - e)]], fmt="o",
                        color="tab:red", capsize=4)
        fin = [(t, matches[t]["elo"]) for t in ts if finite(matches[t]["elo"])]
        if fin:
            ax.plot([t for t, _ in fin], [e for _, e in fin], color="tab:red", alpha=0.4)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.axvline(ref_ms, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xscale("log")
        ax.set_ylim(-cap - 50, cap + 50)
        ax.set_xlabel("thinking time per move (ms)")
        ax.set_ylabel(f"Elo vs vier at {ref_ms} ms (95% interval)")
        ax.set_title("Strength")
        ax.grid(True, which="both", alpha=0.3)

    def depth(ax):
        for ph in [p for p, _ in PHASES]:
            y = [summary[t][ph]["depth"]["mean"] for t in times]
            e = [summary[t][ph]["depth"]["sd"] for t in times]
            ax.errorbar(times, y, yerr=e, marker="o", color=colors[ph], label=ph, capsize=3)
        ax.set_xscale("log")
        ax.set_xlabel("thinking time per move (ms)")
        ax.set_ylabel("depth reached (mean ± sd)")
        ax.set_title("Search depth")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="upper left")

    def nodes(ax):
        for ph in [p for p, _ in PHASES]:
            y = [max(1, summary[t][ph]["nodes"]["mean"]) for t in times]
            ax.plot(times, y, marker="o", color=colors[ph], label=ph)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("thinking time per move (ms)")
        ax.set_ylabel("nodes searched (mean)")
        ax.set_title("Nodes")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="upper left")

    def proven(ax):
        for ph in [p for p, _ in PHASES]:
            y = [100 * summary[t][ph]["proven"] for t in times]
            ax.plot(times, y, marker="o", color=colors[ph], label=ph)
        ax.set_xscale("log")
        ax.set_ylim(-2, 102)
        ax.set_xlabel("thinking time per move (ms)")
        ax.set_ylabel("positions whose value vier proved (%)")
        ax.set_title("Solved within the time")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="best")

    meta = {"Date": None, "Creator": "tools/study.py"}
    for name, fns, cols in (("accuracy", [acc], 1), ("elo", [elo], 1),
                            ("depth", [depth, nodes, proven], 3),
                            ("study", [acc, elo, depth, proven], 2)):
        rows = len(fns) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.2 * rows), squeeze=False)
        for fn, ax in zip(fns, axes.flat):
            fn(ax)
        if name == "study":
            fig.suptitle(title, fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, f"{name}.svg"), metadata=meta)
        plt.close(fig)


def report_md(meta: dict, times: list[int], summary: dict, matches: dict, plotted: bool) -> str:
    L = []
    a = meta["args"]
    L.append("# vier: strength against thinking time\n")
    L.append(f"Generated by `{meta['command']}` on {meta['date']} (engine `{meta['engine_id']}`, "
             f"commit {meta['commit']}{' with uncommitted changes' if meta['dirty'] else ''}; "
             f"{meta['cpus']} CPUs, shared with other work). Wall time of the study: "
             f"{meta['wall_s'] / 60:.1f} min.\n")
    opts = meta.get("engine_options", {})
    extra = {k: v for k, v in opts.items() if k not in ("MoveOverhead", "UCI_ShowWDL")}
    L.append("Setup: `go movetime T` with `MoveOverhead 0` (the engine thinks the whole T), "
             + (", ".join(f"`{k} {v}`" for k, v in extra.items()) if extra
                else "default `Hash` (32 MB)")
             + ", a fresh game (`ucinewgame`) per position; one engine searching at a time.\n")
    if plotted:
        L.append("![accuracy, Elo and depth against thinking time](study.svg)\n")
    n = a["positions"]
    al0 = summary[times[0]]["all"]
    L.append("## Move accuracy\n")
    L.append(f"{n} positions per phase drawn with seed {a['seed']} from Pons' sets: begin = "
             "`Test_L1_R2` (4-14 discs played), middle = `Test_L2_R2` (15-27), end = "
             "`Test_L3_R1` (29-41). A move *keeps the value* if its exact score (from "
             "`vier solve --all`, cached in `oracle.json`) has the sign of the best column's: "
             "a won position stays won, a drawn one drawn; a lost position is lost whatever "
             "is played. A position is *critical* if at least one legal move spoils its value "
             f"({al0['critical']} of the {al0['positions']}: "
             + ", ".join(f"{p} {summary[times[0]][p]['critical']}" for p, _ in PHASES)
             + "); elsewhere every move keeps the value, so the critical positions are where "
             "accuracy is measured. *Random* is the share of value-keeping moves among the legal "
             "ones (what a random mover scores). *Optimal* = the best column's exact score "
             "(fastest win / slowest loss). *Proven* = the engine reported a proven score (mate "
             "or proven draw) within the time. Intervals are Wilson's 95% intervals.\n")

    def pct(x):
        return "-" if x is None else f"{100 * x:.0f}%"

    hdr = "| ms | " + " | ".join(f"{p} critical" for p, _ in PHASES) + \
          " | all critical (95%) | all positions | all optimal | proven (b/m/e) |"
    L.append(hdr)
    L.append("|" + "---|" * (hdr.count("|") - 1))
    rnd = ["random"] + [pct(summary[times[0]][p]["critical_random"]) for p, _ in PHASES] + \
          [pct(al0["critical_random"]), pct(al0["random_keeps_value"]), "", ""]
    for t in times:
        s = summary[t]
        cells = [pct(s[p]["critical_keeps_value"]) for p, _ in PHASES]
        al = s["all"]
        cells.append(f"{pct(al['critical_keeps_value'])} ({100 * al['critical_keeps_value_low']:.0f}-"
                     f"{100 * al['critical_keeps_value_high']:.0f})" if al["critical"] else "-")
        cells.append(pct(al["keeps_value"]))
        cells.append(pct(al["optimal"]))
        cells.append("/".join(f"{100 * s[p]['proven']:.0f}" for p, _ in PHASES) + " %")
        L.append(f"| {t} | " + " | ".join(cells) + " |")
    L.append("| " + " | ".join(rnd) + " |")
    L.append("")
    L.append("## Depth and nodes\n")
    L.append("From the last `info` line before `bestmove`: mean ± standard deviation "
             "(median) of the depth, mean ± sd of the nodes, and the mean time the engine "
             "actually used (its `time` field). Once the root is proven the search stops, "
             "so depth, nodes and time stop growing where most positions are proven (the end "
             "phase at once, the begin phase within a few hundred ms).\n")
    hdr = "| ms | " + " | ".join(f"{p} depth" for p, _ in PHASES) + " | " + \
          " | ".join(f"{p} nodes" for p, _ in PHASES) + " | time used b/m/e (ms) |"
    L.append(hdr)
    L.append("|" + "---|" * (hdr.count("|") - 1))
    for t in times:
        s = summary[t]
        cells = [f"{s[p]['depth']['mean']:.1f} ± {s[p]['depth']['sd']:.1f} ({s[p]['depth']['median']:g})"
                 for p, _ in PHASES]
        cells += [f"{s[p]['nodes']['mean']:.3g} ± {s[p]['nodes']['sd']:.2g}" for p, _ in PHASES]
        cells.append(" / ".join(f"{s[p]['engine_ms']['mean']:.0f}" for p, _ in PHASES))
        L.append(f"| {t} | " + " | ".join(cells) + " |")
    L.append("")
    if matches:
        m0 = next(iter(matches.values()))
        L.append("## Matches\n")
        openings = m0.get("openings", [])
        passes = a["games"] / (2 * len(openings)) if openings else 0
        L.append(f"vier at T ms per move against the same binary at {m0['ref_ms']} ms, "
                 f"{a['games']} games per time: {a['games'] // 2} pairs of colour-swapped games "
                 + (f"over the {len(openings)} openings of " if a["games"] // 2 >= len(openings)
                    else f"over the first {a['games'] // 2} of the {len(openings)} openings of ")
                 + f"`{os.path.relpath(a['openings'], ROOT) if os.path.isabs(a['openings']) else a['openings']}`"
                 + (f" ({passes:g} passes: under a fixed movetime the depth reached depends on the "
                    "machine's timing, so a repeated opening usually gives a different game, but "
                    "not always, and the results cluster by opening; the intervals, which treat "
                    "pairs as independent, understate the uncertainty)" if passes > 1 else "")
                 + ", one game at a time (`tools/referee.py --concurrency 1`). Elo is from the "
                 "pentanomial pair statistics with its 95% interval; the intervals are wide "
                 "for so few games, and a 100% or 0% score has an infinite Elo (an open end in "
                 "the plot). The T = reference row is a self-play check. The per-move times are "
                 "the referee's measurements: once a position is proven the engine moves at "
                 "once, so the mean is far below T. Game records: `matches/T.jsonl`.\n")
        L.append("| ms | games | W / D / L | score | Elo (95% interval) | mean ms per move (vier / ref) | terminations |")
        L.append("|---|---|---|---|---|---|---|")
        for t in times:
            m = matches.get(t)
            if not m:
                continue
            L.append(f"| {t} | {m['games']} | {m['wins']} / {m['draws']} / {m['losses']} | "
                     f"{100 * m['score']:.0f}% | {fmt_elo(m['elo'])} ({fmt_elo(m['elo_low'])} .. "
                     f"{fmt_elo(m['elo_high'])}) | {m['mean_move_ms']:g} / {m['ref_mean_move_ms']:g} | "
                     + ", ".join(f"{k} {v}" for k, v in sorted(m["terminations"].items())) + " |")
        L.append("")
        rows = [(t, matches[t].get("by_opening_value")) for t in times if t in matches]
        if rows and all(b for _, b in rows):
            L.append("Where the points come from: vier's points by the exact value of the "
                     "opening for vier (the scores in the opening file's comments). In a drawn "
                     "opening a perfect player never loses; in a lost one it can only profit "
                     "from the reference's mistakes.\n")
            L.append("| ms | " + " | ".join(VALUE_CLASSES) + " |")
            L.append("|---|---|---|---|")
            for t, b in rows:
                L.append(f"| {t} | " + " | ".join(
                    f"{b[k][0]:g} / {b[k][1]}" if b[k][1] else "-" for k in VALUE_CLASSES) + " |")
            L.append("")
    L.append("## Files\n")
    L.append("`results.json` (all numbers and the settings), `summary.csv` (one row per time), "
             "`positions.csv` (every position at every time: move, depth, nodes, score, "
             "verdict), `oracle.json` (exact column scores), `matches/*.jsonl`"
             + (", `accuracy.svg`, `elo.svg`, `depth.svg`, `study.svg`." if plotted else ".") + "\n")
    return "\n".join(L)


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


def engine_id(binary: str) -> str:
    eng = EngineProcess([binary], "study")
    try:
        eng.start()
        eng.handshake(10, 30, [])
    finally:
        eng.quit(5)
    return eng.id_name or "unknown"


def replot(out_dir: str) -> int:
    with open(os.path.join(out_dir, "results.json")) as fh:
        res = json.load(fh)
    meta = res["meta"]
    times = meta["times"]
    summary = {t: res["summary"][str(t)] for t in times}
    matches = {t: res["matches"][str(t)] for t in times if str(t) in res["matches"]}
    values = opening_values(os.path.join(ROOT, meta["args"]["openings"])
                            if not os.path.isabs(meta["args"]["openings"]) else meta["args"]["openings"])
    for m in matches.values():
        if "by_opening_value" not in m:  # results written before this was recorded
            path = os.path.join(out_dir, "matches", f"{m['ms']}.jsonl")
            if os.path.exists(path):
                with open(path) as fh:
                    games = [json.loads(l) for l in fh if l.strip()]
                m["by_opening_value"] = value_breakdown(
                    [g for g in games if g.get("type") == "game"], values)
        if not m.get("openings"):  # results written before the openings were recorded
            path = os.path.join(out_dir, "matches", f"{m['ms']}.jsonl")
            if os.path.exists(path):
                with open(path) as fh:
                    m["openings"] = json.loads(fh.readline()).get("openings", [])
    res["matches"] = {str(t): m for t, m in matches.items()}
    with open(os.path.join(out_dir, "results.json"), "w") as fh:
        json.dump(res, fh, indent=1)
        fh.write("\n")
    plotted = have_matplotlib()
    if plotted:
        plot(out_dir, times, summary, matches, meta["args"]["ref_ms"],
             f"vier {meta['commit']}: {meta['args']['positions']} positions per phase, "
             f"{meta['args']['games']} games per time")
    with open(os.path.join(out_dir, "report.md"), "w") as fh:
        fh.write(report_md(meta, times, summary, matches, plotted))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "vier"),
                    help="engine binary (default target/release/vier)")
    ap.add_argument("--times", help="thinking times in ms, e.g. 1,3,10,30,100,300,1000")
    ap.add_argument("--positions", type=int, help="positions per phase (default 100, quick 2)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the position sample (default 1)")
    ap.add_argument("--games", type=int, help="games per time point (even; default 96: the first 48 openings x 2 colours; quick 2)")
    ap.add_argument("--ref-ms", type=int, default=10, help="the reference's ms per move (default 10)")
    ap.add_argument("--openings", default=os.path.join(HERE, "openings.txt"))
    ap.add_argument("--margin", type=int, default=50, help="referee --margin in ms (default 50)")
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "pons"),
                    help="directory of Pons' Test_* files (default ../shared/data/pons)")
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "docs", "study"))
    ap.add_argument("--oracle", help="cached exact scores (default <out-dir>/oracle.json)")
    ap.add_argument("--commit", help="the commit the binary was built from, for the report (default: the "
                    "last commit that changed src/ or Cargo.*, flagged if they have uncommitted "
                    "changes)")
    ap.add_argument("--option", action="append", default=[], metavar="Name=Value",
                    help="an engine option for every engine of the study (both sides of the "
                    "matches), e.g. --option Hash=256; repeatable")
    ap.add_argument("--no-matches", action="store_true", help="skip the referee matches")
    ap.add_argument("--resume", action="store_true",
                    help="continue the matches of an interrupted run (keep matches/*.jsonl)")
    ap.add_argument("--replot", action="store_true",
                    help="only redraw the plots and rewrite report.md from <out-dir>/results.json")
    ap.add_argument("--quick", action="store_true",
                    help="seconds-long smoke run: times 3,30, 2 positions per phase, 2 games")
    args = ap.parse_args(argv)

    if args.replot:
        return replot(args.out_dir)
    times = [int(x) for x in args.times.split(",")] if args.times else \
        (QUICK_TIMES if args.quick else DEFAULT_TIMES)
    args.positions = args.positions or (2 if args.quick else 100)
    args.games = args.games if args.games is not None else (2 if args.quick else 96)
    if args.games % 2:
        ap.error("--games must be even (pairs of colour-swapped games)")
    args.oracle = args.oracle or os.path.join(args.out_dir, "oracle.json")
    args.openings = os.path.abspath(args.openings)
    for opt in args.option:
        name, eq, value = opt.partition("=")
        if not eq or not name.strip():
            ap.error(f"--option {opt!r}: expected Name=Value")
        ENGINE_OPTIONS[name.strip()] = value.strip()
    if not (os.path.isfile(args.bin) and os.access(args.bin, os.X_OK)):
        ap.error(f"--bin {args.bin}: not an executable file (build with cargo build --release)")

    have_mpl = have_matplotlib()
    if not have_mpl and not args.quick:
        raise SystemExit("matplotlib is needed for the plots: python3 -m pip install matplotlib")

    def log(msg):
        print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)

    t_start = time.monotonic()
    os.makedirs(os.path.join(args.out_dir, "matches"), exist_ok=True)
    commit, dirty = (args.commit, False) if args.commit else git_info()
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "vier")
        shutil.copy2(args.bin, binary)
        eid = engine_id(binary)
        sample = sample_positions(args.data, args.positions, args.seed)
        oracle = ensure_oracle(args.oracle, binary, sample, log)

        rows, summary = [], {}
        for t in times:
            log(f"positions at {t} ms ...")
            r = measure(binary, t, sample, oracle, log)
            rows += r
            summary[t] = summarize_positions(r)
            log(f"  keeps value {100 * summary[t]['all']['keeps_value']:.0f}%, "
                f"depth {summary[t]['all']['depth']['mean']:.1f}")

        matches = {}
        if not args.no_matches and args.games > 0:
            for t in times:
                log(f"match {t} ms vs {args.ref_ms} ms, {args.games} games ...")
                m = play_match(binary, t, args, os.path.join(args.out_dir, "matches", f"{t}.jsonl"), log)
                matches[t] = m
                log(f"  {m['wins']}/{m['draws']}/{m['losses']}, Elo {fmt_elo(m['elo'])}")

    wall = time.monotonic() - t_start
    cmd = "python3 tools/study.py" + ("" if argv is None and len(sys.argv) == 1 else
                                      " " + " ".join(argv if argv is not None else sys.argv[1:]))
    meta = {"command": cmd, "date": datetime.datetime.now(datetime.timezone.utc)
            .strftime("%Y-%m-%d %H:%M UTC"), "engine_id": eid, "commit": commit, "dirty": dirty,
            "cpus": os.cpu_count(), "wall_s": round(wall, 1), "times": times,
            "engine_options": dict(ENGINE_OPTIONS),
            "args": {"positions": args.positions, "seed": args.seed, "games": args.games,
                     "ref_ms": args.ref_ms, "openings": args.openings, "margin": args.margin,
                     "quick": args.quick},
            "positions": {p: [m for m, _ in rs] for p, rs in sample.items()}}
    with open(os.path.join(args.out_dir, "results.json"), "w") as fh:
        json.dump({"meta": {**meta, "args": {**meta["args"], "openings":
                                             os.path.relpath(args.openings, ROOT)}},
                   "summary": {str(t): s for t, s in summary.items()},
                   "matches": {str(t): m for t, m in matches.items()}}, fh, indent=1)
        fh.write("\n")
    write_csvs(args.out_dir, rows, summary, matches)
    plotted = False
    if have_mpl:
        plot(args.out_dir, times, summary, matches, args.ref_ms,
             f"vier {commit}: {args.positions} positions per phase, {args.games} games per time")
        plotted = True
    else:
        log("matplotlib missing: no plots (quick mode only)")
    with open(os.path.join(args.out_dir, "report.md"), "w") as fh:
        fh.write(report_md(meta, times, summary, matches, plotted))
    log(f"done in {wall:.0f}s: {args.out_dir}/report.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
