"""Memory figures: recall time at 100 / 1,000 / 10,000 entries, store load time at 10,000, and the
exact-prefix share of consecutive chat requests with recall refreshed at segment boundaries (the
rule) against recall recomputed every turn — a real runner against the fake server.

Target (issue 6): 10,000 entries stay fast; recall is one pass plus a bounded selection, so its time
grows about linearly with the entry count (the 10k / 100 ratio should be near 100, not 10,000).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import tempfile
from pathlib import Path

from benchmarks.common import bench_dir, median_ms, setup_env, table
from okbot.core.turn.request import Send

SIZES = (100, 1_000, 10_000)
QUERY = "which editor and test runner does the user prefer for the okbot project?"
MAX_ENTRIES, MAX_CHARS = 20, 4_000


def _texts(count: int) -> list[str]:
    rng = random.Random(count)
    vocab = [f"word{n}" for n in range(3_000)] + ["editor", "vim", "pytest", "okbot", "project", "prefers", "user"]
    return [" ".join(rng.choices(vocab, k=rng.randint(6, 30))) for _ in range(count)]


def _store_dir(count: int) -> Path:
    """A memory folder with ``count`` entries (written directly: add() rewrites the whole file each time)."""
    directory = bench_dir() / f"memory-{count}"
    directory.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"okbot": "memories", "version": 1})]
    for i, text in enumerate(_texts(count)):
        status = "durable" if i % 4 else "candidate"
        obj = {"id": f"m-{i:08x}", "status": status, "pinned": i % 500 == 0, "text": text, "hits": i % 9}
        obj.update(evidence=1, created="2026-01-01T00:00:00+00:00", updated="2026-01-01T00:00:00+00:00", sources=[i])
        lines.append(json.dumps(obj))
    (directory / "memories.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return directory


def run() -> str:
    setup_env(Path(tempfile.mkdtemp(prefix="okbot-bench-")))
    from okbot.core.memory import MemoryStore, recall

    rows_recall: list[list[str]] = []
    recall_ms: dict[int, float] = {}
    load_row: list[str] = []
    for count in SIZES:
        directory = _store_dir(count)
        entries = MemoryStore(directory, "global").entries()
        result = recall(entries, QUERY, max_entries=MAX_ENTRIES, max_chars=MAX_CHARS)
        ms = median_ms(lambda e=entries: recall(e, QUERY, max_entries=MAX_ENTRIES, max_chars=MAX_CHARS), repeat=15)
        recall_ms[count] = ms
        rows_recall.append(
            [f"{count:,}", f"{ms:.2f}", str(len(result.ids)), str(result.left_out), f"{ms / recall_ms[SIZES[0]]:.0f}x"]
        )
        if count == SIZES[-1]:
            size_mb = (directory / "memories.jsonl").stat().st_size / 1e6
            load_ms = median_ms(lambda d=directory: MemoryStore(d, "global").entries(), repeat=7)
            store = MemoryStore(directory, "global")
            cached_ms = median_ms(store.entries, repeat=50)
            load_row = [f"{count:,}", f"{size_mb:.1f}", f"{load_ms:.1f}", f"{cached_ms:.3f}"]
    out = [
        table(
            f"Memory recall ({MAX_ENTRIES} entries / {MAX_CHARS:,} chars budget, 3/4 durable, median of 15)",
            ["entries", "recall ms", "recalled", "left out", "vs 100"],
            rows_recall,
        ),
        table(
            "Memory store load (fresh MemoryStore + entries()) vs unchanged re-read (stat only)",
            ["entries", "file MB", "load ms", "cached entries() ms"],
            [load_row],
        ),
    ]
    out.append(_prefix_share_table())
    return "\n".join(out)


PREFIX_TURNS = 120
TOPICS = ("garden", "invoice", "kubernetes", "violin", "marathon", "tax", "recipe", "database", "holiday", "camera")


def _prefix_share_table() -> str:
    rows = []
    for rule in ("boundary", "every_turn"):
        shares, compressions, refreshes = _converse(rule)
        rows.append(
            [
                rule,
                f"{statistics.mean(shares):.1%}",
                f"{min(shares):.1%}",
                str(len(shares)),
                str(compressions),
                str(refreshes),
            ]
        )
    return table(
        f"Exact-prefix share of consecutive chat requests ({PREFIX_TURNS} turns, 200 memories, "
        "pairs with no compression between)",
        ["recall refresh", "mean share", "min share", "pairs", "compressions", "hit counts added"],
        rows,
    )


def _converse(rule: str) -> tuple[list[float], int, int]:
    """One conversation over topics that change every few turns; returns (shares, compressions, refreshes)."""
    setup_env(Path(tempfile.mkdtemp(prefix=f"okbot-bench-prefix-{rule}-")))
    from okbot.app.wiring import make_turn_runner
    from okbot.core.memory.memories import Memories
    from okbot.core.sources import ContextSources
    from okbot.core.workspace import Workspace
    from tests.helpers.env import provider_for, settings_for
    from tests.helpers.fake_memory import is_extraction_request, with_summaries
    from tests.helpers.fake_openai import FakeOpenAIServer
    from tests.helpers.fake_summarizer import TOPIC_QUESTION, is_summarizer_request

    rng = random.Random(7)
    with FakeOpenAIServer() as server:
        server.set_default(with_summaries)
        settings_for(server, {"model.contextWindow": 8000})
        ws = Workspace()
        target = ws.ensure_default()
        sources = ContextSources(ws)
        sources.memory = Memories(sources, refresh=rule)
        sources.memories = sources.memory.recalled
        sources.counter(sources.model_for(target)).ensure_loaded(timeout=30)
        store = sources.memory.own_store(target)
        for i in range(200):
            topic = TOPICS[i % len(TOPICS)]
            store.add(
                f"The user's {topic} note {i}: prefers option {rng.randint(1, 9)} for {topic} work.",
                status="durable",
                pinned=i < 3,
            )
        provider = provider_for(server, max_retries=0)
        runner = make_turn_runner(sources, provider)
        marks, covered = [], []
        for turn in range(PREFIX_TURNS):
            topic = TOPICS[(turn // 4) % len(TOPICS)]
            marks.append(len(server.chat_requests()))
            runner.run(target, Send(f"Turn {turn}: more about my {topic}, please. " + "context " * 30))
            covered.append(sources.summary(target)[0].covered_through_id)
        chat = [
            b
            for b in server.chat_requests()
            if not (
                is_summarizer_request(b) or is_extraction_request(b) or TOPIC_QUESTION in b["messages"][-1]["content"]
            )
        ]
        refreshes = sum(e.hits for e in store.entries())
    counter = sources.counter(sources.model_for(target))
    shares = []
    for i in range(1, len(chat)):
        if covered[i] != covered[i - 1]:
            continue  # a compression between: the prefix changes by design
        prev, cur = _serialize(chat[i - 1]), _serialize(chat[i])
        n = len(os.path.commonprefix([prev, cur]))
        shares.append(counter.count_text(prev[:n]) / max(1, counter.count_text(prev)))
    compressions = len(set(covered)) - (1 if covered and covered[0] == 0 else 0)
    return shares, compressions, refreshes


def _serialize(body: dict) -> str:
    return "\n".join(f"{m['role']}: {m.get('content')}" for m in body["messages"])


if __name__ == "__main__":
    print(run())
