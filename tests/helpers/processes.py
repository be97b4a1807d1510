"""Looking at processes from a test (Linux /proc)."""

from __future__ import annotations

from pathlib import Path


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
