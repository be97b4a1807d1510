"""Edit and resend, regenerate and switch versions: real turns through the fake server, real files."""

from __future__ import annotations

import json

import pytest

from okbot.core.context import build_context
from okbot.core.search_history import search
from okbot.core.session import SessionStore
from okbot.core.session.branches import BRANCH_VERSION, is_marker
from okbot.core.summary import SessionSummary, SummaryStore
from okbot.core.tools import ToolContext
from okbot.core.turn.request import Edit, Regenerate, Send
from okbot.storage.errors import OkBotError
from tests.helpers.fake_openai import Reply


def chat(runner, target, server, *pairs):
    for question, answer in pairs:
        server.enqueue(Reply(text=answer))
        assert runner.run(target, Send(question)).status == "complete"


def sent_texts(server) -> list[str]:
    return [m["content"] for m in server.chat_requests()[-1]["messages"][1:]]


def model_texts(target, sources) -> list[str]:
    return [m["content"] for m in build_context(target, sources=sources).to_messages()[1:]]


def test_edit_and_resend_sends_only_the_new_branch_and_keeps_the_old_on_disk(env, server):
    target, sources, runner = env
    chat(runner, target, server, ("q1", "a1"), ("q2 with a typo", "a2"), ("q3", "a3"))
    q2 = next(it for it in SessionStore(target.session_path).iter_items() if it.get("content") == "q2 with a typo")
    server.enqueue(Reply(text="a2 again"))
    result = runner.run(target, Edit(q2["id"], "q2 fixed"))
    assert result.status == "complete" and result.reply_text == "a2 again"
    assert sent_texts(server) == ["q1", "a1", "q2 fixed"]
    assert model_texts(target, sources) == ["q1", "a1", "q2 fixed", "a2 again"]
    on_disk = [it.get("content") for it in SessionStore(target.session_path).iter_items()]
    assert "q2 with a typo" in on_disk and "q3" in on_disk and "a3" in on_disk  # nothing is rewritten
    new_q2 = next(it for it in SessionStore(target.session_path).iter_items() if it.get("content") == "q2 fixed")
    found = runner.chat_versions(target)[new_q2["id"]]
    assert found.ids == (q2["id"], new_q2["id"]) and found.label() == "2/2"


def test_regenerate_keeps_both_replies_as_versions_and_switching_changes_what_is_sent(env, server):
    target, sources, runner = env
    chat(runner, target, server, ("q1", "first answer"))
    first = SessionStore(target.session_path).tail(1)[0]
    server.enqueue(Reply(text="second answer"))
    assert runner.run(target, Regenerate(first["id"])).reply_text == "second answer"
    assert sent_texts(server) == ["q1"]  # the old reply is not in the request
    second = SessionStore(target.session_path).tail(1)[0]
    assert runner.chat_versions(target)[second["id"]].label() == "2/2"

    mark = runner.switch_version(target, second["id"], 0)
    assert is_marker(mark) and mark["v"] == BRANCH_VERSION
    assert model_texts(target, sources) == ["q1", "first answer"]
    assert runner.chat_versions(target)[first["id"]].label() == "1/2"
    assert runner.switch_version(target, first["id"], 0) is None  # already current: nothing appended

    chat(runner, target, server, ("q2", "a2"))  # the conversation goes on from the version chosen
    assert sent_texts(server) == ["q1", "first answer", "q2"]


def test_switching_back_to_an_edited_message_brings_its_whole_later_conversation(env, server):
    target, sources, runner = env
    chat(runner, target, server, ("q1", "a1"), ("q2", "a2"), ("q3", "a3"))
    q2 = [it for it in SessionStore(target.session_path).iter_items() if it.get("content") == "q2"][0]
    server.enqueue(Reply(text="b2"))
    runner.run(target, Edit(q2["id"], "other q2"))
    assert model_texts(target, sources) == ["q1", "a1", "other q2", "b2"]
    new_q2 = [it for it in SessionStore(target.session_path).iter_items() if it.get("content") == "other q2"][0]
    runner.switch_version(target, new_q2["id"], 0)
    assert model_texts(target, sources) == ["q1", "a1", "q2", "a2", "q3", "a3"]


def test_covered_messages_cannot_get_a_new_version_and_the_refusal_says_why(env, server):
    target, sources, runner = env
    chat(runner, target, server, ("q1", "a1"), ("q2", "a2"))
    q1 = SessionStore(target.session_path).tail(4)[0]
    a1 = SessionStore(target.session_path).tail(4)[1]
    SummaryStore(target.summary_path).save(SessionSummary(summary="## Goal\n- chat", covered_through_id=a1["id"]))
    before = SessionStore(target.session_path).last_id()
    for action in (
        lambda: runner.run(target, Edit(q1["id"], "changed")),
        lambda: runner.run(target, Regenerate(a1["id"])),
    ):
        with pytest.raises(OkBotError, match="folded into the summary"):
            action()
    assert SessionStore(target.session_path).last_id() == before  # a refusal writes nothing


def test_only_the_users_own_messages_can_be_edited(env, server):
    target, _, runner = env
    chat(runner, target, server, ("q1", "a1"))
    reply = SessionStore(target.session_path).tail(1)[0]
    with pytest.raises(OkBotError, match="Only your own messages"):
        runner.run(target, Edit(reply["id"], "rewrite the reply"))


def test_an_old_version_is_not_followed_and_cannot_be_edited_until_switched_to(env, server):
    target, _, runner = env
    chat(runner, target, server, ("q1", "a1"))
    q1 = SessionStore(target.session_path).tail(2)[0]
    server.enqueue(Reply(text="a1b"))
    runner.run(target, Edit(q1["id"], "q1b"))
    with pytest.raises(OkBotError, match="earlier version"):
        runner.run(target, Edit(q1["id"], "again"))


def test_an_older_okbot_opens_a_chat_with_versions_read_only(env, server, tmp_path):
    """Markers are item schema v2: a v1 reader cannot tell the branches apart, so it must not append."""
    target, _, runner = env
    chat(runner, target, server, ("q1", "a1"))
    server.enqueue(Reply(text="a1b"))
    runner.run(target, Regenerate(SessionStore(target.session_path).tail(1)[0]["id"]))
    lines = [json.loads(line) for line in target.session_path.read_text(encoding="utf-8").splitlines()]
    assert [it["v"] for it in lines if is_marker(it)] == [BRANCH_VERSION]
    assert all(it["v"] == 1 for it in lines if not is_marker(it))  # ordinary items stay readable by v1


def test_memory_and_the_summary_never_see_a_replaced_version(env, server):
    target, sources, runner = env
    chat(runner, target, server, ("my password hint is blue", "noted"), ("q2", "a2"))
    first = SessionStore(target.session_path).tail(4)[0]
    server.enqueue(Reply(text="ok"))
    runner.run(target, Edit(first["id"], "call me Sam"))
    store = SessionStore(target.session_path)
    on_branch = set(store.branch_ids())
    dead = {it["id"] for it in store.iter_items() if it.get("content") in ("my password hint is blue", "noted", "q2")}
    assert dead and not dead & on_branch
    assert [it["id"] for it in store.read_after(0)[0]] == list(store.branch_ids())


def test_search_history_still_finds_an_earlier_version_and_says_it_was_replaced(env, server):
    target, sources, runner = env
    chat(runner, target, server, ("the server is stg-4", "ok"))
    first = SessionStore(target.session_path).tail(2)[0]
    server.enqueue(Reply(text="ok again"))
    runner.run(target, Edit(first["id"], "the server is stg-5"))
    outcome = search({"query": "server"}, ToolContext(target=target, session=SessionStore(target.session_path)))
    lines = outcome.content.splitlines()
    assert any("stg-4" in line and "earlier version" in line for line in lines)
    assert any("stg-5" in line and "earlier version" not in line for line in lines)
