"""What the study measures: the search levels (the protocol's `SearchLevel`), the thinking
times, the phases of a game and their positions, a seeded sample of Pons' test sets."""

from __future__ import annotations

import os

from ..oracle import read_pons, seeded_prefix

LEVELS = [1, 2, 3, 4, 5, 6, 7]
LEVEL_NAMES = {1: "1 minimax", 2: "2 alpha-beta", 3: "3 +ordering", 4: "4 +deepening/TT",
               5: "5 +PVS/killers", 6: "6 +solver", 7: "7 +book (full)"}
DEPTH_LEVELS = [1, 2, 3, 4, 5]  # 6 and 7 end a `go depth` early with a proof
DEPTH_CAPS = {1: 9, 2: 13, 3: 15, 4: 18, 5: 19}
DEFAULT_TIMES = [1, 3, 10, 30, 100, 300, 1000]
QUICK_TIMES = [3, 30]
PHASES = [("begin", "Test_L1_R2"), ("middle", "Test_L2_R2"), ("end", "Test_L3_R1")]
PHASE_NAMES = [p for p, _ in PHASES]
BRANCHING = 7  # the theory's b: the columns of 7x6


def sample_positions(data_dir: str, n: int, seed: int) -> dict[str, list[tuple[str, int]]]:
    """n positions per phase, the first n of a seeded shuffle (so a smaller n is a prefix)."""
    out = {}
    for phase, name in PHASES:
        rows = read_pons(os.path.join(data_dir, name))
        out[phase] = seeded_prefix(rows, n, f"vier-study:{seed}:{name}")
    return out
