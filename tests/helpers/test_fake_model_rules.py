"""The fake server's per-model rules, through the real ``openai`` SDK: reasoning models and structured output.

The error texts are OpenAI's own, word for word (as its API answered in 2025), in its JSON error shape.
"""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from tests.helpers.fake_openai import (
    FakeOpenAIServer,
    ModelRules,
    Reply,
    gpt5_rules,
    o1_mini_rules,
    o_series_rules,
    tool_call,
)

MESSAGES = [{"role": "user", "content": "hello"}]
SCHEMA = {"type": "json_schema", "json_schema": {"name": "edits", "schema": {"type": "object"}}}


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    rules = {
        "gpt-5-mini": gpt5_rules(),
        "o4-mini": o_series_rules(),
        "o1-mini": o1_mini_rules(),
        "llama-local": ModelRules(json_schema=False),
        "gpt-4o": ModelRules(),
    }
    with FakeOpenAIServer(models=list(rules), rules=rules) as srv:
        yield srv


@pytest.fixture
def client(server: FakeOpenAIServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=10) as c:
        yield c


def refused(client: openai.OpenAI, **params: object) -> openai.BadRequestError:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(messages=MESSAGES, **params)
    return caught.value


def test_reasoning_model_refuses_max_tokens_word_for_word(client: openai.OpenAI, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(text="kept for the next request"))
    error = refused(client, model="o4-mini", max_tokens=50)
    assert error.status_code == 400
    assert error.body == {
        "message": "Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead.",
        "type": "invalid_request_error",
        "param": "max_tokens",
        "code": "unsupported_parameter",
    }
    reply = client.chat.completions.create(model="o4-mini", messages=MESSAGES, max_completion_tokens=5000)
    assert reply.choices[0].message.content == "kept for the next request"  # the refusal consumed no reply


def test_reasoning_model_refuses_any_temperature_but_one(client: openai.OpenAI) -> None:
    error = refused(client, model="gpt-5-mini", temperature=0)
    assert error.body == {
        "message": "Unsupported value: 'temperature' does not support 0 with this model. "
        "Only the default (1) value is supported.",
        "type": "invalid_request_error",
        "param": "temperature",
        "code": "unsupported_value",
    }
    assert (
        refused(client, model="o1-mini", temperature=0.2)
        .body["message"]
        .startswith("Unsupported value: 'temperature' does not support 0.2 with")
    )
    assert client.chat.completions.create(model="gpt-5-mini", messages=MESSAGES, temperature=1).choices


def test_reasoning_effort_values_per_family(client: openai.OpenAI) -> None:
    assert client.chat.completions.create(model="gpt-5-mini", messages=MESSAGES, reasoning_effort="minimal").choices
    error = refused(client, model="o4-mini", reasoning_effort="minimal")
    assert error.body["param"] == "reasoning_effort" and error.body["code"] == "unsupported_value"
    assert "Supported values are: 'low', 'medium', and 'high'." in error.body["message"]
    error = refused(client, model="o1-mini", reasoning_effort="low")
    assert error.body["message"] == "Unsupported parameter: 'reasoning_effort' is not supported with this model."
    assert refused(client, model="gpt-4o", reasoning_effort="low").body["code"] == "unsupported_parameter"


def test_ordinary_model_keeps_max_tokens_and_temperature(client: openai.OpenAI) -> None:
    reply = client.chat.completions.create(model="gpt-4o", messages=MESSAGES, max_tokens=5, temperature=0)
    assert reply.choices[0].message.content == "ok: hello"
    assert reply.usage.completion_tokens_details.reasoning_tokens == 0


def test_hidden_reasoning_is_counted_in_completion_tokens(client: openai.OpenAI, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(text="12345678"))  # two visible tokens
    reply = client.chat.completions.create(model="o4-mini", messages=MESSAGES, max_completion_tokens=1000)
    assert reply.choices[0].message.content == "12345678"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage.completion_tokens_details.reasoning_tokens == 512  # medium effort by default
    assert reply.usage.completion_tokens == 514


def test_small_cap_is_eaten_by_reasoning_empty_answer_with_length(
    client: openai.OpenAI, server: FakeOpenAIServer
) -> None:
    server.enqueue(Reply(text="Topic: no"), Reply(text="Topic: no"))
    reply = client.chat.completions.create(model="o4-mini", messages=MESSAGES, max_completion_tokens=3)
    assert reply.choices[0].message.content is None
    assert reply.choices[0].finish_reason == "length"
    assert reply.usage.completion_tokens == 3 and reply.usage.completion_tokens_details.reasoning_tokens == 3
    chunks = list(
        client.chat.completions.create(
            model="o4-mini",
            messages=MESSAGES,
            max_completion_tokens=3,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert not "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "length"
    assert chunks[-1].usage.completion_tokens_details.reasoning_tokens == 3


def test_lower_effort_leaves_room_for_the_answer(client: openai.OpenAI, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(text="a long answer that needs room"), Reply(text="a long answer that needs room"))
    low = client.chat.completions.create(
        model="o4-mini", messages=MESSAGES, max_completion_tokens=100, reasoning_effort="low"
    )
    assert low.choices[0].message.content == "a long answer that needs room"
    assert low.usage.completion_tokens_details.reasoning_tokens == 64
    cut = client.chat.completions.create(model="o4-mini", messages=MESSAGES, max_completion_tokens=66)
    assert cut.choices[0].finish_reason == "length" and not cut.choices[0].message.content
    assert cut.usage.completion_tokens_details.reasoning_tokens == 66


def test_answer_cut_after_reasoning_keeps_the_start(client: openai.OpenAI, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(text="0123456789abcdef", tool_calls=[tool_call("f", {})]))
    reply = client.chat.completions.create(
        model="gpt-5-mini", messages=MESSAGES, max_completion_tokens=2, reasoning_effort="minimal"
    )
    assert reply.choices[0].message.content == "01234567"
    assert reply.choices[0].message.tool_calls is None
    assert reply.choices[0].finish_reason == "length"


def test_json_schema_refused_where_the_server_lacks_it(client: openai.OpenAI, server: FakeOpenAIServer) -> None:
    error = refused(client, model="llama-local", response_format=SCHEMA)
    assert error.body["param"] == "response_format"
    assert "response_format" in error.body["message"] and "json_schema" in error.body["message"]
    server.enqueue(Reply(text='{"edits": []}'), Reply(text="plain"))
    accepted = client.chat.completions.create(model="gpt-5-mini", messages=MESSAGES, response_format=SCHEMA)
    assert accepted.choices[0].message.content == '{"edits": []}'
    plain = client.chat.completions.create(
        model="llama-local", messages=MESSAGES, response_format={"type": "json_object"}
    )
    assert plain.choices[0].message.content == "plain"  # only json_schema is refused
