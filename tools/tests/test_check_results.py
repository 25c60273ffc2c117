"""tools/check_results.py finds lost, doubled and differing games."""

import os
import subprocess
import sys
import tempfile
import unittest

from .support import TOOLS, fake, run_referee

CHECK = os.path.join(TOOLS, "check_results.py")


def check(*args):
    return subprocess.run([sys.executable, CHECK, *args], capture_output=True, text=True, timeout=60)


class CheckResults(unittest.TestCase):
    def test_complete_then_doubled_then_different(self):
        with tempfile.TemporaryDirectory() as d:
            out, pgn = os.path.join(d, "r.jsonl"), os.path.join(d, "r.pgn")
            res = run_referee("--tc", "movetime=100", "--engine", fake("--random", "--seed", "1"),
                              "--engine", fake("--random", "--seed", "2"), "--games", "4",
                              "--out", out, "--pgn", pgn)
            self.assertEqual(res.returncode, 0, res.stderr)
            ok = check(out, "--pgn", pgn)
            self.assertEqual(ok.returncode, 0, ok.stdout)
            self.assertIn("OK: every game exactly once, PGN identical", ok.stdout)
            with open(out) as fh:
                lines = fh.readlines()
            with open(out, "w") as fh:  # game 2 twice, game 3 lost
                fh.writelines(lines[:4] + [lines[3]])
            bad = check(out)
            self.assertEqual(bad.returncode, 1)
            self.assertIn("doubled games: [2]", bad.stdout)
            self.assertIn("missing games: [3]", bad.stdout)
            with open(out, "w") as fh:  # the PGN's first game no longer matches
                fh.writelines(lines[:1] + [lines[1].replace('"result":"', '"result":"x')] + lines[2:])
            self.assertIn("PGN round 1 differs from game 0", check(out, "--pgn", pgn).stdout)


if __name__ == "__main__":
    unittest.main()
