"""The protocol compliance check of one engine (`referee.py --compliance CMD`)."""

from __future__ import annotations

import subprocess
import sys
import time

from .engine import EngineFailure, EngineProcess, run_search
from .game import Settings
from .rules import Board, IllegalMove, board_from_moves

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
