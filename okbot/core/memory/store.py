"""One memory/ folder: ``memories.jsonl``, a human-readable list of remembered facts.

Every line is one JSON object (``id``, ``status``, ``pinned``, ``text`` first, so a person can read and
edit the file); the first line may be the header ``{"okbot": "memories", "version": 1}``. Every write
re-reads the file under a lock (a thread lock plus the sidecar :class:`~okbot.storage.datalock.FileLock`
``.memories.jsonl.lock``, so two stores or two processes on the same folder never lose each other's
change) and rewrites it whole through :func:`okbot.storage.atomic.atomic_write_bytes`. A line that cannot be
read is reported in :attr:`MemoryStore.problems`, never stops the good lines from loading, and is moved
verbatim into ``memories.jsonl.bad`` by the next write, appended the way every record is
(:class:`~okbot.storage.datalock.AppendLog`, under the same lock). Reading never writes.

Versions (see :mod:`okbot.storage.migrations`): a file without the header is format 0; the next write
keeps it as ``memories.jsonl.v0.bak`` and adds the header. A header from a newer OkBot makes the store
read-only: its entries load, :attr:`MemoryStore.read_only` says why, and every write raises
:class:`~okbot.storage.migrations.NewerVersion` before anything on disk changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import string
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from okbot.i18n import translate
from okbot.storage import migrations
from okbot.storage.atomic import atomic_write_bytes, to_utf8
from okbot.storage.datalock import AppendLog, FileLock
from okbot.storage.errors import OkBotError
from okbot.storage.paths import ensure_private_dir

MAX_ENTRY_CHARS = 2000
STATUSES = ("candidate", "durable", "retired")
FILE_VERSION = 1
HEADER = {"okbot": "memories", "version": FILE_VERSION}

_EDGE_PUNCT = string.punctuation + "“”‘’«»…–—¿¡"
_FIELDS_WRITTEN = ("id", "status", "pinned", "text", "hits", "evidence", "created", "updated", "sources")
_KNOWN_KEYS = frozenset(_FIELDS_WRITTEN) | {"expires", "note", "scope"}
_UPDATABLE = frozenset({"text", "status", "pinned", "expires", "sources", "evidence", "note"})


def _now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def parse_time(value: str) -> datetime | None:
    """An ISO-8601 time as an aware UTC datetime (naive means UTC; a trailing Z is accepted); None if invalid."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def normalise(text: str) -> str:
    """Casefold, collapse whitespace and strip punctuation at word edges (shared by dedupe and search)."""
    words = (word.strip(_EDGE_PUNCT) for word in text.casefold().split())
    return " ".join(word for word in words if word)


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the normalised word sets of two texts (0.0 when either has no words)."""
    left, right = set(normalise(a).split()), set(normalise(b).split())
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


@dataclass(frozen=True)
class MemoryEntry:
    """One remembered fact. ``scope`` is "global" or the assistant id, given by the store (not stored per line)."""

    id: str
    text: str
    status: str = "candidate"
    pinned: bool = False
    hits: int = 0
    evidence: int = 1
    expires: str | None = None
    created: str = ""
    updated: str = ""
    sources: tuple[int, ...] = ()
    note: str = ""
    scope: str = ""

    def expired(self, now: datetime | None = None) -> bool:
        """True once ``expires`` has passed. An unreadable expiry counts as expired (never recalled forever)."""
        if self.expires is None:
            return False
        moment = parse_time(self.expires)
        if moment is None:
            return True
        now = now or datetime.now(timezone.utc)
        return moment <= (now if now.tzinfo else now.replace(tzinfo=timezone.utc))

    def recallable(self, now: datetime | None = None) -> bool:
        """Not retired and not expired."""
        return self.status != "retired" and not self.expired(now)


# --- validation of values given through the API (bad values -> OkBotError) ---------------------------------------


def _check_text(text: object) -> str:
    if not isinstance(text, str):
        raise OkBotError(
            translate("store", "A memory's text must be a string, not {kind}.").format(kind=type(text).__name__)
        )
    text = text.strip()
    if not text:
        raise OkBotError(translate("store", "A memory needs some text; empty or whitespace-only text is not saved."))
    if len(text) > MAX_ENTRY_CHARS:
        raise OkBotError(
            translate("store", "This memory is {chars} characters long; the limit is {limit}.").format(
                chars=f"{len(text):,}", limit=f"{MAX_ENTRY_CHARS:,}"
            ),
            hint=translate("store", "shorten it or split it into several memories"),
        )
    return text


def _check_status(status: object) -> str:
    if status not in STATUSES:
        raise OkBotError(
            translate("store", "Unknown memory status {status}; use one of: {statuses}.").format(
                status=repr(status), statuses=", ".join(STATUSES)
            )
        )
    return str(status)


def _check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise OkBotError(
            translate("store", "A memory's {name} flag must be true or false, not {value}.").format(
                name=name, value=repr(value)
            )
        )
    return value


def _check_count(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise OkBotError(
            translate("store", "A memory's {name} must be a whole number >= {minimum}, not {value}.").format(
                name=name, minimum=minimum, value=repr(value)
            )
        )
    return value


def _check_sources(value: object) -> tuple[int, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise OkBotError(
            translate("store", "A memory's sources must be a list of item ids, not {value}.").format(value=repr(value))
        )
    items = tuple(value)
    if any(isinstance(i, bool) or not isinstance(i, int) or i < 0 for i in items):
        raise OkBotError(
            translate("store", "A memory's sources must be item ids (whole numbers >= 0), not {value}.").format(
                value=repr(list(items))
            )
        )
    return items


def _check_expires(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return moment.astimezone(timezone.utc).isoformat()
    if isinstance(value, str):
        moment = parse_time(value)
        if moment is not None:
            return moment.isoformat()
    raise OkBotError(
        translate(
            "store", "A memory's expiry must be an ISO-8601 time such as 2026-12-31T00:00:00+00:00, not {value}."
        ).format(value=repr(value))
    )


def _check_note(value: object) -> str:
    if not isinstance(value, str):
        raise OkBotError(translate("store", "A memory's note must be text, not {value}.").format(value=repr(value)))
    return value


# --- the on-disk line format ------------------------------------------------------------------------------------


@dataclass
class _Loaded:
    """One read of the file: the good entries (file order), unknown keys per id, and the unreadable lines."""

    entries: list[MemoryEntry]
    extras: dict[str, dict[str, Any]]
    bad_lines: list[bytes]
    problems: list[str]
    version: int = FILE_VERSION  # of the header; 0 for a file with lines but no header


def _entry_from_obj(obj: dict[str, Any], scope: str, where: str, issues: list[str]) -> MemoryEntry:
    """Build an entry from a line's object; fields with a wrong type fall back to defaults (noted in ``issues``)."""

    def field(name: str, check: Any, default: Any) -> Any:
        if name not in obj:
            return default
        try:
            return check(obj[name])
        except OkBotError:
            issues.append(
                translate("store", "{where}: bad {name} value {value} ignored").format(
                    where=where, name=repr(name), value=repr(obj[name])
                )
            )
            return default

    expires = obj.get("expires")
    if expires is not None and not isinstance(expires, str):
        issues.append(
            translate("store", "{where}: bad 'expires' value {value}; the entry is treated as expired").format(
                where=where, value=repr(expires)
            )
        )
        expires = "invalid"
    return MemoryEntry(
        id=obj["id"],
        text=obj["text"],
        status=field("status", _check_status, "candidate"),
        pinned=field("pinned", lambda v: _check_bool(v, "pinned"), False),
        hits=field("hits", lambda v: _check_count(v, "hits", 0), 0),
        evidence=field("evidence", lambda v: _check_count(v, "evidence", 0), 1),
        expires=expires,
        created=field("created", _check_note, ""),
        updated=field("updated", _check_note, ""),
        sources=field("sources", _check_sources, ()),
        note=field("note", _check_note, ""),
        scope=scope,
    )


def _parse(data: bytes, scope: str, name: str) -> _Loaded:
    """Read every line; never raises on content. Lines are numbered from 1 in problems."""
    loaded = _Loaded([], {}, [], [], 0 if data.strip() else FILE_VERSION)
    seen: set[str] = set()
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        where = translate("store", "{file} line {number}").format(file=name, number=number)
        torn = number == len(lines) and not data.endswith(b"\n")
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            why = (
                translate("store", "incomplete last line (torn write?)")
                if torn
                else translate("store", "not valid JSON")
            )
            loaded.problems.append(
                translate("store", "{where}: {why}; kept aside in {file}.bad").format(where=where, why=why, file=name)
            )
            loaded.bad_lines.append(raw)
            continue
        if isinstance(obj, dict) and "okbot" in obj and "text" not in obj:
            version = obj.get("version")
            if obj.get("okbot") == "memories" and isinstance(version, int) and version > FILE_VERSION:
                loaded.version = version
                loaded.problems.append(f"{where}: {migrations.newer_message(name, version, 'memories')}")
            elif obj.get("okbot") != "memories" or not isinstance(version, int) or version < 0:
                loaded.version = FILE_VERSION
                loaded.problems.append(
                    translate(
                        "store", "{where}: header {header} is not a version this OkBot knows; read anyway"
                    ).format(where=where, header=repr(obj))
                )
            else:
                loaded.version = version
            continue
        why = ""
        if not isinstance(obj, dict):
            why = translate("store", "not a JSON object")
        elif not isinstance(obj.get("text"), str) or not obj["text"].strip():
            why = translate("store", "no 'text'")
        elif "id" not in obj:
            # A line added by hand without an id gets a stable one (same line, same id on every read).
            obj["id"] = "m-" + hashlib.sha256(raw.strip()).hexdigest()[:8]
        elif not isinstance(obj["id"], str) or not obj["id"].strip():
            why = translate("store", "bad 'id'")
        if not why and obj["id"] in seen:
            why = translate("store", "duplicate id {id}").format(id=repr(obj["id"]))
        if why:
            loaded.problems.append(
                translate("store", "{where}: {why}; kept aside in {file}.bad").format(where=where, why=why, file=name)
            )
            loaded.bad_lines.append(raw)
            continue
        issues: list[str] = []
        entry = _entry_from_obj(obj, scope, where, issues)
        if issues:
            # The entry loads with defaults; the original line is kept aside so no value is lost.
            loaded.problems.extend(
                translate("store", "{issue} (original line kept in {file}.bad)").format(issue=issue, file=name)
                for issue in issues
            )
            loaded.bad_lines.append(raw)
        seen.add(entry.id)
        loaded.entries.append(entry)
        extra = {k: v for k, v in obj.items() if k not in _KNOWN_KEYS}
        if extra:
            loaded.extras[entry.id] = extra
    return loaded


def _encode(entry: MemoryEntry, extra: dict[str, Any] | None) -> str:
    obj: dict[str, Any] = {name: getattr(entry, name) for name in _FIELDS_WRITTEN}
    obj["sources"] = list(entry.sources)
    if entry.expires is not None:
        obj["expires"] = entry.expires
    if entry.note:
        obj["note"] = entry.note
    for key, value in (extra or {}).items():
        obj.setdefault(key, value)
    return json.dumps(obj, ensure_ascii=False)


# --- the store -------------------------------------------------------------------------------------------------


class MemoryStore:
    """One memory/ folder holding memories.jsonl (see the module docstring for the format and the guarantees).

    Thread-safe; a change re-reads the file first so another store's or process's edit is not lost.
    """

    FILE = "memories.jsonl"

    def __init__(self, directory: Path, scope: str) -> None:
        self.directory = Path(directory)
        self.scope = scope
        self.path = self.directory / self.FILE
        self.bad_path = self.directory / (self.FILE + ".bad")
        # the sidecar every writer of this folder takes (named before AppendLog's <file>.lock rule: kept so
        # an older OkBot running beside this one still shares it)
        self._file_lock = FileLock(self.directory / f".{self.FILE}.lock")
        self._lock = threading.RLock()  # FileLock is re-entrant per instance, not per thread: serialize first
        self._quarantine = AppendLog(self.bad_path, lock=self._file_lock)
        self._stamp: tuple[int, ...] | None = None
        self._loaded = _Loaded([], {}, [], [])
        self._active: list[MemoryEntry] = []
        self._by_id: dict[str, MemoryEntry] = {}
        self._revision: str | None = None
        self._graveyard: dict[str, dict[str, Any]] = {}  # unknown keys of deleted entries, for restore()
        self._problems: list[str] = []
        self._refresh(force=True)

    # reading ------------------------------------------------------------------------------------------------

    def _file_stamp(self) -> tuple[int, ...] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)

    def _refresh(self, *, force: bool = False) -> None:
        stamp = self._file_stamp()
        if not force and stamp == self._stamp:
            return
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            data = b""
        except OSError as exc:
            raise OkBotError(
                translate("store", "Cannot read {path}: {error}.").format(path=self.path, error=exc.strerror or exc)
            ) from exc
        self._set(_parse(data, self.scope, self.FILE), stamp)

    def _set(self, loaded: _Loaded, stamp: tuple[int, ...] | None) -> None:
        self._loaded = loaded
        self._stamp = stamp
        self._active = [e for e in loaded.entries if e.status != "retired"]
        self._by_id = {e.id: e for e in loaded.entries}
        self._revision = None
        self._problems = list(loaded.problems)

    @property
    def read_only(self) -> str:
        """Why this store refuses writes (memories.jsonl comes from a newer OkBot), else ``""``."""
        with self._lock:
            self._refresh()
            version = self._loaded.version
            return migrations.newer_message(self.path, version, "memories") if version > FILE_VERSION else ""

    @property
    def problems(self) -> list[str]:
        """One line per unreadable line or bad value in the file as it is now (re-read when it changed)."""
        with self._lock:
            self._refresh()
            return list(self._problems)

    def entries(self, *, include_retired: bool = False) -> list[MemoryEntry]:
        """Entries in file order (retired ones only when asked); re-reads the file only when it changed."""
        with self._lock:
            self._refresh()
            return list(self._loaded.entries if include_retired else self._active)

    def get(self, entry_id: str) -> MemoryEntry | None:
        """The entry with this id (retired included), or None."""
        with self._lock:
            self._refresh()
            return self._by_id.get(entry_id)

    def revision(self) -> str:
        """A digest of what recall depends on (id, text, status, pinned, expires, created); hits are excluded."""
        with self._lock:
            self._refresh()
            if self._revision is None:
                digest = hashlib.sha256(self.scope.encode("utf-8"))
                for e in sorted(self._loaded.entries, key=lambda e: e.id):
                    key = [e.id, e.text, e.status, e.pinned, e.expires, e.created]
                    digest.update(json.dumps(key, ensure_ascii=False).encode("utf-8") + b"\n")
                self._revision = digest.hexdigest()[:16]
            return self._revision

    def find_similar(self, text: str, *, threshold: float = 0.8) -> MemoryEntry | None:
        """The most similar non-retired entry (normalised word-set similarity >= threshold), ties by id; or None."""
        best: tuple[float, str] | None = None
        found: MemoryEntry | None = None
        words = set(normalise(text).split())
        if not words:
            return None
        for entry in self.entries():
            other = set(normalise(entry.text).split())
            if not other:
                continue
            score = len(words & other) / len(words | other)
            if score >= threshold and (best is None or (-score, entry.id) < (-best[0], best[1])):
                best, found = (score, entry.id), entry
        return found

    # writing ------------------------------------------------------------------------------------------------

    @contextmanager
    def _changing(self) -> Iterator[_Loaded]:
        """Lock, re-read the file, let the caller change the loaded state, then write it back atomically.

        Any OS failure (read-only folder, disk full, no permission) becomes an OkBotError naming the file.
        """
        with self._lock:
            try:
                ensure_private_dir(self.directory)
                self._file_lock.acquire()
            except OSError as exc:
                raise OkBotError(
                    translate("store", "Cannot save memories in {path}: {error}.").format(
                        path=self.directory, error=exc.strerror or exc
                    )
                ) from exc
            try:
                # Always a full re-read here: a stat stamp can miss a same-size rewrite within one clock tick.
                self._refresh(force=True)
                if self._loaded.version > FILE_VERSION:
                    raise migrations.NewerVersion(
                        self.path, self._loaded.version, FILE_VERSION, action="change the memories"
                    )
                loaded = _Loaded(list(self._loaded.entries), dict(self._loaded.extras), [], [], self._loaded.version)
                bad_lines = list(self._loaded.bad_lines)
                yield loaded
                try:
                    self._write(loaded, bad_lines)
                except OSError as exc:
                    raise OkBotError(
                        translate("store", "Cannot save memories to {path}: {error}.").format(
                            path=self.path, error=exc.strerror or exc
                        )
                    ) from exc
            finally:
                self._file_lock.release()

    def _write(self, loaded: _Loaded, bad_lines: list[bytes]) -> None:
        if loaded.version < FILE_VERSION:  # keep the old file before it gets the header
            migrations.persist_upgrade(self.path, "memories", migrations.upgrade("memories", {}, loaded.version))
        if bad_lines:
            # Quarantine first: a crash between the two writes duplicates a line, never loses one.
            self._quarantine.append(b"".join(line + b"\n" for line in bad_lines))
        lines = [json.dumps(HEADER)]
        lines.extend(_encode(e, loaded.extras.get(e.id)) for e in loaded.entries)
        atomic_write_bytes(self.path, to_utf8("\n".join(lines) + "\n"), backup=True)
        self._set(_Loaded(loaded.entries, loaded.extras, [], []), self._file_stamp())

    def _new_id(self, taken: set[str]) -> str:
        while True:
            entry_id = "m-" + secrets.token_hex(4)
            if entry_id not in taken:
                return entry_id

    def add(
        self,
        text: str,
        *,
        status: str = "candidate",
        pinned: bool = False,
        sources: Iterable[int] = (),
        expires: str | None = None,
        evidence: int = 1,
    ) -> MemoryEntry:
        """Add a new entry; OkBotError for empty text, text over MAX_ENTRY_CHARS or any other bad value."""
        text = _check_text(text)
        status = _check_status(status)
        pinned = _check_bool(pinned, "pinned")
        sources = _check_sources(sources)
        expires = _check_expires(expires)
        evidence = _check_count(evidence, "evidence", 0)
        with self._changing() as loaded:
            now = _now_iso()
            entry = MemoryEntry(
                id=self._new_id({e.id for e in loaded.entries}),
                text=text,
                status=status,
                pinned=pinned,
                evidence=evidence,
                expires=expires,
                created=now,
                updated=now,
                sources=sources,
                scope=self.scope,
            )
            loaded.entries.append(entry)
        return entry

    def update(self, entry_id: str, **changes: Any) -> MemoryEntry:
        """Change text/status/pinned/expires/sources/evidence/note of one entry; returns the new entry."""
        unknown = set(changes) - _UPDATABLE
        if unknown:
            raise TypeError(f"MemoryStore.update() cannot change {', '.join(sorted(unknown))}")
        checks = {
            "text": _check_text,
            "status": _check_status,
            "pinned": lambda v: _check_bool(v, "pinned"),
            "expires": _check_expires,
            "sources": _check_sources,
            "evidence": lambda v: _check_count(v, "evidence", 0),
            "note": _check_note,
        }
        clean = {name: checks[name](value) for name, value in changes.items()}
        with self._changing() as loaded:
            index = self._index(loaded, entry_id)
            old = loaded.entries[index]
            new = replace(old, **clean)
            if new != old:
                new = replace(new, updated=_now_iso())
                loaded.entries[index] = new
        return new

    def delete(self, entry_id: str) -> MemoryEntry:
        """Remove an entry and return it (pass it to :meth:`restore` to undo)."""
        with self._changing() as loaded:
            entry = loaded.entries.pop(self._index(loaded, entry_id))
            extra = loaded.extras.pop(entry_id, None)
            if extra:
                self._graveyard[entry_id] = extra
        return entry

    def restore(self, entry: MemoryEntry) -> None:
        """Put a deleted entry back with the same id; OkBotError if that id is in use again."""
        with self._changing() as loaded:
            if any(e.id == entry.id for e in loaded.entries):
                raise OkBotError(
                    translate("store", "Memory {id} already exists; nothing to restore.").format(id=entry.id)
                )
            loaded.entries.append(replace(entry, scope=self.scope))
            extra = self._graveyard.pop(entry.id, None)
            if extra:
                loaded.extras[entry.id] = extra

    def record_hits(self, ids: Iterable[str]) -> None:
        """Count one more recall for each id (unknown ids are ignored); does not change :meth:`revision`."""
        wanted: dict[str, int] = {}
        for entry_id in ids:
            wanted[entry_id] = wanted.get(entry_id, 0) + 1
        if not wanted:
            return
        with self._lock:
            self._refresh()
            if not any(entry_id in self._by_id for entry_id in wanted):
                return
            with self._changing() as loaded:
                loaded.entries[:] = [
                    replace(e, hits=e.hits + wanted[e.id]) if e.id in wanted else e for e in loaded.entries
                ]

    def _index(self, loaded: _Loaded, entry_id: str) -> int:
        for index, entry in enumerate(loaded.entries):
            if entry.id == entry_id:
                return index
        raise OkBotError(
            translate("store", "There is no memory with id {id} in {path}.").format(id=repr(entry_id), path=self.path)
        )
