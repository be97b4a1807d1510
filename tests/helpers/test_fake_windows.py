"""The fake server's context windows, through the real ``openai`` SDK: each server refuses a request over its
window in its own words, before a reply is taken from the queue (the texts are cited in ``fake_windows``)."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from tests.helpers.fake_openai import FakeOpenAIServer, ModelRules, Reply, llama_cpp_rules
from tests.helpers.fake_windows import fake_prompt_tokens

WINDOW = 1000
STYLES = ("openai", "llama.cpp", "llama-cpp-python", "vllm")


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    rules = {style: ModelRules(context_window=WINDOW, window_style=style) for style in STYLES}
    with FakeOpenAIServer(models=[*rules, "roomy"], rules=rules) as srv:
        yield srv


@pytest.fixture
def client(server: FakeOpenAIServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=10) as c:
        yield c


def messages_of(tokens: int) -> list[dict]:
    """One user message the fake counts as about ``tokens`` tokens (ASCII at 3.5 characters a token)."""
    return [{"role": "user", "content": "x" * int(tokens * 3.5)}]


def refused(client: openai.OpenAI, model: str, messages: list[dict], **params: object) -> openai.APIStatusError:
    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(model=model, messages=messages, **params)
    return caught.value


def test_the_count_is_documented_arithmetic_not_a_tokenizer() -> None:
    body = {
        "model": "m",
        "messages": [
            {"role": "system", "content": "a" * 35},  # 10 + 4 overhead
            {"role": "user", "content": [{"type": "text", "text": "b" * 7}, {"type": "image_url", "image_url": {}}]},
            {"role": "user", "content": "汉字"},  # a token per character that is not ASCII
        ],
    }
    assert fake_prompt_tokens(body) == (10 + 4) + (2 + 256 + 4) + (2 + 4) + 3
    assert fake_prompt_tokens({"messages": "not a list"}) is None


def test_a_request_within_the_window_is_answered_and_its_count_recorded(
    client: openai.OpenAI, server: FakeOpenAIServer
) -> None:
    reply = client.chat.completions.create(model="llama.cpp", messages=messages_of(500))
    assert reply.choices[0].message.content.startswith("ok: ")
    recorded = server.requests[-1]
    assert recorded.prompt_tokens == fake_prompt_tokens({"messages": messages_of(500)})
    assert server.over_window() == []


def test_llama_cpp_refuses_word_for_word_and_ignores_max_tokens(
    client: openai.OpenAI, server: FakeOpenAIServer
) -> None:
    server.enqueue(Reply(text="kept for later"))
    messages = messages_of(1200)
    count = fake_prompt_tokens({"messages": messages})
    error = refused(client, "llama.cpp", messages, stream=True)
    assert error.status_code == 400
    assert error.body == {
        "code": 400,
        "message": f"request ({count} tokens) exceeds the available context size ({WINDOW} tokens), try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": count,
        "n_ctx": WINDOW,
    }
    # llama.cpp checks the prompt alone: a large max_tokens does not refuse a prompt that fits
    fits = client.chat.completions.create(model="llama.cpp", messages=messages_of(500), max_tokens=5000)
    assert fits.choices[0].message.content == "kept for later"  # the refusal took no reply
    assert [r.prompt_tokens for r in server.over_window()] == [count]


def test_llama_cpp_python_names_max_tokens_as_it_was_sent(client: openai.OpenAI) -> None:
    messages = messages_of(1100)
    count = fake_prompt_tokens({"messages": messages})
    error = refused(client, "llama-cpp-python", messages)
    assert error.status_code == 400
    assert error.body == {
        "message": f"This model's maximum context length is {WINDOW} tokens. However, you requested {count} tokens "
        f"({count} in the messages, None in the completion). Please reduce the length of the messages or completion.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
    with_cap = refused(client, "llama-cpp-python", messages, max_tokens=64)
    assert with_cap.body["message"].startswith(
        f"This model's maximum context length is {WINDOW} tokens. However, you requested {count + 64} tokens "
        f"({count} in the messages, 64 in the completion)."
    )
    # like llama.cpp it refuses on the prompt alone (it shortens the cap instead)
    assert client.chat.completions.create(model="llama-cpp-python", messages=messages_of(500), max_tokens=900)


def test_vllm_counts_the_completion_and_answers_its_flat_error_object(client: openai.OpenAI) -> None:
    messages = messages_of(600)
    count = fake_prompt_tokens({"messages": messages})
    error = refused(client, "vllm", messages, max_completion_tokens=500)
    assert error.status_code == 400
    assert error.body == {
        "object": "error",
        "message": f"This model's maximum context length is {WINDOW} tokens. However, you requested {count + 500} "
        f"tokens ({count} in the messages, 500 in the completion). "
        "Please reduce the length of the messages or completion.",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }
    big = messages_of(1100)
    alone = refused(client, "vllm", big)
    big_count = fake_prompt_tokens({"messages": big})
    assert alone.body["message"] == (
        f"This model's maximum context length is {WINDOW} tokens. However, you requested {big_count} tokens "
        "in the messages, Please reduce the length of the messages."
    )
    assert client.chat.completions.create(model="vllm", messages=messages, max_tokens=100)


def test_openai_counts_the_completion_when_asked_for_one(client: openai.OpenAI) -> None:
    big = messages_of(1100)
    count = fake_prompt_tokens({"messages": big})
    error = refused(client, "openai", big, stream=True)
    assert error.status_code == 400
    assert error.body == {
        "message": f"This model's maximum context length is {WINDOW} tokens. However, your messages resulted in "
        f"{count} tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
    small = messages_of(600)
    small_count = fake_prompt_tokens({"messages": small})
    capped = refused(client, "openai", small, max_tokens=500)
    assert capped.body["message"] == (
        f"This model's maximum context length is {WINDOW} tokens. However, you requested {small_count + 500} tokens "
        f"({small_count} in the messages, 500 in the completion). Please reduce the length of the messages or "
        "completion."
    )


def test_tools_count_against_the_window(client: openai.OpenAI) -> None:
    tool = {"type": "function", "function": {"name": "f", "description": "d" * 3000, "parameters": {}}}
    messages = messages_of(300)
    assert client.chat.completions.create(model="llama.cpp", messages=messages)
    error = refused(client, "llama.cpp", messages, tools=[tool])
    assert error.body["n_prompt_tokens"] > WINDOW


def test_a_model_without_a_window_takes_anything(client: openai.OpenAI, server: FakeOpenAIServer) -> None:
    assert client.chat.completions.create(model="roomy", messages=messages_of(50_000))
    assert server.over_window() == []


def test_llama_cpp_rules_take_a_window_in_llama_cpp_pythons_words() -> None:
    rules = llama_cpp_rules(window=4096)
    assert (rules.context_window, rules.window_style) == (4096, "llama-cpp-python")
    assert not rules.json_schema
    assert llama_cpp_rules().context_window is None
