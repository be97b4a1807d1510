"""Hostile MCP servers against the real CLI: ``okbot mcp list`` and ``okbot chat`` as processes, each
under a memory cap, with the hand-written server of ``tests/helpers/mcp_server.py --hostile``.

What a server says is bounded (schemas written out, tools per server and their share of the window,
its stderr lines) and cleaned (escape sequences) where it enters OkBot; what it cannot say properly
(a tool list it cannot give, lines that are not JSON-RPC) is a reason shown once; a process it leaves
behind ends with OkBot.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.mcp.hub import MAX_TOOLS_PER_SERVER
from okbot.storage import paths
from tests.helpers.fake_openai import Reply
from tests.helpers.processes import PeakRun

ROOT = Path(__file__).resolve().parents[3]
MEMORY_CAP = 2 * 1024**3  # address space of the okbot child (and the server it starts): a blow-up fails, never swaps


@dataclass
class Ran:
    code: int
    out: str
    err: str
    peak_mb: float  # the largest resident set of the okbot process and what it waited for (PeakRun)


def okbot(*argv: str, env: dict[str, str] | None = None) -> Ran:
    """``python -m okbot ARGV`` as a child capped at :data:`MEMORY_CAP`, with its peak resident memory."""
    environ = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    with (paths.data_dir() / "out.txt").open("w+") as out, (paths.data_dir() / "err.txt").open("w+") as err:
        # cwd: the servers OkBot starts find `-m tests.helpers.mcp_server` there
        run = PeakRun(
            [sys.executable, "-m", "okbot", *argv],
            memory_cap=MEMORY_CAP,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env={**environ, **(env or {})},
            cwd=ROOT,
        )
        code, peak_mb = run.result(timeout=120)  # a hang fails the test instead of the run
        out.seek(0)
        err.seek(0)
        return Ran(code, out.read(), err.read(), peak_mb)


def add_hostile(name: str, behaviours: str, *, assistant: str | None = None) -> None:
    argv = ["mcp", "add", name, *(["--assistant", assistant] if assistant else [])]
    ran = okbot(*argv, "--", sys.executable, "-m", "tests.helpers.mcp_server", "--hostile", behaviours)
    assert ran.code == 0, ran.err


def listed(*flags: str) -> tuple[Ran, list[dict]]:
    ran = okbot("mcp", "list", "--json", *flags)
    assert ran.code == 0, ran.err
    return ran, json.loads(ran.out)


def log_text() -> str:
    return "".join(p.read_text(errors="replace") for p in paths.log_dir().glob("*.log*"))


@pytest.fixture(autouse=True)
def patient(okbot_home: Path) -> None:
    """A listing that waits for its answer runs into the subprocess timeout, never into a short bound."""
    paths.data_dir().mkdir(parents=True, exist_ok=True)
    settings = Settings.load()
    settings.set("mcp.startupSeconds", 60)
    settings.set("mcp.callSeconds", 600)


def test_a_ref_fan_out_schema_is_written_out_within_bounds_and_replaced_with_a_note() -> None:
    add_hostile("evil", "fanout")
    ran, [row] = listed()
    fan = next(t for t in row["tools"] if t["name"] == "fan")
    assert row["state"] == "running"
    assert any("written out" in note and "the model gets only the description" in note for note in fan["notes"])
    assert ran.peak_mb < 400, ran.peak_mb  # it took the 2 GB cap (MemoryError) before: 4**20 copies of a0
    kept = json.loads(paths.mcp_tools_file().read_text())
    assert [t["name"] for t in kept["servers"]["evil"]["tools"]] == ["echo", "fan"]
    ran, [row] = listed("--no-start")  # what every chat start reads: the kept list, simplified again
    assert ran.peak_mb < 400 and [t["name"] for t in row["tools"]] == ["echo", "fan"]


def test_a_schema_too_deep_to_read_fails_the_listing_at_once_with_why() -> None:
    add_hostile("deep", "deep")
    ran, [row] = listed()  # mcp.callSeconds is 600: waiting for the lost answer would time the process out
    assert row["state"] == "failed" and row["tools"] == []
    assert "its tool list could not be read" in row["detail"] and "nested too deep" in row["detail"]
    assert "Traceback" not in ran.err and "pydantic" not in ran.err, ran.err


def test_a_tool_list_the_server_cannot_give_is_a_failure_with_its_reason() -> None:
    add_hostile("locked", "list-error")
    _, [row] = listed()
    assert row["state"] == "failed", row
    assert "its tool list could not be read" in row["detail"] and "the tool database is locked" in row["detail"]


def test_escape_sequences_a_server_sends_never_reach_the_terminal_the_log_or_the_model() -> None:
    add_hostile("evil", "escapes")
    ran = okbot("mcp", "list")
    assert ran.code == 0, ran.err
    _, [row] = listed()
    for text in (ran.out, ran.err, json.dumps(row, ensure_ascii=False), log_text(), paths.mcp_tools_file().read_text()):
        assert not any(c in text for c in "\x1b\x07\x9b\r"), repr(text[:2000])
        assert "\\u001b" not in text and "\\u0007" not in text
    assert "state: running: okbot-hostile 1.0" in ran.out
    assert "  evil__echo  Repeat the text." in ran.out


def test_lines_on_stdout_that_are_not_json_rpc_are_logged_once_not_printed() -> None:
    add_hostile("chatty", "junk")
    ran, [row] = listed()
    assert row["state"] == "running" and [t["name"] for t in row["tools"]] == ["echo"]
    assert "Traceback" not in ran.err and "JSONRPC" not in ran.err, ran.err
    logged = log_text()
    assert logged.count("is not JSON-RPC") == 1, logged
    assert "Traceback" not in logged and "Starting the hostile server..." in logged


def test_an_endless_stderr_line_is_read_in_bounded_memory() -> None:
    add_hostile("loud", "stderr-line=0")
    calm, _ = listed()
    add_hostile("loud", "stderr-line=30")  # the same server, now with a 30 MB line
    loud, [row] = listed()
    assert row["state"] == "running"
    assert loud.peak_mb - calm.peak_mb < 15, (calm.peak_mb, loud.peak_mb)  # the 30 MB line added 60+ MB before
    logged = log_text()
    assert "MCP loud stderr: xxxx" in logged and "MCP loud stderr: ready" in logged
    assert max(len(line) for line in logged.splitlines()) < 3_000


def _ended(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` (not our child) ends within ``seconds``: its pidfd becomes readable."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], seconds)[0])
    finally:
        os.close(fd)


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs Linux pidfds")
def test_a_detached_grandchild_of_a_server_ends_when_the_chat_exits(server, okbot_home: Path) -> None:
    Workspace().create_assistant("Ann")
    pid_file = okbot_home / "escapee.pid"
    add_hostile("daemon", f"escapee={pid_file}", assistant="Ann")
    server.enqueue(Reply(text="Hello."))
    ran = okbot("chat", "Ann", "-m", "hi", env={"OKBOT_BASE_URL": server.base_url})
    assert ran.code == 0 and "Hello." in ran.out, ran.err
    pid = int(pid_file.read_text())  # written before the server answered its first request
    ended = _ended(pid, 30)  # idle it takes well under a second after the chat's exit
    if not ended:
        os.kill(pid, 9)
    assert ended, "the setsid grandchild outlived okbot chat"


def _events(ran: Ran) -> list[dict]:
    return [json.loads(line) for line in ran.out.splitlines() if line.startswith("{")]


@pytest.mark.slow
def test_a_tool_that_runs_only_as_a_task_is_not_offered_and_the_list_and_the_chat_say_why(
    server, okbot_home: Path
) -> None:
    # server-everything's simulate-research-query: offered, it failed every call with "MCP error -32601"
    Workspace().create_assistant("Ann")
    add_hostile("tasks", "tasks", assistant="Ann")
    _ran, [row] = listed()
    assert row["state"] == "running"
    assert [t["name"] for t in row["tools"]] == ["echo", "summarise"]  # a task it may run directly stays
    assert "research not offered: it runs only as an MCP task" in row["note"]
    assert "research not offered" in okbot("mcp", "list").out
    server.enqueue(Reply(text="Hello."))
    ran = okbot("chat", "Ann", "-m", "hi", "--json", env={"OKBOT_BASE_URL": server.base_url})
    assert ran.code == 0, ran.err
    (request,) = server.chat_requests()
    assert [t["function"]["name"] for t in request["tools"] if t["function"]["name"].startswith("tasks__")] == [
        "tasks__echo",
        "tasks__summarise",
    ]
    notices = [e["item"]["content"] for e in _events(ran) if e.get("item", {}).get("type") == "notice"]
    assert any("MCP server tasks: research not offered" in n for n in notices), notices
    _ran, [row] = listed("--no-start")  # from the cache the first listing wrote: the reason is kept
    assert "research not offered" in row["note"]


@pytest.mark.slow
def test_thousands_of_tools_are_cut_per_server_and_to_a_share_of_the_window_saying_which_and_why(
    server, okbot_home: Path
) -> None:
    Workspace().create_assistant("Ann")
    add_hostile("many", "many", assistant="Ann")
    ran, [row] = listed()
    assert row["state"] == "running" and len(row["tools"]) == MAX_TOOLS_PER_SERVER
    assert "lists 5,001 tools" in row["note"] and f"only its first {MAX_TOOLS_PER_SERVER}" in row["note"]
    assert "many lists 5,001 tools" in okbot("mcp", "list").out
    assert ran.peak_mb < 400, ran.peak_mb
    assert paths.mcp_tools_file().stat().st_size < 1_000_000  # every chat reads it (110 MB before)

    Settings.load().set("model.contextWindow", 16_000)  # a small local model's window
    server.enqueue(Reply(text="Hello."))
    ran = okbot("chat", "Ann", "-m", "hi", "--json", env={"OKBOT_BASE_URL": server.base_url})
    assert ran.code == 0, ran.err
    notices = [e["item"]["content"] for e in _events(ran) if e.get("item", {}).get("type") == "notice"]
    assert any("many lists 5,001 tools" in n for n in notices), notices
    assert any("MCP server many: only" in n and "a quarter of the model's 16,000-token window" in n for n in notices)
    (request,) = server.chat_requests()
    offered = [t["function"]["name"] for t in request["tools"] if t["function"]["name"].startswith("many__")]
    assert 0 < len(offered) < MAX_TOOLS_PER_SERVER
    assert len(json.dumps(request["tools"])) // 4 < 16_000 // 2


def test_an_answer_over_the_message_bound_is_refused_before_the_sdk_reads_it() -> None:
    add_hostile("huge", "huge")  # a 40 MB tool list in one line
    ran, [row] = listed()
    assert row["state"] == "failed" and row["tools"] == []
    assert "its tool list could not be read" in row["detail"] and "over 32 MB" in row["detail"], row["detail"]
    assert ran.peak_mb < 150, ran.peak_mb  # 274 MB and 15 s before; 110 MB of tools took 1 GB
