"""Durable memories: the on-disk store (:mod:`.store`) and what gets recalled into the instructions (:mod:`.recall`)."""

from __future__ import annotations

from okbot.core.memory.recall import Recall, recall
from okbot.core.memory.store import MAX_ENTRY_CHARS, STATUSES, MemoryEntry, MemoryStore, normalise

__all__ = ["MAX_ENTRY_CHARS", "STATUSES", "MemoryEntry", "MemoryStore", "Recall", "normalise", "recall"]
