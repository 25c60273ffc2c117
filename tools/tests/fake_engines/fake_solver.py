#!/usr/bin/env python3
"""Stands in for `vier solve` in the make_openings test: `fake_solver.py solve [--size WxH]`
reads move strings and prints `<moves> <score> <nodes> <microseconds>`; the score is
made up: (sum of the digits % 5) - 2, and the moves '13' never finish (timeout test)."""
import sys
import time

assert sys.argv[1] == "solve", sys.argv
for line in sys.stdin:
    moves = line.split()[0] if line.split() else ""
    if moves == "13":
        time.sleep(60)
    digits = "" if moves == "-" else moves
    print(f"{moves} {sum(map(int, digits)) % 5 - 2} 1 1", flush=True)
