#!/usr/bin/env python3
"""check_results.py - is a referee results file (and its PGN) complete and consistent?

    python3 tools/check_results.py RESULTS.jsonl [--pgn GAMES.pgn] [--games N]

Checks that every game index 0..N-1 is recorded exactly once (N from --games, else the match
header's `games` times its pairings), that no line is unreadable, and that the PGN holds the same
games: one per record, in the same order, with the same players, result and moves.  Prints what
it found; exit status 1 if anything is lost, doubled or different.  Used to show that a referee
killed with SIGKILL and resumed loses and doubles nothing.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

from viertools.pgn import column_of, read_pgn
from viertools.rules import board_from_opening


def pgn_moves(game: dict, size: tuple[int, int]) -> str:
    """The columns of a PGN game's moves (after its FEN) as a digit string."""
    board = board_from_opening(game["tags"].get("FEN", ""), *size)
    for san in game["moves"]:
        board.play(column_of(board, san))
    return board.move_string()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--pgn")
    ap.add_argument("--games", type=int)
    args = ap.parse_args(argv)
    header, records, bad = None, [], 0
    with open(args.results, encoding="utf-8") as fh:
        for line in fh:
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                bad += 1
                continue
            if obj.get("type") == "match":
                header = obj
            elif obj.get("type") == "game":
                records.append(obj)
    want = args.games
    if want is None and header and header.get("games"):
        want = header["games"] * len(header.get("pairings") or [None])
    counts = collections.Counter(r["game"] for r in records)
    doubled = sorted(g for g, c in counts.items() if c > 1)
    missing = sorted(set(range(want)) - set(counts)) if want is not None else []
    problems = []
    print(f"{args.results}: {len(records)} game records, {len(counts)} distinct games"
          + (f" of {want}" if want is not None else "") + f", {bad} unreadable line(s)")
    if doubled:
        problems.append(f"doubled games: {doubled[:20]}")
    if missing:
        problems.append(f"missing games: {missing[:20]}")
    if bad:
        problems.append(f"{bad} unreadable line(s)")
    if args.pgn:
        with open(args.pgn, encoding="utf-8") as fh:
            games = read_pgn(fh.read())
        print(f"{args.pgn}: {len(games)} games")
        if len(games) != len(records):
            problems.append(f"PGN has {len(games)} games, the results {len(records)}")
        for rec, game in zip(records, games):
            tags = game["tags"]
            size = tuple(int(x) for x in rec["size"].split("x"))
            moves = rec["moves"] if "/" in rec["opening"] else rec["moves"][len(rec["opening"]):]
            if (tags.get("Round"), tags.get("White"), tags.get("Black"), tags.get("Result")) != \
                    (str(rec["game"] + 1), rec["first_name"], rec["second_name"], rec["result"]) \
                    or pgn_moves(game, size) != moves:
                problems.append(f"PGN round {tags.get('Round')} differs from game {rec['game']}")
                break
    for p in problems:
        print("PROBLEM: " + p)
    if not problems:
        print("OK: every game exactly once" + (", PGN identical game for game" if args.pgn else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
