"""Core foundation figures: open -> tail ready vs a full parse, indexing, build_context, tokens, RSS.

Targets (issue 2): build_context <= 5 ms median at 100k items with a 12-item tail and <= 1.3x its
1k time; tail ready <= 150 ms on a ~100 MB file and >= 10x faster than the full parse; RSS <= 250 MB.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import REPO, bench_dir, median_ms, setup_env, table, timed

SIZES = (1_000, 10_000, 100_000)


def _full_parse(path: Path) -> int:
    count = 0
    with open(path, "rb") as fh:
        for line in fh:
            if line.strip():
                json.loads(line)
                count += 1
    return count


def _session_dir(count: int) -> Path:
    from benchmarks.synth import write_session

    directory = bench_dir() / f"session-{count}"
    write_session(directory, count)
    return directory


def _tail_ready(directory: Path) -> None:
    from okbot.core.session import SessionStore
    from okbot.core.summary import SummaryStore

    summary = SummaryStore(directory / "session-summary.json").load()
    store = SessionStore(directory / "session.jsonl")
    items, found = store.read_after(summary.covered_through_id)
    assert found and items, "tail must be readable"


def _context_ms(directory: Path) -> tuple[float, int, int]:
    """Median build_context time for a workspace whose default assistant holds this session."""
    import shutil

    from okbot.core.context import build_context
    from okbot.core.sources import ContextSources
    from okbot.core.workspace import Workspace

    home = Path(tempfile.mkdtemp(prefix="okbot-bench-home-"))
    ws = Workspace(home)
    target = ws.ensure_default()
    for name in ("session.jsonl", "session-summary.json"):
        link = target.dir / name
        if link.exists():
            link.unlink()
        link.symlink_to(directory / name)
    sources = ContextSources(ws)
    sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
    proj = build_context(target, sources=sources)  # warm-up: index for kept words, token cache
    ms = median_ms(lambda: build_context(target, sources=sources), repeat=200)
    shutil.rmtree(home, ignore_errors=True)
    return ms, len(proj.items), proj.total_tokens


def _tokens_throughput(directory: Path) -> tuple[float, float, int]:
    from okbot.core.session import SessionStore
    from okbot.core.tokens import TokenCounter

    items = list(SessionStore(directory / "session.jsonl").iter_items())
    counter = TokenCounter("o200k_base")
    counter.ensure_loaded(timeout=30)
    chars = sum(len(json.dumps(it, ensure_ascii=False)) for it in items)
    cold = timed(lambda: [counter.count_item(it) for it in items])
    warm = timed(lambda: [counter.count_item(it) for it in items])
    return len(items) / cold, len(items) / warm, chars


def _rss_child(count: int, *, baseline: bool = False) -> float:
    """Peak RSS (MB) of a fresh process that opens the session, indexes it and builds the context.

    ``baseline=True`` only loads the o200k encoding (the floor every OkBot process pays).
    """
    work = (
        "from okbot.core.tokens import TokenCounter; TokenCounter('o200k_base').ensure_loaded(timeout=30)"
        if baseline
        else f"d = _session_dir({count}); SessionStore(d / 'session.jsonl').ensure_index(); _context_ms(d)"
    )
    code = f"""
import resource, sys
sys.path.insert(0, {str(REPO)!r})
from benchmarks.common import setup_env
import tempfile, pathlib
setup_env(pathlib.Path(tempfile.mkdtemp()))
from benchmarks.bench_core import _context_ms, _session_dir
from okbot.core.session import SessionStore
{work}
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def run() -> str:
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-bench-")))
    from okbot.core.session import SessionStore

    rows_open, rows_ctx = [], []
    ctx_ms: dict[int, float] = {}
    for count in SIZES:
        directory = _session_dir(count)
        path = directory / "session.jsonl"
        size_mb = path.stat().st_size / 1e6
        tail_ms = median_ms(lambda d=directory: _tail_ready(d), repeat=15)
        full_ms = median_ms(lambda p=path: _full_parse(p), repeat=3 if count >= 100_000 else 7)
        index_ms = median_ms(
            lambda p=path: SessionStore(p).ensure_index(), repeat=3 if count >= 100_000 else 7, warmup=0
        )
        rows_open.append(
            [
                f"{count:,}",
                f"{size_mb:.1f}",
                f"{tail_ms:.2f}",
                f"{full_ms:.0f}",
                f"{full_ms / tail_ms:.0f}x",
                f"{index_ms:.0f}",
            ]
        )
        ms, n_items, tokens = _context_ms(directory)
        ctx_ms[count] = ms
        rows_ctx.append([f"{count:,}", f"{ms:.3f}", str(n_items), f"{tokens:,}", f"{ms / ctx_ms[SIZES[0]]:.2f}x"])
    cold, warm, chars = _tokens_throughput(_session_dir(10_000))
    rss = _rss_child(100_000)
    rss_base = _rss_child(0, baseline=True)
    out = [
        table(
            "Open -> tail ready (fresh SessionStore + summary + read_after) vs full parse",
            ["items", "file MB", "tail ready ms", "full parse ms", "speed-up", "full index ms"],
            rows_open,
        ),
        table(
            "build_context median (200 calls, warm)",
            ["items", "median ms", "tail items", "tokens", "vs 1k"],
            rows_ctx,
        ),
        table(
            "Token counting, 10k items (o200k_base)",
            ["pass", "items/s"],
            [["cold", f"{cold:,.0f}"], ["cached", f"{warm:,.0f}"], ["cached ÷ cold", f"{warm / cold:.0f}x"]],
        ),
        table(
            "Peak RSS",
            ["process", "MB"],
            [
                ["open + full index + build_context at 100k (fresh process)", f"{rss:.0f}"],
                ["baseline: python + o200k encoding loaded (fresh process)", f"{rss_base:.0f}"],
            ],
        ),
    ]
    return "\n".join(out)


if __name__ == "__main__":
    print(run())
