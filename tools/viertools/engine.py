"""One engine process spoken to over its UCI-style pipes: start, handshake, timed line reads,
searches with the referee's time limits, and the parsing of `info` lines."""

from __future__ import annotations

import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time

# How long an engine that has exited may still deliver lines already in its pipe (read by the
# reader thread in microseconds) before it is a crash, when no end of output comes.
EXIT_GRACE = 0.25


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
        self.exited_at: float | None = None
        self.id_name: str | None = None
        self.options: list[str] = []

    # -- process management --
    def start(self):
        argv = shlex.split(self.cmd) if isinstance(self.cmd, str) else list(self.cmd)
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
        # The whole process group, also when the engine itself has exited: a process it started
        # may live on in its group (holding its output pipe, or a core). The group is the
        # engine's own (start_new_session), so nothing else is in it.
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass
        if p.poll() is None:
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
    def send(self, line: str) -> float:
        """Write one line; returns the monotonic time just before the write."""
        self.log.write(self.label, ">", line)
        t = time.monotonic()
        if self.proc is None or self.proc.stdin is None:
            raise EngineFailure("crash", "engine is not running")
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError) as e:
            raise EngineFailure("crash", f"engine stopped reading input ({e.__class__.__name__}); "
                                + self.exit_detail()) from e
        return t

    def read(self, deadline: float, abort: threading.Event | None = None):
        """Next (timestamp, line); None on timeout; raises EngineFailure('crash') at EOF, or when
        the engine has exited and said nothing more for EXIT_GRACE seconds (a process it left
        behind may hold its output open, so that no end of output ever comes)."""
        if self.eof:
            raise EngineFailure("crash", "engine disconnected: " + self.exit_detail())
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if self.exited():
                    self.dead_with_open_output()
                return None
            if abort is not None and abort.is_set():
                raise Aborted()
            try:
                t, line = self.lines.get(timeout=min(remaining, 0.05))
            except queue.Empty:
                # what it wrote before it exited is read within the grace
                if self.exited() and time.monotonic() - self.exited_at >= EXIT_GRACE:
                    self.dead_with_open_output()
                continue
            if line is None:
                self.eof = True
                raise EngineFailure("crash", "engine disconnected: " + self.exit_detail())
            self.log.write(self.label, "<", line)
            return t, line

    def exited(self) -> bool:
        """Whether the engine process has exited; notes when this was first seen."""
        if self.proc is None or self.proc.poll() is None:
            return False
        if self.exited_at is None:
            self.exited_at = time.monotonic()
        return True

    def dead_with_open_output(self):
        self.eof = True
        raise EngineFailure("crash", "engine disconnected: " + self.exit_detail()
                            + " (a process it started still holds its output)")

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
        return self.read_until(token, timeout, what, abort)[1]

    def read_until(self, token: str, timeout: float, what: str, abort=None):
        """As wait_for, but returns (arrival time of the `token` line, lines)."""
        deadline = time.monotonic() + timeout
        got = []
        while True:
            item = self.read(deadline, abort)
            if item is None:
                raise EngineFailure("stall", f"no '{token}' within {timeout:g}s after {what}")
            got.append(item[1])
            if item[1].split()[:1] == [token]:
                return item[0], got

    def handshake(self, startup_timeout: float, isready_timeout: float,
                  setoptions: list[tuple[str, str]], abort=None):
        self.uci(startup_timeout, abort)
        for name, value in setoptions:
            self.setoption(name, value)
        self.isready(isready_timeout, abort)

    def uci(self, startup_timeout: float, abort=None):
        """`uci` up to `uciok`, keeping the engine's name and `option` lines."""
        self.send("uci")
        for line in self.wait_for("uciok", startup_timeout, "'uci'", abort):
            words = line.split()
            if words[:2] == ["id", "name"]:
                self.id_name = " ".join(words[2:])
            elif words[:1] == ["option"]:
                self.options.append(line)

    def setoption(self, name: str, value: str):
        self.send(f"setoption name {name} value {value}")

    def spin_allows(self, name: str, value: int) -> bool:
        """Whether the engine has the option `name` and its min/max (if given) admit `value`."""
        words = self.option(name)
        if words is None:
            return False
        bounds = dict(zip(words[::2], words[1::2]))
        try:
            return int(bounds.get("min", value)) <= value <= int(bounds.get("max", value))
        except ValueError:
            return True  # bounds it does not state as numbers: let the engine judge

    def option(self, name: str) -> list[str] | None:
        """The words after the name of the engine's option `name` (`type combo ... var cfour`),
        None if it has no such option."""
        for line in self.options:
            words = line.split()
            if "type" in words[2:] and words[2:words.index("type")] == [name]:
                return words[words.index("type"):]
        return None

    def isready(self, timeout: float, abort=None):
        self.send("isready")
        self.wait_for("readyok", timeout, "'isready'", abort)


class SearchResult:
    def __init__(self, move, elapsed, depth, score, stop_sent, lines, engine_ms=None):
        self.move, self.elapsed, self.depth, self.score = move, elapsed, depth, score
        self.engine_ms = engine_ms  # the search time the engine itself last reported
        self.stop_sent, self.lines = stop_sent, lines


INFO_INTS = ("depth", "seldepth", "nodes", "time")


def parse_info(line: str) -> dict:
    """The fields of one `info` line: depth, seldepth, nodes, time (ints), score ({"cp": X} or
    {"mate": N}), bound ("lower" or "upper" when the score is only a bound) and wdl ([w, d, l]);
    malformed values are left out.  `pv` and `string` end it."""
    words = line.split()
    out = {}
    i = 1
    while i < len(words):
        w = words[i]
        nxt = words[i + 1:i + 4]
        if w in INFO_INTS and nxt and re.fullmatch(r"-?\d+", nxt[0]):
            out[w] = int(nxt[0])
            i += 2
        elif w == "score" and len(nxt) >= 2 and nxt[0] in ("cp", "mate") \
                and re.fullmatch(r"[+-]?\d+", nxt[1]):
            out["score"] = {nxt[0]: int(nxt[1])}
            i += 3
        elif w in ("lowerbound", "upperbound"):
            out["bound"] = w[:5]
            i += 1
        elif w == "wdl" and len(nxt) == 3 and all(re.fullmatch(r"\d+", x) for x in nxt):
            out["wdl"] = [int(x) for x in nxt]
            i += 4
        elif w in ("pv", "string"):
            break
        else:
            i += 1
    return out


def is_proven(info: dict) -> bool:
    """Whether a parsed `info` line reports a proven value: a mate or a proven draw (`wdl 0 1000
    0`), not a bound."""
    if "bound" in info:
        return False
    return "mate" in info.get("score", {}) or info.get("wdl") == [0, 1000, 0]


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
    info = {"depth": None, "score": None, "time": None}
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
            info.update((k, v) for k, v in parse_info(line).items() if k in info)
        elif words[0] == "bestmove":
            move = words[1] if len(words) > 1 else ""
            return SearchResult(move, t - t0, info["depth"], info["score"], stop_sent, lines,
                                info["time"])
