"""Reasoning in a turn, end to end (real SDK -> local fake server -> real files): stored apart from the
answer, streamed to the UI through ``on_event``, never sent back, never digested, redacted like content."""

from __future__ import annotations

import json

from okbot.core.digest import item_digest
from okbot.core.memory.extract import build_messages
from okbot.core.messages import items_to_messages
from okbot.core.session import SessionStore
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Send
from okbot.llm import keys
from okbot.llm.events import ReasoningDelta
from tests.helpers.fake_openai import Reply, tool_call

THOUGHT = "PRIVATE-THOUGHT: the user wants a greeting"


def records(target):
    return list(SessionStore(target.session_path).iter_items())


def thoughts(events):
    return "".join(e.text for e in events if isinstance(e, ReasoningDelta))


def test_reasoning_content_is_stored_apart_and_never_sent_again(env, server):
    target, _, runner = env
    server.enqueue(Reply(text="Hello!", reasoning=THOUGHT, chunk_chars=5), Reply(text="Fine."))
    events, deltas = [], []
    result = runner.run(target, Send("hi"), callbacks=TurnCallbacks(on_delta=deltas.append, on_event=events.append))
    assert result.status == "complete" and result.reply_text == "Hello!"
    assert "".join(deltas) == "Hello!" and thoughts(events) == THOUGHT
    reply = records(target)[-1]
    assert reply["content"] == "Hello!" and reply["reasoning"] == THOUGHT
    assert isinstance(reply["reasoningSeconds"], float) and reply["reasoningSeconds"] >= 0
    runner.run(target, Send("how are you?"))
    later = server.chat_requests()[-1]["messages"]
    assert "Hello!" in json.dumps(later) and "PRIVATE-THOUGHT" not in json.dumps(later)


def test_inline_think_is_stored_apart_and_never_sent_again(env, server):
    target, _, runner = env
    server.enqueue(Reply(text=f"<think>{THOUGHT}</think>\n\nHi there.", chunk_chars=3), Reply(text="ok"))
    runner.run(target, Send("hi"))
    reply = records(target)[-1]
    assert (reply["content"], reply["reasoning"]) == ("Hi there.", THOUGHT)
    runner.run(target, Send("again"))
    assert "PRIVATE-THOUGHT" not in json.dumps(server.chat_requests()[-1]["messages"])
    assert "think>" not in json.dumps(server.chat_requests()[-1]["messages"])


def test_a_stream_cut_mid_thought_is_an_error_that_keeps_the_reasoning(env, server):
    target, _, runner = env
    server.enqueue(Reply(text=f"<think>{THOUGHT} and more", chunk_chars=4, cut_after_chunks=6))
    result = runner.run(target, Send("hi"))
    assert result.status == "error"
    reply = records(target)[-1]
    assert reply["status"] == "error" and reply["content"] == ""
    assert reply["reasoning"] and THOUGHT.startswith(reply["reasoning"])


def test_reasoning_is_not_in_digests_or_memory_input(env, server):
    target, _, runner = env
    server.enqueue(Reply(text="The answer.", reasoning=THOUGHT))
    runner.run(target, Send("hi"))
    reply = records(target)[-1]
    assert "PRIVATE-THOUGHT" not in item_digest(reply)
    extraction = json.dumps(build_messages(records(target), [], ""))
    assert "The answer." in extraction and "PRIVATE-THOUGHT" not in extraction


def test_a_key_echoed_in_reasoning_is_redacted_shown_and_stored(env, server):
    target, _, runner = env
    secret = "sk-thought-KEY-0123456789abcdef"
    keys.remember_secret(secret)
    try:
        server.enqueue(Reply(text="done", reasoning=f"The key is {secret}, careful.", chunk_chars=3))
        events = []
        runner.run(target, Send("hi"), callbacks=TurnCallbacks(on_event=events.append))
    finally:
        with keys._remembered_lock:  # the registry is process-wide: leave it as it was
            keys._remembered.discard(secret)
    assert secret not in thoughts(events) and "careful." in thoughts(events)
    assert secret not in target.session_path.read_text(encoding="utf-8")
    assert "careful." in records(target)[-1]["reasoning"]


def test_reasoning_before_tool_calls_is_kept(env, server):
    target, _, runner = env
    server.enqueue(
        Reply(reasoning="I should look it up.", tool_calls=[tool_call("search_history", {"query": "x"})]),
        Reply(text="Nothing found."),
    )
    runner.run(target, Send("find x"))
    kinds = [(it["type"], it.get("reasoning")) for it in records(target)]
    assert ("assistant", "I should look it up.") in kinds
    assert kinds[-1] == ("assistant", None)


def test_the_context_counts_and_sends_only_the_answer(env):
    target, sources, _ = env
    counter = sources.counter(sources.model_for(target))
    plain = {"id": 1, "type": "assistant", "content": "The answer.", "status": "complete"}
    thought = dict(plain, reasoning=THOUGHT * 50, reasoningSeconds=9.0)
    assert counter.count_item(thought) == counter.count_item(plain)
    assert (
        items_to_messages([thought]) == items_to_messages([plain]) == [{"role": "assistant", "content": "The answer."}]
    )
