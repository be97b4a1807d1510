"""``python -m okbot.mcp.warden COMMAND ARG...``: runs a stdio MCP server so nothing it starts outlives it.

The SDK starts a server in a process group of its own and, to stop it, signals that group. A process
the server detaches (a double fork and ``setsid()``, as a daemon does) leaves the group, and, its
parent gone, is re-parented to init: it kept running after OkBot quit. On Linux the hub starts the
server under this warden instead: a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so such a
process is re-parented to the warden and stays findable. When the server exits (its stdin closed, or
the SDK's SIGTERM, which the warden passes on), the warden ends every process left below it — SIGTERM,
then SIGKILL after :data:`GRACE_SECONDS` — and exits with the server's status. It also ends when OkBot
dies without stopping it (``PR_SET_PDEATHSIG``).

The warden passes the server its stdin, stdout and stderr and touches none of them itself; it imports
nothing of OkBot beyond this module, so it starts in a few milliseconds.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
GRACE_SECONDS = 2.0  # what a leftover process gets to exit on SIGTERM
POLL_SECONDS = 0.02


def available() -> bool:
    """Whether this system lets the warden keep what a server detaches (Linux 3.4+, with /proc)."""
    return sys.platform.startswith("linux") and Path("/proc/self/task").is_dir()


def _prctl(option: int, value: int) -> None:
    if ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def _children() -> list[int]:
    """The warden's own children (adopted orphans included), from /proc."""
    found: list[int] = []
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError):
            found += [int(pid) for pid in (task / "children").read_text().split()]
    return found


def _reap() -> None:
    """Collect every child that has exited (adopted ones become zombies of the warden)."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _signal_all(sig: int) -> list[int]:
    _reap()
    children = _children()
    for pid in children:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
    return children


def end_leftovers() -> None:
    """End every process below the warden: SIGTERM, then SIGKILL until none is left (a process killed
    leaves its own children to the warden, which ends them in the next round)."""
    if not _signal_all(signal.SIGTERM):
        return
    deadline = time.monotonic() + GRACE_SECONDS
    while _children() and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        _reap()
    while _signal_all(signal.SIGKILL):
        time.sleep(POLL_SECONDS)


def main(argv: list[str]) -> int:
    """Run ``argv`` as the server; return its exit status once it and all it left behind have ended."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() == 1:  # OkBot died before the line above took effect
        return 1
    try:
        server = subprocess.Popen(argv)
    except OSError as exc:
        print(f"cannot run {argv[0]}: {exc.strerror}", file=sys.stderr)
        return 127

    def stop(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            server.send_signal(signal.SIGTERM)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    with open(os.devnull, "rb") as nothing:  # the server's stdin reaches EOF when OkBot closes it, not later
        os.dup2(nothing.fileno(), 0)
    with open(os.devnull, "wb") as nothing:  # and its stdout's EOF tells OkBot it exited
        os.dup2(nothing.fileno(), 1)
    code = server.wait()
    end_leftovers()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
