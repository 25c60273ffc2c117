"""The skill levels' calibration that the study's plots and report show beside its own
results."""

from __future__ import annotations

import json
import os

from . import ROOT

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
