"""The evolution files under bad input: torn log lines, a broken staging file, a SOUL.md upkeep must not touch,
answers that are garbage, secrets in what the user taught. Nothing is lost and nothing crashes."""

from __future__ import annotations

import pytest

from okbot.core.evolution.store import LOG_FILE, PENDING_FILE
from okbot.core.evolution.upkeep import Upkeep
from okbot.core.items import new_item, user_message
from okbot.core.sources import ContextSources
from okbot.core.turn.request import Send
from okbot.core.workspace import Workspace
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_evolution import is_persona_request, is_skill_request, teacher
from tests.helpers.fake_openai import FakeOpenAIServer, Reply

SOUL = "# Ada\n\nBe kind.\n"
PROCEDURE = "When I say ship it: 1) run make test, 2) tag the release, 3) push the tag."
KEY = "sk-proj-" + "Ab3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY"


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        srv.set_default(teacher)
        settings_for(srv)
        yield srv


@pytest.fixture
def env(server):
    ws = Workspace()
    target = ws.create_assistant("Ada", soul_text=SOUL)
    sources = ContextSources(ws)
    return target, sources, Upkeep(sources, provider_for(server, max_retries=0))


def say(sources, target, *texts):
    session = sources.session(target)
    for text in texts:
        session.append(user_message(text))
        session.append(new_item("assistant", author=target.id, source="app", content="Noted."))


def test_torn_and_garbage_log_lines_are_skipped_and_ids_go_on(env):
    target, sources, upkeep = env
    say(sources, target, "From now on, always answer in British English.")
    upkeep.run(target, force=True)
    with open(target.dir / LOG_FILE, "ab") as fh:
        fh.write(b'not json\n{"type": "applied", "id": "seven"}\n{"type": "applied", "id": 9, "chan')  # torn
    assert [e.id for e in sources.evolution.entries(target)] == [1]
    say(sources, target, "Never use emoji.")
    report = upkeep.run(target, force=True)
    assert [e.id for e in report.applied] == [2]
    assert [e.id for e in sources.evolution.entries(target)] == [1, 2]
    sources.evolution.undo(target, 2)
    assert "emoji" not in target.soul_path.read_text(encoding="utf-8")


def test_a_broken_staging_file_is_dropped_with_a_warning_not_a_crash(env, caplog):
    target, sources, upkeep = env
    (target.dir / PENDING_FILE).write_text("{ torn", encoding="utf-8")
    assert sources.evolution.pending(target).empty
    assert "unreadable" in caplog.text
    say(sources, target, "From now on, always answer in British English.")
    assert upkeep.run(target, force=True).applied  # staged over it, then landed


@pytest.mark.parametrize("soul", [b"# Ada\n\xff\xfe broken\n", b"# Ada\x00\n", None])
def test_a_soul_md_upkeep_cannot_edit_safely_is_left_alone(env, server, soul):
    target, sources, upkeep = env
    if soul is None:
        target.soul_path.unlink()
    else:
        target.soul_path.write_bytes(soul)
    say(sources, target, "From now on, always answer in British English.")
    report = upkeep.run(target, force=True)
    assert any("SOUL.md is missing, unreadable or not plain UTF-8" in p for p in report.problems)
    assert not any(is_persona_request(b) for b in server.chat_requests())
    assert any(is_skill_request(b) for b in server.chat_requests())  # the skills still get their turn
    assert (target.soul_path.read_bytes() if soul is not None else None) == soul


@pytest.mark.parametrize("garbage", ["", "I like this persona!", '{"edits": "all of them"}', "{" * 5000, "ADD"])
def test_a_garbage_answer_changes_nothing(env, server, garbage):
    target, sources, upkeep = env
    server.set_default(lambda body: Reply(text=garbage))
    say(sources, target, "From now on, always answer in British English.")
    report = upkeep.run(target, force=True)
    assert report.applied == []
    assert target.soul_path.read_text(encoding="utf-8") == SOUL
    assert list(target.skills_dir.iterdir()) == []


def test_a_secret_the_user_wrote_reaches_no_file(env, server):
    target, sources, upkeep = env
    say(sources, target, f"From now on, always deploy with the key {KEY} please.")
    report = upkeep.run(target, force=True)
    assert [r.check for r in report.refused] == ["secret"]
    for path in target.dir.rglob("*"):
        if path.is_file() and path.name != "session.jsonl":
            assert KEY not in path.read_text(encoding="utf-8", errors="replace"), path


def test_an_outside_edit_during_upkeep_wins(env, server):
    target, sources, upkeep = env

    def edit_then_answer(body):
        if is_persona_request(body):
            target.soul_path.write_text(SOUL + "Sign off with Cheers.\n", encoding="utf-8")
        return teacher(body)

    server.set_default(edit_then_answer)
    say(sources, target, "From now on, always answer in British English.")
    report = upkeep.run(target, force=True)
    assert [r.check for r in report.refused] == ["outside-edit"]
    assert target.soul_path.read_text(encoding="utf-8") == SOUL + "Sign off with Cheers.\n"


def test_a_skill_that_cannot_be_written_stays_staged_and_the_turn_goes_on(env, server):
    from okbot.app.wiring import make_turn_runner

    target, sources, upkeep = env
    target.skills_dir.rmdir()
    target.skills_dir.write_text("not a folder", encoding="utf-8")
    say(sources, target, "From now on, always answer in British English.", PROCEDURE)
    upkeep.run(target, force=False, boundary=True)
    staged = sources.evolution.pending(target)
    assert len(staged.persona) == 1 and len(staged.skills) == 1
    sources.settings.set("evolution.waitTurns", 0)
    result = make_turn_runner(sources, provider_for(server, max_retries=0)).run(target, Send("hello"))
    assert result.status == "complete"
    assert "British English" in target.soul_path.read_text(encoding="utf-8")  # the persona landed
    left = sources.evolution.pending(target)
    assert left.persona == [] and [s.name for s, _ in left.skills] == ["ship-it"]  # the skill waits, not lost
    assert [e.kind for e in sources.evolution.entries(target)] == ["persona"]


def test_files_a_newer_okbot_wrote_are_left_as_they_are(env, server):
    from okbot.core.evolution.store import STATE_FILE

    target, sources, upkeep = env
    newer_pending = b'{"version": 9, "persona": [{"something": "new"}]}'
    (target.dir / PENDING_FILE).write_bytes(newer_pending)
    say(sources, target, "From now on, always answer in British English.")
    report = upkeep.run(target, force=True)
    assert report.applied == []  # nothing could be staged over the newer staging file
    assert (target.dir / PENDING_FILE).read_bytes() == newer_pending
    assert target.soul_path.read_text(encoding="utf-8") == SOUL

    (target.dir / PENDING_FILE).unlink()
    newer_state = b'{"version": 9, "throughId": {"persona": 1}}'
    (target.dir / STATE_FILE).write_bytes(newer_state)
    report = upkeep.run(target, force=True)
    assert report.ran == [] and "newer version of OkBot" in report.problems[0]
    assert (target.dir / STATE_FILE).read_bytes() == newer_state


def test_log_lines_of_a_newer_format_are_skipped_and_ids_go_on(env):
    target, sources, upkeep = env
    say(sources, target, "From now on, always answer in British English.")
    with open(target.dir / LOG_FILE, "w", encoding="utf-8") as fh:
        fh.write('{"v": 2, "type": "applied", "id": 5, "kind": "persona", "change": {"op": "add"}}\n')
    report = upkeep.run(target, force=True)
    assert [e.id for e in report.applied] == [6]  # ids never repeat, whatever format wrote them
    assert [e.id for e in sources.evolution.entries(target)] == [6]
