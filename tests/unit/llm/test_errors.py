"""The one table from failures to (kind, retryable, message); the key never leaks into a message."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from email.utils import formatdate

import openai
import pytest

from okbot import i18n
from okbot.llm.errors import (
    MalformedReply,
    ProviderError,
    ReplyTooLong,
    StreamCut,
    classify,
    parse_retry_after,
)
from okbot.llm.events import Retrying
from okbot.storage.errors import OkBotError

try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs use httpx
    import httpx  # type: ignore[no-redef]

URL = "https://llm.example.test/v1/chat/completions"
KEY = "sk-secret-abcdefghijklmnop"


def status_error(status: int, body: object = None, headers: dict | None = None) -> openai.APIStatusError:
    """An SDK status error built the way the SDK builds it (from a real httpx response)."""
    request = httpx.Request("POST", URL)
    content = json.dumps(body).encode() if not isinstance(body, str) else body.encode()
    response = httpx.Response(status, content=content, headers=headers or {}, request=request)
    client = openai.OpenAI(base_url="https://llm.example.test/v1", api_key="x")
    return client._make_status_error_from_response(response)


def error_body(message: str, code: str | None = None) -> dict:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


@pytest.mark.parametrize(
    ("status", "kind", "retryable"),
    [
        (400, "bad_request", False),
        (401, "auth", False),
        (403, "forbidden", False),
        (404, "not_found", False),
        (408, "timeout", True),
        (409, "conflict", True),
        (413, "context_length", False),
        (422, "bad_request", False),
        (429, "rate_limit", True),
        (500, "server", True),
        (502, "server", True),
        (503, "server", True),
        (418, "http", False),
    ],
)
def test_status_table(status: int, kind: str, retryable: bool) -> None:
    error = classify(status_error(status, error_body("server says no")), model="m1")
    assert (error.kind, error.retryable, error.status) == (kind, retryable, status)
    assert isinstance(error, OkBotError) and error.message


def test_401_message_is_exact() -> None:
    error = classify(status_error(401, error_body("Incorrect API key provided")))
    assert error.message == "The API key was refused (401). Check the key in Settings → Models."


def test_404_names_the_model_or_the_endpoint() -> None:
    assert '"gpt-9"' in classify(status_error(404, error_body("no")), model="gpt-9").message
    assert "endpoint" in classify(status_error(404, error_body("no")), model=None).message


def test_400_and_422_carry_the_servers_message() -> None:
    error = classify(status_error(400, error_body("max_tokens is too large: 999999")))
    assert error.message == "The server refused the request (400): max_tokens is too large: 999999"
    assert error.detail == "max_tokens is too large: 999999"
    plain = classify(status_error(422, "field required: messages"))
    assert "field required: messages" in plain.message


def test_error_body_without_a_message_still_reads_well() -> None:
    error = classify(status_error(400, {}))
    assert error.message.startswith("The server refused the request (400)")
    assert not error.message.endswith(": ")


def test_quota_429_is_not_retried() -> None:
    error = classify(status_error(429, error_body("You exceeded your current quota", "insufficient_quota")))
    assert error.kind == "quota" and not error.retryable


def test_long_server_messages_are_shortened() -> None:
    error = classify(status_error(400, error_body("x" * 5000)))
    assert len(error.message) < 400


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, None),
        ({}, None),
    ],
)
def test_retry_after(headers: dict, expected: float | None) -> None:
    assert classify(status_error(429, error_body("slow"), headers)).retry_after == expected
    assert parse_retry_after(httpx.Headers(headers)) == expected


def test_retry_after_as_http_date() -> None:
    value = parse_retry_after(httpx.Headers({"retry-after": formatdate(time.time() + 30, usegmt=True)}))
    assert value is not None and 25 <= value <= 31


def test_transport_failures() -> None:
    request = httpx.Request("POST", URL)
    refused = classify(openai.APIConnectionError(request=request))
    assert (refused.kind, refused.retryable) == ("connection", True)
    assert "llm.example.test" in refused.message
    timeout = classify(openai.APITimeoutError(request=request))
    assert (timeout.kind, timeout.retryable, timeout.message) == ("timeout", True, "The server did not answer in time.")


def test_backend_markers() -> None:
    assert classify(StreamCut("peer closed")).message == "The connection dropped mid-reply."
    assert classify(StreamCut("x")).kind == "cut"
    malformed = classify(MalformedReply("nothing"))
    assert (malformed.kind, malformed.message) == ("malformed", "The server sent a reply OkBot could not read.")
    assert classify(json.JSONDecodeError("Expecting value", "{not", 1)).kind == "malformed"
    too_long = classify(ReplyTooLong(600))
    assert too_long.kind == "timeout" and "600 seconds" in too_long.message and not too_long.retryable


def test_unknown_failures_are_not_retried_and_keep_their_text() -> None:
    error = classify(RuntimeError("odd"))
    assert (error.kind, error.retryable) == ("unknown", False) and "odd" in error.message
    request = httpx.Request("POST", URL)
    in_stream = classify(openai.APIError("overloaded mid-stream", request, body={"message": "overloaded"}))
    assert "overloaded" in in_stream.message


def test_a_provider_error_passes_through() -> None:
    original = ProviderError("x", kind="cut", retryable=True)
    assert classify(original) is original


def test_key_is_redacted_from_messages_and_detail() -> None:
    error = classify(status_error(400, error_body(f"Incorrect API key provided: {KEY}")), secrets=[KEY, None])
    assert KEY not in error.message and KEY not in error.detail and KEY not in repr(error)
    assert "[redacted]" in error.message
    unknown = classify(RuntimeError(f"boom Authorization: Bearer {KEY}"), secrets=[KEY])
    assert KEY not in str(unknown)


def test_a_key_shaped_token_is_redacted_even_when_not_named() -> None:
    error = classify(status_error(400, error_body("bad key sk-proj-AbCdEf0123456789xyz")))
    assert "sk-proj-AbCdEf0123456789xyz" not in error.message


@pytest.fixture
def chinese() -> Iterator[None]:
    """OkBot in Simplified Chinese for one test (skipped where the catalogue was never compiled)."""
    refused = "The API key was refused (401). Check the key in Settings → Models."
    if i18n.set_language("zh_CN") != "zh_CN" or i18n.translate("errors", refused) == refused:
        i18n.set_language("en")
        pytest.skip("resources/i18n/okbot_zh_CN.qm is not built (make), or not from this catalogue")
    try:
        yield
    finally:
        i18n.set_language("en")


def test_a_refused_key_reads_in_chinese_and_stays_english_for_the_model(chinese: None) -> None:
    error = classify(status_error(401, error_body("Incorrect API key provided")), secrets=[KEY])
    assert error.kind == "auth" and "API 密钥" in error.message and "（401）" in error.message
    assert error.english == "The API key was refused (401). Check the key in Settings → Models."
    retry = Retrying(attempt=1, delay=3.0, reason=classify(status_error(503)).message, attempts=4)
    assert "服务器发生内部错误（503）" in retry.text(3.0) and "3 秒后重试" in retry.text(3.0)
