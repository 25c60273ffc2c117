"""A match or tournament: workers playing the schedule's games, results appended and flushed
per game (JSONL, and PGN beside it when asked).

Games are laid out so that games 2k and 2k+1 are one colour-swapped pair: the same pairing of
engines and the same opening.  With P pairings, pair k belongs to pairing k % P and plays the
(k // P)-th opening, so every pairing gets the same openings and the pairings advance together."""

from __future__ import annotations

import json
import math
import os
import sys
import threading

from .engine import Aborted, NeverStarted
from .game import EngineSlot, Settings, play_game
from .openings import Schedule
from .pgn import game_to_pgn
from .results import report, summarize, tournament_report
from .stats import Sprt, fmt_elo, trinomial_stats

class Match:
    def __init__(self, specs: list, settings: Settings, schedule: Schedule, games: int | None,
                 sprt: Sprt | None, max_games: int | None, concurrency: int, recover: bool,
                 out_path: str | None, done: dict, header: dict, progress=sys.stderr,
                 pairings: list | None = None, pgn_path: str | None = None):
        """specs: the engines; pairings: (i, j) engine indices that meet, default [(0, 1)];
        games: games per pairing."""
        self.specs, self.settings, self.schedule = specs, settings, schedule
        self.pairings = pairings or [(0, 1)]
        self.tournament = pairings is not None
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
        self.header = header
        self.pgn = None
        if pgn_path:
            # rewritten from the JSONL records, so a run killed between the two files loses nothing
            with open(pgn_path + ".tmp", "w", encoding="utf-8") as fh:
                for rec in self.records.values():
                    fh.write(game_to_pgn(rec, header))
            os.replace(pgn_path + ".tmp", pgn_path)
            self.pgn = open(pgn_path, "a", encoding="utf-8")

    def limit(self):
        per_pairing = self.games if self.sprt is None else self.max_games
        return None if per_pairing is None else per_pairing * len(self.pairings)

    def plan(self, g: int):
        """(engine indices (A, B), opening) of game g."""
        pair, colour = divmod(g, 2)
        k, q = pair % len(self.pairings), pair // len(self.pairings)
        return self.pairings[k], self.schedule.opening(2 * q + colour)

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
            if self.pgn is not None:
                self.pgn.write(game_to_pgn(rec, self.header))
                self.pgn.flush()
            if self.sprt:
                self.sprt_state = self.sprt.state(summarize(self.records)["penta"])
                if self.sprt_state["decision"]:
                    self.stop.set()
            self._progress(rec)

    def _progress(self, rec):
        if self.tournament:
            limit = self.limit()
            n = len(self.records)
            head = f"[{n}/{limit}]" if limit is not None else f"[{n}]"
            self._progress_line(f"{head} game {rec['game']}: {rec['engines']['A']} vs {rec['engines']['B']} "
                                f"{rec['score_a']:g}-{1 - rec['score_a']:g} {rec['termination']}")
            return
        s = summarize(self.records)
        tri = trinomial_stats(s["wins"], s["draws"], s["losses"])
        limit = self.limit()
        n = tri["games"]
        head = f"[{n}/{limit}]" if limit is not None else f"[{n}]"
        last = f"game {rec['game']}: {rec['result']} {rec['termination']}"
        line = (f"{head} {self.specs[0].name} vs {self.specs[1].name}: "
                f"+{s['wins']} ={s['draws']} -{s['losses']}  score {100 * tri['score']:.1f}%  "
                f"elo {fmt_elo(tri['elo'])}")
        if tri["elo_error"] is not None and not math.isinf(tri["elo_error"]) and not math.isnan(tri["elo_error"]):
            line += f" +/- {tri['elo_error']:.0f}"
        if self.sprt_state:
            line += f"  LLR {self.sprt_state['llr']:.2f} [{self.sprt_state['lower']:.2f}, {self.sprt_state['upper']:.2f}]"
        line += f"  ({last})"
        self._progress_line(line)

    def _progress_line(self, line):
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
        # one slot per engine; a process starts the first time its engine plays in this worker
        engines = [EngineSlot(spec, self.settings, wid) for spec in self.specs]
        with self.lock:
            self.slots_in_use.append(engines)
        try:
            while not self.stop.is_set():
                g = self.take_game()
                if g is None:
                    break
                (a, b), opening = self.plan(g)
                slots = {"A": engines[a], "B": engines[b]}
                try:
                    rec = play_game(g, opening, slots, self.settings, self.stop)
                    if self.tournament:
                        rec["pairing"] = [a, b]
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
            for s in engines:
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
            for engines in list(self.slots_in_use):
                for s in engines:
                    if s.proc is not None:
                        s.proc.kill()
            for t in threads:
                t.join(5)
        if self.tty:
            self.progress.write("\n")
        if self.out:
            self.out.close()
        if self.pgn:
            self.pgn.close()
        if self.tournament:
            print(tournament_report(self.records, [s.name for s in self.specs], self.pairings))
        else:
            names = {"A": self.specs[0].name, "B": self.specs[1].name}
            print(report(self.records, names, self.sprt, self.sprt_state))
        sys.stdout.flush()
        if self.fatal:
            print(f"referee: match stopped: {self.fatal}", file=sys.stderr)
            return 130 if interrupted else 1
        return 0
