"""What a turn reports while it runs (:class:`TurnCallbacks`) and what it did (:class:`TurnResult`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from okbot.llm.events import Degraded
from okbot.storage.errors import OkBotError


def noop(*_args: Any) -> None:
    return None


@dataclass
class TurnCallbacks:
    """How a turn reports progress. The UI adapts these into Qt signals; the CLI prints."""

    on_item: Callable[[dict[str, Any]], None] = noop  # every item appended, in order
    on_delta: Callable[[str], None] = noop  # streamed reply text
    on_event: Callable[[Any], None] = noop  # provider events: Retrying, Degraded, UsageEvent, ReasoningDelta
    ask_approval: Callable[[str, dict[str, Any]], bool] | None = None  # for tools set to "ask"
    on_compressing: Callable[[], None] = noop  # the request waits for the summarizer (a compression)
    on_compressed: Callable[[Any], None] = noop  # what the compression before the request did (its report)
    on_evolved: Callable[[list[Any]], None] = noop  # persona and skill changes that landed before the request


@dataclass
class TurnResult:
    """What a turn did."""

    status: str  # complete | interrupted | error | abandoned (OkBot quit while it waited for an approval)
    items: list[dict[str, Any]] = field(default_factory=list)  # appended by the turn (after the user message)
    user_id: int = 0  # the user message this turn answered
    error: OkBotError | None = None
    degraded: list[Degraded] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    rounds: int = 0

    @property
    def reply_text(self) -> str:
        return "".join(it["content"] for it in self.items if it.get("type") == "assistant")


class TurnAbandoned(Exception):  # noqa: N818 - a way out, not an error
    """OkBot quits while the turn waits for the user's approval: the turn ends here, writing nothing more, and the
    call waits on disk for the next start (:mod:`okbot.core.turn.pending`)."""


class FinishedTurn(OkBotError):
    """A retry asked of a turn that already ended with a whole reply (a new version of it is a regeneration)."""
