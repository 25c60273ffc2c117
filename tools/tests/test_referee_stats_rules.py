"""Unit tests of the referee's pieces in viertools: statistics (against hand-worked values) and the rules."""

import math
import os
import unittest

from viertools import game, openings, results, rules, stats, timecontrol
from viertools.rules import Board, IllegalMove


class EloTests(unittest.TestCase):
    def test_elo_of_score(self):
        # 0.75 -> -400*log10(1/0.75 - 1) = 400*log10(3) = 400 * 0.4771212547 = 190.8485019
        self.assertAlmostEqual(stats.elo_from_score(0.75), 190.8485019, places=6)
        self.assertAlmostEqual(stats.elo_from_score(0.5), 0.0, places=12)
        self.assertAlmostEqual(stats.elo_from_score(0.25), -190.8485019, places=6)
        self.assertEqual(stats.elo_from_score(1.0), math.inf)
        self.assertEqual(stats.elo_from_score(0.0), -math.inf)
        # inverse: 1/(1+10^(-190.8485/400)) = 1/(1+1/3) = 0.75
        self.assertAlmostEqual(stats.score_from_elo(190.8485019), 0.75, places=9)

    def test_trinomial_error_bars(self):
        # W=60 D=30 L=10, N=100.  Worked by hand from the formulas:
        #   score m = (60 + 30/2)/100 = 0.75           -> Elo 190.8485
        #   per-game variance = (60*(1-.75)^2 + 30*(.5-.75)^2 + 10*(0-.75)^2)/100
        #                     = (3.75 + 1.875 + 5.625)/100 = 0.1125
        #   standard error    = sqrt(0.1125/100) = 0.0335410
        #   95% half width    = 1.959964 * 0.0335410 = 0.0657392
        #   bounds 0.6842608 / 0.8157392 -> Elo 400*log10(p/(1-p)) = 134.3573 / 258.4473
        st = stats.trinomial_stats(60, 30, 10)
        self.assertAlmostEqual(st["score"], 0.75)
        self.assertAlmostEqual(st["elo"], 190.8485, places=3)
        self.assertAlmostEqual(st["elo_low"], 134.3573, places=3)
        self.assertAlmostEqual(st["elo_high"], 258.4473, places=3)
        self.assertAlmostEqual(st["elo_error"], (258.4473 - 134.3573) / 2, places=3)
        self.assertAlmostEqual(st["draw_ratio"], 0.3)

    def test_los(self):
        # W=10 L=5: 0.5*(1 + erf(5/sqrt(30))) = 0.5*(1 + erf(0.9128709)) = 0.9016472
        # (erf(0.9128709) = 0.8032944 from a table of erf / by series)
        self.assertAlmostEqual(stats.los(10, 5), 0.9016472, places=6)
        self.assertAlmostEqual(stats.los(5, 10), 1 - 0.9016472, places=6)
        self.assertEqual(stats.los(7, 7), 0.5)
        self.assertEqual(stats.los(0, 0), 0.5)

    def test_pentanomial(self):
        # pairs [LL, LD, DD+WL, WD, WW] = [2, 8, 20, 12, 8], N = 50 pairs, pair scores /2:
        #   m = (0*2 + .25*8 + .5*20 + .75*12 + 1*8)/50 = 29/50 = 0.58
        #   var = (2*.58^2 + 8*.33^2 + 20*.08^2 + 12*.17^2 + 8*.42^2)/50
        #       = (0.6728 + 0.8712 + 0.128 + 0.3468 + 1.4112)/50 = 3.43/50 = 0.0686
        #   se = sqrt(0.0686/50) = 0.0370405, half width 1.959964*se = 0.0725981
        #   Elo(0.58) = 400*log10(0.58/0.42) = 56.0715
        #   bounds 0.5074019 / 0.6525981 -> Elo 5.1438 / 109.5254
        st = stats.pentanomial_stats([2, 8, 20, 12, 8])
        self.assertEqual(st["pairs"], 50)
        self.assertAlmostEqual(st["score"], 0.58)
        self.assertAlmostEqual(st["elo"], 56.0715, places=3)
        self.assertAlmostEqual(st["elo_low"], 5.1438, places=3)
        self.assertAlmostEqual(st["elo_high"], 109.5254, places=3)

    def test_no_spread_no_error_bars(self):
        # one drawn pair / only wins: the variance is 0, an interval would be meaningless
        st = stats.pentanomial_stats([0, 0, 1, 0, 0])
        self.assertAlmostEqual(st["elo"], 0.0)
        self.assertIsNone(st["elo_error"])
        st = stats.trinomial_stats(3, 0, 0)
        self.assertEqual(st["elo"], math.inf)
        self.assertIsNone(st["elo_error"])
        text = results.report({0: {"score_a": 1.0, "termination": "win"}}, {"A": "a", "B": "b"}, None, None)
        self.assertIn("n/a", text)

    def test_summarize_pairs(self):
        # games 0/1 are a pair, 2/3 another; game 4 has no partner yet
        recs = {0: {"score_a": 1.0, "termination": "win"}, 1: {"score_a": 0.5, "termination": "draw"},
                2: {"score_a": 0.0, "termination": "win"}, 3: {"score_a": 1.0, "termination": "win"},
                4: {"score_a": 1.0, "termination": "time_forfeit"}}
        s = results.summarize(recs)
        self.assertEqual((s["wins"], s["draws"], s["losses"]), (3, 1, 1))
        self.assertEqual(s["penta"], [0, 0, 1, 1, 0])  # 0+1 = 1 (WL), 1+0.5 = 1.5 (WD)
        self.assertEqual(s["terminations"], {"win": 3, "draw": 1, "time_forfeit": 1})


class SprtTests(unittest.TestCase):
    def test_bounds(self):
        # alpha = beta = 0.05: lower = ln(0.05/0.95) = -ln 19 = -2.944439, upper = ln(0.95/0.05) = +2.944439
        lo, hi = stats.sprt_bounds(0.05, 0.05)
        self.assertAlmostEqual(lo, -2.944439, places=6)
        self.assertAlmostEqual(hi, 2.944439, places=6)
        # alpha = 0.05, beta = 0.1: ln(0.1/0.95) = -2.251292, ln(0.9/0.05) = ln 18 = 2.890372
        lo, hi = stats.sprt_bounds(0.05, 0.10)
        self.assertAlmostEqual(lo, -2.251292, places=6)
        self.assertAlmostEqual(hi, 2.890372, places=6)

    def test_llr_logistic_pentanomial(self):
        # Same pairs as test_pentanomial: N=50, m=0.58, var=0.0686.
        # elo0=0 -> s0 = 0.5; elo1=10 -> s1 = 1/(1+10^(-10/400)) = 1/(1+0.9440609) = 0.5143872
        # LLR = N (s1-s0)(2m-s0-s1) / (2 var)
        #     = 50 * 0.0143872 * (1.16 - 1.0143872) / 0.1372
        #     = 50 * 0.0143872 * 0.1456128 / 0.1372 = 0.763469
        self.assertAlmostEqual(stats.sprt_llr([2, 8, 20, 12, 8], 0, 10), 0.763469, places=5)
        # symmetric results and a symmetric hypothesis pair: m = 0.5, s0+s1 = 1 -> LLR 0
        self.assertAlmostEqual(stats.sprt_llr([3, 5, 10, 5, 3], -5, 5), 0.0, places=12)

    def test_llr_regularized(self):
        # all pairs drawn: without regularization the variance would be 0
        llr = stats.sprt_llr([0, 0, 30, 0, 0], 0, 10)
        self.assertTrue(math.isfinite(llr))
        self.assertLess(llr, 0)  # m = 0.5 is H0's value: evidence for H0
        self.assertEqual(stats.sprt_llr([0, 0, 0, 0, 0], 0, 10), 0.0)

    def test_decisions(self):
        sprt = stats.Sprt.parse(["elo0=0", "elo1=10", "alpha=0.05", "beta=0.05"])
        self.assertIsNone(sprt.state([2, 8, 20, 12, 8])["decision"])  # LLR 0.76
        # 200 times those pairs: LLR scales with N -> 200*0.763469 = 152.7 > 2.944
        self.assertEqual(sprt.state([400, 1600, 4000, 2400, 1600])["decision"], "H1")
        # mirrored results (A is worse) -> far below the lower bound
        self.assertEqual(sprt.state([1600, 2400, 4000, 1600, 400])["decision"], "H0")
        with self.assertRaises(ValueError):
            stats.Sprt.parse(["elo0=10", "elo1=0"])
        with self.assertRaises(ValueError):
            stats.Sprt.parse(["elo=3"])


class TimeControlTests(unittest.TestCase):
    def test_parse(self):
        tc = timecontrol.TimeControl.parse("10+0.1")
        self.assertEqual((tc.kind, tc.base_ms, tc.inc_ms), ("clock", 10000, 100))
        tc = timecontrol.TimeControl.parse("5")
        self.assertEqual((tc.kind, tc.base_ms, tc.inc_ms), ("clock", 5000, 0))
        self.assertEqual(timecontrol.TimeControl.parse("movetime=100").value, 100)
        self.assertEqual(timecontrol.TimeControl.parse("depth=8").kind, "depth")
        self.assertEqual(timecontrol.TimeControl.parse("nodes=100000").value, 100000)
        for bad in ("", "movetime=", "depth=0", "10+", "fast", "movetime=-3"):
            with self.assertRaises(ValueError, msg=bad):
                timecontrol.TimeControl.parse(bad)

    def test_go_command_orders_clocks_by_colour(self):
        tc = timecontrol.TimeControl.parse("10+0.1")
        clocks = {"A": 9000.0, "B": 8000.0}
        incs = {"A": 100, "B": 100}
        # B plays first in odd games: wtime is B's clock
        go, allowed = game.go_command(tc, clocks, incs, "A", "B", "A")
        self.assertEqual(go, "go wtime 8000 btime 9000 winc 100 binc 100")
        self.assertEqual(allowed, 9000.0)


class RulesTests(unittest.TestCase):
    def play(self, moves, w=7, h=6):
        b = Board(w, h)
        outcome = None
        for m in moves:
            self.assertIsNone(outcome, "game went on after it ended")
            outcome = b.play(m)
        return b, outcome

    def test_vertical(self):
        b, out = self.play("1212121")
        self.assertEqual((out, b.winner, b.win_direction), ("win", rules.FIRST, "vertical"))

    def test_horizontal(self):
        b, out = self.play("1122334")
        self.assertEqual((out, b.winner, b.win_direction), ("win", rules.FIRST, "horizontal"))
        # second player: x 7, 1, 2, 3 (x has three on row 2) / o 1, 2, 3, 4 on the bottom row
        b, out = self.play("71122334")
        self.assertEqual(out, "win")
        self.assertEqual(b.winner, rules.SECOND)
        self.assertEqual(b.win_direction, "horizontal")

    def test_diagonal_up(self):
        # x: 1, 2(r1), 3(r2), 4(r3)
        b, out = self.play("12233434474")
        self.assertEqual((out, b.winner, b.win_direction), ("win", rules.FIRST, "diagonal /"))

    def test_diagonal_down(self):
        # mirror of the above: x: 7, 6(r1), 5(r2), 4(r3)
        b, out = self.play("76655454414")
        self.assertEqual((out, b.winner, b.win_direction), ("win", rules.FIRST, "diagonal \\"))

    def test_win_by_filling_a_gap(self):
        # x has 1,2,_,4 on the bottom row and completes the middle: the line runs both ways
        b, out = self.play("1122443")
        self.assertEqual((out, b.win_direction), ("win", "horizontal"))

    def test_no_false_win(self):
        b, out = self.play("123")
        self.assertIsNone(out)
        b, out = self.play("1213111")  # x 1,1,1 + o 2,3,1: no four anywhere
        self.assertIsNone(out)
        self.assertEqual(b.winner, rules.EMPTY)

    def test_full_board_draw_4x4(self):
        # found by a random search, checked: 16 moves, nobody gets four
        b, out = self.play("4321311144234232", 4, 4)
        self.assertEqual(out, "draw")
        self.assertTrue(b.is_full())
        self.assertEqual(b.winner, rules.EMPTY)
        self.assertEqual(b.legal_columns(), [])

    def test_small_board_win(self):
        b, out = self.play("1212121", 4, 4)
        self.assertEqual(out, "win")
        b, out = self.play("1122334", 4, 4)
        self.assertEqual(out, "win")

    def test_random_games_against_brute_force(self):
        # an independent, naive scan of the whole board after every move must agree
        # with the referee's incremental check through the last stone
        import random

        def brute_winner(grid, w, h):
            for c in range(w):
                for r in range(h):
                    who = grid[c][r]
                    if who == 0:
                        continue
                    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                        cells = [(c + k * dc, r + k * dr) for k in range(4)]
                        if all(0 <= x < w and 0 <= y < h and grid[x][y] == who for x, y in cells):
                            return who
            return 0

        rng = random.Random(2024)
        for w, h in ((7, 6), (4, 4), (5, 4), (9, 7)):
            for _ in range(150):
                b = Board(w, h)
                grid = [[0] * h for _ in range(w)]
                while True:
                    col = rng.choice(b.legal_columns())
                    who = b.side_to_move()
                    grid[col - 1][grid[col - 1].index(0)] = who
                    out = b.play(col)
                    expect = brute_winner(grid, w, h)
                    if expect:
                        self.assertEqual((out, b.winner), ("win", expect), b.move_string())
                        break
                    if all(0 not in col_ for col_ in grid):
                        self.assertEqual(out, "draw", b.move_string())
                        break
                    self.assertIsNone(out, b.move_string())

    def test_illegal_moves(self):
        b = Board()
        for bad in ("0", "8", "x", "", " ", "44", "-1", "4.0", "\u0664"):  # last: Arabic-Indic four
            with self.assertRaises(IllegalMove, msg=repr(bad)):
                b.parse_move(bad)
        for _ in range(6):
            b.play(4)
        with self.assertRaises(IllegalMove) as cm:
            b.play(4)
        self.assertIn("full", str(cm.exception))
        b4 = Board(4, 4)
        with self.assertRaises(IllegalMove):
            b4.parse_move("5")

    def test_no_move_after_the_end(self):
        b, out = self.play("1212121")
        with self.assertRaises(IllegalMove):
            b.play(3)

    def test_fen(self):
        b, _ = self.play("4453")
        self.assertEqual(b.to_fen(), "7/7/7/7/3o3/2oxx2 x")

    def test_move_lists(self):
        self.assertEqual(rules.parse_move_list("4 4 5 3"), [4, 4, 5, 3])
        self.assertEqual(rules.parse_move_list("4453"), [4, 4, 5, 3])
        self.assertEqual(rules.parse_move_list("ddec"), [4, 4, 5, 3])
        self.assertEqual(rules.parse_move_list("jl", 12), [10, 12])
        with self.assertRaises(IllegalMove):
            rules.parse_move_list("44a")
        with self.assertRaises(IllegalMove):  # past 9 columns a digit is no move
            rules.parse_move_list("44", 12)
        with self.assertRaises(IllegalMove):
            rules.parse_move_list("n")  # m is 13x4's last column

    def test_a_board_of_12_columns_writes_letters_and_numbered_runs(self):
        b = Board(12, 4)
        for m in (12, 1, 10):
            b.play(m)
        self.assertEqual(b.move_string(), "laj")
        self.assertEqual(b.to_fen(), "12/12/12/o8x1x o")
        self.assertEqual(b.position_command("digits"), "position startpos moves 12 1 10")
        self.assertEqual(b.played_text("cfour"), ["P@l1", "P@a1", "P@j1"])
        again = Board.from_fen(b.to_fen(), 12, 4)
        self.assertEqual(again.to_fen(), b.to_fen())
        self.assertEqual(rules.board_from_opening("laj", 12, 4).to_fen(), b.to_fen())
        self.assertEqual(b.parse_move("11"), 11)
        with self.assertRaises(IllegalMove):
            b.parse_move("13")
        with self.assertRaises(ValueError):
            Board(14, 4)  # 13x4 is the widest board

    def test_opening_file(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "o.txt")
            with open(p, "w") as fh:
                fh.write("# header\n44\n4 3  # comment\n\n435\n")
            self.assertEqual(openings.load_openings(p, 7, 6), ["44", "43", "435"])
            with open(p, "w") as fh:
                fh.write("4444444\n")
            with self.assertRaises(ValueError):
                openings.load_openings(p, 7, 6)
            with open(p, "w") as fh:
                fh.write("1212121\n")  # the game is over
            with self.assertRaises(ValueError):
                openings.load_openings(p, 7, 6)

    def test_schedule(self):
        s = openings.Schedule(["1", "2", "3"], None)
        self.assertEqual([s.opening(g) for g in range(8)], ["1", "1", "2", "2", "3", "3", "1", "1"])
        a = openings.Schedule(["1", "2", "3", "4", "5"], 7)
        b = openings.Schedule(["1", "2", "3", "4", "5"], 7)
        seq = [a.opening(g) for g in range(20)]
        self.assertEqual(seq, [b.opening(g) for g in range(20)])  # reproducible
        self.assertEqual(sorted(seq[0:10:2]), ["1", "2", "3", "4", "5"])  # every opening once per round
        self.assertEqual(seq[0::2], seq[1::2])  # both games of a pair share the opening


if __name__ == "__main__":
    unittest.main()
