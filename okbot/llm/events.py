"""The typed events a provider's stream yields, in the order a consumer sees them.

A stream is any mix of :class:`ReasoningDelta`, :class:`TextDelta`, :class:`ToolCallDelta`,
:class:`Degraded` and :class:`Retrying`, then the assembled :class:`ToolCallDone` calls (index order), one
:class:`UsageEvent`, and exactly one terminal event: :class:`Done` or :class:`ErrorEvent`.
After an :class:`ErrorEvent` the text already yielded stays valid (the UI keeps it as an
interrupted reply); no usage is promised in that case.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from okbot.i18n import translate

if TYPE_CHECKING:
    from okbot.llm.errors import ProviderError


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's reply text, to append to what came before."""

    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    """A piece of the model's visible reasoning (``reasoning_content``, ``reasoning`` or an inline
    ``<think>`` block): shown folded, stored apart from the answer, never sent back to the model."""

    text: str


@dataclass(frozen=True)
class ToolCallDelta:
    """A fragment of tool call ``index``: id and name usually arrive once, arguments in pieces."""

    index: int
    call_id: str | None
    name: str | None
    arguments: str


@dataclass(frozen=True)
class ToolCallDone:
    """One complete tool call, assembled from its deltas (``arguments`` is the raw JSON text)."""

    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class UsageEvent:
    """Token use of the request; ``estimated`` when the server did not report it.

    A provider reports only what the server said: an estimated event from it carries zeros, and the
    turn that sent the request fills in OkBot's own count (:func:`okbot.core.turn.stream.stream_round`),
    so one tokenizer estimates every figure the user sees."""

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int | None
    estimated: bool


@dataclass(frozen=True)
class Degraded:
    """A capability the server lacks, and what OkBot does instead (shown once, quietly)."""

    feature: str
    message: str


@dataclass(frozen=True)
class Retrying:
    """A failed attempt that will be retried after ``delay`` seconds.

    ``attempt`` is the attempt that failed (counting from 1), ``reason`` what went wrong in the
    user's words (without the wait), ``attempts`` how many attempts there are at most (0: unknown).
    :meth:`text` says it all in one sentence for a given time left, so a countdown stays coherent.
    ``kind`` says what failed, for code (the slots scheduler learns from a cut stream).
    """

    attempt: int
    delay: float
    reason: str
    attempts: int = 0
    kind: str = ""  # the failed attempt's ProviderError kind (``cut``: the stream ended before the reply)

    @property
    def message(self) -> str:
        """The sentence as the wait starts."""
        return self.text(self.delay)

    def text(self, remaining: float) -> str:
        """``The server is busy (503) — retrying in 3 s (attempt 2 of 4).`` with ``remaining`` seconds left."""
        reason = self.reason.strip().rstrip(".…。") or translate("events", "The request failed")
        if remaining >= 1:
            when = translate("events", "retrying in {seconds} s").format(seconds=math.ceil(remaining - 0.05))
        elif remaining > 0:
            when = translate("events", "retrying in a moment")
        else:
            when = translate("events", "retrying now")
        if self.attempts > self.attempt:
            template = translate("events", "{reason} — {when} (attempt {attempt} of {attempts}).")
        else:
            template = translate("events", "{reason} — {when} (attempt {attempt}).")
        return template.format(reason=reason, when=when, attempt=self.attempt + 1, attempts=self.attempts)


@dataclass(frozen=True)
class Waiting:
    """A chat request waits for the model: another chat (or a scheduled job) holds every slot of its server.

    Not part of a stream: the slots scheduler tells the waiting turn through its ``on_wait``."""

    message: str


@dataclass(frozen=True)
class Done:
    """The reply ended; ``finish_reason`` is the server's (``"cancelled"`` when the user stopped it)."""

    finish_reason: str | None


@dataclass(frozen=True)
class ErrorEvent:
    """The reply failed for good; ``error.message`` is for the user. Always the last event."""

    error: ProviderError


Event = TextDelta | ReasoningDelta | ToolCallDelta | ToolCallDone | UsageEvent | Degraded | Retrying | Done | ErrorEvent

TERMINAL_EVENTS = (Done, ErrorEvent)
