"""End-to-end tests of tools/referee.py with the real engine.

The engine binary comes from the environment variable VIER_BIN (the Rust test
wrapper sets it under `cargo test`).  Without it these tests FAIL on purpose:
a missing engine must not look like a passing suite.
"""

import json
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

from .support import REFEREE, vier_bin


class RealEngine(unittest.TestCase):
    def test_vier_vs_vier_short_match(self):
        cmd = shlex.quote(vier_bin(self))
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "vier.jsonl")
            # a generous margin: this checks the protocol and the rules, not speed
            res = subprocess.run(
                [sys.executable, REFEREE, "--tc", "movetime=10", "--engine", cmd, "--name", "vier-a",
                 "--engine", cmd, "--name", "vier-b", "--margin", "2000", "--games", "2", "--size", "7x6",
                 "--out", out],
                capture_output=True, text=True, timeout=300)
            self.assertEqual(res.returncode, 0, f"referee failed:\n{res.stdout}\n{res.stderr}")
            with open(out) as fh:
                games = [json.loads(l) for l in fh if l.strip()][1:]
        self.assertEqual(len(games), 2, res.stderr)
        for g in games:
            self.assertIn(g["termination"], ("win", "draw"), f"game {g['game']}: {g['reason']}")
            self.assertGreaterEqual(len(g["moves"]), 7)

    def test_vier_vs_vier_on_12x4_speaks_column_numbers_past_9(self):
        cmd = shlex.quote(vier_bin(self))
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "vier.jsonl")
            pgn = os.path.join(d, "vier.pgn")
            book = os.path.join(d, "openings.txt")
            with open(book, "w") as fh:
                fh.write("l  # column 12: a letter, as past 9 columns moves are written\n")
            res = subprocess.run(
                [sys.executable, REFEREE, "--tc", "movetime=10", "--engine", cmd, "--name", "vier-a",
                 "--engine", cmd, "--name", "vier-b", "--margin", "2000", "--games", "2",
                 "--size", "12x4", "--openings", book, "--out", out, "--pgn", pgn],
                capture_output=True, text=True, timeout=300)
            self.assertEqual(res.returncode, 0, f"referee failed:\n{res.stdout}\n{res.stderr}")
            with open(out) as fh:
                games = [json.loads(l) for l in fh if l.strip()][1:]
            with open(pgn) as fh:
                text = fh.read()
        self.assertEqual(len(games), 2, res.stderr)
        for g in games:
            self.assertEqual(g["size"], "12x4")
            self.assertIn(g["termination"], ("win", "draw"), f"game {g['game']}: {g['reason']}")
            self.assertRegex(g["moves"], "^l[a-l]{6,}$")
        self.assertIn('[BoardSize "12x4"]', text)
        self.assertIn('[FEN "12/12/12/11P[', text)  # the opening, column 12
        self.assertRegex(text, r"P@[j-l][1-4] ")  # the moves past column 9 as drops

    def test_vier_protocol_compliance(self):
        cmd = shlex.quote(vier_bin(self))
        res = subprocess.run([sys.executable, REFEREE, "--compliance", cmd],
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(res.returncode, 0, f"compliance failures:\n{res.stdout}\n{res.stderr}")


if __name__ == "__main__":
    unittest.main()
