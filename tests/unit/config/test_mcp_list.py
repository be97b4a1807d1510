"""The MCP servers in settings.json (okbot.config.mcp_list): added, approved, removed, saved at once and told to
subscribers; bad entries set aside with a message. Real files in the test's data dir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from okbot.config.mcp import McpServerConfig
from okbot.config.schema import SettingError
from okbot.config.settings import Settings
from okbot.storage import paths


def test_servers_round_trip_and_a_bad_entry_is_removed_with_a_message_the_rest_kept() -> None:
    settings = Settings.load()
    settings.mcp_servers.add(McpServerConfig("time", command="mcp-server-time", args=("--local-timezone", "UTC")))
    settings.mcp_servers.add(McpServerConfig("tracker", url="https://mcp.example.com/mcp", headers=("Authorization",)))
    settings.mcp_servers.set_approval("time", "allow", tool="get_current_time")
    data = json.loads(paths.settings_file().read_text(encoding="utf-8"))
    assert data["mcpServers"][0] == {
        "name": "time",
        "command": "mcp-server-time",
        "args": ["--local-timezone", "UTC"],
        "approval": "ask",
        "toolApproval": {"get_current_time": "allow"},
    }
    data["mcpServers"].append({"name": "Bad Name", "command": "x"})
    data["mcpServers"].append({"name": "both", "command": "x", "url": "https://a.example/mcp"})
    paths.settings_file().write_text(json.dumps(data), encoding="utf-8")
    again = Settings.load()
    assert [c.name for c in again.mcp_servers.all()] == ["time", "tracker"]
    assert any("'Bad Name' is not allowed" in p for p in again.problems)
    assert any("either a command" in p for p in again.problems)
    assert again.mcp_servers.get("time").approval_of("get_current_time") == "allow"
    assert again.mcp_servers.get("time").approval_of("convert_time") == "ask"
    with pytest.raises(SettingError, match="no MCP server called 'nope'"):
        again.mcp_servers.get("nope")


def test_remove_keeps_the_order_of_the_rest_and_tells_subscribers(tmp_path: Path) -> None:
    settings = Settings.load(tmp_path / "settings.json")
    heard: list[str] = []
    settings.subscribe(heard.append)
    for name in ("a", "b", "c"):
        settings.mcp_servers.add(McpServerConfig(name, command="srv"))
    settings.mcp_servers.add(McpServerConfig("a", command="other"))  # replaced in its place
    settings.mcp_servers.remove("b")
    assert [c.name for c in Settings.load(tmp_path / "settings.json").mcp_servers.all()] == ["a", "c"]
    assert settings.mcp_servers.get("a").command == "other"
    assert heard == ["mcpServers"] * 5
    with pytest.raises(SettingError, match="the MCP servers are: a, c"):
        settings.mcp_servers.remove("b")


def test_a_change_that_cannot_be_saved_is_not_made(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 99}), encoding="utf-8")  # a newer OkBot's file: read-only
    settings = Settings.load(path)
    with pytest.raises(SettingError, match="newer"):
        settings.mcp_servers.add(McpServerConfig("time", command="mcp-server-time"))
    assert settings.mcp_servers.all() == []


def test_reload_says_when_only_a_tool_approval_changed(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    mine = Settings.load(path)
    mine.mcp_servers.add(McpServerConfig("time", command="mcp-server-time"))
    other = Settings.load(path)  # another process
    other.mcp_servers.set_approval("time", "allow", tool="get_current_time")
    assert mine.reload() == ["mcpServers"]
    assert mine.mcp_servers.get("time").approval_of("get_current_time") == "allow"
    assert mine.reload() == []
