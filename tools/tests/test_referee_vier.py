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

    def test_vier_protocol_compliance(self):
        cmd = shlex.quote(vier_bin(self))
        res = subprocess.run([sys.executable, REFEREE, "--compliance", cmd],
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(res.returncode, 0, f"compliance failures:\n{res.stdout}\n{res.stderr}")


if __name__ == "__main__":
    unittest.main()
