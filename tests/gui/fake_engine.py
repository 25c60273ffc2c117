"""A stand-in engine for the gui tests, speaking just enough of protocol.md.

`fake_engine.py digits`: offers no UCI_Variant, so the gui must speak column digits to it; it
plays the leftmost column that is not full. `fake_engine.py hang`: answers the handshake, then
never answers a `go` nor a `stop`, as a hung engine would.
"""

import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "digits"
width, height = 7, 6
moves = []


def say(line):
    print(line, flush=True)


for line in sys.stdin:
    t = line.split()
    if not t:
        continue
    if t[0] == "uci":
        say("id name fake")
        say("option name Width type spin default 7 min 4 max 9")
        say("option name Height type spin default 6 min 4 max 9")
        say("uciok")
    elif t[0] == "isready":
        say("readyok")
    elif t[:3] == ["setoption", "name", "Width"]:
        width = int(t[4])
    elif t[:3] == ["setoption", "name", "Height"]:
        height = int(t[4])
    elif t[0] == "position":
        # digits only: a drop here would mean the gui ignored that this engine has no cfour
        moves = [int(m) for m in t[3:]] if "moves" in t else []
    elif t[0] == "go" and mode == "digits":
        col = next(c for c in range(1, width + 1) if moves.count(c) < height)
        say(f"info depth 1 seldepth 1 multipv 1 score cp 0 nodes 1 nps 1 hashfull 0 time 0 pv {col}")
        say(f"bestmove {col}")
    elif t[0] == "quit":
        break
