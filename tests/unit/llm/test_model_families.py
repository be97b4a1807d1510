"""Request parameters per model family, and what a server's 400 teaches: the real backend against the fake.

The fake answers as OpenAI's reasoning models do (word-for-word 400s, hidden reasoning spent out of
``max_completion_tokens``), so each test fails if the backend sends what such a model refuses.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator

import pytest

from okbot.config.settings import Settings
from okbot.llm.errors import ProviderError
from okbot.llm.events import Done, ErrorEvent
from okbot.llm.families import STANDARD, learnt_headroom, parse_request_parameters, request_family
from okbot.llm.openai_backend import CapabilityMemory, OpenAIProvider
from okbot.llm.provider import ChatRequest
from okbot.llm.providers import ProviderPool
from okbot.storage import paths
from tests.helpers.fake_openai import (
    FakeOpenAIServer,
    ModelRules,
    Reply,
    gpt5_rules,
    llama_cpp_rules,
    o1_mini_rules,
    o_series_rules,
)
from tests.helpers.scripted import collect

SCHEMA = {"type": "json_schema", "json_schema": {"name": "edits", "schema": {"type": "object"}}}
RULES = {
    "gpt-5-mini": gpt5_rules(),
    "gpt-5.1": gpt5_rules(),  # the table asks for effort "none", which this server does not take
    "o4-mini": o_series_rules(),
    "o3-mini": o1_mini_rules(),  # a proxy that takes no reasoning_effort for a model whose family has one
    "o1-mini": o1_mini_rules(),
    "my-reasoner": o_series_rules(),  # not in the table: everything must be learnt
    "llama-local": ModelRules(json_schema=False),
    "qwen": llama_cpp_rules(),
    "gpt-4o": ModelRules(),
}


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=[*RULES, "gpt-5-chat-latest"], rules=RULES) as srv:
        yield srv


@pytest.fixture
def provider(server: FakeOpenAIServer) -> Iterator[OpenAIProvider]:
    with OpenAIProvider(server.base_url, "sk-test", sleep=lambda s: None, capabilities=CapabilityMemory()) as p:
        yield p


def background(model: str, max_tokens: int = 3, **kwargs: object) -> ChatRequest:
    """A request like the topic check: tiny cap, temperature 0, the app's own."""
    messages = [{"role": "user", "content": "new topic?"}]
    return ChatRequest(model, messages, temperature=0, max_tokens=max_tokens, background=True, **kwargs)  # type: ignore[arg-type]


def sent(server: FakeOpenAIServer) -> list[dict]:
    """The parameters of each chat request, without the messages."""
    return [{k: v for k, v in body.items() if k != "messages"} for body in server.chat_requests()]


# ----------------------------------------------------------------- the table


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("gpt-5", "gpt-5"),
        ("GPT-5-mini-2025-08-07", "gpt-5"),
        ("openai/gpt-5-nano", "gpt-5"),
        ("gpt-5-chat-latest", "standard"),
        ("o1-mini", "o1-early"),
        ("o1-preview-2024-09-12", "o1-early"),
        ("o1", "o-series"),
        ("o3-mini", "o-series"),
        ("ft:o4-mini:acme::x1", "o-series"),
        ("gpt-4o-mini", "standard"),
        ("qwen2.5-coder-1.5b-instruct", "standard"),
        ("", "standard"),
    ],
)
def test_families_come_from_models_json(model: str, family: str) -> None:
    assert request_family(model).name == family


def test_reasoning_families_cap_with_headroom_and_refuse_temperature() -> None:
    for model in ("gpt-5", "o4-mini", "o1-mini"):
        family = request_family(model)
        assert family.token_limit == "max_completion_tokens" and not family.temperature
        assert family.reasoning_headroom >= 4000
    assert request_family("gpt-5").background_effort == "minimal"
    assert request_family("o3").background_effort == "low"
    assert request_family("o1-mini").background_effort is None
    assert learnt_headroom() > 0


def _section() -> dict:
    table = json.loads(paths.resource("models.json").read_text(encoding="utf-8"))
    return copy.deepcopy(table["requestParameters"])


@pytest.mark.parametrize(
    "breakage",
    [
        lambda s: s["families"]["gpt-5"].update(tokenLimit="max_output_tokens"),
        lambda s: s["families"]["gpt-5"].update(temperature="no"),
        lambda s: s["families"]["gpt-5"].update(reasoningHeadroom=-1),
        lambda s: s["families"]["gpt-5"].update(backgroundEffort="tiny"),
        lambda s: s["families"]["gpt-5"].pop("backgroundEffort"),
        lambda s: s["prefixes"].append({"prefix": "x", "family": "no-such-family"}),
        lambda s: s["prefixes"].append({"prefix": "GPT-6", "family": None}),
        lambda s: s.update(learntHeadroom=None),
        lambda s: s.pop("families"),
    ],
)
def test_a_malformed_section_fails_loudly(breakage: object) -> None:
    section = _section()
    rules, _ = parse_request_parameters(section)
    assert rules
    breakage(section)  # type: ignore[operator]
    with pytest.raises(RuntimeError, match="requestParameters"):
        parse_request_parameters(section)


def test_prefix_rules_are_not_shadowed() -> None:
    prefixes = [rule["prefix"] for rule in _section()["prefixes"]]
    for i, earlier in enumerate(prefixes):
        for later in prefixes[i + 1 :]:
            assert not later.startswith(earlier), f"{later!r} is shadowed by {earlier!r}"


# ----------------------------------------------------------------- known families: right the first time


def test_gpt5_background_call_is_accepted_at_once(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    server.enqueue(Reply(text="no"))
    assert provider.complete(background("gpt-5-mini")) == "no"
    [params] = sent(server)
    assert params["max_completion_tokens"] == 3 + request_family("gpt-5-mini").reasoning_headroom
    assert params["reasoning_effort"] == "minimal"
    assert "max_tokens" not in params and "temperature" not in params


def test_o_series_gets_low_effort_and_o1_mini_none(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    assert provider.complete(background("o4-mini"))
    assert provider.complete(background("o1-mini"))
    o4, o1 = sent(server)
    assert o4["reasoning_effort"] == "low"
    assert "reasoning_effort" not in o1 and o1["max_completion_tokens"] == 3 + 16000
    assert len(server.chat_requests()) == 2  # no 400 on the way


def test_a_users_turn_gets_no_reasoning_effort(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    out = collect(provider.stream(ChatRequest("gpt-5-mini", [{"role": "user", "content": "hi"}], temperature=0.7)))
    assert out["text"] == "ok: hi" and out["end"] == Done("stop")
    [params] = sent(server)
    assert "reasoning_effort" not in params and "temperature" not in params and "max_completion_tokens" not in params


def test_ordinary_models_keep_max_tokens_and_temperature(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    assert provider.complete(background("gpt-5-chat-latest")) and provider.complete(background("gpt-4o"))
    for params in sent(server):
        assert params["max_tokens"] == 3 and params["temperature"] == 0
        assert "max_completion_tokens" not in params and "reasoning_effort" not in params


def test_headroom_leaves_the_small_answer_its_room(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    """The topic check's three tokens on o4-mini: low effort spends 64 hidden tokens, the answer still fits."""
    server.enqueue(Reply(text="yes"))
    assert provider.complete(background("o4-mini")) == "yes"


# ----------------------------------------------------------------- unknown servers: learnt from the 400


def test_unknown_reasoning_model_is_learnt_from_its_400s(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    server.enqueue(Reply(text="Summary: ..."))
    assert provider.complete(background("my-reasoner", max_tokens=500)) == "Summary: ..."
    first, second, third = sent(server)
    assert first["max_tokens"] == 500 and first["temperature"] == 0
    assert second["max_completion_tokens"] == 500 + learnt_headroom() and second["temperature"] == 0
    assert "temperature" not in third and "max_tokens" not in third
    provider.complete(background("my-reasoner"))  # remembered: one request, accepted
    assert len(server.chat_requests()) == 4
    assert provider.refuses("my-reasoner", "temperature") and provider.refuses("my-reasoner", "max_tokens")


def test_learning_works_while_streaming_and_is_shared(server: FakeOpenAIServer) -> None:
    memory = CapabilityMemory()
    request = background("my-reasoner")
    with OpenAIProvider(server.base_url, "k", capabilities=memory, sleep=lambda s: None) as provider:
        out = collect(provider.stream(request))
    assert out["text"] == "ok: new topic?" and out["end"] == Done("stop")
    assert not [e for e in out["events"] if isinstance(e, ErrorEvent)]
    assert len(server.chat_requests()) == 3
    with OpenAIProvider(server.base_url, "k", capabilities=memory) as fresh:  # the app builds one per turn
        assert collect(fresh.stream(request))["end"] == Done("stop")
    assert len(server.chat_requests()) == 4


def test_the_apps_providers_share_what_they_learnt(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's one provider pool builds a backend again when its settings change: the new one does not pay
    for the 400s again."""
    settings = Settings.load()
    settings.set("provider.keySource", "none")
    monkeypatch.setenv("OKBOT_BASE_URL", server.base_url)
    pool = ProviderPool(settings)
    assert pool.complete(background("my-reasoner"))
    first_backend = pool.route(None)[0]
    assert len(server.chat_requests()) == 3  # 400, 400, answer
    settings.set("provider.timeout", 77)  # a new backend from here on
    assert pool.complete(background("my-reasoner"))
    assert pool.route(None)[0] is not first_backend
    assert len(server.chat_requests()) == 4  # one answer: what was learnt stayed with the pool
    pool.close()
    with OpenAIProvider(server.base_url, None) as own:  # built directly: its own memory
        assert own.complete(background("my-reasoner"))
    assert len(server.chat_requests()) == 7


@pytest.mark.parametrize("model", ["o3-mini", "gpt-5.1"])
def test_a_refused_reasoning_effort_is_dropped(server: FakeOpenAIServer, provider: OpenAIProvider, model: str) -> None:
    assert provider.complete(background(model))
    first, second = sent(server)
    assert "reasoning_effort" in first and "reasoning_effort" not in second
    assert second["max_completion_tokens"] == first["max_completion_tokens"]
    provider.complete(background(model))
    assert len(server.chat_requests()) == 3


def test_refused_structured_output_is_dropped_and_can_be_asked(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    server.enqueue(Reply(text="edits as text"))
    assert not provider.refuses("llama-local", "response_format")
    assert provider.complete(background("llama-local", response_format=SCHEMA)) == "edits as text"
    first, second = sent(server)
    assert first["response_format"] == SCHEMA and "response_format" not in second
    assert second["max_tokens"] == 3 and second["temperature"] == 0  # nothing else dropped
    assert provider.refuses("llama-local", "response_format")
    out = collect(provider.stream(background("llama-local", response_format=SCHEMA)))
    assert out["end"] == Done("stop") and len(server.chat_requests()) == 3


def test_llama_cpp_takes_the_schema_as_json_object_after_its_500(
    server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    """llama-cpp-python's server answers json_schema with a 500 naming json_object (seen on the real server):
    the schema is sent again as json_object (grammar-constrained there), not dropped, and not retried as a 500."""
    strict = {"type": "json_schema", "json_schema": {"name": "edits", "schema": {"type": "object", "required": ["a"]}}}
    server.enqueue(Reply(text='{"a": 1}'), Reply(text='{"a": 2}'))
    assert provider.complete(background("qwen", response_format=strict)) == '{"a": 1}'
    first, second = sent(server)
    assert first["response_format"] == strict
    assert second["response_format"] == {"type": "json_object", "schema": {"type": "object", "required": ["a"]}}
    assert not provider.refuses("qwen", "response_format")
    out = collect(provider.stream(background("qwen", response_format=strict)))
    assert out["end"] == Done("stop") and sent(server)[2]["response_format"]["type"] == "json_object"
    assert len(server.chat_requests()) == 3  # learnt once


def test_accepted_structured_output_is_sent(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    server.enqueue(Reply(text='{"edits": []}'))
    assert provider.complete(background("gpt-5-mini", max_tokens=200, response_format=SCHEMA)) == '{"edits": []}'
    [params] = sent(server)
    assert params["response_format"] == SCHEMA


def test_an_unrelated_400_is_not_learnt(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    """vLLM's "max_tokens is too large" names the parameter but does not refuse it: no rename, no retry."""
    server.enqueue(Reply(status=400, error_message="'max_tokens' or 'max_completion_tokens' is too large: 9000."))
    with pytest.raises(ProviderError) as caught:
        provider.complete(background("gpt-4o"))
    assert caught.value.kind == "bad_request" and len(server.chat_requests()) == 1
    assert not provider.refuses("gpt-4o", "max_tokens")


# ----------------------------------------------------------------- no answer at all


def test_complete_says_so_when_reasoning_ate_the_whole_cap(server: FakeOpenAIServer) -> None:
    greedy = {"greedy-reasoner": ModelRules(reasoning=True, reasoning_tokens={"medium": 50_000})}
    with FakeOpenAIServer(models=list(greedy), rules=greedy) as srv:
        with OpenAIProvider(srv.base_url, "k", capabilities=CapabilityMemory(), sleep=lambda s: None) as provider:
            with pytest.raises(ProviderError) as caught:
                provider.complete(background("greedy-reasoner"))
            assert len(srv.chat_requests()) == 3  # learnt max_completion_tokens and temperature, then no answer
    error = caught.value
    assert error.kind == "no_answer" and not error.retryable
    assert "token limit" in error.message and "hidden reasoning" in error.message


def test_a_stream_with_no_answer_ends_in_an_error_not_an_empty_reply(server: FakeOpenAIServer) -> None:
    greedy = {"o4-mini": ModelRules(reasoning=True, efforts=("low",), reasoning_tokens={"low": 50_000})}
    headroom = request_family("o4-mini").reasoning_headroom
    with FakeOpenAIServer(models=list(greedy), rules=greedy) as srv:
        with OpenAIProvider(srv.base_url, "k", capabilities=CapabilityMemory()) as provider:
            out = collect(provider.stream(background("o4-mini")))
            srv.enqueue(Reply(text="0123456789" * 10))
            cut = collect(provider.stream(background("o4-mini", max_tokens=50_005 - headroom)))  # 5 visible tokens
    assert isinstance(out["end"], ErrorEvent) and out["end"].error.kind == "no_answer"
    assert f"{3 + headroom:,} tokens" in out["end"].error.message
    assert out["usage"].completion_tokens == 3 + headroom
    assert cut["end"] == Done("length") and cut["text"]  # a cut answer is still an answer


def test_a_family_default_is_standard_for_unknown_names() -> None:
    assert request_family("something-local") == STANDARD
