"""Tests of tools/proven_share.py: reading proven values off `info` lines, and short runs with the
real engine on two threads.

The engine binary comes from VIER_BIN (set by the Rust test wrapper under `cargo test`); without
it the end-to-end tests fail on purpose.
"""

import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest

import proven_share as tool

from .support import vier_bin

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "tests", "data", "pons")


def info(score: str) -> str:
    return f"info depth 9 seldepth 12 multipv 1 score {score} nodes 100 nps 1000 hashfull 1 time 5 pv 4"


class ProvenScore(unittest.TestCase):
    def test_mates_become_pons_scores(self):
        # Test_L3_R1 line 2 (34 discs): x wins with its 4th disc from now, its 21st: score 1
        self.assertEqual(tool.proven_score(info("mate 4"), 34), 1)
        # Test_L3_R1 line 1 (37 discs): o to move loses to x's 2nd disc from now: score -1
        self.assertEqual(tool.proven_score(info("mate -2"), 37), -1)
        # on the empty board a win with the first player's 4th disc scores 22 - 4; after its
        # first disc, its 4th disc from now is its 5th: 22 - 5 against the second player
        self.assertEqual(tool.proven_score(info("mate 4"), 0), 18)
        self.assertEqual(tool.proven_score(info("mate -4"), 1), -17)

    def test_only_exact_proven_values_count(self):
        self.assertEqual(tool.proven_score(info("cp 0 wdl 0 1000 0"), 38), 0)
        self.assertIsNone(tool.proven_score(info("cp 0 wdl 119 762 119"), 38))
        self.assertIsNone(tool.proven_score(info("cp 0"), 38))
        self.assertIsNone(tool.proven_score(info("cp 35 wdl 281 660 59"), 20))
        self.assertIsNone(tool.proven_score(info("mate 5 lowerbound"), 20))
        self.assertIsNone(tool.proven_score(info("cp 0 lowerbound wdl 0 1000 0"), 20))
        self.assertIsNone(tool.proven_score("", 20))


class EndToEnd(unittest.TestCase):
    def setUp(self):
        self.bin = vier_bin(self)
        if not os.path.isdir(DATA):
            self.fail(f"missing {DATA}: tests/data/pons is part of the repository")
        self.dir = tempfile.mkdtemp(prefix="vier-proven-share-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_tool(self, *args):
        out = os.path.join(self.dir, "out.json")
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
            rc = tool.main(["--bin", self.bin, "--threads", "2", "--json", out, *args])
        with open(out) as fh:
            return rc, json.load(fh), stdout.getvalue()

    def test_end_positions_are_all_proven_with_their_exact_scores(self):
        # wins, losses and draws (lines 3 and 4); the search stops once a root is proven, so
        # the long movetime only gives a loaded machine room
        rc, data, text = self.run_tool("--set", os.path.join(DATA, "Test_L3_R1"),
                                       "--limit", "5", "--movetime", "2000")
        self.assertEqual(rc, 0, text)
        s = data["summary"]
        self.assertEqual((s["positions"], s["proven"], s["mismatches"]), (5, 5, []), text)
        self.assertEqual([r["value"] for r in data["positions"]],
                         [r["exact"] for r in data["positions"]])
        self.assertIn(0, [r["value"] for r in data["positions"]])
        self.assertIn("proven 5 (100.0%", text)

    def test_begin_positions_on_two_threads_never_mismatch(self):
        rc, data, text = self.run_tool("--set", os.path.join(DATA, "Test_L1_R2"),
                                       "--limit", "5", "--movetime", "30")
        self.assertEqual(rc, 0, text)
        s = data["summary"]
        self.assertEqual((s["positions"], s["mismatches"], s["threads"]), (5, [], 2))
        self.assertEqual(s["proven"], sum(r["proven"] for r in data["positions"]))
        for r in data["positions"]:
            self.assertIn(r["bestmove"], list("1234567"), r)
            self.assertEqual(r["proven"], r["value"] is not None, r)

    def test_a_wrong_score_in_the_set_is_a_mismatch(self):
        moves = "7422341735647741166133573473242566"  # Pons: 1
        path = os.path.join(self.dir, "wrong")
        with open(path, "w") as fh:
            fh.write(f"{moves} 2\n")
        rc, data, text = self.run_tool("--set", path, "--movetime", "2000")
        self.assertEqual(rc, 1, text)
        self.assertEqual(data["summary"]["mismatches"], [moves])
        self.assertIn(f"MISMATCH {moves}", text)


if __name__ == "__main__":
    unittest.main()
