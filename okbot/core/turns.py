"""How a turn runner is put together: compression before each run and inside it; after it, the card for what
the user taught (:mod:`okbot.core.evolution.offers`) and the memory wrap-up.

One place, so the desktop app, the CLI and the benchmarks run turns the same way.
"""

from __future__ import annotations

from typing import Any

from okbot.core.compression.compressor import Compressor
from okbot.core.evolution.offers import offer_after_turn
from okbot.core.memory.keeper import MemoryKeeper
from okbot.core.runner import TurnResult, TurnRunner
from okbot.core.workspace import Target


def make_compressor(sources: Any, provider: Any, keeper: MemoryKeeper | None = None) -> Compressor:
    """A compressor whose coverage advances feed ``keeper``'s memory extraction."""
    return Compressor(sources, provider, on_coverage_advanced=keeper.on_coverage_advanced if keeper else None)


def make_turn_runner(sources: Any, provider: Any, keeper: MemoryKeeper | None = None) -> TurnRunner:
    """read disk (maybe compress; recall) -> chat, each later round made to fit -> offer what the user taught ->
    wrap up (``keeper``, in the background)."""
    compressor = make_compressor(sources, provider, keeper)

    def after_run(target: Target, result: TurnResult) -> None:
        # the card is written first, in the turn's thread: it follows the reply in the record, and the
        # keeper's upkeep, which runs after, already knows the message is the card's
        offer_after_turn(sources, target, result)
        if keeper is not None:
            keeper.after_run(target, result)

    return TurnRunner(
        sources,
        provider,
        before_run=compressor.before_run,
        within_turn=compressor.within_turn,
        after_run=after_run,
    )
