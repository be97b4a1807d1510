"""Small shared helpers for benchmarks: timing, tables, environment."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def setup_env(home: Path) -> None:
    """Private data dir; exact counts from the encodings bundled in resources/tiktoken, never a download."""
    os.environ["OKBOT_HOME"] = str(home)
    os.environ.setdefault("OKBOT_TIKTOKEN_DOWNLOAD", "0")


def bench_dir() -> Path:
    """Where generated sessions are cached between runs (``OKBOT_BENCH_DIR``, default /tmp)."""
    path = Path(os.environ.get("OKBOT_BENCH_DIR", "/tmp/okbot-bench"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_ms(fn: Callable[[], object], repeat: int, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    return statistics.median(timed(fn) for _ in range(repeat)) * 1000


def table(title: str, header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def fmt(cells: list[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([f"\n### {title}", fmt(header), sep, *(fmt(row) for row in rows)])
