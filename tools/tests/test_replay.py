"""tools/replay.py: recorded proofs replayed on N slots, from state folders the tests write and
from a tiny proof the real engine records.

The engine binary comes from VIER_BIN (set by the Rust test wrapper under `cargo test`, whose
build has `vier prove`); without it, or without `vier prove` in it, the end-to-end test fails on
purpose.
"""

import glob
import os
import subprocess
import sys
import tempfile
import unittest

import replay as tool

from .support import TOOLS, vier_bin

REPLAY = os.path.join(TOOLS, "replay.py")
SECOND = 1_000_000


def write_state(folder, jobs, *, size="7x6", root="-", split=0, expanded=(), budget=4096):
    """A state folder as vier prove writes it. `jobs`: (question asked of the root, [(moves,
    answer, micros)]) a job, numbered from 1; an answer is "yes", "no" or "unproven"."""
    os.makedirs(os.path.join(folder, "jobs"))
    os.makedirs(os.path.join(folder, "results"))
    with open(os.path.join(folder, "proof"), "w") as fh:
        fh.write(f"vier prove 1\nsize {size}\nroot {root}\ngoal weak\nsplit {split}\n")
    root_discs = 0 if root == "-" else len(root)
    for n, (t, positions) in enumerate(jobs, start=1):
        discs = 0 if positions[0][0] == "-" else len(positions[0][0])
        at_least = t if (discs - root_discs) % 2 == 0 else 1 - t
        with open(os.path.join(folder, "jobs", f"{n:06}.job"), "w") as fh:
            # as vier prove: the positions of a job share its table
            keep = " --keep-table" if len(positions) > 1 else ""
            fh.write(f"# vier prove job {n}: vier solve --size {size} --weak --at-least "
                     f"{at_least} --no-book --hash 16 --budget-nodes {budget}{keep}\n")
            fh.writelines(m + "\n" for m, _, _ in positions)
        lines = []
        for moves, answer, micros in positions:
            if answer == "unproven":
                lines.append(f"{moves} - {budget} {micros} UNPROVEN within {budget} nodes")
            else:
                bound = f">={at_least}" if answer == "yes" else f"<={at_least - 1}"
                lines.append(f"{moves} {bound} 100 {micros}")
        status = 3 if any(a == "unproven" for _, a, _ in positions) else 0
        lines.append(f"vier-prove job {n} exit {status}")
        with open(os.path.join(folder, "results", f"{n:06}.out"), "w") as fh:
            fh.write("\n".join(lines) + "\n")
    if expanded:
        with open(os.path.join(folder, "expanded"), "w") as fh:
            fh.writelines(m + "\n" for m in expanded)


def chain_of_failed_jobs():
    """Each job fails and expands its position; the next job is on a child of it."""
    return [(0, [("-", "unproven", SECOND)]), (0, [("4", "unproven", SECOND)]),
            (0, [("44", "unproven", SECOND)]), (0, [("444", "yes", SECOND)])]


def four_jobs_below_the_split():
    return [(0, [(m, "yes", SECOND)]) for m in "1234"]


def replayed(folder, slots, dispatch_ms=0, start_ms=0, cost="micros"):
    """{slots: row} of the replay of a folder (None: the critical path)."""
    graph = tool.job_graph(tool.read_state(folder), cost)
    return {r["slots"]: r for r in tool.rows(graph, slots, round(dispatch_ms * 1000),
                                             round(start_ms * 1000))}


def run_replay(*args):
    return subprocess.run([sys.executable, REPLAY, *args], capture_output=True, text=True,
                          timeout=60)


class Replay(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="vier-replay-")
        self.dir = os.path.join(self.tmp.name, "state")

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_chain_of_dependent_jobs_gains_nothing_from_more_slots(self):
        write_state(self.dir, chain_of_failed_jobs())
        rows = replayed(self.dir, [1, 2, 1000])
        for slots in (1, 2, 1000, None):
            self.assertAlmostEqual(rows[slots]["makespan_s"], 4.0)
            self.assertAlmostEqual(rows[slots]["speedup"], 1.0)
        self.assertEqual(rows[None]["chain_jobs"], 4)
        self.assertAlmostEqual(rows[2]["idle"], 0.5)

    def test_independent_equal_jobs_speed_up_with_the_slots_up_to_their_number(self):
        write_state(self.dir, four_jobs_below_the_split(), split=1)
        rows = replayed(self.dir, [1, 2, 4, 16])
        self.assertAlmostEqual(rows[1]["makespan_s"], 4.0)
        self.assertAlmostEqual(rows[2]["speedup"], 2.0)
        self.assertAlmostEqual(rows[4]["speedup"], 4.0)
        self.assertAlmostEqual(rows[16]["speedup"], 4.0)
        self.assertAlmostEqual(rows[4]["idle"], 0.0)
        self.assertAlmostEqual(rows[16]["idle"], 0.75)
        self.assertEqual(rows[None]["chain_jobs"], 1)

    def test_jobs_of_several_positions_sharing_a_table_replay_as_their_jobs(self):
        write_state(self.dir, [(0, [("1", "yes", SECOND), ("2", "yes", SECOND)]),
                               (0, [("3", "yes", SECOND), ("4", "yes", SECOND)])], split=1)
        with open(os.path.join(self.dir, "jobs", "000001.job")) as fh:
            self.assertIn("--keep-table", fh.readline())
        rows = replayed(self.dir, [1, 2])
        self.assertAlmostEqual(rows[1]["makespan_s"], 4.0)
        self.assertAlmostEqual(rows[2]["speedup"], 2.0)
        self.assertEqual(rows[None]["chain_jobs"], 1)

    def test_one_slot_takes_every_job_and_the_front_end_and_the_start_once_for_each(self):
        write_state(self.dir, four_jobs_below_the_split(), split=1)
        rows = replayed(self.dir, [1, 4], dispatch_ms=250, start_ms=100)
        self.assertAlmostEqual(rows[1]["makespan_s"], 4 * 1.35)
        # the front end hands out one job at a time: the fourth starts after three of its
        # turns; the starts overlap
        self.assertAlmostEqual(rows[4]["makespan_s"], 4 * 0.25 + 0.1 + 1.0)
        self.assertAlmostEqual(rows[None]["makespan_s"], 1.35)

    def test_the_critical_path_bounds_every_makespan_from_below(self):
        # a failed root, its children, one of which fails too, and a grandchild of a
        # position expanded without a job (the learnt split)
        jobs = [(0, [("-", "unproven", 3 * SECOND)]),
                (0, [("4", "unproven", 2 * SECOND)]), (0, [("3", "yes", SECOND)]),
                (0, [("5", "no", 5 * SECOND)]),
                (0, [("44", "yes", 4 * SECOND)]), (0, [("43", "no", SECOND)]),
                (0, [("21", "yes", 2 * SECOND)])]
        write_state(self.dir, jobs, expanded=["2"])
        rows = replayed(self.dir, [1, 2, 3, 64], dispatch_ms=10)
        path = rows[None]["makespan_s"]
        # the root, then its child 4, then 44: 3 + 2 + 4 s and the front end for each
        self.assertAlmostEqual(path, 9.03)
        self.assertEqual(rows[None]["chain_jobs"], 3)
        work = 18 + 7 * 0.01
        for slots in (1, 2, 3, 64):
            self.assertGreaterEqual(rows[slots]["makespan_s"], path - 1e-9)
            self.assertGreaterEqual(rows[slots]["makespan_s"], work / slots - 1e-9)
        self.assertAlmostEqual(rows[1]["makespan_s"], work)

    def test_a_later_question_waits_for_every_job_of_the_one_before(self):
        # "won?" answered no on both children, then "drawn?" asks them again
        jobs = [(1, [("4", "no", SECOND)]), (1, [("3", "no", 3 * SECOND)]),
                (0, [("4", "yes", SECOND)]), (0, [("3", "yes", SECOND)])]
        write_state(self.dir, jobs, split=1)
        rows = replayed(self.dir, [4])
        self.assertAlmostEqual(rows[4]["makespan_s"], 4.0)
        self.assertEqual(rows[None]["chain_jobs"], 2)

    def test_a_position_enters_the_tree_with_the_first_of_its_parents_expanded(self):
        # 4433 and 3344 are one position, a child of 443 and of 334: its job waits for the
        # shorter of the two jobs on them
        jobs = [(0, [("443", "unproven", 5 * SECOND)]), (0, [("334", "unproven", SECOND)]),
                (0, [("3344", "yes", 3 * SECOND)])]
        write_state(self.dir, jobs, split=3)
        rows = replayed(self.dir, [2])
        # 3344 runs from 1 s to 4 s, beside 443 (waiting for 443 it would end at 8 s)
        self.assertAlmostEqual(rows[2]["makespan_s"], 5.0)
        self.assertAlmostEqual(rows[None]["makespan_s"], 5.0)

    def test_the_table_names_the_slots_and_the_critical_path(self):
        write_state(self.dir, chain_of_failed_jobs())
        res = run_replay(self.dir, "--slots", "1,2", "--dispatch-ms", "0", "--start-ms", "0")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("| 2 | 4.0 s | 1.00x | 50.0 % |", res.stdout)
        self.assertIn("| critical path (4 jobs in a chain) | 4.0 s | 1.00x | |", res.stdout)
        self.assertIn("jobs with a result: 4 (positions 4, unproven 3); questions: 1", res.stdout)

    def test_costs_in_nodes_give_equal_jobs_equal_times(self):
        write_state(self.dir, [(0, [(m, "yes", s * SECOND)]) for m, s in zip("123", (1, 2, 3))],
                    split=1)
        rows = replayed(self.dir, [1, 3], cost="nodes")
        # 300 nodes in 6 s: 100 nodes are 2 s, whatever the micros said
        self.assertAlmostEqual(rows[1]["makespan_s"], 6.0)
        self.assertAlmostEqual(rows[3]["makespan_s"], 2.0)


class DamagedFolders(unittest.TestCase):
    """Every damage is refused with the file, its line where it has one, and exit status 2."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="vier-replay-")
        self.dir = os.path.join(self.tmp.name, "state")
        write_state(self.dir, chain_of_failed_jobs())

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def replace(self, name, old, new):
        with open(self.path(name)) as fh:
            text = fh.read()
        self.assertIn(old, text)
        with open(self.path(name), "w") as fh:
            fh.write(text.replace(old, new, 1))

    def assert_refused(self, *words):
        res = run_replay(self.dir)
        self.assertEqual(res.returncode, 2, res.stdout + res.stderr)
        self.assertNotIn("Traceback", res.stderr)
        for w in words:
            self.assertIn(w, res.stderr)

    def test_a_negative_number_of_microseconds_is_refused(self):
        self.replace("results/000002.out", f"4096 {SECOND} ", f"4096 -{SECOND} ")
        self.assert_refused("results/000002.out:1:", "not within 0..")

    def test_a_negative_number_of_nodes_is_refused(self):
        self.replace("results/000004.out", " 100 ", " -100 ")
        self.assert_refused("results/000004.out:1:", "nodes -100 is not within")

    def test_garbage_in_a_result_is_refused_with_its_line(self):
        self.replace("results/000003.out", "vier-prove job 3 exit 3", "garbage \x01 here")
        self.assert_refused("results/000003.out:2:", "not a job's result line")

    def test_a_result_without_its_job_is_refused(self):
        os.remove(self.path("jobs", "000003.job"))
        self.assert_refused("results/000003.out", "has no job file")

    def test_a_result_cut_short_is_refused(self):
        with open(self.path("results", "000001.out"), "r+") as fh:
            fh.truncate(10)
        self.assert_refused("results/000001.out:1:", "cut short")

    def test_a_result_of_another_position_or_question_is_refused(self):
        self.replace("results/000004.out", "444 >=1", "445 >=1")
        self.assert_refused("'445' is not a position of job 4")
        self.replace("results/000004.out", "445 >=1", "444 >=0")
        self.assert_refused("results/000004.out:1:", "does not answer the job's question")

    def test_a_wrong_exit_status_is_refused(self):
        self.replace("results/000001.out", "exit 3", "exit 0")
        self.assert_refused("results/000001.out:2:", "exit status 0")

    def test_an_impossible_move_string_is_refused(self):
        self.replace("jobs/000004.job", "\n444\n", "\n4444444\n")
        self.assert_refused("jobs/000004.job:2:", "column 4 is full")

    def test_what_a_job_learnt_below_a_position_it_did_not_prove_is_read_and_checked(self):
        self.replace("jobs/000002.job", "--budget-nodes 4096", "--budget-nodes 4096 --learnt 2")
        unproven = "4 - 4096 1000000 UNPROVEN within 4096 nodes\n"
        self.replace("results/000002.out", unproven, unproven + "41 >=0 0 0 LEARNT\n"
                     "412 -1 0 0 LEARNT\n")
        self.assertEqual(len(tool.read_state(self.dir).jobs), 4)
        for bad, at, why in [("51 >=0 0 0 LEARNT", 2, "not below '4'"),
                             ("4 >=0 0 0 LEARNT", 2, "not below '4'"),
                             ("4123 >=0 0 0 LEARNT\n" * 65 + "41 >=0 0 0 LEARNT", 66,
                              "more than 64 learnt lines deeper than 2 moves"),
                             ("41 >=0 7 0 LEARNT", 2, "nodes of its own"),
                             ("41 >=2 0 0 LEARNT", 2, "not within -1..1")]:
            self.replace("results/000002.out", "41 >=0 0 0 LEARNT", bad)
            self.assert_refused(f"results/000002.out:{at}:", why)
            self.replace("results/000002.out", bad, "41 >=0 0 0 LEARNT")
        # deeper than --learnt: what the search finished beside the line it was on
        self.replace("results/000002.out", "412 -1", "4123 >=0 0 0 LEARNT\n412 -1")
        self.assertEqual(len(tool.read_state(self.dir).jobs), 4)
        # only right after a position not proven
        self.replace("results/000004.out", "vier-prove job 4", "4441 >=0 0 0 LEARNT\n"
                     "vier-prove job 4")
        self.assert_refused("results/000004.out:2:", "not after a position not proven")

    def test_a_job_starts_from_learnt_lines_before_its_positions_checked_as_any(self):
        self.replace("jobs/000004.job", "\n444\n", "\n4441 >=0 0 0 LEARNT\n444\n")
        self.assertEqual(len(tool.read_state(self.dir).jobs), 4)
        for bad, why in [("4441 >=0 5 0 LEARNT", "not a learnt line"),
                         ("4441 >=3 0 0 LEARNT", "not within -1..1"),
                         ("44444441 >=0 0 0 LEARNT", "column 4 is full")]:
            self.replace("jobs/000004.job", "4441 >=0 0 0 LEARNT", bad)
            self.assert_refused("jobs/000004.job:2:", why)
            self.replace("jobs/000004.job", bad, "4441 >=0 0 0 LEARNT")

    def test_a_budget_out_of_its_range_is_refused(self):
        self.replace("jobs/000002.job", "--budget-nodes 4096", "--budget-nodes 99")
        self.assert_refused("jobs/000002.job:1:", "--budget-nodes 99 is not within")

    def test_a_job_on_a_position_no_job_expanded_the_parent_of_is_refused(self):
        self.replace("results/000003.out", "44 - 4096 1000000 UNPROVEN within 4096 nodes",
                     "44 >=0 100 1000000")
        self.replace("results/000003.out", "exit 3", "exit 0")
        self.assert_refused("'444' has no parent expanded")

    def test_a_proof_file_of_another_kind_is_refused(self):
        self.replace("proof", "split 0", "split 9")
        self.assert_refused("proof", "split 9 is not within 0..4")

    def test_a_link_in_place_of_a_result_is_not_read(self):
        target = self.path("results", "000004.out")
        os.rename(target, self.path("elsewhere"))
        os.symlink(self.path("elsewhere"), target)
        self.assert_refused("results/000004.out", "not a regular file")


class RecordedByTheEngine(unittest.TestCase):
    def test_a_tiny_proof_replays_on_one_slot_in_its_jobs_time_and_the_front_ends(self):
        vier = vier_bin(self)
        with tempfile.TemporaryDirectory(prefix="vier-replay-") as tmp:
            state = os.path.join(tmp, "state")
            res = subprocess.run([vier, "prove", "-", "--size", "5x4", "--state", state,
                                  "--split", "1", "--budget-nodes", "4096", "--jobs", "1"],
                                 capture_output=True, text=True, timeout=300)
            if "built without vier prove" in res.stderr:
                self.fail(f"VIER_BIN={vier} has no `vier prove`: point it at a vier built with "
                          "--features prove (cargo test's binary has it)")
            self.assertEqual(res.returncode, 0, res.stderr)
            micros, jobs = 0, 0
            for path in glob.glob(os.path.join(state, "results", "*.out")):
                jobs += 1
                with open(path) as fh:
                    micros += sum(int(line.split()[3]) for line in fh
                                  if not line.startswith("vier-prove job"))
            rec = tool.read_state(state)
            self.assertEqual(len(rec.jobs), jobs)
            self.assertGreater(jobs, 1)
            graph = tool.job_graph(rec)
            self.assertEqual(tool.replay(graph, 1, 700, 7000).makespan,
                             micros + 7700 * jobs)
            out = run_replay(state, "--slots", "1,2")
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("5x4 - weak, split 1", out.stdout)


if __name__ == "__main__":
    unittest.main()
