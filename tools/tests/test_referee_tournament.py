"""More than two engines (issue 15): round robin and gauntlet with colour-swapped pairs, and the
joint maximum-likelihood Elo of every engine."""

import math
import os
import tempfile
import unittest

from viertools.stats import joint_elo

from .support import fake, read_jsonl, run_referee

# two sound engines and one that answers an illegal move at once, so loses every game
ENGINES = [("--engine", fake(), "--name", "s1"), ("--engine", fake(), "--name", "s2"),
           ("--engine", fake("--mode", "illegal"), "--name", "loser")]


class Tournament(unittest.TestCase):
    def run_tournament(self, kind):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "t.jsonl")
            res = run_referee("--tc", "movetime=200", *[a for e in ENGINES for a in e],
                              "--tournament", kind, "--games", "2", "--concurrency", "2", "--out", out)
            self.assertEqual(res.returncode, 0, res.stderr)
            header, recs = read_jsonl(out)
        return res.stdout, header, sorted(recs, key=lambda r: r["game"])

    def table_row(self, stdout, name):
        rows = [line.split() for line in stdout.splitlines() if line.split()[1:2] == [name]]
        self.assertEqual(len(rows), 1, stdout)
        return rows[0]  # rank, engine, games, points, (pct), W/D/L, Elo, ...

    def test_round_robin(self):
        stdout, header, recs = self.run_tournament("round-robin")
        self.assertEqual(header["pairings"], [[0, 1], [0, 2], [1, 2]])
        self.assertEqual([r["pairing"] for r in recs], [[0, 1], [0, 1], [0, 2], [0, 2], [1, 2], [1, 2]])
        self.assertEqual([(r["engines"]["A"], r["engines"]["B"]) for r in recs],
                         [("s1", "s2")] * 2 + [("s1", "loser")] * 2 + [("s2", "loser")] * 2)
        for g in (0, 2, 4):  # colour-swapped pairs on the same opening
            self.assertEqual((recs[g]["first"], recs[g + 1]["first"]), ("A", "B"))
        for r in recs[2:]:
            self.assertEqual((r["termination"], r["winner"]), ("illegal_move", "A"))
        # the two sound engines play the same game with colours swapped: one win each
        self.assertEqual(sorted(r["score_a"] for r in recs[:2]), [0.0, 1.0])
        s1, s2, loser = (self.table_row(stdout, n) for n in ("s1", "s2", "loser"))
        self.assertEqual([s1[2], s1[3], s1[5]], ["4", "3", "3/0/1"])
        self.assertEqual([s2[2], s2[3], s2[5]], ["4", "3", "3/0/1"])
        self.assertEqual([loser[2], loser[3], loser[5], loser[6]], ["4", "0", "0/0/4", "-inf"])
        self.assertEqual((s1[6], s2[6]), ("+0.0", "+0.0"))
        self.assertIn("s1 vs s2: +1 =0 -1", stdout)
        self.assertIn("s1 vs loser: +2 =0 -0", stdout)
        self.assertIn("s2 vs loser: +2 =0 -0", stdout)

    def test_gauntlet(self):
        stdout, header, recs = self.run_tournament("gauntlet")
        self.assertEqual(header["pairings"], [[0, 1], [0, 2]])
        self.assertEqual(len(recs), 4)
        self.assertTrue(all(r["engines"]["A"] == "s1" for r in recs))
        self.assertEqual([r["engines"]["B"] for r in recs], ["s2", "s2", "loser", "loser"])
        self.assertEqual(self.table_row(stdout, "s1")[2:4], ["4", "3"])
        self.assertEqual(self.table_row(stdout, "s2")[2:4], ["2", "1"])
        self.assertNotIn("s2 vs loser", stdout)


class JointElo(unittest.TestCase):
    def test_consistent_results_give_their_elo(self):
        # A-B 3/4 and B-C 3/4 are 400*log10(3) = 190.85 Elo each; A-C 9/10 is 400*log10(9) =
        # 381.70 = 2 * 190.85, so the three results agree and maximum likelihood reproduces them
        # exactly: A +190.85, B 0, C -190.85 (average 0).
        got = joint_elo(3, [(0, 1, 3, 4), (1, 2, 3, 4), (0, 2, 9, 10)])
        for value, want in zip(got["elo"], (190.8485, 0.0, -190.8485)):
            self.assertAlmostEqual(value, want, places=3)

    def test_two_engines_interval_by_hand(self):
        # 100 games at 75%: difference d = 190.85; its variance is 1 / (c^2 n p (1-p)) with
        # c = ln(10)/400 = 0.0057565, n p (1-p) = 18.75: var = 1609.4, sd 40.12.  Each engine is
        # +-d/2, so sd 20.06 and a 95% half-width of 1.96 * 20.06 = 39.32.
        got = joint_elo(2, [(0, 1, 75, 100)])
        self.assertAlmostEqual(got["elo"][0], 95.424, places=2)
        self.assertAlmostEqual(got["high"][0] - got["elo"][0], 39.32, places=1)
        self.assertAlmostEqual(got["elo"][0] - got["low"][0], 39.32, places=1)

    def test_perfect_scores_are_infinite(self):
        got = joint_elo(3, [(0, 1, 2, 2), (0, 2, 2, 2), (1, 2, 1, 2)])
        self.assertEqual(got["elo"][0], math.inf)
        self.assertIsNone(got["low"][0])
        self.assertAlmostEqual(got["elo"][1], 0.0)


if __name__ == "__main__":
    unittest.main()
