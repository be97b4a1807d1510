"""A server's context-length refusal is recognised in each server's own words: kind ``context_length``, the
window and prompt it states, a plain message, and no retry of the same request."""

from __future__ import annotations

import json
from collections.abc import Iterator

import openai
import pytest

from okbot import i18n
from okbot.llm.errors import ProviderError, classify
from okbot.llm.events import ErrorEvent, Retrying
from okbot.llm.openai_backend import OpenAIProvider
from okbot.llm.provider import ChatRequest
from tests.helpers.fake_openai import FakeOpenAIServer, ModelRules, Reply
from tests.helpers.fake_windows import fake_prompt_tokens

try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs use httpx
    import httpx  # type: ignore[no-redef]

WINDOW = 2048
STYLES = ("openai", "llama.cpp", "llama-cpp-python", "vllm")
TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]


def status_error(status: int, body: object) -> openai.APIStatusError:
    """An SDK status error built the way the SDK builds it (from a real httpx response)."""
    request = httpx.Request("POST", "https://llm.example.test/v1/chat/completions")
    content = json.dumps(body).encode() if not isinstance(body, str) else body.encode()
    response = httpx.Response(status, content=content, request=request)
    client = openai.OpenAI(base_url="https://llm.example.test/v1", api_key="x")
    return client._make_status_error_from_response(response)


def too_long(tokens: int) -> list[dict]:
    return [{"role": "user", "content": "y" * int(tokens * 3.5)}]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    rules = {style: ModelRules(context_window=WINDOW, window_style=style) for style in STYLES}
    with FakeOpenAIServer(models=list(rules), rules=rules) as fake:
        yield fake


@pytest.fixture
def provider(server: FakeOpenAIServer) -> Iterator[OpenAIProvider]:
    sleeps: list[float] = []
    with OpenAIProvider(server.base_url, "sk-test", sleep=sleeps.append) as p:
        yield p
    assert sleeps == []  # a window refusal is never waited on and retried by the backend


@pytest.mark.parametrize("style", STYLES)
def test_each_servers_refusal_streams_as_context_length(
    style: str, server: FakeOpenAIServer, provider: OpenAIProvider
) -> None:
    messages = too_long(3000)
    events = list(provider.stream(ChatRequest(style, messages, tools=TOOLS)))
    assert not [e for e in events if isinstance(e, Retrying)]
    (event,) = [e for e in events if isinstance(e, ErrorEvent)]
    error = event.error
    assert (error.kind, error.retryable, error.status) == ("context_length", False, 400)
    assert error.window == WINDOW
    assert error.prompt_tokens == fake_prompt_tokens({"messages": messages, "tools": TOOLS})
    assert len(server.chat_requests()) == 1  # refused once, not retried, tools not dropped as "refused"
    assert str(WINDOW) in error.message.replace(",", "")
    for raw in ("{", "exceed_context_size_error", "context_length_exceeded", "BadRequestError", "Please reduce"):
        assert raw not in error.message


@pytest.mark.parametrize("style", STYLES)
def test_each_servers_refusal_raises_from_complete(style: str, provider: OpenAIProvider) -> None:
    with pytest.raises(ProviderError) as caught:
        provider.complete(ChatRequest(style, too_long(3000), max_tokens=100))
    assert caught.value.kind == "context_length" and caught.value.window == WINDOW


def test_vllm_and_openai_count_the_reply_cap(server: FakeOpenAIServer, provider: OpenAIProvider) -> None:
    messages = too_long(1500)
    for style in ("vllm", "openai"):
        with pytest.raises(ProviderError) as caught:
            provider.complete(ChatRequest(style, messages, max_tokens=1000))
        assert caught.value.kind == "context_length"
        assert caught.value.prompt_tokens == fake_prompt_tokens({"messages": messages})
    server.enqueue(Reply(text="fits"))
    assert provider.complete(ChatRequest("llama.cpp", messages, max_tokens=1000)) == "fits"


@pytest.mark.parametrize(
    ("body", "window", "prompt"),
    [
        (
            {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": 20512,
                    "n_ctx": 16384,
                }
            },
            16384,
            20512,
        ),
        (
            {
                "error": {
                    "message": "This model's maximum context length is 4096 tokens. However, your messages "
                    "resulted in 4619 tokens. Please reduce the length of the messages.",
                    "type": "invalid_request_error",
                    "param": "messages",
                    "code": "context_length_exceeded",
                }
            },
            4096,
            4619,
        ),
        (
            {
                "object": "error",
                "message": "This model's maximum context length is 32768 tokens. However, your "
                "request has 40000 input tokens. Please reduce the length of the input messages.",
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            },
            32768,
            40000,
        ),
        (
            {
                "error": {
                    "message": "This model's maximum context length is 262144 tokens. However, you requested 0 "
                    "output tokens and your prompt contains at least 262145 input tokens, for a total of at "
                    "least 262145 tokens. Please reduce the length of the input prompt or the number of "
                    "requested output tokens. (parameter=input_tokens, value=262145)",
                    "type": "BadRequestError",
                    "param": "input_tokens",
                    "code": 400,
                }
            },
            262144,
            262145,
        ),
        (
            {
                "error": {
                    "message": "request (9000 tokens) exceeds the available context size (8192 tokens), "
                    "try increasing it",
                    "type": "exceed_context_size_error",
                }
            },
            8192,
            9000,
        ),
    ],
)
def test_windows_and_prompts_are_read_from_the_words(body: dict, window: int, prompt: int) -> None:
    error = classify(status_error(400, body))
    assert (error.kind, error.window, error.prompt_tokens, error.retryable) == ("context_length", window, prompt, False)


def test_413_is_about_size_and_states_no_window() -> None:
    error = classify(status_error(413, "<html><body>413 Request Entity Too Large</body></html>"))
    assert (error.kind, error.window, error.prompt_tokens, error.status) == ("context_length", None, None, 413)
    assert "<" not in error.message


def test_other_400s_are_not_context_length() -> None:
    error = classify(status_error(400, {"error": {"message": "Unsupported parameter: 'max_tokens'", "code": None}}))
    assert error.kind == "bad_request" and error.window is None and error.prompt_tokens is None
    assert classify(status_error(401, {"error": {"code": "context_length_exceeded"}})).kind == "auth"


@pytest.fixture
def chinese() -> Iterator[None]:
    """OkBot in Simplified Chinese for one test (skipped where the catalogue was never compiled)."""
    if i18n.set_language("zh_CN") != "zh_CN":
        i18n.set_language("en")
        pytest.skip("resources/i18n/okbot_zh_CN.qm is not built (make)")
    try:
        yield
    finally:
        i18n.set_language("en")


def test_the_message_reads_in_chinese_and_stays_english_for_the_model(chinese: None) -> None:
    error = classify(
        status_error(
            400,
            {"error": {"message": "x", "type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096}},
        )
    )
    assert "4,096" in error.english and "5,000" in error.english
    assert error.message != error.english and any(ord(ch) > 0x2E80 for ch in error.message)
