"""Opening files and the schedule that gives each pair of games its opening."""

from __future__ import annotations

import random

from .pgn import pgn_game_board, read_pgn
from .rules import Board, IllegalMove, board_from_moves, parse_move_list


OPENING_FORMATS = ("moves", "epd", "pgn")


def opening_format(path: str, fmt: str | None) -> str:
    """The given format, else the one the file name says (.epd, .pgn), else move strings."""
    if fmt is not None:
        if fmt not in OPENING_FORMATS:
            raise ValueError(f"opening format '{fmt}': want one of {', '.join(OPENING_FORMATS)}")
        return fmt
    ext = path.rsplit(".", 1)[-1].lower()
    return ext if ext in ("epd", "pgn") else "moves"


def opening_of(board: Board) -> str:
    """How the referee writes an opening: the move string from the empty board, or the cfour
    FEN when it starts from a position given as one."""
    if board.start_fens is None:
        return board.move_string()
    return board.to_cfour_fen()


def load_openings(path: str | None, width: int, height: int, fmt: str | None = None,
                  plies: int | None = None) -> list[str]:
    """Openings from a file of move strings (one per line, '#' comments), EPD (one position per
    line: rows and side to move, the rest ignored) or PGN (each game's moves, from its FEN tag
    if any); `plies` cuts move sequences to their first N moves."""
    if path is None:
        return [""]
    fmt = opening_format(path, fmt)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if fmt == "pgn":
        items = [(f"game {n}", game) for n, game in enumerate(read_pgn(text), 1)]
    else:
        items = [(f"line {n}", raw.split("#", 1)[0].strip() if fmt == "moves" else raw.strip())
                 for n, raw in enumerate(text.splitlines(), 1)]
    out = []
    for where, item in items:
        if not item:
            continue
        try:
            if fmt == "pgn":
                board = pgn_game_board(item, width, height, plies)
            elif fmt == "epd":
                board = Board.from_fen(" ".join(item.split()[:2]), width, height)
            else:
                board = board_from_moves(parse_move_list(item, width)[:plies], width, height)
        except (IllegalMove, ValueError) as e:
            raise ValueError(f"{path}: {where}: bad opening: {e}") from e
        if board.is_over():
            raise ValueError(f"{path}: {where}: the opening already ends the game")
        out.append(opening_of(board))
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
