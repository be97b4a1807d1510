"""How a turn runner is put together: compression before each run and inside it, memory wrap-up after it.

One place, so the desktop app, the CLI and the benchmarks run turns the same way.
"""

from __future__ import annotations

from typing import Any

from okbot.core.compression import Compressor
from okbot.core.memory.keeper import MemoryKeeper
from okbot.core.runner import TurnRunner


def make_compressor(sources: Any, provider: Any, keeper: MemoryKeeper | None = None) -> Compressor:
    """A compressor whose coverage advances feed ``keeper``'s memory extraction."""
    return Compressor(sources, provider, on_coverage_advanced=keeper.on_coverage_advanced if keeper else None)


def make_turn_runner(sources: Any, provider: Any, keeper: MemoryKeeper | None = None) -> TurnRunner:
    """read disk (maybe compress; recall) -> chat, each later round made to fit -> wrap up (``keeper``, in
    the background)."""
    compressor = make_compressor(sources, provider, keeper)
    return TurnRunner(
        sources,
        provider,
        before_run=compressor.before_run,
        within_turn=compressor.within_turn,
        after_run=keeper.after_run if keeper else None,
    )
