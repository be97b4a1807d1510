"""``session-summary.history.jsonl``: every state a compression (or its undo) left the summary in.

``session-summary.json`` is replaced on each compression and keeps one ``.bak``; this file, beside it,
keeps them all, so a compression can be undone step by step. Each line is one step, appended the one
durable way (:class:`~okbot.storage.datalock.AppendLog`) and never rewritten or removed::

    {"v": 1, "seq": 3, "type": "compression", "at": "...", "trigger": "ratio", "fallback": "",
     "newIds": [[41, 57]], "before": {...}, "after": {...}}
    {"v": 1, "seq": 4, "type": "undo", "of": 3, "at": "...", "before": {...}, "after": {...}}
    {"v": 1, "seq": 5, "type": "redo", "of": 3, "at": "...", "before": {...}, "after": {...}}

``before`` and ``after`` are the summary as ``session-summary.json`` holds it (without ``health``: how
compaction went is not restored), ``newIds`` the items the compression newly covered, as ranges.
An undo restores the ``before`` of the newest compression still in force; a redo the ``after`` of the
newest one undone, as long as no compression came after it. Which compressions are in force is
replayed from the lines in order (:meth:`History.in_force`).

A line that cannot be read (a hand edit, a torn last line after a crash, a newer OkBot's format) is
skipped with a notice in :attr:`History.problems`; the file itself is left as it is. The file is read
from its last :data:`MAX_READ` bytes: years of compressions, the steps that matter for undo.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from okbot.core.items import now_iso
from okbot.core.summary import SUMMARY_VERSION, SessionSummary
from okbot.i18n import translate
from okbot.storage import migrations
from okbot.storage.atomic import to_utf8
from okbot.storage.datalock import AppendLog, LockedLog, storage_error
from okbot.storage.jsontext import JSONTextError, loads

HISTORY_SUFFIX = ".history.jsonl"
VERSION = migrations.CURRENT["summary-history"]  # on every line as "v"; newer lines are skipped
KINDS = ("compression", "undo", "redo")
MAX_READ = 8 * 1024 * 1024
_THREAD_LOCKS: dict[Path, threading.RLock] = {}
_GUARD = threading.Lock()


def history_path(summary_path: Path) -> Path:
    """``session-summary.history.jsonl`` beside ``session-summary.json`` (each assistant and squad its own)."""
    summary_path = Path(summary_path)
    return summary_path.with_name(summary_path.stem + HISTORY_SUFFIX)


def id_ranges(ids: Iterable[int]) -> list[list[int]]:
    """Sorted ids as ``[first, last]`` runs of consecutive ids."""
    out: list[list[int]] = []
    for i in sorted(set(ids)):
        if out and i == out[-1][1] + 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def ranges_text(ranges: Iterable[tuple[int, int] | list[int]]) -> str:
    """``#3–#9, #12`` for ``[first, last]`` runs."""
    return ", ".join(f"#{a}" if a == b else f"#{a}–#{b}" for a, b in ranges)


@dataclass(frozen=True)
class Step:
    """One line of the history: a compression, or an undo / redo of the compression ``of``."""

    seq: int
    kind: str  # "compression" | "undo" | "redo"
    at: str
    before: SessionSummary
    after: SessionSummary
    trigger: str = ""
    fallback: str = ""
    new_ranges: tuple[tuple[int, int], ...] = ()  # the items newly covered, as [first, last] runs
    of: int = 0

    @property
    def new_count(self) -> int:
        """How many items the compression newly covered."""
        return sum(b - a + 1 for a, b in self.new_ranges)


@dataclass
class History:
    """The steps read from the file, oldest first, and a notice for each line that was skipped."""

    steps: list[Step] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def _replay(self) -> tuple[list[Step], list[Step]]:
        done: list[Step] = []
        undone: list[Step] = []
        by_seq = {s.seq: s for s in self.steps if s.kind == "compression"}
        for step in self.steps:
            if step.kind == "compression":
                done.append(step)
                undone.clear()  # a new compression ends what could be redone
            elif step.of in by_seq:
                moved = by_seq[step.of]
                source, dest = (done, undone) if step.kind == "undo" else (undone, done)
                if moved in source:
                    source.remove(moved)
                    dest.append(moved)
        return done, undone

    def in_force(self) -> list[Step]:
        """The compressions not undone, oldest first (the last one is what an undo takes back)."""
        return self._replay()[0]

    def undone(self) -> list[Step]:
        """The compressions undone since the last new one, oldest undo first (the last one is what a redo
        brings back)."""
        return self._replay()[1]


class SummaryHistory:
    """Reads and appends one summary's history file."""

    def __init__(self, summary_path: Path) -> None:
        self.path = history_path(summary_path)
        self._log = AppendLog(self.path)

    def read(self) -> History:
        """The history as it stands; never raises for bad content (see :class:`History`)."""
        try:
            with open(self.path, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                fh.seek(max(0, size - MAX_READ))
                data = fh.read(MAX_READ)
        except FileNotFoundError:
            return History()
        except OSError as exc:
            raise storage_error(self.path, exc) from exc
        lines = data.split(b"\n")
        if size > MAX_READ:
            lines = lines[1:]  # it began before the part read
        history = History()
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                history.steps.append(_step(line))
            except ValueError as exc:
                where = (
                    translate("history", "line {n}").format(n=number)
                    if size <= MAX_READ
                    else translate("history", "a line")
                )
                history.problems.append(
                    translate("history", "{where} of {path} was skipped ({why}); the file is left as it is.").format(
                        where=where, path=self.path, why=exc
                    )
                )
        return history

    @contextmanager
    def writing(self) -> Iterator[HistoryWriter]:
        """Hold the file's locks (this process's threads, then other processes) while a summary is checked,
        saved and its step appended. A lock or append the OS refuses comes out as OkBotError naming the file."""
        with _GUARD:
            thread_lock = _THREAD_LOCKS.setdefault(self.path, threading.RLock())
        with thread_lock:
            try:
                self._log.lock.acquire()
            except OSError as exc:
                raise storage_error(self.path, exc) from exc
            try:
                yield HistoryWriter(self.path, LockedLog(self.path))
            finally:
                self._log.lock.release()


class HistoryWriter:
    """Appends steps while :meth:`SummaryHistory.writing` holds the locks."""

    def __init__(self, path: Path, locked: LockedLog) -> None:
        self._path = path
        self._locked = locked

    def append(
        self,
        kind: str,
        before: SessionSummary,
        after: SessionSummary,
        *,
        trigger: str = "",
        fallback: str = "",
        new_ids: Iterable[int] = (),
        of: int = 0,
    ) -> Step:
        """Append one step (its ``seq`` one past the newest on disk) and return it."""
        if kind not in KINDS:
            raise ValueError(f"unknown history step {kind!r}")
        record: dict[str, Any] = {"v": VERSION, "seq": 0, "type": kind, "at": now_iso()}
        if kind == "compression":
            record.update(trigger=trigger, fallback=fallback, newIds=id_ranges(new_ids))
        else:
            record["of"] = of
        record.update(before=_state(before), after=_state(after))
        try:
            record["seq"] = 1 + next((n for line in self._locked.lines_backward() if (n := _seq_of(line))), 0)
            self._locked.append(to_utf8(json.dumps(record, ensure_ascii=False) + "\n"))
        except OSError as exc:
            raise storage_error(self._path, exc) from exc
        return _step(json.dumps(record).encode())


def _state(summary: SessionSummary) -> dict[str, Any]:
    data = {**summary.to_json(), "version": SUMMARY_VERSION}
    data.pop("health", None)
    return data


def _seq_of(line: bytes) -> int:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return 0
    value = obj.get("seq") if isinstance(obj, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _summary(obj: Any, key: str) -> SessionSummary:
    if not isinstance(obj, dict):
        raise ValueError(f"'{key}' must be an object")
    version = migrations.version_of(obj)
    if version is None:
        raise ValueError(f"'{key}' has no usable version")
    if version > SUMMARY_VERSION:
        raise ValueError(f"'{key}' was written by a newer OkBot (summary format {version})")
    if version < SUMMARY_VERSION:
        obj = migrations.upgrade("summary", obj, version).data
    try:
        return SessionSummary.from_json(obj)
    except ValueError as exc:
        raise ValueError(f"'{key}': {exc}") from exc


def _step(line: bytes) -> Step:
    """One line parsed, or ValueError saying what is wrong with it."""
    try:
        obj = loads(line, what="the line")
    except JSONTextError as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    version = obj.get("v")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"'v' must be a positive integer, got {version!r}")
    if version > VERSION:
        raise ValueError(f"written by a newer OkBot (format {version}; this one reads up to {VERSION})")
    kind, seq, at = obj.get("type"), obj.get("seq"), obj.get("at", "")
    if kind not in KINDS:
        raise ValueError(f"'type' must be one of {', '.join(KINDS)}, got {kind!r}")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise ValueError(f"'seq' must be a positive integer, got {seq!r}")
    of = obj.get("of", 0)
    if kind != "compression" and (not isinstance(of, int) or isinstance(of, bool) or of < 1):
        raise ValueError(f"'of' must name a compression's seq, got {of!r}")
    ranges = obj.get("newIds", [])
    if not isinstance(ranges, list) or not all(
        isinstance(r, list) and len(r) == 2 and all(isinstance(i, int) and i > 0 for i in r) and r[0] <= r[1]
        for r in ranges
    ):
        raise ValueError("'newIds' must be a list of [first, last] id ranges")
    trigger, fallback = obj.get("trigger", ""), obj.get("fallback", "")
    if not isinstance(at, str) or not isinstance(trigger, str) or not isinstance(fallback, str):
        raise ValueError("'at', 'trigger' and 'fallback' must be text")
    return Step(
        seq=seq,
        kind=kind,
        at=at,
        before=_summary(obj.get("before"), "before"),
        after=_summary(obj.get("after"), "after"),
        trigger=trigger,
        fallback=fallback,
        new_ranges=tuple((a, b) for a, b in ranges),
        of=of if kind != "compression" else 0,
    )
