"""A ConnectX agent (Kaggle's `kaggle_environments` "connectx").

    from kaggle_environments import make
    import vier.connectx
    env = make("connectx")
    env.run([vier.connectx.agent, "random"])

`agent(obs, config)` reads the observation's `board` (rows * columns cells from the top row,
0 empty, 1 and 2 the players' discs) and `mark`, and the configuration's `rows`, `columns`,
`inarow` and `actTimeout`, as attributes or as dictionary keys. It thinks for half the move's
time (at most a second) and plays perfectly whenever it proves the position in that time, which
on 7x6 with the built-in opening book is nearly always.
"""

from typing import Any, Optional

from ._vier import Engine, Position

__all__ = ["agent", "position"]

# ms the agent leaves to the environment of each move's time
_MOST_MS = 1000


def _field(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def position(obs: Any, config: Any = None) -> Position:
    """The position of a ConnectX observation; ValueError with the reason when it is not one
    vier plays (a line length other than 4, an unsupported size, a board that no game reaches,
    or a `mark` that is not the side to move)."""
    rows = int(_field(config, "rows", 6)) if config is not None else 6
    columns = int(_field(config, "columns", 7)) if config is not None else 7
    inarow = int(_field(config, "inarow", 4)) if config is not None else 4
    if inarow != 4:
        raise ValueError(f"vier plays four in a row only: inarow must be 4, not {inarow}")
    board = _field(obs, "board")
    if board is None:
        raise ValueError("the observation has no board")
    pos = Position.from_cells(list(board), columns, rows)
    mark = _field(obs, "mark")
    if mark is not None and int(mark) != pos.side_to_move:
        raise ValueError(
            f"mark {mark} is not the side to move: the disc counts say player "
            f"{pos.side_to_move} moves"
        )
    return pos


_engine: Optional[Engine] = None


def agent(obs: Any, config: Any = None) -> int:
    """The 0-based column vier plays in a ConnectX observation."""
    global _engine
    pos = position(obs, config)
    timeout_s = float(_field(config, "actTimeout", 2) or 2) if config is not None else 2.0
    movetime_ms = max(1, min(_MOST_MS, int(timeout_s * 1000) // 2))
    if _engine is None:
        _engine = Engine()
    return _engine.best_move(pos, movetime_ms=movetime_ms)
