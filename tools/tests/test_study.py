"""Tests of tools/study.py: its pieces, and --quick end to end with the real engine.

The engine binary comes from the environment variable VIER_BIN (the Rust test wrapper sets it
under `cargo test`).  Without it the end-to-end test FAILS on purpose: a missing engine must not
look like a passing suite.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import study
from viertools.engine import parse_info
from viertools.oracle import ensure_oracle, judge, load_oracle
from viertools.stats import wilson

from .support import vier_bin

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STUDY = os.path.join(ROOT, "tools", "study.py")
DATA = os.path.join(ROOT, "tests", "data", "pons")
COMMITTED_ORACLE = os.path.join(ROOT, "docs", "study", "oracle.json")


class Pieces(unittest.TestCase):
    def test_judge_keeps_value_by_sign(self):
        scores = [-2, -1, 0, 1, 0, -1, None]  # the empty board's columns (7th made full)
        self.assertEqual(judge(scores, 4), (True, True))     # the only win
        self.assertEqual(judge(scores, 3), (False, False))   # a draw throws the win away
        self.assertEqual(judge(scores, 7), (False, False))   # a full column
        self.assertEqual(judge(scores, 8), (False, False))   # off the board
        lost = [-5, -3, -9]
        self.assertEqual(judge(lost, 1), (True, False))      # lost anyway: keeps the value
        self.assertEqual(judge(lost, 2), (True, True))       # the slowest loss is optimal
        won = [3, 1, -2]
        self.assertEqual(judge(won, 2), (True, False))       # a slower win still wins

    def test_sample_is_deterministic_and_nested(self):
        a = study.sample_positions(DATA, 5, seed=1)
        b = study.sample_positions(DATA, 2, seed=1)
        c = study.sample_positions(DATA, 5, seed=2)
        self.assertEqual([p for p, _ in study.PHASES], list(a))
        for phase in a:
            self.assertEqual(len(a[phase]), 5)
            self.assertEqual(a[phase][:2], b[phase])  # quick mode's positions are the full study's
        self.assertNotEqual(a, c)
        for moves, _ in a["begin"]:
            self.assertTrue(4 <= len(moves) <= 14, moves)
        for moves, _ in a["end"]:
            self.assertTrue(len(moves) >= 29, moves)

    def test_parse_info(self):
        got = parse_info("info depth 13 seldepth 23 multipv 1 score mate -4 wdl 0 0 1000 "
                         "nodes 2209558 nps 7365193 hashfull 273 time 300 pv 3 4 4")
        self.assertEqual(got, {"depth": 13, "seldepth": 23, "score": {"mate": -4},
                               "wdl": [0, 0, 1000], "nodes": 2209558, "time": 300})

    def test_describe_and_wilson(self):
        d = study.describe([1, 2, 3, 4])
        self.assertEqual((d["n"], d["mean"], d["median"], d["min"], d["max"]), (4, 2.5, 2.5, 1, 4))
        self.assertAlmostEqual(d["sd"], 1.118, places=3)
        lo, hi = wilson(10, 10)
        self.assertEqual(hi, 1.0)
        self.assertTrue(0.6 < lo < 0.75)

    def test_value_breakdown_by_side_to_move(self):
        values = {"4444": 1, "3333": 0}  # scores for the side to move after the opening (x here)
        games = [{"opening": "4444", "first": "A", "score_a": 1.0},   # A is x: won for A
                 {"opening": "4444", "first": "B", "score_a": 0.5},   # A is o: lost for A
                 {"opening": "3333", "first": "B", "score_a": 0.0}]
        got = study.value_breakdown(games, values)
        self.assertEqual(got, {"won for vier": [1.0, 1], "drawn": [0.0, 1],
                               "lost for vier": [0.5, 1]})
        self.assertIsNone(study.value_breakdown([{"opening": "1", "first": "A", "score_a": 1}],
                                                values))
        parsed = study.opening_values(os.path.join(ROOT, "tools", "openings.txt"))
        self.assertEqual(parsed.get("4444"), 1)
        self.assertEqual(parsed.get("3333"), 0)

    def test_stale_oracle_is_refused(self):
        sample = study.sample_positions(DATA, 1, seed=1)
        moves, exact = sample["end"][0]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "oracle.json")
            oracle = load_oracle(path)
            wrong = [exact + 1] * 7  # best column disagrees with Pons' score
            oracle["positions"] = {m: (wrong if m == moves else [e] * 7)
                                   for rows in sample.values() for m, e in rows}
            with open(path, "w") as fh:
                json.dump(oracle, fh)
            with self.assertRaises(SystemExit) as cm:
                ensure_oracle(path, "/nonexistent/vier", sample, lambda _: None)
            self.assertIn("Pons", str(cm.exception))


class QuickRun(unittest.TestCase):
    def test_quick_mode_end_to_end(self):
        binary = vier_bin(self)
        with tempfile.TemporaryDirectory() as d:
            oracle = os.path.join(d, "oracle.json")
            if os.path.exists(COMMITTED_ORACLE):  # the quick sample is a prefix of the full one
                shutil.copy(COMMITTED_ORACLE, oracle)
            # a generous margin: under cargo test VIER_BIN is a debug build
            res = subprocess.run([sys.executable, STUDY, "--quick", "--bin", binary, "--data", DATA,
                                  "--out-dir", d, "--oracle", oracle, "--margin", "2000"],
                                 capture_output=True, text=True, timeout=600)
            self.assertEqual(res.returncode, 0, f"study failed:\n{res.stdout}\n{res.stderr}")
            with open(os.path.join(d, "results.json")) as fh:
                results = json.load(fh)
            self.assertEqual(results["meta"]["times"], study.QUICK_TIMES)
            for t in study.QUICK_TIMES:
                s = results["summary"][str(t)]
                for phase in ("begin", "middle", "end", "all"):
                    self.assertIn("keeps_value", s[phase])
                    self.assertTrue(0.0 <= s[phase]["keeps_value"] <= 1.0)
                self.assertEqual(s["all"]["positions"], 6)
                self.assertGreaterEqual(s["all"]["depth"]["min"], 1)
                self.assertGreater(s["all"]["nodes"]["mean"], 0)
                m = results["matches"][str(t)]
                self.assertEqual(m["games"], 2)
                self.assertEqual(m["wins"] + m["draws"] + m["losses"], 2)
                self.assertTrue(set(m["terminations"]) <= {"win", "draw"}, m["terminations"])
                self.assertEqual(sum(n for _, n in m["by_opening_value"].values()), 2)
            # longer thinking never searches less deep on average
            self.assertGreaterEqual(results["summary"]["30"]["begin"]["depth"]["mean"],
                                    results["summary"]["3"]["begin"]["depth"]["mean"])
            with open(os.path.join(d, "summary.csv")) as fh:
                rows = list(csv.DictReader(fh))
            self.assertEqual([int(r["ms"]) for r in rows], study.QUICK_TIMES)
            with open(os.path.join(d, "positions.csv")) as fh:
                self.assertEqual(len(list(csv.DictReader(fh))), 6 * len(study.QUICK_TIMES))
            with open(os.path.join(d, "oracle.json")) as fh:
                self.assertEqual(len(json.load(fh)["positions"]) >= 6, True)
            for t in study.QUICK_TIMES:
                self.assertTrue(os.path.exists(os.path.join(d, "matches", f"{t}.jsonl")))
            with open(os.path.join(d, "report.md")) as fh:
                report = fh.read()
            self.assertIn("## Move accuracy", report)
            self.assertIn("## Matches", report)
            # --replot rewrites the report and plots from results.json alone
            os.remove(os.path.join(d, "report.md"))
            res2 = subprocess.run([sys.executable, STUDY, "--replot", "--out-dir", d],
                                  capture_output=True, text=True, timeout=120)
            self.assertEqual(res2.returncode, 0, res2.stderr)
            with open(os.path.join(d, "report.md")) as fh:
                self.assertEqual(fh.read(), report)
            plots = ["accuracy.svg", "elo.svg", "depth.svg", "study.svg"]
            if study.have_matplotlib():
                for p in plots:
                    with open(os.path.join(d, p)) as fh:
                        self.assertIn("<svg", fh.read(2000), p)
            else:
                self.assertIn("matplotlib missing", res.stderr)

    def test_engine_option_reaches_report_and_bad_option_is_refused(self):
        binary = vier_bin(self)
        with tempfile.TemporaryDirectory() as d:
            oracle = os.path.join(d, "oracle.json")
            if os.path.exists(COMMITTED_ORACLE):
                shutil.copy(COMMITTED_ORACLE, oracle)
            res = subprocess.run([sys.executable, STUDY, "--bin", binary, "--data", DATA, "--times", "5",
                                  "--positions", "1", "--no-matches", "--option", "Hash=4",
                                  "--out-dir", d, "--oracle", oracle],
                                 capture_output=True, text=True, timeout=300)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(os.path.join(d, "results.json")) as fh:
                results = json.load(fh)
            self.assertEqual(results["meta"]["engine_options"]["Hash"], "4")
            self.assertEqual(results["matches"], {})
            with open(os.path.join(d, "report.md")) as fh:
                report = fh.read()
            self.assertIn("`Hash 4`", report)
            self.assertNotIn("## Matches", report)
            bad = subprocess.run([sys.executable, STUDY, "--bin", binary, "--option", "Hash",
                                  "--out-dir", d], capture_output=True, text=True, timeout=60)
            self.assertEqual(bad.returncode, 2)
            self.assertIn("Name=Value", bad.stderr)

    def test_full_mode_needs_matplotlib_or_plots(self):
        """Without matplotlib the full study refuses to start (it must plot)."""
        if study.have_matplotlib():
            return  # nothing to check here: the quick run above checks the plots
        binary = vier_bin(self)
        res = subprocess.run([sys.executable, STUDY, "--bin", binary, "--out-dir", "/nonexistent"],
                             capture_output=True, text=True, timeout=60)
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("matplotlib", res.stderr)


if __name__ == "__main__":
    unittest.main()
