"""Provider failures: one table from SDK/HTTP exceptions and status codes to what the user reads.

:func:`classify` is the only place that decides whether a failure is worth retrying and what
message it gets. Messages never contain the API key: every text that came from the server
goes through :func:`okbot.llm.keys.redact` first.
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import openai

from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.llm.keys import redact
from okbot.storage.errors import OkBotError

_DETAIL_CHARS = 300


class ProviderError(OkBotError):
    """A failed model request, with a user-facing message.

    ``kind`` is a short stable name (``auth``, ``rate_limit``, ``cut``, ...); ``retryable`` says
    whether trying again may help; ``status`` is the HTTP status when there was one;
    ``retry_after`` the server's requested wait in seconds; ``detail`` the server's own message
    (redacted), used to recognise capability problems such as an unsupported parameter.
    ``message`` is in the user's language; ``english`` is the same text in English, for any place
    that writes the failure where the model reads it (a squad member's failure note to its captain).
    A ``context_length`` refusal carries the server's ``window`` and the ``prompt_tokens`` it counted, when
    its words say them.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        retryable: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
        detail: str = "",
        hint: str = "",
        english: str = "",
        window: int | None = None,
        prompt_tokens: int | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.english = english or message
        self.kind = kind
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.detail = detail
        self.window = window
        self.prompt_tokens = prompt_tokens

    def __repr__(self) -> str:
        return f"ProviderError(kind={self.kind!r}, status={self.status!r}, message={self.message!r})"


# ---------------------------------------------------------------- markers raised by the backend


class StreamCut(Exception):
    """The connection ended before the reply did (raised by the backend, classified as ``cut``)."""


class MalformedReply(Exception):
    """The server's reply could not be read (classified as ``malformed``)."""


class ReplyTooLong(Exception):
    """The reply went on past the total-duration guard (classified as ``timeout``)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"reply longer than {seconds:g} s")
        self.seconds = seconds


class ReplyTooLarge(Exception):
    """The reply grew past the size guard (classified as ``too_big``): the model is looping or broken."""

    def __init__(self, chars: int) -> None:
        super().__init__(f"reply longer than {chars:,} characters")
        self.chars = chars


class NoAnswer(Exception):
    """The model hit its token limit before writing any answer (classified as ``no_answer``).

    Reasoning models spend hidden tokens out of the same cap; ``tokens`` and ``reasoning`` are what
    the server reported spending, when it did.
    """

    def __init__(self, tokens: int | None = None, reasoning: int | None = None) -> None:
        spent = f"{tokens:,} tokens" if tokens is not None else ""
        if tokens is not None and reasoning:
            spent += f", {reasoning:,} of them hidden reasoning"
        super().__init__(spent)
        self.tokens = tokens
        self.reasoning = reasoning


class NoKey(Exception):
    """The server needs an API key and none is set (classified as ``no_key``, before any request)."""

    def __init__(self, base_url: str, var: str = "") -> None:
        super().__init__(base_url)
        self.var = var  # the variable the provider reads its key from ("": OKBOT_API_KEY, the default)
        parts = urlsplit(base_url)
        try:
            port = parts.port
        except ValueError:
            port = None
        self.host = (parts.hostname or base_url) + (f":{port}" if port and parts.hostname else "")


# ---------------------------------------------------------------- the table


@dataclass(frozen=True)
class _Rule:
    kind: str
    retryable: bool
    message: str  # English, marked for translation; str.format fields: status, detail, model, host, seconds…


STATUS_RULES: dict[int, _Rule] = {
    400: _Rule("bad_request", False, QT_TRANSLATE_NOOP("errors", "The server refused the request (400): {detail}")),
    401: _Rule(
        "auth", False, QT_TRANSLATE_NOOP("errors", "The API key was refused (401). Check the key in Settings → Models.")
    ),
    403: _Rule(
        "forbidden",
        False,
        QT_TRANSLATE_NOOP("errors", "The server denied access (403): {detail} Check that the key may use this model."),
    ),
    404: _Rule(
        "not_found",
        False,
        QT_TRANSLATE_NOOP(
            "errors",
            "The model {model} was not found on this server (404). "
            "Check the model name and the base URL in Settings → Models.",
        ),
    ),
    408: _Rule("timeout", True, QT_TRANSLATE_NOOP("errors", "The server timed out waiting for the request (408).")),
    409: _Rule("conflict", True, QT_TRANSLATE_NOOP("errors", "The server reported a conflict (409).")),
    413: _Rule(
        "context_length",
        False,
        QT_TRANSLATE_NOOP(
            "errors",
            "The request is too large for this server (413). Compress the conversation or "
            "choose a model with a larger context window.",
        ),
    ),
    422: _Rule(
        "bad_request", False, QT_TRANSLATE_NOOP("errors", "The server could not process the request (422): {detail}")
    ),
    429: _Rule("rate_limit", True, QT_TRANSLATE_NOOP("errors", "The server is rate limiting requests (429).")),
}
SERVER_ERROR_RULE = _Rule("server", True, QT_TRANSLATE_NOOP("errors", "The server had an internal error ({status})."))
OTHER_STATUS_RULE = _Rule(
    "http", False, QT_TRANSLATE_NOOP("errors", "The server answered with an error ({status}): {detail}")
)
QUOTA_RULE = _Rule(
    "quota",
    False,
    QT_TRANSLATE_NOOP("errors", "The account has no quota left (429). Check the plan or billing of this API key."),
)
CONTEXT_LENGTH_RULES: dict[tuple[bool, bool], _Rule] = {  # (window known, prompt known) -> rule
    (True, True): _Rule(
        "context_length",
        False,
        QT_TRANSLATE_NOOP(
            "errors",
            "The request is too long for this model: the server counted {prompt} tokens against its context "
            "window of {window}. Compress the conversation or choose a model with a larger window.",
        ),
    ),
    (True, False): _Rule(
        "context_length",
        False,
        QT_TRANSLATE_NOOP(
            "errors",
            "The request is too long for this model's context window of {window} tokens. Compress the "
            "conversation or choose a model with a larger window.",
        ),
    ),
    (False, False): _Rule(
        "context_length",
        False,
        QT_TRANSLATE_NOOP(
            "errors",
            "The request is too long for this model's context window. Compress the conversation or choose a "
            "model with a larger window.",
        ),
    ),
}
CONTEXT_LENGTH_RULES[(False, True)] = CONTEXT_LENGTH_RULES[(False, False)]
NOT_FOUND_NO_MODEL_RULE = _Rule(
    "not_found",
    False,
    QT_TRANSLATE_NOOP(
        "errors", "The server has no such endpoint (404). Check the model name and the base URL in Settings → Models."
    ),
)

EXCEPTION_RULES: dict[str, _Rule] = {
    "timeout": _Rule("timeout", True, QT_TRANSLATE_NOOP("errors", "The server did not answer in time.")),
    "connection": _Rule(
        "connection",
        True,
        QT_TRANSLATE_NOOP("errors", "Could not reach the server. Check the base URL and the network connection."),
    ),
    "connection_at": _Rule(
        "connection",
        True,
        QT_TRANSLATE_NOOP(
            "errors", "Could not reach the server at {host}. Check the base URL and the network connection."
        ),
    ),
    "cut": _Rule("cut", True, QT_TRANSLATE_NOOP("errors", "The connection dropped mid-reply.")),
    "malformed": _Rule(
        "malformed", False, QT_TRANSLATE_NOOP("errors", "The server sent a reply OkBot could not read.")
    ),
    "too_long": _Rule(
        "timeout",
        False,
        QT_TRANSLATE_NOOP("errors", "The reply went on for more than {seconds} seconds and was stopped."),
    ),
    "too_big": _Rule(
        "too_big",
        False,
        QT_TRANSLATE_NOOP("errors", "The reply grew past {chars} characters and was stopped (kept up to there)."),
    ),
    "no_answer": _Rule(
        "no_answer",
        False,
        QT_TRANSLATE_NOOP(
            "errors", "The model reached its token limit before writing any answer (finish_reason 'length')."
        ),
    ),
    "no_answer_spent": _Rule(
        "no_answer",
        False,
        QT_TRANSLATE_NOOP(
            "errors",
            "The model reached its token limit before writing any answer "
            "(finish_reason 'length'; it spent {tokens} tokens).",
        ),
    ),
    "no_answer_reasoning": _Rule(
        "no_answer",
        False,
        QT_TRANSLATE_NOOP(
            "errors",
            "The model reached its token limit before writing any answer (finish_reason 'length'; "
            "it spent {tokens} tokens, {reasoning} of them hidden reasoning).",
        ),
    ),
    "no_key": _Rule(
        "no_key",
        False,
        QT_TRANSLATE_NOOP("errors", "No API key for {key_host}. Add one in Settings → Models, or set OKBOT_API_KEY."),
    ),
    "no_key_var": _Rule(
        "no_key",
        False,
        QT_TRANSLATE_NOOP("errors", "No API key for {key_host}: set {key_var}, where this provider reads its key."),
    ),
    "unknown": _Rule("unknown", False, QT_TRANSLATE_NOOP("errors", "The request failed: {detail}")),
}


def _server_message(body: Any) -> str:
    """The server's whole message from an error body (``{"error": {"message": ...}}`` and variants), or ""."""
    message: Any = None
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            message = error.get("message") or error.get("detail")
        elif isinstance(error, str):
            message = error
        if not message:
            message = body.get("message") or body.get("detail")
    elif isinstance(body, str) and body.strip():
        message = body
    return " ".join(message.split()) if isinstance(message, str) else ""


def _server_detail(body: Any, fallback: str) -> str:
    """The server's own message, shortened for a message the user reads."""
    text = _server_message(body) or " ".join(fallback.split())
    if len(text) > _DETAIL_CHARS:
        text = text[: _DETAIL_CHARS - 1] + "…"
    return text


def _error_code(body: Any) -> str:
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            for field in ("code", "type"):
                value = error.get(field)
                if isinstance(value, str):
                    return value
    return ""


# What servers call a request over the context window (codes and types as they send them, lower case) and
# the words they say it in; the window and the prompt are read from the same words when they state them.
_CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error"})
_CONTEXT_WORDS = re.compile(
    r"maximum context length|exceeds? the available context size|larger than the max context size"
    r"|context length is only|exceed context window|context window exceeds|context_length_exceeded",
    re.IGNORECASE,
)
_WINDOW_WORDS = (
    re.compile(r"maximum context length is (\d[\d,]*) tokens", re.IGNORECASE),  # OpenAI, vLLM, llama-cpp-python
    re.compile(r"available context size \((\d+) tokens\)", re.IGNORECASE),  # llama.cpp
    re.compile(r"max context size \((\d+) tokens\)", re.IGNORECASE),  # llama.cpp, unsplittable input
    re.compile(r"context length is only (\d+) tokens", re.IGNORECASE),  # vLLM 0.18+
    re.compile(r"exceed context window of (\d+)", re.IGNORECASE),  # llama-cpp-python's own ValueError
)
_PROMPT_WORDS = (
    re.compile(r"\((\d+) in the messages", re.IGNORECASE),
    re.compile(r"your messages resulted in (\d+) tokens", re.IGNORECASE),
    re.compile(r"your request has (\d+) input tokens", re.IGNORECASE),
    re.compile(r"you requested (\d+) tokens in the messages", re.IGNORECASE),
    re.compile(r"prompt contains (?:at least )?(\d+) input tokens", re.IGNORECASE),
    re.compile(r"you passed (\d+) input tokens", re.IGNORECASE),
    re.compile(r"(?:request|input) \((\d+) tokens\)", re.IGNORECASE),
    re.compile(r"requested tokens \((\d+)\)", re.IGNORECASE),
)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _first_number(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return _count(int(found.group(1).replace(",", "")))
    return None


def context_length_of(status: int, body: Any) -> tuple[int | None, int | None] | None:
    """``(window, prompt tokens)`` when an error answer refuses a request over the context window (either may
    be None: not stated), else None. Every 413 counts: a server or proxy refusing a body for its size."""
    if status == 413:
        window = prompt = None
    elif status in (400, 422):
        error = body.get("error", body) if isinstance(body, dict) else None
        fields = error if isinstance(error, dict) else {}
        codes = {str(fields.get(name) or "").lower() for name in ("code", "type")}
        text = _server_message(body)
        if not (codes & _CONTEXT_CODES or _CONTEXT_WORDS.search(text)):
            return None
        window = _count(fields.get("n_ctx")) or _first_number(_WINDOW_WORDS, text)
        prompt = _count(fields.get("n_prompt_tokens")) or _first_number(_PROMPT_WORDS, text)
    else:
        return None
    return window, prompt


def parse_retry_after(headers: Any) -> float | None:
    """Seconds from ``retry-after-ms`` / ``retry-after`` (number or HTTP date), else None."""
    if headers is None:
        return None
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            value = float(millis) / 1000
            return value if value >= 0 else None
        raw = headers.get("retry-after")
    except (TypeError, ValueError, AttributeError):
        return None
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        parsed = email.utils.parsedate_tz(raw)
        if parsed is None:
            return None
        value = max(0.0, email.utils.mktime_tz(parsed) - time.time())
    if not math.isfinite(value) or value < 0:
        return None
    return value


def _host_of(exc: BaseException) -> str:
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    if url is None:
        return ""
    parts = urlsplit(str(url))
    try:
        port = parts.port
    except ValueError:
        port = None
    host = (parts.hostname or "") + (f":{port}" if port and parts.hostname else "")
    return host  # never the user:password part


def _status_rule(status: int, body: Any, detail: str, model: str | None) -> _Rule:
    if status == 429 and "quota" in (_error_code(body) + " " + detail).lower():
        return QUOTA_RULE
    if status == 404 and not model:
        return NOT_FOUND_NO_MODEL_RULE
    if status in STATUS_RULES:
        return STATUS_RULES[status]
    if status >= 500:
        return SERVER_ERROR_RULE
    return OTHER_STATUS_RULE


def _build(rule: _Rule, secrets: Iterable[str | None], **fields: Any) -> tuple[str, str, str]:
    """``(message in the user's language, the same in English, detail)``, every secret redacted."""
    detail = fields.get("detail") or ""
    fields.setdefault("detail", "")
    texts = []
    for template in (translate("errors", rule.message), rule.message):
        text = template.format(**fields)
        if template.endswith("{detail}") and not detail:
            text = text.rstrip(": ：").rstrip()
            text += "。" if text and ord(text[-1]) >= 0x2E80 else "."
        texts.append(redact(text, *secrets))
    return texts[0], texts[1], redact(detail, *secrets)


def classify(
    exc: BaseException,
    *,
    model: str | None = None,
    secrets: Iterable[str | None] = (),
) -> ProviderError:
    """Map any failure of a model request to a :class:`ProviderError` (through the tables above).

    ``model`` is named in "not found" messages; every ``secrets`` entry (the API key) is redacted
    from the message and the detail.
    """
    secrets = tuple(secrets)
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        detail = _server_detail(exc.body, exc.message)
        over = context_length_of(status, exc.body)
        window, prompt = over or (None, None)
        if over is not None and status != 413:  # 413 keeps its own words (the status is all it says)
            rule = CONTEXT_LENGTH_RULES[(window is not None, prompt is not None)]
        else:
            rule = _status_rule(status, exc.body, detail, model)
        shown_model = json.dumps(model, ensure_ascii=False) if model else ""
        message, english, safe_detail = _build(
            rule,
            secrets,
            status=status,
            detail=detail,
            model=shown_model,
            window=f"{window:,}" if window else "",
            prompt=f"{prompt:,}" if prompt else "",
        )
        retry_after = parse_retry_after(getattr(exc.response, "headers", None))
        return ProviderError(
            message,
            kind=rule.kind,
            retryable=rule.retryable,
            status=status,
            retry_after=retry_after,
            detail=safe_detail,
            english=english,
            window=window,
            prompt_tokens=prompt,
        )
    if isinstance(exc, ReplyTooLong):
        key = "too_long"
    elif isinstance(exc, ReplyTooLarge):
        key = "too_big"
    elif isinstance(exc, NoAnswer):
        key = "no_answer" if exc.tokens is None else ("no_answer_reasoning" if exc.reasoning else "no_answer_spent")
    elif isinstance(exc, NoKey):
        key = "no_key_var" if exc.var else "no_key"
    elif isinstance(exc, openai.APITimeoutError):
        key = "timeout"
    elif isinstance(exc, StreamCut):
        key = "cut"
    elif isinstance(exc, openai.APIConnectionError):
        key = "connection_at" if _host_of(exc) else "connection"
    elif isinstance(exc, (MalformedReply, openai.APIResponseValidationError, ValueError)):
        key = "malformed"  # json.JSONDecodeError is a ValueError
    else:
        key = "unknown"
    rule = EXCEPTION_RULES[key]
    raw = str(exc) or type(exc).__name__
    if isinstance(exc, openai.APIError) and key == "unknown":
        raw = _server_detail(exc.body, exc.message)
    fields = {
        "detail": raw,
        "host": _host_of(exc),
        "seconds": f"{exc.seconds:g}" if isinstance(exc, ReplyTooLong) else "",
        "chars": f"{exc.chars:,}" if isinstance(exc, ReplyTooLarge) else "",
        "tokens": f"{exc.tokens:,}" if isinstance(exc, NoAnswer) and exc.tokens is not None else "",
        "reasoning": f"{exc.reasoning:,}" if isinstance(exc, NoAnswer) and exc.reasoning else "",
        "key_host": exc.host if isinstance(exc, NoKey) else "",
        "key_var": exc.var if isinstance(exc, NoKey) else "",
    }
    message, english, detail = _build(rule, secrets, **fields)
    return ProviderError(message, kind=rule.kind, retryable=rule.retryable, detail=detail, english=english)
