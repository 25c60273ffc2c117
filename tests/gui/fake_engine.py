"""A stand-in engine for the gui tests, speaking just enough of protocol.md.

`fake_engine.py digits`: offers no UCI_Variant, so the gui must speak column digits to it; it
plays the leftmost column that is not full. `fake_engine.py hang`: answers the handshake, then
never answers a `go` nor a `stop`, as a hung engine would. The others answer the handshake, and
at `go`:

* `stuck`: stops reading its input and sleeps (the end of its input, a `stop`, SIGTERM's
  absence of a reply: nothing reaches it);
* `endless`: writes one line that never ends, as fast as it can;
* `chatter`: writes `info` lines as fast as it can;
* `orphan PIDFILE`: starts a child in a session of its own that holds its output and sleeps,
  writes the child's pid to PIDFILE, and exits with status 3.
"""

import os
import subprocess
import sys
import time

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
    elif t[0] == "go" and mode == "stuck":
        while True:
            time.sleep(60)
    elif t[0] == "go" and mode == "endless":
        sys.stdout.write("info string ")
        chunk = "x" * 65536
        while True:
            sys.stdout.write(chunk)
    elif t[0] == "go" and mode == "chatter":
        line = "info depth 1 seldepth 1 multipv 1 score cp 0 nodes 1 nps 1 time 0 pv 4\n" * 100
        while True:
            sys.stdout.write(line)
    elif t[0] == "go" and mode == "orphan":
        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True
        )
        with open(sys.argv[2], "w") as fh:
            fh.write(str(child.pid))
        os._exit(3)
    elif t[0] == "go" and mode == "digits":
        col = next(c for c in range(1, width + 1) if moves.count(c) < height)
        say(f"info depth 1 seldepth 1 multipv 1 score cp 0 nodes 1 nps 1 hashfull 0 time 0 pv {col}")
        say(f"bestmove {col}")
    elif t[0] == "quit":
        break
