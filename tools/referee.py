#!/usr/bin/env python3
"""referee.py - engine-versus-engine Connect Four matches you can trust.

Python 3.11 standard library only.  See `referee.py --help` and tools/README.md.

The referee is the arbiter: it keeps its own board, checks every move the
engines send, detects four in a row and full boards itself, and measures time
with its own monotonic clock.  Nothing an engine claims is trusted.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import queue
import random
import re
import shlex
import signal
import subprocess
import sys
import threading
import time

DEFAULT_WIDTH = 7
DEFAULT_HEIGHT = 6
Z95 = 1.959963984540054  # two-sided 95% quantile of the standard normal

# ---------------------------------------------------------------------------
# Board and rules
# ---------------------------------------------------------------------------

EMPTY, FIRST, SECOND = 0, 1, 2
DIRECTIONS = {
    "horizontal": (1, 0),
    "vertical": (0, 1),
    "diagonal /": (1, 1),
    "diagonal \\": (1, -1),
}


class IllegalMove(ValueError):
    """An engine (or an opening) tried a move the rules do not allow."""


class Board:
    """Connect Four board; columns are 1-based digits, rows counted from the bottom."""

    def __init__(self, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT):
        if not 1 <= width <= 9:
            raise ValueError("width must be 1..9 (columns are single digits)")
        if not 1 <= height <= 32:
            raise ValueError("height must be 1..32")
        self.width = width
        self.height = height
        self.cells = [[EMPTY] * height for _ in range(width)]  # cells[col][row]
        self.heights = [0] * width
        self.moves: list[int] = []
        self.winner = EMPTY
        self.win_direction: str | None = None

    # -- queries --
    @property
    def ply(self) -> int:
        return len(self.moves)

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
        return "".join(str(m) for m in self.moves)

    # -- moves --
    def parse_move(self, text: str) -> int:
        """Validate an engine's move token; return the 1-based column or raise IllegalMove."""
        if text is None or text == "":
            raise IllegalMove("no move given")
        if not re.fullmatch(r"[0-9]+", text):
            raise IllegalMove(f"'{text}' is not a column number")
        col = int(text)
        if not 1 <= col <= self.width:
            raise IllegalMove(f"column {col} is out of range 1..{self.width}")
        if self.is_over():
            raise IllegalMove("the game is already over")
        if self.heights[col - 1] >= self.height:
            raise IllegalMove(f"column {col} is full")
        return col

    def play(self, col: int | str) -> str | None:
        """Play a move; returns 'win', 'draw' or None.  Raises IllegalMove."""
        col = self.parse_move(str(col))
        c = col - 1
        r = self.heights[c]
        who = self.side_to_move()
        self.cells[c][r] = who
        self.heights[c] += 1
        self.moves.append(col)
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


def parse_move_list(text: str) -> list[int]:
    """'4 4 5 3', '4453' or '4,4,5,3' -> [4, 4, 5, 3] (digits only; not yet checked)."""
    cleaned = re.sub(r"[\s,]+", "", text)
    if not re.fullmatch(r"[0-9]*", cleaned):
        raise IllegalMove(f"'{text}' is not a move string (digits only)")
    return [int(ch) for ch in cleaned]


def board_from_moves(moves, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT) -> Board:
    board = Board(width, height)
    for m in moves:
        if board.is_over():
            raise IllegalMove("moves continue after the game ended")
        board.play(m)
    return board


# ---------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------


def score_from_elo(elo: float) -> float:
    """Expected score of the logistic Elo model."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_from_score(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority, the classic normal approximation 0.5*(1+erf((W-L)/sqrt(2(W+L))))."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def _mean_var(values_counts):
    n = sum(c for _, c in values_counts)
    mean = sum(v * c for v, c in values_counts) / n
    var = sum(c * (v - mean) ** 2 for v, c in values_counts) / n
    return n, mean, var


def _elo_interval(mean: float, var: float, n: float):
    """(elo, low, high); low/high are None when the results have no spread yet."""
    if var <= 0.0:
        return elo_from_score(mean), None, None
    stderr = math.sqrt(var / n)
    lo = elo_from_score(mean - Z95 * stderr)
    hi = elo_from_score(mean + Z95 * stderr)
    return elo_from_score(mean), lo, hi


def trinomial_stats(wins: int, draws: int, losses: int) -> dict:
    """Elo with a 95% interval from W/D/L treated as independent games."""
    n = wins + draws + losses
    out = {"games": n, "wins": wins, "draws": draws, "losses": losses}
    if n == 0:
        return out | {"score": None, "elo": None, "elo_low": None, "elo_high": None,
                      "elo_error": None, "los": 0.5, "draw_ratio": None}
    _, mean, var = _mean_var([(1.0, wins), (0.5, draws), (0.0, losses)])
    elo, lo, hi = _elo_interval(mean, var, n)
    return out | {"score": mean, "elo": elo, "elo_low": lo, "elo_high": hi,
                  "elo_error": (hi - lo) / 2.0 if lo is not None else None, "los": los(wins, losses),
                  "draw_ratio": draws / n}


PENTA_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # pair score / 2 for [LL, LD, DD+WL, WD, WW]


def pentanomial_stats(penta) -> dict:
    """Elo with a 95% interval from pentanomial pair counts [LL, LD, DD+WL, WD, WW]."""
    pairs = sum(penta)
    if pairs == 0:
        return {"pairs": 0, "score": None, "elo": None, "elo_low": None,
                "elo_high": None, "elo_error": None}
    _, mean, var = _mean_var(list(zip(PENTA_SCORES, penta)))
    elo, lo, hi = _elo_interval(mean, var, pairs)
    return {"pairs": pairs, "score": mean, "elo": elo, "elo_low": lo, "elo_high": hi,
            "elo_error": (hi - lo) / 2.0 if lo is not None else None}


SPRT_MODEL = ("logistic Elo, GSPRT normal approximation (M. Van den Bergh) "
              "over pentanomial pairs, zero counts regularized to 1e-3 as in fishtest")


def sprt_bounds(alpha: float, beta: float):
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(penta, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (elo1) against H0 (elo0), logistic Elo.

    With N pairs, per-pair mean score m and variance v (pair scores in
    {0, 1/4, 1/2, 3/4, 1}) and s_i = 1/(1+10^(-elo_i/400)):
        LLR = N * (s1 - s0) * (2m - s0 - s1) / (2 v)
    which is the log of the ratio of two normal likelihoods with the observed
    variance.  Buckets with zero count get 1e-3 (fishtest's regularization)
    so the variance never vanishes.
    """
    if sum(penta) == 0:
        return 0.0
    counts = [c if c > 0 else 1e-3 for c in penta]
    n, mean, var = _mean_var(list(zip(PENTA_SCORES, counts)))
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


class Sprt:
    def __init__(self, elo0=0.0, elo1=10.0, alpha=0.05, beta=0.05):
        if elo1 <= elo0:
            raise ValueError("SPRT needs elo1 > elo0")
        if not (0 < alpha < 1 and 0 < beta < 1):
            raise ValueError("SPRT alpha and beta must be between 0 and 1")
        self.elo0, self.elo1, self.alpha, self.beta = elo0, elo1, alpha, beta
        self.lower, self.upper = sprt_bounds(alpha, beta)

    @staticmethod
    def parse(tokens) -> "Sprt":
        vals = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
        for tok in tokens:
            key, eq, val = tok.partition("=")
            if not eq or key not in vals:
                raise ValueError(f"bad --sprt parameter '{tok}' (want elo0= elo1= alpha= beta=)")
            vals[key] = float(val)
        return Sprt(**vals)

    def state(self, penta) -> dict:
        llr = sprt_llr(penta, self.elo0, self.elo1)
        decision = None
        if llr >= self.upper:
            decision = "H1"
        elif llr <= self.lower:
            decision = "H0"
        return {"llr": llr, "lower": self.lower, "upper": self.upper, "decision": decision}

    def describe(self) -> str:
        return f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}"


# ---------------------------------------------------------------------------
# Time controls
# ---------------------------------------------------------------------------


class TimeControl:
    """movetime=MS | depth=N | nodes=N | BASE+INC (seconds per game + seconds per move)."""

    def __init__(self, kind: str, value: int = 0, base_ms: int = 0, inc_ms: int = 0, text: str = ""):
        self.kind, self.value, self.base_ms, self.inc_ms, self.text = kind, value, base_ms, inc_ms, text

    @staticmethod
    def parse(text: str) -> "TimeControl":
        t = text.strip()
        m = re.fullmatch(r"(movetime|depth|nodes)=(\d+)", t)
        if m:
            if int(m.group(2)) <= 0:
                raise ValueError(f"time control '{text}': value must be positive")
            return TimeControl(m.group(1), int(m.group(2)), text=t)
        m = re.fullmatch(r"(\d+(?:\.\d*)?)(?:\+(\d+(?:\.\d*)?))?", t)
        if m:
            base = round(float(m.group(1)) * 1000)
            inc = round(float(m.group(2) or 0) * 1000)
            if base <= 0:
                raise ValueError(f"time control '{text}': base time must be positive")
            return TimeControl("clock", base_ms=base, inc_ms=inc, text=t)
        raise ValueError(f"bad time control '{text}' (want movetime=MS, depth=N, nodes=N or SEC+INC)")

    def __str__(self):
        return self.text

    def to_json(self):
        return self.text


# ---------------------------------------------------------------------------
# Engine process
# ---------------------------------------------------------------------------


class EngineFailure(Exception):
    """kind is 'crash' (process died / pipe closed) or 'stall' (no reply in time)."""

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


class Aborted(Exception):
    """The match is stopping (SPRT decided, fatal error or interrupt)."""


class NeverStarted(Exception):
    """An engine failed its very first start: a setup problem, not a game result."""


class ProtocolLog:
    def __init__(self, path: str | None):
        self.fh = open(path, "a", encoding="utf-8") if path else None
        self.lock = threading.Lock()
        self.t0 = time.monotonic()

    def write(self, who: str, arrow: str, line: str):
        if not self.fh:
            return
        with self.lock:
            self.fh.write(f"{time.monotonic() - self.t0:10.3f} {who} {arrow} {line}\n")
            self.fh.flush()


class EngineProcess:
    """One running engine: line-based pipes, a reader thread, monotonic timestamps."""

    def __init__(self, cmd: str, label: str = "engine", log: ProtocolLog | None = None):
        self.cmd = cmd
        self.label = label
        self.log = log or ProtocolLog(None)
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue()
        self.eof = False
        self.id_name: str | None = None
        self.options: list[str] = []

    # -- process management --
    def start(self):
        argv = shlex.split(self.cmd)
        if not argv:
            raise EngineFailure("crash", "empty engine command")
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, bufsize=1,
                encoding="utf-8", errors="replace", start_new_session=True)
        except OSError as e:
            raise EngineFailure("crash", f"cannot start '{self.cmd}': {e}") from e
        threading.Thread(target=self._reader, args=(self.proc, self.lines), daemon=True).start()

    def _reader(self, proc, lines):
        try:
            for line in proc.stdout:
                lines.put((time.monotonic(), line.rstrip("\r\n")))
        except (OSError, ValueError):
            pass
        lines.put((time.monotonic(), None))

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and not self.eof

    def kill(self):
        p = self.proc
        if p is None:
            return
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (OSError, ProcessLookupError):
                try:
                    p.kill()
                except OSError:
                    pass
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for f in (p.stdin, p.stdout):
            try:
                f.close()
            except (OSError, ValueError):
                pass

    def quit(self, timeout: float = 1.0):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except EngineFailure:
                pass
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def exit_detail(self) -> str:
        if self.proc is None:
            return "not started"
        try:
            rc = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return "closed its output but is still running"
        if rc < 0:
            try:
                return f"killed by signal {signal.Signals(-rc).name}"
            except ValueError:
                return f"killed by signal {-rc}"
        return f"exited with status {rc}"

    # -- line I/O --
    def send(self, line: str):
        self.log.write(self.label, ">", line)
        if self.proc is None or self.proc.stdin is None:
            raise EngineFailure("crash", "engine is not running")
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError) as e:
            raise EngineFailure("crash", f"engine stopped reading input ({e.__class__.__name__}); "
                                + self.exit_detail()) from e

    def read(self, deadline: float, abort: threading.Event | None = None):
        """Next (timestamp, line); None on timeout; raises EngineFailure('crash') at EOF."""
        if self.eof:
            raise EngineFailure("crash", "engine disconnected: " + self.exit_detail())
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            if abort is not None and abort.is_set():
                raise Aborted()
            try:
                t, line = self.lines.get(timeout=min(remaining, 0.05 if abort is not None else remaining))
            except queue.Empty:
                continue
            if line is None:
                self.eof = True
                raise EngineFailure("crash", "engine disconnected: " + self.exit_detail())
            self.log.write(self.label, "<", line)
            return t, line

    def drain(self):
        while True:
            try:
                t, line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.eof = True
                return
            self.log.write(self.label, "<", line + "   (stale, ignored)")

    def wait_for(self, token: str, timeout: float, what: str, abort=None) -> list[str]:
        """Read until a line whose first word is `token`; stall failure on timeout."""
        deadline = time.monotonic() + timeout
        got = []
        while True:
            item = self.read(deadline, abort)
            if item is None:
                raise EngineFailure("stall", f"no '{token}' within {timeout:g}s after {what}")
            got.append(item[1])
            if item[1].split()[:1] == [token]:
                return got

    def handshake(self, startup_timeout: float, isready_timeout: float,
                  setoptions: list[tuple[str, str]], abort=None):
        self.send("uci")
        for line in self.wait_for("uciok", startup_timeout, "'uci'", abort):
            words = line.split()
            if words[:2] == ["id", "name"]:
                self.id_name = " ".join(words[2:])
            elif words[:1] == ["option"]:
                self.options.append(line)
        for name, value in setoptions:
            self.send(f"setoption name {name} value {value}")
        self.isready(isready_timeout, abort)

    def isready(self, timeout: float, abort=None):
        self.send("isready")
        self.wait_for("readyok", timeout, "'isready'", abort)


class SearchResult:
    def __init__(self, move, elapsed, depth, score, stop_sent, lines):
        self.move, self.elapsed, self.depth, self.score = move, elapsed, depth, score
        self.stop_sent, self.lines = stop_sent, lines


def parse_info(line: str, state: dict):
    words = line.split()
    for i, w in enumerate(words):
        if w == "depth" and i + 1 < len(words) and re.fullmatch(r"-?\d+", words[i + 1]):
            state["depth"] = int(words[i + 1])
        elif w == "score" and i + 2 < len(words) and words[i + 1] in ("cp", "mate") \
                and re.fullmatch(r"[+-]?\d+", words[i + 2]):
            state["score"] = {words[i + 1]: int(words[i + 2])}
        elif w == "string":
            break


def run_search(engine: EngineProcess, position_cmd: str, go_cmd: str,
               soft_limit: float | None, grace: float, hard_limit: float,
               abort: threading.Event | None = None) -> SearchResult:
    """Send position + go and wait for bestmove.

    soft_limit: seconds after which the engine is over its time; the referee then
    sends 'stop' and waits `grace` more seconds for a (late) bestmove.
    hard_limit: seconds without bestmove after which the engine is declared stalled
    (used when there is no soft limit: depth / nodes searches).
    """
    engine.drain()
    if engine.eof:
        raise EngineFailure("crash", "engine disconnected: " + engine.exit_detail())
    engine.send(position_cmd)
    t0 = time.monotonic()  # before 'go': the reply may be timestamped before send() returns
    engine.send(go_cmd)
    info = {"depth": None, "score": None}
    stop_sent = False
    soft_deadline = t0 + soft_limit if soft_limit is not None else None
    hard_deadline = t0 + hard_limit if soft_limit is None else soft_deadline + grace
    lines = []
    while True:
        deadline = hard_deadline if (soft_deadline is None or stop_sent) else soft_deadline
        item = engine.read(deadline, abort)
        if item is None:
            if soft_deadline is not None and not stop_sent:
                stop_sent = True
                engine.send("stop")
                continue
            waited = time.monotonic() - t0
            raise EngineFailure("stall", f"no bestmove after {waited:.1f}s (engine does not reply)")
        t, line = item
        lines.append(line)
        words = line.split()
        if not words:
            continue
        if words[0] == "info":
            parse_info(line, info)
        elif words[0] == "bestmove":
            move = words[1] if len(words) > 1 else ""
            return SearchResult(move, t - t0, info["depth"], info["score"], stop_sent, lines)


# ---------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------

TERMINATIONS = ("win", "draw", "time_forfeit", "illegal_move", "crash", "stall")


class EngineSpec:
    def __init__(self, cmd: str, name: str | None, options: list[str], tc: TimeControl | None):
        self.cmd, self.name, self.tc = cmd, name, tc
        self.ever_started = False  # set once any worker got it through the handshake
        self.options = []
        for opt in options:
            key, eq, val = opt.partition("=")
            if not eq or not key.strip():
                raise ValueError(f"bad --option '{opt}' (want Name=Value)")
            self.options.append((key.strip(), val.strip()))

    def to_json(self):
        return {"name": self.name, "cmd": self.cmd, "options": [f"{k}={v}" for k, v in self.options],
                "tc": self.tc.to_json() if self.tc else None}


class Settings:
    """Everything a game needs besides the engines."""

    def __init__(self, width=DEFAULT_WIDTH, height=DEFAULT_HEIGHT, margin_ms=50.0,
                 grace_ms=1000.0, startup_timeout=10.0, isready_timeout=5.0,
                 move_timeout=60.0, log: ProtocolLog | None = None):
        self.width, self.height = width, height
        self.margin_ms, self.grace_ms = margin_ms, grace_ms
        self.startup_timeout, self.isready_timeout = startup_timeout, isready_timeout
        self.move_timeout = move_timeout
        self.log = log or ProtocolLog(None)

    def size_options(self):
        if (self.width, self.height) == (DEFAULT_WIDTH, DEFAULT_HEIGHT):
            return []
        return [("Width", str(self.width)), ("Height", str(self.height))]


class EngineSlot:
    """An engine role (A or B) inside one worker: restarts the process when needed."""

    def __init__(self, role: str, spec: EngineSpec, settings: Settings, worker: int):
        self.role, self.spec, self.settings = role, spec, settings
        self.label = f"w{worker}:{role}:{spec.name}"
        self.proc: EngineProcess | None = None
        self.needs_restart = False
        self.starts = 0
        self.consecutive_start_failures = 0

    def ensure_ready(self, abort=None):
        s = self.settings
        if self.proc is not None and (self.needs_restart or not self.proc.alive()):
            self.proc.kill()
            self.proc = None
        if self.proc is None:
            self.needs_restart = False
            self.proc = EngineProcess(self.spec.cmd, self.label, s.log)
            self.starts += 1
            self.proc.start()
            self.proc.handshake(s.startup_timeout, s.isready_timeout,
                                s.size_options() + self.spec.options, abort)
        self.proc.drain()
        self.proc.send("ucinewgame")
        self.proc.isready(s.isready_timeout, abort)

    def close(self):
        if self.proc is not None:
            self.proc.quit()
            self.proc = None


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def go_command(tc: TimeControl, clocks: dict, incs: dict, mover: str, first: str, second: str):
    """(go command, time allowed in ms or None)."""
    if tc.kind == "movetime":
        return f"go movetime {tc.value}", float(tc.value)
    if tc.kind == "depth":
        return f"go depth {tc.value}", None
    if tc.kind == "nodes":
        return f"go nodes {tc.value}", None
    # w = first player.  An opponent without a clock (other kind of time
    # control) is shown the mover's own clock.
    own = clocks[mover]
    wt = clocks[first] if clocks.get(first) is not None else own
    bt = clocks[second] if clocks.get(second) is not None else own
    wi = incs[first] if clocks.get(first) is not None else incs[mover]
    bi = incs[second] if clocks.get(second) is not None else incs[mover]
    return (f"go wtime {max(0, int(wt))} btime {max(0, int(bt))} winc {int(wi)} binc {int(bi)}",
            float(own))


def play_game(index: int, opening: str, slots: dict, settings: Settings,
              abort: threading.Event | None = None) -> dict:
    """Play one game; A is the first player for even indices, B for odd ones.

    Returns the result record.  Raises Aborted if the match is stopping.
    """
    first, second = ("A", "B") if index % 2 == 0 else ("B", "A")
    role_of = {FIRST: first, SECOND: second}
    board = board_from_moves(parse_move_list(opening), settings.width, settings.height)
    started = time.time()
    record = {
        "type": "game", "game": index, "pair": index // 2, "opening": opening,
        "size": f"{settings.width}x{settings.height}",
        "first": first, "second": second,
        "first_name": slots[first].spec.name, "second_name": slots[second].spec.name,
        "engines": {"A": slots["A"].spec.name, "B": slots["B"].spec.name},
        "tc": {r: str(slots[r].spec.tc) for r in ("A", "B")},
        "started": now_iso(),
    }
    plies = []

    def finish(termination, offender=None, winner=None, reason=""):
        if offender is not None:
            winner = "B" if offender == "A" else "A"
        if winner is None:
            result, score_a = "1/2-1/2", 0.5
        else:
            result = "1-0" if winner == first else "0-1"
            score_a = 1.0 if winner == "A" else 0.0
        record.update({
            "moves": board.move_string(), "plies": plies,
            "termination": termination, "offender": offender, "winner": winner,
            "winner_name": slots[winner].spec.name if winner else None,
            "result": result, "score_a": score_a, "reason": reason,
            "duration_s": round(time.time() - started, 3),
        })
        return record

    # Prepare both engines (start / restart, ucinewgame, isready).
    for role in (first, second):
        slot = slots[role]
        try:
            slot.ensure_ready(abort)
            slot.consecutive_start_failures = 0
            slot.spec.ever_started = True
        except EngineFailure as e:
            slot.needs_restart = True
            if abort is not None and abort.is_set():
                raise Aborted() from e  # the referee itself killed the engine while stopping
            if not slot.spec.ever_started:
                raise NeverStarted(f"engine {slot.spec.name} ('{slot.spec.cmd}') could not be started: "
                                   f"{e.kind}: {e.detail}") from e
            slot.consecutive_start_failures += 1
            return finish(e.kind, offender=role, reason=f"{slot.spec.name} before the game: {e.detail}")

    clocks = {r: (slots[r].spec.tc.base_ms if slots[r].spec.tc.kind == "clock" else None)
              for r in ("A", "B")}
    incs = {r: slots[r].spec.tc.inc_ms for r in ("A", "B")}
    margin = settings.margin_ms

    while True:
        if abort is not None and abort.is_set():
            raise Aborted()
        mover = role_of[board.side_to_move()]
        slot = slots[mover]
        tc = slot.spec.tc
        name = slot.spec.name
        go, allowed_ms = go_command(tc, clocks, incs, mover, first, second)
        pos = "position startpos" + (" moves " + " ".join(str(m) for m in board.moves) if board.moves else "")
        soft = (allowed_ms + margin) / 1000.0 if allowed_ms is not None else None
        try:
            res = run_search(slot.proc, pos, go, soft, settings.grace_ms / 1000.0,
                             settings.move_timeout, abort)
        except EngineFailure as e:
            slot.needs_restart = True
            if abort is not None and abort.is_set():
                raise Aborted() from e  # the referee itself killed the engine while stopping
            return finish(e.kind, offender=mover, reason=f"{name} at ply {board.ply + 1}: {e.detail}")
        elapsed_ms = res.elapsed * 1000.0
        entry = {"ply": board.ply + 1, "by": mover, "move": res.move, "time_ms": round(elapsed_ms, 1),
                 "depth": res.depth, "score": res.score}
        plies.append(entry)
        if allowed_ms is not None and elapsed_ms > allowed_ms + margin:
            what = "movetime" if tc.kind == "movetime" else "clock"
            return finish("time_forfeit", offender=mover,
                          reason=f"{name} used {elapsed_ms:.0f} ms with {allowed_ms:.0f} ms on its {what}"
                                 f" (margin {margin:g} ms)" + (", replied only after 'stop'" if res.stop_sent else ""))
        if tc.kind == "clock":
            clocks[mover] = max(0.0, clocks[mover] - elapsed_ms) + incs[mover]
            entry["clock_ms"] = round(clocks[mover], 1)
        try:
            col = board.parse_move(res.move)
        except IllegalMove as e:
            return finish("illegal_move", offender=mover,
                          reason=f"{name} at ply {board.ply + 1}: {e} (position: {board.move_string() or 'startpos'})")
        outcome = board.play(col)
        if outcome == "win":
            return finish("win", winner=mover, reason=f"{name} made four in a row ({board.win_direction})")
        if outcome == "draw":
            return finish("draw", reason="board full")


# ---------------------------------------------------------------------------
# Openings and schedule
# ---------------------------------------------------------------------------


def load_openings(path: str | None, width: int, height: int) -> list[str]:
    if path is None:
        return [""]
    out = []
    with open(path, encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            try:
                moves = parse_move_list(line)
                board = board_from_moves(moves, width, height)
            except (IllegalMove, ValueError) as e:
                raise ValueError(f"{path}:{lineno}: bad opening '{line}': {e}") from e
            if board.is_over():
                raise ValueError(f"{path}:{lineno}: opening '{line}' already ends the game")
            out.append("".join(str(m) for m in moves))
    if not out:
        raise ValueError(f"{path}: no openings in file")
    return out


class Schedule:
    """Game g uses opening of pair g//2; openings repeat in rounds (file order or seeded shuffle)."""

    def __init__(self, openings: list[str], seed: int | None):
        self.openings = openings
        self.seed = seed
        self._rounds: dict[int, list[str]] = {}

    def opening(self, game: int) -> str:
        pair = game // 2
        rnd, pos = divmod(pair, len(self.openings))
        order = self._rounds.get(rnd)
        if order is None:
            order = list(self.openings)
            if self.seed is not None:
                random.Random(f"vier-referee:{self.seed}:{rnd}").shuffle(order)
            self._rounds[rnd] = order
        return order[pos]


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


def summarize(records: dict) -> dict:
    """W/D/L from A's view, pentanomial over complete pairs, terminations."""
    w = d = l = 0
    terms: dict[str, int] = {}
    for rec in records.values():
        s = rec["score_a"]
        if s == 1.0:
            w += 1
        elif s == 0.0:
            l += 1
        else:
            d += 1
        terms[rec["termination"]] = terms.get(rec["termination"], 0) + 1
    penta = [0, 0, 0, 0, 0]
    for g, rec in records.items():
        if g % 2 == 0 and g + 1 in records:
            total = rec["score_a"] + records[g + 1]["score_a"]
            penta[int(round(total * 2))] += 1
    return {"wins": w, "draws": d, "losses": l, "penta": penta, "terminations": terms}


def fmt_elo(value):
    if value is None:
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.1f}"


def report(records: dict, names: dict, sprt: Sprt | None, sprt_state: dict | None) -> str:
    s = summarize(records)
    tri = trinomial_stats(s["wins"], s["draws"], s["losses"])
    pen = pentanomial_stats(s["penta"])
    n = tri["games"]
    out = [f"Match {names['A']} (A) vs {names['B']} (B): {n} games, results from {names['A']}'s view"]
    if n == 0:
        out.append("No games finished.")
        return "\n".join(out)
    out.append(f"  W/D/L: {s['wins']} / {s['draws']} / {s['losses']}   "
               f"score {100 * tri['score']:.1f}%   draw ratio {100 * tri['draw_ratio']:.1f}%")

    def elo_line(label, st):
        if st.get("elo") is None:
            return f"  Elo ({label}): n/a"
        err = st["elo_error"]
        if err is None:
            return f"  Elo ({label}): {fmt_elo(st['elo'])} +/- n/a (no spread in the results yet)"
        err_txt = "inf" if math.isinf(err) or math.isnan(err) else f"{err:.1f}"
        return (f"  Elo ({label}): {fmt_elo(st['elo'])} +/- {err_txt} "
                f"(95% interval {fmt_elo(st['elo_low'])} .. {fmt_elo(st['elo_high'])})")

    if pen["pairs"]:
        out.append(elo_line(f"pentanomial, {pen['pairs']} pairs", pen))
    out.append(elo_line("trinomial", tri))
    out.append(f"  LOS: {100 * tri['los']:.1f}%")
    p = s["penta"]
    out.append(f"  Pentanomial [0, 0.5, 1, 1.5, 2] (pair score of A): {p}")
    out.append("  Terminations: " + ", ".join(f"{k} {v}" for k, v in sorted(s["terminations"].items())))
    if sprt is not None and sprt_state is not None:
        verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "no decision yet"}[sprt_state["decision"]]
        out.append(f"  SPRT ({sprt.describe()}; model: {SPRT_MODEL}):")
        out.append(f"    LLR {sprt_state['llr']:.3f}  bounds [{sprt_state['lower']:.3f}, "
                   f"{sprt_state['upper']:.3f}]  -> {verdict}")
    return "\n".join(out)


def read_results(path: str):
    """(header or None, {game index: record}, number of unreadable lines)."""
    header, games, bad = None, {}, 0
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            raw = raw.strip()
            if not raw:
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError:
                bad += 1
                continue
            if obj.get("type") == "match" and header is None:
                header = obj
            elif obj.get("type") == "game" and isinstance(obj.get("game"), int) \
                    and obj.get("score_a") in (0.0, 0.5, 1.0):
                games[obj["game"]] = obj
            else:
                bad += 1
    return header, games, bad


# ---------------------------------------------------------------------------
# Match
# ---------------------------------------------------------------------------


class Match:
    def __init__(self, specs: dict, settings: Settings, schedule: Schedule, games: int | None,
                 sprt: Sprt | None, max_games: int | None, concurrency: int, recover: bool,
                 out_path: str | None, done: dict, header: dict, progress=sys.stderr):
        self.specs, self.settings, self.schedule = specs, settings, schedule
        self.games, self.sprt, self.max_games = games, sprt, max_games
        self.concurrency, self.recover = max(1, concurrency), recover
        self.records = dict(done)
        self.running: set[int] = set()
        self.next_game = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.fatal: str | None = None
        self.progress = progress
        self.tty = hasattr(progress, "isatty") and progress.isatty()
        self.out = None
        self.slots_in_use: list[dict] = []
        self.sprt_state = self.sprt.state(summarize(self.records)["penta"]) if self.sprt else None
        if out_path:
            new = not os.path.exists(out_path) or os.path.getsize(out_path) == 0
            self.out = open(out_path, "a", encoding="utf-8")
            if not new:
                with open(out_path, "rb") as fh:
                    fh.seek(-1, os.SEEK_END)
                    if fh.read(1) != b"\n":  # a line cut off when a previous run was killed
                        self.out.write("\n")
            if new:
                self._write(header)

    def limit(self):
        return self.games if self.sprt is None else self.max_games

    def _write(self, obj):
        if self.out is None:
            return
        self.out.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self.out.flush()
        try:
            os.fsync(self.out.fileno())
        except OSError:
            pass

    def take_game(self):
        with self.lock:
            if self.stop.is_set():
                return None
            if self.sprt_state and self.sprt_state["decision"]:
                return None
            limit = self.limit()
            while self.next_game in self.records or self.next_game in self.running:
                self.next_game += 1
            if limit is not None and self.next_game >= limit:
                return None
            g = self.next_game
            self.running.add(g)
            self.next_game += 1
            return g

    def finished(self, rec: dict):
        with self.lock:
            g = rec["game"]
            self.running.discard(g)
            self.records[g] = rec
            self._write(rec)
            if self.sprt:
                self.sprt_state = self.sprt.state(summarize(self.records)["penta"])
                if self.sprt_state["decision"]:
                    self.stop.set()
            self._progress(rec)

    def _progress(self, rec):
        s = summarize(self.records)
        tri = trinomial_stats(s["wins"], s["draws"], s["losses"])
        limit = self.limit()
        n = tri["games"]
        head = f"[{n}/{limit}]" if limit is not None else f"[{n}]"
        last = f"game {rec['game']}: {rec['result']} {rec['termination']}"
        line = (f"{head} {self.specs['A'].name} vs {self.specs['B'].name}: "
                f"+{s['wins']} ={s['draws']} -{s['losses']}  score {100 * tri['score']:.1f}%  "
                f"elo {fmt_elo(tri['elo'])}")
        if tri["elo_error"] is not None and not math.isinf(tri["elo_error"]) and not math.isnan(tri["elo_error"]):
            line += f" +/- {tri['elo_error']:.0f}"
        if self.sprt_state:
            line += f"  LLR {self.sprt_state['llr']:.2f} [{self.sprt_state['lower']:.2f}, {self.sprt_state['upper']:.2f}]"
        line += f"  ({last})"
        if self.tty:
            self.progress.write("\r\x1b[K" + line)
        else:
            self.progress.write(line + "\n")
        self.progress.flush()

    def _fail(self, msg):
        with self.lock:
            if self.fatal is None:
                self.fatal = msg
            self.stop.set()

    def worker(self, wid: int):
        slots = {r: EngineSlot(r, self.specs[r], self.settings, wid) for r in ("A", "B")}
        with self.lock:
            self.slots_in_use.append(slots)
        try:
            while not self.stop.is_set():
                g = self.take_game()
                if g is None:
                    break
                try:
                    rec = play_game(g, self.schedule.opening(g), slots, self.settings, self.stop)
                except Aborted:
                    with self.lock:
                        self.running.discard(g)
                    break
                except NeverStarted as e:
                    with self.lock:
                        self.running.discard(g)
                    self._fail(str(e))
                    break
                self.finished(rec)
                if rec["termination"] in ("crash", "stall"):
                    offender = slots[rec["offender"]]
                    offender.needs_restart = True
                    if offender.proc is not None:
                        offender.proc.kill()
                    if not self.recover:
                        self._fail(f"engine {offender.spec.name} failed in game {g} "
                                   f"({rec['termination']}: {rec['reason']}); stopping "
                                   f"(use --recover to restart crashed engines and carry on)")
                    elif offender.consecutive_start_failures >= 3:
                        self._fail(f"engine {offender.spec.name} failed to start 3 times in a row; "
                                   f"giving up ({rec['reason']})")
        except Exception as e:  # a bug in the referee: stop cleanly, keep results
            self._fail(f"internal error in worker {wid}: {e.__class__.__name__}: {e}")
            raise
        finally:
            for s in slots.values():
                if self.stop.is_set() and s.proc is not None:
                    s.proc.kill()
                s.close()

    def run(self) -> int:
        threads = [threading.Thread(target=self.worker, args=(i,), daemon=True)
                   for i in range(self.concurrency)]
        for t in threads:
            t.start()
        interrupted = False
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.2)
        except KeyboardInterrupt:
            interrupted = True
            self._fail("interrupted; games in progress were abandoned")
            for slots in list(self.slots_in_use):
                for s in slots.values():
                    if s.proc is not None:
                        s.proc.kill()
            for t in threads:
                t.join(5)
        if self.tty:
            self.progress.write("\n")
        if self.out:
            self.out.close()
        names = {r: self.specs[r].name for r in ("A", "B")}
        print(report(self.records, names, self.sprt, self.sprt_state))
        sys.stdout.flush()
        if self.fatal:
            print(f"referee: match stopped: {self.fatal}", file=sys.stderr)
            return 130 if interrupted else 1
        return 0


# ---------------------------------------------------------------------------
# Compliance checker
# ---------------------------------------------------------------------------


class Compliance:
    def __init__(self, cmd: str, settings: Settings, out=sys.stdout):
        self.cmd, self.settings, self.out = cmd, settings, out
        self.results: list[tuple[str, bool, str]] = []
        self.eng: EngineProcess | None = None

    def record(self, name, ok, detail=""):
        self.results.append((name, ok, detail))
        self.out.write(f"{'PASS' if ok else 'FAIL'}  {name}" + (f"  -- {detail}" if detail else "") + "\n")
        self.out.flush()

    def fresh(self) -> bool:
        if self.eng is not None and self.eng.alive():
            return True
        if self.eng is not None:
            self.eng.kill()
        self.eng = EngineProcess(self.cmd, "engine", self.settings.log)
        try:
            self.eng.start()
            self.eng.handshake(self.settings.startup_timeout, self.settings.isready_timeout, [])
            return True
        except EngineFailure as e:
            self.record("restart engine for the next checks", False, e.detail)
            return False

    def sync(self) -> list[str]:
        """isready/readyok; returns the lines that came before readyok."""
        self.eng.send("isready")
        return self.eng.wait_for("readyok", self.settings.isready_timeout, "'isready'")[:-1]

    def _send(self, line):
        self.eng.send(line)
        return True

    def search(self, position: str, go: str, timeout: float, board: Board | None):
        """Run one search; returns (move, info) and checks exactly one bestmove + legality."""
        self.eng.drain()
        res = run_search(self.eng, position, go, None, 0.0, timeout)
        extra = [l for l in self.sync() if l.split()[:1] == ["bestmove"]]
        problems = []
        if extra:
            problems.append(f"{len(extra)} extra bestmove line(s) after the first")
        if board is not None:
            try:
                board.parse_move(res.move)
            except IllegalMove as e:
                problems.append(f"illegal bestmove: {e}")
        return res, problems

    def check(self, name, fn):
        if not self.fresh():
            self.record(name, False, "engine could not be (re)started")
            return
        try:
            ok, detail = fn()
        except EngineFailure as e:
            ok, detail = False, f"{e.kind}: {e.detail}"
            if self.eng is not None:
                self.eng.kill()
        self.record(name, ok, detail)

    def expect_move(self, position, go, board, want=None, avoid=None, timeout=10.0):
        res, problems = self.search(position, go, timeout, board)
        if want is not None and res.move != str(want):
            problems.append(f"expected bestmove {want}, got '{res.move}'")
        if avoid is not None and res.move == str(avoid):
            problems.append(f"bestmove {avoid} is not allowed here")
        return (not problems), ("; ".join(problems) if problems else f"bestmove {res.move}")

    def expect_error(self, command):
        self.eng.drain()
        self.eng.send(command)
        lines = self.sync()
        errs = [l for l in lines if l.startswith("info string error")]
        if not errs:
            return False, "no 'info string error ...' line" + (f" (got: {lines[:3]})" if lines else "")
        if not self.eng.alive():
            return False, "engine died"
        # still usable afterwards?
        ok, detail = self.expect_move("position startpos moves 4", "go depth 2", board_from_moves([4]))
        if not ok:
            return False, f"reported error but then failed a normal search: {detail}"
        return True, errs[0]

    def run(self) -> int:
        s = self.settings
        eng = EngineProcess(self.cmd, "engine", s.log)
        self.eng = eng
        try:
            eng.start()
            eng.send("uci")
            lines = eng.wait_for("uciok", s.startup_timeout, "'uci'")
            names = [l for l in lines if l.startswith("id name")]
            self.record("uci -> uciok", True, names[0] if names else "no 'id name' line (allowed)")
        except EngineFailure as e:
            self.record("uci -> uciok", False, f"{e.kind}: {e.detail}")
            eng.kill()
            return self.finish()
        self.check("isready -> readyok", lambda: (self.sync() is not None, ""))
        self.check("ucinewgame + isready", lambda: (self._send("ucinewgame") and self.sync() is not None, ""))
        B = board_from_moves
        wins_in_one = [4, 1, 4, 1, 4, 1]
        self.check("position startpos (no moves) + go depth 2",
                   lambda: self.expect_move("position startpos", "go depth 2", Board()))
        self.check("position startpos moves 4 4 5 3 (separate digits)",
                   lambda: self.expect_move("position startpos moves 4 4 5 3", "go depth 2", B([4, 4, 5, 3])))
        self.check("position startpos moves 4453 (one digit run)",
                   lambda: self.expect_move("position startpos moves 4453", "go depth 2", B([4, 4, 5, 3])))
        self.check("moves 4 1 4 1 4 1: takes the win in one (4)",
                   lambda: self.expect_move("position startpos moves 4 1 4 1 4 1", "go movetime 200",
                                            B(wins_in_one), want=4))
        self.check("moves 414141 (digit run): takes the win in one (4)",
                   lambda: self.expect_move("position startpos moves 414141", "go movetime 200",
                                            B(wins_in_one), want=4))
        self.check("moves 4 4 4 4 4 4: does not play the full column 4",
                   lambda: self.expect_move("position startpos moves 4 4 4 4 4 4", "go depth 2",
                                            B([4] * 6), avoid=4))
        self.check("moves 444444 (digit run): does not play the full column 4",
                   lambda: self.expect_move("position startpos moves 444444", "go depth 2",
                                            B([4] * 6), avoid=4))
        self.check("position fen 7/7/7/7/3o3/2oxx2 x (after 4453)",
                   lambda: self.expect_move("position fen 7/7/7/7/3o3/2oxx2 x", "go depth 2", B([4, 4, 5, 3])))
        self.check("position fen with a win in one for x (4)",
                   lambda: self.expect_move("position fen 7/7/7/o2x3/o2x3/o2x3 x", "go movetime 200",
                                            B(wins_in_one), want=4))
        # o to move: o wins with 1; if the engine ignored the side to move it would play 5 for x.
        side_board = B([4, 1, 4, 1, 6, 1, 7])
        self.check("position fen ... o: side to move o, wins with 1",
                   lambda: self.expect_move("position fen 7/7/7/o6/o2x3/o2x1xx o", "go movetime 200",
                                            side_board, want=1))
        self.check("position fen <empty board> x moves 4 1 4 1 4 1: wins with 4",
                   lambda: self.expect_move("position fen 7/7/7/7/7/7 x moves 4 1 4 1 4 1", "go movetime 200",
                                            B(wins_in_one), want=4))
        self.check("position fen ... o moves 1: x wins with 4",
                   lambda: self.expect_move("position fen 7/7/7/3x3/o2x3/o2x3 o moves 1", "go movetime 200",
                                            B(wins_in_one), want=4))
        for go in ("go wtime 2000 btime 2000 winc 10 binc 10",
                   "go btime 2000 wtime 2000 binc 10 winc 10",
                   "go winc 10 binc 10 btime 2000 wtime 2000",
                   "go movetime 100", "go depth 3", "go nodes 10000",
                   "go depth 3 movetime 500", "go movetime 500 depth 3"):
            self.check(f"position startpos moves 4 4 + {go}",
                       lambda go=go: self.expect_move("position startpos moves 4 4", go, B([4, 4])))
        self.check("go infinite, then stop -> exactly one bestmove", self._infinite)
        for bad, why in (("position startpos moves 4444444", "column 4 full"),
                         ("position startpos moves 8", "column out of range"),
                         ("position startpos moves 0", "column 0"),
                         ("position startpos moves 4a", "not a digit"),
                         ("position startpos moves 4 1 4 1 4 1 4 1", "moves after the game is won"),
                         ("position fen 7/7 x", "fen with too few rows"),
                         ("position fen 8/7/7/7/7/7 x", "fen row too wide")):
            self.check(f"bad input '{bad}' ({why}) -> info string error, no crash",
                       lambda bad=bad: self.expect_error(bad))
        self.check("setoption Width 5 / Height 4: plays on a 5x4 board", self._small_board)
        self.check("quit -> process exits", self._quit)
        return self.finish()

    def _infinite(self):
        self.eng.drain()
        self.eng.send("position startpos")
        self.eng.send("go infinite")
        early = self.eng.read(time.monotonic() + 0.5)
        while early is not None and early[1].split()[:1] != ["bestmove"]:
            early = self.eng.read(time.monotonic() + 0.5)
        if early is not None:
            self.eng.send("stop")
            self.sync()
            return False, "bestmove before 'stop' during 'go infinite'"
        self.eng.send("stop")
        self.eng.wait_for("bestmove", 5.0, "'stop'")
        extra = [l for l in self.sync() if l.split()[:1] == ["bestmove"]]
        if extra:
            return False, f"{len(extra)} extra bestmove line(s) after stop"
        return True, ""

    def _small_board(self):
        self.eng.send("setoption name Width value 5")
        self.eng.send("setoption name Height value 4")
        self.sync()
        self.eng.send("ucinewgame")
        self.sync()
        problems = []
        ok, detail = self.expect_move("position startpos moves 1 1 1", "go depth 2", board_from_moves([1, 1, 1], 5, 4))
        if not ok:
            problems.append(detail)
        ok, detail = self.expect_move("position startpos moves 1 1 1 1", "go depth 2",
                                      board_from_moves([1, 1, 1, 1], 5, 4), avoid=1)
        if not ok:
            problems.append(detail)
        ok, detail = self.expect_error("position startpos moves 11111")
        if not ok:
            problems.append("5 stones in a column of height 4: " + detail)
        ok, detail = self.expect_error("position startpos moves 6")
        if not ok:
            problems.append("column 6 on a 5-wide board: " + detail)
        self.eng.send("setoption name Width value 7")
        self.eng.send("setoption name Height value 6")
        self.sync()
        return (not problems), "; ".join(problems)

    def _quit(self):
        self.eng.send("quit")
        try:
            self.eng.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.eng.kill()
            return False, "still running 3 s after 'quit'"
        self.eng.kill()
        self.eng = None
        return True, ""

    def finish(self) -> int:
        if self.eng is not None:
            self.eng.quit()
        failed = [r for r in self.results if not r[1]]
        self.out.write(f"\n{len(self.results) - len(failed)} passed, {len(failed)} failed\n")
        self.out.flush()
        return 1 if failed else 0


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

HELP_EPILOG = """\
engine options (repeat the group once per engine; exactly two engines):
  --engine CMD        command line of an engine (split like a shell would)
  --name N            name for the engine just given (default: program name)
  --option Name=Value send 'setoption name Name value Value' to that engine
  --tc TC             time control for that engine only; a --tc before the
                      first --engine applies to both engines

time controls (TC):
  movetime=MS         fixed time per move ('go movetime MS'); over MS + margin
                      is a time forfeit
  BASE+INC            BASE seconds per game plus INC seconds per move, e.g.
                      10+0.1 ('go wtime .. btime .. winc .. binc ..'); the
                      referee runs the clocks, running out (beyond margin) is
                      a time forfeit
  depth=N, nodes=N    'go depth N' / 'go nodes N'; a hard watchdog
                      (--move-timeout) declares a stall if no bestmove comes

how games end (field "termination" in the results):
  win           four in a row (any direction), detected by the referee
  draw          full board
  time_forfeit  the engine answered after its time (+ margin) had run out
  illegal_move  non-digit, out-of-range or full-column move
  crash         the engine exited or closed its pipes (also: failed to start)
  stall         no reply: no bestmove within the watchdog or within --grace
                after 'stop', no uciok / readyok within their timeouts
  The offender loses.  After a crash or stall the match stops (exit 1,
  results kept) unless --recover is given, which restarts the engine.

results file (--out / --resume): JSON lines; first a {"type":"match"} header,
then one {"type":"game"} line per finished game, flushed at once, with
opening, colours (first/second = A or B), engine names, moves, per ply the
time used and the engine's last depth/score, termination, reason and result
("1-0" = first player won; score_a = points of engine A).

summary: W/D/L from engine A's view (the first --engine), score, Elo with a
95% interval (pentanomial over pairs and trinomial over games), LOS, draw
ratio, pentanomial pair counts and, with --sprt, the LLR (logistic Elo,
GSPRT approximation over pentanomial pairs) with its bounds.

examples:
  referee.py --engine target/release/vier --name new \\
             --engine old/vier --name old --tc movetime=100 --games 200 \\
             --openings tools/openings.txt --concurrency 2 --out new-old.jsonl
  referee.py --tc 10+0.1 --engine ./a --engine ./b \\
             --sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 --max-games 20000 \\
             --openings tools/openings.txt --seed 1 --out sprt.jsonl
  referee.py --resume sprt.jsonl --tc 10+0.1 --engine ./a --engine ./b \\
             --sprt elo0=0 elo1=10 --openings tools/openings.txt --seed 1
  referee.py --compliance target/release/vier

exit status: 0 finished, 1 match stopped by a failing engine, 2 usage
error, 130 interrupted; --compliance: 0 all checks passed, 1 otherwise.
"""

ENGINE_SCOPED = ("--engine", "--name", "--option", "--tc")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="referee.py",
        description="Play Connect Four engine-versus-engine matches (UCI-style protocol)\n"
                    "with the referee as the only arbiter of rules and time, or check one\n"
                    "engine's protocol compliance (--compliance CMD).",
        epilog=HELP_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("engines (see below: these bind to the preceding --engine)")
    g.add_argument("--engine", metavar="CMD", action="append", help="engine command (give two)")
    g.add_argument("--name", metavar="N", action="append", help="name of the preceding engine")
    g.add_argument("--option", metavar="Name=Value", action="append", help="UCI option for the preceding engine")
    g.add_argument("--tc", metavar="TC", action="append",
                   help="time control: movetime=MS | BASE+INC | depth=N | nodes=N")
    m = p.add_argument_group("match")
    m.add_argument("--games", type=int, metavar="N", help="number of games (pairs of colour-swapped games)")
    m.add_argument("--sprt", nargs="+", metavar="K=V",
                   help="run an SPRT instead: elo0=0 elo1=10 alpha=0.05 beta=0.05 (logistic Elo)")
    m.add_argument("--max-games", type=int, metavar="N", help="with --sprt: stop after N games at most")
    m.add_argument("--openings", metavar="FILE",
                   help="opening file: one move string per line ('4453' or '4 4 5 3'), '#' comments; "
                        "each opening is played twice with colours swapped (default: empty board)")
    m.add_argument("--seed", type=int, metavar="S",
                   help="play openings in an order shuffled with seed S (default: file order)")
    m.add_argument("--size", default="7x6", metavar="WxH",
                   help="board size (default 7x6; others sent as setoption Width/Height)")
    m.add_argument("--concurrency", type=int, default=1, metavar="K",
                   help="games played at once, each with its own engine processes (default 1)")
    m.add_argument("--out", metavar="FILE.jsonl", help="write results (JSON lines) to FILE; must not exist yet")
    m.add_argument("--resume", metavar="FILE.jsonl",
                   help="continue the match recorded in FILE: play only its missing games, appending to it")
    m.add_argument("--recover", action="store_true",
                   help="restart an engine that crashed or stalled and carry on (default: stop the match)")
    m.add_argument("--log", metavar="FILE", help="append all protocol traffic to FILE (debugging)")
    t = p.add_argument_group("timing")
    t.add_argument("--margin", type=float, default=50.0, metavar="MS",
                   help="tolerance in ms over movetime / clock for process latency (default 50)")
    t.add_argument("--grace", type=float, default=1000.0, metavar="MS",
                   help="after time is up the referee sends 'stop'; no bestmove within this many ms "
                        "more is a stall (default 1000)")
    t.add_argument("--startup-timeout", type=float, default=10.0, metavar="SEC",
                   help="seconds to wait for 'uciok' after 'uci' (default 10)")
    t.add_argument("--isready-timeout", type=float, default=5.0, metavar="SEC",
                   help="seconds to wait for 'readyok' after 'isready' (default 5)")
    t.add_argument("--move-timeout", type=float, default=60.0, metavar="SEC",
                   help="watchdog for depth=/nodes= searches: seconds without bestmove "
                        "before a stall (default 60)")
    c = p.add_argument_group("compliance")
    c.add_argument("--compliance", metavar="CMD",
                   help="check one engine against the protocol, print PASS/FAIL per check")
    return p


def split_engine_args(argv, parser):
    """Pull the engine-scoped options out of argv, in order; returns (engines, global_tc, rest)."""
    engines, global_tc, rest = [], None, []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            rest.extend(argv[i:])
            break
        key, eq, val = tok.partition("=") if tok.startswith("--") else (tok, "", "")
        if key in ENGINE_SCOPED:
            if eq:
                value, i = val, i + 1
            else:
                if i + 1 >= len(argv):
                    parser.error(f"{key} needs a value")
                value, i = argv[i + 1], i + 2
            if key == "--engine":
                engines.append({"cmd": value, "name": None, "options": [], "tc": None})
            elif not engines:
                if key == "--tc":
                    if global_tc is not None:
                        parser.error("two --tc before the first --engine")
                    global_tc = value
                else:
                    parser.error(f"{key} must follow the --engine it belongs to")
            elif key == "--name":
                engines[-1]["name"] = value
            elif key == "--option":
                engines[-1]["options"].append(value)
            else:
                if engines[-1]["tc"] is not None:
                    parser.error("two --tc for the same engine")
                engines[-1]["tc"] = value
        else:
            rest.append(tok)
            i += 1
    return engines, global_tc, rest


def parse_size(text):
    m = re.fullmatch(r"(\d+)x(\d+)", text.strip().lower())
    if not m:
        raise ValueError(f"bad --size '{text}' (want WxH, e.g. 7x6)")
    w, h = int(m.group(1)), int(m.group(2))
    Board(w, h)  # validates
    return w, h


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    engines, global_tc, rest = split_engine_args(argv, parser)
    args = parser.parse_args(rest)
    try:
        width, height = parse_size(args.size)
    except ValueError as e:
        parser.error(str(e))
    log = ProtocolLog(args.log)
    settings = Settings(width, height, args.margin, args.grace, args.startup_timeout,
                        args.isready_timeout, args.move_timeout, log)

    if args.compliance:
        if engines:
            parser.error("--compliance takes the engine command itself; no --engine")
        return Compliance(args.compliance, settings).run()

    if len(engines) != 2:
        parser.error(f"need exactly two --engine options (got {len(engines)})")
    if (args.games is None) == (args.sprt is None):
        parser.error("give either --games N or --sprt ...")
    if args.games is not None and args.games <= 0:
        parser.error("--games must be positive")
    if args.max_games is not None and args.sprt is None:
        parser.error("--max-games only goes with --sprt")
    if args.concurrency < 1:
        parser.error("--concurrency must be at least 1")
    sprt = None
    if args.sprt is not None:
        try:
            sprt = Sprt.parse(args.sprt)
        except ValueError as e:
            parser.error(str(e))

    specs = {}
    for role, e in zip(("A", "B"), engines):
        tc_text = e["tc"] or global_tc
        if tc_text is None:
            parser.error(f"engine {role} ('{e['cmd']}') has no time control: put --tc before the first "
                         f"--engine for both, or after each --engine for that engine")
        try:
            tc = TimeControl.parse(tc_text)
            argv0 = shlex.split(e["cmd"])
        except ValueError as err:
            parser.error(str(err))
        if not argv0:
            parser.error("empty --engine command")
        name = e["name"] or os.path.basename(argv0[0])
        try:
            specs[role] = EngineSpec(e["cmd"], name, e["options"], tc)
        except ValueError as err:
            parser.error(str(err))
    if specs["A"].name == specs["B"].name:
        specs["A"].name += "#1"
        specs["B"].name += "#2"

    try:
        openings = load_openings(args.openings, width, height)
    except (OSError, ValueError) as e:
        parser.error(str(e))

    header = {"type": "match", "version": 1, "started": now_iso(), "size": f"{width}x{height}",
              "engines": {r: specs[r].to_json() for r in ("A", "B")},
              "openings": openings, "seed": args.seed, "games": args.games,
              "sprt": ({"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
                        "max_games": args.max_games, "model": SPRT_MODEL} if sprt else None),
              "margin_ms": args.margin, "argv": argv}
    done = {}
    out_path = args.out
    if args.resume:
        if args.out and os.path.abspath(args.out) != os.path.abspath(args.resume):
            parser.error("--resume appends to its own file; do not give a different --out")
        out_path = args.resume
        if not os.path.exists(args.resume):
            parser.error(f"--resume: {args.resume} does not exist")
        old, done, bad = read_results(args.resume)
        if bad:
            print(f"referee: {args.resume}: ignored {bad} unreadable line(s) "
                  f"(e.g. cut off when the referee was killed)", file=sys.stderr)
        if old is not None:
            diffs = [k for k in ("size", "openings", "seed") if old.get(k) != header[k]]
            if diffs:
                parser.error(f"--resume: the schedule differs from {args.resume} in: {', '.join(diffs)} "
                             f"(give the same --size / --openings / --seed)")
            for r in ("A", "B"):
                if old["engines"][r]["name"] != specs[r].name or old["engines"][r]["cmd"] != specs[r].cmd:
                    print(f"referee: warning: engine {r} differs from the one in {args.resume}",
                          file=sys.stderr)
        elif done:
            print(f"referee: warning: {args.resume} has no match header", file=sys.stderr)
        bad_size = [g for g, r in done.items() if r.get("size") != header["size"]]
        if bad_size:
            parser.error(f"--resume: {len(bad_size)} recorded games have another board size")
        print(f"referee: resuming {args.resume}: {len(done)} game(s) already played", file=sys.stderr)
    elif out_path and os.path.exists(out_path) and os.path.getsize(out_path) > 0:
        parser.error(f"--out {out_path} already exists; use --resume {out_path} to continue it, "
                     f"or choose another file")

    try:
        match = Match(specs, settings, Schedule(openings, args.seed), args.games, sprt, args.max_games,
                      args.concurrency, args.recover, out_path, done, header)
    except OSError as e:
        parser.error(f"cannot write results: {e}")

    def on_term(signum, frame):
        raise KeyboardInterrupt()

    try:
        signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # not in the main thread (e.g. called from tests)
        pass
    return match.run()


if __name__ == "__main__":
    sys.exit(main())
