"""Contract tests: the same behaviour from the scripted fake and from the real backend over HTTP.

Each backend subclass says how to script a reply; the test bodies live once, in
:class:`ProviderContract`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from okbot.llm.events import Done, ErrorEvent, TextDelta, ToolCallDelta, UsageEvent
from okbot.llm.openai_backend import OpenAIProvider
from okbot.llm.provider import CancelToken, ChatRequest, Provider
from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call
from tests.helpers.scripted import ScriptedProvider, call, pause, usage
from tests.helpers.scripted import collect as collect_events

MODEL = "gpt-4o-mini"
TOOLS = [
    {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "note", "parameters": {"type": "object"}}},
]


def request(text: str = "hi", *, tools: list[dict] | None = None) -> ChatRequest:
    return ChatRequest(
        MODEL, [{"role": "system", "content": "Be brief."}, {"role": "user", "content": text}], tools=tools
    )


class ProviderContract:
    """What every provider does; subclasses supply ``provider`` and the ``script_*`` methods."""

    provider: Provider

    def script_text(self, text: str) -> None:
        raise NotImplementedError

    def script_tool_calls(self, calls: list[tuple[str, dict, str]]) -> None:
        raise NotImplementedError

    def script_usage(self, text: str, prompt: int, completion: int, cached: int) -> None:
        raise NotImplementedError

    def script_slow_text(self, pieces: int) -> None:
        raise NotImplementedError

    def test_is_a_provider(self) -> None:
        assert isinstance(self.provider, Provider)

    def test_refuses_no_parameter_until_told(self) -> None:
        for parameter in ("response_format", "temperature", "tools", "max_tokens"):
            assert self.provider.refuses(MODEL, parameter) is False

    def test_text_streams_in_order_and_ends_with_usage_then_done(self) -> None:
        self.script_text("The quick brown fox jumps over the lazy dog.")
        out = collect_events(self.provider.stream(request()))
        assert out["text"] == "The quick brown fox jumps over the lazy dog."
        kinds = [type(e) for e in out["events"]]
        assert kinds[-2:] == [UsageEvent, Done]
        assert out["end"] == Done("stop")
        assert all(isinstance(e, TextDelta) and e.text for e in out["events"] if isinstance(e, TextDelta))

    def test_tool_calls_are_assembled_in_index_order(self) -> None:
        self.script_tool_calls([("lookup", {"q": "weather in Oslo"}, "call_a"), ("note", {"x": [1, 2]}, "call_b")])
        out = collect_events(self.provider.stream(request(tools=TOOLS)))
        assert [(c.call_id, c.name, json.loads(c.arguments)) for c in out["tool_calls"]] == [
            ("call_a", "lookup", {"q": "weather in Oslo"}),
            ("call_b", "note", {"x": [1, 2]}),
        ]
        deltas = [e for e in out["events"] if isinstance(e, ToolCallDelta)]
        for index, done in enumerate(out["tool_calls"]):
            mine = [d for d in deltas if d.index == index]
            assert "".join(d.arguments for d in mine) == done.arguments
            assert [d.call_id for d in mine if d.call_id] == [done.call_id]
        assert out["end"] == Done("tool_calls")
        events = out["events"]
        assert max(events.index(d) for d in deltas) < min(events.index(c) for c in out["tool_calls"])

    def test_usage_reports_cached_tokens(self) -> None:
        self.script_usage("ok", 1200, 7, 1024)
        out = collect_events(self.provider.stream(request()))
        assert out["usage"] == UsageEvent(1200, 7, 1024, False)
        assert out["text"] == "ok"

    def test_cancel_from_another_thread_ends_with_done_cancelled(self) -> None:
        self.script_slow_text(200)
        token = CancelToken()
        events = []
        for event in self.provider.stream(request(), token):
            events.append(event)
            if isinstance(event, TextDelta):
                token.cancel()
        assert events[-1] == Done("cancelled")
        assert not any(isinstance(e, ErrorEvent) for e in events)
        assert sum(isinstance(e, TextDelta) for e in events) < 200


class TestScriptedContract(ProviderContract):
    @pytest.fixture(autouse=True)
    def _provider(self) -> None:
        self.provider = self.scripted = ScriptedProvider()

    def script_text(self, text: str) -> None:
        self.scripted.enqueue([text[i : i + 8] for i in range(0, len(text), 8)])

    def script_tool_calls(self, calls: list[tuple[str, dict, str]]) -> None:
        self.scripted.enqueue([call(name, args, call_id) for name, args, call_id in calls])

    def script_usage(self, text: str, prompt: int, completion: int, cached: int) -> None:
        self.scripted.enqueue([text, usage(prompt, completion, cached)])

    def script_slow_text(self, pieces: int) -> None:
        self.scripted.enqueue([item for _ in range(pieces) for item in ("ab", pause(0.01))])


class TestOpenAIContract(ProviderContract):
    @pytest.fixture(autouse=True)
    def _provider(self) -> Iterator[None]:
        with FakeOpenAIServer() as server, OpenAIProvider(server.base_url, "sk-test") as provider:
            self.server = server
            self.provider = provider
            yield

    def script_text(self, text: str) -> None:
        self.server.enqueue(Reply(text=text))

    def script_tool_calls(self, calls: list[tuple[str, dict, str]]) -> None:
        self.server.enqueue(Reply(tool_calls=[tool_call(n, a, call_id=i) for n, a, i in calls], chunk_chars=3))

    def script_usage(self, text: str, prompt: int, completion: int, cached: int) -> None:
        self.server.enqueue(
            Reply(
                text=text,
                usage={
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                    "prompt_tokens_details": {"cached_tokens": cached},
                },
            )
        )

    def script_slow_text(self, pieces: int) -> None:
        self.server.enqueue(Reply(text="ab" * pieces, chunk_chars=2, chunk_delay=0.01))
