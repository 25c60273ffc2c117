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
from viertools.study import depth, design, matches, strength, sweep
from viertools.study.plots import PLOTS, have_matplotlib

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
        a = design.sample_positions(DATA, 5, seed=1)
        b = design.sample_positions(DATA, 2, seed=1)
        c = design.sample_positions(DATA, 5, seed=2)
        self.assertEqual([p for p, _ in design.PHASES], list(a))
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
        d = sweep.describe([1, 2, 3, 4])
        self.assertEqual((d["n"], d["mean"], d["median"], d["min"], d["max"]), (4, 2.5, 2.5, 1, 4))
        self.assertAlmostEqual(d["sd"], 1.291, places=3)  # the sample's
        self.assertAlmostEqual(d["ci"], 1.96 * 1.291 / 2, places=2)
        lo, hi = wilson(10, 10)
        self.assertEqual(hi, 1.0)
        self.assertTrue(0.6 < lo < 0.75)

    def test_value_breakdown_by_side_to_move(self):
        values = {"4444": 1, "3333": 0}  # scores for the side to move after the opening (x here)
        games = [{"opening": "4444", "first": "A", "score_a": 1.0},   # A is x: won for A
                 {"opening": "4444", "first": "B", "score_a": 0.5},   # A is o: lost for A
                 {"opening": "3333", "first": "B", "score_a": 0.0}]
        got = matches.value_breakdown(games, values)
        self.assertEqual(got, {"won for A": [1.0, 1], "drawn": [0.0, 1],
                               "lost for A": [0.5, 1]})
        self.assertIsNone(matches.value_breakdown([{"opening": "1", "first": "A", "score_a": 1}],
                                                values))
        parsed = matches.opening_values(os.path.join(ROOT, "tools", "openings.txt"))
        self.assertEqual(parsed.get("4444"), 1)
        self.assertEqual(parsed.get("3333"), 0)

    def test_strength_points_put_the_levels_in_order_and_the_full_engine_last(self):
        cal = {"players": [
            {"player": "win-block", "elo": 1000, "low": 1000, "high": 1000, "games": 200},
            {"player": "full", "elo": 1900, "low": 1700, "high": 2100, "games": 200},
            {"player": "level-2", "elo": 700, "low": 600, "high": 800, "games": 400},
            {"player": "level-1", "elo": 500, "low": 400, "high": 600, "games": 400},
        ]}
        pts = strength.strength_points(cal)
        self.assertEqual([(x, label) for x, label, _ in pts], [(1, "1"), (2, "2"), (3, "full")])
        self.assertEqual(pts[-1][2]["elo"], 1900)
        self.assertEqual(strength.strength_points({"players": []}), [])

    def test_stale_oracle_is_refused(self):
        sample = design.sample_positions(DATA, 1, seed=1)
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


class OutputFolder(unittest.TestCase):
    def test_the_study_writes_under_target_unless_docs_study_is_asked_for(self):
        default = study.build_parser().parse_args([]).out_dir
        self.assertEqual(os.path.realpath(default), os.path.realpath(os.path.join(ROOT, "target", "study")))
        asked = study.build_parser().parse_args(["--out-dir", "docs/study"]).out_dir
        self.assertEqual(asked, "docs/study")


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
                                 capture_output=True, text=True, timeout=900)
            self.assertEqual(res.returncode, 0, f"study failed:\n{res.stdout}\n{res.stderr}")
            with open(os.path.join(d, "results.json")) as fh:
                results = json.load(fh)
            self.assertEqual(results["meta"]["times"], design.QUICK_TIMES)
            with open(oracle) as fh:
                exact = json.load(fh)["positions"]
            # every level reached the engine: each played legal moves and reported a depth
            with open(os.path.join(d, "positions.csv")) as fh:
                rows = list(csv.DictReader(fh))
            self.assertEqual(sorted({int(r["level"]) for r in rows}), design.LEVELS)
            self.assertEqual(len(rows), 6 * sum(len([t for t in design.QUICK_TIMES
                                                     if level > 3 or t <= 30])
                                                for level in design.LEVELS))
            for r in rows:
                col = int(r["move"])
                self.assertTrue(1 <= col <= 7 and exact[r["moves"]][col - 1] is not None, r)
                self.assertGreaterEqual(int(r["depth"]), 1, r)
            for level in design.LEVELS:
                for t in design.QUICK_TIMES:
                    s = results["sweep"][str(level)][str(t)]
                    self.assertEqual(s["all"]["positions"], 6)
                    for phase in ("begin", "middle", "end", "all"):
                        self.assertTrue(0.0 <= s[phase]["proven"] <= 1.0)
                        self.assertTrue(s[phase]["proven_low"] - 1e-9 <= s[phase]["proven"]
                                        <= s[phase]["proven_high"] + 1e-9)
            # the levels differ where they should: minimax finds nothing the book knows at once,
            # the full engine proves the begin positions the book holds
            self.assertGreater(results["sweep"]["7"]["30"]["all"]["proven"],
                               results["sweep"]["1"]["30"]["all"]["proven"])
            # the cost of a depth: every depth level reported depths 1..4 on every position, and
            # alpha-beta needs fewer nodes than minimax for the same depth
            for level in map(str, design.DEPTH_LEVELS):
                for phase in ("begin", "middle"):
                    (pos,) = results["depth"][level][phase]
                    self.assertEqual([x[0] for x in pos["depths"]], [1, 2, 3, 4], (level, phase))
            for phase in ("begin", "middle"):
                nodes = {l: results["depth"][l][phase][0]["depths"][-1][1] for l in ("1", "2")}
                self.assertGreater(nodes["1"], nodes["2"], phase)
            table = depth.depth_table(results["depth"])
            self.assertEqual(table["1"]["begin"]["rows"][-1]["depth"], 4)
            self.assertGreater(table["1"]["begin"]["ebf"], table["3"]["begin"]["ebf"])
            # matches: vier against the reference, Fairy-Stockfish against it, head to head, levels
            keys = set(results["matches"])
            self.assertEqual(keys, {"vier-3", "vier-30", "fsf-30", "h2h-30"}
                             | {f"level{l}-30" for l in design.LEVELS})
            for k, m in results["matches"].items():
                self.assertEqual(m["games"], 2, k)
                self.assertEqual(m["wins"] + m["draws"] + m["losses"], 2, k)
                self.assertTrue(set(m["terminations"]) <= {"win", "draw"}, (k, m["terminations"]))
                self.assertTrue(os.path.exists(os.path.join(d, "matches", f"{k}.jsonl")))
                self.assertEqual(sum(n for _, n in m["by_opening_value"].values()), 2, k)
            with open(os.path.join(d, "report.md")) as fh:
                report = fh.read()
            for heading in ("## The cost of a depth", "## Levels against thinking time", "## Matches",
                            "## Strength levels"):
                self.assertIn(heading, report)
            # --replot rewrites the report and plots from results.json alone
            plots = PLOTS
            for p in plots + ["report.md"]:
                if os.path.exists(os.path.join(d, p)):
                    os.remove(os.path.join(d, p))
            res2 = subprocess.run([sys.executable, STUDY, "--replot", "--out-dir", d],
                                  capture_output=True, text=True, timeout=120)
            self.assertEqual(res2.returncode, 0, res2.stderr)
            with open(os.path.join(d, "report.md")) as fh:
                self.assertEqual(fh.read(), report)
            if have_matplotlib():
                for p in plots:
                    with open(os.path.join(d, p)) as fh:
                        self.assertIn("<svg", fh.read(2000), p)
            else:
                self.assertIn("matplotlib missing", res.stderr)

    def test_merge_adds_to_stored_results(self):
        binary = vier_bin(self)
        with tempfile.TemporaryDirectory() as d:
            oracle = os.path.join(d, "oracle.json")
            if os.path.exists(COMMITTED_ORACLE):
                shutil.copy(COMMITTED_ORACLE, oracle)
            common = [sys.executable, STUDY, "--quick", "--bin", binary, "--data", DATA,
                      "--out-dir", d, "--oracle", oracle, "--margin", "2000"]
            first = subprocess.run(common + ["--parts", "sweep", "--levels", "7", "--times", "5",
                                             "--level-ms", ""],
                                   capture_output=True, text=True, timeout=300)
            self.assertEqual(first.returncode, 0, first.stderr)
            # one level at two times: the levels' plot draws a series per time
            second = subprocess.run(common + ["--parts", "elo", "--elo-times", "5", "--fsf-times", "",
                                              "--h2h-times", "", "--levels", "7", "--level-ms",
                                              "5,10", "--merge"],
                                    capture_output=True, text=True, timeout=300)
            self.assertEqual(second.returncode, 0, second.stderr)
            with open(os.path.join(d, "results.json")) as fh:
                results = json.load(fh)
            self.assertEqual(list(results["sweep"]), ["7"])
            self.assertEqual(sorted(results["matches"]), ["level7-10", "level7-5", "vier-5"])
            self.assertEqual(results["meta"]["args"]["level_ms"], [5, 10])
            self.assertEqual(len(results["meta"]["merges"]), 1)

    def test_replot_without_results_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            res = subprocess.run([sys.executable, STUDY, "--replot", "--out-dir", d],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(res.returncode, 2)
            self.assertIn("results.json", res.stderr)
            self.assertEqual(os.listdir(d), [])

    def test_engine_option_reaches_report_and_bad_option_is_refused(self):
        binary = vier_bin(self)
        with tempfile.TemporaryDirectory() as d:
            oracle = os.path.join(d, "oracle.json")
            if os.path.exists(COMMITTED_ORACLE):
                shutil.copy(COMMITTED_ORACLE, oracle)
            res = subprocess.run([sys.executable, STUDY, "--bin", binary, "--data", DATA, "--times", "5",
                                  "--positions", "1", "--parts", "sweep", "--levels", "5,7",
                                  "--option", "Hash=4", "--out-dir", d, "--oracle", oracle],
                                 capture_output=True, text=True, timeout=300)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(os.path.join(d, "results.json")) as fh:
                results = json.load(fh)
            self.assertEqual(results["meta"]["engine_options"]["Hash"], "4")
            self.assertEqual(results["matches"], {})
            self.assertEqual(sorted(results["sweep"]), ["5", "7"])
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
        if have_matplotlib():
            return  # nothing to check here: the quick run above checks the plots
        binary = vier_bin(self)
        res = subprocess.run([sys.executable, STUDY, "--bin", binary, "--out-dir", "/nonexistent"],
                             capture_output=True, text=True, timeout=60)
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("matplotlib", res.stderr)


if __name__ == "__main__":
    unittest.main()
