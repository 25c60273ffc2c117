"""Part 1 of the study, the cost of a depth: levels 1-5 search a few positions per phase with
`go depth D`; every `info depth d` line gives the nodes and time to finish depth d, and the
effective branching factor is the growth of those nodes per ply."""

from __future__ import annotations

import math
import statistics

from ..accuracy import ENGINE_OPTIONS
from ..engine import EngineProcess, is_proven, parse_info
from .design import PHASE_NAMES


def geomean(xs: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(max(x, 1)) for x in xs))


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
                proven = max(seen) < cap and (t1 - t0) * 1000 < ms_cap * 0.9 and is_proven(last)
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
