"""A policy for PettingZoo's `connect_four_v3`.

    import pettingzoo
    import vier.pettingzoo
    env = pettingzoo.make("aec", "classic/connect_four-v3")   # or pettingzoo.classic.connect_four_v3.env()
    env.reset()
    for name in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else vier.pettingzoo.policy(obs)
        env.step(action)

The observation is the agent's own view: `observation` of shape (6, 7, 2), channel 0 its own
discs and channel 1 the opponent's, row 0 at the top; `action_mask` the legal columns.
"""

from typing import Any, Optional

from ._vier import Position, best_move

__all__ = ["policy", "position"]


def _grid(a: Any) -> list:
    return a.tolist() if hasattr(a, "tolist") else [list(map(list, row)) for row in a]


def position(observation: Any) -> Position:
    """The position of a `connect_four_v3` observation (the dict, or its `observation` array)."""
    if isinstance(observation, dict):
        observation = observation["observation"]
    grid = _grid(observation)
    rows = len(grid)
    columns = len(grid[0]) if rows else 0
    own = sum(cell[0] for row in grid for cell in row)
    other = sum(cell[1] for row in grid for cell in row)
    # the player to move has as many discs as the other (it moved first) or one fewer
    own_mark, other_mark = (1, 2) if own == other else (2, 1)
    cells = []
    for row in grid:
        for mine, theirs in row:
            if mine and theirs:
                raise ValueError("a cell holds both players' discs")
            cells.append(own_mark if mine else other_mark if theirs else 0)
    return Position.from_cells(cells, columns, rows)


def policy(observation: Any, action_mask: Any = None, movetime_ms: Optional[int] = None) -> int:
    """The action (0-based column) vier plays: the exact best move, or with `movetime_ms` the
    time-limited engine's. `action_mask` (or the observation dict's) is checked against it."""
    if isinstance(observation, dict) and action_mask is None:
        action_mask = observation.get("action_mask")
    pos = position(observation)
    move = best_move(pos, movetime_ms=movetime_ms)
    if action_mask is not None and not list(action_mask)[move]:
        raise ValueError(f"the action mask forbids column {move}, which the board allows")
    return move
