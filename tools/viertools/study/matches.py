"""Part 3 of the study, matches: the plan of every match (vier at each time, Fairy-Stockfish,
every level, against one reference; vier against Fairy-Stockfish at equal time), each played
through tools/referee.py and summed up in A's view, with A's points by the opening's exact
value."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys

from ..accuracy import ENGINE_OPTIONS
from ..results import summarize as summarize_games
from ..stats import pentanomial_stats, trinomial_stats
from . import TOOLS

REFEREE = os.path.join(TOOLS, "referee.py")
CFOUR_INI = os.path.join(TOOLS, "fairy-stockfish", "cfour.ini")


def find_fsf() -> str | None:
    """The Fairy-Stockfish command with the project's cfour variant, or None if not installed."""
    path = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")
    return f"{shlex.quote(path)} load {shlex.quote(CFOUR_INI)}" if path else None


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
