"""Looking at processes from a test (Linux /proc)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# Starts the command capped at argv[1] bytes of address space, waits, and writes "CODE PEAK_KIB" to argv[2].
_GO_BETWEEN = """
import resource, subprocess, sys
cap, report = int(sys.argv[1]), sys.argv[2]
code = subprocess.call(sys.argv[3:], preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)))
with open(report, "w") as fh:
    fh.write(f"{code} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
"""


class PeakRun:
    """A command run to measure its peak resident memory, capped at ``memory_cap`` bytes of address space.

    It is started by a small Python go-between, never forked straight from the test: Linux carries the
    forking process's high-water mark across ``exec`` into the child's peak, so a child of a test worker
    holding 500 MB reports 500 MB whatever it used itself. ``popen`` are :class:`subprocess.Popen`'s
    arguments (the go-between passes stdin, stdout and stderr on to the command).
    """

    def __init__(self, argv: list[str], *, memory_cap: int, **popen: Any) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="okbot-peak-"))
        self._report = self._dir / "report"
        go_between = [sys.executable, "-c", _GO_BETWEEN, str(memory_cap), str(self._report)]
        self.proc = subprocess.Popen([*go_between, *argv], start_new_session=True, **popen)

    def result(self, timeout: float = 120) -> tuple[int, float]:
        """Wait for the command (killed with its go-between after ``timeout`` s): its exit code, its peak in MB."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise
        finally:
            report = self._report.read_text() if self._report.exists() else ""
            shutil.rmtree(self._dir, ignore_errors=True)
        code, peak_kib = report.split()
        return int(code), int(peak_kib) / 1024


def gone(pid: int) -> bool:
    """The process no longer runs (absent, or a zombie waiting for a reaper that is not us)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def interruptible() -> None:
    """``preexec_fn`` for a child a test stops with SIGINT: a shell that started the test run in the
    background ignores SIGINT, children inherit that, and Python then never raises KeyboardInterrupt."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def running_with(marker: str) -> list[int]:
    """The live processes whose command line holds ``marker`` (a process in another pid namespace included)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and not gone(int(entry.name)):
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue  # gone meanwhile
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found
