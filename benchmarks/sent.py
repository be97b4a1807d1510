"""What OkBot sent: a provider wrapper that records every request, and the documented token estimate.

The benchmarks that judge context management count from what was *sent*, not from what the app believed
it sent, so the count is independent of OkBot's own tiktoken estimate and calibration:

**The estimate** (:func:`estimate_tokens`) is plain arithmetic, the same on every machine: per message 4
tokens of chat template, plus its text at one token per 3.5 ASCII characters (a little denser than
tiktoken's ~4 for English, closer to what a local model's tokenizer spends) and one token per other
character; an assistant message's tool calls by the characters of their names and arguments; the tools
offered by the characters of their JSON; 3 tokens to open the reply. It is the rule the fake server's
window enforcement counts with, and is computed by it (:func:`tests.helpers.fake_windows.fake_prompt_tokens`),
so a request the fake refuses is one this estimate puts over the window. Where the server reports
``usage.prompt_tokens`` (its own tokenizer), that exact count is kept beside the estimate.

:class:`Recorder` wraps any provider (a :class:`~okbot.llm.providers.ProviderPool`, an
``OpenAIProvider``): ``stream`` and ``complete`` are recorded and passed on; every other attribute is the
wrapped provider's, so schedulers, capability memories and the like work through it unchanged. For real
models on a slow machine it can cap chat replies (``chat_max_tokens``); OkBot's own calls are never touched.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.helpers.fake_windows import fake_prompt_tokens

# The servers' words when a request is over their window (OpenAI, llama.cpp, llama-cpp-python, vLLM), and
# OkBot's own plain message for such a refusal once it knows the kind.
TOO_LONG = re.compile(
    r"context[_ ]length|context size|context window|maximum context|exceeds? the available|too (long|large)",
    re.IGNORECASE,
)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text") or "") for p in content if isinstance(p, dict))
    return ""


def message_text(message: dict[str, Any]) -> str:
    """A message's text and its tool calls' names and arguments, as one string."""
    parts = [_content_text(message.get("content"))]
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            parts.append(f"{function.get('name') or ''} {function.get('arguments') or ''}")
    return "\n".join(p for p in parts if p)


def estimate_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """The documented estimate of a request's prompt tokens (see the module docstring)."""
    return fake_prompt_tokens({"messages": messages, "tools": tools}) or 0


@dataclass
class Sent:
    """One request OkBot sent and how it ended."""

    kind: str  # chat | summary | warm-up | own (topic check, memory, upkeep)
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    tokens: int  # the documented estimate
    started: float
    reported: int | None = None  # usage.prompt_tokens the server reported
    cached: int | None = None  # of those, the prompt tokens the server reported as cached (None: not reported)
    reply: str = ""
    error: str = ""
    error_kind: str = ""  # ProviderError.kind, e.g. "context_length" where OkBot knows that kind
    retries: list[str] = field(default_factory=list)  # the Retrying messages seen while it streamed
    first_token: float | None = None
    ended: float | None = None

    @property
    def refused_as_too_long(self) -> bool:
        return self.error_kind == "context_length" or (bool(self.error) and bool(TOO_LONG.search(self.error)))

    @property
    def text(self) -> str:
        """Everything the request showed the model, as one string."""
        return "\n".join(message_text(m) for m in self.messages)


def request_kind(request: Any) -> str:
    """Which of OkBot's calls ``request`` (a ChatRequest) is."""
    if not request.background:
        return "chat"
    if request.max_tokens == 1:
        return "warm-up"
    if any("PREVIOUS SUMMARY:" in _content_text(m.get("content")) for m in request.messages):
        return "summary"
    return "own"


def _describe(error: BaseException) -> tuple[str, str]:
    """``(message and the server's own words, kind)`` of a failed request."""
    text = str(error) or type(error).__name__
    detail = str(getattr(error, "detail", "") or "")
    if detail and detail not in text:
        text += f" | {detail}"
    return text, str(getattr(error, "kind", "") or "")


_LOG_LOCK = threading.Lock()


class Recorder:
    """A provider that records every request it passes on into ``sent`` (thread-safe: background calls record
    too; pass one ``log`` to several recorders, as the app builds a provider per job)."""

    def __init__(
        self, inner: Any, log: list[Sent] | None = None, clock: Any = time.monotonic, chat_max_tokens: int | None = None
    ) -> None:
        self.inner = inner
        self.clock = clock
        # a cap on chat replies, for real models on a slow machine: a 1.5B model asked to "triage a queue of
        # 40 bugs" writes for ten minutes at two tokens a second; context management is what is measured
        self.chat_max_tokens = chat_max_tokens
        self.sent: list[Sent] = log if log is not None else []  # several recorders may share one log
        self._lock = _LOG_LOCK

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _note(self, request: Any) -> Sent:
        sent = Sent(
            kind=request_kind(request),
            messages=list(request.messages),
            tools=request.tools,
            tokens=estimate_tokens(request.messages, request.tools),
            started=self.clock(),
        )
        with self._lock:
            self.sent.append(sent)
        return sent

    def stream(self, request: Any, cancel: Any = None) -> Iterator[Any]:
        from okbot.llm.events import ErrorEvent, Retrying, TextDelta, ToolCallDelta, UsageEvent

        if self.chat_max_tokens and not request.background and request.max_tokens is None:
            request = dataclasses.replace(request, max_tokens=self.chat_max_tokens)
        sent = self._note(request)
        try:
            for event in self.inner.stream(request, cancel):
                if isinstance(event, TextDelta | ToolCallDelta) and sent.first_token is None:
                    sent.first_token = self.clock()
                if isinstance(event, TextDelta):
                    sent.reply += event.text
                elif isinstance(event, UsageEvent) and not event.estimated:
                    sent.reported, sent.cached = event.prompt_tokens, event.cached_tokens
                elif isinstance(event, Retrying):
                    sent.retries.append(event.message)
                elif isinstance(event, ErrorEvent):
                    sent.error, sent.error_kind = _describe(event.error)
                yield event
        finally:
            sent.ended = self.clock()

    def complete(self, request: Any, cancel: Any = None) -> str:
        sent = self._note(request)
        try:
            reply = self.inner.complete(request, cancel)
        except Exception as exc:
            sent.error, sent.error_kind = _describe(exc)
            raise
        finally:
            sent.ended = self.clock()
        sent.reply = reply
        return reply

    def of_kind(self, *kinds: str) -> list[Sent]:
        with self._lock:
            return [s for s in self.sent if s.kind in kinds]
