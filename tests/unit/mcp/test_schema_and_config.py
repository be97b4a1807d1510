"""MCP server entries (validated, credentials never in them) and tool schemas fitted to what every provider
takes, saying what changed. The list in settings.json: tests/unit/config/test_mcp_list.py."""

from __future__ import annotations

import json

import pytest

from okbot.config.mcp import McpServerConfig, assistant_servers, check_server_name, parse_pairs
from okbot.config.schema import SettingError
from okbot.config.settings import Settings
from okbot.mcp.schema import MAX_NAME_CHARS, offered_name, simplify


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
