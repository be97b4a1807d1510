"""A tool call that waits for approval when OkBot quits waits again after a restart, and the turn goes on once it
is answered: real runner, real files, the fake OpenAI server. (The restart of a real process:
tests/ui/test_waiting_approvals_ui.py.)"""

from __future__ import annotations

import json

import pytest

from okbot.app.wiring import make_turn_runner
from okbot.core.session import SessionStore
from okbot.core.sources import ContextSources
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.pending import FILE_NAME, PendingApprovals
from okbot.core.turn.request import Resume, Send
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Workspace
from okbot.llm.provider import CancelToken
from okbot.storage.errors import OkBotError
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call
from tests.helpers.fake_squad import SquadScript, ask


def records(target):
    return list(SessionStore(target.session_path).iter_items())


def quit_while_asked(cancel: CancelToken, asked: list) -> TurnCallbacks:
    """The card is on show when OkBot quits: the answer never comes, the turn is abandoned."""

    def ask(name, args):
        asked.append((name, args))
        cancel.abandon()
        return False

    return TurnCallbacks(ask_approval=ask)


def restarted(server):
    """A new runner over the same data dir (what the next start builds)."""
    workspace = Workspace()
    target = workspace.ensure_default()
    sources = ContextSources(workspace)
    return target, sources, TurnRunner(sources, provider_for(server, max_retries=0))


@pytest.fixture
def waiting(env, server):
    """A turn whose search_history call waited for approval when OkBot quit."""
    target, sources, runner = env
    sources.settings.set("tools.search_history.approval", "ask")
    server.enqueue(Reply(text="Let me look.", tool_calls=[tool_call("search_history", {"query": "locker"}, "c1")]))
    cancel, asked = CancelToken(), []
    result = runner.run(
        target, Send("what was my locker code?"), callbacks=quit_while_asked(cancel, asked), cancel=cancel
    )
    assert result.status == "abandoned" and asked == [("search_history", {"query": "locker"})]
    return target


def test_a_call_waiting_when_okbot_quits_is_kept_not_refused(waiting) -> None:
    kinds = [(it["type"], it.get("call_id")) for it in records(waiting)]
    assert kinds == [("user", None), ("assistant", None), ("tool_call", "c1")]  # no result, no "did not approve"
    (call,) = PendingApprovals(waiting.dir).calls()
    assert (call.call_id, call.tool, call.args(), call.answer) == ("c1", "search_history", {"query": "locker"}, None)
    assert call.user_id == records(waiting)[0]["id"]


def test_after_a_restart_the_call_waits_again_and_the_turn_goes_on_once_approved(waiting, server) -> None:
    target, _sources, runner = restarted(server)
    assert runner.close_dangling_calls(target, keep_waiting=True) == []  # the chat opening leaves it open
    assert [c.call_id for c in runner.waiting_calls(target)] == ["c1"]
    with pytest.raises(OkBotError, match="still waits"):
        runner.run(target, Resume())
    assert runner.answer_waiting(target, "c1", True)
    server.enqueue(Reply(text="Your locker code is on record."))
    before = len(server.chat_requests())
    result = runner.run(target, Resume())
    assert result.status == "complete" and result.reply_text == "Your locker code is on record."
    kinds = [(it["type"], it.get("call_id"), it.get("ok")) for it in records(target)]
    assert kinds[2:] == [("tool_call", "c1", None), ("tool_result", "c1", True), ("assistant", None, None)]
    sent = server.chat_requests()[before]["messages"]
    assert sent[-1]["role"] == "tool" and sent[-1]["tool_call_id"] == "c1"
    assert runner.waiting_calls(target) == []
    assert not (target.dir / FILE_NAME).exists()


def test_a_call_denied_after_the_restart_is_refused_and_the_model_answers_anyway(waiting, server) -> None:
    target, _sources, runner = restarted(server)
    runner.answer_waiting(target, "c1", False)
    server.enqueue(Reply(text="Without the search I cannot tell."))
    assert runner.run(target, Resume()).status == "complete"
    result = next(it for it in records(target) if it["type"] == "tool_result")
    assert not result["ok"] and "did not approve" in result["content"]


def test_a_new_message_instead_closes_the_waiting_call_with_its_note(waiting, server) -> None:
    target, _sources, runner = restarted(server)
    server.enqueue(Reply(text="Hello again."))
    runner.run(target, Send("never mind"))
    closed = next(it for it in records(target) if it["type"] == "tool_result")
    assert closed["call_id"] == "c1" and "OkBot closed before this call was approved" in closed["content"]
    assert runner.waiting_calls(target) == []
    with pytest.raises(OkBotError, match="nothing in this chat waits"):
        runner.run(target, Resume())


def test_a_damaged_waiting_file_is_set_aside_and_the_call_closed_as_before(waiting, server) -> None:
    (waiting.dir / FILE_NAME).write_text('{"v": 1, "calls": [{"call_id": 7}]}', encoding="utf-8")
    target, _sources, runner = restarted(server)
    added = runner.close_dangling_calls(target, keep_waiting=True)
    assert [it["type"] for it in added] == ["tool_result", "notice"]
    assert (target.dir / (FILE_NAME + ".bad")).read_text(encoding="utf-8").startswith('{"v": 1')
    assert not (target.dir / FILE_NAME).exists()


def test_a_newer_okbots_waiting_file_is_left_alone(waiting, server) -> None:
    newer = json.dumps({"v": 9, "calls": [], "more": "of a later format"})
    (waiting.dir / FILE_NAME).write_text(newer, encoding="utf-8")
    target, _sources, runner = restarted(server)
    runner.close_dangling_calls(target, keep_waiting=True)  # nothing waits that this build can read: closed
    assert (target.dir / FILE_NAME).read_text(encoding="utf-8") == newer


def test_a_stale_waiting_file_whose_call_has_a_result_waits_for_nothing(waiting, server) -> None:
    target, sources, runner = restarted(server)
    kept = PendingApprovals(target.dir).calls()
    server.enqueue(Reply(text="ok"))
    runner.run(target, Send("go on"))  # closes c1 and forgets it
    PendingApprovals(target.dir).add(kept[0])  # a copy restored from an old backup, say
    assert runner.close_dangling_calls(target, keep_waiting=True) == []
    assert runner.waiting_calls(target) == []


@pytest.fixture
def squad_env():
    """A squad (Mia and Rex) whose replies a script gives, the captain's too."""
    script = SquadScript()
    with FakeOpenAIServer() as srv:
        srv.set_default(script)
        settings_for(srv, {"tools.search_history.approval": "ask"})
        ws = Workspace()
        ws.create_assistant("Mia", role="a release manager")
        ws.create_assistant("Rex", role="a reviewer")
        squad = ws.create_squad("Launch", [("Mia", "release"), ("Rex", "review")])
        sources = ContextSources(ws)
        yield squad, sources, make_turn_runner(sources, provider_for(srv, max_retries=0)), script, srv


def test_a_members_call_waiting_across_a_restart_shows_again_and_the_member_goes_on_from_it(squad_env) -> None:
    squad, _sources, runner, script, server = squad_env
    script.captain += [Reply(tool_calls=[ask("mia", "Find the release date")])]
    mia = iter([Reply(tool_calls=[tool_call("search_history", {"query": "release date"}, "m1")])])
    script.members["Mia"] = lambda _body: next(mia)
    cancel, asked = CancelToken(), []
    result = runner.run(squad, Send("when do we ship?"), callbacks=quit_while_asked(cancel, asked), cancel=cancel)
    assert result.status == "abandoned"
    (call,) = PendingApprovals(squad.dir).calls()
    captain_call = next(it for it in records(squad) if it["type"] == "tool_call")
    assert (call.call_id, call.member, call.parent) == ("m1", "mia", captain_call["call_id"])

    ws = Workspace()  # the next start
    sources = ContextSources(ws)
    runner = make_turn_runner(sources, provider_for(server, max_retries=0))
    squad = ws.resolve(squad.id)
    assert runner.close_dangling_calls(squad, keep_waiting=True) == []
    assert runner.answer_waiting(squad, "m1", True)
    script.members["Mia"] = lambda _body: Reply(text="We ship on the 9th.")
    script.captain += [Reply(text="The squad says: the 9th.")]
    before = len(script.sent["Mia"])
    result = runner.run(squad, Resume())
    assert result.status == "complete" and result.reply_text == "The squad says: the 9th."
    resumed = script.sent["Mia"][before]["messages"]  # Mia is asked again, with her call and its result
    assert resumed[-2]["tool_calls"][0]["id"] == "m1" and resumed[-1]["tool_call_id"] == "m1"
    answer = next(it for it in records(squad) if it["type"] == "tool_result")
    assert answer["call_id"] == captain_call["call_id"] and "We ship on the 9th." in answer["content"]
