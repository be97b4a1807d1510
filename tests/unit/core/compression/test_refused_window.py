"""A server that refuses a request as too long for its context window, in its own words (the fake server's
window rules): the window is learnt, the request fitted and sent once more; a second refusal ends the turn
with one plain message. The real runner, the real read_file tool, real files."""

from __future__ import annotations

import pytest

from okbot.app.wiring import make_turn_runner
from okbot.core.local_tools.guard import workspace_dir
from okbot.core.sources import ContextSources
from okbot.core.turn.request import Send
from okbot.core.workspace import Workspace
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_openai import FakeOpenAIServer, ModelRules, Reply
from tests.helpers.fake_reader import Reader, part_text
from tests.helpers.fake_summarizer import faithful
from tests.helpers.sessions import fill_until

MODEL = "gpt-4o-mini"


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


def make_env(server: FakeOpenAIServer, window: int, style: str, believed: int):
    """The default assistant believing its window is ``believed`` while the server enforces ``window``."""
    server.rules[MODEL] = ModelRules(context_window=window, window_style=style)
    settings_for(server, {"model.contextWindow": believed, "tools.maxRounds": 12})
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    return target, sources, make_turn_runner(sources, provider_for(server, max_retries=0))


def refused(server: FakeOpenAIServer) -> list:
    return server.over_window()


@pytest.mark.parametrize("style", ["llama.cpp", "openai", "vllm", "llama-cpp-python"])
def test_a_round_refused_mid_turn_teaches_the_window_and_is_sent_once_more(server, style):
    """OkBot believes 32,000; the server holds 8,192. Reading ten 9 KB files, one request is refused, the
    window is learnt from the server's words, and every later request fits it."""
    target, sources, runner = make_env(server, 8192, style, 32000)
    for n in range(10):
        (workspace_dir(target) / f"part{n}.txt").write_text(part_text(n), encoding="utf-8")
    reader = Reader(10)
    server.set_default(reader)
    result = runner.run(target, Send("read part0.txt to part9.txt one by one and list every FACT-number"))
    assert result.status == "complete", result.error
    assert len(refused(server)) == 1  # the first refusal taught the window: nothing after it went over
    assert sources.context_window(target) == 8192
    turn = sources.as_sent(target).turn(result.user_id)
    assert [r.attempt for r in turn] == [1] * len(turn)  # the resent request stays in its attempt
    (failed,) = [r for r in turn if r.status == "error"]
    retry = next(r for r in turn if r.retry_of == failed.id)
    assert retry.round_no == failed.round_no and retry.status == "complete"
    notes = [it["content"] for it in result.items if it["type"] == "notice"]
    assert any("context window of 8,192 tokens" in n for n in notes)
    assert not [it for it in result.items if it["type"] == "assistant" and it.get("status") == "error"]


def test_the_first_request_refused_is_fitted_and_sent_once_more(server):
    """Round 1 too: a long conversation OkBot thinks fits 128,000 is refused by a 4,096 server; the
    conversation is compressed to the learnt window and the turn answers."""
    target, sources, runner = make_env(server, 4096, "llama.cpp", 128_000)
    fill_until(sources, target, lambda p: p.calibrated_tokens >= 6000)
    server.set_default(Reader(0))
    result = runner.run(target, Send("what did we settle on?"))
    assert result.status == "complete", result.error
    assert len(refused(server)) == 1 and sources.context_window(target) == 4096
    chats = [r for r in server.requests if r.prompt_tokens is not None and (r.body.get("tools"))]
    assert chats[-1].prompt_tokens < 4096


def test_a_second_refusal_ends_the_turn_with_one_plain_message(server):
    """A server whose words name no window (a plain 413) and that refuses again after the compaction: the
    turn ends with its plain message, two requests sent, nothing lost."""
    target, sources, runner = make_env(server, 100_000, "openai", 128_000)

    def refuse_the_chat(body: dict) -> Reply:  # every request of the turn; OkBot's own calls answered
        return Reply(status=413, error_message="Request Entity Too Large") if body.get("tools") else faithful(body)

    server.set_default(refuse_the_chat)
    fill_until(sources, target, lambda p: p.calibrated_tokens >= 10_000)
    before = len(list(sources.session(target).iter_items()))
    result = runner.run(target, Send("and now?"))
    assert result.status == "error" and result.error is not None
    assert len([b for b in server.chat_requests() if b.get("tools")]) == 2  # the request and its one retry
    reply = [it for it in result.items if it["type"] == "assistant"][-1]
    assert reply["status"] == "error" and reply["error"] == str(result.error)
    assert "Compress the conversation" in reply["error"] and "Entity" not in reply["error"]  # plain, not the body
    assert len(list(sources.session(target).iter_items())) > before  # the message and the error kept
