"""``okbot chat`` stopped with SIGTERM while an MCP tool runs takes the server down with it (issue 34, item 22:
the server's process ran on until its own operation ended)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from tests.helpers.fake_openai import Reply, tool_call
from tests.helpers.patience import PATIENT_SECONDS
from tests.helpers.processes import gone
from tests.unit.mcp.conftest import our_server

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + PATIENT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.mark.parametrize("flags", [(), ("--finish-before-exit",)], ids=["plain", "finishes-its-call-first"])
def test_sigterm_during_an_mcp_call_ends_the_server(okbot_home, server, tmp_path, flags):
    settings = Settings.load()
    settings.set("mcp.startupSeconds", 60)
    settings.mcp_servers.add(our_server("test", *flags, approval="allow"))
    ws = Workspace()
    ws.set_meta(ws.ensure_default(), "mcpServers", ["test"])
    mark = tmp_path / "call-began"
    server.enqueue(
        Reply(tool_calls=[tool_call("test__slow", {"seconds": 600, "mark": str(mark)})]), Reply(text="Done.")
    )
    env = {**os.environ, "OKBOT_BASE_URL": server.base_url, "OKBOT_API_KEY": "sk-test-0123456789"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "okbot", "chat", "okbot", "-m", "wait a while", "--json"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    server_pid = 0
    try:
        _wait_for(lambda: mark.exists() and mark.read_text() or proc.poll() is not None, "the tool call never began")
        assert proc.poll() is None, proc.communicate()
        server_pid = int(mark.read_text())
        proc.send_signal(signal.SIGTERM)
        out, _err = proc.communicate(timeout=PATIENT_SECONDS)
        _wait_for(lambda: gone(server_pid), "the MCP server still runs its 600 s call after okbot chat was ended")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if server_pid and not gone(server_pid):  # a failed run leaves no 600 s server behind
            os.kill(server_pid, signal.SIGKILL)
    assert proc.returncode != 0
    events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert any(e.get("event") == "item" and e["item"]["type"] == "tool_call" for e in events)
