"""What a turn runs against: the context sources, the provider, the compression hooks and the clock.

One value handed to each part of a turn (its rounds, its tools, its squad members), so none of them needs
the runner that made it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from okbot.core.workspace import Target
from okbot.llm.provider import Provider

if TYPE_CHECKING:
    from okbot.core.sources import ContextSources


class Compression(Protocol):
    """The compression a turn asks for (:class:`okbot.core.compression.Compressor` is the one OkBot has)."""

    def before_run(
        self, target: Target, pending_text: str | None, on_start: Callable[[], None] | None = None
    ) -> Any | None:
        """Before the first request: fold older turns when the request would not fit; its report, or None.

        Raises OkBotError only when the request cannot fit at all."""

    def within_turn(
        self,
        target: Target,
        current: Sequence[int],
        *,
        on_start: Callable[[], None] | None = None,
        window: int | None = None,
    ) -> Any:
        """Before rounds 2 on (or after a refusal as too long): the request made to fit (a ``TurnFit``)."""


@dataclass(frozen=True)
class TurnEnv:
    """The long-lived parts one turn uses; ``compression`` None runs turns without folding anything."""

    sources: ContextSources
    provider: Provider
    compression: Compression | None = None
    clock: Callable[[], float] = field(default=time.monotonic)  # the turn's tool-time budget is measured with it
