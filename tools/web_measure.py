#!/usr/bin/env python3
"""The page without a server, measured in headless Chromium (docs/web.md):

- the cold load: a fresh browser profile (nothing cached) opens the folder with the engine
  playing first; the time from the navigation's start to the engine's first disc on the board,
  and the bytes the page and its worker transferred (performance entries);
- a Pons test set solved by the engine in the page's worker (`solve`: no book, one 1 MB table
  cleared per position, as `vier solve --no-book`), each position's time and score, the scores
  checked against the set's;
- `--offline`: the page loaded once (its service worker keeps the folder), the server stopped,
  then a reload: the time from the reload's navigation to the engine's first disc, and the bytes
  that came from the network (none);
- `--stalls`: the page's main thread while it loads, plays a 7x6 game against the engine at
  100 ms a move with the analysis after every move, and reviews the game: its longest task
  (Chromium's trace of the page's main thread: the longest event no other encloses), the
  browser's long tasks (those over 50 ms), and a 5 ms timer's worst lateness;
- `--review MOVES`: the time from asking for the review of the 7x6 game MOVES to its last
  position proven, with one worker and with a worker a core (`?workers=N`);
- `--analysis`: the analysis of 20 positions (`ANALYSIS_SET` below: every column proven, as
  `vier solve --all`), with one worker and with a worker a core, one browser after the other:
  each position's time and the speed-up;
- `--first-visit`: the engine's moves at a thinking time of `--movetime` ms with the analysis
  after every move, on 7x6, then 12x4, then 5x13 (changed in the page's menu, as a person
  would), `--moves` moves a size: on the first visit (a fresh browser profile, before the
  service worker serves the page: not cross-origin isolated), then on the second (reloaded
  once the service worker is in control: isolated). Each move is the page's own click-to-disc
  time (`window.vierTimings`); the first move after a size change is shown apart.

    tools/web.sh && tools/web_measure.py [--folder target/web] [--set FILE] [--loads N]
        [--offline] [--stalls] [--review MOVES] [--analysis]
        [--first-visit [--movetime MS] [--moves N] [--runs N]]

Serves the folder with `python3 -m http.server` on a free port; needs Chromium, chromedriver
and selenium (tools/test.sh installs them). Standard library and selenium only.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "web"))
from test_page import StaticServer, new_driver, wait_for  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# 20 positions whose analysis takes the page some work: the first eleven 7x6 positions of Pons'
# Test_L1_R2 with ten discs or more (past the page's book), and positions of the test games of
# tests/web.rs on nine other sizes (no book), cut where `vier solve --all` needs 0.1 to 2 s.
ANALYSIS_SET = [("7x6", m) for m in (
    "32751571231557", "335662333565", "2416615552", "157564142155", "1616621455211",
    "2541266355551", "5371555645", "23156612526", "13134411534775", "23766176641753",
    "54676552255627")] + [
    ("6x6", "2513"),
    ("8x7", "32528887424"),
    ("8x8", "325288874241854688"),
    ("9x7", "32528887429188195526111"),
    ("5x13", "2513144442142455244"),
    ("7x9", "2577713147446472141545"),
    ("11x5", "cjbebhhhkgdbiaghja"),
    ("12x4", "cjbebhhhkgdbiag"),
    ("10x4", "cjbebhhhgd"),
]


def cold_load(url):
    """(ms from navigation start to the engine's first disc, transferred bytes, entries)."""
    driver = new_driver()
    try:
        # a fresh browser profile: nothing cached, no service worker yet
        driver.get(url)
        start = time.monotonic()
        ms, entries = first_move(driver)
        return ms, time.monotonic() - start, entries
    finally:
        driver.quit()


def first_move(driver):
    """A new game with the engine first: ms from the navigation's start to its disc, and the
    page's performance entries [name, transferred, body]."""
    wait_for("the page", lambda: driver.execute_script("return !!window.vierGame"))
    driver.execute_script("window.vierBackend.post('new', {engine: 'x'})")
    wait_for("the engine's first disc", lambda: driver.execute_script(
        "return window.vierGame.moves.length === 1"), limit=120)
    ms = driver.execute_script("return performance.now()")
    entries = driver.execute_script(
        "return performance.getEntriesByType('resource').concat("
        "performance.getEntriesByType('navigation')).map("
        "e => [e.name, e.transferSize, e.encodedBodySize])")
    return ms, entries


def offline_reload(folder):
    """The reload with the server stopped: (ms to the engine's first disc, bytes transferred,
    whether the service worker controlled the page)."""
    server = StaticServer(folder)  # its own: stopped below
    driver = new_driver()
    try:
        opened(driver, server.url)
        wait_for("the service worker", lambda: driver.execute_script(
            "return !!navigator.serviceWorker.controller"), limit=60)
        server.stop()
        server = None
        driver.refresh()
        ms, entries = first_move(driver)
        controlled = driver.execute_script("return !!navigator.serviceWorker.controller")
        return ms, sum(e[1] for e in entries), controlled
    finally:
        driver.quit()
        if server:
            server.stop()


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


def opened(driver, url):
    """Opens `url` in `driver` and waits for the engine's worker."""
    driver.get(url)
    wait_for("the engine", lambda: driver.execute_script(
        "return !!window.vierGame && window.vierGame.engine.state === 'ready'"), limit=120)


# Watches the main thread from the page's start: a 5 ms timer's lateness is how long the
# thread was busy before it could run it; the browser's long tasks (over 50 ms) are kept too.
STALL_PROBE = """
window.vierStalls = {late: 0, longTasks: [], since: performance.now()};
let due = performance.now() + 5;
setInterval(() => {
  const now = performance.now();
  window.vierStalls.late = Math.max(window.vierStalls.late, now - due);
  due = now + 5;
}, 5);
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.vierStalls.longTasks.push(e.duration);
}).observe({type: "longtask", buffered: true});
"""


def traced_driver():
    """Headless Chromium whose trace (the timeline's events) selenium's performance log keeps."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    opts.add_experimental_option("perfLoggingPrefs", {
        "enableNetwork": False, "enablePage": False, "traceCategories": "devtools.timeline,toplevel"})
    return webdriver.Chrome(options=opts, service=Service(executable_path=shutil.which("chromedriver")))


def main_thread_tasks(events, url):
    """The tasks of the page's main thread (the thread that evaluated its scripts), longest
    first: (ms, name), each an event no other event of the thread encloses."""
    host = urlsplit(url).netloc
    main = next(((e["pid"], e["tid"]) for e in events
                 if host in json.dumps(e.get("args", {})) and e["name"] == "EvaluateScript"), None)
    if main is None:
        return []
    spans = sorted(((e["ts"], e["ts"] + e["dur"], e["name"]) for e in events
                    if (e["pid"], e["tid"]) == main and e.get("ph") == "X" and "dur" in e),
                   key=lambda x: (x[0], -x[1]))
    top, end = [], -1.0
    for start, stop, name in spans:
        if start >= end:
            top.append(((stop - start) / 1000, name))
            end = stop
        elif stop > end:
            # overlapping but not enclosed: the stretch goes on
            ms, first = top[-1]
            top[-1] = (ms + (stop - end) / 1000, first)
            end = stop
    return sorted(top, reverse=True)


def stalls(url):
    """The longest stretches the page's main thread was busy: loading, a game against the
    engine with the analysis after every move, its review."""
    driver = traced_driver()
    events = []

    def collect():
        for entry in driver.get_log("performance"):
            m = json.loads(entry["message"])["message"]
            if m.get("method") == "Tracing.dataCollected":
                events.append(m["params"])
    try:
        # the probe runs before the page's own scripts, from the navigation on
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": STALL_PROBE})
        opened(driver, url)
        post = "return window.vierBackend.post(arguments[0], arguments[1]).then(() => true)"
        driver.execute_script(post, "settings", {"movetime": 100, "analysis_always": True})
        order = (4, 3, 5, 2, 6, 1, 7)
        while True:
            s = wait_for("the person's turn", lambda: (g := driver.execute_script(
                "return window.vierGame")) and (g["status"] != "playing" or g["to_move"] == "x")
                and (not g["analysis"] or g["analysis"]["complete"] or g["status"] != "playing")
                and g, limit=300)
            if s["status"] != "playing":
                break
            col = next(c for c in order if c in s["legal"])
            driver.find_element("css selector", f'[data-column="{col}"]').click()
            wait_for("the move", lambda: len(driver.execute_script(
                "return window.vierGame.moves")) > len(s["moves"]))
            collect()
        wait_for("the review", lambda: driver.execute_script(
            "return window.vierGame.review && window.vierGame.review.complete"), limit=600)
        out = driver.execute_script("return window.vierStalls")
        collect()
        return out, s["moves"], main_thread_tasks(events, url)
    finally:
        driver.quit()


def review(url, moves, workers):
    """Seconds from asking for the review of the 7x6 game `moves` to its last position."""
    driver = new_driver()
    try:
        opened(driver, f"{url}?workers={workers}#7x6/{moves}")
        driver.set_script_timeout(3600)
        return driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            const t0 = performance.now();
            window.vierBackend.post('settings', {engine: 'none'})
              .then(() => window.vierBackend.post('review'));
            const poll = setInterval(() => {
              const r = window.vierGame.review;
              if (r && r.complete) {
                clearInterval(poll);
                done([(performance.now() - t0) / 1000, r.proven, r.positions,
                      window.vierLanes.length]);
              }
            }, 10);""")
    finally:
        driver.quit()


def analysis(url, workers):
    """Seconds to analyse each of the 20 positions (every column proven), with `workers`."""
    driver = new_driver()
    try:
        opened(driver, f"{url}?workers={workers}")
        driver.execute_script("return window.vierBackend.post('settings', {engine: 'none'})")
        driver.set_script_timeout(3600)
        return driver.execute_async_script(
            """
            const [positions, done] = arguments;
            (async () => {
              const out = [];
              for (const [size, moves] of positions) {
                await window.vierBackend.post('position', {text: moves, size});
                const t0 = performance.now();
                await window.vierBackend.post('analyse');
                await new Promise((ok) => {
                  const poll = setInterval(() => {
                    const a = window.vierGame.analysis;
                    if (a && a.complete && a.moves === moves) { clearInterval(poll); ok(); }
                  }, 2);
                });
                const a = window.vierGame.analysis;
                out.push([size, moves, (performance.now() - t0) / 1000,
                          a.columns.filter((c) => c.exact).length,
                          window.vierGame.legal.length]);
              }
              return [out, window.vierLanes.length];
            })().then(done, (e) => done(String(e)));
            """,
            [list(p) for p in ANALYSIS_SET],
        )
    finally:
        driver.quit()


def visit_moves(driver, movetime, moves_per_size, sizes=("7x6", "12x4", "5x13")):
    """The click-to-disc times (ms) of the engine's moves, size by size, with the analysis after
    every move, as a person plays: the size chosen in the menu, a column clicked, the engine's
    reply awaited (and the analysis of the position after it, as a person would look at it)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    state = lambda: driver.execute_script("return window.vierGame")  # noqa: E731
    Select(driver.find_element(By.ID, "movetime")).select_by_value(str(movetime))
    wait_for("the thinking time", lambda: state()["movetime"] == movetime)
    always = driver.find_element(By.ID, "always")
    if not always.is_selected():
        always.click()
    wait_for("the analysis after every move", lambda: state()["analysis_always"])
    out = {}
    for size in sizes:
        if state()["size"] != size:
            Select(driver.find_element(By.ID, "size")).select_by_value(size)
            wait_for(f"the {size} board", lambda: state()["size"] == size and state()["moves"] == "")
        done = len(driver.execute_script("return window.vierTimings"))
        for i in range(moves_per_size):
            s = state()
            if s["status"] != "playing":
                break
            # the column nearest the centre that is open, then its neighbours
            centre = (s["width"] + 1) / 2
            col = min(s["legal"], key=lambda c: (abs(c - centre + (i % 3) - 1), c))
            before = len(s["moves"])
            driver.find_element(By.CSS_SELECTOR, f'[data-column="{col}"]').click()
            wait_for("the engine's reply", lambda: (t := state())["status"] != "playing"
                     or len(t["moves"]) >= before + 2, limit=120)
            # a person reads the values before the next move: the analysis is under way
            time.sleep(0.5)
        out[size] = driver.execute_script("return window.vierTimings")[done:]
    return out


def first_visit(url, movetime, moves_per_size):
    """The moves of `visit_moves` on the first visit and then on the second."""
    driver = new_driver()
    try:
        opened(driver, url)
        isolated = driver.execute_script("return crossOriginIsolated")
        controlled = driver.execute_script("return !!navigator.serviceWorker.controller")
        first = visit_moves(driver, movetime, moves_per_size)
        wait_for("the service worker", lambda: driver.execute_script(
            "return !!navigator.serviceWorker.controller"), limit=60)
        opened(driver, url)
        again = driver.execute_script("return crossOriginIsolated")
        second = visit_moves(driver, movetime, moves_per_size)
        cores = driver.execute_script("return navigator.hardwareConcurrency")
        return (isolated, controlled, first), (again, second), cores
    finally:
        driver.quit()


def show_moves(label, isolated, moves, movetime):
    print(f"  {label} (cross-origin isolated: {str(isolated).lower()}):")
    for size, times in moves.items():
        if not times:
            print(f"    {size}: no move")
            continue
        rest = times[1:] or times
        print(f"    {size}: first move after the size change {times[0]:.0f} ms (T + "
              f"{times[0] - movetime:.0f}); the others {min(rest):.0f}-{max(rest):.0f} ms, "
              f"median {statistics.median(rest):.0f} (T + {max(rest) - movetime:.0f} at most)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--folder", default=os.path.join(ROOT, "target", "web"))
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--loads", type=int, default=3)
    ap.add_argument("--offline", action="store_true")
    ap.add_argument("--stalls", action="store_true")
    ap.add_argument("--review", metavar="MOVES")
    ap.add_argument("--analysis", action="store_true")
    ap.add_argument("--first-visit", action="store_true")
    ap.add_argument("--movetime", type=int, default=1000)
    ap.add_argument("--moves", type=int, default=4)
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    if a.first_visit:
        a.loads = 0
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
        if a.offline:
            ms, transferred, controlled = offline_reload(a.folder)
            print(f"offline reload (server stopped): first engine move at {ms:.0f} ms after "
                  f"navigation, {transferred} bytes from the network, service worker in control: "
                  f"{controlled}")
        if a.stalls:
            found, moves, traced = stalls(server.url)
            tasks = sorted(found["longTasks"], reverse=True)
            print(f"main thread, loading, a game ({moves}) with the analysis after every move and "
                  f"its review: longest task {traced[0][0]:.1f} ms ({traced[0][1]}), then "
                  + ", ".join(f"{ms:.1f}" for ms, _ in traced[1:6])
                  + f" ms ({len(traced)} tasks traced); long tasks over 50 ms: {len(tasks)}; "
                  f"a 5 ms timer's worst lateness {found['late']:.0f} ms")
        if a.review:
            for workers in (1, 0):
                seconds, proven, positions, used = review(server.url, a.review, workers or "")
                print(f"review of {a.review} ({len(a.review)} moves): {seconds:.2f} s with "
                      f"{used} worker(s), {proven} of {positions} positions proven")
        if a.analysis:
            runs = []
            for workers in (1, 0):
                out = analysis(server.url, workers or "")
                if isinstance(out, str):
                    sys.exit(f"the page failed: {out}")
                out, used = out
                runs.append((used, out))
                total = sum(r[2] for r in out)
                unproven = sum(r[4] - r[3] for r in out)
                print(f"analysis of {len(out)} positions with {used} worker(s): {total:.2f} s "
                      f"({unproven} columns left unproven)")
            (_, n), (many, m) = runs
            print(f"{'size':<6} {'moves':<40} {'1 worker':>9} {f'{many} workers':>10}")
            for (size, moves, t1, *_), (_, _, tn, *_) in zip(n, m):
                print(f"{size:<6} {moves or '-':<40} {t1:>9.2f} {tn:>10.2f}")
            t1 = sum(r[2] for r in n)
            tn = sum(r[2] for r in m)
            print(f"speed-up with {many} workers: {t1 / tn:.2f}")
        if a.first_visit:
            print(f"engine moves at a thinking time T = {a.movetime} ms, the analysis after every "
                  f"move, {a.moves} moves a size (load {os.getloadavg()[0]:.1f}):")
            for run in range(a.runs):
                (iso1, sw1, first), (iso2, second), cores = first_visit(
                    server.url, a.movetime, a.moves)
                print(f" run {run + 1} ({cores} cores; a service worker at the start: "
                      f"{str(sw1).lower()})")
                show_moves("first visit", iso1, first, a.movetime)
                show_moves("second visit", iso2, second, a.movetime)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
