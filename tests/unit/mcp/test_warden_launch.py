"""The packaged app's launcher runs the MCP warden when told to (a frozen executable runs no ``.py`` file)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from okbot.mcp import warden

LAUNCHER = Path(__file__).resolve().parents[3] / "packaging" / "okbot_launcher.py"

pytestmark = pytest.mark.skipif(not warden.available(), reason="the warden runs on Linux only")


def test_the_launcher_given_the_warden_flag_runs_the_server_under_the_warden() -> None:
    server = 'import sys; print(\'{"jsonrpc": "2.0", "id": 1}\'); sys.exit(3)'
    proc = subprocess.run(
        [sys.executable, str(LAUNCHER), warden.FROZEN_FLAG, sys.executable, "-c", server],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.stdout == '{"jsonrpc": "2.0", "id": 1}\n'  # relayed line by line
    assert proc.returncode == 3, proc.stderr  # the server's own status, not the app's


def test_from_a_checkout_the_warden_runs_as_a_script() -> None:
    command, args = warden.command_line("/usr/bin/server", ["--port", "1"])
    assert (command, args) == (sys.executable, [warden.__file__, "/usr/bin/server", "--port", "1"])
