"""Shared by the tool tests: the engines under test, running the referee, reading its files."""

import json
import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
REFEREE = os.path.join(TOOLS, "referee.py")
FAKE = os.path.join(HERE, "fake_engines", "fake_engine.py")
CFOUR_INI = os.path.join(TOOLS, "fairy-stockfish", "cfour.ini")
RUN_TIMEOUT = 60


def vier_bin(test):
    """The path of the vier binary from VIER_BIN; fails `test` clearly when it is missing."""
    path = os.environ.get("VIER_BIN")
    if not path:
        test.fail("VIER_BIN is not set: point it at the vier binary, e.g. "
                  "VIER_BIN=target/release/vier python3 -m unittest discover -s tools/tests -t tools")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        test.fail(f"VIER_BIN={path!r} is not an executable file")
    return os.path.abspath(path)


def fairy_stockfish(test):
    """The command that runs Fairy-Stockfish with the project's cfour variant; fails `test` when
    the Debian package fairy-stockfish is not installed (tools/test.sh installs it)."""
    path = shutil.which("fairy-stockfish") or shutil.which("/usr/games/fairy-stockfish")
    if not path:
        test.fail("fairy-stockfish is not installed: apt-get install -y fairy-stockfish")
    return f"{shlex.quote(path)} load {shlex.quote(CFOUR_INI)}"


def fake(*args):
    """The command line of the fake engine with `args`."""
    return " ".join(shlex.quote(a) for a in (sys.executable, FAKE) + args)


def run_referee(*args, timeout=RUN_TIMEOUT):
    return subprocess.run([sys.executable, REFEREE, *args], capture_output=True, text=True, timeout=timeout)


def read_jsonl(path):
    """(match header, game records in file order) of a referee results file."""
    header, games = None, []
    with open(path) as fh:
        for line in fh:
            obj = json.loads(line)
            if obj["type"] == "match":
                header = obj
            else:
                games.append(obj)
    return header, games
