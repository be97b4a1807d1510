"""``okbot chat`` offers what the user taught in one note line, and ``okbot teach`` does what the card does: real
processes against the fake server, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from okbot.core.workspace import Workspace
from tests.helpers.fake_evolution import teacher
from tests.helpers.fake_openai import FakeOpenAIServer

SOUL = "# Ada\n\nYou help the user ship releases.\n"
RULE = "From now on, always answer in British English."


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        srv.set_default(teacher)
        yield srv


def okbot(okbot_home, server, *args):
    env = {**os.environ, "OKBOT_HOME": str(okbot_home), "OKBOT_BASE_URL": server.base_url}
    return subprocess.run(
        [sys.executable, "-m", "okbot", *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


@pytest.fixture
def ada(okbot_home):
    return Workspace().create_assistant("Ada", soul_text=SOUL)


def test_chat_prints_one_note_line_and_teach_keeps_it_as_written(okbot_home, server, ada):
    chat = okbot(okbot_home, server, "chat", "Ada", "-m", RULE)
    assert chat.returncode == 0, chat.stderr
    notes = [line for line in chat.stderr.splitlines() if "teach" in line]
    assert notes == [f"okbot: note: keep #1 as a rule? “{RULE}” — okbot teach keep ada 1"]
    listed = okbot(okbot_home, server, "teach", "list", "Ada")
    assert listed.stdout == f"#1  offered   rule         “{RULE}”\n"
    kept = okbot(okbot_home, server, "teach", "keep", "Ada", "1")
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout.startswith("kept #1 as change #1 persona: added to Learnt from our conversations: " + RULE)
    assert ada.soul_path.read_text(encoding="utf-8").endswith(f"- {RULE}\n")
    again = okbot(okbot_home, server, "teach", "keep", "Ada", "1")
    assert again.returncode == 1 and "kept already" in again.stderr
    rows = json.loads(okbot(okbot_home, server, "teach", "list", "Ada", "--json").stdout)
    assert [(r["of"], r["state"], r["entries"]) for r in rows] == [(1, "kept", [1])]
    undo = okbot(okbot_home, server, "evolve", "Ada", "--undo", "1")
    assert undo.returncode == 0 and RULE not in ada.soul_path.read_text(encoding="utf-8")


def test_not_now_and_the_json_event(okbot_home, server, ada):
    chat = okbot(okbot_home, server, "chat", "Ada", "-m", "When I say ship it: 1) run make test, 2) push.", "--json")
    events = [json.loads(line) for line in chat.stdout.splitlines()]
    assert [e["event"] for e in events][-2:] == ["teaching", "done"]
    assert events[-2] == {
        "event": "teaching",
        "of": 1,
        "kind": "procedure",
        "words": "When I say ship it: 1) run make test, 2) push.",
        "keep": "okbot teach keep ada 1",
    }
    declined = okbot(okbot_home, server, "teach", "not-now", "Ada", "1")
    assert declined.stdout == "not kept: #1; it will not be offered again\n"
    assert "not now" in okbot(okbot_home, server, "teach", "list", "Ada").stdout
    again = okbot(okbot_home, server, "chat", "Ada", "--regenerate")  # the same message answered again
    assert again.returncode == 0 and "teach" not in again.stderr
    missing = okbot(okbot_home, server, "teach", "keep", "Ada", "7")
    assert missing.returncode == 1 and "okbot teach list ada" in missing.stderr
