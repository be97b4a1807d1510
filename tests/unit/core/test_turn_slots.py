"""Turns on a one-slot server (the fake answering as llama-cpp-python does): the app's own calls — the memory
wrap-up left over from the previous turn, compression run ahead — never cut the user's reply.

Real runner, real memory keeper, real ProviderPool and backend, real files."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from okbot.app.wiring import make_turn_runner
from okbot.core.compression.compressor import Compressor
from okbot.core.memory.keeper import MemoryKeeper
from okbot.core.sources import ContextSources
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Send
from okbot.core.workspace import Workspace
from okbot.llm.providers import ProviderPool
from tests.helpers.env import settings_for
from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call
from tests.helpers.patience import PATIENT_SECONDS
from tests.helpers.sessions import fill_until, over_the_prepare_mark

REPLY = "Your locker code is 4417, as you told me."
MEMORY = json.dumps({"memories": [{"text": "The user's locker code is 4417.", "from": [1], "scope": "user"}]})


@pytest.fixture
def one_slot() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(slots=1) as srv:
        yield srv


@pytest.fixture
def app(one_slot: FakeOpenAIServer) -> Iterator[tuple[Any, Any, Any, MemoryKeeper]]:
    settings_for(one_slot, {"evolution.enabled": False})
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=PATIENT_SECONDS)
    pool = ProviderPool(sources.settings)
    keeper = MemoryKeeper(sources, pool)  # wrap-ups in its background thread, as the app runs them
    yield target, sources, make_turn_runner(sources, pool, keeper), keeper
    keeper.drain(PATIENT_SECONDS)
    pool.close()
    sources.close()


def kinds(server: FakeOpenAIServer) -> list[str]:
    """Each chat completion as ``chat`` (streamed: a turn's) or ``own`` (OkBot's own calls are not streamed)."""
    return ["chat" if body.get("stream") else "own" for body in server.chat_requests()]


def test_a_turn_sent_while_the_last_wrap_up_runs_loses_nothing_and_the_wrap_up_finishes_after(app, one_slot):
    target, sources, runner, keeper = app
    one_slot.enqueue(
        Reply(text="Noted."),  # turn 1
        Reply(text="never comes", never_end=True),  # turn 1's wrap-up, being answered when turn 2 is sent
        Reply(tool_calls=[tool_call("search_history", {"query": "locker"})], chunk_chars=4),  # turn 2, round 1
        Reply(tool_calls=[tool_call("search_history", {"query": "code"})], chunk_chars=4),  # round 2
        Reply(text=REPLY, chunk_chars=3),  # round 3: the answer
        Reply(text=MEMORY),  # the wrap-up, sent again after turn 2
    )
    assert runner.run(target, Send("Please remember that my locker code is 4417.")).status == "complete"
    one_slot.wait_for_requests(2)  # the wrap-up's extraction is being answered
    ended: list[int] = []
    result = runner.run(target, Send("What is my locker code? Look it up first."))
    ended.append(len(one_slot.requests))
    assert result.status == "complete" and result.reply_text == REPLY and result.rounds == 3
    assert keeper.drain(PATIENT_SECONDS)
    assert one_slot.interruptions == []  # 0 chat replies cut
    # nothing of OkBot's own reached the server from turn 2's first request to its end: it went after
    assert kinds(one_slot)[: ended[0]] == ["chat", "own", "chat", "chat", "chat"]
    assert kinds(one_slot)[ended[0] :] == ["own"]
    memories = [e.text for e in sources.memory.global_store().entries()]
    assert memories == ["The user's locker code is 4417."]  # the wrap-up completed afterwards


def test_compression_ahead_queued_during_a_turn_waits_for_the_turn(app, one_slot):
    target, sources, runner, _keeper = app
    settings = sources.settings
    settings.set("model.contextWindow", 8000)
    fill_until(sources, target, over_the_prepare_mark)
    slow = Reply(text=REPLY * 4, chunk_chars=2, chunk_delay=0.01)  # long enough for the call to meet it
    one_slot.set_default(lambda body: slow if body.get("stream") else Reply(text="a summary"))
    compressor = Compressor(sources, ProviderPool(settings))
    ahead = threading.Thread(target=lambda: compressor.compress_ahead(target))

    def on_delta(_text: str) -> None:
        if not ahead.is_alive() and ahead.ident is None:  # the reply streams: compression ahead is asked for
            ahead.start()

    result = runner.run(target, Send("One more step, please."), callbacks=TurnCallbacks(on_delta=on_delta))
    at_end = len(one_slot.requests)
    assert result.status == "complete" and result.reply_text == REPLY * 4 and one_slot.interruptions == []
    assert kinds(one_slot)[:at_end] == ["chat"]
    one_slot.wait_for_requests(at_end + 1)  # the summarizer's call, once the turn was over
    assert kinds(one_slot)[at_end] == "own"
    ahead.join(PATIENT_SECONDS)
