"""ScriptedProvider specifics (the shared behaviour is in test_contract.py)."""

from __future__ import annotations

import threading

import pytest

from okbot.llm.errors import ProviderError
from okbot.llm.events import Degraded, Done, ErrorEvent, Retrying, TextDelta, UsageEvent
from okbot.llm.provider import CancelToken, ChatRequest
from tests.helpers.scripted import ScriptedProvider, collect, echo, pause, usage


def req(text: str = "hello there") -> ChatRequest:
    return ChatRequest("m", [{"role": "user", "content": text}])


def test_records_every_request_in_order() -> None:
    provider = ScriptedProvider()
    provider.enqueue(["a"], ["b"])
    first, second = req("one"), req("two")
    assert collect(provider.stream(first))["text"] == "a"
    assert provider.complete(second) == "b"
    assert provider.requests == [first, second] and provider.pending == 0


def test_unscripted_request_is_a_loud_bug() -> None:
    provider = ScriptedProvider()
    with pytest.raises(RuntimeError, match="no reply enqueued"):
        provider.stream(req())


def test_default_reply_factory() -> None:
    provider = ScriptedProvider(default=echo)
    assert provider.complete(req("what time is it")) == "ok: what time is it"


def test_enqueue_rejects_a_bare_string() -> None:
    with pytest.raises(TypeError, match="list of specs"):
        ScriptedProvider().enqueue("hello")  # type: ignore[arg-type]


def test_scripted_error_ends_the_stream_after_partial_text() -> None:
    provider = ScriptedProvider()
    boom = ProviderError("The connection dropped mid-reply.", kind="cut", retryable=True)
    provider.enqueue(["part", boom, "never"])
    events = list(provider.stream(req()))
    assert events == [TextDelta("part"), ErrorEvent(boom)]
    provider.enqueue([boom])
    with pytest.raises(ProviderError) as info:
        provider.complete(req())
    assert info.value is boom


def test_events_pass_through_and_usage_is_computed_when_missing() -> None:
    provider = ScriptedProvider()
    provider.enqueue([Retrying(1, 0.5, "again"), Degraded("usage", "estimated"), "12345678"])
    out = collect(provider.stream(req()))
    assert out["events"][:2] == [Retrying(1, 0.5, "again"), Degraded("usage", "estimated")]
    assert out["usage"].completion_tokens == 2 and not out["usage"].estimated
    provider.enqueue(["x", UsageEvent(5, 1, None, True), Done("length")])
    out = collect(provider.stream(req()))
    assert out["usage"] == UsageEvent(5, 1, None, True) and out["end"] == Done("length")
    assert [type(e) for e in out["events"]].count(UsageEvent) == 1


def test_cancel_interrupts_a_pause() -> None:
    provider = ScriptedProvider()
    provider.enqueue(["first", pause(30), "second", usage(1, 1)])
    token = CancelToken()
    events = []
    for event in provider.stream(req(), token):
        events.append(event)
        if event == TextDelta("first"):
            threading.Timer(0.05, token.cancel).start()
    assert events == [TextDelta("first"), Done("cancelled")]


def test_cancelled_before_start() -> None:
    provider = ScriptedProvider()
    provider.enqueue(["x"])
    token = CancelToken()
    token.cancel()
    assert list(provider.stream(req(), token)) == [Done("cancelled")]
    provider.enqueue(["x"])
    with pytest.raises(ProviderError) as info:
        provider.complete(req(), token)
    assert info.value.kind == "cancelled"


def test_list_models_sorted() -> None:
    assert ScriptedProvider(models=["b", "a"]).list_models() == ["a", "b"]


def test_refused_parameters_are_scripted() -> None:
    provider = ScriptedProvider(refused={"response_format"})
    assert provider.refuses("any-model", "response_format") and not provider.refuses("any-model", "temperature")
