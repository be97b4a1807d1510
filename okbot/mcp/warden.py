"""``python -m okbot.mcp.warden COMMAND ARG...``: runs a stdio MCP server so nothing it starts outlives it.

The SDK starts a server in a process group of its own and, to stop it, signals that group. A process
the server detaches (a double fork and ``setsid()``, as a daemon does) leaves the group, and, its
parent gone, is re-parented to init: it kept running after OkBot quit. On Linux the hub starts the
server under this warden instead: a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so such a
process is re-parented to the warden and stays findable. When the server exits (its stdin closed, or
the SDK's SIGTERM, which the warden passes on, and SIGKILL after :data:`GRACE_SECONDS` when the server
is still busy), the warden ends every process left below it — SIGTERM,
then SIGKILL after :data:`GRACE_SECONDS` — and exits with the server's status. It also ends when OkBot
dies without stopping it (``PR_SET_PDEATHSIG``).

The warden also relays the server's stdout line by line, each line (one JSON-RPC message) at most
:data:`MAX_MESSAGE_BYTES`: the SDK reads a whole line into memory and parses it at once, so a 110 MB
tool list took OkBot to a gigabyte. A longer line is skipped, and when it was an answer its request
gets an error saying why instead. The server's stdin and stderr are its own, untouched; the warden
imports nothing of OkBot beyond this module, so it starts in a few milliseconds.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import BinaryIO

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
GRACE_SECONDS = 2.0  # what a leftover process gets to exit on SIGTERM
POLL_SECONDS = 0.02
MAX_MESSAGE_BYTES = 32 * 1024 * 1024  # a 10 MB tool result, sent twice (text and structured), still fits
SKIP_BYTES = 1024 * 1024  # how much of an over-long line is read at once to skip it
FROZEN_FLAG = "--okbot-mcp-warden"  # how the packaged app's executable is told to be the warden
_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def available() -> bool:
    """Whether this system lets the warden keep what a server detaches (Linux 3.4+, with /proc)."""
    return sys.platform.startswith("linux") and Path("/proc/self/task").is_dir()


def command_line(program: str, args: list[str]) -> tuple[str, list[str]]:
    """The command and arguments that run ``program args`` under the warden.

    From a checkout or a wheel this file runs as a script; the packaged app's executable runs no
    ``.py`` file, so its launcher starts the warden when it is given :data:`FROZEN_FLAG`.
    """
    if getattr(sys, "frozen", False):
        return sys.executable, [FROZEN_FLAG, program, *args]
    return sys.executable, [__file__, program, *args]


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


def _too_long(head: bytes, limit: int) -> bytes:
    """What stands in for a line over ``limit`` bytes that began with ``head``: an error answer to the
    request it answered, or nothing (a notification, or no id seen)."""
    found = _ID.search(head[:4096])
    if found is None or b'"method"' in head[:4096]:
        return b""
    message = f"the answer is over {limit:,} bytes, more than OkBot reads"
    said = {"code": -32603, "message": message, "data": {"okbotWarden": "tooLong"}}  # the hub says it translated
    error = {"jsonrpc": "2.0", "id": json.loads(found.group(1)), "error": said}
    return json.dumps(error).encode() + b"\n"


def relay(source: BinaryIO, sink: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> None:
    """Copy ``source`` to ``sink`` line by line, each line at most ``limit`` bytes (see :func:`_too_long`)."""
    with contextlib.suppress(OSError):  # OkBot closed its end: nothing more to pass on
        while line := source.readline(limit + 1):
            if len(line) > limit:
                head = line[:4096]
                while (rest := source.readline(SKIP_BYTES)) and not rest.endswith(b"\n"):
                    pass
                line = _too_long(head, limit)
            sink.write(line)
            sink.flush()
    with contextlib.suppress(OSError):
        while source.read(SKIP_BYTES):  # the server is not left blocked on a full pipe
            pass


def main(argv: list[str]) -> int:
    """Run ``argv`` as the server; return its exit status once it and all it left behind have ended."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() == 1:  # OkBot died before the line above took effect
        return 1
    try:
        server = subprocess.Popen(argv, stdout=subprocess.PIPE)
    except OSError as exc:
        print(f"cannot run {argv[0]}: {exc.strerror}", file=sys.stderr)
        return 127

    def kill() -> None:
        if server.returncode is None:  # not reaped yet, so the pid is still the server's
            with contextlib.suppress(ProcessLookupError):
                os.kill(server.pid, signal.SIGKILL)

    def stop(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            server.send_signal(signal.SIGTERM)
        # A server that finishes its operation first (or ignores SIGTERM) would outlive OkBot by as long as
        # that takes: it gets the grace period, as every leftover does, then SIGKILL.
        timer = threading.Timer(GRACE_SECONDS, kill)
        timer.daemon = True
        timer.start()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    with open(os.devnull, "rb") as nothing:  # the server's stdin reaches EOF when OkBot closes it, not later
        os.dup2(nothing.fileno(), 0)
    assert server.stdout is not None
    sink = os.fdopen(os.dup(1), "wb")
    relaying = threading.Thread(target=relay, args=(server.stdout, sink), daemon=True)
    relaying.start()
    with open(os.devnull, "wb") as nothing:  # only the relay writes to OkBot: its end tells OkBot the server's
        os.dup2(nothing.fileno(), 1)
    code = server.wait()
    end_leftovers()  # a detached process may hold the server's stdout open
    relaying.join(GRACE_SECONDS)  # EOF once the last holder of the server's stdout has ended
    sink.close()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
