"""keeper.py - runs one engine for the referee and ends, with it, everything it started.

    python3 keeper.py FD PROGRAM [ARG...]

(viertools.engine starts it; standard library only.) The engine runs in a process group of its
own on the keeper's standard input and output, which the keeper then lets go of: the referee's
pipes reach the engine directly, and the keeper relays nothing. The keeper writes `pid N` (the
engine's) or `error WHY` (it could not be started) to the descriptor FD and closes it.

On Linux the keeper is its engine's subreaper (prctl PR_SET_CHILD_SUBREAPER): whatever the
engine starts and leaves behind, in whatever group or session (issue 68: a child started with
`start_new_session` held the referee's pipe for minutes), becomes the keeper's child. The keeper
ends the engine's group and all its children, and their groups, until none is left, when the
engine exits, when it gets SIGTERM, SIGINT or SIGHUP, or when its parent is gone; then it exits
as its engine did (the same status, or the same signal). The engine dies with its keeper
(PR_SET_PDEATHSIG) should the keeper be killed outright. Elsewhere the engine's group is ended.
"""

import ctypes
import os
import signal
import subprocess
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
LOOK_EVERY = 0.02


def prctl(option, value):
    """prctl(2) on Linux; False where there is none."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def children_of(pid):
    """The processes whose parent is `pid` (from /proc; none where there is no /proc)."""
    out = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                # "pid (name) state ppid ...": the name may hold spaces and parentheses
                fields = fh.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            out.append(int(name))
    return out


def reap(engine):
    """Reaps every ended child; the engine's wait status if it was among them."""
    found = None
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return found
        if pid == 0:
            return found
        if pid == engine:
            found = status


def kill(pid_or_group, group=False):
    try:
        (os.killpg if group else os.kill)(pid_or_group, signal.SIGKILL)
    except OSError:
        pass


def end_all(engine, me, parent):
    """Ends the engine's group and every process left with the keeper, over and over."""
    kill(engine, group=True)
    kill(engine)
    spared = {os.getpgrp()}
    try:
        spared.add(os.getpgid(parent))
    except OSError:
        pass
    for _ in range(1000):
        reap(0)
        children = children_of(me)
        if not children:
            return
        for pid in children:
            try:
                group = os.getpgid(pid)
            except OSError:
                group = 0
            if group > 1 and group not in spared:
                kill(group, group=True)
            kill(pid)
        time.sleep(0.005)


def main():
    report = int(sys.argv[1])
    argv = sys.argv[2:]
    parent, me = os.getppid(), os.getpid()
    asked = []
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: asked.append(True))
    prctl(PR_SET_CHILD_SUBREAPER, 1)

    def in_the_engine():
        os.setpgid(0, 0)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)

    try:
        # kept referenced: its poll must not reap the engine before the keeper does
        proc = subprocess.Popen(argv, preexec_fn=in_the_engine)
        engine = proc.pid
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        os.write(report, f"error {e}".encode())
        os.close(report)
        return 127
    os.write(report, f"pid {engine}".encode())
    os.close(report)
    # the engine holds the referee's pipes; once it and all it started are gone, the referee
    # sees the end of its output
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    status = None
    while status is None and not asked and os.getppid() == parent:
        time.sleep(LOOK_EVERY)
        status = reap(engine)
    end_all(engine, me, parent)
    if status is None:
        status = reap(engine)
    if status is None:
        return 1
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(me, -code)
    return code


if __name__ == "__main__":
    sys.exit(main())
