"""The memory side of ``ContextSources``: one store per memory folder, recall refreshed at segment boundaries.

Recall chooses which durable entries the instructions carry. It is recomputed only at a segment
boundary — a compression (coverage moved, which a topic change also causes), an edit of either
memory store, or a change of the memory budgets — and otherwise the last choice is reused, so
consecutive requests keep an identical prompt prefix. The choice is kept per target in
``memory-recall.json`` (atomic), so a restart does not change what the model sees either. An older
cache is recomputed (the old file kept as ``.v<N>.bak``); a newer OkBot's cache is not used and never
overwritten. Hit
counts go up once per refresh, for the entries that refresh recalled.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

from okbot.core.memory.recall import recall
from okbot.core.memory.store import MemoryStore
from okbot.core.workspace import Target
from okbot.storage import migrations, paths
from okbot.storage.atomic import atomic_write_json
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.memory")

RECALL_FILE = "memory-recall.json"
RECALL_VERSION = 1
QUERY_USER_MESSAGES = 6  # recent user messages that make the relevance query
QUERY_SCAN = 60  # newest items scanned for them
GLOBAL_SCOPE = "global"


class Memories:
    """Memory stores and the recalled-memories block of each target.

    ``refresh="boundary"`` is the product's rule; ``"every_turn"`` (recompute whenever the
    session grew) exists so the benchmark can measure what the rule saves.
    """

    def __init__(self, sources: Any, *, refresh: str = "boundary") -> None:
        if refresh not in ("boundary", "every_turn"):
            raise ValueError(f"unknown refresh rule {refresh!r}")
        self.sources = sources
        self.refresh = refresh
        self._lock = threading.Lock()
        self._stores: dict[Path, MemoryStore] = {}
        self._recalled: dict[Path, tuple[dict[str, Any], list[str]]] = {}

    # -- stores -----------------------------------------------------------------------------
    def global_store(self) -> MemoryStore:
        return self._store(paths.global_memory_dir(), GLOBAL_SCOPE)

    def own_store(self, target: Target) -> MemoryStore | None:
        """The assistant's own store (``None`` for a squad: it has no memory folder)."""
        return self._store(target.memory_dir, target.id) if target.memory_dir is not None else None

    def stores(self, target: Target) -> list[MemoryStore]:
        """Global first, then the target's own."""
        own = self.own_store(target)
        return [self.global_store(), *([own] if own is not None else [])]

    def problems(self, target: Target) -> list[str]:
        return [p for store in self.stores(target) for p in store.problems]

    def _store(self, directory: Path, scope: str) -> MemoryStore:
        with self._lock:
            store = self._stores.get(directory)
            if store is None:
                store = self._stores[directory] = MemoryStore(directory, scope)
            return store

    # -- recall -----------------------------------------------------------------------------
    def prepare(self, target: Target, pending_text: str) -> None:
        """Before a turn: a refresh due now ranks by the message about to be sent, too.

        The runner calls this before anything builds the turn's context, because the message is
        appended only after compression accepted it.
        """
        self.recalled(target, pending_text)

    def recalled(self, target: Target, pending_text: str = "") -> list[str]:
        """The memories block's lines for ``target``'s next request (the ``ContextSources`` provider)."""
        settings = self.sources.settings
        max_entries, max_chars = settings.get("memory.maxEntries"), settings.get("memory.maxChars")
        if max_entries <= 0 or max_chars <= 0:
            return []
        stores = self.stores(target)
        summary, _ = self.sources.summary(target)
        key: dict[str, Any] = {
            "covered": summary.covered_through_id,
            "compressions": int(summary.health.get("count", 0) or 0),
            "stores": [store.revision() for store in stores],
            "budget": [max_entries, max_chars],
        }
        if self.refresh == "every_turn":
            key["last"] = self.sources.session(target).last_id()
        with self._lock:
            cached = self._recalled.get(target.dir)
        if cached is not None and cached[0] == key:
            return list(cached[1])
        saved = self._load_saved(target)
        if saved is not None and saved[0] == key:
            lines = saved[1]
        else:
            lines = self._refresh(target, stores, key, max_entries, max_chars, pending_text)
        with self._lock:
            self._recalled[target.dir] = (key, lines)
        return list(lines)

    def _refresh(
        self,
        target: Target,
        stores: list[MemoryStore],
        key: dict[str, Any],
        max_entries: int,
        max_chars: int,
        pending_text: str,
    ) -> list[str]:
        entries = [entry for store in stores for entry in store.entries()]
        query = "\n".join(filter(None, [self._query(target), pending_text]))
        result = recall(entries, query, max_entries=max_entries, max_chars=max_chars)
        recalled = set(result.ids)
        for store in stores:
            mine = [e.id for e in store.entries() if e.id in recalled]
            if mine:
                try:
                    store.record_hits(mine)
                except (OkBotError, OSError) as exc:  # counting hits is nice to have; recall must go on
                    log.warning("could not record memory hits in %s: %s", store, exc)
        lines = list(result.lines)
        path = target.dir / RECALL_FILE
        on_disk = migrations.read_upgrade(path, "memory-recall")
        if on_disk is not None and on_disk.newer:  # a newer OkBot's file: used by neither, changed by neither
            log.info(
                "not saving the recalled memories of %s: %s",
                target.name,
                migrations.newer_message(path, on_disk.from_version, "memory-recall"),
            )
            return lines
        try:
            migrations.persist_upgrade(path, "memory-recall", on_disk)
            atomic_write_json(path, {"version": RECALL_VERSION, "key": key, "lines": lines})
        except OSError as exc:  # a read-only data dir: recall still works, it just is not kept
            log.warning("could not save the recalled memories of %s: %s", target.name, exc)
        return lines

    def _query(self, target: Target) -> str:
        """The recent user text recall ranks entries against."""
        texts = [
            str(it.get("content") or "")
            for it in self.sources.session(target).tail(QUERY_SCAN)
            if it.get("type") == "user" and it.get("source", "user") == "user"
        ]
        return "\n".join(texts[-QUERY_USER_MESSAGES:])

    @staticmethod
    def _load_saved(target: Target) -> tuple[dict[str, Any], list[str]] | None:
        try:
            obj = json.loads((target.dir / RECALL_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(obj, dict) or obj.get("version") != RECALL_VERSION:
            return None
        lines = obj.get("lines")
        if (
            not isinstance(obj.get("key"), dict)
            or not isinstance(lines, list)
            or not all(isinstance(x, str) for x in lines)
        ):
            return None
        return obj["key"], lines
