"""One refereed game between two engine slots: the referee's board and clocks decide."""

from __future__ import annotations

import datetime
import os
import threading
import time

from .engine import Aborted, EngineFailure, EngineProcess, NeverStarted, ProtocolLog, run_search
from .rules import DEFAULT_HEIGHT, DEFAULT_WIDTH, FIRST, SECOND, IllegalMove, board_from_opening
from .timecontrol import TimeControl

TERMINATIONS = ("win", "draw", "time_forfeit", "illegal_move", "crash", "stall")


class EngineSpec:
    def __init__(self, cmd: str, name: str | None, options: list[str], tc: TimeControl | None,
                 notation: str | None = None):
        # notation None: cfour when the engine's `uci` offers UCI_Variant cfour, else digits
        self.cmd, self.name, self.tc, self.notation = cmd, name, tc, notation
        self.ever_started = False  # set once any worker got it through the handshake
        self.options = []
        for opt in options:
            key, eq, val = opt.partition("=")
            if not eq or not key.strip():
                raise ValueError(f"bad --option '{opt}' (want Name=Value)")
            self.options.append((key.strip(), val.strip()))

    def to_json(self):
        return {"name": self.name, "cmd": self.cmd, "options": [f"{k}={v}" for k, v in self.options],
                "tc": self.tc.to_json() if self.tc else None, "notation": self.notation}


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
    """An engine inside one worker: starts and restarts its process when needed."""

    def __init__(self, spec: EngineSpec, settings: Settings, worker: int):
        self.spec, self.settings = spec, settings
        self.label = f"w{worker}:{spec.name}"
        self.proc: EngineProcess | None = None
        self.notation = spec.notation or "digits"
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
            self.proc.uci(s.startup_timeout, abort)
            variant = self.proc.option("UCI_Variant") or []
            self.notation = self.spec.notation or ("cfour" if "cfour" in variant else "digits")
            if s.size_options() and not (self.proc.spin_allows("Width", s.width)
                                         and self.proc.spin_allows("Height", s.height)):
                raise NeverStarted(f"engine {self.spec.name} cannot play {s.width}x{s.height}: "
                                   f"its Width/Height options do not offer it")
            for name, value in s.size_options() + self.spec.options:
                self.proc.setoption(name, value)
            if self.notation == "cfour" and "cfour" in variant:  # after the user's options, as cutechess does
                self.proc.setoption("UCI_Variant", "cfour")
            self.proc.isready(s.isready_timeout, abort)
        self.proc.drain()
        self.proc.send("ucinewgame")
        self.proc.isready(s.isready_timeout, abort)

    def rss_kb(self) -> int | None:
        """The engine's resident memory from /proc (None where there is no /proc)."""
        if self.proc is None or self.proc.proc is None:
            return None
        try:
            with open(f"/proc/{self.proc.pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

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
    board = board_from_opening(opening, settings.width, settings.height)
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
            "notation": {r: slots[r].notation for r in ("A", "B")},
            "rss_kb": {r: slots[r].rss_kb() for r in ("A", "B")},
            # the machine's load when the game ended: time forfeits on a busy machine show here
            "load1": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
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
        pos = board.position_command(slot.notation)
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
        if res.engine_ms is not None:  # the engine's own clock: a late reply it did not see is not its search
            entry["engine_ms"] = res.engine_ms
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
            col = board.parse_move(res.move, slot.notation)
        except IllegalMove as e:
            return finish("illegal_move", offender=mover,
                          reason=f"{name} at ply {board.ply + 1}: {e} (position: {board.move_string() or 'startpos'})")
        if res.move != str(col):  # the record keeps digits; the engine's own text beside them
            entry.update(move=str(col), sent=res.move)
        outcome = board.play(col)
        if outcome == "win":
            return finish("win", winner=mover, reason=f"{name} made four in a row ({board.win_direction})")
        if outcome == "draw":
            return finish("draw", reason="board full")
