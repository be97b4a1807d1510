"""The hub runs real MCP servers: it starts them on use in their own process group, lists and calls
their tools, reports the ones that never start or die, restarts a crashed one once, and stops them all."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time

from okbot.config.mcp import McpServerConfig
from okbot.llm.provider import CancelToken
from okbot.logs import setup_logging
from okbot.mcp.hub import FAILED, RUNNING, McpHub
from okbot.storage import paths
from okbot.storage.redaction import REDACTED
from tests.helpers.patience import PATIENT_SECONDS
from tests.unit.mcp.conftest import SERVER_SCRIPT, TOKEN, our_server, time_server


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has exited: it only waits to be reaped
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def test_servers_start_on_use_in_their_own_process_group_and_stop_with_the_hub(settings, hub):
    settings.mcp_servers.add(our_server())
    settings.mcp_servers.add(time_server())
    assert [s.state for s in hub.states()] == ["not started", "not started"]  # nothing runs before use
    assert hub.prepare(["test", "time"]) == {}
    assert [s.state for s in hub.states()] == [RUNNING, RUNNING]
    assert hub.state("time").detail.startswith("mcp-time ")  # the published server, unmodified
    offered = [t.offered for t in hub.tools_of("test")]
    assert offered[:3] == ["test__echo", "test__big", "test__crash"]
    assert [t.offered for t in hub.tools_of("time")] == ["time__get_current_time", "time__convert_time"]

    assert hub.call("test__echo", {"text": "ab", "times": 3}, timeout=10).text == "ababab"
    now = hub.call("time__get_current_time", {"timezone": "Asia/Tokyo"}, timeout=10)
    assert now.ok and json.loads(now.text)["timezone"] == "Asia/Tokyo"

    who = hub.call("test__whoami", {}, timeout=10).text
    pid, pgid = (int(part.split("=")[1]) for part in who.split())
    assert pgid != os.getpgid(0)  # a process group of its own (its warden's): a signal to ours never reaches it
    hub.close()
    deadline = time.monotonic() + PATIENT_SECONDS
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)
    assert hub.prepare(["test"]) == {"test": "OkBot is closing; MCP servers are not started any more"}


def test_a_server_that_never_starts_is_stopped_after_the_start_up_time_and_reported(settings, hub):
    settings.mcp_servers.add(our_server("never", "--never-start"))
    settings.mcp_servers.add(our_server("exits", "--exit-at-start"))
    settings.mcp_servers.add(McpServerConfig("missing", command="no-such-mcp-program-x1"))
    failed = hub.prepare(["exits", "missing"])  # within the fixture's generous bound: told why, not "too slow"
    settings.set("mcp.startupSeconds", 2)  # the short bound only where running out of it is the outcome
    failed.update(hub.prepare(["never"]))
    assert failed["never"] == "MCP server never did not start within 2 s (mcp.startupSeconds)."
    assert "could not start: it exited before answering" in failed["exits"]
    assert "the configuration file is missing" in failed["exits"]  # its own stderr says why
    assert "no-such-mcp-program-x1 was not found" in failed["missing"]
    assert {s.state for s in hub.states()} == {FAILED}
    assert not hub.usable("never") and hub.tools_of("never") == []
    # the call of a tool of a server that is down is an error the model reads, not an exception
    assert not hub.call("never__echo", {"text": "x"}, timeout=5).ok


def test_a_server_that_dies_mid_call_is_restarted_once_then_left_stopped(settings, hub):
    settings.mcp_servers.add(our_server())
    hub.prepare(["test"])
    died = hub.call("test__crash", {}, timeout=10)
    assert not died.ok
    assert "stopped during the crash call, so it may or may not have taken effect" in died.text
    assert "about to exit with status 3" in died.text  # its last stderr line
    assert hub.usable("test")  # it will be started again at its next use
    assert hub.prepare(["test"]) == {}
    assert hub.state("test").restarts == 1 and hub.call("test__echo", {"text": "back"}, timeout=10).text == "back"

    hub.call("test__crash", {}, timeout=10)
    state = hub.state("test")
    assert state.state == FAILED and "not restarted any more" in state.detail
    assert not hub.usable("test")
    again = hub.call("test__echo", {"text": "x"}, timeout=10)
    assert not again.ok and "not restarted any more" in again.text
    assert "not restarted any more" in hub.prepare(["test"])["test"]
    assert hub.restart("test").state == RUNNING  # the user restarts it: the count starts over
    assert hub.call("test__echo", {"text": "ok"}, timeout=10).text == "ok"


def test_a_ten_megabyte_result_arrives_whole_and_a_wrong_argument_is_the_servers_error(settings, hub):
    settings.mcp_servers.add(our_server())
    settings.mcp_servers.add(time_server())
    big = hub.call("test__big", {"megabytes": 10}, timeout=60)
    assert big.ok and len(big.text) > 10_000_000
    wrong = hub.call("time__get_current_time", {"tz": "Europe/Paris"}, timeout=10)
    assert not wrong.ok and "timezone" in wrong.text and "Field required" in wrong.text
    assert not hub.call("test__nope", {}, timeout=10).ok


def test_stderr_goes_to_the_log_with_secrets_redacted_and_env_values_reach_the_server(settings, hub):
    log_file = setup_logging(crash_reports=False)
    settings.mcp_servers.add(our_server(env=("OKBOT_TEST_TOKEN",)))
    assert hub.call("test__env", {"name": "OKBOT_TEST_TOKEN"}, timeout=10).text == TOKEN
    assert hub.call("test__env", {"name": "OPENAI_API_KEY"}, timeout=10).text == "(unset)"  # never inherited
    assert hub.call("test__echo_secret", {"text": TOKEN}, timeout=10).text == "logged"
    hub.close()
    for handler in logging.getLogger("okbot").handlers:
        handler.flush()
    text = log_file.read_text(encoding="utf-8")
    assert f"MCP test stderr: secret seen: {REDACTED}" in text
    assert TOKEN not in text
    assert TOKEN not in paths.settings_file().read_text(encoding="utf-8")


def test_tool_lists_are_kept_so_a_new_process_offers_the_same_tools_without_starting_anything(settings, hub):
    settings.mcp_servers.add(our_server())
    hub.prepare(["test"])
    first = hub.tools_of("test")
    hub.close()
    later = McpHub(lambda: settings, cache_file=paths.mcp_tools_file())
    try:
        assert later.tools_of("test") == first and later.state("test").state == "not started"
        lookup = next(t for t in later.tools_of("test") if t.name == "lookup")
        assert "$defs" not in json.dumps(lookup.parameters) and lookup.notes  # fitted, and it says so
        settings.mcp_servers.add(our_server("test", "--never-start"))
        assert later.tools_of("test") == []  # another server under that name: the old list is not its own
    finally:
        later.close()


def test_a_stopped_turn_ends_a_slow_call_at_once(settings, hub):
    settings.mcp_servers.add(our_server())
    hub.prepare(["test"])
    cancel = CancelToken()
    threading.Timer(0.5, cancel.cancel).start()
    result = hub.call("test__slow", {"seconds": 30}, timeout=60, cancel=cancel)
    assert not result.ok and "stopped" in result.text and "waited" not in result.text  # not its 30 s answer
    assert hub.call("test__echo", {"text": "still here"}, timeout=10).text == "still here"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_remote_server_over_streamable_http_and_one_that_cannot_be_reached(settings, hub):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, SERVER_SCRIPT, "--http", str(port)], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + PATIENT_SECONDS
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        settings.mcp_servers.add(McpServerConfig("remote", url=f"http://127.0.0.1:{port}/mcp", headers=("X-Token",)))
        assert hub.prepare(["remote"]) == {}
        assert hub.call("remote__echo", {"text": "far", "times": 2}, timeout=10).text == "farfar"
        assert hub.state("remote").state == RUNNING
    finally:
        hub.close()
        proc.terminate()
        proc.wait(10)
    gone = McpHub(lambda: settings)
    settings.mcp_servers.add(McpServerConfig("down", url=f"http://127.0.0.1:{_free_port()}/mcp"))
    try:
        why = gone.prepare(["down"])["down"]
        assert "could not reach http://127.0.0.1:" in why and "after 3 attempts" in why
    finally:
        gone.close()
