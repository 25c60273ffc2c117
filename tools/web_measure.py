#!/usr/bin/env python3
"""The page without a server, measured in headless Chromium (docs/web.md):

- the cold load: a fresh browser profile (nothing cached) opens the folder with the engine
  playing first; the time from the navigation's start to the engine's first disc on the board,
  and the bytes the page and its worker transferred (performance entries);
- a Pons test set solved by the engine in the page's worker (`solve`: no book, one 1 MB table
  cleared per position, as `vier solve --no-book`), each position's time and score, the scores
  checked against the set's.

    tools/web.sh && tools/web_measure.py [--folder target/web] [--set FILE] [--loads N]

Serves the folder with `python3 -m http.server` on a free port; needs Chromium, chromedriver
and selenium (tools/test.sh installs them). Standard library and selenium only.
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "web"))
from test_page import StaticServer, new_driver, wait_for  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cold_load(url):
    """(ms from navigation start to the engine's first disc, transferred bytes, entries)."""
    driver = new_driver()
    try:
        # the engine plays first in every new game of this tab: the setting is the page's own,
        # so a first visit sets it, and the measured visit is a second, cold, browser
        driver.get(url)
        start = time.monotonic()
        wait_for("the page", lambda: driver.execute_script("return !!window.vierGame"))
        driver.execute_script("window.vierBackend.post('new', {engine: 'x'})")
        wait_for("the engine's first disc", lambda: driver.execute_script(
            "return window.vierGame.moves.length === 1"), limit=120)
        ms = driver.execute_script("return performance.now()")
        entries = driver.execute_script(
            "return performance.getEntriesByType('resource').concat("
            "performance.getEntriesByType('navigation')).map("
            "e => [e.name, e.transferSize, e.encodedBodySize])")
        return ms, time.monotonic() - start, entries
    finally:
        driver.quit()


def solve_set(url, path):
    positions = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2:
                positions.append((parts[0], int(parts[1])))
    driver = new_driver()
    try:
        driver.get(url)
        wait_for("the engine", lambda: driver.execute_script(
            "return !!window.vierGame && window.vierGame.engine.state === 'ready'"), limit=120)
        driver.set_script_timeout(3600)
        results = driver.execute_async_script(
            """
            const [positions, done] = arguments;
            (async () => {
              const engine = window.vierEngine;
              // warm-up: V8 compiles the hot functions again with its optimising tier
              for (const [moves] of positions.slice(0, 50)) await engine.solve({moves});
              const out = [];
              for (const [moves] of positions) {
                const t0 = performance.now();
                const r = await engine.solve({moves});
                out.push([r.score, r.time_ms, performance.now() - t0]);
              }
              return out;
            })().then(done, (e) => done(String(e)));
            """,
            positions,
        )
        if isinstance(results, str):
            sys.exit(f"the page failed: {results}")
        wrong = [(m, s, r[0]) for (m, s), r in zip(positions, results) if r[0] != s]
        times = [r[1] for r in results]
        round_trips = [r[2] for r in results]
        return {
            "set": os.path.basename(path),
            "positions": len(results),
            "wrong": wrong,
            "mean_ms": statistics.mean(times),
            "max_ms": max(times),
            "max_round_trip_ms": max(round_trips),
            "over_1s": sum(t > 1000 for t in round_trips),
        }
    finally:
        driver.quit()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--folder", default=os.path.join(ROOT, "target", "web"))
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--loads", type=int, default=3)
    a = ap.parse_args()
    server = StaticServer(a.folder)
    try:
        for i in range(a.loads):
            ms, wall, entries = cold_load(server.url)
            total = sum(e[1] for e in entries)
            print(f"cold load {i + 1}: first engine move at {ms:.0f} ms after navigation "
                  f"({wall:.1f} s wall), {total} bytes transferred")
            if i == 0:
                for name, size, body in entries:
                    print(f"  {name.rsplit('/', 1)[-1] or '/':<14} {size:>9} {body:>9}")
        for path in a.set:
            r = solve_set(server.url, path)
            print(json.dumps(r))
            if r["wrong"]:
                sys.exit(1)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
