"""The processes a command started: finding every one below a process, and ending them.

On Linux a process can be made a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): a
descendant whose parent exits (``setsid … &``, a double fork, ``nohup … &``) is re-parented to it
instead of to init, so it stays below it and can be found and ended. Where that does not exist
(:data:`SUBREAPER` is False) such a process is lost from the tree. The process table comes from
/proc, or from ``ps`` where there is none.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

KILL_GRACE_SECONDS = 2.0
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37


def _load_prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` when this kernel knows child subreapers (Linux 3.4+), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    flag = ctypes.c_int(0)
    if prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) != 0:
        return None
    return prctl


_PRCTL = _load_prctl()
SUBREAPER = _PRCTL is not None  # whether a process that detaches can be kept below its ancestor


def become_subreaper() -> None:
    """Make the calling process a child subreaper (only where :data:`SUBREAPER`).

    Meant for ``preexec_fn``: it runs between fork and exec (the setting survives exec) and is one
    system call through a function looked up beforehand, taking no lock another thread could hold.
    """
    assert _PRCTL is not None
    _PRCTL(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


@dataclass(frozen=True)
class _Proc:
    pid: int
    ppid: int
    name: str
    live: bool  # not a zombie waiting for its reaper

    def label(self) -> str:
        return f"{self.pid} ({self.name})"


def _proc_table() -> list[_Proc]:
    """Every process on the machine, from /proc (Linux) or ``ps`` (elsewhere)."""
    proc_root = Path("/proc")
    if not (proc_root / "self" / "stat").exists():
        return _ps_table()
    table = []
    for entry in proc_root.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text(errors="replace")
        except OSError:
            continue  # gone meanwhile
        name, _, rest = text.partition(" (")[2].rpartition(")")
        fields = rest.split()
        if len(fields) > 1 and fields[1].isdigit():
            table.append(_Proc(int(entry.name), int(fields[1]), name, fields[0] not in ("Z", "X")))
    return table


def _ps_table() -> list[_Proc]:
    try:
        listing = subprocess.run(
            ["ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "stat=", "-o", "comm="],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    table = []
    for line in listing.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[0].isdigit() and parts[1].isdigit():
            table.append(_Proc(int(parts[0]), int(parts[1]), parts[3], not parts[2].startswith("Z")))
    return table


def _live_descendants(root: int) -> list[_Proc]:
    """The running (not zombie) processes below ``root``, ``root`` itself left out."""
    children: dict[int, list[_Proc]] = {}
    for proc in _proc_table():
        children.setdefault(proc.ppid, []).append(proc)
    found: list[_Proc] = []
    seen = {root}
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child.pid not in seen:
                seen.add(child.pid)
                found.append(child)
                todo.append(child.pid)
    return [proc for proc in found if proc.live]


def live_children(pid: int) -> list[int]:
    """The running (not zombie) children of ``pid``."""
    return [proc.pid for proc in _proc_table() if proc.ppid == pid and proc.live]


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass  # gone already; or not ours to signal (sudo), which is then reported as still running


def end_descendants(root: int, grace: float = KILL_GRACE_SECONDS) -> tuple[int, list[str]]:
    """End every process below ``root``: SIGTERM, then after ``grace`` seconds SIGSTOP and SIGKILL.

    The SIGKILL pass repeats (a process may fork meanwhile) for up to ``KILL_GRACE_SECONDS``.
    Returns how many processes were signalled and "pid (name)" of those still running after it.
    """
    live = _live_descendants(root)
    ended = {proc.pid for proc in live}
    for proc in live:
        _signal(proc.pid, signal.SIGTERM)
        _signal(proc.pid, signal.SIGCONT)  # a stopped process acts on SIGTERM only once continued
    end = time.monotonic() + grace
    while live and time.monotonic() < end:
        time.sleep(0.02)
        live = _live_descendants(root)
    end = time.monotonic() + KILL_GRACE_SECONDS
    while live:
        ended |= {proc.pid for proc in live}
        for proc in live:
            _signal(proc.pid, signal.SIGSTOP)  # frozen, it cannot fork while its siblings die
        for proc in live:
            _signal(proc.pid, signal.SIGKILL)
        if time.monotonic() >= end:
            break
        time.sleep(0.02)
        live = _live_descendants(root)
    if live:
        log.warning("run_shell: %d processes still run after SIGKILL", len(live))
    return len(ended), [proc.label() for proc in live]
