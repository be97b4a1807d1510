"""Wrapping up after a turn: extract memories from newly covered items, promote, retire; then persona and skills.

The order of things per turn is: read disk (maybe compress; recall pinned / relevant durables)
-> chat -> wrap up. Wrap-up runs in the background, one target at a time, so the reply is never
held up by it; what it changes affects later turns only.

Extraction covers each item once: ``memory/extraction.json`` records how far it got, and a
wrap-up extracts the items the summary covered since (coverage advanced by a compression). A
user message that asks to remember something is extracted at wrap-up even without a compression,
and what it yields is durable at once (the user asked). A candidate met again (evidence >= 2, an
agreement the summary records counts as evidence) or confirmed by the model becomes durable; an
entry the conversation proves wrong is retired — kept on disk, marked, never recalled.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from itertools import islice
from typing import Any

from okbot.core.compression.structure import parse_sections
from okbot.core.evolution.upkeep import Upkeep, UpkeepReport
from okbot.core.grounding import typed_by_user
from okbot.core.memory.extract import Candidate, Extraction, build_messages, parse_answer
from okbot.core.memory.store import MemoryEntry, MemoryStore, normalise
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.llm.provider import ask_in_background
from okbot.storage import migrations
from okbot.storage.atomic import atomic_write_json
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.memory")

STATE_FILE = "extraction.json"
SQUAD_STATE_FILE = "memory-extraction.json"  # a squad has no memory/ folder
STATE_VERSION = migrations.CURRENT["extraction"]  # older: migrated (old file kept); newer: read-only, no extraction
MAX_BATCH_ITEMS = 40  # items per extraction call
MAX_CALLS_PER_WRAP_UP = 3  # a huge coverage jump is worked off over several wrap-ups
PROMOTE_AT_EVIDENCE = 2
REPLY_MAX_TOKENS = 800
EXTRACTED_TYPES = ("user", "assistant", "tool_call", "tool_result")
_REMEMBER = re.compile(
    r"\b(remember|don'?t forget|do not forget|keep in mind|note that|make a note)\b|记住|别忘", re.IGNORECASE
)


def asks_to_remember(text: str) -> bool:
    """Does a user message explicitly ask the assistant to remember something?"""
    return bool(_REMEMBER.search(text))


@dataclass
class WrapUpReport:
    """What one wrap-up did (for logs, tests and the benchmark)."""

    calls: int = 0
    added: list[str] = field(default_factory=list)  # entry ids
    merged: list[str] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class MemoryKeeper:
    """Extraction and evolution of one process's memories, driven by turn and compression events.

    ``provider`` is a provider or a zero-argument factory of one (the app builds providers from
    the current settings). ``background=False`` runs wrap-ups inline (the CLI and tests).
    """

    def __init__(self, sources: Any, provider: Any, *, background: bool = True, upkeep: Upkeep | None = None) -> None:
        self.sources = sources
        self._provider = provider
        self._background = background
        self.upkeep = upkeep if upkeep is not None else Upkeep(sources, provider)
        self._queue: queue.Queue[Target | None] = queue.Queue()
        self._pending: dict[Any, tuple[Target, set[int], bool]] = {}
        self._guard = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None
        self.reports: list[WrapUpReport] = []  # newest last, bounded
        self.upkeep_reports: list[UpkeepReport] = []

    # -- triggers (the runner's after_run, the compressor's on_coverage_advanced) -------------
    def after_run(self, target: Target, result: Any) -> None:
        """Schedule the wrap-up; the turn's items are extracted too when its user message asks to remember."""
        explicit: set[int] = set()
        user = self.sources.session(target).get(result.user_id) if getattr(result, "user_id", 0) else None
        if user and typed_by_user(user) and asks_to_remember(str(user.get("content") or "")):
            explicit = {user["id"], *(it["id"] for it in result.items if isinstance(it.get("id"), int))}
        self._schedule(target, explicit, boundary=False)

    def on_coverage_advanced(self, target: Target, _ids: Sequence[int]) -> None:
        self._schedule(target, set(), boundary=True)

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every scheduled wrap-up finished; ``False`` on timeout."""
        return self._idle.wait(timeout)

    # -- the work -----------------------------------------------------------------------------
    def wrap_up(self, target: Target, explicit_ids: Sequence[int] = ()) -> WrapUpReport:
        """Extract what the summary newly covered (and the explicitly asked turn), then evolve."""
        report = WrapUpReport()
        memories = self.sources.memory
        # A squad has no memory folder: what its conversation teaches about the user goes to the
        # global memories every assistant shares (its "assistant" facts too: they concern the user's work).
        own = memories.own_store(target) or memories.global_store()
        stores = [memories.global_store(), own]
        summary, _ = self.sources.summary(target)
        agreements = parse_sections(summary.summary)[0].get("Agreements", "") if summary.summary else ""
        state = self._load_state(target, summary.covered_through_id)
        session = self.sources.session(target)
        start = state
        on_branch = set(session.branch_ids(start))  # an edited or regenerated message's old version is not extracted
        for _ in range(MAX_CALLS_PER_WRAP_UP):
            if start >= summary.covered_through_id:
                break
            batch = list(
                islice(
                    (
                        it
                        for it in session.iter_items(start + 1, summary.covered_through_id)
                        if it.get("type") in EXTRACTED_TYPES and it["id"] in on_branch
                    ),
                    MAX_BATCH_ITEMS,
                )
            )
            end = batch[-1]["id"] if len(batch) == MAX_BATCH_ITEMS else summary.covered_through_id
            if batch:
                self._extract(target, batch, stores, agreements, report, explicit=False)
            start = end
            self._save_state(target, start)
        if explicit_ids:
            items = [it for i in sorted(explicit_ids) if (it := session.get(i)) and it.get("type") in EXTRACTED_TYPES]
            if items:
                self._extract(target, items, stores, agreements, report, explicit=True)
        self._promote(list(dict.fromkeys(stores)), report)
        return report

    def _extract(
        self,
        target: Target,
        items: list[dict[str, Any]],
        stores: list[MemoryStore],
        agreements: str,
        report: WrapUpReport,
        *,
        explicit: bool,
    ) -> None:
        known = [e for store in dict.fromkeys(stores) for e in store.entries()]  # a squad's two are one
        messages = build_messages(items, [(e.id, e.text) for e in known], agreements, explicit=explicit)
        report.calls += 1
        try:
            answer = ask_in_background(
                self._provider, self.sources.summarizer_model(target), messages, max_tokens=REPLY_MAX_TOKENS
            )
        except (OkBotError, OSError) as exc:
            report.problems.append(translate("keeper", "memory extraction failed: {error}").format(error=exc))
            log.warning("memory extraction for %s failed: %s", target.name, exc)
            return
        # A squad has no store of its own: all it remembers is shared, so all of it needs the user's own words.
        all_shared = stores[0] is stores[1]
        result = parse_answer(answer, items, [e.id for e in known], all_shared=all_shared)
        if result.problem:
            report.problems.append(
                translate("keeper", "memory extraction answer unusable: {problem}").format(problem=result.problem)
            )
            log.warning("memory extraction for %s: %s", target.name, result.problem)
        for text, reason in result.rejected:  # secrets in ``text`` are already withheld
            log.info("memory candidate refused (%s): %s", reason, text)
        report.rejected.extend(result.rejected)
        self._apply(stores, result, agreements, report, explicit=explicit)

    def _apply(
        self, stores: list[MemoryStore], result: Extraction, agreements: str, report: WrapUpReport, *, explicit: bool
    ) -> None:
        global_store, own = stores
        agreed = {normalise(line.lstrip("-* ")) for line in agreements.splitlines() if line.strip()}
        for cand in result.candidates:
            existing = self._similar(stores, cand.text)
            if existing is not None:
                store, entry = existing
                store.update(
                    entry.id,
                    evidence=entry.evidence + 1,
                    sources=tuple(sorted({*entry.sources, *cand.sources})),
                    **({"status": "durable"} if explicit and entry.status == "candidate" else {}),
                )
                report.merged.append(entry.id)
                continue
            store = global_store if cand.scope == "user" else own
            agreed_on = normalise(cand.text) in agreed or _supported(cand.text, agreed)
            evidence = 2 if agreed_on else 1  # an agreement the summary records counts as a second sighting
            entry = store.add(
                cand.text,
                status="durable" if explicit else "candidate",
                sources=cand.sources,
                expires=_expiry(cand),
                evidence=evidence,
            )
            report.added.append(entry.id)
        for entry_id in result.confirm:
            found = self._find(stores, entry_id)
            if found is not None and found[1].status != "retired":
                store, entry = found
                store.update(entry.id, evidence=entry.evidence + 1, status="durable")
                if entry.status == "candidate":
                    report.promoted.append(entry.id)
        for entry_id, why in result.retire:
            found = self._find(stores, entry_id)
            if found is not None and found[1].status != "retired" and not found[1].pinned:
                found[0].update(entry_id, status="retired", note=translate("keeper", "retired: {why}").format(why=why))
                report.retired.append(entry_id)

    @staticmethod
    def _promote(stores: list[MemoryStore], report: WrapUpReport) -> None:
        for store in stores:
            for entry in store.entries():
                if entry.status == "candidate" and entry.evidence >= PROMOTE_AT_EVIDENCE:
                    store.update(entry.id, status="durable")
                    report.promoted.append(entry.id)

    @staticmethod
    def _similar(stores: list[MemoryStore], text: str) -> tuple[MemoryStore, MemoryEntry] | None:
        return _first(stores, lambda store: store.find_similar(text))

    @staticmethod
    def _find(stores: list[MemoryStore], entry_id: str) -> tuple[MemoryStore, MemoryEntry] | None:
        return _first(stores, lambda store: store.get(entry_id))

    # -- extraction progress --------------------------------------------------------------------
    @staticmethod
    def _state_path(target: Target) -> Any:
        return target.memory_dir / STATE_FILE if target.memory_dir is not None else target.dir / SQUAD_STATE_FILE

    def _load_state(self, target: Target, covered: int) -> int:
        """Items up to this id were extracted; a session met for the first time starts near its coverage."""
        try:
            obj = json.loads(self._state_path(target).read_text(encoding="utf-8"))
            version = migrations.version_of(obj) if isinstance(obj, dict) else None
            if version is not None and version > STATE_VERSION:
                log.warning(
                    "no memory extraction for %s: %s",
                    target.name,
                    migrations.newer_message(self._state_path(target), version, "extraction"),
                )
                return covered
            through = obj.get("extractedThroughId") if isinstance(obj, dict) else None
            if isinstance(through, int) and not isinstance(through, bool) and through >= 0:
                return min(through, covered)
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            log.warning("memory extraction state of %s unreadable (%s); starting again near coverage", target.name, exc)
        if covered == 0:
            return 0
        # Not extracted before (an older session): only its newest covered batch, not its whole past.
        ids = [i for i in self.sources.session(target).ids() if i <= covered]
        return ids[-MAX_BATCH_ITEMS - 1] if len(ids) > MAX_BATCH_ITEMS else 0

    def _save_state(self, target: Target, through: int) -> None:
        path = self._state_path(target)
        on_disk = migrations.read_upgrade(path, "extraction")
        if on_disk is not None and on_disk.newer:
            return  # a newer OkBot's progress file is never rewritten (_load_state already stopped extraction)
        try:
            migrations.persist_upgrade(path, "extraction", on_disk)
            atomic_write_json(path, {"version": STATE_VERSION, "extractedThroughId": through})
        except OSError as exc:
            log.warning("could not save memory extraction state of %s: %s", target.name, exc)

    # -- background ---------------------------------------------------------------------------
    def _schedule(self, target: Target, explicit_ids: set[int], *, boundary: bool) -> None:
        if not self._background:
            self._run_one(target, explicit_ids, boundary)
            return
        with self._guard:
            queued = self._pending.get(target.dir)
            if queued is not None:
                queued[1].update(explicit_ids)
                self._pending[target.dir] = (target, queued[1], queued[2] or boundary)
                return
            self._pending[target.dir] = (target, set(explicit_ids), boundary)
            self._idle.clear()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="okbot-memory", daemon=True)
                self._thread.start()
        self._queue.put(target)

    def _loop(self) -> None:
        while True:
            try:
                target = self._queue.get(timeout=5)
            except queue.Empty:
                with self._guard:
                    if not self._pending:
                        self._thread = None
                        return
                continue
            with self._guard:
                _, explicit, boundary = self._pending.pop(target.dir, (target, set(), False))
            self._run_one(target, explicit, boundary)
            with self._guard:
                if not self._pending:
                    self._idle.set()

    def _run_one(self, target: Target, explicit_ids: set[int], boundary: bool) -> None:
        try:
            report = self.wrap_up(target, sorted(explicit_ids))
        except Exception:  # noqa: BLE001 - a bug here must never reach the chat
            log.exception("memory wrap-up for %s failed", target.name)
        else:
            self.reports = [*self.reports[-19:], report]
        try:
            upkept = self.upkeep.run(target, boundary=boundary)
        except Exception:  # noqa: BLE001 - nor a bug in persona and skill upkeep
            log.exception("persona and skill upkeep for %s failed", target.name)
            return
        if upkept.ran:
            self.upkeep_reports = [*self.upkeep_reports[-19:], upkept]


def _first(
    stores: list[MemoryStore], lookup: Callable[[MemoryStore], MemoryEntry | None]
) -> tuple[MemoryStore, MemoryEntry] | None:
    """The first store where ``lookup`` finds an entry, with that entry."""
    for store in stores:
        entry = lookup(store)
        if entry is not None:
            return store, entry
    return None


def _supported(text: str, agreed: set[str]) -> bool:
    """Does an agreement line the summary records say (nearly) the same as ``text``?"""
    words = set(normalise(text).split())
    return any(len(words & set(line.split())) >= max(3, int(0.6 * len(words))) for line in agreed)


def _expiry(cand: Candidate) -> str | None:
    if cand.expires_in_days is None:
        return None
    return (datetime.now(timezone.utc) + timedelta(days=cand.expires_in_days)).isoformat(timespec="seconds")
