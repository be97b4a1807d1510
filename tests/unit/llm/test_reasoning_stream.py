"""Reasoning through the real SDK and the local fake server: reasoning_content / reasoning deltas and
inline <think> blocks become ReasoningDelta events, never answer text."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from okbot.llm.events import ErrorEvent, ReasoningDelta, Retrying, TextDelta
from okbot.llm.openai_backend import OpenAIProvider
from okbot.llm.provider import ChatRequest
from tests.helpers.fake_openai import FakeOpenAIServer, Reply

MODEL = "gpt-4o-mini"


@pytest.fixture
def provider(server: FakeOpenAIServer) -> Iterator[OpenAIProvider]:
    p = OpenAIProvider(server.base_url, "sk-test", sleep=lambda _s: None)
    yield p
    p.close()


def req() -> ChatRequest:
    return ChatRequest(MODEL, [{"role": "user", "content": "hi"}])


def parts(events: list) -> tuple[str, str]:
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    return reasoning, "".join(e.text for e in events if isinstance(e, TextDelta))


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_deltas_come_before_and_apart_from_the_answer(
    server: FakeOpenAIServer, provider: OpenAIProvider, field: str
) -> None:
    server.enqueue(Reply(text="Paris.", reasoning="The capital of France is Paris.", reasoning_field=field))
    events = list(provider.stream(req()))
    assert parts(events) == ("The capital of France is Paris.", "Paris.")
    kinds = [type(e) for e in events if isinstance(e, (ReasoningDelta, TextDelta))]
    assert kinds.index(TextDelta) > kinds.index(ReasoningDelta)


@pytest.mark.parametrize("chunk_chars", [1, 3, 8])
def test_inline_think_split_across_chunks(server: FakeOpenAIServer, provider: OpenAIProvider, chunk_chars: int) -> None:
    server.enqueue(Reply(text="  <think>count: 1, 2</think>\n\nTwo.", chunk_chars=chunk_chars))
    events = list(provider.stream(req()))
    assert parts(events) == ("count: 1, 2", "Two.")
    assert all("<" not in e.text for e in events if isinstance(e, TextDelta))


def test_cut_stream_inside_think_keeps_the_reasoning_and_invents_no_answer(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.enqueue(Reply(text="<think>a long thought that never ends", chunk_chars=4, cut_after_chunks=5))
    events = list(provider.stream(req()))
    assert isinstance(events[-1], ErrorEvent)
    reasoning, answer = parts(events)
    assert reasoning == "a long thought"[: len(reasoning)] and reasoning
    assert answer == ""


def test_complete_returns_only_the_answer(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    server.enqueue(
        Reply(text="<think>secret plan</think>\nSummary.", reasoning="more thinking"),
        Reply(text="Plain.", reasoning="thinking"),
    )
    assert provider.complete(req()) == "Summary."
    assert provider.complete(req()) == "Plain."


def test_cut_inside_the_opening_tag_shows_nothing_and_is_retried(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.enqueue(Reply(text="<think>never", chunk_chars=2, cut_after_chunks=2), Reply(text="Fine."))
    events = list(provider.stream(req()))
    assert any(isinstance(e, Retrying) for e in events)  # nothing was shown, so the request is sent again
    assert parts(events) == ("", "Fine.")
