"""A real Connect Four engine from outside the project through the referee: Fairy-Stockfish
(Debian package fairy-stockfish) with the project's cfour variants file, against vier.  Fails,
never skips, when either engine is missing (tools/test.sh installs fairy-stockfish)."""

import os
import shlex
import tempfile
import unittest

from .support import fairy_stockfish, read_jsonl, run_referee, vier_bin


class FairyStockfish(unittest.TestCase):
    def test_vier_vs_fairy_stockfish(self):
        vier, fsf = shlex.quote(vier_bin(self)), fairy_stockfish(self)
        with tempfile.TemporaryDirectory() as d:
            out, pgn, log, openings = (os.path.join(d, f) for f in ("r.jsonl", "r.pgn", "p.log", "o.txt"))
            with open(openings, "w") as fh:
                fh.write("4453\n")
            # a generous margin: this checks the protocol and the rules, not speed
            res = run_referee("--tc", "movetime=30", "--margin", "2000",
                              "--engine", vier, "--name", "vier", "--engine", fsf, "--name", "fsf",
                              "--games", "2", "--openings", openings, "--out", out, "--pgn", pgn,
                              "--log", log, timeout=300)
            self.assertEqual(res.returncode, 0, f"{res.stdout}\n{res.stderr}")
            _, recs = read_jsonl(out)
            with open(log) as fh:
                traffic = fh.read()
            with open(pgn) as fh:
                self.assertEqual(fh.read().count('[Variant "cfour"]'), 2)
        self.assertEqual(len(recs), 2)
        for r in recs:
            self.assertIn(r["termination"], ("win", "draw"), r["reason"])
            self.assertEqual(r["notation"], {"A": "cfour", "B": "cfour"})
            fsf_moves = [p for p in r["plies"] if p["by"] == "B"]
            self.assertTrue(fsf_moves and all(p["sent"].startswith("P@") for p in fsf_moves))
        # its variant is chosen after the handshake, and it is given the game in drops
        self.assertIn("fsf > setoption name UCI_Variant value cfour", traffic)
        self.assertIn("fsf > position startpos moves P@d1 P@d2 P@e1 P@c1", traffic)


if __name__ == "__main__":
    unittest.main()
