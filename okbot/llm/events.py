"""The typed events a provider's stream yields, in the order a consumer sees them.

A stream is any mix of :class:`TextDelta`, :class:`ToolCallDelta`, :class:`Degraded` and
:class:`Retrying`, then the assembled :class:`ToolCallDone` calls (index order), one
:class:`UsageEvent`, and exactly one terminal event: :class:`Done` or :class:`ErrorEvent`.
After an :class:`ErrorEvent` the text already yielded stays valid (the UI keeps it as an
interrupted reply); no usage is promised in that case.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from okbot.llm.errors import ProviderError


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's reply text, to append to what came before."""

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
    """Token use of the request; ``estimated`` when the server did not report it."""

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
    """A failed attempt that will be retried after ``delay`` seconds (``attempt`` counts from 1)."""

    attempt: int
    delay: float
    message: str


@dataclass(frozen=True)
class Done:
    """The reply ended; ``finish_reason`` is the server's (``"cancelled"`` when the user stopped it)."""

    finish_reason: str | None


@dataclass(frozen=True)
class ErrorEvent:
    """The reply failed for good; ``error.message`` is for the user. Always the last event."""

    error: ProviderError


Event = TextDelta | ToolCallDelta | ToolCallDone | UsageEvent | Degraded | Retrying | Done | ErrorEvent

TERMINAL_EVENTS = (Done, ErrorEvent)
