"""Opening files and the schedule that gives each pair of games its opening."""

from __future__ import annotations

import random

from .rules import Board, IllegalMove, board_from_moves, parse_move_list

def load_openings(path: str | None, width: int, height: int) -> list[str]:
    if path is None:
        return [""]
    out = []
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            try:
                moves = parse_move_list(line)
                board = board_from_moves(moves, width, height)
            except (IllegalMove, ValueError) as e:
                raise ValueError(f"{path}:{lineno}: bad opening '{line}': {e}") from e
            if board.is_over():
                raise ValueError(f"{path}:{lineno}: opening '{line}' already ends the game")
            out.append("".join(str(m) for m in moves))
    if not out:
        raise ValueError(f"{path}: no openings in file")
    return out


class Schedule:
    """Game g uses opening of pair g//2; openings repeat in rounds (file order or seeded shuffle)."""

    def __init__(self, openings: list[str], seed: int | None):
        self.openings = openings
        self.seed = seed
        self._rounds: dict[int, list[str]] = {}

    def opening(self, game: int) -> str:
        pair = game // 2
        rnd, pos = divmod(pair, len(self.openings))
        order = self._rounds.get(rnd)
        if order is None:
            order = list(self.openings)
            if self.seed is not None:
                random.Random(f"vier-referee:{self.seed}:{rnd}").shuffle(order)
            self._rounds[rnd] = order
        return order[pos]


def distinct_positions(width: int, height: int, min_plies: int, max_plies: int, columns=None):
    """Move strings, one per distinct position (mirror images merged), in ply then lexicographic order."""
    seen = set()
    out = []

    def key(board: Board):
        cells = tuple(tuple(col) for col in board.cells)
        return min(cells, tuple(reversed(cells)))

    def walk(board: Board):
        if board.ply >= min_plies:
            k = key(board)
            if k not in seen:
                seen.add(k)
                out.append(board.move_string())
        if board.ply >= max_plies:
            return
        for col in board.legal_columns():
            if columns is not None and col not in columns:
                continue
            child = Board(width, height)
            for m in board.moves:
                child.play(m)
            if child.play(col) is None:  # positions that already ended are no openings
                walk(child)

    walk(Board(width, height))
    out.sort(key=lambda s: (len(s), s))
    return out
