"""PGN beside the JSONL (issue 15): games written as cutechess writes cfour games, read back and
compared with the JSONL game for game; opening files in EPD and PGN."""

import os
import tempfile
import unittest

from viertools.openings import load_openings
from viertools.pgn import column_of, game_to_pgn, pgn_game_board, read_pgn
from viertools.rules import Board, board_from_opening

from .support import fake, read_jsonl, run_referee


def replay(game: dict, size=(7, 6)) -> list[int]:
    """The columns of a PGN game's moves, played from its FEN."""
    board = board_from_opening(game["tags"].get("FEN", ""), *size)
    cols = []
    for san in game["moves"]:
        cols.append(column_of(board, san))
        board.play(cols[-1])
    return cols


class PgnFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name, text=None):
        p = os.path.join(self.dir, name)
        if text is not None:
            with open(p, "w") as fh:
                fh.write(text)
        return p

    def test_pgn_matches_the_jsonl_game_for_game(self):
        openings = self.path("o.txt", "4453\n\n")
        res = run_referee("--tc", "movetime=100", "--engine", fake("--random", "--seed", "3"),
                          "--name", "x", "--engine", fake("--notation", "cfour", "--random", "--seed", "4"),
                          "--name", "y", "--games", "4", "--openings", openings,
                          "--out", self.path("r.jsonl"), "--pgn", self.path("r.pgn"))
        self.assertEqual(res.returncode, 0, res.stderr)
        _, recs = read_jsonl(self.path("r.jsonl"))
        with open(self.path("r.pgn")) as fh:
            games = read_pgn(fh.read())
        self.assertEqual(len(games), len(recs))
        for rec, game in zip(recs, games):
            tags = game["tags"]
            self.assertEqual((tags["White"], tags["Black"], tags["Result"], tags["Round"]),
                             (rec["first_name"], rec["second_name"], rec["result"], str(rec["game"] + 1)))
            self.assertEqual(game["result"], rec["result"])
            self.assertEqual((tags["Variant"], tags["TimeControl"]), ("cfour", "0.1/move"))
            self.assertEqual(tags["Termination"], "normal")
            # the opening 4453 as a FEN: x to move at move 3
            self.assertEqual(tags["FEN"], "7/7/7/7/3p3/2pPP2[" + "P" * 19 + "p" * 19 + "] w - - 0 3")
            self.assertEqual(tags["SetUp"], "1")
            cols = replay(game)
            self.assertEqual("4453" + "".join(map(str, cols)), rec["moves"])
            self.assertEqual(int(tags["PlyCount"]), len(cols))
            # one comment per move with the engine's score and time, then the reason
            for ply, comment in zip(rec["plies"], game["comments"]):
                self.assertTrue(comment.endswith(f"{ply['time_ms'] / 1000:.3f}s"), comment)
            self.assertEqual(game["comments"][-1], rec["reason"])

    def test_pgn_without_opening_has_no_fen_and_numbers_moves(self):
        rec = {"game": 0, "opening": "", "size": "7x6", "first": "A", "second": "B",
               "first_name": "a", "second_name": "b", "tc": {"A": "10+0.1", "B": "depth=3"},
               "started": "2026-11-23T04:00:00+00:00", "moves": "4141414", "result": "1-0",
               "termination": "win", "reason": "a made four in a row (vertical)",
               "plies": [{"time_ms": 10.0, "depth": 5, "score": {"cp": 12}},
                         {"time_ms": 20.0, "depth": None, "score": None},
                         {"time_ms": 30.0, "depth": 7, "score": {"mate": 2}}] + [{"time_ms": 1.0}] * 4}
        text = game_to_pgn(rec)
        flat = " ".join(text.split())
        self.assertNotIn("[FEN", text)
        self.assertIn('[WhiteTimeControl "10+0.1"]', text)
        self.assertIn('[BlackTimeControl "-"]', text)
        self.assertIn("1. P@d1 {+0.12/5 0.010s} P@a1 {0.020s} 2. P@d2 {+M2/7 0.030s}", flat)
        self.assertIn("4. P@d4 {0.001s} {a made four in a row (vertical)} 1-0", flat)
        self.assertTrue(all(len(line) <= 79 for line in text.splitlines()))
        (game,) = read_pgn(text)
        self.assertEqual(game["moves"], ["P@d1", "P@a1", "P@d2", "P@a2", "P@d3", "P@a3", "P@d4"])

    def test_resume_rewrites_the_pgn_from_the_jsonl(self):
        out, pgn = self.path("r.jsonl"), self.path("r.pgn")
        args = ["--tc", "movetime=100", "--engine", fake(), "--engine", fake("--notation", "cfour"),
                "--pgn", pgn]
        self.assertEqual(run_referee(*args, "--games", "2", "--out", out).returncode, 0)
        with open(pgn, "a") as fh:  # as if killed in the middle of writing a game
            fh.write('[Event "?"]\n[Site')
        refused = run_referee(*args, "--games", "4", "--out", self.path("other.jsonl"))
        self.assertEqual(refused.returncode, 2)  # a new match does not overwrite a PGN
        self.assertIn("--pgn", refused.stderr)
        res = run_referee(*args, "--games", "4", "--resume", out)
        self.assertEqual(res.returncode, 0, res.stderr)
        _, recs = read_jsonl(out)
        with open(pgn) as fh:
            games = read_pgn(fh.read())
        self.assertEqual([g["tags"]["Round"] for g in games], [str(r["game"] + 1) for r in recs])
        self.assertEqual(len(games), 4)


class OpeningFiles(unittest.TestCase):
    def write(self, d, name, text):
        p = os.path.join(d, name)
        with open(p, "w") as fh:
            fh.write(text)
        return p

    def test_epd_and_pgn_openings(self):
        with tempfile.TemporaryDirectory() as d:
            epd = self.write(d, "o.epd", "7/7/7/7/3p3/2PP3[PPPPPPPPPPPPPPPPPPPpppppppppppppppppppp] b - - id \"a\";\n"
                                         "7/7/7/7/7/3x3 o\n")
            got = load_openings(epd, 7, 6)
            self.assertEqual(got, ["7/7/7/7/3p3/2PP3[" + "P" * 19 + "p" * 20 + "] b - - 0 2",
                                   "7/7/7/7/7/3P3[" + "P" * 20 + "p" * 21 + "] b - - 0 1"])
            pgn = self.write(d, "o.pgn", '[Event "a"]\n\n1. P@d1 P@d2 2. e1 {x} (2. a1) c1 *\n\n'
                                         '[Event "b"]\n[FEN "7/7/7/7/7/3P3[PPPPPPPPPPPPPPPPPPPPppppppppppppppppppppp] b - - 0 1"]\n'
                                         '[SetUp "1"]\n\n1... P@c1 2. P@c2 *\n')
            self.assertEqual(load_openings(pgn, 7, 6)[0], "4453")
            self.assertEqual(load_openings(pgn, 7, 6, plies=2)[0], "44")
            (second,) = load_openings(pgn, 7, 6)[1:]
            self.assertEqual(Board.from_fen(second).to_fen(), "7/7/7/7/2x4/2ox3 o")
            self.assertEqual(load_openings(self.write(d, "m.txt", "4 4 5 3 # c\n"), 7, 6, plies=3), ["445"])
            with self.assertRaises(ValueError):
                load_openings(self.write(d, "bad.pgn", "1. P@d2 *\n"), 7, 6)  # floating drop

    def test_openings_argument_order_and_format(self):
        with tempfile.TemporaryDirectory() as d:
            epd = self.write(d, "o.txt", "7/7/7/7/7/3x3 o\n7/7/7/7/7/2x4 o\n7/7/7/7/7/x6 o\n")
            out = os.path.join(d, "r.jsonl")
            res = run_referee("--tc", "movetime=100", "--engine", fake(), "--engine", fake(),
                              "--games", "6", "--openings", f"file={epd}", "format=epd", "order=random",
                              "--out", out)
            self.assertEqual(res.returncode, 0, res.stderr)
            header, recs = read_jsonl(out)
            self.assertIsNotNone(header["seed"])  # a random order is recorded so --resume keeps it
            self.assertEqual(sorted({r["opening"] for r in recs}), sorted(header["openings"]))
            self.assertTrue(all(r["moves"] != "" and r["opening"].endswith("b - - 0 1") for r in recs))
            bad = run_referee("--tc", "movetime=100", "--engine", fake(), "--engine", fake(),
                              "--games", "2", "--openings", epd, "order=sideways")
            self.assertEqual(bad.returncode, 2)
            self.assertIn("order=sideways", bad.stderr)

    def test_pgn_game_board_plies(self):
        (game,) = read_pgn("1. d1 d2 2. d3 *")
        self.assertEqual(pgn_game_board(game, 7, 6, 2).move_string(), "44")


if __name__ == "__main__":
    unittest.main()
