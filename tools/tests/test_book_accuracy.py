"""Tests of tools/book_accuracy.py end to end with the real engine, on a tiny sample.

The engine binary comes from VIER_BIN (set by the Rust test wrapper under `cargo test`); without
it the test fails on purpose.
"""

import json
import os
import shutil
import tempfile
import unittest

import book_accuracy as tool

from .support import vier_bin

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "tests", "data", "pons")


class EndToEnd(unittest.TestCase):
    def setUp(self):
        self.bin = vier_bin(self)
        if not os.path.isdir(DATA):
            self.fail(f"missing {DATA}: tests/data/pons is part of the repository")
        self.dir = tempfile.mkdtemp(prefix="vier-book-acc-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_tiny_run_writes_a_consistent_report(self):
        rc = tool.main(["--bin", self.bin, "--data", DATA, "--times", "5", "--positions", "3",
                        "--jobs", "2", "--sets", "Test_L1_R1", "--out-dir", self.dir])
        self.assertEqual(rc, 0)
        with open(os.path.join(self.dir, "accuracy.json")) as fh:
            data = json.load(fh)
        res = data["results"]
        self.assertEqual(set(res), {"5 book Test_L1_R1", "5 book all",
                                    "5 nobook Test_L1_R1", "5 nobook all"})
        for r in res.values():
            self.assertEqual(r["positions"], 3)
            self.assertTrue(0.0 <= r["keeps_value"] <= 1.0)
            self.assertEqual(len(r["errors"]), round(3 * (1 - r["keeps_value"])))
        # the oracle is cached and its best columns are Pons' scores (checked by the tool)
        with open(os.path.join(self.dir, "oracle.json")) as fh:
            oracle = json.load(fh)["positions"]
        self.assertEqual(len(oracle), 3)
        for scores in oracle.values():
            self.assertEqual(len(scores), 7)
        with open(os.path.join(self.dir, "accuracy.md")) as fh:
            md = fh.read()
        self.assertIn("| 5 | on | Test_L1_R1 | 3 |", md)
        self.assertIn("| 5 | off | all | 3 |", md)

    def test_sample_is_seeded(self):
        a = tool.sample(DATA, ["Test_L1_R2"], 4, 1)
        b = tool.sample(DATA, ["Test_L1_R2"], 4, 1)
        c = tool.sample(DATA, ["Test_L1_R2"], 4, 2)
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)
        self.assertEqual(len(tool.sample(DATA, ["Test_L1_R2"], None, 1)["Test_L1_R2"]), 1000)


if __name__ == "__main__":
    unittest.main()


class RandomPositions(unittest.TestCase):
    def test_seeded_distinct_in_range_and_open(self):
        a = tool.random_positions(60, 4, 24, seed=3)
        self.assertEqual(a, tool.random_positions(60, 4, 24, seed=3))
        self.assertNotEqual(a, tool.random_positions(60, 4, 24, seed=4))
        moves = [m for m, _ in a]
        self.assertEqual(len(set(moves)), 60)
        for m, score in a:
            self.assertIsNone(score)
            self.assertTrue(4 <= len(m) <= 24, m)
            board = tool.board_from_moves([int(c) for c in m])
            self.assertFalse(board.is_over(), m)
            for c in board.legal_columns():
                self.assertFalse(tool.wins_at_once(board, c), f"{m}: {c} wins at once")
        # every disc count of the range is drawn, not only the short games that survive
        self.assertGreater(max(len(m) for m in moves), 18)
        self.assertLess(min(len(m) for m in moves), 8)
