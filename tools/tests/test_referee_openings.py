"""Tests of tools/make_openings.py (with a fake `vier solve`) and the shipped opening file."""

import os
import subprocess
import sys
import tempfile
import unittest

from viertools.openings import distinct_positions, load_openings

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..")


class MakeOpeningsTests(unittest.TestCase):
    def test_positions_merge_mirrors_and_transpositions(self):
        # 7 first moves, mirror images merged: 1..4
        self.assertEqual(distinct_positions(7, 6, 1, 1), ["1", "2", "3", "4"])
        two = distinct_positions(7, 6, 2, 2)
        # 49 move pairs, (a,b) ~ (8-a, 8-b); only 44 is its own mirror: (49 - 1)/2 + 1 = 25
        self.assertEqual(len(two), 25)
        self.assertIn("44", two)
        # x on 1 and 3, o on 2: 123 and 321 are the same position (transposition)
        three = distinct_positions(7, 6, 3, 3)
        self.assertIn("123", three)
        self.assertNotIn("321", three)
        self.assertEqual(distinct_positions(7, 6, 2, 2, {3, 4, 5}), ["33", "34", "35", "43", "44"])

    def test_with_fake_solver(self):
        solver = os.path.join(HERE, "fake_engines", "fake_solver.py")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "o.txt")
            cache = os.path.join(d, "cache.txt")
            res = subprocess.run([sys.executable, os.path.join(TOOLS, "make_openings.py"), "--bin", solver,
                                  "--plies", "2", "--max-abs-score", "0", "--timeout", "2",
                                  "--cache", cache, "--out", out],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(res.returncode, 0, res.stderr)
            ops = load_openings(out, 7, 6)
            # the fake score is 0 exactly when the digit sum % 5 == 2, e.g. 11
            for o in ops:
                self.assertEqual(sum(map(int, o)) % 5, 2, o)
            self.assertIn("11", ops)
            with open(out) as fh:
                text = fh.read()
            self.assertIn("make_openings.py", text)
            self.assertIn("Not solved (1", text)  # '13' timed out and is listed
            self.assertIn("13(timeout", text)
            # every solved position (25 - the timed-out '13') is in the cache
            with open(cache) as fh:
                self.assertEqual(len(fh.read().split("\n")) - 1, 24)


class ShippedOpeningsTests(unittest.TestCase):
    def test_openings_file_is_valid(self):
        path = os.path.join(TOOLS, "openings.txt")
        ops = load_openings(path, 7, 6)
        self.assertGreater(len(ops), 0)
        self.assertEqual(len(ops), len(set(ops)))
        with open(path) as fh:
            head = fh.readline()
        self.assertTrue(head.startswith("#"), "the header must say how the file was made")


if __name__ == "__main__":
    unittest.main()
