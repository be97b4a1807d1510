"""How a turn runner is put together: compression before each run and inside it; after it, the card for what
the user taught (:mod:`okbot.core.evolution.offers`) and the memory wrap-up.

One place, so the application (:class:`okbot.app.app.OkBotApp`, which holds the one runner and compressor of a
process), the benchmarks and the tests run turns the same way.
"""

from __future__ import annotations

from typing import Any

from okbot.core.compression.compressor import Compressor
from okbot.core.evolution.offers import offer_after_turn
from okbot.core.memory.keeper import MemoryKeeper
from okbot.core.turn.outcome import TurnResult
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Target


def make_compressor(sources: Any, provider: Any, keeper: MemoryKeeper | None = None) -> Compressor:
    """A compressor whose coverage advances feed ``keeper``'s memory extraction."""
    return Compressor(sources, provider, on_coverage_advanced=keeper.on_coverage_advanced if keeper else None)


def make_turn_runner(
    sources: Any, provider: Any, keeper: MemoryKeeper | None = None, compressor: Compressor | None = None
) -> TurnRunner:
    """read disk (maybe compress; recall) -> chat, each later round made to fit -> offer what the user taught ->
    wrap up (``keeper``, in the background)."""
    compressor = compressor or make_compressor(sources, provider, keeper)

    def after_run(target: Target, result: TurnResult) -> None:
        # the card is written first, in the turn's thread: it follows the reply in the record, and the
        # keeper's upkeep, which runs after, already knows the message is the card's
        offer_after_turn(sources, target, result)
        if keeper is not None:
            keeper.after_run(target, result)

    return TurnRunner(sources, provider, compression=compressor, after_run=after_run)
