"""Exact scores: Pons' test sets, and the oracle - the exact score of every column of a
position from `vier solve --all`, cached in a JSON file - with the judging of a move by it."""

from __future__ import annotations

import concurrent.futures
import json
import os
import random
import re
import subprocess
import time

ORACLE_FORMAT = 1


def read_pons(path: str) -> list[tuple[str, int]]:
    out = []
    with open(path) as fh:
        for line in fh:
            words = line.split()
            if len(words) >= 2:
                out.append((words[0], int(words[1])))
    return out


def seeded_prefix(rows: list, n: int | None, salt: str) -> list:
    """The first n rows of a shuffle seeded by `salt` (so a smaller n gives a prefix); all if n is None."""
    if n is None or n >= len(rows):
        return list(rows)
    order = list(range(len(rows)))
    random.Random(salt).shuffle(order)
    return [rows[i] for i in order[:n]]


def load_oracle(path: str) -> dict:
    if os.path.exists(path):
        with open(path) as fh:
            data = json.load(fh)
        if data.get("format") != ORACLE_FORMAT:
            raise SystemExit(f"{path}: unknown oracle format {data.get('format')!r}")
        return data
    return {"format": ORACLE_FORMAT,
            "about": "exact score of every column (null = full column) from the side to move, "
                     "Pons' convention; computed with `vier solve --all`, written by tools/study.py",
            "positions": {}}


def solve_all(binary: str, moves: list[str], extra: tuple[str, ...] = (), jobs: int = 1
              ) -> dict[str, list[int | None]]:
    """The exact score of every column (None = full) of each position, from `vier solve --all`
    with the `extra` arguments, on `jobs` processes at once."""
    if jobs > 1:
        chunks = [moves[i::jobs] for i in range(jobs)]
        out = {}
        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            for part in ex.map(lambda c: solve_all(binary, c, extra), chunks):
                out.update(part)
        return out
    res = subprocess.run([binary, "solve", "--all", *extra], input="\n".join(moves) + "\n",
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"vier solve --all failed ({res.returncode}):\n{res.stderr}")
    out = {}
    for line in res.stdout.splitlines():
        words = line.split()
        if not words:
            continue
        # <moves> <s1> ... <sW> <nodes> <us>
        scores = [None if w == "-" else int(w) for w in words[1:-2]]
        out[words[0]] = scores
    missing = [m for m in moves if m not in out]
    if missing:
        raise SystemExit(f"vier solve --all gave no line for {missing[:3]}")
    return out


def ensure_oracle(path: str, binary: str, sample: dict, log, solve=None,
                  about: str | None = None) -> dict:
    """The exact score of every column of the sample's positions, from the cache at `path`,
    solving the missing ones with `solve(binary, moves)` (default `solve_all`) and checking
    every best column against Pons' score."""
    data = load_oracle(path)
    if about:
        data["about"] = about
    known = data["positions"]
    todo = sorted({m for rows in sample.values() for m, _ in rows if m not in known})
    if todo:
        log(f"oracle: solving {len(todo)} positions with vier solve --all ...")
        t0 = time.monotonic()
        known.update((solve or solve_all)(binary, todo))
        log(f"oracle: done in {time.monotonic() - t0:.1f}s")
        data["positions"] = dict(sorted(known.items()))
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path + ".tmp", "w") as fh:
            json.dump(data, fh, indent=0, sort_keys=True)
            fh.write("\n")
        os.replace(path + ".tmp", path)
    for rows in sample.values():
        for m, expected in rows:
            scores = [s for s in known[m] if s is not None]
            # positions of no published set (random games) have no score to check
            if expected is not None and max(scores) != expected:
                raise SystemExit(f"oracle: {m}: best column score {max(scores)} but Pons' file "
                                 f"says {expected} (stale {path}?)")
    return known


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def keeping_share(scores: list[int | None]) -> float:
    """The share of legal columns that keep the game value: a random mover's accuracy."""
    best = max(s for s in scores if s is not None)
    legal = [s for s in scores if s is not None]
    return sum(sign(s) == sign(best) for s in legal) / len(legal)


def judge(scores: list[int | None], col: int) -> tuple[bool, bool]:
    """(keeps the game value, is optimal) for 1-based column col."""
    best = max(s for s in scores if s is not None)
    if not 1 <= col <= len(scores) or scores[col - 1] is None:
        return False, False
    return sign(scores[col - 1]) == sign(best), scores[col - 1] == best


def solve_score(binary: str, size: str, moves: str, timeout: float, extra: list[str]):
    """One position's exact score with `vier solve` (its own process, so a timeout stops only
    it): (moves, score or None, note)."""
    cmd = [binary, "solve", "--size", size, *extra]
    try:
        res = subprocess.run(cmd, input=(moves or "-") + "\n", capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return moves, None, f"timeout after {timeout:g}s"
    except OSError as e:
        return moves, None, f"cannot run {binary}: {e}"
    for line in res.stdout.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] in (moves, "-") and re.fullmatch(r"-?\d+", words[1]):
            return moves, int(words[1]), ""
    text = (res.stdout.strip() or res.stderr.strip()).splitlines()
    return moves, None, f"no score (exit {res.returncode}): {text[0] if text else 'no output'}"
