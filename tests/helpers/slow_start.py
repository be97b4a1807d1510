"""Load, made repeatable: every MCP server the tests start can be made to take ``OKBOT_TEST_SLOW_START``
seconds longer to start, as on a loaded machine, so a test whose verdict leans on a short start-up bound
fails every time instead of now and then (``tests/unit/test_timing_under_load.py``).

Run as ``python tests/helpers/slow_start.py SECONDS PROGRAM [ARG…]``: it sleeps, then becomes PROGRAM."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

KNOB = "OKBOT_TEST_SLOW_START"


def server_command(*argv: str) -> tuple[str, ...]:
    """``argv`` as the tests start it: unchanged, or behind this delay when :data:`KNOB` is set."""
    delay = os.environ.get(KNOB)
    if not delay:
        return argv
    return (sys.executable, str(Path(__file__).resolve()), delay, *argv)


if __name__ == "__main__":
    time.sleep(float(sys.argv[1]))
    os.execvp(sys.argv[2], sys.argv[2:])
