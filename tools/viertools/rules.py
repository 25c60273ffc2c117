"""The rules of Connect Four: the board, four in a row, move strings and board sizes.

Columns are 1-based digits as vier's protocol writes them; rows are counted from the bottom.
"""

from __future__ import annotations

import re

DEFAULT_WIDTH = 7
DEFAULT_HEIGHT = 6

EMPTY, FIRST, SECOND = 0, 1, 2
DIRECTIONS = {
    "horizontal": (1, 0),
    "vertical": (0, 1),
    "diagonal /": (1, 1),
    "diagonal \\": (1, -1),
}


class IllegalMove(ValueError):
    """An engine (or an opening) tried a move the rules do not allow."""


class Board:
    """Connect Four board; columns are 1-based digits, rows counted from the bottom."""

    def __init__(self, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT):
        if not 1 <= width <= 9:
            raise ValueError("width must be 1..9 (columns are single digits)")
        if not 1 <= height <= 32:
            raise ValueError("height must be 1..32")
        self.width = width
        self.height = height
        self.cells = [[EMPTY] * height for _ in range(width)]  # cells[col][row]
        self.heights = [0] * width
        self.moves: list[int] = []
        self.winner = EMPTY
        self.win_direction: str | None = None

    # -- queries --
    @property
    def ply(self) -> int:
        return len(self.moves)

    def side_to_move(self) -> int:
        return FIRST if self.ply % 2 == 0 else SECOND

    def is_full(self) -> bool:
        return self.ply == self.width * self.height

    def is_over(self) -> bool:
        return self.winner != EMPTY or self.is_full()

    def legal_columns(self) -> list[int]:
        if self.is_over():
            return []
        return [c + 1 for c in range(self.width) if self.heights[c] < self.height]

    def move_string(self) -> str:
        return "".join(str(m) for m in self.moves)

    # -- moves --
    def parse_move(self, text: str) -> int:
        """Validate an engine's move token; return the 1-based column or raise IllegalMove."""
        if text is None or text == "":
            raise IllegalMove("no move given")
        if not re.fullmatch(r"[0-9]+", text):
            raise IllegalMove(f"'{text}' is not a column number")
        col = int(text)
        if not 1 <= col <= self.width:
            raise IllegalMove(f"column {col} is out of range 1..{self.width}")
        if self.is_over():
            raise IllegalMove("the game is already over")
        if self.heights[col - 1] >= self.height:
            raise IllegalMove(f"column {col} is full")
        return col

    def play(self, col: int | str) -> str | None:
        """Play a move; returns 'win', 'draw' or None.  Raises IllegalMove."""
        col = self.parse_move(str(col))
        c = col - 1
        r = self.heights[c]
        who = self.side_to_move()
        self.cells[c][r] = who
        self.heights[c] += 1
        self.moves.append(col)
        direction = self._four_through(c, r, who)
        if direction:
            self.winner = who
            self.win_direction = direction
            return "win"
        if self.is_full():
            return "draw"
        return None

    def _four_through(self, c: int, r: int, who: int) -> str | None:
        for name, (dc, dr) in DIRECTIONS.items():
            count = 1
            for sign in (1, -1):
                x, y = c + sign * dc, r + sign * dr
                while 0 <= x < self.width and 0 <= y < self.height and self.cells[x][y] == who:
                    count += 1
                    x += sign * dc
                    y += sign * dr
            if count >= 4:
                return name
        return None

    def to_fen(self) -> str:
        rows = []
        for y in range(self.height - 1, -1, -1):
            row, run = "", 0
            for x in range(self.width):
                v = self.cells[x][y]
                if v == EMPTY:
                    run += 1
                    continue
                if run:
                    row += str(run)
                    run = 0
                row += "x" if v == FIRST else "o"
            if run:
                row += str(run)
            rows.append(row)
        return "/".join(rows) + (" x" if self.side_to_move() == FIRST else " o")


def parse_move_list(text: str) -> list[int]:
    """'4 4 5 3', '4453' or '4,4,5,3' -> [4, 4, 5, 3] (digits only; not yet checked)."""
    cleaned = re.sub(r"[\s,]+", "", text)
    if not re.fullmatch(r"[0-9]*", cleaned):
        raise IllegalMove(f"'{text}' is not a move string (digits only)")
    return [int(ch) for ch in cleaned]


def board_from_moves(moves, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT) -> Board:
    board = Board(width, height)
    for m in moves:
        if board.is_over():
            raise IllegalMove("moves continue after the game ended")
        board.play(m)
    return board


def parse_size(text):
    """'7x6' -> (7, 6); ValueError for a malformed or impossible size."""
    m = re.fullmatch(r"(\d+)x(\d+)", text.strip().lower())
    if not m:
        raise ValueError(f"bad --size '{text}' (want WxH, e.g. 7x6)")
    w, h = int(m.group(1)), int(m.group(2))
    Board(w, h)  # validates
    return w, h
