"""tools/win_block.py (the beginner) and tools/levels.py (the levels' calibration chain)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from .support import TOOLS, vier_bin

WIN_BLOCK = os.path.join(TOOLS, "win_block.py")
LEVELS = os.path.join(TOOLS, "levels.py")
sys.path.insert(0, TOOLS)
import levels  # noqa: E402


def beginner(lines, seed=1):
    """The beginner's answers to `lines` (a session ending in quit)."""
    res = subprocess.run([sys.executable, WIN_BLOCK, "--seed", str(seed)], input="\n".join(lines) + "\nquit\n",
                         capture_output=True, text=True, timeout=60)
    return res.stdout.splitlines()


class WinBlock(unittest.TestCase):
    def test_it_takes_a_win_before_a_block_and_blocks_before_chance(self):
        out = beginner(["position startpos moves 112233", "go",  # x wins in 4 (o threatens too)
                        "position startpos moves 11223", "go",  # o must block 4
                        "position startpos moves 1 2 1 2 1", "go"])  # o must block 1
        self.assertEqual([l for l in out if l.startswith("bestmove")],
                         ["bestmove 4", "bestmove 4", "bestmove 1"])

    def test_bad_input_is_an_error_and_changes_nothing(self):
        out = beginner(["position startpos moves 11223", "position startpos moves 19", "bogus",
                        "setoption name Width value 99", "go"])
        self.assertEqual(sum(l.startswith("info string error:") for l in out), 3, out)
        self.assertEqual(out[-1], "bestmove 4")

    def test_the_seed_replays_its_random_moves(self):
        lines = ["position startpos", "go", "position startpos moves 4", "go"] * 3
        self.assertEqual(beginner(lines, 5), beginner(lines, 5))
        self.assertNotEqual(len({tuple(beginner(lines, s)) for s in range(6)}), 1)


class Chain(unittest.TestCase):
    def test_elo_adds_up_the_chain_and_intervals_widen(self):
        m = [{"lower": "a", "upper": "b", "games": 200, "elo": 100.0, "low": 60.0, "high": 140.0},
             {"lower": "b", "upper": "c", "games": 200, "elo": 50.0, "low": 20.0, "high": 80.0}]
        rows = levels.chain(m, 1000.0)
        self.assertEqual([r["player"] for r in rows], ["a", "b", "c"])
        self.assertEqual([r["elo"] for r in rows], [1000.0, 1100.0, 1150.0])
        self.assertEqual([r["games"] for r in rows], [200, 400, 200])
        self.assertAlmostEqual(rows[1]["high"] - rows[1]["elo"], 40.0)
        self.assertAlmostEqual(rows[2]["high"] - rows[2]["elo"], (40.0 ** 2 + 30.0 ** 2) ** 0.5)

    def test_a_short_chain_of_real_games_writes_its_table(self):
        with tempfile.TemporaryDirectory() as d:
            res = subprocess.run([sys.executable, LEVELS, "--vier", vier_bin(self), "--levels", "1",
                                  "--games", "2", "--out", d, "--quiet"],
                                 capture_output=True, text=True, timeout=300)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(os.path.join(d, "levels.json")) as fh:
                data = json.load(fh)
            self.assertEqual([p["player"] for p in data["players"]], ["win-block", "level-1", "full"])
            self.assertEqual([m["games"] for m in data["matches"]], [2, 2])
            with open(os.path.join(d, "table.md")) as fh:
                self.assertIn("| win-block -> level-1 | 2 |", fh.read())
