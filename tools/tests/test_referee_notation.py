"""The referee speaks to each engine in its own notation (issue 15): column digits or cfour
drops and FENs, and judges every move in the notation of the engine that made it."""

import os
import tempfile
import unittest

from viertools.rules import Board, IllegalMove, board_from_moves

from .support import fake, read_jsonl, run_referee

DROPS = ("--notation", "cfour", "--name", "drops")
DIGITS = ("--name", "digits")


class Notation(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def match(self, a, b, *extra, games=2, a_args=()):
        self.runs = getattr(self, "runs", 0) + 1
        out = os.path.join(self.dir, f"r{self.runs}.jsonl")
        log = os.path.join(self.dir, f"protocol{self.runs}.log")
        res = run_referee("--tc", "movetime=200", "--engine", a, "--name", "A", *a_args, "--engine", b,
                          "--name", "B", "--games", str(games), "--out", out, "--log", log, *extra)
        header, recs = read_jsonl(out) if os.path.exists(out) else (None, [])
        with open(log) as fh:
            sent = [line.split(" > ", 1)[1].strip() for line in fh if " > " in line]
        return res, header, recs, sent

    def test_drop_engine_and_digit_engine_refereed_in_their_notations(self):
        openings = os.path.join(self.dir, "o.txt")
        with open(openings, "w") as fh:
            fh.write("4453\n")
        res, _, recs, sent = self.match(fake(*DROPS), fake(*DIGITS), "--openings", openings)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(len(recs), 2)
        for r in recs:
            self.assertIn(r["termination"], ("win", "draw"), r["reason"])
            self.assertEqual(r["notation"], {"A": "cfour", "B": "digits"})
            self.assertTrue(r["moves"].isdigit())  # the records keep one notation: digits
            for p in r["plies"]:
                self.assertTrue(p["move"].isdigit(), p)
                if p["by"] == "A":
                    self.assertTrue(p["sent"].startswith("P@"), p)  # what the engine said
                else:
                    self.assertNotIn("sent", p)
        self.assertIn("setoption name UCI_Variant value cfour", sent)
        self.assertTrue(any(s.startswith("position startpos moves P@d1 P@d2 P@e1 P@c1") for s in sent))
        self.assertTrue(any(s.startswith("position startpos moves 4 4 5 3") for s in sent))

    def test_forced_notation_overrides_the_uci_options(self):
        # the drop engine offers UCI_Variant cfour, but digits are forced: its drops are illegal
        res, _, recs, sent = self.match(fake(*DROPS), fake(*DIGITS), games=1,
                                        a_args=("--notation", "digits"))
        self.assertEqual(recs[0]["notation"]["A"], "digits")
        self.assertNotIn("setoption name UCI_Variant value cfour", sent)
        self.assertEqual((recs[0]["termination"], recs[0]["offender"]), ("illegal_move", "A"))

    def illegal(self, engine, want):
        res, _, recs, _ = self.match(engine, fake(*DIGITS), games=1)
        self.assertEqual(res.returncode, 0, res.stderr)
        r = recs[0]
        self.assertEqual((r["termination"], r["offender"], r["winner"]), ("illegal_move", "A", "B"))
        self.assertIn(want, r["reason"])
        return r

    def test_drop_on_a_full_column_is_illegal(self):
        # the fake plays column 1 until it is full (6 of A's moves, the digits engine answers 1 too
        # ... so column 1 fills after 3 moves each), then drops on it once more
        r = self.illegal(fake(*DROPS, "--mode", "illegal", "--illegal", "full", "--after", "5"), "full")
        self.assertEqual(r["plies"][-1]["move"], "P@a7")

    def test_drop_onto_a_floating_cell_is_illegal(self):
        r = self.illegal(fake(*DROPS, "--mode", "illegal", "--illegal", "floating", "--after", "2"),
                         "lands on rank")
        self.assertTrue(r["plies"][-1]["move"].startswith("P@a"))

    def test_bestmove_in_the_wrong_notation_is_illegal(self):
        self.illegal(fake(*DROPS, "--mode", "illegal", "--illegal", "4"), "is not a drop")
        self.illegal(fake(*DIGITS, "--mode", "illegal", "--illegal", "P@d1"), "is not a column number")

    def test_other_board_sizes_only_with_engines_that_can_play_them(self):
        ini = os.path.join(self.dir, "nosize.py")
        with open(ini, "w") as fh:  # an engine without Width/Height options
            fh.write("import sys\nfor l in sys.stdin:\n    w = l.split()\n"
                     "    if w[:1] == ['uci']: print('id name nosize'); print('uciok', flush=True)\n"
                     "    if w[:1] == ['isready']: print('readyok', flush=True)\n")
        res, _, recs, _ = self.match(f"python3 {ini}", fake(*DIGITS), "--size", "5x4", games=1)
        self.assertEqual(res.returncode, 1)
        self.assertIn("cannot play 5x4", res.stderr)
        self.assertEqual(recs, [])
        # the fake engine's Height spin goes up to 9: 12 rows are refused, 5x4 is played
        res, _, recs, _ = self.match(fake(*DIGITS), fake(*DIGITS), "--size", "5x12", games=1)
        self.assertEqual(res.returncode, 1)
        self.assertIn("cannot play 5x12", res.stderr)
        res, _, recs, sent = self.match(fake(*DIGITS), fake(*DIGITS), "--size", "5x4", games=1)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("setoption name Width value 5", sent)
        self.assertEqual(recs[0]["size"], "5x4")


class Rules(unittest.TestCase):
    def test_drops_are_checked_against_the_board(self):
        b = board_from_moves([4, 4, 5, 3])
        self.assertEqual(b.parse_move("P@d3", "cfour"), 4)
        self.assertEqual(b.parse_move("p@a1", "cfour"), 1)
        for bad in ("P@d2", "P@d4", "P@h1", "4", "d3", "P@"):
            with self.assertRaises(IllegalMove, msg=bad):
                b.parse_move(bad, "cfour")
        with self.assertRaises(IllegalMove):
            b.parse_move("P@d3", "digits")
        self.assertEqual(b.move_text(4, "cfour"), "P@d3")
        self.assertEqual(b.played_text("cfour"), ["P@d1", "P@d2", "P@e1", "P@c1"])

    def test_the_two_fens(self):
        b = board_from_moves([4, 4, 5, 3])
        self.assertEqual(b.to_fen(), "7/7/7/7/3o3/2oxx2 x")
        # 21 discs each, 2 of each placed; x (P) to move at move 3
        self.assertEqual(b.to_cfour_fen(),
                         "7/7/7/7/3p3/2pPP2[" + "P" * 19 + "p" * 19 + "] w - - 0 3")
        for text in (b.to_fen(), b.to_cfour_fen()):
            c = Board.from_fen(text)
            self.assertEqual((c.cells, c.ply, c.side_to_move()), (b.cells, 4, b.side_to_move()))
            self.assertEqual(c.position_command("digits"), "position fen 7/7/7/7/3o3/2oxx2 x")
        c.play(4)
        self.assertEqual(c.position_command("cfour"), f"position fen {b.to_cfour_fen()} moves P@d3")
        for bad in ("7/7/7/7/3o3/2oox2 x",   # counts do not fit
                    "7/7/7/7/3x3/7 o",        # floating disc
                    "7/7/7/7/7/xxxx3 o",      # x has 4 discs, o none
                    "7/7/7/7/7 x", "7/7/7/7/7/8 x", "7/7/7/7/7/7 z"):
            with self.assertRaises(ValueError, msg=bad):
                Board.from_fen(bad)


if __name__ == "__main__":
    unittest.main()
