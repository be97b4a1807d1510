"""OpenAIProvider against the real local fake server: faults, fallbacks, cancel, secrecy."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from okbot.config.providers import DEFAULT_PROVIDER
from okbot.config.settings import Settings
from okbot.llm.errors import ProviderError
from okbot.llm.events import (
    Degraded,
    Done,
    ErrorEvent,
    Event,
    Retrying,
    TextDelta,
    ToolCallDone,
    UsageEvent,
)
from okbot.llm.openai_backend import OpenAIProvider
from okbot.llm.provider import CancelToken, ChatRequest
from okbot.llm.providers import build_backend
from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call
from tests.helpers.scripted import collect


def default_backend(settings: Settings, **kwargs) -> OpenAIProvider:
    """The default provider's backend, built the one way the provider pool builds every backend."""
    return build_backend(settings, settings.providers.get(DEFAULT_PROVIDER), **kwargs)


MODEL = "gpt-4o-mini"
CANARY = "sk-canary-7f3a9c1e5b2d4680aa11bb22cc33dd44"
TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]


def req(text: str = "hi", *, tools: list[dict] | None = None, model: str = MODEL) -> ChatRequest:
    return ChatRequest(model, [{"role": "user", "content": text}], tools=tools)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


class Harness:
    """Builds providers for one test; records the retry waits instead of sleeping."""

    def __init__(self, server: FakeOpenAIServer) -> None:
        self.server = server
        self.sleeps: list[float] = []
        self.providers: list[OpenAIProvider] = []

    def provider(self, **kwargs: object) -> OpenAIProvider:
        options: dict = {"sleep": self.sleeps.append}
        options.update(kwargs)
        base_url = str(options.pop("base_url", self.server.base_url))
        key = options.pop("api_key", "sk-test")
        provider = OpenAIProvider(base_url, key, **options)  # type: ignore[arg-type]
        self.providers.append(provider)
        return provider


@pytest.fixture
def harness(server: FakeOpenAIServer) -> Iterator[Harness]:
    h = Harness(server)
    yield h
    for provider in h.providers:
        provider.close()


def errors(events: list[Event]) -> list[ProviderError]:
    return [e.error for e in events if isinstance(e, ErrorEvent)]


# ----------------------------------------------------------------- request shape


def test_request_asks_for_streamed_usage_and_sends_tools(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="x"))
    request = ChatRequest(MODEL, [{"role": "user", "content": "q"}], tools=TOOLS, temperature=0.2, max_tokens=50)
    list(harness.provider().stream(request))
    body = harness.server.chat_requests()[-1]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["tools"] == TOOLS and body["temperature"] == 0.2 and body["max_tokens"] == 50
    assert body["messages"] == request.messages


# ----------------------------------------------------------------- retries


def test_429_retry_after_is_honoured_then_succeeds(harness: Harness) -> None:
    harness.server.enqueue(Reply(status=429, retry_after=0.2), Reply(status=429, retry_after=90), Reply(text="done"))
    out = collect(harness.provider().stream(req()))
    retries = [e for e in out["events"] if isinstance(e, Retrying)]
    assert [(r.attempt, r.delay) for r in retries] == [(1, 0.2), (2, 60.0)]  # capped at 60 s
    assert harness.sleeps == [0.2, 60.0]
    assert "429" in retries[0].message
    # one sentence, one time: what failed, the wait, and which attempt comes next of how many
    assert retries[1].message == "The server is rate limiting requests (429) — retrying in 60 s (attempt 3 of 4)."
    assert out["text"] == "done" and out["end"] == Done("stop")


def test_the_retrying_sentence_counts_down_without_contradicting_itself() -> None:
    event = Retrying(1, 3.0, "The server had an internal error (500).", 4)
    assert event.text(3.0) == "The server had an internal error (500) — retrying in 3 s (attempt 2 of 4)."
    assert event.text(1.4).endswith("retrying in 2 s (attempt 2 of 4).")
    assert event.text(0.3).endswith("retrying in a moment (attempt 2 of 4).")
    assert event.text(0).endswith("retrying now (attempt 2 of 4).")
    assert Retrying(1, 0.3, "Busy.").message == "Busy — retrying in a moment (attempt 2)."
    for left in (0.0, 0.3, 0.9, 1.0, 2.5, 59.9):
        assert event.text(left).count("retrying") == 1 and " 0 s" not in event.text(left)


def test_500_is_retried_with_backoff_then_succeeds(harness: Harness) -> None:
    harness.server.enqueue(Reply(status=500), Reply(status=503), Reply(text="fine"))
    out = collect(harness.provider().stream(req()))
    assert out["text"] == "fine"
    assert len(harness.sleeps) == 2
    assert 0.25 <= harness.sleeps[0] <= 0.5 and 0.5 <= harness.sleeps[1] <= 1.0  # base 0.5 s, doubling, jitter
    assert len(harness.server.chat_requests()) == 3


def test_retries_stop_after_max_retries(harness: Harness) -> None:
    harness.server.enqueue(*[Reply(status=502)] * 3)
    events = list(harness.provider(max_retries=2).stream(req()))
    assert [type(e) for e in events] == [Retrying, Retrying, ErrorEvent]
    assert errors(events)[0].kind == "server" and errors(events)[0].status == 502
    assert len(harness.server.chat_requests()) == 3


def test_401_is_not_retried_and_says_what_to_do(harness: Harness) -> None:
    with FakeOpenAIServer(require_key="sk-the-right-one") as server:
        provider = harness.provider(base_url=server.base_url, api_key="sk-wrong-key-123456")
        events = list(provider.stream(req()))
        assert len(server.requests) == 1
    [error] = errors(events)
    assert error.kind == "auth" and not error.retryable and error.status == 401
    assert error.message == "The API key was refused (401). Check the key in Settings → Models."
    assert harness.sleeps == []


def test_unknown_model_names_the_model(harness: Harness) -> None:
    [error] = errors(list(harness.provider().stream(req(model="gpt-nope"))))
    assert error.kind == "not_found" and '"gpt-nope"' in error.message and not error.retryable


def test_400_shows_the_servers_message(harness: Harness) -> None:
    harness.server.enqueue(Reply(status=400, error_message="messages[0].role must be one of system, user"))
    [error] = errors(list(harness.provider().stream(req())))
    assert error.kind == "bad_request"
    assert "messages[0].role must be one of system, user" in error.message


def test_connection_refused_is_retried_then_reported(harness: Harness) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = harness.provider(base_url=f"http://127.0.0.1:{port}/v1", max_retries=2)
    events = list(provider.stream(req()))
    assert [type(e) for e in events] == [Retrying, Retrying, ErrorEvent]
    [error] = errors(events)
    assert error.kind == "connection" and f"127.0.0.1:{port}" in error.message


def test_first_byte_beyond_timeout_is_retried_then_times_out(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="late", first_byte_delay=1.5), Reply(text="late", first_byte_delay=1.5))
    events = list(harness.provider(timeout=0.3, max_retries=1).stream(req()))
    assert [type(e) for e in events] == [Retrying, ErrorEvent]
    [error] = errors(events)
    assert error.kind == "timeout" and error.message == "The server did not answer in time."


# ----------------------------------------------------------------- broken replies


def test_cut_mid_stream_keeps_partial_text_and_is_not_retried(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="abcdefghijkl", chunk_chars=2, cut_after_chunks=3), Reply(text="NEVER"))
    events = list(harness.provider().stream(req()))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["ab", "cd", "ef"]
    assert isinstance(events[-1], ErrorEvent)
    assert events[-1].error.kind == "cut" and events[-1].error.message == "The connection dropped mid-reply."
    assert not any(isinstance(e, Retrying) for e in events)
    assert len(harness.server.chat_requests()) == 1


def test_a_runaway_reply_is_stopped_at_the_size_guard_keeping_what_came(harness: Harness) -> None:
    harness.server.enqueue(Reply(huge_bytes=5_000_000, chunk_chars=65536), Reply(text="NEVER"))
    events = list(harness.provider(max_reply_chars=300_000).stream(req()))
    received = sum(len(e.text) for e in events if isinstance(e, TextDelta))
    assert 300_000 < received <= 300_000 + 65536  # stopped within one piece of the guard
    assert isinstance(events[-1], ErrorEvent) and events[-1].error.kind == "too_big"
    assert events[-1].error.message == "The reply grew past 300,000 characters and was stopped (kept up to there)."
    assert len(harness.server.chat_requests()) == 1  # not retried


def test_cut_before_any_text_is_retried(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="abc", cut_after_chunks=0), Reply(text="second try"))
    out = collect(harness.provider().stream(req()))
    assert out["text"] == "second try" and len(harness.sleeps) == 1


@pytest.mark.parametrize(
    "fault",
    [
        {"malformed_chunk_at": 0},
        {"non_json_body": True},
    ],
)
def test_unreadable_reply_is_reported(harness: Harness, fault: dict) -> None:
    harness.server.enqueue(Reply(text="hello", **fault))
    events = list(harness.provider().stream(req()))
    [error] = errors(events)
    assert error.kind == "malformed" and error.message == "The server sent a reply OkBot could not read."
    assert isinstance(events[-1], ErrorEvent)


def test_malformed_chunk_after_text_keeps_the_text(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="abcdef", chunk_chars=2, malformed_chunk_at=2))
    events = list(harness.provider().stream(req()))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "abcd"
    assert errors(events)[0].kind == "malformed"


def test_event_stream_with_a_wrong_content_type_is_still_read(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="labelled text/html", wrong_content_type=True))
    out = collect(harness.provider().stream(req()))
    assert out["text"] == "labelled text/html" and out["end"] == Done("stop")


def test_never_ending_reply_is_stopped_by_the_duration_guard(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="and on", never_end=True))
    events = list(harness.provider(max_reply_seconds=0.5).stream(req()))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["and on"]
    [error] = errors(events)
    assert error.kind == "timeout" and "0.5 seconds" in error.message
    harness.server.wait_for_idle()  # the server saw the connection go


# ----------------------------------------------------------------- capability fallbacks


def test_stream_options_rejected_falls_back_once_and_is_remembered(harness: Harness) -> None:
    harness.server.enqueue(Reply(reject_stream_options=True), Reply(text="no usage here", send_usage=False))
    provider = harness.provider()
    out = collect(provider.stream(req()))
    assert out["text"] == "no usage here"
    assert (
        Degraded("stream_options", "this server does not report usage while streaming; token use is estimated")
        in out["events"]
    )
    assert out["usage"] == UsageEvent(0, 0, None, True)  # unreported: the turn counts it (core.turn.stream)
    bodies = harness.server.chat_requests()
    assert ["stream_options" in b for b in bodies] == [True, False]
    assert harness.sleeps == []
    list(provider.stream(req()))  # remembered: not offered again
    assert "stream_options" not in harness.server.chat_requests()[-1]


def test_tools_rejected_falls_back_without_tools(harness: Harness) -> None:
    harness.server.enqueue(Reply(reject_tools=True), Reply(text="plain answer"))
    provider = harness.provider()
    out = collect(provider.stream(req(tools=TOOLS)))
    assert out["text"] == "plain answer"
    assert any(isinstance(e, Degraded) and e.feature == "tools" for e in out["events"])
    assert ["tools" in b for b in harness.server.chat_requests()] == [True, False]
    again = collect(provider.stream(req(tools=TOOLS)))
    assert any(isinstance(e, Degraded) and e.feature == "tools" for e in again["events"])
    assert "tools" not in harness.server.chat_requests()[-1]


def test_tool_calls_written_as_text_become_tool_calls(harness: Harness) -> None:
    harness.server.enqueue(
        Reply(
            tool_calls=[tool_call("lookup", {"q": "a"}), tool_call("lookup", {"q": "b"})],
            tool_calls_as_text=True,
            chunk_chars=5,
        )
    )
    out = collect(harness.provider().stream(req(tools=TOOLS)))
    assert out["text"] == ""
    assert [(c.name, json.loads(c.arguments)) for c in out["tool_calls"]] == [
        ("lookup", {"q": "a"}),
        ("lookup", {"q": "b"}),
    ]
    assert all(c.call_id.startswith("call_") for c in out["tool_calls"])
    assert len({c.call_id for c in out["tool_calls"]}) == 2
    assert any(isinstance(e, Degraded) and e.feature == "tool_text" for e in out["events"])
    assert out["end"] == Done("tool_calls")


def test_json_text_that_is_not_a_tool_call_stays_text(harness: Harness) -> None:
    answer = '{"name": "Ada", "arguments": "none"}'  # "Ada" is not an offered tool
    harness.server.enqueue(Reply(text=answer, chunk_chars=4))
    out = collect(harness.provider().stream(req(tools=TOOLS)))
    assert out["text"] == answer and out["tool_calls"] == []


def test_missing_usage_is_said_to_be_missing_not_guessed(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="12345678", send_usage=False))
    out = collect(harness.provider().stream(req()))
    assert out["usage"] == UsageEvent(0, 0, None, True)
    assert any(isinstance(e, Degraded) and e.feature == "usage" for e in out["events"])


# ----------------------------------------------------------------- cancel


def test_cancel_mid_stream_from_another_thread(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="x" * 2000, chunk_chars=2, chunk_delay=0.02))  # ~20 s if not cancelled
    token = CancelToken()
    events: list[Event] = []
    started = None
    for event in harness.provider().stream(req(), token):
        events.append(event)
        if isinstance(event, TextDelta) and started is None:
            started = time.monotonic()
            threading.Timer(0.05, token.cancel).start()
    assert time.monotonic() - started < 2
    assert events[-1] == Done("cancelled") and not errors(events)
    harness.server.wait_for_idle()  # the server noticed the disconnect


def test_cancel_before_the_first_byte_returns_promptly(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="x" * 2000, chunk_chars=2, chunk_delay=0.02, first_byte_delay=2.5))
    token = CancelToken()
    threading.Timer(0.1, token.cancel).start()
    began = time.monotonic()
    events = list(harness.provider().stream(req(), token))
    assert time.monotonic() - began < 2  # before the server's first byte at 2.5 s
    assert events == [Done("cancelled")]
    harness.server.wait_for_idle()  # once awake, its writes failed: it saw the disconnect


def test_cancel_during_a_retry_wait_stops_at_once(harness: Harness) -> None:
    harness.server.enqueue(Reply(status=429, retry_after=30))
    token = CancelToken()
    provider = harness.provider(sleep=time.sleep)  # the real, cancel-aware wait
    events = []
    began = time.monotonic()
    for event in provider.stream(req(), token):
        events.append(event)
        if isinstance(event, Retrying):
            token.cancel()
    assert time.monotonic() - began < 2
    assert events[-1] == Done("cancelled")


# ----------------------------------------------------------------- secrecy


def test_the_key_never_appears_in_events_messages_or_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    texts: list[str] = []
    with FakeOpenAIServer(require_key=CANARY) as server:
        server.enqueue(
            Reply(status=429, error_message=f"slow down {CANARY}"),
            Reply(status=400, error_message=f"Incorrect API key provided: {CANARY}."),
            Reply(text="fine"),
        )
        with OpenAIProvider(server.base_url, CANARY, sleep=lambda _s: None) as provider:
            texts += [repr(e) for e in provider.stream(req())]
            texts += [repr(e) for e in provider.stream(req())]
            texts.append(repr(provider))
            assert provider.list_models()
    with FakeOpenAIServer(require_key="sk-other") as server, OpenAIProvider(server.base_url, CANARY) as provider:
        texts += [repr(e) for e in provider.stream(req())]
        with pytest.raises(ProviderError) as info:
            provider.complete(req())
        texts += [str(info.value), info.value.detail, repr(info.value)]
    assert server.requests and any("Incorrect API key provided: [redacted]" in t for t in texts)
    logged = [r.getMessage() for r in caplog.records] + [str(r.args) for r in caplog.records]
    assert logged and not [t for t in texts + logged if CANARY in t]
    assert not [t for t in logged if "authorization" in t.lower() and "bearer" in t.lower()]


# ----------------------------------------------------------------- other calls


def test_list_models_sorted(harness: Harness) -> None:
    with FakeOpenAIServer(models=("zeta", "alpha", "mid")) as server:
        assert harness.provider(base_url=server.base_url).list_models() == ["alpha", "mid", "zeta"]


def test_list_models_errors_are_mapped(harness: Harness) -> None:
    with FakeOpenAIServer(require_key="sk-right") as server:
        with pytest.raises(ProviderError) as info:
            harness.provider(base_url=server.base_url, api_key="sk-wrong-000000").list_models()
    assert info.value.kind == "auth"


def test_complete_returns_text_and_retries(harness: Harness) -> None:
    harness.server.enqueue(Reply(status=500), Reply(text="the summary"))
    assert harness.provider().complete(req()) == "the summary"
    assert len(harness.sleeps) == 1
    assert "stream" not in harness.server.chat_requests()[-1]


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        ({"status": 401}, "auth"),
        ({"non_json_body": True}, "malformed"),
        ({"malformed_chunk_at": 0}, "malformed"),
        ({"never_end": True}, "timeout"),
    ],
)
def test_complete_failures_raise_provider_error(harness: Harness, fault: dict, kind: str) -> None:
    harness.server.enqueue(Reply(text="x", **fault))
    with pytest.raises(ProviderError) as info:
        harness.provider(max_reply_seconds=0.5).complete(req())
    assert info.value.kind == kind


def test_complete_tolerates_a_wrong_content_type(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="json labelled html", wrong_content_type=True))
    assert harness.provider().complete(req()) == "json labelled html"


def test_tool_calls_with_native_deltas_win_over_text(harness: Harness) -> None:
    harness.server.enqueue(Reply(text="Let me look.", tool_calls=[tool_call("lookup", "{}", call_id="c1")]))
    out = collect(harness.provider().stream(req(tools=TOOLS)))
    assert out["text"] == "Let me look." and out["tool_calls"] == [ToolCallDone("c1", "lookup", "{}")]


# ----------------------------------------------------------------- settings


def test_the_default_backend_uses_base_url_model_key_and_limits(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    settings = Settings.load(tmp_path / "settings.json")
    settings.set("provider.keySource", "none")
    monkeypatch.setenv("OKBOT_BASE_URL", server.base_url)
    monkeypatch.setenv("OKBOT_MODEL", "fake-small")
    monkeypatch.setenv("OKBOT_API_KEY", "sk-from-env-000000")  # wins over keySource "none"
    with FakeOpenAIServer(require_key="sk-from-env-000000") as keyed:
        monkeypatch.setenv("OKBOT_BASE_URL", keyed.base_url)
        with default_backend(settings) as provider:
            assert provider.base_url == keyed.base_url and provider.default_model == "fake-small"
            assert provider.list_models() == ["fake-small", "gpt-4o-mini"]
    monkeypatch.delenv("OKBOT_API_KEY")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-var-0000")
    with default_backend(settings) as provider:  # keySource none: no key at all
        assert "key=none" in repr(provider)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "'function calling' is not supported by this model"),
        (422, "Unknown parameter: tools"),
        (404, "No endpoint supports the provided parameters"),
    ],
)
def test_other_tool_refusals_also_fall_back(harness: Harness, status: int, message: str) -> None:
    harness.server.enqueue(Reply(status=status, error_message=message), Reply(text="without tools"))
    out = collect(harness.provider().stream(req(tools=TOOLS)))
    assert out["text"] == "without tools"
    assert any(isinstance(e, Degraded) and e.feature == "tools" for e in out["events"])


def test_a_missing_model_with_tools_is_not_mistaken_for_a_tool_refusal(harness: Harness) -> None:
    events = list(harness.provider().stream(req(tools=TOOLS, model="gpt-missing")))
    assert [type(e) for e in events] == [ErrorEvent] and errors(events)[0].kind == "not_found"
    assert len(harness.server.chat_requests()) == 1


def test_credentials_in_the_base_url_stay_out_of_repr_and_messages(harness: Harness) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = harness.provider(base_url=f"http://user:hunter2pass@127.0.0.1:{port}/v1", max_retries=0)
    [error] = errors(list(provider.stream(req())))
    assert "hunter2pass" not in error.message and "hunter2pass" not in repr(provider)


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8012/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:1234/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://192.168.1.20:8080/v1", False),  # another machine on the network: its time is not ours to spend
        ("http://user:pw@localhost/v1", True),
    ],
)
def test_a_server_on_this_machine_is_local(url: str, local: bool) -> None:
    with OpenAIProvider(url, None) as provider:
        assert provider.local is local


@pytest.mark.parametrize(
    ("sent", "chunk_chars", "received"),
    [
        ("ok \ud83d done", 3, "ok \ufffd done"),  # a lone surrogate: replaced, the reply goes on
        ("a\ud83d\ude00b", 2, "a\U0001f600b"),  # a pair split across chunks ("a\ud83d" | "\ude00b"): joined
        ("end \ud83d", 5, "end \ufffd"),  # a high half whose low half never came
    ],
)
def test_surrogates_in_a_streamed_reply_become_whole_characters(
    harness: Harness, server: FakeOpenAIServer, sent: str, chunk_chars: int, received: str
) -> None:
    server.enqueue(Reply(text=sent, chunk_chars=chunk_chars))
    out = collect(harness.provider().stream(ChatRequest("gpt-4o-mini", [{"role": "user", "content": "hi"}])))
    assert out["text"] == received and out["end"] == Done("stop")
    received.encode("utf-8")  # printable, storable


def test_a_lone_surrogate_in_a_complete_reply_is_replaced(harness: Harness, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(text="x \udc00 y"))
    assert harness.provider().complete(ChatRequest("gpt-4o-mini", [{"role": "user", "content": "hi"}])) == "x \ufffd y"


def test_a_lone_surrogate_in_tool_call_arguments_is_replaced(harness: Harness, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(tool_calls=[tool_call("search_history", '{"query": "x \ud83d"}')]))
    out = collect(harness.provider().stream(ChatRequest("gpt-4o-mini", [{"role": "user", "content": "hi"}])))
    [call] = out["tool_calls"]
    assert json.loads(call.arguments) == {"query": "x \ufffd"}


# ----------------------------------------------------------------- no key


NO_KEY_TEXT = "No API key for api.openai.com. Add one in Settings → Models, or set OKBOT_API_KEY."


def test_a_server_that_needs_a_key_gets_no_request_without_one(harness: Harness, server: FakeOpenAIServer) -> None:
    provider = harness.provider(api_key=None, key_required=True)
    [error] = errors(list(provider.stream(req())))
    assert error.kind == "no_key" and not error.retryable
    assert error.message.startswith("No API key for 127.0.0.1:")
    with pytest.raises(ProviderError, match="No API key for 127.0.0.1"):
        provider.complete(req())
    with pytest.raises(ProviderError, match="No API key for 127.0.0.1"):
        provider.list_models()
    assert server.requests == [] and harness.sleeps == []
    server.enqueue(Reply(text="with a key"))
    assert harness.provider(api_key="sk-now-there-is-one", key_required=True).complete(req()) == "with a key"


def test_fresh_settings_without_any_key_say_no_key_not_could_not_reach() -> None:
    provider = default_backend(Settings.load())  # api.openai.com, keys from the environment: none
    try:
        [error] = errors(list(provider.stream(req())))
    finally:
        provider.close()
    assert error.message == NO_KEY_TEXT


def test_a_local_server_needs_no_key(server: FakeOpenAIServer) -> None:
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)  # 127.0.0.1 with key source env and no key set
    server.enqueue(Reply(text="local"))
    with default_backend(settings, max_retries=0) as provider:
        assert provider.complete(req()) == "local"
