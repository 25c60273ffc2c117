"""A match: workers playing the schedule's games, results appended and flushed per game."""

from __future__ import annotations

import json
import math
import os
import sys
import threading

from .engine import Aborted, NeverStarted
from .game import EngineSlot, Settings, play_game
from .openings import Schedule
from .results import report, summarize
from .stats import Sprt, fmt_elo, trinomial_stats

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
