#!/usr/bin/env python3
"""A small fake Connect Four engine for the referee tests.

Modes (--mode):
  sane      full protocol (startpos/fen, digit runs, go infinite/stop, errors on
            bad input, Width/Height); plays a winning move if there is one,
            otherwise the first legal column (or a seeded random one with --random)
  crash     like sane, but exits with status 3 on the --after'th 'go' (default 1)
  orphan    like crash, but first starts a child that holds the engine's output pipe open
            and sleeps (its pid written to --pidfile): the engine is gone, its output is not;
            with --detach the child runs in a session of its own
  endless   like sane, but the --after'th 'go' is answered with one line that never ends
  chatter   like sane, but the --after'th 'go' is answered with 'info' lines without end
  hang      like sane, but never answers the --after'th 'go' (and ignores 'stop')
  illegal   like sane, but from the --after'th 'go' answers '--illegal' (a token,
            or 'full' for a full column when there is one, else column 1 forever)
  slow      like sane, but sleeps --sleep-ms before every bestmove, ignoring 'stop'
  nouciok   never answers 'uci'
  noready   answers 'uci' but never 'isready'
  sloppy    like sane but violates the protocol: no error lines for bad input,
            'moves 4453' read as nothing, two bestmoves per go

--notation cfour: offers UCI_Variant cfour and speaks only cutechess's cfour: drops P@d1 in
'position' and 'bestmove', the cfour FEN (P/p, [hand], w/b); column digits are an error.
--notation digits (default) speaks only column digits and vier's board strings.
--illegal also takes 'full' (a full column) and 'floating' (a drop two cells above the top disc).
"""

import argparse
import os
import random
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--mode", default="sane")
ap.add_argument("--after", type=int, default=1)
ap.add_argument("--illegal", default="9")
ap.add_argument("--sleep-ms", type=int, default=300)
ap.add_argument("--random", action="store_true")
ap.add_argument("--seed", type=int, default=None)
ap.add_argument("--name", default="fake")
ap.add_argument("--notation", choices=("digits", "cfour"), default="digits")
ap.add_argument("--pidfile", default=None)
ap.add_argument("--detach", action="store_true")
args = ap.parse_args()

W, H = 7, 6
rng = random.Random(args.seed)


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Pos:
    def __init__(self):
        self.cols = [[] for _ in range(W)]  # each column: list of 'x'/'o' from the bottom
        self.ply = 0

    def side(self):
        return "x" if self.ply % 2 == 0 else "o"

    def won(self, who):
        def at(c, r):
            return 0 <= c < W and 0 <= r < H and r < len(self.cols[c]) and self.cols[c][r] == who
        for c in range(W):
            for r in range(H):
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    if all(at(c + k * dc, r + k * dr) for k in range(4)):
                        return True
        return False

    def play(self, col):
        if not 1 <= col <= W:
            raise ValueError(f"column {col} out of range")
        if len(self.cols[col - 1]) >= H:
            raise ValueError(f"column {col} is full")
        if self.won("x") or self.won("o"):
            raise ValueError("game already over")
        self.cols[col - 1].append(self.side())
        self.ply += 1

    def legal(self):
        if self.won("x") or self.won("o"):
            return []
        return [c + 1 for c in range(W) if len(self.cols[c]) < H]


def parse_fen(board, stm):
    rows = board.split("/")
    if len(rows) != H:
        raise ValueError("wrong number of rows")
    p = Pos()
    grid = []
    for row in rows:
        cells = []
        for ch in row:
            if ch.isdigit():
                cells += ["."] * int(ch)
            elif ch in "xo" and args.notation == "digits":
                cells.append(ch)
            elif ch in "Pp" and args.notation == "cfour":
                cells.append("x" if ch == "P" else "o")
            else:
                raise ValueError(f"bad fen char {ch}")
        if len(cells) != W:
            raise ValueError("row has the wrong width")
        grid.append(cells)
    for c in range(W):
        for r in range(H):
            v = grid[H - 1 - r][c]
            if v != ".":
                if len(p.cols[c]) != r:
                    raise ValueError("floating stone")
                p.cols[c].append(v)
    stm = {"w": "x", "b": "o"}.get(stm, "?") if args.notation == "cfour" else stm
    if stm not in ("x", "o"):
        raise ValueError("bad side to move")
    p.ply = sum(len(c) for c in p.cols)
    if p.side() != stm:
        # trust the given side to move (parity is what matters for us)
        p.ply += 1
    return p


def parse_position(words):
    if len(words) >= 2 and words[1] == "startpos":
        p, rest = Pos(), words[2:]
    elif len(words) >= 4 and words[1] == "fen":
        p, rest = parse_fen(words[2].split("[")[0], words[3]), words[4:]
        while rest and rest[0] != "moves":  # the cfour FEN's fields after the side to move
            rest = rest[1:]
    else:
        raise ValueError("bad position command")
    if rest:
        if rest[0] != "moves":
            raise ValueError("expected 'moves'")
        if args.notation == "cfour":
            for tok in rest[1:]:
                col = drop_column(p, tok)
                p.play(col)
            return p
        digits = "".join(rest[1:])
        if args.mode == "sloppy" and len(rest) == 2 and len(rest[1]) > 1:
            digits = ""
        for ch in digits:
            if not ch.isdigit():
                raise ValueError(f"bad move '{ch}'")
            p.play(int(ch))
    return p


def drop_column(p, tok):
    if len(tok) < 4 or tok[:2] != "P@" or not tok[3:].isdigit():
        raise ValueError(f"bad drop '{tok}'")
    col = ord(tok[2]) - ord("a") + 1
    if not 1 <= col <= W or int(tok[3:]) != len(p.cols[col - 1]) + 1:
        raise ValueError(f"drop '{tok}' does not land there")
    return col


def spoken(p, col):
    """Column col (1-based) in this engine's notation; a drop lands on top of the column."""
    if args.notation == "digits":
        return str(col)
    return f"P@{chr(ord('a') + col - 1)}{len(p.cols[col - 1]) + 1}"


def choose(p):
    legal = p.legal()
    if not legal:
        return "0"
    me = p.side()
    for c in legal:
        p.cols[c - 1].append(me)
        win = p.won(me)
        p.cols[c - 1].pop()
        if win:
            return spoken(p, c)
    return spoken(p, rng.choice(legal) if args.random else legal[0])


def main():
    global W, H
    pos = Pos()
    gos = 0
    infinite = False
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "uci":
            if args.mode == "nouciok":
                continue
            out(f"id name {args.name}")
            out("id author tests")
            out("option name Width type spin default 7 min 4 max 9")
            out("option name Height type spin default 6 min 4 max 9")
            if args.notation == "cfour":
                out("option name UCI_Variant type combo default cfour var cfour")
            out("uciok")
        elif cmd == "isready":
            if args.mode == "noready":
                continue
            out("readyok")
        elif cmd == "setoption":
            if len(words) >= 5 and words[1] == "name" and words[3] == "value":
                if words[2] == "Width":
                    W = int(words[4])
                elif words[2] == "Height":
                    H = int(words[4])
            pos = Pos()
        elif cmd == "ucinewgame":
            pos = Pos()
        elif cmd == "position":
            try:
                pos = parse_position(words)
            except (ValueError, IndexError) as e:
                if args.mode != "sloppy":
                    out(f"info string error {e}")
        elif cmd == "go":
            gos += 1
            if "infinite" in words:
                infinite = True
                continue
            if args.mode == "crash" and gos >= args.after:
                sys.exit(3)
            if args.mode == "orphan" and gos >= args.after:
                # the child inherits stdin and stdout: the referee sees no end of output
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                                         start_new_session=args.detach)
                if args.pidfile:
                    with open(args.pidfile, "w") as fh:
                        fh.write(str(child.pid))
                os._exit(3)
            if args.mode == "endless" and gos >= args.after:
                sys.stdout.write("info string ")
                while True:
                    sys.stdout.write("x" * 65536)
            if args.mode == "chatter" and gos >= args.after:
                while True:
                    sys.stdout.write("info depth 1 score cp 0 nodes 1 time 0 pv 4\n" * 100)
            if args.mode == "hang" and gos >= args.after:
                while True:
                    time.sleep(60)
            if args.mode == "slow":
                time.sleep(args.sleep_ms / 1000.0)
            move = choose(pos)
            if args.mode == "illegal" and gos >= args.after:
                if args.illegal == "full":
                    full = [c + 1 for c in range(W) if len(pos.cols[c]) >= H]
                    move = spoken(pos, full[0]) if full else spoken(pos, 1)
                elif args.illegal == "floating":
                    move = f"P@a{len(pos.cols[0]) + 2}"
                else:
                    move = args.illegal
            out(f"info depth {gos} score cp {10 * gos} pv {move}")
            out(f"bestmove {move}")
            if args.mode == "sloppy":
                out(f"bestmove {move}")
        elif cmd == "stop":
            if infinite:
                infinite = False
                out(f"bestmove {choose(pos)}")
        elif cmd == "quit":
            return
        else:
            out(f"info string error unknown command {cmd}")


if __name__ == "__main__":
    main()
