"""recall(): which memories enter the instructions, in which order, within which budget."""

from __future__ import annotations

import json
import random
from datetime import datetime, timezone
from pathlib import Path
from typing import ClassVar

import pytest

from okbot.core.memory import MAX_ENTRY_CHARS, MemoryEntry, MemoryStore, Recall, recall
from okbot.core.memory.recall import tokenize

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def mem(entry_id: str, text: str, **fields: object) -> MemoryEntry:
    fields.setdefault("status", "durable")
    fields.setdefault("scope", "a-1")
    return MemoryEntry(id=entry_id, text=text, **fields)  # type: ignore[arg-type]


def run(entries: list[MemoryEntry], query: str = "", *, max_entries: int = 10, max_chars: int = 10_000) -> Recall:
    return recall(entries, query, max_entries=max_entries, max_chars=max_chars, now=NOW)


def test_tokenizer_casefolds_and_drops_stop_words() -> None:
    assert tokenize("The USER likes Straße, and the_snake_case 42!") == [
        "user",
        "likes",
        "strasse",
        "the_snake_case",
        "42",
    ]


def test_nothing_to_recall() -> None:
    assert run([]) == Recall((), (), 0)
    assert run([mem("m-1", "x")], max_entries=0) == Recall((), (), 0)
    assert run([mem("m-1", "x", pinned=True)], max_entries=0) == Recall((), (), 0)


def test_candidates_retired_and_expired_are_not_recalled() -> None:
    entries = [
        mem("m-1", "candidate fact", status="candidate"),
        mem("m-2", "retired fact", status="retired"),
        mem("m-3", "expired fact", expires="2026-05-31T00:00:00+00:00"),
        mem("m-4", "pinned but retired", status="retired", pinned=True),
        mem("m-5", "pinned but expired", pinned=True, expires="2026-01-01T00:00:00+00:00"),
        mem("m-6", "still valid fact", expires="2026-06-02T00:00:00+00:00"),
    ]
    result = run(entries, "fact")
    assert result == Recall(("still valid fact",), ("m-6",), 0)


def test_pinned_come_first_in_a_stable_order_whatever_their_status() -> None:
    entries = [
        mem("m-d", "durable about cats"),
        mem("m-b", "own pinned, older", pinned=True, created="2026-01-01T00:00:00+00:00"),
        mem("m-a", "own pinned, newer", pinned=True, created="2026-02-01T00:00:00+00:00"),
        mem("m-g", "global pinned", pinned=True, scope="global", created="2026-03-01T00:00:00+00:00"),
        mem("m-c", "pinned candidate", pinned=True, status="candidate", created="2026-01-15T00:00:00+00:00"),
    ]
    result = run(entries, "cats")
    assert result.ids == ("m-g", "m-b", "m-c", "m-a", "m-d")


def test_pinned_are_never_dropped_even_over_budget() -> None:
    entries = [mem(f"m-p{i}", f"pinned number {i} " * 20, pinned=True) for i in range(3)]
    entries += [mem("m-x", "relevant durable about python"), mem("m-y", "another durable")]
    result = run(entries, "python", max_entries=2, max_chars=10)
    assert result.ids == ("m-p0", "m-p1", "m-p2")
    assert result.left_out == 2
    assert result.lines[-1] == "(2 more memories not shown)"
    assert len(result.lines) == 4


def test_relevance_orders_the_durables() -> None:
    entries = [
        mem("m-1", "The user has a cat named Miso"),
        mem("m-2", "The project builds with hatch and uses ruff"),
        mem("m-3", "Ruff line length is 120 in this project"),
        mem("m-4", "The user lives in Lisbon"),
    ]
    result = run(entries, "what line length does ruff use here?")
    assert result.ids[:2] == ("m-3", "m-2")
    assert set(result.ids[2:]) == {"m-1", "m-4"}  # no match: still recalled while the budget allows
    assert result.left_out == 0 and len(result.lines) == 4


def test_rare_terms_weigh_more_than_common_ones() -> None:
    entries = [mem(f"m-c{i}", f"python note {i}") for i in range(20)] + [mem("m-rare", "python and zeppelin")]
    result = run(entries, "python zeppelin", max_entries=1)
    assert result.ids == ("m-rare",) and result.left_out == 20


def test_hits_are_a_small_capped_bonus() -> None:
    entries = [
        mem("m-1", "likes tea"),
        mem("m-2", "likes coffee", hits=50),
        mem("m-3", "drives a bike", hits=1000),
        mem("m-4", "owns a bike"),
    ]
    assert run(entries, "coffee").ids[0] == "m-2"
    assert run(entries, "tea").ids[0] == "m-1"
    assert run(entries, "").ids == ("m-3", "m-2", "m-1", "m-4")  # no query: hits, then id
    assert run(entries, "bike").ids[:2] == ("m-3", "m-4")  # equal matches: hits decide


def test_ties_break_by_id() -> None:
    entries = [mem("m-c", "same words"), mem("m-a", "same words"), mem("m-b", "same words")]
    assert run(entries, "words").ids == ("m-a", "m-b", "m-c")


def test_entry_budget_folds_the_rest() -> None:
    entries = [mem(f"m-{i:02d}", f"fact {i}") for i in range(10)]
    result = run(entries, "", max_entries=3)
    assert result.ids == ("m-00", "m-01", "m-02") and result.left_out == 7
    assert result.lines == ("fact 0", "fact 1", "fact 2", "(7 more memories not shown)")


def test_char_budget_drops_the_least_relevant_first() -> None:
    entries = [
        mem("m-1", "alpha beta gamma"),  # best match, 16 chars
        mem("m-2", "alpha beta " + "x" * 30),  # second, 41 chars
        mem("m-3", "alpha"),  # third, short: still not let in past a cut-off
    ]
    result = run(entries, "alpha beta gamma", max_chars=40)
    assert result.ids == ("m-1",) and result.left_out == 2
    assert result.lines == ("alpha beta gamma", "(2 more memories not shown)")
    assert run(entries, "alpha beta gamma", max_chars=62).ids == ("m-1", "m-2", "m-3")


def test_pinned_use_up_the_budget_first() -> None:
    entries = [mem("m-p", "p" * 30, pinned=True), mem("m-1", "short one"), mem("m-2", "other")]
    assert run(entries, "short", max_chars=35).ids == ("m-p",)
    assert run(entries, "short", max_entries=2).ids == ("m-p", "m-1")


def test_lines_are_one_line_each() -> None:
    result = run([mem("m-1", "first line\n  second   line\t")])
    assert result.lines == ("first line second line",)


def test_entries_over_the_limit_are_skipped() -> None:
    entries = [mem("m-big", "python " * 1000, pinned=True), mem("m-big2", "python " * 400), mem("m-ok", "python ok")]
    assert len(entries[1].text) > MAX_ENTRY_CHARS
    assert run(entries, "python") == Recall(("python ok",), ("m-ok",), 0)


def test_a_one_megabyte_line_on_disk_is_loaded_but_not_recalled(tmp_path: Path) -> None:
    tmp_path.joinpath("memories.jsonl").write_text(
        "\n".join(
            json.dumps({"id": i, "status": "durable", "pinned": False, "text": t})
            for i, t in (("m-00000001", "needle " * 150_000), ("m-00000002", "needle in a haystack"))
        )
        + "\n",
        "utf-8",
    )
    store = MemoryStore(tmp_path, "global")
    assert len(store.get("m-00000001").text) == 1_050_000
    assert run(store.entries(), "needle").ids == ("m-00000002",)


def test_recall_is_deterministic_whatever_the_input_order() -> None:
    rng = random.Random(7)
    words = ["tea", "coffee", "python", "rust", "bike", "cat", "lisbon", "vim", "ruff", "tests"]
    entries = [
        mem(
            f"m-{i:08x}",
            " ".join(rng.choices(words, k=rng.randint(1, 8))),
            hits=rng.randint(0, 5),
            pinned=i % 17 == 0,
            scope="global" if i % 2 else "a-1",
            created=f"2026-01-{1 + i % 28:02d}",
        )
        for i in range(300)
    ]
    first = run(entries, "python tests with ruff", max_entries=25, max_chars=600)
    for _ in range(3):
        rng.shuffle(entries)
        assert run(entries, "python tests with ruff", max_entries=25, max_chars=600) == first
    assert len(first.ids) == len(set(first.ids)) and first.left_out == 300 - len(first.ids)


def test_naive_now_means_utc() -> None:
    entry = mem("m-1", "x", expires="2026-06-01T12:00:00+00:00")
    naive = datetime(2026, 6, 1, 11, 0)
    assert recall([entry], "", max_entries=5, max_chars=100, now=naive).ids == ("m-1",)


# --- 10,000 entries: correct, and linear (checked by counting) ------------------------------------------------------


def _haystack(count: int) -> list[MemoryEntry]:
    rng = random.Random(count)
    vocab = [f"w{n}" for n in range(500)]
    return [mem(f"m-{i:08x}", " ".join(rng.choices(vocab, k=12)), hits=i % 7) for i in range(count)]


def test_ten_thousand_entries() -> None:
    entries = _haystack(10_000)
    entries[4321] = mem(entries[4321].id, "the deploy key lives in vault under okbot/prod")
    entries[77] = mem(entries[77].id, "okbot is deployed by a cron job", pinned=True)
    result = run(entries, "where is the okbot deploy key?", max_entries=12, max_chars=2000)
    assert result.ids[:2] == (entries[77].id, entries[4321].id)
    assert len(result.ids) == 12 and result.left_out == 10_000 - 12
    assert result.lines[-1] == "(9988 more memories not shown)"


class CountingText(str):
    """Entry text that counts how often recall reads it in full (casefold is the tokenizer's first step)."""

    reads: ClassVar[int] = 0

    def casefold(self) -> str:
        CountingText.reads += 1
        return super().casefold()


class CountingId(str):
    """An id that counts comparisons (ranking ties fall back to ids)."""

    compares: ClassVar[int] = 0

    def __lt__(self, other: str) -> bool:
        CountingId.compares += 1
        return str.__lt__(self, other)

    def __eq__(self, other: object) -> bool:
        CountingId.compares += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def _counted(count: int) -> tuple[int, int]:
    entries = [
        MemoryEntry(id=CountingId(e.id), text=CountingText(e.text), status="durable", scope="a-1")
        for e in _haystack(count)
    ]
    CountingText.reads = CountingId.compares = 0
    run(entries, "w1 w2 w3 unmatched", max_entries=20, max_chars=100_000)
    return CountingText.reads, CountingId.compares


@pytest.mark.parametrize("small", [1_000])
def test_recall_work_grows_linearly(small: int) -> None:
    reads_small, compares_small = _counted(small)
    reads_big, compares_big = _counted(small * 10)
    assert reads_small == small and reads_big == small * 10  # every entry tokenized exactly once
    assert compares_big <= 15 * max(compares_small, 1)  # quadratic work would be ~100x
