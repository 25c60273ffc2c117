"""The rules of Connect Four: the board, four in a row, move strings, board sizes, and the two
notations engines speak.

Columns are 1-based numbers as vier's protocol writes them (`4`, `12`); rows are counted from
the bottom. Move strings are one character a move: digits up to 9 columns, letters (`a` =
column 1) on any width and the only form past 9 (vier's notation). Notation `digits`: a move is
its column number (`4`, `12`), a position is vier's board string (`7/7/7/7/3o3/2oxx2 x`; runs of
empty cells are numbers, `12/11o x` past 9 columns).  Notation `cfour` (cutechess-cli's Connect Four): a move is a drop
`P@<file><rank>` (file a = column 1, rank 1 = bottom, the rank where the disc lands), a position
is a FEN with the discs in hand (`7/7/7/7/7/7[PP..pp] w - - 0 1`).
"""

from __future__ import annotations

import re

DEFAULT_WIDTH = 7
DEFAULT_HEIGHT = 6
MAX_WIDTH = 13  # vier's widest board (13x4, unsolved); letters a..m name its columns

EMPTY, FIRST, SECOND = 0, 1, 2
DIRECTIONS = {
    "horizontal": (1, 0),
    "vertical": (0, 1),
    "diagonal /": (1, 1),
    "diagonal \\": (1, -1),
}


NOTATIONS = ("digits", "cfour")
DROP = re.compile(r"[Pp]@([a-z])([0-9]+)")


class IllegalMove(ValueError):
    """An engine (or an opening) tried a move the rules do not allow."""


class Board:
    """Connect Four board; columns are 1-based numbers, rows counted from the bottom."""

    def __init__(self, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT):
        if not 1 <= width <= MAX_WIDTH:
            raise ValueError(f"width must be 1..{MAX_WIDTH}")
        if not 1 <= height <= 32:
            raise ValueError("height must be 1..32")
        self.width = width
        self.height = height
        self.cells = [[EMPTY] * height for _ in range(width)]  # cells[col][row]
        self.heights = [0] * width
        self.moves: list[int] = []
        self.ranks: list[int] = []  # the 1-based rank each move landed on (for drops)
        self.winner = EMPTY
        self.win_direction: str | None = None
        self.base_ply = 0  # discs already on the board when the game started from a FEN
        self.start_fens: tuple[str, str] | None = None  # (vier's, cfour's) FEN of that start

    @staticmethod
    def from_fen(text: str, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT) -> "Board":
        """A board from vier's board string or a cfour FEN (the hand and the fields after the
        side to move are ignored); ValueError unless it is a position a game can reach."""
        words = re.sub(r"\[[^\]]*\]", "", text).split()
        if len(words) < 2:
            raise ValueError(f"FEN '{text}': want '<rows> <side to move>'")
        rows = words[0].split("/")
        if len(rows) != height:
            raise ValueError(f"FEN '{text}': {len(rows)} rows, the board has {height}")
        board = Board(width, height)
        counts = {FIRST: 0, SECOND: 0}
        for y, row in zip(range(height - 1, -1, -1), rows):
            x = 0
            # a run of empty cells: one digit up to 9 columns, a number past 9 (`12`, `11o`)
            for ch in re.findall(r"[0-9]+|.", row) if width > 9 else row:
                if ch.isdigit():
                    x += int(ch)
                    continue
                who = FIRST if ch in "xP" else SECOND if ch in "op" else None
                if who is None:
                    raise ValueError(f"FEN '{text}': bad character '{ch}'")
                if x >= width:
                    raise ValueError(f"FEN '{text}': row '{row}' is wider than {width}")
                board.cells[x][y] = who
                counts[who] += 1
                x += 1
            if x != width:
                raise ValueError(f"FEN '{text}': row '{row}' is not {width} cells wide")
        for c in range(width):
            column = board.cells[c]
            board.heights[c] = sum(v != EMPTY for v in column)
            if any(v != EMPTY for v in column[board.heights[c]:]):
                raise ValueError(f"FEN '{text}': a floating disc in column {c + 1}")
        side = {"x": FIRST, "w": FIRST, "o": SECOND, "b": SECOND}.get(words[1])
        if side is None:
            raise ValueError(f"FEN '{text}': side to move must be x/w or o/b")
        want = FIRST if counts[FIRST] == counts[SECOND] else SECOND
        if counts[FIRST] - counts[SECOND] not in (0, 1) or side != want:
            raise ValueError(f"FEN '{text}': the disc counts do not fit the side to move")
        for c in range(width):
            for r in range(board.heights[c]):
                if board._four_through(c, r, board.cells[c][r]):
                    raise ValueError(f"FEN '{text}': the game is already won")
        board.base_ply = counts[FIRST] + counts[SECOND]
        board.start_fens = (board.to_fen(), board.to_cfour_fen())
        return board

    # -- queries --
    @property
    def ply(self) -> int:
        return self.base_ply + len(self.moves)

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
        """The moves as one character each: digits up to 9 columns, letters past 9."""
        return "".join(column_char(m, self.width) for m in self.moves)

    # -- moves --
    def parse_move(self, text: str, notation: str = "digits") -> int:
        """Validate an engine's move token in its notation; return the 1-based column or raise
        IllegalMove (a move in the other notation is illegal too)."""
        if text is None or text == "":
            raise IllegalMove("no move given")
        rank = None
        if notation == "cfour":
            m = DROP.fullmatch(text)
            if not m:
                raise IllegalMove(f"'{text}' is not a drop P@<file><rank>")
            col, rank = ord(m.group(1)) - ord("a") + 1, int(m.group(2))
        else:
            if not re.fullmatch(r"[0-9]+", text):
                raise IllegalMove(f"'{text}' is not a column number")
            col = int(text)
        if not 1 <= col <= self.width:
            raise IllegalMove(f"column {col} is out of range 1..{self.width}")
        if self.is_over():
            raise IllegalMove("the game is already over")
        if self.heights[col - 1] >= self.height:
            raise IllegalMove(f"column {col} is full")
        if rank is not None and rank != self.heights[col - 1] + 1:
            raise IllegalMove(f"drop {text}: a disc in column {col} lands on rank "
                              f"{self.heights[col - 1] + 1}, not {rank}")
        return col

    def move_text(self, col: int, notation: str) -> str:
        """Column `col`, not played yet, in `notation`."""
        return str(col) if notation == "digits" else drop_text(col, self.heights[col - 1] + 1)

    def played_text(self, notation: str) -> list[str]:
        """The moves played since the start position, in `notation`."""
        if notation == "digits":
            return [str(m) for m in self.moves]
        return [drop_text(c, r) for c, r in zip(self.moves, self.ranks)]

    def position_command(self, notation: str) -> str:
        """The `position` command for an engine speaking `notation`."""
        if self.start_fens is None:
            cmd = "position startpos"
        else:
            cmd = "position fen " + self.start_fens[0 if notation == "digits" else 1]
        return cmd + (" moves " + " ".join(self.played_text(notation)) if self.moves else "")

    def play(self, col: int | str) -> str | None:
        """Play a move; returns 'win', 'draw' or None.  Raises IllegalMove."""
        col = self.parse_move(str(col))
        c = col - 1
        r = self.heights[c]
        who = self.side_to_move()
        self.cells[c][r] = who
        self.heights[c] += 1
        self.moves.append(col)
        self.ranks.append(r + 1)
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

    def to_cfour_fen(self) -> str:
        """cutechess's cfour FEN: P first player, p second, the discs still in hand in brackets
        (the first player has the odd disc), w/b to move, no castling or en passant."""
        rows = self.to_fen().split()[0].replace("x", "P").replace("o", "p")
        placed = {who: sum(col.count(who) for col in self.cells) for who in (FIRST, SECOND)}
        total = self.width * self.height
        hand = "P" * ((total + 1) // 2 - placed[FIRST]) + "p" * (total // 2 - placed[SECOND])
        side = "w" if self.side_to_move() == FIRST else "b"
        return f"{rows}[{hand}] {side} - - 0 {self.ply // 2 + 1}"


def drop_text(col: int, rank: int) -> str:
    return f"P@{chr(ord('a') + col - 1)}{rank}"


def column_char(col: int, width: int) -> str:
    """Column `col` in a move string: its digit up to 9 columns, its letter past 9."""
    return str(col) if width <= 9 else chr(ord("a") + col - 1)


def parse_move_list(text: str, width: int = DEFAULT_WIDTH) -> list[int]:
    """'4 4 5 3', '4453', '4,4,5,3' or 'ddec' -> [4, 4, 5, 3]: one digit or one letter a move
    (a = column 1), not both in one string, digits only up to 9 columns (not yet checked
    against a board)."""
    cleaned = re.sub(r"[\s,]+", "", text)
    if re.fullmatch(r"[0-9]*", cleaned):
        if cleaned and width > 9:
            raise IllegalMove(f"'{text}': past 9 columns moves are letters (a = column 1)")
        return [int(ch) for ch in cleaned]
    if re.fullmatch(r"[a-m]*", cleaned.lower()):
        return [ord(ch) - ord("a") + 1 for ch in cleaned.lower()]
    raise IllegalMove(f"'{text}' is not a move string (digits, or letters a-m, not both)")


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


def board_from_opening(opening: str, width: int, height: int) -> Board:
    """An opening is a move string from the empty board, or (with a '/') a FEN to start from."""
    if "/" in opening:
        return Board.from_fen(opening, width, height)
    return board_from_moves(parse_move_list(opening, width), width, height)
