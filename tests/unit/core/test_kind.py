"""Tests for okbot.core.kind: a Kind is its on-disk string, read strictly and written plainly."""

from __future__ import annotations

import json
import sqlite3

import pytest

from okbot.core.kind import Kind
from okbot.storage import migrations


def test_a_kind_equals_and_writes_its_on_disk_string() -> None:
    assert Kind.ASSISTANT == "assistant" and Kind.SQUAD == "squad"
    assert json.dumps({"kind": Kind.SQUAD, Kind.ASSISTANT: 1}) == '{"kind": "squad", "assistant": 1}'
    assert f"{Kind.SQUAD}-x" == "squad-x" and str(Kind.ASSISTANT) == "assistant"
    assert type(json.loads(json.dumps(Kind.SQUAD))) is str
    with sqlite3.connect(":memory:") as db:
        assert db.execute("select ?", (Kind.SQUAD,)).fetchone() == ("squad",)


def test_a_kind_finds_and_is_found_by_the_plain_string_in_a_dict() -> None:
    assert {"assistant": 1, "squad": 2}[Kind.SQUAD] == 2
    assert {Kind.ASSISTANT: 1}["assistant"] == 1
    assert migrations.CURRENT[Kind.ASSISTANT] == migrations.CURRENT["assistant"]


def test_parse_reads_the_exact_string_only() -> None:
    assert Kind.parse("assistant") is Kind.ASSISTANT and Kind.parse("squad") is Kind.SQUAD
    assert Kind.parse(Kind.SQUAD) is Kind.SQUAD
    for bad in ("Squad", "squads", " squad", "", "robot", None, 7, ["squad"]):
        assert Kind.parse(bad) is None


def test_a_bad_kind_in_code_fails_loudly() -> None:
    with pytest.raises(ValueError, match="robot"):
        Kind("robot")


def test_folder_and_meta_file() -> None:
    assert (Kind.ASSISTANT.folder, Kind.ASSISTANT.meta_file) == ("assistants", "assistant.json")
    assert (Kind.SQUAD.folder, Kind.SQUAD.meta_file) == ("squads", "squad.json")
