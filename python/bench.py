"""Benchmarks of the Python package and of `vier serve` (not tests: they time, and assert nothing
about time).

    python python/bench.py analyse [--set Test_L2_R2] [--rounds 3]
        `vier solve --all` on a Pons set against `vier.analyse` of the same positions, side by
        side in alternating rounds: each as a whole process (start-up and book included) and
        as the sum of the positions' own times from the second on (Python's first call loads
        the book).
    python python/bench.py serve [--set Test_L2_R1] [--clients 8] [--jobs N]
        starts `vier serve` on a free loopback port and sends every position of the set from
        that many concurrent clients (persistent connections), checking every answer.

VIER_BIN names the engine binary (default target/release/vier); the Python package must be
installed in the interpreter that runs this.
"""

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VIER_BIN = os.environ.get("VIER_BIN", str(ROOT / "target" / "release" / "vier"))

# The first call loads and checks the built-in book, which `vier solve` does before its own
# per-position timer starts: it is timed apart, so that "positions only" compares like with like.
PY_ANALYSE = """
import sys, time, vier
positions = [l.split()[0] for l in open(sys.argv[1]) if l.strip()]
t = time.perf_counter()
vier.analyse(positions[0])
first = time.perf_counter() - t
t = time.perf_counter()
for p in positions[1:]:
    vier.analyse(p)
print(first, time.perf_counter() - t)
"""


def positions_of(name):
    return [l.split()[0] for l in (ROOT / "tests/data/pons" / name).read_text().splitlines() if l.strip()]


def bench_analyse(args):
    path = ROOT / "tests/data/pons" / args.set
    n = len(positions_of(args.set))
    cli_wall, cli_sum, py_wall, py_loop, py_first = [], [], [], [], []
    for _ in range(args.rounds):
        t = time.perf_counter()
        with open(path) as f:
            out = subprocess.run(
                [VIER_BIN, "solve", "--all"], stdin=f, capture_output=True, text=True, check=True
            )
        cli_wall.append(time.perf_counter() - t)
        # per line: moves, 7 scores, nodes, microseconds
        # positions 2.. (Python's first call also loads the book)
        cli_sum.append(sum(float(l.split()[-1]) for l in out.stdout.splitlines()[1:]) / 1e6)
        t = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", PY_ANALYSE, str(path)], capture_output=True, text=True, check=True
        )
        py_wall.append(time.perf_counter() - t)
        first, rest = map(float, out.stdout.split())
        py_first.append(first)
        py_loop.append(rest)
    med = statistics.median
    print(f"{args.set}: {n} positions, {args.rounds} alternating rounds, medians")
    print(f"  whole process   vier solve --all {med(cli_wall):.3f} s   python {med(py_wall):.3f} s   "
          f"ratio {med(py_wall) / med(cli_wall):.3f}")
    print(f"  positions 2..   vier solve --all {med(cli_sum):.3f} s   python {med(py_loop):.3f} s   "
          f"ratio {med(py_loop) / med(cli_sum):.3f}   (Python's first call, with the book's "
          f"loading: {med(py_first) * 1000:.0f} ms)")
    print(f"  rounds: cli {['%.3f' % x for x in cli_wall]} python {['%.3f' % x for x in py_wall]}")


def bench_serve(args):
    positions = positions_of(args.set)
    cmd = [VIER_BIN, "serve", "--port", "0"] + (["--jobs", str(args.jobs)] if args.jobs else [])
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        host, port = line.split("http://")[1].split("/")[0].rsplit(":", 1)
        # the first request parses the book: outside the timing
        c = http.client.HTTPConnection(host, int(port), timeout=60)
        c.request("GET", "/solve?pos=4453")
        c.getresponse().read()
        latencies, errors = [], []
        lock = threading.Lock()

        def client(share):
            conn = http.client.HTTPConnection(host, int(port), timeout=60)
            mine = []
            for pos in share:
                t = time.perf_counter()
                conn.request("GET", f"/solve?pos={pos}")
                r = conn.getresponse()
                body = r.read()
                mine.append(time.perf_counter() - t)
                v = json.loads(body)
                if r.status != 200 or v.get("pos") != pos or len(v.get("score", [])) != 7:
                    with lock:
                        errors.append((pos, r.status, body[:200]))
            with lock:
                latencies.extend(mine)

        shares = [positions[i :: args.clients] for i in range(args.clients)]
        threads = [threading.Thread(target=client, args=(s,)) for s in shares]
        t = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        wall = time.perf_counter() - t
        latencies.sort()
        q = lambda f: latencies[min(len(latencies) - 1, int(f * len(latencies)))] * 1000
        print(f"{args.set}: {len(positions)} requests from {args.clients} clients, jobs "
              f"{args.jobs or 'default'}: {wall:.2f} s, {len(positions) / wall:.0f} requests/s, "
              f"latency median {q(0.5):.1f} ms, p99 {q(0.99):.1f} ms, errors {len(errors)}")
        for e in errors[:5]:
            print("  error:", e)
    finally:
        server.terminate()
        server.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    a = sub.add_parser("analyse")
    a.add_argument("--set", default="Test_L2_R2")
    a.add_argument("--rounds", type=int, default=3)
    s = sub.add_parser("serve")
    s.add_argument("--set", default="Test_L2_R1")
    s.add_argument("--clients", type=int, default=8)
    s.add_argument("--jobs", type=int, default=0)
    args = ap.parse_args()
    bench_analyse(args) if args.what == "analyse" else bench_serve(args)


if __name__ == "__main__":
    main()
