"""The study of `tools/study.py`, by job: what it measures (`design`: the search levels, times,
phases and the sample of positions), its three parts (`depth`: the cost of a depth; `sweep`:
levels against thinking time; `matches`: Elo through the referee), and what it shows
(`strength`: the skill levels' calibration; `plots`; `report`: report.md).  `tools/study.py` is
the command line that runs them and writes the results."""

import os

TOOLS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT = os.path.dirname(TOOLS)
