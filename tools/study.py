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
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from viertools.accuracy import ENGINE_OPTIONS, measure
from viertools.engine import EngineProcess, parse_info
from viertools.oracle import ensure_oracle, read_pons, seeded_prefix
from viertools.results import summarize as summarize_games
from viertools.stats import Z95, fmt_elo as _fmt_elo, pentanomial_stats, trinomial_stats, wilson

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REFEREE = os.path.join(HERE, "referee.py")
CFOUR_INI = os.path.join(HERE, "fairy-stockfish", "cfour.ini")

LEVELS = [1, 2, 3, 4, 5, 6, 7]
LEVEL_NAMES = {1: "1 minimax", 2: "2 alpha-beta", 3: "3 +ordering", 4: "4 +deepening/TT",
               5: "5 +PVS/killers", 6: "6 +solver", 7: "7 +book (full)"}
DEPTH_LEVELS = [1, 2, 3, 4, 5]  # 6 and 7 end a `go depth` early with a proof
DEPTH_CAPS = {1: 9, 2: 13, 3: 15, 4: 18, 5: 19}
DEFAULT_TIMES = [1, 3, 10, 30, 100, 300, 1000]
QUICK_TIMES = [3, 30]
PHASES = [("begin", "Test_L1_R2"), ("middle", "Test_L2_R2"), ("end", "Test_L3_R1")]
PHASE_NAMES = [p for p, _ in PHASES]
BRANCHING = 7  # the theory's b: the columns of 7x6


def find_fsf() -> str | None:
    """The Fairy-Stockfish command with the project's cfour variant, or None if not installed."""
    path = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")
    return f"{shlex.quote(path)} load {shlex.quote(CFOUR_INI)}" if path else None


def sample_positions(data_dir: str, n: int, seed: int) -> dict[str, list[tuple[str, int]]]:
    """n positions per phase, the first n of a seeded shuffle (so a smaller n is a prefix)."""
    out = {}
    for phase, name in PHASES:
        rows = read_pons(os.path.join(data_dir, name))
        out[phase] = seeded_prefix(rows, n, f"vier-study:{seed}:{name}")
    return out


def describe(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    n = len(values)
    sd = statistics.stdev(values) if n > 1 else 0.0
    return {"n": n, "mean": statistics.fmean(values), "sd": sd,
            "ci": Z95 * sd / math.sqrt(n) if n > 1 else 0.0,
            "median": statistics.median(values), "min": min(values), "max": max(values)}


def geomean(xs: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(max(x, 1)) for x in xs))


# ---------------------------------------------------------------------------
# Part 1: the cost of a depth
# ---------------------------------------------------------------------------

def depth_costs(binary: str, level: int, cap: int, positions: dict, ms_cap: int, log) -> dict:
    """Per phase, per position: [[depth, nodes, time_ms], ...] of every depth finished, and
    `proven` when the search ended before the cap and the time limit with a proven value."""
    eng = EngineProcess([binary], f"study-depth-{level}")
    out = {}
    try:
        eng.start()
        eng.handshake(10, 30, list({**ENGINE_OPTIONS, "SearchLevel": str(level)}.items()))
        for phase, rows in positions.items():
            out[phase] = []
            for moves, _ in rows:
                eng.send("ucinewgame")
                eng.send(f"position startpos moves {moves}")
                eng.isready(30)
                t0 = eng.send(f"go depth {cap} movetime {ms_cap}")
                t1, lines = eng.read_until("bestmove", ms_cap / 1000 + 30, "go depth")
                seen = {}
                last = {}
                for l in lines:
                    if l.startswith("info depth"):
                        last = parse_info(l)
                        seen.setdefault(last["depth"], [last["depth"], last.get("nodes", 0),
                                                         last.get("time", 0)])
                proven = max(seen) < cap and (t1 - t0) * 1000 < ms_cap * 0.9 and \
                    ("mate" in last.get("score", {}) or last.get("wdl") == [0, 1000, 0])
                out[phase].append({"moves": moves, "depths": [seen[d] for d in sorted(seen)],
                                   "proven": proven})
    finally:
        eng.quit(5)
    return out


def depth_table(runs: dict) -> dict:
    """Per level and phase: for each depth that every position finished, the geometric mean of
    the nodes and the median time to finish it; and the effective branching factor over the
    last four such plies.  A position proven before depth d has nothing left to search: it
    counts with the nodes of its last depth."""
    table = {}
    for level, phases in runs.items():
        table[level] = {}
        for phase, positions in phases.items():
            n = len(positions)
            per_depth = {}
            deepest = max((p["depths"][-1][0] for p in positions if p["depths"]), default=0)
            for p in positions:
                for d, nodes, ms in p["depths"]:
                    per_depth.setdefault(d, []).append((nodes, ms))
                if p.get("proven") and p["depths"]:
                    d, nodes, ms = p["depths"][-1]
                    for x in range(d + 1, deepest + 1):
                        per_depth.setdefault(x, []).append((nodes, ms))
            rows = []
            for d in sorted(per_depth):
                got = per_depth[d]
                if len(got) < n:
                    break
                rows.append({"depth": d, "nodes": geomean([x for x, _ in got]),
                             "ms": statistics.median(t for _, t in got), "positions": n})
            table[level][phase] = {"rows": rows, "ebf": ebf_of(rows, None), "positions": n}
    # the same plies for every level: deeper plies are cheaper (more lines end within the
    # horizon), so only a common window compares the levels fairly
    for phase in PHASE_NAMES:
        tops = [t[phase]["rows"][-1]["depth"] for t in table.values()
                if phase in t and t[phase]["rows"]]
        common = min(tops) if tops else None
        for t in table.values():
            if phase in t:
                t[phase]["common_depth"] = common
                t[phase]["ebf_common"] = ebf_of(t[phase]["rows"], common)
    return table


def ebf_of(rows: list[dict], top: int | None) -> float | None:
    """The growth of the nodes per ply over the last four plies up to depth `top` (default the
    deepest row); fewer plies if the rows are shorter."""
    rows = [r for r in rows if top is None or r["depth"] <= top]
    k = min(4, len(rows) - 1)
    if k < 1:
        return None
    return (rows[-1]["nodes"] / rows[-1 - k]["nodes"]) ** (1 / k)


# ---------------------------------------------------------------------------
# Part 2: levels against thinking time
# ---------------------------------------------------------------------------

def summarize_positions(rows: list[dict]) -> dict:
    out = {}
    groups = {p: [r for r in rows if r["phase"] == p] for p in PHASE_NAMES}
    groups["all"] = rows
    for name, rs in groups.items():
        n = len(rs)
        crit = [r for r in rs if r["critical"]]
        ck = sum(r["keeps_value"] for r in crit)
        clo, chi = wilson(ck, len(crit))
        pv = sum(r["proven"] for r in rs)
        plo, phi = wilson(pv, n)
        out[name] = {"positions": n, "critical": len(crit),
                     "critical_keeps_value": ck / len(crit) if crit else None,
                     "critical_keeps_value_low": clo, "critical_keeps_value_high": chi,
                     "critical_random": statistics.fmean(r["random_keeps"] for r in crit)
                     if crit else None,
                     "keeps_value": sum(r["keeps_value"] for r in rs) / n if n else None,
                     "optimal": sum(r["optimal"] for r in rs) / n if n else None,
                     "proven": pv / n if n else None, "proven_low": plo, "proven_high": phi,
                     "depth": describe([r["depth"] for r in rs]),
                     "nodes": describe([r["nodes"] for r in rs]),
                     "engine_ms": describe([r["engine_ms"] for r in rs])}
    return out


# ---------------------------------------------------------------------------
# Part 3: matches
# ---------------------------------------------------------------------------

def opening_values(path: str) -> dict[str, int]:
    """Exact scores written as '# score +N' comments in the openings file (side to move's view)."""
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


VALUE_CLASSES = ("won for A", "drawn", "lost for A")


def value_breakdown(games, values: dict[str, int]) -> dict | None:
    """A's points by the opening's exact value for A: [points, games] per class."""
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


def play_match(a: dict, b: dict, args, path: str) -> dict:
    """A match of engine `a` against `b` (dicts: cmd, name, ms, options), A's view."""
    resume = args.resume and os.path.exists(path)
    if os.path.exists(path) and not resume:
        os.remove(path)
    cmd = [sys.executable, REFEREE]
    for e in (a, b):
        cmd += ["--engine", e["cmd"], "--name", e["name"], "--tc", f"movetime={e['ms']}"]
        for k, v in e.get("options", {}).items():
            cmd += ["--option", f"{k}={v}"]
    cmd += ["--games", str(args.games), "--openings", args.openings, "--concurrency", "1",
            "--margin", str(args.margin), "--resume" if resume else "--out", path]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"referee failed ({res.returncode}) for {a['name']} vs {b['name']}:\n"
                         f"{res.stdout}\n{res.stderr}")
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
    return {"a": a["name"], "b": b["name"], "a_ms": a["ms"], "b_ms": b["ms"],
            "games": len(games), "wins": s["wins"], "draws": s["draws"], "losses": s["losses"],
            "score": tri["score"], "penta": s["penta"], "terminations": s["terminations"],
            "elo": pen["elo"], "elo_low": pen["elo_low"], "elo_high": pen["elo_high"],
            "mean_move_ms": round(think["A"] / max(1, moves["A"]), 1),
            "b_mean_move_ms": round(think["B"] / max(1, moves["B"]), 1),
            "by_opening_value": value_breakdown(games.values(), opening_values(args.openings))}


def match_plan(args, binary: str, fsf: str | None) -> list[tuple[str, dict, dict]]:
    """(key, A, B) of every match of the study."""
    vopts = dict(ENGINE_OPTIONS)

    def vier(ms, level=7, name=None):
        o = dict(vopts)
        if level != 7:
            o["SearchLevel"] = str(level)
        return {"cmd": binary, "name": name or f"vier-{ms}ms", "ms": ms, "options": o}

    def fish(ms):
        return {"cmd": fsf, "name": f"fsf-{ms}ms", "ms": ms, "options": {}}

    ref = vier(args.ref_ms, name=f"ref-vier-{args.ref_ms}ms")
    plan = [(f"vier-{t}", vier(t), ref) for t in args.elo_times]
    if fsf:
        plan += [(f"h2h-{t}", vier(t), fish(t)) for t in args.h2h_times]
    for ms in args.level_ms:
        plan += [(f"level{l}-{ms}", vier(ms, l, f"level{l}-{ms}ms"), ref) for l in args.levels]
    if fsf:
        # last: Fairy-Stockfish uses all of its time, so its long matches cost the most
        plan += [(f"fsf-{t}", fish(t), ref) for t in args.fsf_times]
    return plan


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


def pct(x) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def level_times(sweep: dict, level: int) -> list[int]:
    return sorted(int(t) for t in sweep.get(str(level), {}))


PLOTS = ["nodes.svg", "depth.svg", "proven.svg", "accuracy.svg", "elo.svg", "levels_elo.svg",
         "strength.svg"]

# The strength levels' calibration (tools/levels.py writes it; protocol.md's UCI_Elo maps onto it)
STRENGTH_JSON = os.path.join(ROOT, "docs", "levels", "levels.json")


def strength_of(res: dict) -> dict | None:
    """The strength levels' calibration a study shows: the one it copied into its results,
    else (results of a study from before the copy) the committed file."""
    if res.get("strength"):
        return res["strength"]
    try:
        with open(STRENGTH_JSON) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def strength_points(cal: dict) -> list[tuple[int, str, dict]]:
    """(x, label, player) for each level of the calibration and the full engine, in order."""
    pts = []
    for pl in cal.get("players", []):
        name = pl["player"]
        if name.startswith("level-"):
            pts.append((int(name[6:]), name[6:], pl))
    if pts:
        full = [pl for pl in cal.get("players", []) if pl["player"] == "full"]
        if full:
            pts.append((max(x for x, _, _ in pts) + 1, "full", full[0]))
    return sorted(pts, key=lambda p: p[0])


def plot(out_dir: str, res: dict):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "vier-study"
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("viridis")
    color = {l: cmap((l - 1) / 6.5) for l in LEVELS}
    meta, sweep, matches = res["meta"], res["sweep"], res["matches"]
    table = depth_table({int(l): v for l, v in res["depth"].items()})
    sub = f"vier {meta['commit']}, 2 shared cores"
    written = []

    def logx(ax, ticks):
        ax.set_xscale("log")
        ticks = sorted(set(ticks))
        ax.set_xticks(ticks)
        ax.set_xticklabels([f"{t:g}" for t in ticks])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, name))
        plt.close(fig)
        written.append(name)

    # 1. the cost of a depth: one panel per phase, nodes on a log axis beside the theory
    if table:
        fig, axes = plt.subplots(1, len(PHASE_NAMES), figsize=(13, 4.4), sharey=True)
        ymax = 10
        for ax, phase in zip(axes, PHASE_NAMES):
            top = 1
            for level in sorted(table):
                t = table[level].get(phase)
                if not t or not t["rows"]:
                    continue
                d = [r["depth"] for r in t["rows"]]
                top = max(top, max(d))
                y = [r["nodes"] for r in t["rows"]]
                ymax = max([ymax] + y)
                ax.plot(d, y, marker="o", color=color[level], label=LEVEL_NAMES[level])
                c = t.get("common_depth")
                if t.get("ebf_common") and c:
                    ax.annotate(f"{t['ebf_common']:.1f}", (c, y[d.index(c)]),
                                textcoords="offset points", xytext=(-4, 6), fontsize=8,
                                color=color[level], ha="right")
            ds = list(range(1, top + 1))
            ax.plot(ds, [BRANCHING ** x for x in ds], color="grey", linestyle="--",
                    label=f"theory b^d (b = {BRANCHING})")
            ax.plot(ds, [BRANCHING ** (x / 2) for x in ds], color="grey", linestyle=":",
                    label="theory b^(d/2): perfect ordering")
            ax.set_yscale("log")
            n = next((table[l][phase]["positions"] for l in table if phase in table[l]), 0)
            c = next((table[l][phase].get("common_depth") for l in table if phase in table[l]), None)
            ax.set_title(f"{phase} positions ({n})" + (f"; numbers: EBF over depths {max(1, c - 4)}-{c}"
                                                       if c and c > 1 else ""), fontsize=10)
            ax.set_xlabel("depth finished (plies)")
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
            ax.set_xlim(0.5, top + 1.5)
            ax.grid(True, which="both", alpha=0.3)
        axes[0].set_ylim(1, ymax * 20)
        axes[0].set_ylabel("nodes to finish the depth (geometric mean, log scale)")
        axes[0].legend(fontsize=7, loc="upper left")
        fig.suptitle(f"Each step of the lecture makes a ply cheaper ({sub})")
        save(fig, "nodes.svg")

    def sweep_plot(name, title, ylabel, value, phase, ylim=None, random_line=None):
        fig, ax = plt.subplots(figsize=(7.5, 4.6))
        for level in LEVELS:
            ts = level_times(sweep, level)
            pts = [(t, value(sweep[str(level)][str(t)][phase])) for t in ts]
            pts = [(t, v) for t, v in pts if v is not None]
            if not pts:
                continue
            x = [t for t, _ in pts]
            y = [v[0] for _, v in pts]
            lo = [v[0] - v[1] for _, v in pts]
            hi = [v[0] + (v[2] if len(v) > 2 else v[1]) for _, v in pts]
            ax.plot(x, y, marker="o", color=color[level], label=LEVEL_NAMES[level])
            ax.fill_between(x, lo, hi, color=color[level], alpha=0.08)
        if random_line is not None:
            ax.axhline(random_line, color="grey", linestyle=":", label="a random move")
        logx(ax, [int(t) for lv in sweep.values() for t in lv])
        ax.set_xlabel("thinking time per move (ms, log scale)")
        ax.set_ylabel(ylabel)
        if ylim:
            ax.set_ylim(*ylim)
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        save(fig, name)

    if sweep:
        n_begin = next(iter(next(iter(sweep.values())).values()))["begin"]["positions"]
        sweep_plot("depth.svg", f"Depth reached in the same time ({n_begin} begin positions; "
                   "band: 95% interval of the mean)", "depth of the last iteration (plies)",
                   lambda s: (s["depth"]["mean"], s["depth"]["ci"]) if s["depth"]["n"] else None,
                   "begin")
        n_all = next(iter(next(iter(sweep.values())).values()))["all"]["positions"]
        sweep_plot("proven.svg", f"Share of positions proven ({n_all} positions, all phases; "
                   "band: 95% Wilson)", "positions whose value is proven (%)",
                   lambda s: (100 * s["proven"], 100 * (s["proven"] - s["proven_low"]),
                              100 * (s["proven_high"] - s["proven"])), "all", (-2, 102))
        first = next(iter(next(iter(sweep.values())).values()))["all"]
        sweep_plot("accuracy.svg", f"Move accuracy on {first['critical']} critical positions "
                   "(band: 95% Wilson)", "moves that keep the exact game value (%)",
                   lambda s: None if s["critical_keeps_value"] is None else
                   (100 * s["critical_keeps_value"],
                    100 * (s["critical_keeps_value"] - s["critical_keeps_value_low"]),
                    100 * (s["critical_keeps_value_high"] - s["critical_keeps_value"])),
                   "all", (0, 102),
                   None if first["critical_random"] is None else 100 * first["critical_random"])

    def errbar(ax, x, m, c, label, cap, marker="o"):
        e = m["elo"]
        if label:
            ax.plot([], [], marker=marker, color=c, label=label)
        if e is None:
            return
        if math.isinf(e):
            ax.plot([x], [math.copysign(cap, e)], marker="^" if e > 0 else "v", color=c,
                    markersize=9, linestyle="none")
            return
        lo = m["elo_low"] if finite(m["elo_low"]) else (e if m["elo_low"] is None else -cap)
        hi = m["elo_high"] if finite(m["elo_high"]) else (e if m["elo_high"] is None else cap)
        ax.errorbar([x], [e], yerr=[[max(0, e - lo)], [max(0, hi - e)]], fmt=marker, color=c,
                    capsize=4)

    def cap_of(ms):
        seen = [abs(v) for m in ms for v in (m["elo"], m["elo_low"], m["elo_high"]) if finite(v)]
        return min(1000, max(seen + [100.0]) * 1.15)

    # 4. Elo against time, vier and Fairy-Stockfish against one reference; and head to head
    series = [("vier", "tab:red"), ("fsf", "tab:blue")]
    if any(k.startswith(("vier-", "fsf-", "h2h-")) for k in matches):
        fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.6),
                                     gridspec_kw={"width_ratios": [3, 2]})
        allm = [m for k, m in matches.items() if k.startswith(("vier-", "fsf-"))]
        cap = cap_of(allm)
        for prefix, c in series:
            ms = sorted((m["a_ms"], m) for k, m in matches.items() if k.startswith(prefix + "-"))
            label = {"vier": "vier (full engine)", "fsf": "Fairy-Stockfish"}[prefix]
            for i, (t, m) in enumerate(ms):
                errbar(ax, t, m, c, label if i == 0 else None, cap)
            fin = [(t, m["elo"]) for t, m in ms if finite(m["elo"])]
            if fin:
                ax.plot([t for t, _ in fin], [e for _, e in fin], color=c, alpha=0.4)
        ref = meta["args"]["ref_ms"]
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.axvline(ref, color="grey", linewidth=0.8, linestyle=":")
        logx(ax, [m["a_ms"] for m in allm])
        ax.set_ylim(-cap - 50, cap + 50)
        ax.set_xlabel("thinking time per move (ms, log scale)")
        ax.set_ylabel(f"Elo against vier at {ref} ms (95% interval)")
        ax.set_title(f"Strength against time, one reference ({meta['args']['games']} games a point)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
        h2h = sorted((m["a_ms"], m) for k, m in matches.items() if k.startswith("h2h-"))
        cap2 = cap_of([m for _, m in h2h])
        for i, (t, m) in enumerate(h2h):
            errbar(bx, t, m, "tab:purple", None, cap2, "s")
            y = m["elo"] if finite(m["elo"]) else math.copysign(cap2, m["elo"] or 0)
            bx.annotate(f"{100 * m['score']:.0f}%", (t, y),
                        textcoords="offset points", xytext=(8, -4), fontsize=8)
        bx.axhline(0, color="grey", linewidth=0.8)
        if h2h:
            logx(bx, [t for t, _ in h2h])
            bx.set_xlim(min(t for t, _ in h2h) / 2, max(t for t, _ in h2h) * 2)
        bx.set_ylim(-cap2 - 50, cap2 + 50)
        bx.set_xlabel("time per move for both (ms, log scale)")
        bx.set_ylabel("Elo of vier against Fairy-Stockfish (95% interval)")
        bx.set_title("vier vs Fairy-Stockfish at equal time (vier's score)")
        bx.grid(True, which="both", alpha=0.3)
        save(fig, "elo.svg")

    # 5. what each level is worth in games, at one time per move
    lv = sorted(((int(k[5:].split("-")[0]), m) for k, m in matches.items()
                 if k.startswith("level")), key=lambda x: (x[0], x[1]["a_ms"]))
    if lv:
        fig, ax = plt.subplots(figsize=(7.5, 4.6))
        cap = cap_of([m for _, m in lv])
        times_ = sorted({m["a_ms"] for _, m in lv})
        shades = ["tab:orange", "tab:red", "tab:purple", "tab:brown"]
        for i, ms in enumerate(times_):
            c = shades[i % len(shades)]
            pts = [(l, m) for l, m in lv if m["a_ms"] == ms]
            dx = (i - (len(times_) - 1) / 2) * 0.15
            for j, (level, m) in enumerate(pts):
                errbar(ax, level + dx, m, c, f"{ms} ms per move" if j == 0 else None, cap)
            fin = [(l + dx, m["elo"]) for l, m in pts if finite(m["elo"])]
            ax.plot([l for l, _ in fin], [e for _, e in fin], color=c, alpha=0.4)
        ax.axhline(0, color="grey", linewidth=0.8)
        levels_ = sorted({l for l, _ in lv})
        ax.set_xticks(levels_)
        ax.set_xticklabels([LEVEL_NAMES[l].replace(" ", "\n", 1) for l in levels_], fontsize=8)
        ax.set_ylim(-cap - 50, cap + 50)
        ax.set_xlabel("search level (each adds one technique)")
        ax.set_ylabel(f"Elo against vier at {meta['args']['ref_ms']} ms (95% interval)")
        ax.set_title(f"What each step is worth in games ({lv[0][1]['games']} games a point)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
        save(fig, "levels_elo.svg")

    # 6. the strength levels people play against: the Elo of each Skill Level
    cal = strength_of(res)
    pts = strength_points(cal) if cal else []
    if pts:
        fig, ax = plt.subplots(figsize=(7.5, 4.6))
        xs = [x for x, _, _ in pts]
        ys = [p["elo"] for _, _, p in pts]
        ax.errorbar(xs, ys, yerr=[[p["elo"] - p["low"] for _, _, p in pts],
                                  [p["high"] - p["elo"] for _, _, p in pts]],
                    fmt="o-", color="tab:blue", capsize=3)
        anchor = cal.get("settings", {}).get("anchor", 1000)
        ax.axhline(anchor, color="grey", linestyle="--", linewidth=0.8,
                   label=f"the win-and-block player (anchor, {anchor:g})")
        ax.set_xticks(xs)
        ax.set_xticklabels([label for _, label, _ in pts])
        ax.set_xlabel("Skill Level (full: the engine as it ships)")
        ax.set_ylabel("Elo (95% interval)")
        st = cal.get("settings", {})
        ax.set_title(f"Strength levels: {st.get('games', '?')} games per match, "
                     f"each level against the next")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
        save(fig, "strength.svg")
    return written


def report_md(res: dict, plotted: list[str]) -> str:
    meta, sweep, matches = res["meta"], res["sweep"], res["matches"]
    table = depth_table({int(l): v for l, v in res["depth"].items()})
    a = meta["args"]
    L = ["# The study: what each step of the lecture buys, against time\n"]
    L.append(f"Generated by `{meta['command']}` on {meta['date']} ({meta['cpus']} CPUs, shared), "
             f"engine `{meta['engine_id']}` built from commit {meta['commit']}"
             + (" with uncommitted changes to src/" if meta.get("dirty") else "")
             + "".join(f", then `{c}`" for c in meta.get("merges", []))
             + f"; the run took {meta['wall_s'] / 60:.1f} minutes in all"
             + ("" if meta.get("complete", True) else " and was stopped before its end (the "
                "parts below are what it finished)") + ". Engine options: "
             + ", ".join(f"`{k} {v}`" for k, v in meta["engine_options"].items())
             + ". Positions: Pons' Test_L1_R2 (begin, 4-14 discs), Test_L2_R2 (middle, 15-27), "
             f"Test_L3_R1 (end, 29-41), drawn with seed {a['seed']}. Levels (`SearchLevel`): "
             + "; ".join(LEVEL_NAMES[l] for l in LEVELS) + ".\n")
    for p in plotted:
        L.append(f"![{p}]({p})\n")
    if table:
        L.append("## The cost of a depth\n")
        L.append(f"`go depth D` on {a['depth_positions']} positions per phase (the first of the "
                 f"sample), at most {a['depth_ms']} ms each; depth caps "
                 + ", ".join(f"level {l}: {DEPTH_CAPS[l]}" for l in sorted(table)) + ". Nodes to "
                 "finish depth d: geometric mean over the positions, counted only while every "
                 "position finished d (the time cap ends the row; a position proven sooner, "
                 "its game ending within the horizon, counts with the nodes of its proof). Levels 1-3 search each depth from scratch, so their count "
                 "includes the shallower depths (as a time-limited search pays them too). EBF: "
                 "the growth of the nodes per ply over the last four plies of the row "
                 f"(theory: b = {BRANCHING} for minimax, about sqrt(b) = {math.sqrt(BRANCHING):.2f} "
                 "for alpha-beta with perfect ordering). Level 5 extends forced moves, so its "
                 "depth d sees further than the others' (its `seldepth` is deeper).\n")
        L.append("The table gives, per phase, the deepest depth every position finished, the nodes "
                 "and milliseconds to finish it, the EBF over its last four plies, and the EBF over "
                 "the four plies up to the depth all levels reached (the numbers in the figure: "
                 "like with like).\n")
        hdr = "| level | " + " | ".join(f"{p}: deepest d, nodes, ms, EBF, EBF to common d"
                                       for p in PHASE_NAMES) + " |"
        L.append(hdr)
        L.append("|---|" + "---|" * len(PHASE_NAMES))
        for level in sorted(table):
            cells = []
            for p in PHASE_NAMES:
                t = table[level].get(p)
                if not t or not t["rows"]:
                    cells.append("-")
                    continue
                r = t["rows"][-1]
                ebf = f"{t['ebf']:.2f}" if t["ebf"] else "-"
                com = f"{t['ebf_common']:.2f} (d {t['common_depth']})" if t.get("ebf_common") else "-"
                cells.append(f"{r['depth']}, {r['nodes']:.3g}, {r['ms']:g}, {ebf}, {com}")
            L.append(f"| {LEVEL_NAMES[level]} | " + " | ".join(cells) + " |")
        L.append("")
        common = {}
        for level in sorted(table):
            rows = table[level].get("begin", {}).get("rows", [])
            common[level] = {r["depth"]: r["nodes"] for r in rows}
        ds = sorted(set.intersection(*[set(c) for c in common.values()])) if common else []
        if ds:
            L.append("Nodes to finish the same depth on the begin positions (geometric means):\n")
            L.append("| depth | " + " | ".join(LEVEL_NAMES[l] for l in sorted(table)) + " |")
            L.append("|---|" + "---|" * len(table))
            for d in ds:
                L.append(f"| {d} | " + " | ".join(f"{common[l][d]:.3g}" for l in sorted(table)) + " |")
            L.append("")
    if sweep:
        any_level = next(iter(sweep.values()))
        first = next(iter(any_level.values()))
        L.append("## Levels against thinking time\n")
        L.append(f"`go movetime T` on {first['all']['positions']} positions "
                 f"({a['positions']} per phase), a fresh game (`ucinewgame`) each; "
                 f"{first['all']['critical']} of them are critical (some legal move throws the "
                 f"game value away; a random move keeps it in "
                 f"{pct(first['all']['critical_random'])} of them). Levels 1-3 only up to "
                 f"{a['low_max_ms']} ms. Depth: the last `info` line before `bestmove`, mean ± "
                 "the 95% interval of the mean; proven: a `mate` score or a proven draw "
                 "(shares with 95% Wilson intervals); accuracy: the share of critical positions "
                 "where the move keeps the exact game value.\n")
        L.append("| level | ms | depth begin | depth middle | depth end | proven (all) | "
                 "accuracy, critical (all) | nodes begin (mean) |")
        L.append("|---|---|---|---|---|---|---|---|")
        for level in LEVELS:
            for t in level_times(sweep, level):
                s = sweep[str(level)][str(t)]
                dep = [f"{s[p]['depth']['mean']:.1f} ± {s[p]['depth']['ci']:.1f}"
                       if s[p]["depth"]["n"] else "-" for p in PHASE_NAMES]
                al = s["all"]
                acc = "-" if al["critical_keeps_value"] is None else \
                    (f"{pct(al['critical_keeps_value'])} ({100 * al['critical_keeps_value_low']:.0f}"
                     f"-{100 * al['critical_keeps_value_high']:.0f})")
                L.append(f"| {LEVEL_NAMES[level]} | {t} | " + " | ".join(dep)
                         + f" | {pct(al['proven'])} ({100 * al['proven_low']:.0f}-"
                         f"{100 * al['proven_high']:.0f}) | {acc} | "
                         f"{s['begin']['nodes'].get('mean', 0):.3g} |")
        L.append("")
    if matches:
        L.append("## Matches\n")
        L.append(f"Through `tools/referee.py`: {a['games']} games per match ({a['games'] // 2} "
                 "pairs of colour-swapped games over the first balanced openings of "
                 f"`{a['openings']}`), one game at a time, movetime per engine. Elo from the "
                 "pentanomial pair statistics with its 95% interval (a 100% or 0% score is "
                 f"±inf). The reference is vier (full engine) at {a['ref_ms']} ms per move; "
                 "`h2h` is vier against Fairy-Stockfish 11.1 at equal time. Mean ms per move "
                 "as the referee measured it: once vier proves a position it moves at once. "
                 "Game records: `matches/<match>.jsonl`.\n")
        L.append("| match | A | B | games | W / D / L (A) | score | Elo of A (95%) | mean ms A / B | terminations |")
        L.append("|---|---|---|---|---|---|---|---|---|")
        for k, m in matches.items():
            L.append(f"| {k} | {m['a']} | {m['b']} | {m['games']} | {m['wins']} / {m['draws']} / "
                     f"{m['losses']} | {pct(m['score'])} | {fmt_elo(m['elo'])} "
                     f"({fmt_elo(m['elo_low'])} .. {fmt_elo(m['elo_high'])}) | "
                     f"{m['mean_move_ms']:g} / {m['b_mean_move_ms']:g} | "
                     + ", ".join(f"{t} {v}" for t, v in sorted(m["terminations"].items())) + " |")
        L.append("")
        rows = [(k, m["by_opening_value"]) for k, m in matches.items() if m.get("by_opening_value")]
        if rows:
            L.append("Where A's points come from, by the exact value of the opening for A (the "
                     "scores in the openings file's comments): points / games. From a drawn "
                     "opening a perfect player never loses; from a lost one it scores only by "
                     "the other's mistakes.\n")
            L.append("| match | " + " | ".join(VALUE_CLASSES) + " |")
            L.append("|---|---|---|---|")
            for k, b in rows:
                L.append(f"| {k} | " + " | ".join(f"{b[c][0]:g} / {b[c][1]}" if b[c][1] else "-"
                                                  for c in VALUE_CLASSES) + " |")
            L.append("")
    cal = strength_of(res)
    pts = strength_points(cal) if cal else []
    if pts:
        st = cal.get("settings", {})
        L.append("## Strength levels\n")
        L.append("The levels a person plays against (`Skill Level`, `UCI_Elo`: protocol.md), "
                 "as calibrated by `tools/levels.py` (`docs/levels/`): each level against the "
                 f"next, {st.get('games', '?')} games per match, levels at "
                 f"{st.get('level_ms', '?')} ms per move, the full engine at "
                 f"{st.get('full_ms', '?')} ms; the scale is anchored at the win-and-block "
                 f"player = {st.get('anchor', 1000):g}.\n")
        L.append("| level | Elo | 95% interval | games |")
        L.append("|---|---|---|---|")
        for _, label, p in pts:
            L.append(f"| {label} | {p['elo']:.0f} | {p['low']:.0f} .. {p['high']:.0f} | "
                     f"{p['games']} |")
        L.append("")
    L.append("## Files\n")
    L.append("`results.json` (every number and the settings; `--replot` redraws from it alone), "
             "`positions.csv` (every position at every level and time), `depth.csv` (every "
             "position's nodes per depth), `oracle.json` (exact column scores), "
             "`matches/*.jsonl`" + (", " + ", ".join(f"`{p}`" for p in plotted) if plotted else "")
             + ".\n")
    return "\n".join(L)


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
