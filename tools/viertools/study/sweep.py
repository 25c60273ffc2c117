"""Part 2 of the study, levels against thinking time: the positions each level judged at each
time (`viertools.accuracy.measure`) summed up per phase, with their 95% intervals."""

from __future__ import annotations

import math
import statistics

from ..stats import Z95, wilson
from .design import PHASE_NAMES


def describe(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    n = len(values)
    sd = statistics.stdev(values) if n > 1 else 0.0
    return {"n": n, "mean": statistics.fmean(values), "sd": sd,
            "ci": Z95 * sd / math.sqrt(n) if n > 1 else 0.0,
            "median": statistics.median(values), "min": min(values), "max": max(values)}


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


def level_times(sweep: dict, level: int) -> list[int]:
    return sorted(int(t) for t in sweep.get(str(level), {}))
