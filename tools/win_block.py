#!/usr/bin/env python3
"""A beginner as an engine: it takes an immediate win, else blocks the opponent's immediate win,
else drops a disc in a random legal column. Nothing more: the floor of vier's strength levels
(tools/levels.py calibrates them against it) and their tests' opponent.

It speaks the part of the protocol the referee and the tests use: uci, isready, ucinewgame,
setoption (Width, Height, Seed), position startpos|fen ... moves <digits>, go ... (any limits,
answered at once), stop, quit. Bad input gets 'info string error: ...' and changes nothing.
The choice among the random columns is seeded (--seed, or the Seed option), so games replay.

    python3 tools/win_block.py --seed 7
"""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from viertools.rules import Board, IllegalMove  # noqa: E402


def out(line: str):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def wins_now(board: Board, col: int) -> bool:
    """Whether the side to move connects four by dropping in `col`."""
    trial = board_copy(board)
    return trial.play(col) == "win"


def board_copy(board: Board) -> Board:
    copy = Board(board.width, board.height)
    copy.cells = [column[:] for column in board.cells]
    copy.heights = board.heights[:]
    copy.moves = board.moves[:]
    copy.ranks = board.ranks[:]
    copy.base_ply = board.base_ply
    copy.winner = board.winner
    return copy


def choose(board: Board, rng: random.Random) -> int | None:
    """The beginner's move: a win, else a block, else any legal column."""
    legal = board.legal_columns()
    if not legal:
        return None
    for col in legal:
        if wins_now(board, col):
            return col
    # the opponent's winning drops, were it their turn: pass by pretending they move now
    passed = board_copy(board)
    passed.base_ply += 1
    threats = [col for col in legal if wins_now(passed, col)]
    if threats:
        return threats[0]
    return rng.choice(legal)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    width, height = 7, 6
    board = Board(width, height)
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        cmd = words[0]
        try:
            if cmd == "uci":
                out("id name win-block")
                out("id author the vier developers")
                out("option name Width type spin default 7 min 4 max 9")
                out("option name Height type spin default 6 min 4 max 9")
                out("option name Seed type spin default 0 min 0 max 4294967295")
                out("uciok")
            elif cmd == "isready":
                out("readyok")
            elif cmd == "ucinewgame":
                board = Board(width, height)
            elif cmd == "setoption":
                text = " ".join(words[1:])
                if not text.startswith("name ") or " value " not in text:
                    raise ValueError(f"bad setoption '{raw.strip()}'")
                name, value = text[5:].split(" value ", 1)
                name = name.strip().lower()
                if name in ("width", "height"):
                    n = int(value)
                    if not 4 <= n <= 9:
                        raise ValueError(f"{name} {n} out of range 4..9")
                    width, height = (n, height) if name == "width" else (width, n)
                    board = Board(width, height)
                elif name == "seed":
                    rng = random.Random(int(value))
                else:
                    raise ValueError(f"unknown option '{name}'")
            elif cmd == "position":
                board = parse_position(words[1:], width, height)
            elif cmd == "go":
                col = choose(board, rng)
                out(f"bestmove {col if col is not None else '(none)'}")
            elif cmd == "stop":
                pass
            elif cmd == "quit":
                return 0
            else:
                raise ValueError(f"unknown command '{cmd}'")
        except (ValueError, IllegalMove) as e:
            out(f"info string error: {e}")
    return 0


def parse_position(words: list[str], width: int, height: int) -> Board:
    """`startpos|fen <fen...> [moves <digits>...]`; raises ValueError (nothing changes)."""
    if "moves" in words:
        i = words.index("moves")
        head, moves = words[:i], words[i + 1:]
    else:
        head, moves = words, []
    if head[:1] == ["startpos"] and len(head) == 1:
        board = Board(width, height)
    elif head[:1] == ["fen"] and len(head) > 1:
        board = Board.from_fen(" ".join(head[1:]), width, height)
    else:
        raise ValueError("position wants startpos or fen")
    for token in moves:
        for digit in token:  # a run of digits, '4453', as well as '4 4 5 3'
            board.play(digit)
    return board


if __name__ == "__main__":
    sys.exit(main())
