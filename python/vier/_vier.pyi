# Type stubs of the compiled module; `vier` re-exports all of it.
from typing import List, Optional, Sequence, TypedDict, Union

class Position:
    """A Connect Four position on any of the 57 board sizes: the 52 whose result is published and
    5 unsolved ones (4 to 13 columns, 4 to 13 rows), immutable."""

    def __init__(self, moves: str = "", width: int = 7, height: int = 6) -> None: ...
    @staticmethod
    def from_board(board: str, width: int = 7, height: int = 6) -> Position: ...
    @staticmethod
    def from_cells(cells: Sequence[int], width: int = 7, height: int = 6) -> Position: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def discs(self) -> int: ...
    @property
    def side_to_move(self) -> int:
        """1 when the first player is to move, 2 when the second is."""
    @property
    def winner(self) -> Optional[int]: ...
    @property
    def board(self) -> str: ...
    @property
    def moves(self) -> Optional[str]:
        """The moves as given (and played since); for a board, a move string reaching it."""
    def cells(self) -> List[int]: ...
    def is_game_over(self) -> bool: ...
    def can_play(self, column: int) -> bool: ...
    def legal_moves(self) -> List[int]: ...
    def play(self, column: int) -> Position: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

PositionLike = Union[Position, str]

class SearchResult(TypedDict):
    move: int
    score: str
    exact: Optional[int]
    depth: int
    nodes: int
    solved: bool

def solve(pos: PositionLike, weak: bool = False, budget_ms: Optional[int] = None) -> int:
    """The exact score of the position for the side to move (Pons' convention); TimeoutError
    past budget_ms, KeyboardInterrupt on Ctrl-C."""

def analyse(
    pos: PositionLike, weak: bool = False, budget_ms: Optional[int] = None
) -> List[Optional[int]]:
    """The score of every column for the side to move; None for a full column; TimeoutError
    past budget_ms, KeyboardInterrupt on Ctrl-C."""

def best_move(
    pos: PositionLike, movetime_ms: Optional[int] = None, budget_ms: Optional[int] = None
) -> int:
    """The 0-based column to play: exact without movetime_ms (TimeoutError past budget_ms),
    the timed engine's with it."""

class Engine:
    """The time-limited engine with the protocol's options."""

    def __init__(
        self,
        threads: int = 1,
        hash_mb: int = 32,
        book: bool = True,
        skill: Optional[int] = None,
        seed: int = 0,
        search_level: int = 7,
    ) -> None: ...
    def search(
        self,
        pos: PositionLike,
        movetime_ms: Optional[int] = None,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
    ) -> SearchResult: ...
    def best_move(self, pos: PositionLike, movetime_ms: int = 100) -> int: ...
    def clear(self) -> None: ...
