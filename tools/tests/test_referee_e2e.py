"""End-to-end tests of tools/referee.py against the fake engines in fake_engines/.

Every referee run has a hard subprocess timeout, so a referee that hangs fails
the test instead of stalling the suite.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from .support import REFEREE, RUN_TIMEOUT, fake, read_jsonl, run_referee

def alive(pid):
    """Whether `pid` runs (a zombie does not)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class E2E(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def out(self, name="r.jsonl"):
        return os.path.join(self.dir, name)

    def match(self, a, b, *extra, tc="movetime=50", games=2, out=None):
        out = out or self.out()
        res = run_referee("--tc", tc, "--engine", a, "--name", "A", "--engine", b, "--name", "B",
                          "--games", str(games), "--out", out, "--grace", "300", *extra)
        header, recs = read_jsonl(out) if os.path.exists(out) else (None, [])
        return res, header, recs

    # -- normal play --------------------------------------------------------
    def test_sane_match_records_everything(self):
        openings = os.path.join(self.dir, "open.txt")
        with open(openings, "w") as fh:
            fh.write("# test openings\n44\n3 5\n")
        res, header, recs = self.match(fake("--random", "--seed", "1"), fake("--random", "--seed", "2"),
                                       "--openings", openings, games=4)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(header["openings"], ["44", "35"])
        self.assertEqual([r["game"] for r in recs], [0, 1, 2, 3])
        self.assertEqual([r["opening"] for r in recs], ["44", "44", "35", "35"])
        self.assertEqual([(r["first"], r["second"]) for r in recs], [("A", "B"), ("B", "A")] * 2)
        for r in recs:
            self.assertIn(r["termination"], ("win", "draw"))
            self.assertTrue(r["moves"].startswith(r["opening"]))
            self.assertEqual(len(r["plies"]), len(r["moves"]) - len(r["opening"]))
            for p in r["plies"]:
                self.assertIn("time_ms", p)
                self.assertIsNotNone(p["depth"])
                self.assertIn("cp", p["score"])
            if r["termination"] == "win":
                self.assertEqual(r["winner"], r["plies"][-1]["by"])
                self.assertEqual(r["score_a"], 1.0 if r["winner"] == "A" else 0.0)
                self.assertEqual(r["result"], "1-0" if r["winner"] == r["first"] else "0-1")
        self.assertIn("W/D/L", res.stdout)
        self.assertIn("Pentanomial", res.stdout)
        self.assertIn("LOS", res.stdout)

    def test_first_legal_always_wins_vertically_as_first_player(self):
        # both play the first legal column unless they can win: x stacks 1,2,... deterministic.
        res, _, recs = self.match(fake(), fake(), games=2, tc="depth=3")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(len(recs), 2)
        # identical deterministic engines: the same game twice, colours swapped -> pair score 1
        self.assertEqual(recs[0]["moves"], recs[1]["moves"])
        self.assertEqual(recs[0]["score_a"] + recs[1]["score_a"], 1.0)

    def test_small_board_and_concurrency(self):
        res, header, recs = self.match(fake("--random", "--seed", "3"), fake("--random", "--seed", "4"),
                                       "--size", "4x4", "--concurrency", "2", games=6)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(header["size"], "4x4")
        self.assertEqual(sorted(r["game"] for r in recs), list(range(6)))
        for r in recs:
            self.assertLessEqual(len(r["moves"]), 16)
            self.assertTrue(set(r["moves"]) <= set("1234"))

    def test_clock_time_control(self):
        res, _, recs = self.match(fake(), fake(), tc="5+0.1", games=2)
        self.assertEqual(res.returncode, 0, res.stderr)
        for r in recs:
            self.assertIn(r["termination"], ("win", "draw"))
            self.assertIn("clock_ms", r["plies"][0])

    # -- failures -----------------------------------------------------------
    def test_crash_stops_match_without_recover(self):
        res, _, recs = self.match(fake(), fake("--mode", "crash", "--after", "2"), games=4)
        self.assertEqual(res.returncode, 1)
        self.assertIn("--recover", res.stderr)
        self.assertEqual(len(recs), 1)
        r = recs[0]
        self.assertEqual((r["termination"], r["offender"], r["winner"]), ("crash", "B", "A"))
        self.assertIn("status 3", r["reason"])
        self.assertIn("W/D/L: 1 / 0 / 0", res.stdout)  # what was played is kept and reported

    def test_crash_with_recover_carries_on(self):
        res, _, recs = self.match(fake(), fake("--mode", "crash", "--after", "2"), "--recover", games=4)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(len(recs), 4)
        self.assertTrue(all(r["termination"] == "crash" and r["offender"] == "B" for r in recs))

    def test_an_engine_that_exits_leaving_a_child_on_its_output_is_a_crash_and_its_group_ends(self):
        pidfile = os.path.join(self.dir, "child.pid")
        res, _, recs = self.match(fake(), fake("--mode", "orphan", "--after", "2", "--pidfile", pidfile),
                                  games=2)
        self.assertEqual(res.returncode, 1, res.stderr)
        r = recs[0]
        self.assertEqual((r["termination"], r["offender"], r["winner"]), ("crash", "B", "A"))
        self.assertIn("status 3", r["reason"])
        with open(pidfile) as fh:
            child = int(fh.read())
        # the referee has exited; the child it left must be gone with the engine's group
        # (a zombie waiting for init to reap it is gone too)
        deadline = time.monotonic() + 10
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        alive_now = alive(child)
        if alive_now:
            os.kill(child, signal.SIGKILL)
        self.assertFalse(alive_now, "the engine's child outlived the referee")

    def test_an_engine_that_exits_leaving_a_detached_child_is_a_crash_and_the_child_ends(self):
        # issue 68: the child, in a session of its own, held the referee's pipe; the referee
        # waited in closing it for as long as the child lived (minutes), and the child lived on
        pidfile = os.path.join(self.dir, "child.pid")
        started = time.monotonic()
        res, _, recs = self.match(fake(), fake("--mode", "orphan", "--detach", "--after", "2",
                                               "--pidfile", pidfile), games=2)
        self.assertEqual(res.returncode, 1, res.stderr)
        r = recs[0]
        self.assertEqual((r["termination"], r["offender"], r["winner"]), ("crash", "B", "A"))
        self.assertIn("status 3", r["reason"])
        with open(pidfile) as fh:
            child = int(fh.read())
        deadline = time.monotonic() + 10
        while alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        alive_now = alive(child)
        if alive_now:
            os.kill(child, signal.SIGKILL)
        self.assertFalse(alive_now, "the engine's detached child outlived the referee")
        # run_referee's own timeout (a minute) guards the wait; the child sleeps five
        self.assertLess(time.monotonic() - started, RUN_TIMEOUT)

    def watched_match(self, b, tc, bound_mb=200):
        """A two-game match against `b` with the referee's resident memory watched: (returncode,
        records, peak MB); the referee is killed if it grows past `bound_mb`."""
        out = self.out()
        proc = subprocess.Popen([sys.executable, REFEREE, "--tc", tc, "--engine", fake(), "--name", "A",
                                 "--engine", b, "--name", "B", "--games", "2", "--out", out],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        peak = 0
        deadline = time.monotonic() + RUN_TIMEOUT
        try:
            while proc.poll() is None and time.monotonic() < deadline and peak < bound_mb:
                try:
                    with open(f"/proc/{proc.pid}/status") as fh:
                        kb = next((int(l.split()[1]) for l in fh if l.startswith("VmRSS:")), 0)
                    peak = max(peak, kb // 1024)
                except OSError:
                    pass
                time.sleep(0.02)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        self.assertLess(peak, bound_mb, "the referee grew past its bound")
        _, recs = read_jsonl(out) if os.path.exists(out) else (None, [])
        return proc.returncode, recs, peak

    def test_an_engine_writing_an_endless_line_is_a_crash_and_the_referee_stays_small(self):
        # issue 68: the referee grew to 3.7 GB in 26 s
        rc, recs, peak = self.watched_match(fake("--mode", "endless", "--after", "2"), "movetime=200")
        self.assertEqual(rc, 1)
        self.assertEqual((recs[0]["termination"], recs[0]["offender"]), ("crash", "B"))
        self.assertIn("a line of more than 64 KiB", recs[0]["reason"])
        print(f"the referee at most {peak} MB beside an engine writing an endless line", file=sys.stderr)

    def test_info_lines_without_end_under_a_depth_limit_are_a_crash_and_the_referee_stays_small(self):
        # issue 68: to 1.3 GB under --tc depth=3
        rc, recs, peak = self.watched_match(fake("--mode", "chatter", "--after", "2"), "depth=3")
        self.assertEqual(rc, 1)
        self.assertEqual((recs[0]["termination"], recs[0]["offender"]), ("crash", "B"))
        self.assertIn("lines in a second", recs[0]["reason"])
        print(f"the referee at most {peak} MB beside an engine writing info lines without end",
              file=sys.stderr)

    def test_hang_is_a_stall(self):
        # the records say the hang was judged a stall; run_referee's timeout only guards a hang
        res, _, recs = self.match(fake("--mode", "hang", "--after", "2"), fake(), "--recover", games=2)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual([(r["termination"], r["offender"]) for r in recs], [("stall", "A"), ("stall", "A")])

    def test_hang_under_depth_limit_hits_watchdog(self):
        res, _, recs = self.match(fake("--mode", "hang"), fake(), "--move-timeout", "1", tc="depth=4", games=1)
        self.assertEqual(res.returncode, 1)
        self.assertEqual((recs[0]["termination"], recs[0]["offender"]), ("stall", "A"))

    def test_illegal_moves(self):
        for token in ("9", "0", "x", "", "full"):
            with self.subTest(token=token):
                out = self.out(f"ill{token or 'empty'}.jsonl")
                res, _, recs = self.match(fake(), fake("--mode", "illegal", "--illegal", token), out=out, games=2)
                self.assertEqual(res.returncode, 0, res.stderr)
                self.assertEqual([(r["termination"], r["offender"]) for r in recs],
                                 [("illegal_move", "B")] * 2)
        # the 'full' engine plays column 1 until it is full: the seventh stone is refused
        self.assertTrue(any("full" in r["reason"] for r in recs))

    def test_overrun_movetime_is_time_forfeit(self):
        # B answers after 400 ms, ignoring 'stop': late, but within the grace -> time forfeit
        res, _, recs = self.match(fake(), fake("--mode", "slow", "--sleep-ms", "400"),
                                  "--margin", "50", "--grace", "5000", tc="movetime=50", games=2)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual([(r["termination"], r["offender"]) for r in recs], [("time_forfeit", "B")] * 2)

    def test_overrun_clock_is_time_forfeit(self):
        # 0.3 s for the whole game, 0.25 s per move: the second move of B runs out
        res, _, recs = self.match(fake("--mode", "slow", "--sleep-ms", "250"), fake(),
                                  "--margin", "40", "--grace", "5000", tc="0.3", games=1)
        self.assertEqual(res.returncode, 0, res.stderr)
        r = recs[0]
        self.assertEqual((r["termination"], r["offender"]), ("time_forfeit", "A"))
        self.assertEqual(len([p for p in r["plies"] if p["by"] == "A"]), 2)

    def test_per_engine_time_control(self):
        # A is slow but has a generous movetime; B has depth=2: nobody forfeits
        a = fake("--mode", "slow", "--sleep-ms", "100")
        out = self.out()
        res = run_referee("--engine", a, "--tc", "movetime=2000", "--engine", fake(), "--tc", "depth=2",
                          "--games", "2", "--out", out)
        self.assertEqual(res.returncode, 0, res.stderr)
        header, recs = read_jsonl(out)
        self.assertEqual(header["engines"]["A"]["tc"], "movetime=2000")
        self.assertEqual(header["engines"]["B"]["tc"], "depth=2")
        self.assertTrue(all(r["termination"] in ("win", "draw") for r in recs))

    def test_startup_timeout(self):
        res, _, recs = self.match(fake(), fake("--mode", "nouciok"), "--startup-timeout", "1", games=2)
        self.assertEqual(res.returncode, 1)
        self.assertIn("could not be started", res.stderr)
        self.assertIn("uciok", res.stderr)
        self.assertEqual(recs, [])

    def test_isready_timeout(self):
        res, _, recs = self.match(fake("--mode", "noready"), fake(), "--isready-timeout", "1", games=2)
        self.assertEqual(res.returncode, 1)
        self.assertIn("readyok", res.stderr)

    # -- resume -------------------------------------------------------------
    def test_resume_after_kill_plays_only_missing_games(self):
        out = self.out()
        slow = fake("--mode", "slow", "--sleep-ms", "30")
        args = ["--tc", "movetime=500", "--engine", slow, "--engine", fake("--random", "--seed", "5"),
                "--games", "6"]
        proc = subprocess.Popen([sys.executable, REFEREE, *args, "--out", out],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            deadline = time.monotonic() + RUN_TIMEOUT
            while time.monotonic() < deadline:
                if os.path.exists(out) and len(read_jsonl(out)[1]) >= 2:
                    break
                time.sleep(0.02)
            os.killpg(proc.pid, signal.SIGKILL)  # kill the referee outright (its engines see EOF and exit)
        finally:
            proc.wait(timeout=10)
        _, before = read_jsonl(out)
        self.assertGreaterEqual(len(before), 2)
        self.assertLess(len(before), 6, "the run finished before it could be killed")
        with open(out, "a") as fh:
            fh.write('{"type":"game","game":5,"trunc')  # a line cut off by the kill
        res = run_referee(*args, "--resume", out)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("ignored 1 unreadable line", res.stderr)
        with open(out) as fh:
            lines = [json.loads(l) for l in fh if l.strip() and not l.startswith('{"type":"game","game":5,"trunc')]
        games = [l for l in lines if l["type"] == "game"]
        self.assertEqual(sorted(g["game"] for g in games), list(range(6)))  # each game exactly once
        self.assertEqual(games[:len(before)], before)  # the old records are untouched
        self.assertIn(f"{len(before)} game(s) already played", res.stderr)
        self.assertIn(f"Match {os.path.basename(sys.executable)}#1", res.stdout)
        self.assertIn(" 6 games", res.stdout)

    def test_resume_refuses_other_schedule(self):
        res, _, _ = self.match(fake(), fake(), games=2)
        self.assertEqual(res.returncode, 0)
        res = run_referee("--tc", "movetime=50", "--engine", fake(), "--name", "A", "--engine", fake(),
                          "--name", "B", "--games", "4", "--size", "6x5", "--resume", self.out())
        self.assertEqual(res.returncode, 2)
        self.assertIn("size", res.stderr)

    def test_out_is_not_overwritten(self):
        res, _, _ = self.match(fake(), fake(), games=2)
        res = run_referee("--tc", "movetime=50", "--engine", fake(), "--engine", fake(), "--games", "2",
                          "--out", self.out())
        self.assertEqual(res.returncode, 2)
        self.assertIn("--resume", res.stderr)

    # -- SPRT ---------------------------------------------------------------
    def test_sprt_stops_when_decided(self):
        # the winning-move-taking first-legal mover against a random mover: A is much stronger
        out = self.out()
        res = run_referee("--tc", "depth=1", "--engine", fake(), "--name", "strong",
                          "--engine", fake("--random", "--seed", "9"), "--name", "weak",
                          "--sprt", "elo0=0", "elo1=20", "alpha=0.05", "beta=0.05",
                          "--max-games", "400", "--out", out)
        self.assertEqual(res.returncode, 0, res.stderr)
        _, recs = read_jsonl(out)
        self.assertIn("H1 accepted", res.stdout)
        self.assertIn("logistic Elo", res.stdout)
        self.assertIn("LLR", res.stdout)
        self.assertLess(len(recs), 400)
        self.assertEqual(len(recs) % 2, 0)  # stopped when a pair completed

    # -- command line -------------------------------------------------------
    def test_usage_errors(self):
        for args in (["--engine", "x", "--games", "2", "--tc", "movetime=5"],  # one engine only
                     ["--engine", "x", "--engine", "y", "--games", "2"],  # no time control
                     ["--engine", "x", "--engine", "y", "--tc", "movetime=5"],  # neither games nor sprt
                     ["--name", "n", "--engine", "x", "--engine", "y", "--tc", "depth=1", "--games", "2"],
                     ["--tc", "fast", "--engine", "x", "--engine", "y", "--games", "2"]):
            with self.subTest(args=args):
                res = run_referee(*args)
                self.assertEqual(res.returncode, 2, res.stderr)

    def test_help_documents_everything(self):
        res = run_referee("--help")
        self.assertEqual(res.returncode, 0)
        for word in ("--engine", "--name", "--option", "--tc", "movetime=", "depth=", "nodes=", "--games",
                     "--sprt", "--max-games", "--openings", "--concurrency", "--out", "--seed", "--resume",
                     "--size", "--recover", "--margin", "--startup-timeout", "--isready-timeout",
                     "--move-timeout", "--compliance", "time_forfeit", "illegal_move", "crash", "stall"):
            self.assertIn(word, res.stdout)


class ComplianceTests(unittest.TestCase):
    def test_sane_engine_passes(self):
        res = run_referee("--compliance", fake())
        self.assertEqual(res.returncode, 0, res.stdout)
        self.assertNotIn("FAIL", res.stdout)
        self.assertIn("0 failed", res.stdout)

    def test_sloppy_engine_fails(self):
        res = run_referee("--compliance", fake("--mode", "sloppy"))
        self.assertEqual(res.returncode, 1)
        self.assertRegex(res.stdout, r"FAIL .*moves 4444444")
        self.assertRegex(res.stdout, r"FAIL .*414141")
        self.assertRegex(res.stdout, r"FAIL .*go depth 3")  # two bestmoves per go

    def test_crashing_engine_fails_without_hanging(self):
        res = run_referee("--compliance", fake("--mode", "crash", "--after", "3"))
        self.assertEqual(res.returncode, 1)
        self.assertIn("PASS  uci -> uciok", res.stdout)
        self.assertIn("crash", res.stdout)

    def test_hanging_engine_fails_without_hanging(self):
        res = run_referee("--compliance", fake("--mode", "nouciok"), "--startup-timeout", "1")
        self.assertEqual(res.returncode, 1)
        self.assertIn("FAIL  uci -> uciok", res.stdout)


if __name__ == "__main__":
    unittest.main()
