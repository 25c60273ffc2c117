"""vier: a perfect Connect Four player.

The exact solver and the time-limited engine of the `vier` engine, compiled in (with its opening
book). Columns are 0-based everywhere in Python; move strings are Pascal Pons' 1-based digits
("4453"). Scores follow Pons' convention, from the side to move's view: 0 a draw, a win with the
winner's k-th disc 22 - k on 7x6 (on any board one more than the discs the winner had left),
negative for a loss.

    >>> import vier
    >>> pos = vier.Position("4453")
    >>> vier.analyse(pos)
    [-5, -5, -2, -3, -4, -2, -2]

Every call that searches releases the GIL. Bad input raises ValueError with the reason.
"""

from ._vier import Engine, Position, analyse, best_move, solve

__all__ = ["Engine", "Position", "analyse", "best_move", "solve", "connectx", "pettingzoo"]


def __getattr__(name: str):
    # the agent modules load on first use, so `import vier` stays light
    if name in ("connectx", "pettingzoo"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'vier' has no attribute '{name}'")
