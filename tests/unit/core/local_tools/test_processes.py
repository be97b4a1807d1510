"""Finding and ending every process below another: real processes, the subreaper, /proc and ps."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from okbot.core.local_tools.processes import SUBREAPER, _proc_table, _ps_table, become_subreaper, end_descendants
from tests.helpers.processes import gone

DETACHED = "sh -c 'echo $$ > d.pid; exec sleep 300'"


def pid_written(path: Path) -> int:
    end = time.monotonic() + 30
    while not path.exists() or not path.read_text().strip():
        assert time.monotonic() < end, f"nothing wrote {path}"
        time.sleep(0.02)
    return int(path.read_text())


def parent_of(pid: int) -> int:
    [proc] = [proc for proc in _proc_table() if proc.pid == pid]
    return proc.ppid


def test_ending_descendants_leaves_the_root_alone(tmp_path):
    root = subprocess.Popen(["bash", "-c", f"{DETACHED} & sleep 300 & wait"], cwd=tmp_path)
    try:
        pid = pid_written(tmp_path / "d.pid")
        ended, still = end_descendants(root.pid, grace=0.5)
        assert ended == 2 and still == []
        assert gone(pid)
        assert root.wait(timeout=10) == 0  # not signalled: its `wait` returned once its children were ended
    finally:
        root.kill()
        root.wait()


def test_a_process_that_ignores_sigterm_is_killed(tmp_path):
    root = subprocess.Popen(
        ["bash", "-c", "sh -c 'trap \"\" TERM; echo $$ > d.pid; sleep 300; :' & wait"], cwd=tmp_path
    )
    try:
        pid = pid_written(tmp_path / "d.pid")
        ended, still = end_descendants(root.pid, grace=0.3)
        assert still == [] and gone(pid)  # SIGKILL after the grace: SIGTERM alone would leave it sleeping
    finally:
        root.kill()
        root.wait()


def test_nothing_below_is_nothing_to_do():
    with subprocess.Popen(["sleep", "300"]) as lone:
        try:
            assert end_descendants(lone.pid, grace=0.1) == (0, [])
            assert lone.poll() is None
        finally:
            lone.kill()


@pytest.mark.skipif(not SUBREAPER, reason="no child subreapers on this system")
def test_a_subreaper_adopts_what_a_child_detached(tmp_path):
    """Without it the detached sleep goes to init; with it, it stays below the root and is ended."""
    root = subprocess.Popen(
        ["bash", "-c", f"(setsid {DETACHED} &); sleep 300"], cwd=tmp_path, preexec_fn=become_subreaper
    )
    try:
        pid = pid_written(tmp_path / "d.pid")
        assert parent_of(pid) == root.pid
        ended, still = end_descendants(root.pid, grace=0.5)
        assert ended == 1 and still == []  # (bash ran its last command, sleep, in its own place)
        assert gone(pid)
    finally:
        root.kill()
        root.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child subreapers are Linux's")
def test_linux_has_subreapers():
    assert SUBREAPER


def test_ps_and_proc_see_the_same_parent():
    """Without /proc (macOS) the process table comes from ps; here both must agree on this process."""
    [mine] = [proc for proc in _ps_table() if proc.pid == os.getpid()]
    assert mine.ppid == os.getppid() and mine.live
    if Path("/proc/self/stat").exists():
        [also] = [proc for proc in _proc_table() if proc.pid == os.getpid()]
        assert also.ppid == os.getppid() and also.live
