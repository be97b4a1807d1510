"""One streamed request: its text, reasoning, tool calls and usage collected as they arrive.

:func:`stream_round` redacts what it shows (a key the model echoes is never shown, and is stored redacted
too) and times the model's reasoning apart from its answer.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from okbot.core.projection import ContextProjection
from okbot.core.tokens import counter_for_encoding
from okbot.core.turn.timing import FIRST_TOKEN, STREAMING, TurnTiming
from okbot.llm import keys
from okbot.llm.events import (
    Degraded,
    Done,
    ErrorEvent,
    ReasoningDelta,
    Retrying,
    TextDelta,
    ToolCallDelta,
    ToolCallDone,
    UsageEvent,
)
from okbot.llm.provider import CancelToken, ChatRequest, Provider
from okbot.storage.errors import OkBotError


@dataclass
class Round:
    """What one streamed request produced."""

    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    reasoning_seconds: float = 0.0  # from the first piece of reasoning to the first of the answer
    calls: list[ToolCallDone] = field(default_factory=list)
    usage: UsageEvent | None = None
    error: OkBotError | None = None

    def reasoning_fields(self) -> dict[str, Any]:
        """The assistant item's ``reasoning`` and ``reasoningSeconds`` (none when the model showed none).

        Stored apart from ``content``: it is never sent back, summarized or mined for memories."""
        text = "".join(self.reasoning)
        if not text.strip():
            return {}
        return {"reasoning": text, "reasoningSeconds": round(self.reasoning_seconds, 1)}


@dataclass(frozen=True)
class OwnCount:
    """OkBot's own count of one request, for a server that reports no usage: the prompt as counted
    when it was built, and the tokenizer that counted it, for what the model produced."""

    prompt_tokens: int
    count_text: Callable[[str], int]

    def usage(self, rnd: Round) -> UsageEvent:
        """The estimated use of ``rnd``: reasoning counts as completion (the server spent it, though it
        is never sent back), and so do the tool calls' names and arguments."""
        produced = "".join(rnd.text) + "".join(rnd.reasoning) + "".join(c.name + c.arguments for c in rnd.calls)
        return UsageEvent(self.prompt_tokens, self.count_text(produced), None, True)


def own_count(proj: ContextProjection, extra: Sequence[dict[str, Any]] = ()) -> OwnCount:
    """The count of a request built from ``proj`` and then ``extra`` messages (a squad member's own tool
    rounds), calibrated like the projection, by the tokenizer that counted the projection."""
    counter = counter_for_encoding(proj.encoding)
    extra_tokens = sum(counter.count_message(_message_text(m), str(m.get("role") or "user")) for m in extra)
    return OwnCount(round((proj.total_tokens + extra_tokens) * proj.calibration_factor), counter.count_text)


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content or "", ensure_ascii=False, default=str)
    calls = message.get("tool_calls")
    return text + (json.dumps(calls, ensure_ascii=False, default=str) if calls else "")


def usage_fields(usage: UsageEvent | None) -> dict[str, Any] | None:
    """What the provider reported of a request's token use, as items and the as-sent record keep it."""
    if usage is None:
        return None
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "cached_tokens": usage.cached_tokens,
        "estimated": usage.estimated,
    }


_FIRST_TOKENS = (TextDelta, ReasoningDelta, ToolCallDelta, ToolCallDone)  # what ends the wait for the model


class _Thoughts:
    """The reasoning of one round as it streams: kept, timed, and shown redacted when someone listens."""

    def __init__(
        self, rnd: Round, on_reasoning: Callable[[ReasoningDelta], None] | None, clock: Callable[[], float]
    ) -> None:
        self._rnd = rnd
        self._report = on_reasoning
        self._clock = clock
        self._shown = keys.StreamRedactor()
        self._since: float | None = None

    def feed(self, piece: str) -> None:
        if self._since is None:
            self._since = self._clock()
        self._rnd.reasoning.append(piece)
        if self._report is not None and (text := self._shown.feed(piece)):
            self._report(ReasoningDelta(text))

    def stop(self) -> None:
        """The answer (or a tool call) began, or the stream ended: thinking time stops counting."""
        if self._since is not None:
            self._rnd.reasoning_seconds += self._clock() - self._since
            self._since = None

    def flush(self) -> None:
        self.stop()
        if self._report is not None and (rest := self._shown.flush()):
            self._report(ReasoningDelta(rest))


def stream_round(
    provider: Provider,
    request: ChatRequest,
    cancel: CancelToken,
    on_delta: Callable[[str], None],
    on_event: Callable[[Any], None],
    degraded: list[Degraded],
    own_count: OwnCount,
    on_reasoning: Callable[[ReasoningDelta], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    timing: TurnTiming | None = None,
) -> Round:
    """Stream one request, collecting text, reasoning, tool calls, usage and the error if it broke.

    Reasoning is reported to ``on_reasoning`` (redacted like the text) when given, else only kept.
    Usage the server did not report is filled in from ``own_count``. ``timing`` is told the wait for the
    first thing the model sends (``first_token``) and the stream from there (``streaming``); none: a member
    asked by the captain (its call's span has the time)."""
    rnd = Round()
    shown = keys.StreamRedactor()  # a key the model echoes is never shown (it is stored redacted too)
    thoughts = _Thoughts(rnd, on_reasoning, clock)
    waiting = timing is not None  # for the first thing the model sends
    with timing.span(FIRST_TOKEN) if timing is not None else contextlib.nullcontext():
        for event in provider.stream(request, cancel):
            if waiting and timing is not None and isinstance(event, _FIRST_TOKENS):
                waiting = False
                timing.switch(STREAMING)
            if isinstance(event, ReasoningDelta):
                thoughts.feed(event.text)
                continue
            if isinstance(event, (TextDelta, ToolCallDelta, ToolCallDone)):
                thoughts.stop()
            if isinstance(event, TextDelta):
                rnd.text.append(event.text)
                if text := shown.feed(event.text):
                    on_delta(text)
            elif isinstance(event, ToolCallDone):
                rnd.calls.append(event)
            elif isinstance(event, UsageEvent):
                rnd.usage = own_count.usage(rnd) if event.estimated else event
                on_event(rnd.usage)
            elif isinstance(event, ErrorEvent):
                rnd.error = event.error
            elif isinstance(event, Degraded):
                degraded.append(event)
                on_event(event)
            elif isinstance(event, Retrying):
                on_event(event)
            elif isinstance(event, Done):
                pass
    thoughts.flush()
    if rest := shown.flush():
        on_delta(rest)
    return rnd
