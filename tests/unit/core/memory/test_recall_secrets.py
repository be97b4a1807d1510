"""recall() never sends an unpinned memory holding a secret (kept by an OkBot from before issue 16) to a model."""

from __future__ import annotations

from datetime import datetime, timezone

from okbot.core.memory import MemoryEntry, recall

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def mem(entry_id: str, text: str, **fields: object) -> MemoryEntry:
    return MemoryEntry(id=entry_id, text=text, status="durable", scope="global", **fields)  # type: ignore[arg-type]


def test_a_durable_holding_a_secret_is_left_out_and_counted_as_not_shown() -> None:
    entries = [
        mem("m-1", "The user's bank PIN is 4921."),
        mem("m-2", "The user's wifi pass is Tr0ub4dor&3."),
        mem("m-3", "The user likes green tea."),
    ]
    result = recall(entries, "bank PIN wifi pass tea", max_entries=10, max_chars=10_000, now=NOW)
    assert result.lines == ("The user likes green tea.", "(2 more memories not shown)")
    assert result.ids == ("m-3",) and result.left_out == 2


def test_a_pinned_memory_is_the_users_choice_and_stays() -> None:
    entries = [mem("m-1", "The locker PIN is 4921.", pinned=True), mem("m-2", "The user likes green tea.")]
    result = recall(entries, "tea", max_entries=10, max_chars=10_000, now=NOW)
    assert result.ids == ("m-1", "m-2")
