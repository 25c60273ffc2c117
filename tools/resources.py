#!/usr/bin/env python3
"""resources.py - what a hostile client can make vier's servers hold, before, during and after
(issue 60's three resource repros; Linux, Python stdlib only; a measurement, not a test).

    python3 tools/resources.py [--engine target/release/vier] [gui] [serve] [idle]

* gui: `vier gui` with 8 games whose engines analyse the empty 8x7 board; then 8 new games,
  which drop the old ones: the old engines must end, the new games get engines.
* serve: `vier serve --jobs 2` and 60 requests for the empty 8x7 board whose clients hang up
  after 50 ms (as `curl -m 0.05` does).
* idle: `vier serve` and 200 connections that send nothing, held for 8 s.

For each: the server's threads, its child processes, the resident memory of it and its
children, and its open sockets, before, during (the most seen) and after (a few seconds later).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def children(pid: int) -> list[int]:
    kids = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                kids += [int(k) for k in fh.read().split()]
    except OSError:
        pass
    return kids


def status(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def sockets(pid: int) -> int:
    try:
        return sum(os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
                   for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def snapshot(pid: int) -> dict:
    kids = children(pid)
    return {
        "threads": status(pid, "Threads"),
        "processes": len(kids),
        "rss_mb": (status(pid, "VmRSS") + sum(status(k, "VmRSS") for k in kids)) // 1024,
        "sockets": sockets(pid),
    }


class Watch:
    """The most of each figure while it runs."""

    def __init__(self, pid: int):
        self.pid, self.peak, self.done = pid, snapshot(pid), threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.done.is_set():
            s = snapshot(self.pid)
            self.peak = {k: max(v, s[k]) for k, v in self.peak.items()}
            time.sleep(0.01)

    def stop(self) -> dict:
        self.done.set()
        self.thread.join()
        return self.peak


def start(engine: str, *args: str) -> tuple[subprocess.Popen, str]:
    p = subprocess.Popen([engine, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    addr = line.split("http://", 1)[1].split("/", 1)[0]
    return p, addr


def request(addr: str, method: str, path: str, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://{addr}{path}", data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def report(name: str, before: dict, during: dict, after: dict, note: str = ""):
    print(f"{name}{note}")
    for key in ("threads", "processes", "rss_mb", "sockets"):
        print(f"  {key:<10} before {before[key]:>6}   during {during[key]:>6}   after {after[key]:>6}")


def gui(engine: str):
    p, addr = start(engine, "gui", "--no-open", "--port", "0")
    try:
        time.sleep(0.5)
        before = snapshot(p.pid)
        old = []
        for _ in range(8):
            sid = request(addr, "POST", "/api/session")["id"]
            request(addr, "POST", f"/api/session/{sid}/settings", {"engine": "none"})
            request(addr, "POST", f"/api/session/{sid}/new", {"size": "8x7"})
            request(addr, "POST", f"/api/session/{sid}/analyse")
            old.append(sid)
        time.sleep(3)  # all eight analysing
        w = Watch(p.pid)
        t0 = time.monotonic()
        new = [request(addr, "POST", "/api/session")["id"] for _ in range(8)]

        def ready():
            return sum(request(addr, "GET", f"/api/session/{i}")["engine"]["state"] == "ready" for i in new)

        while ready() < 8 and time.monotonic() - t0 < 60:
            time.sleep(0.05)
        took = time.monotonic() - t0
        time.sleep(3)
        after = snapshot(p.pid)
        during = w.stop()
        report("gui: 8 analysing games dropped for 8 new ones", before, during, after,
               f" (the new games' engines ready: {ready()} of 8, after {took:.1f} s)")
    finally:
        p.kill()
        p.wait()


def serve(engine: str):
    p, addr = start(engine, "serve", "--port", "0", "--jobs", "2")
    try:
        request(addr, "GET", "/solve?pos=4453")
        before = snapshot(p.pid)
        w = Watch(p.pid)
        host, port = addr.rsplit(":", 1)
        for _ in range(60):
            s = socket.create_connection((host, int(port)))
            s.sendall(f"GET /solve?pos=&width=8&height=7 HTTP/1.1\r\nHost: {addr}\r\n\r\n".encode())
            time.sleep(0.05)
            s.close()
        time.sleep(3)
        after = snapshot(p.pid)
        during = w.stop()
        report("serve --jobs 2: 60 solves of the empty 8x7 board whose clients hang up", before, during,
               after)
    finally:
        p.kill()
        p.wait()


def idle(engine: str):
    p, addr = start(engine, "serve", "--port", "0")
    try:
        request(addr, "GET", "/solve?pos=4453")
        time.sleep(0.5)
        before = snapshot(p.pid)
        w = Watch(p.pid)
        host, port = addr.rsplit(":", 1)
        held = [socket.create_connection((host, int(port))) for _ in range(200)]
        time.sleep(8)
        after = snapshot(p.pid)
        during = w.stop()
        report("serve: 200 connections that send nothing, held 8 s", before, during, after,
               " (after: at 8 s, the clients still holding them)")
        for s in held:
            s.close()
    finally:
        p.kill()
        p.wait()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default=os.path.join(HERE, "..", "target", "release", "vier"))
    ap.add_argument("repro", nargs="*", default=["gui", "serve", "idle"])
    a = ap.parse_args(argv)
    print(f"engine {a.engine}; load {os.getloadavg()[0]:.2f}")
    for r in a.repro:
        {"gui": gui, "serve": serve, "idle": idle}[r](a.engine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
