"""Verdicts that a loaded machine must not flip (issue 23): the tests of servers that fail to start, run
again with every MCP server they start made 3 s slower (``tests/helpers/slow_start.py``), longer than the
2 s ``mcp.startupSeconds`` they test. Only the server meant never to start may be reported as too slow; one
that exits at start, and the one that works, must still be told as such."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.slow_start import KNOB

ROOT = Path(__file__).resolve().parents[2]
SLOWER_THAN_THE_SHORT_BOUND = "3"  # seconds; these tests give a server that never starts 2 s
LEANING_ON_START_UP = (
    "tests/unit/cli/test_mcp.py::test_servers_that_do_not_start_are_listed_as_failed_with_why",
    "tests/unit/mcp/test_hub.py::test_a_server_that_never_starts_is_stopped_after_the_start_up_time_and_reported",
    "tests/unit/mcp/test_mcp_turns.py::test_a_server_that_cannot_start_is_said_once_and_the_turn_goes_on",
)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_start_up_verdicts_hold_when_every_server_starts_slowly() -> None:
    env = {**os.environ, KNOB: SLOWER_THAN_THE_SHORT_BOUND}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", *LEANING_ON_START_UP],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert proc.returncode == 0, proc.stdout[-6000:]
