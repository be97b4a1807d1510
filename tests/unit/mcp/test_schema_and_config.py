"""MCP servers in settings.json (validated, bad entries set aside with a message, credentials never stored
there) and tool schemas fitted to what every provider takes, saying what changed."""

from __future__ import annotations

import json

import pytest

from okbot.config.mcp import McpServerConfig, assistant_servers, check_server_name, parse_pairs
from okbot.config.schema import SettingError
from okbot.config.settings import Settings
from okbot.mcp.schema import MAX_NAME_CHARS, offered_name, simplify
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


@pytest.mark.parametrize("name", ["a__b", "UPPER", "-dash", "", "x" * 25, "with space", "a/b"])
def test_server_names_that_would_break_tool_names_are_refused(name) -> None:
    with pytest.raises(SettingError):
        check_server_name(name)


def test_credentials_in_urls_and_malformed_pairs_are_refused() -> None:
    settings = Settings.load()
    with pytest.raises(SettingError, match="not in the URL"):
        settings.mcp_servers.add(McpServerConfig("x", url="https://user:pw@example.com/mcp"))
    assert parse_pairs(["Authorization=Bearer a=b"], "header") == {"Authorization": "Bearer a=b"}
    with pytest.raises(SettingError, match="expected NAME=VALUE"):
        parse_pairs(["NOEQUALS"], "env")
    assert assistant_servers({"mcpServers": ["time", "Bad Name", 3, "time"]}) == ("time",)


def test_names_are_fitted_to_what_providers_allow() -> None:
    assert offered_name("time", "get_current_time") == "time__get_current_time"
    assert offered_name("gh", "issues.list") == "gh__issues_list"
    long = offered_name("server", "t" * 80)
    assert len(long) == MAX_NAME_CHARS and long != offered_name("server", "t" * 81)


def test_schemas_are_simplified_and_every_change_is_said() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"Place": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
        "properties": {
            "place": {"$ref": "#/$defs/Place"},
            "when": {"type": ["string", "null"], "format": "date-time"},
            "mode": {"oneOf": [{"const": "a"}, {"type": "integer"}]},
            "extra": {"type": "object", "patternProperties": {"^x": {"type": "string"}}},
        },
        "required": ["place", "gone"],
        "if": {"properties": {"mode": {"const": "a"}}},
    }
    fitted, notes = simplify(schema)
    assert fitted["properties"]["place"] == {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    }
    assert fitted["properties"]["when"] == {"type": "string", "format": "date-time"}
    assert fitted["properties"]["mode"] == {"anyOf": [{"enum": ["a"]}, {"type": "integer"}]}
    assert fitted["required"] == ["place"]
    assert "if" not in fitted and "$defs" not in json.dumps(fitted)
    assert notes == sorted(
        [
            "'oneOf' became 'anyOf'",
            "references ($ref) were written out in place",
            "the keyword 'if' was left out",
            "the keyword 'patternProperties' was left out",
        ]
    )


def test_recursive_huge_and_odd_schemas_still_give_an_object() -> None:
    recursive = {
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/N"}},
        "$defs": {"N": {"type": "object", "properties": {"child": {"$ref": "#/$defs/N"}}}},
    }
    fitted, notes = simplify(recursive)
    assert (
        fitted["properties"]["node"]["properties"]["child"] == {}
        and "a recursive reference (#/$defs/N) was cut" in notes
    )
    assert simplify({"type": "object", "description": "x" * 20_000})[0] == {"type": "object", "properties": {}}
    assert simplify("nope")[0] == {"type": "object", "properties": {}}
    assert simplify({"type": "string"})[1] == [
        "its input schema was not an object at the top; the model gets a bare object"
    ]
    assert simplify({"type": "object"})[0] == {"type": "object", "properties": {}}
