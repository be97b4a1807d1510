"""``okbot evolve``: upkeep now against the fake server, what was applied and refused, the log and undo."""

from __future__ import annotations

import json

import pytest

from okbot.__main__ import main
from okbot.core.items import new_item, user_message
from okbot.core.sources import ContextSources
from okbot.core.workspace import Workspace
from tests.helpers.env import settings_for
from tests.helpers.fake_evolution import is_upkeep_request, reckless, teacher
from tests.helpers.fake_openai import FakeOpenAIServer

SOUL = "# Ada\n\nNever push to main without asking.\n"


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        srv.set_default(teacher)
        settings_for(srv)
        yield srv


@pytest.fixture
def ada():
    target = Workspace().create_assistant("Ada", soul_text=SOUL)
    session = ContextSources(Workspace()).session(target)
    session.append(user_message("From now on, always answer in British English."))
    session.append(new_item("assistant", author="ada", source="app", content="Right you are."))
    session.append(user_message("When I say ship it: 1) run make test, 2) tag the release, 3) push the tag."))
    session.append(new_item("assistant", author="ada", source="app", content="Noted."))
    return target


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_evolve_applies_at_once_and_says_what_and_why(server, ada, capsys):
    code, out, _ = run(capsys, "evolve", "Ada")
    assert code == 0
    assert out.splitlines()[0] == "Ada: upkeep ran (persona, skills): 2 proposed, 2 applied, 0 refused."
    assert "applied #1" in out and "persona: added to Style: From now on, always answer in British English." in out
    assert "applied #2" in out and "skill: new skill ship-it" in out
    assert "British English" in ada.soul_path.read_text(encoding="utf-8")
    assert (ada.skills_dir / "ship-it" / "SKILL.md").is_file()
    code, out, _ = run(capsys, "evolve", "Ada")  # nothing new said since
    assert (code, out) == (0, "Ada: nothing new to learn from since the last upkeep.\n")
    assert sum(map(is_upkeep_request, server.chat_requests())) == 2


def test_evolve_json_lists_refusals_by_check(server, ada, capsys):
    server.set_default(reckless)
    code, out, _ = run(capsys, "evolve", "ada", "--json")
    report = json.loads(out)
    assert code == 0 and report["ran"] == ["persona", "skills"]
    assert {r["check"] for r in report["refused"]} == {"citation", "grounding", "hand-written"}
    assert all(a["cited"] == [1] or a["cited"] == [3] for a in report["applied"])
    assert "Never push to main without asking." in ada.soul_path.read_text(encoding="utf-8")


def test_log_and_undo(server, ada, capsys):
    run(capsys, "evolve", "Ada")
    code, out, _ = run(capsys, "evolve", "Ada", "--undo", "1")
    assert (code, out) == (0, "undid #1 persona: added to Style: From now on, always answer in British English.\n")
    assert ada.soul_path.read_text(encoding="utf-8") == SOUL
    code, out, _ = run(capsys, "evolve", "Ada", "--log", "--json")
    log = json.loads(out)
    assert [(e["id"], bool(e["undone"])) for e in log] == [(1, True), (2, False)]
    code, _, err = run(capsys, "evolve", "Ada", "--undo", "1")
    assert code == 1 and "already undone" in err
    code, _, err = run(capsys, "evolve", "Ada", "--undo", "9")
    assert code == 1 and "No change #9" in err


def test_a_squad_does_not_evolve(server, ada, capsys):
    Workspace().create_assistant("Bob")
    run(capsys, "new", "squad", "Team", "--member", "ada", "--member", "bob")
    code, _, err = run(capsys, "evolve", "Team")
    assert code == 1 and "only assistants" in err


def test_okbot_chat_says_when_learnt_changes_land(server, capsys):
    Workspace().create_assistant("Ada", soul_text=SOUL)
    run(capsys, "config", "set", "evolution.everyTurns", "1")
    run(capsys, "config", "set", "evolution.waitTurns", "0")
    run(capsys, "config", "set", "evolution.offerTeachings", "false")  # upkeep's path, not the card's
    code, _, err = run(capsys, "chat", "Ada", "-m", "From now on, always answer in British English.")
    assert code == 0 and "learnt" not in err  # staged after the reply
    code, _, err = run(capsys, "chat", "Ada", "-m", "hello")
    assert code == 0
    assert "okbot: note: learnt #1 persona: added to Style: From now on, always answer in British English." in err
    code, out, _ = run(capsys, "chat", "Ada", "-m", "again", "--json")
    assert all(json.loads(line)["event"] != "evolved" for line in out.splitlines())
