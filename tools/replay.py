#!/usr/bin/env python3
"""Replays a recorded `vier prove` on N job slots: what the same jobs would take on 2, 16, 64 or
1,000 cores, with the front end's own cost for each job.

    python3 tools/replay.py STATE_DIR                        # slots 1, 2, 16, 64 and 1000
    python3 tools/replay.py STATE_DIR --slots 1,8 --dispatch-ms 30 --cost nodes

It reads the state folder of a proof (docs/prove.md, "The state folder") as a stranger's: the
`proof` file, every `jobs/<id>.job`, every `results/<id>.out` (each line exactly a `vier solve`
line of one of its job's positions, then the job's own last line with the right status) and
`expanded`; every number is checked against its range, every move string played on the board.
A damaged file is refused with its name, its line and why (exit status 2).

Which job waits for which follows from how the front end works (src/prove/tree.rs and
prover.rs): a job exists only once its position is in the tree, and a position enters the tree
when one of its parents (a position one move before it) is expanded. A parent is expanded

- at the start, without a job, when it lies less than `split` moves below the root;
- when a job on it comes back "UNPROVEN within N nodes" (the job's end);
- without a job (the file `expanded`: the learnt split) as soon as it is itself in the tree.

A position with several parents enters with the first of them expanded. A job also waits for
the question it asks ("is the root's value at least t?"): the front end asks the next question
only once the root answers the last, so every job of a question waits for every job of the
questions before it.

The jobs are then replayed by list scheduling: whenever a slot is free, the ready job with the
smallest number (the front end's own order, most proving first) starts on it. Each job costs
besides its own time:

- the front end's work for it (learning the last result, choosing the leaf, writing the job
  file), `--dispatch-ms`, one job after the other: the front end is one process, and the job's
  slot waits for it. Default 3 ms: on the proof of docs/prove.md's table (a tree of hundreds of
  positions) a job file came 2.9 ms after the result before it, on average; on a tree of a
  million positions it is 30 ms (docs/lab/2026-11-28-prove.md);
- its start on its slot (`vier solve` under its keeper, its table, the result file synced),
  `--start-ms`, on every slot at once. Default 30 ms: on the same proof, a result came 31 ms
  after its job file, on average, besides the time the job recorded
  (docs/lab/2026-12-03-prove-replay.md).

A job takes the microseconds its result lines recorded (`--cost micros`), or its nodes at one
rate (`--cost nodes`, by default the recording's own: the same on every run).

What the replay assumes: the same jobs as recorded, each started as soon as its position is in
the tree. A wider run hands out more leaves at once, and some of them prove what turns out not
to be needed: those jobs are not in the recording and not replayed (their slots are counted
idle), while the recorded jobs that turned out not to be needed are replayed as they ran. Jobs
without a result (ended as no longer needed, or never finished) are left out and counted. So
each row is what these jobs take at best, given the front end's cost: the critical path (the
longest chain of jobs each waiting for the one before, with unlimited slots and a front end
that costs nothing in sequence) bounds every row from below.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import re
import stat
import sys
from dataclasses import dataclass, field

from viertools.rules import Board, IllegalMove

DEFAULT_SLOTS = (1, 2, 16, 64, 1000)
# What each job costs besides its own time (see the docstring): the front end's work, one job
# after the other, and the job's start on its slot.
DEFAULT_DISPATCH_MS = 3.0
DEFAULT_START_MS = 30.0

# What vier prove reads of each kind of file at most (src/prove/files.rs).
MAX_PROOF = 4 << 10
MAX_JOB = 64 << 10
MAX_RESULT = 2 << 20
MAX_EXPANDED = 16 << 20

# The ranges of vier prove's settings (src/prove/settings.rs).
MAX_SPLIT = 4
BUDGET_RANGE = (4096, 1 << 38)
HASH_RANGE = (1, 1 << 20)
MAX_POSITIONS_PER_JOB = 32
MAX_LEARNT_PLIES = 2  # vier prove's --learnt at most
# learnt lines deeper than --learnt after one position not proven, at most
MAX_DEEP_LEARNT = 64
# learnt lines a job starts from, at most
MAX_SEEDS = 256
# A job's timeout: its budget at this many nodes a second, a second more, for each position,
# and these seconds to start; a job that ran longer was ended, so no result records more.
SLOWEST_NODES_PER_SECOND = 200_000
START_SECONDS = 10
# The solver looks at its budget every so many nodes: a position may count this many more.
BUDGET_SLACK_NODES = 1 << 16
U64 = (1 << 64) - 1
MAX_JOB_ID = 10**12

HEADER = "vier prove 1"
DONE = "vier-prove job"


class Damaged(Exception):
    """A file of the state folder that is not what vier prove writes: its name, line and why."""

    def __init__(self, path: str, line: int | None, why: str):
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {why}")


@dataclass
class Proof:
    width: int
    height: int
    root: str
    goal: str
    split: int
    root_discs: int


@dataclass
class Job:
    id: int
    positions: list[str]
    at_least: int
    budget: int
    # moves below a position it does not prove that it reports what it learnt (--learnt)
    learnt: int = 0
    # filled from its result:
    micros: int = 0
    nodes: int = 0
    unproven: list[str] = field(default_factory=list)


@dataclass
class Recording:
    """A state folder read back: the jobs with a result, and what else it holds."""
    proof: Proof
    jobs: list[Job]
    expanded: list[str]
    without_result: int
    set_aside: int
    finished: bool


# -- reading the folder, trusting nothing ------------------------------------------------------

def read_file(path: str, limit: int) -> str:
    """The text of a regular file of at most `limit` bytes (no link, FIFO or device)."""
    try:
        st = os.lstat(path)
    except OSError as e:
        raise Damaged(path, None, e.strerror or str(e)) from None
    if not stat.S_ISREG(st.st_mode):
        raise Damaged(path, None, "not a regular file: not read")
    if st.st_size > limit:
        raise Damaged(path, None, f"{st.st_size} bytes, more than the {limit} such a file holds")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as e:
        raise Damaged(path, None, e.strerror or str(e)) from None
    if len(data) > limit:
        raise Damaged(path, None, f"more than the {limit} bytes such a file holds")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Damaged(path, None, "not UTF-8 text") from None


def shown(text: str) -> str:
    """Untrusted text as a message quotes it: printable, and cut short past 40 characters."""
    text = "".join(c if c.isprintable() else "?" for c in text[:41])
    return text if len(text) <= 40 else text[:40] + "..."


def whole_number(text: str, low: int, high: int, what: str) -> int:
    """`text` as vier writes a number (digits, a minus sign for a negative one), within
    low..high, or ValueError saying why."""
    digits = text[1:] if text.startswith("-") else text
    if not digits or not digits.isascii() or not digits.isdigit():
        raise ValueError(f"{what} '{shown(text)}' is not a number")
    n = int(text)
    if not low <= n <= high:
        raise ValueError(f"{what} {n} is not within {low}..{high}")
    return n


def read_proof(folder: str) -> Proof:
    """The `proof` file: header, size, root, goal, split, each as vier writes them."""
    path = os.path.join(folder, "proof")
    lines = read_file(path, MAX_PROOF).split("\n")
    want = [HEADER, "size", "root", "goal", "split", ""]
    if len(lines) != len(want) or lines[0] != HEADER or lines[-1] != "":
        raise Damaged(path, None, f"not a vier prove state file (want '{HEADER}', size, root, "
                                  "goal, split, one a line)")
    values = {}
    for i, name in enumerate(want[1:-1], start=2):
        key, _, value = lines[i - 1].partition(" ")
        if key != name or not value:
            raise Damaged(path, i, f"want '{name} <value>'")
        values[name] = value
    m = re.fullmatch(r"(\d{1,2})x(\d{1,2})", values["size"])
    if not m or not (4 <= int(m[1]) <= 13 and 4 <= int(m[2]) <= 13):
        raise Damaged(path, 2, f"'{shown(values['size'])}' is not a board size of vier's")
    width, height = int(m[1]), int(m[2])
    if values["goal"] not in ("weak", "exact"):
        raise Damaged(path, 4, f"goal '{shown(values['goal'])}' is neither weak nor exact")
    try:
        split = whole_number(values["split"], 0, MAX_SPLIT, "split")
        root = board_of(values["root"], width, height)
    except ValueError as e:
        raise Damaged(path, None, str(e)) from None
    return Proof(width, height, values["root"], values["goal"], split, root.ply)


def board_of(moves: str, width: int, height: int) -> Board:
    """The board a move string as vier writes it reaches (`-`: empty); ValueError if none."""
    if moves == "-":
        return Board(width, height)
    pattern = r"[1-9]+" if width <= 9 else r"[a-m]+"
    if not re.fullmatch(pattern, moves) or len(moves) > width * height:
        raise ValueError(f"'{shown(moves)}' is not a move string of {width}x{height}")
    board = Board(width, height)
    for ch in moves:
        col = int(ch) if width <= 9 else ord(ch) - ord("a") + 1
        if board.is_over():
            raise ValueError(f"'{moves}' plays on after the game ended")
        try:
            board.play(col)
        except IllegalMove as e:
            raise ValueError(f"'{moves}': {e}") from None
    return board


def check_position(path: str, line: int, moves: str, proof: Proof) -> None:
    """A position of a state file's line: a legal one on the proof's board, below its root."""
    try:
        board_of(moves, proof.width, proof.height)
    except ValueError as e:
        raise Damaged(path, line, str(e)) from None
    if not below_root(moves, proof):
        raise Damaged(path, line, f"'{moves}' is not below the root '{proof.root}'")


def below_root(moves: str, proof: Proof) -> bool:
    """Whether a move string continues the root's (every position of the proof does)."""
    return proof.root == "-" or (moves.startswith(proof.root) and moves != "-")


def read_job(path: str, job_id: int, proof: Proof) -> Job:
    """A job file: `# vier prove job <id>: vier solve <args>`, what earlier jobs learnt below
    its positions (`<moves> <score>|>=t|<=u 0 0 LEARNT`, at most MAX_SEEDS), then one position
    a line."""
    lines = read_file(path, MAX_JOB).split("\n")
    if lines[-1] != "":
        raise Damaged(path, len(lines), "cut short (no newline at its end)")
    head, rest = lines[0], lines[1:-1]
    seeds = 0
    while seeds < len(rest) and " " in rest[seeds]:
        seeds += 1
    if seeds > MAX_SEEDS:
        raise Damaged(path, None, f"{seeds} learnt lines, more than {MAX_SEEDS}")
    for n, line in enumerate(rest[:seeds], start=2):
        words = line.split(" ")
        if len(words) != 5 or words[2:] != ["0", "0", "LEARNT"]:
            raise Damaged(path, n, "not a learnt line")
        value = words[1][2:] if words[1].startswith((">=", "<=")) else words[1]
        try:
            bound = score_bound(words[0], proof)
            whole_number(value, -bound, bound, "a learnt score")
        except ValueError as e:
            raise Damaged(path, n, str(e)) from None
        check_position(path, n, words[0], proof)
    positions = rest[seeds:]
    prefix = f"# vier prove job {job_id}: vier solve "
    if not head.startswith(prefix):
        raise Damaged(path, 1, f"its first line is not '{prefix}...'")
    args = head[len(prefix):].split(" ")
    opts = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--weak", "--no-book", "--keep-table"):
            opts[a] = True
            i += 1
        elif a in ("--size", "--at-least", "--hash", "--budget-nodes", "--learnt", "--table-file") \
                and i + 1 < len(args):
            if a in opts:
                raise Damaged(path, 1, f"{a} twice")
            opts[a] = args[i + 1]
            i += 2
        else:
            raise Damaged(path, 1, f"'{shown(a)}' is not an argument vier prove gives a job")
    size = f"{proof.width}x{proof.height}"
    if opts.get("--size") != size:
        raise Damaged(path, 1, f"--size {shown(str(opts.get('--size')))}, not the proof's {size}")
    if ("--weak" in opts) != (proof.goal == "weak") or "--no-book" not in opts:
        raise Damaged(path, 1, f"not a job of a {proof.goal} proof (--weak, --no-book)")
    for need in ("--at-least", "--budget-nodes", "--hash"):
        if need not in opts:
            raise Damaged(path, 1, f"no {need}: not a job of a proof")
    cells = proof.width * proof.height
    try:
        at_least = whole_number(opts["--at-least"], -cells, cells, "--at-least")
        budget = whole_number(opts["--budget-nodes"], *BUDGET_RANGE, "--budget-nodes")
        whole_number(opts["--hash"], *HASH_RANGE, "--hash")
        learnt = whole_number(opts.get("--learnt", "0"), 0, MAX_LEARNT_PLIES, "--learnt")
    except ValueError as e:
        raise Damaged(path, 1, str(e)) from None
    if not 1 <= len(positions) <= MAX_POSITIONS_PER_JOB:
        raise Damaged(path, None, f"{len(positions)} positions, not 1..{MAX_POSITIONS_PER_JOB}")
    for n, moves in enumerate(positions, start=2 + seeds):
        check_position(path, n, moves, proof)
        if positions.count(moves) > 1:
            raise Damaged(path, n, f"'{moves}' twice")
    return Job(job_id, positions, at_least, budget, learnt)


def score_bound(moves: str, proof: Proof) -> int:
    """The largest score, either sign, a position of these moves can have."""
    if proof.goal == "weak":
        return 1
    discs = 0 if moves == "-" else len(moves)
    return (proof.width * proof.height + 2 - discs) // 2


def read_result(path: str, job: Job, proof: Proof) -> None:
    """A job's result file, checked against its job (as vier prove's check_run does): each
    position's line once, `<moves> >=t|<=t-1 <nodes> <micros>` or `<moves> - <nodes> <micros>
    UNPROVEN within <budget> nodes`, each of those followed by what its search learnt below it
    (`<moves> <score>|>=t|<=u 0 0 LEARNT`, 1 to --learnt moves below, at most MAX_DEEP_LEARNT
    deeper), then `vier-prove job <id>
    exit <0|3>`. Fills in the job's nodes, micros and unproven positions."""
    lines = read_file(path, MAX_RESULT).split("\n")
    if lines[-1] != "":
        raise Damaged(path, len(lines), "cut short (no newline at its end)")
    lines = lines[:-1]
    seen: dict[str, int] = {}
    status = None
    # the position of the last line, if it was not proven: learnt lines are below it
    open_above: str | None = None
    deep = 0
    for n, line in enumerate(lines, start=1):
        if status is not None:
            raise Damaged(path, n, "a line after the job's last line")
        words = line.split(" ")
        try:
            if line.startswith(DONE + " "):
                if len(words) != 5 or words[3] != "exit":
                    raise ValueError("a job's last line, damaged")
                if whole_number(words[2], 0, MAX_JOB_ID, "job") != job.id:
                    raise ValueError(f"the last line of job {words[2]}, not of job {job.id}")
                status = whole_number(words[4], -(1 << 31), (1 << 31) - 1, "exit status")
                continue
            if len(words) == 5 and words[4] == "LEARNT":
                deep += check_learnt_line(words, open_above, job, proof)
                if deep > MAX_DEEP_LEARNT:
                    raise ValueError(f"more than {MAX_DEEP_LEARNT} learnt lines deeper than "
                                     f"{job.learnt} moves")
                check_position(path, n, words[0], proof)
                continue
            moves, found = parse_result_line(words, job, proof)
        except ValueError as e:
            raise Damaged(path, n, str(e)) from None
        open_above = moves if found is None else None
        deep = 0
        if moves not in job.positions:
            raise Damaged(path, n, f"'{shown(moves)}' is not a position of job {job.id}")
        if moves in seen:
            raise Damaged(path, n, f"'{moves}' twice (line {seen[moves]} too)")
        seen[moves] = n
        if found is None:
            job.unproven.append(moves)
    if status is None:
        raise Damaged(path, None, "the job's last line is missing")
    missing = [p for p in job.positions if p not in seen]
    if missing:
        raise Damaged(path, None, f"no line for '{missing[0]}'")
    if status != (3 if job.unproven else 0):
        raise Damaged(path, len(lines), f"exit status {status} with {len(job.unproven)} "
                                        "positions unproven")
    timeout_us = ((job.budget // SLOWEST_NODES_PER_SECOND + 1) * len(job.positions)
                  + START_SECONDS) * 10**6
    if job.micros > timeout_us:
        raise Damaged(path, None, f"{job.micros} microseconds, more than the job's timeout "
                                  f"({timeout_us // 10**6} s): no such run is kept")


def check_learnt_line(words: list[str], above: str | None, job: Job, proof: Proof) -> None:
    """A learnt line, `<moves> <score>|>=t|<=u 0 0 LEARNT`: right after the line of a position
    of the job not proven, 1 to the job's --learnt moves below it (or deeper, at most
    MAX_DEEP_LEARNT of those a position), a score or bound in range. Returns whether it is a
    deeper one."""
    moves, found, nodes, micros, _ = words
    if above is None:
        raise ValueError("a learnt line not after a position not proven")
    prefix = "" if above == "-" else above
    if not (job.learnt >= 1 and moves.startswith(prefix) and len(moves) > len(prefix)):
        raise ValueError(f"'{shown(moves)}' is not below '{above}' (--learnt {job.learnt})")
    if (nodes, micros) != ("0", "0"):
        raise ValueError("a learnt line with nodes of its own")
    value = found[2:] if found.startswith((">=", "<=")) else found
    bound = score_bound(moves, proof)
    whole_number(value, -bound, bound, "a learnt score")
    return len(moves) - len(prefix) > job.learnt


def parse_result_line(words: list[str], job: Job, proof: Proof) -> tuple[str, str | None]:
    """A position's line of a job's result: its move string and the bound it found (None:
    unproven). Adds its nodes and micros to the job's."""
    if len(words) == 4:
        moves, found, nodes, micros = words
        bound = score_bound(moves, proof)
        t = job.at_least
        if found == f">={t}" or found == f"<={t - 1}":
            pass
        elif found.startswith((">=", "<=")):
            raise ValueError(f"'{shown(found)}' does not answer the job's question (at least {t}?)")
        else:
            raise ValueError(f"'{shown(found)}' is not a bound (>=t or <=t-1)")
        if abs(t) > bound + 1:
            raise ValueError(f"at least {t} is no question of a position of {moves}")
        answer: str | None = found
    elif len(words) == 8 and words[1] == "-" and words[4:6] == ["UNPROVEN", "within"] \
            and words[7] == "nodes":
        moves, _, nodes, micros = words[:4]
        within = whole_number(words[6], *BUDGET_RANGE, "budget")
        if within != job.budget:
            raise ValueError(f"unproven within {within} nodes, not the job's {job.budget}")
        answer = None
    else:
        raise ValueError("not a job's result line (<moves> <bound> <nodes> <micros>, "
                         "or unproven within its budget)")
    nodes_n = whole_number(nodes, 0, job.budget + BUDGET_SLACK_NODES, "nodes")
    micros_n = whole_number(micros, 0, U64, "microseconds")
    job.nodes += nodes_n
    job.micros += micros_n
    return moves, answer


def numbered(folder: str, suffix: str) -> tuple[dict[int, str], int]:
    """The files `<number><suffix>` of a folder by number, and how many were set aside
    (`.damaged`); other names are vier prove's temporary files or not its own, and left alone."""
    files, aside = {}, 0
    try:
        names = os.listdir(folder)
    except OSError as e:
        raise Damaged(folder, None, e.strerror or str(e)) from None
    for name in names:
        if name.endswith(suffix + ".damaged"):
            aside += 1
        stem = name[:-len(suffix)] if name.endswith(suffix) else ""
        if stem.isascii() and stem.isdigit():
            n = int(stem)
            if not 1 <= n <= MAX_JOB_ID:
                raise Damaged(os.path.join(folder, name), None, f"job number {n} out of range")
            if n in files:
                raise Damaged(os.path.join(folder, name), None, f"a second file of job {n}")
            files[n] = os.path.join(folder, name)
    return files, aside


def read_expanded(folder: str, proof: Proof) -> list[str]:
    """The positions expanded without a job, whole lines only (as vier prove reads them)."""
    path = os.path.join(folder, "expanded")
    if not os.path.lexists(path):
        return []
    text = read_file(path, MAX_EXPANDED)
    text = text[:text.rfind("\n") + 1]  # a last line cut short is dropped, as vier prove does
    out = []
    for n, moves in enumerate(text.split("\n")[:-1], start=1):
        check_position(path, n, moves, proof)
        out.append(moves)
    return out


def read_state(folder: str) -> Recording:
    """A recorded proof: every job with a result, checked, in the order of their numbers."""
    proof = read_proof(folder)
    job_files, _ = numbered(os.path.join(folder, "jobs"), ".job")
    result_files, aside = numbered(os.path.join(folder, "results"), ".out")
    for n, path in sorted(result_files.items()):
        if n not in job_files:
            raise Damaged(path, None, f"a result of job {n}, which has no job file")
    jobs = []
    for n in sorted(result_files):
        job = read_job(job_files[n], n, proof)
        read_result(result_files[n], job, proof)
        jobs.append(job)
    if not jobs:
        raise Damaged(folder, None, "no job has a result: nothing to replay")
    expanded = read_expanded(folder, proof)
    return Recording(proof, jobs, expanded, len(job_files) - len(jobs), aside,
                     os.path.lexists(os.path.join(folder, "certificate")))


# -- which job waits for which -----------------------------------------------------------------

Key = tuple


def key_of(board: Board) -> Key:
    """A position's key: it and its mirror image share one (as vier's tree does)."""
    cols = tuple(tuple(c[:h]) for c, h in zip(board.cells, board.heights))
    return min(cols, cols[::-1])


def parents_of(board: Board) -> list[Key]:
    """The keys of the positions one move before: the last mover's disc taken off a column."""
    cols = [tuple(c[:h]) for c, h in zip(board.cells, board.heights)]
    mover = 1 if board.ply % 2 == 1 else 2
    out = []
    for i, col in enumerate(cols):
        if col and col[-1] == mover:
            prev = tuple(cols[:i] + [col[:-1]] + cols[i + 1:])
            out.append(min(prev, prev[::-1]))
    return out


@dataclass
class Graph:
    """The jobs to replay and what each waits for."""
    costs: list[int]                        # microseconds, by job index
    ids: list[int]                          # job numbers, by index
    phase: list[int]                        # the question's place in order, by index
    needs: list[list[Key]]                  # positions (past the split) that must be in the tree
    parents: dict[Key, list[Key]]           # a position's parents that are ever expanded
    ends: list[list[Key]]                   # the positions each job's end expands
    free: set[Key]                          # positions expanded without a job
    watchers: dict[Key, list[Key]] = field(default_factory=dict)  # children of an expandable
    rate: float | None = None               # nodes a second, where costs are nodes


def question_of(job: Job, proof: Proof) -> int:
    """The root's question a job's positions answer: `t` at an even distance, `1 - t` at an
    odd one (tree.rs, asks_of). ValueError when its positions disagree."""
    qs = {job.at_least if (depth(m, proof) % 2 == 0) else 1 - job.at_least
          for m in job.positions}
    if len(qs) != 1:
        raise ValueError(f"job {job.id}'s positions ask different questions of the root")
    return qs.pop()


def depth(moves: str, proof: Proof) -> int:
    return (0 if moves == "-" else len(moves)) - proof.root_discs


def job_graph(rec: Recording, cost: str = "micros", rate: float | None = None) -> Graph:
    """The jobs, their costs (`micros` as recorded, or `nodes` at `rate` nodes a second, by
    default the recording's own) and what each waits for."""
    proof = rec.proof
    if cost == "nodes":
        if rate is None:
            micros = sum(j.micros for j in rec.jobs)
            rate = sum(j.nodes for j in rec.jobs) / (micros / 1e6) if micros else 0.0
        if not rate > 0:
            raise ValueError("no rate to turn nodes into time: the jobs recorded no time")
        costs = [round(j.nodes / rate * 1e6) for j in rec.jobs]
    else:
        costs = [j.micros for j in rec.jobs]
    # the questions in the order the front end asked them: each a run of job numbers
    order: list[int] = []
    phase = []
    for j in rec.jobs:
        q = question_of(j, proof)
        if not order or order[-1] != q:
            if q in order:
                raise ValueError(f"job {j.id} asks the root 'at least {q}?' again after "
                                 f"'at least {order[-1]}?': the front end never goes back")
            order.append(q)
        phase.append(len(order) - 1)
    boards: dict[Key, Board] = {}

    def key(moves: str) -> Key:
        b = board_of(moves, proof.width, proof.height)
        k = key_of(b)
        boards.setdefault(k, b)
        return k

    needs = [[key(m) for m in j.positions if depth(m, proof) > proof.split] for j in rec.jobs]
    ends = [[key(m) for m in j.unproven] for j in rec.jobs]
    free = {key(m) for m in rec.expanded}
    free_past_split = {k for k in free if boards[k].ply - proof.root_discs > proof.split}
    parents: dict[Key, list[Key]] = {}
    graph = Graph(costs, [j.id for j in rec.jobs], phase, needs, parents, ends, free,
                  rate=rate if cost == "nodes" else None)
    expandable = {k for e in ends for k in e} | free
    for k in {k for n in needs for k in n} | free_past_split:
        ps = [p for p in parents_of(boards[k]) if p in expandable]
        if not ps:
            raise ValueError(f"position '{boards[k].move_string() or '-'}' has no parent "
                             "expanded in the folder: no job could have been handed out on it")
        parents[k] = ps
        for p in ps:
            graph.watchers.setdefault(p, []).append(k)
    return graph


# -- the replay --------------------------------------------------------------------------------

@dataclass
class Schedule:
    makespan: int      # microseconds
    busy: int          # microseconds of job time, all slots
    slots: int | None  # None: unlimited
    chain: int         # jobs on the chain that ends last, each readied by the one before


def replay(graph: Graph, slots: int | None, dispatch_us: int, start_us: int = 0,
           serial_front_end: bool = True) -> Schedule:
    """List scheduling of the graph's jobs on `slots` slots (None: as many as wanted), each job
    taking the front end `dispatch_us` (one job after the other when `serial_front_end`), then
    `start_us` and its cost on its slot. Events in the order of time: a job's end expands its
    unproven positions, which puts their children in the tree, which readies the jobs on them."""
    n = len(graph.costs)
    waiting = [len(set(k)) for k in graph.needs]          # positions not yet in the tree
    need_of: dict[Key, list[int]] = {}
    for i, ks in enumerate(graph.needs):
        for k in set(ks):
            need_of.setdefault(k, []).append(i)
    phases = max(graph.phase) + 1
    left_in_phase = [0] * phases
    for p in graph.phase:
        left_in_phase[p] += 1
    open_phase = 0                      # the questions up to this one are asked
    while open_phase + 1 < phases and left_in_phase[open_phase] == 0:
        open_phase += 1
    expanded: set[Key] = set()
    # the chain that readied each job: (when, jobs on it) of what came last of all it waited for
    chain = [0] * n
    entered: dict[Key, tuple[int, int]] = {}    # a position: when it entered the tree, its chain
    asked = [(0, 0)] * phases                   # a question: when it was asked, its chain
    ready: list[int] = []               # job indices, smallest first
    events: list[tuple[int, int]] = []  # (end, job index)
    free_slots = slots
    front_free = 0
    done = 0
    busy = 0
    last_end = last_chain = 0
    released = [False] * n

    def release(i: int):
        if not released[i] and waiting[i] == 0 and graph.phase[i] <= open_phase:
            released[i] = True
            heapq.heappush(ready, i)

    def enter(k: Key, length: int):
        """A position enters the tree; one expanded without a job is expanded at once."""
        if k in entered:
            return
        entered[k] = (now, length)
        for i in need_of.get(k, ()):
            waiting[i] -= 1
            release(i)
        if k in graph.free:
            expand(k, length)

    def expand(k: Key, length: int):
        if k in expanded:
            return
        expanded.add(k)
        for child in graph.watchers.get(k, ()):
            enter(child, length)

    # the split: expanded at the start
    now = 0
    for i in range(n):
        release(i)
    for k in graph.free:
        if k not in graph.parents:
            enter(k, 0)
    while True:
        while ready and (free_slots is None or free_slots > 0):
            i = heapq.heappop(ready)
            start = max(now, front_free) if serial_front_end else now
            front_free = start + dispatch_us
            end = start + dispatch_us + start_us + graph.costs[i]
            busy += graph.costs[i]
            # the chain: that of what came last of all it waited for
            chain[i] = 1 + max([entered[k] for k in graph.needs[i]]
                               + [asked[graph.phase[i]]])[1]
            heapq.heappush(events, (end, i))
            if free_slots is not None:
                free_slots -= 1
        if not events:
            break
        now, i = heapq.heappop(events)
        batch = [i]
        while events and events[0][0] == now:
            batch.append(heapq.heappop(events)[1])
        ended_chain = max(chain[i] for i in batch)
        for i in batch:
            done += 1
            last_end, last_chain = now, ended_chain
            if free_slots is not None:
                free_slots += 1
            left_in_phase[graph.phase[i]] -= 1
        for i in sorted(batch):
            for k in graph.ends[i]:
                expand(k, chain[i])
        while open_phase + 1 < phases and left_in_phase[open_phase] == 0:
            open_phase += 1
            asked[open_phase] = (now, ended_chain)
            for j in range(n):
                release(j)
    if done != n:
        stuck = next(graph.ids[i] for i in range(n) if not released[i])
        raise ValueError(f"job {stuck} waits for a position no job's end puts in the tree: "
                         "the folder contradicts itself")
    return Schedule(last_end, busy, slots, last_chain)


# -- the table ---------------------------------------------------------------------------------

def rows(graph: Graph, slot_counts, dispatch_us: int, start_us: int = 0) -> list[dict]:
    """A row for each number of slots, and the critical path's row (slots None)."""
    one = replay(graph, 1, dispatch_us, start_us)
    out = []
    for s in list(slot_counts) + [None]:
        r = replay(graph, s, dispatch_us, start_us, serial_front_end=s is not None)
        out.append({
            "slots": s,
            "makespan_s": r.makespan / 1e6,
            "speedup": one.makespan / r.makespan if r.makespan else float("inf"),
            "idle": 1 - r.busy / (s * r.makespan) if s and r.makespan else None,
            "chain_jobs": r.chain,
        })
    return out


def seconds(s: float) -> str:
    if s < 1:
        return f"{s * 1000:.0f} ms"
    return f"{s:.1f} s" if s < 600 else f"{s / 60:.1f} min"


def table(out: list[dict]) -> str:
    lines = ["| slots | makespan | speed-up over 1 slot | idle share of the slots |",
             "|---:|---:|---:|---:|"]
    for r in out:
        if r["slots"] is None:
            lines.append(f"| critical path ({r['chain_jobs']} jobs in a chain) | "
                         f"{seconds(r['makespan_s'])} | {r['speedup']:.2f}x | |")
        else:
            lines.append(f"| {r['slots']} | {seconds(r['makespan_s'])} | {r['speedup']:.2f}x | "
                         f"{100 * r['idle']:.1f} % |")
    return "\n".join(lines)


def summary(rec: Recording, graph: Graph, dispatch_ms: float, start_ms: float) -> str:
    """What was replayed, in a few lines."""
    p = rec.proof
    nodes = sum(j.nodes for j in rec.jobs)
    job_seconds = sum(graph.costs) / 1e6
    how = "as recorded" if graph.rate is None else f"their nodes at {graph.rate:,.0f} a second"
    notes = [f"{p.width}x{p.height} {p.root} {p.goal}, split {p.split}"
             + ("" if rec.finished else " (not proven yet: the jobs so far)"),
             f"jobs with a result: {len(rec.jobs)} ("
             f"positions {sum(len(j.positions) for j in rec.jobs)}, "
             f"unproven {sum(len(j.unproven) for j in rec.jobs)}); "
             f"questions: {max(graph.phase) + 1}; "
             f"positions expanded without a job: {len(rec.expanded)}",
             f"{nodes / 1e6:.1f} M nodes, {job_seconds:.1f} s of jobs ({how}); "
             f"each job {dispatch_ms:g} ms of the front end and {start_ms:g} ms to start"]
    if rec.without_result:
        notes.append(f"jobs without a result, left out: {rec.without_result}")
    if rec.set_aside:
        notes.append(f"results set aside as damaged (their reruns count): {rec.set_aside}")
    return "\n".join(notes)


def parse_slots(text: str) -> list[int]:
    try:
        slots = [int(s) for s in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of numbers") from None
    if not slots or any(not 1 <= s <= 1_000_000 for s in slots):
        raise argparse.ArgumentTypeError("slots are 1..1000000")
    return slots


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("state", help="the state folder of a vier prove (docs/prove.md)")
    ap.add_argument("--slots", type=parse_slots, default=list(DEFAULT_SLOTS),
                    help="numbers of job slots, comma-separated (default: 1,2,16,64,1000)")
    ap.add_argument("--dispatch-ms", type=float, default=DEFAULT_DISPATCH_MS,
                    help="the front end's time for each job, one job after the other, ms "
                         f"(default {DEFAULT_DISPATCH_MS:g})")
    ap.add_argument("--start-ms", type=float, default=DEFAULT_START_MS,
                    help="each job's start on its slot (its process, its table, its files), ms "
                         f"(default {DEFAULT_START_MS:g})")
    ap.add_argument("--cost", choices=("micros", "nodes"), default="micros",
                    help="a job's cost: its recorded microseconds, or its nodes at the "
                         "recording's rate (the same on every run)")
    ap.add_argument("--rate", type=float,
                    help="with --cost nodes: nodes a second of one slot (default: the "
                         "recording's own, its nodes over its jobs' time)")
    ap.add_argument("--json", action="store_true", help="the rows as JSON instead of a table")
    args = ap.parse_args(argv)
    for name in ("dispatch_ms", "start_ms"):
        if not 0 <= getattr(args, name) <= 60_000:
            ap.error(f"--{name.replace('_', '-')} is 0..60000")
    if args.rate is not None and (args.cost != "nodes" or not 1 <= args.rate <= 1e12):
        ap.error("--rate goes with --cost nodes, 1..1e12 nodes a second")
    try:
        rec = read_state(args.state)
        graph = job_graph(rec, args.cost, args.rate)
        out = rows(graph, args.slots, round(args.dispatch_ms * 1000),
                   round(args.start_ms * 1000))
    except Damaged as e:
        print(f"replay.py: {e}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"replay.py: {args.state}: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"jobs": len(rec.jobs), "job_seconds": sum(graph.costs) / 1e6,
                          "dispatch_ms": args.dispatch_ms, "start_ms": args.start_ms,
                          "cost": args.cost, "rows": out},
                         indent=1))
    else:
        print(summary(rec, graph, args.dispatch_ms, args.start_ms))
        print()
        print(table(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
