"""One engine process spoken to over its UCI-style pipes: start, handshake, timed line reads,
searches with the referee's time limits, and the parsing of `info` lines."""

from __future__ import annotations

import os
import queue
import re
import select
import shlex
import signal
import subprocess
import sys
import threading
import time

# How long an engine that has exited may still deliver lines already in its pipe (read by the
# reader thread in microseconds) before it is a crash, when no end of output comes.
EXIT_GRACE = 0.25
# The bounds on an engine's output (issue 68: a line without an end took the referee to 3.7 GB,
# `info` lines without end under --tc depth=3 to 1.3 GB): a longer line, more lines or more
# bytes in one second are a crash. vier's longest line has a few hundred bytes, and it writes a
# few hundred lines in its fastest second.
MAX_LINE = 64 * 1024
MAX_LINES_PER_SECOND = 20_000
MAX_BYTES_PER_SECOND = 8 << 20
# Lines read but not yet taken: past this the reader waits (and the engine with its pipe full).
MAX_QUEUED = 256
# Lines one search or handshake keeps (the rest are read, looked at and dropped).
MAX_KEPT = 10_000
# How long the keeper (see keeper.py) has to end an engine and all it started.
KEEPER_GRACE = 5.0
KEEPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keeper.py")


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
    """One running engine: line-based pipes, a reader thread, monotonic timestamps.

    On POSIX systems the engine runs under a keeper (keeper.py), which ends with the engine
    every process it started, in whatever session (a subreaper on Linux): `proc` is the keeper,
    `pid` the engine. The reader thread owns the engine's output and never blocks anyone: it
    waits for data at most 50 ms at a time, so that `kill` only asks it to stop, and it closes
    the pipe itself (issue 68: `kill` blocked in closing a pipe the reader held, for as long
    as a stranger holding the pipe open lived)."""

    def __init__(self, cmd: str, label: str = "engine", log: ProtocolLog | None = None):
        self.cmd = cmd
        self.label = label
        self.log = log or ProtocolLog(None)
        self.proc: subprocess.Popen | None = None
        self.pid: int | None = None
        self.lines: queue.Queue = queue.Queue(MAX_QUEUED)
        self.stop_reading = threading.Event()
        self.eof = False
        self.exited_at: float | None = None
        self.id_name: str | None = None
        self.options: list[str] = []

    # -- process management --
    def start(self):
        argv = shlex.split(self.cmd) if isinstance(self.cmd, str) else list(self.cmd)
        if not argv:
            raise EngineFailure("crash", "empty engine command")
        kept = os.name == "posix"
        report = os.pipe() if kept else None
        try:
            self.proc = subprocess.Popen(
                [sys.executable, KEEPER, str(report[1]), *argv] if kept else argv,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, bufsize=1,
                encoding="utf-8", errors="replace", start_new_session=True,
                pass_fds=(report[1],) if kept else ())
        except OSError as e:
            raise EngineFailure("crash", f"cannot start '{self.cmd}': {e}") from e
        finally:
            if kept:
                os.close(report[1])
        self.pid = self.proc.pid
        if kept:
            said = self._keeper_report(report[0])
            if not said.startswith("pid "):
                self.kill()
                raise EngineFailure("crash", f"cannot start '{self.cmd}': "
                                    + (said.removeprefix("error ") or "its keeper said nothing"))
            self.pid = int(said.split()[1])
        # the reader alone reads and closes the output, through a descriptor of its own
        out = os.dup(self.proc.stdout.fileno())
        self.proc.stdout.close()
        threading.Thread(target=self._reader, args=(out, self.lines, self.stop_reading),
                         daemon=True).start()

    @staticmethod
    def _keeper_report(fd: int) -> str:
        """What the keeper wrote: `pid N` or `error WHY` (it writes at once; 30 s at most)."""
        got = b""
        end = time.monotonic() + 30
        try:
            while time.monotonic() < end:
                ready, _, _ = select.select([fd], [], [], 0.1)
                if ready:
                    chunk = os.read(fd, 4096)
                    if not chunk:
                        break
                    got += chunk
        finally:
            os.close(fd)
        return got.decode(errors="replace")

    @staticmethod
    def _put(lines: queue.Queue, item, stop: threading.Event) -> bool:
        while not stop.is_set():
            try:
                lines.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _reader(self, fd: int, lines: queue.Queue, stop: threading.Event):
        """Cuts the output into lines within the bounds above; the last item is None (the end
        of the output) or an EngineFailure (a bound broken)."""
        pending = bytearray()
        second, count, size = time.monotonic(), 0, 0
        end = None
        try:
            while not stop.is_set() and end is None:
                ready, _, _ = select.select([fd], [], [], 0.05)
                if not ready:
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                t = time.monotonic()
                if t - second >= 1.0:
                    second, count, size = t, 0, 0
                size += len(chunk)
                pending += chunk
                while end is None:
                    i = pending.find(b"\n")
                    if i < 0:
                        break
                    line = bytes(pending[:i])
                    del pending[:i + 1]
                    count += 1
                    if len(line) > MAX_LINE:
                        end = f"wrote a line of more than {MAX_LINE // 1024} KiB"
                    elif count > MAX_LINES_PER_SECOND:
                        end = f"wrote more than {MAX_LINES_PER_SECOND} lines in a second"
                    elif not self._put(lines, (t, line.decode("utf-8", "replace").rstrip("\r")),
                                       stop):
                        return
                if end is None and len(pending) > MAX_LINE:
                    end = f"wrote a line of more than {MAX_LINE // 1024} KiB"
                if end is None and size > MAX_BYTES_PER_SECOND:
                    end = f"wrote more than {MAX_BYTES_PER_SECOND >> 20} MiB in a second"
        except (OSError, ValueError):
            pass
        finally:
            os.close(fd)
        failure = EngineFailure("crash", f"the engine {end}") if end else None
        self._put(lines, (time.monotonic(), failure), stop)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and not self.eof

    def kill(self):
        p = self.proc
        if p is None:
            return
        # The keeper ends the engine with all it started (also when the engine itself has
        # exited: a process it started may live on, holding its output pipe, or a core); it is
        # killed itself if it has not within KEEPER_GRACE. Without a keeper, the engine's group
        # (its own: start_new_session) is ended.
        if p.poll() is None and self.pid != p.pid:
            try:
                p.terminate()
                p.wait(timeout=KEEPER_GRACE)
            except (OSError, subprocess.TimeoutExpired):
                pass
        for group in {p.pid, self.pid}:
            try:
                os.killpg(group, signal.SIGKILL)
            except (OSError, ProcessLookupError, TypeError):
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
        # the reader closes the output itself, within 50 ms
        self.stop_reading.set()
        try:
            p.stdin.close()
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
            if isinstance(line, EngineFailure):
                self.eof = True
                self.log.write(self.label, "<", f"({line.detail})")
                raise line
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
            if line is None or isinstance(line, EngineFailure):
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
            if len(got) < MAX_KEPT:
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
        if len(lines) < MAX_KEPT:
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
