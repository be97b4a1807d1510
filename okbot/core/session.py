"""The append-only transcript ``session.jsonl``: one item per line (schema in :mod:`okbot.core.items`).

Reading is built for long sessions. Opening is cheap (one ``stat`` and one byte read); the
readers the turn loop needs (:meth:`SessionStore.last_id`, :meth:`~SessionStore.tail`,
:meth:`~SessionStore.read_after`) read the file *backwards* from the end, in chunks that
double in size, so their cost follows the part of the tail they return, not the file. Random
access (:meth:`~SessionStore.get`, :meth:`~SessionStore.iter_items`, ``len``) goes through a
lazily built id -> byte offset index that later appends extend without a rescan.

Damaged input never costs a good line. A line that is not valid UTF-8, not JSON, not an item,
or whose id is not above every id before it (the later line loses) is skipped and recorded
once, by byte offset and length, in the sibling ``session.quarantine.jsonl``; each newly found
batch adds one ``notice`` item to the session and is reported through ``on_notice``. A torn last
line (crash mid-write) is set aside the same way when the store is opened, and the file is repaired
by *appending* a newline; existing bytes are never rewritten.

Memory stays bounded whatever the file holds. Every reader works in chunks, and a line longer than
:data:`MAX_LINE_BYTES` (far above the largest item OkBot writes, which :meth:`SessionStore.append`
refuses past it) is never held whole: readers only look for its end, it is set aside with a bounded
excerpt (head, tail, length, a streamed sha256) instead of a copy, and once recorded it is passed
over by offset and length, unread, on every later open.

Before an item is stored, every API key the app has resolved (``okbot.llm.keys``) is replaced by
``[redacted]`` in its text; nothing else in the text changes.

Limits: ids out of order can only come from outside edits. Once the index is current the readers
use it and are exact. Before that, the backwards readers resolve duplicates and disorder within
the part they read, but cannot see an earlier line with a *higher* id beyond where they stop
(e.g. ids ``2, 1``: ``read_after(1)`` stops at the bad ``1``); the scan sets such lines aside.

Several processes may append (GUI and CLI): each write ("find the last id on disk, assign the
next, write, fsync"; a torn-line repair; a quarantine record) holds an advisory lock on the
sidecar ``session.jsonl.lock`` (:mod:`okbot.storage.datalock`), so ids never repeat and lines never
interleave. Items from a newer OkBot (``v`` above ``items.SCHEMA_VERSION``) make the store
read-only: reading works (items it cannot understand are skipped), appending raises OkBotError,
and nothing is rewritten, repaired or quarantined.
"""

from __future__ import annotations

import base64
import bisect
import contextlib
import copy
import functools
import hashlib
import json
import os
import re
import threading
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, TypeVar

from okbot.core import items
from okbot.llm import keys
from okbot.storage.datalock import FileLock, append_durably, storage_error
from okbot.storage.errors import OkBotError

Item = dict[str, Any]
_F = TypeVar("_F", bound=Callable[..., Any])

_ID_PREFIX = re.compile(rb'\{"id":(\d{1,18})[,}]')
_FIRST_CHUNK = 64 * 1024  # backwards reads start here and double...
_MAX_CHUNK = 8 * 1024 * 1024  # ...up to this
_SCAN_CHUNK = 4 * 1024 * 1024  # forward index scan
_CACHE_SLOTS = 4  # read_after answers kept (by after_id)
_NEWER = "written by a newer OkBot: item schema v"

#: The longest line read as an item. The largest item OkBot writes is a reply of at most 2,000,000
#: characters (``openai_backend.MAX_REPLY_CHARS``; a user message holds at most 1,000,000, a tool
#: result far less), at most 12 MB even if every character were a six-byte JSON escape.
MAX_LINE_BYTES = 32 * 1024 * 1024
EXCERPT_BYTES = 2048  # head and tail kept when an over-long line is set aside
_NOT_REDACTED = frozenset({"id", "v", "ts", "type", "author", "source", "status", "level", "ok", "usage"})
_RECORD_HEAD = re.compile(rb'\{"offset": (\d{1,18})(?:, "length": (\d{1,18}))?')


class _Bad(NamedTuple):
    """A line set aside: where it starts, why, its bytes (None: not held, read from the file when
    recorded) and its length without the newline."""

    offset: int
    reason: str
    raw: bytes | None
    length: int


def _kept(line: bytes) -> bytes | None:
    """A bad line's bytes if short; a long one is read again only when it is recorded."""
    return line if len(line) <= _FIRST_CHUNK else None


def _over_long(length: int, limit: int) -> str:
    return f"a line of {length:,} bytes, over the {limit:,}-byte limit for one item (not read)"


def _newer(obj: dict) -> int:
    """The item's schema version if it is newer than this build's, else 0."""
    v = obj.get("v")
    return v if type(v) is int and v > items.SCHEMA_VERSION else 0


def _check_line(line: bytes) -> tuple[Item | None, str]:
    """``(item, "")`` if ``line`` is a valid item, else ``(None, why)``. Ordering is not checked."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"invalid UTF-8 at byte {exc.start}"
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        return None, "not valid JSON (nested too deeply)"
    try:
        items.validate_item(obj)
    except items.InvalidItem as exc:
        newer = _newer(obj) if isinstance(obj, dict) else 0
        return None, f"{_NEWER}{newer}" if newer else f"not a session item: {exc}"
    match = _ID_PREFIX.match(line)
    if match is not None and int(match.group(1)) != obj["id"]:
        return None, "ambiguous item: the 'id' key appears more than once"
    return obj, ""


def _size_of(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


def _is_blank(line: bytes) -> bool:
    return not line or line.isspace()


def _clone(item: Item) -> Item:
    """A copy safe to mutate (items are flat apart from small dicts such as ``usage``)."""
    out = dict(item)
    for key, value in out.items():
        if isinstance(value, (dict, list)):
            out[key] = copy.deepcopy(value)
    return out


def _redacted(value: Any, secrets: tuple[str, ...]) -> Any:
    """``value`` with every exact occurrence of each secret replaced, in strings at any depth.

    Only the secrets themselves: ``keys.redact`` also masks anything shaped like a key, which
    would change what a person wrote about keys."""
    if isinstance(value, str):
        return keys.redact_remembered(value, secrets)
    if isinstance(value, list):
        return [_redacted(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: _redacted(v, secrets) for k, v in value.items()}
    return value


def _lines_forward(
    fh: BinaryIO, start: int, stop: int, limit: int, skip: dict[int, int] | None = None
) -> Iterator[tuple[int, bytes | None, int]]:
    """Complete lines between ``start`` (a line start) and ``stop``, as ``(offset, bytes, length)``.

    Memory stays within about ``limit`` plus one chunk: a line longer than ``limit`` comes as
    ``(offset, None, length)`` after a scan for its end that keeps none of it, and a line ``skip``
    maps to its length (one set aside before) is passed over unread, also as ``None``, once it
    runs past a chunk and its recorded end is a newline. The piece after the last newline (a line
    still being written) is not yielded."""
    pos = read_at = start  # pos: where the line being assembled starts
    parts: list[bytes] = []  # its pieces so far, unless it is over the limit
    held = 0  # bytes of it read so far
    checked = -1  # the line start whose skip entry was looked at
    while read_at < stop:
        if skip and held and checked != pos:
            checked = pos
            length = skip.get(pos, -1)
            if length >= held and pos + length < stop:
                fh.seek(pos + length)
                if fh.read(1) == b"\n":
                    yield pos, None, length
                    pos = read_at = pos + length + 1
                    parts, held = [], 0
                continue
        fh.seek(read_at)  # also after a yield: the caller may read the file between lines (a None line's head)
        data = fh.read(min(_SCAN_CHUNK, stop - read_at))
        if not data:
            break
        read_at += len(data)
        if held > limit:  # an over-long line: only look for its end
            nl = data.find(b"\n")
            if nl < 0:
                held += len(data)
                continue
            yield pos, None, held + nl
            pos += held + nl + 1
            held = 0
            data = data[nl + 1 :]
        lines = data.split(b"\n")
        rest = lines.pop()
        if lines:
            if parts:
                parts.append(lines[0])
                lines[0] = b"".join(parts)
                parts = []
            for line in lines:
                length = len(line)
                yield pos, line if length <= limit else None, length
                pos += length + 1
            held = 0
        held += len(rest)
        if held > limit:
            parts = []
        elif rest:
            parts.append(rest)


def _lines_backward(
    fh: BinaryIO, size: int, limit: int, skip: dict[int, int] | None = None
) -> Iterator[tuple[int, bytes | None, int]]:
    """Complete lines within the first ``size`` bytes, last first, as ``(offset, bytes, length)``.

    Bounded like :func:`_lines_forward` (over-long and skipped lines come as ``None``); the piece
    after the last newline is skipped. Chunks double up to ``_MAX_CHUNK``, so a short tail costs a
    short read, and a line ``skip`` maps to its length is jumped over once its end is found."""
    starts = {off + length: off for off, length in skip.items()} if skip else {}
    pos, chunk = size, _FIRST_CHUNK
    parts: list[bytes] = []  # pieces of the line being assembled, latest first
    held = 0
    line_end = -1  # the newline ending the line being assembled; -1: none yet (the unfinished piece)
    while pos > 0:
        step = min(chunk, pos)
        pos -= step
        chunk = min(chunk * 2, _MAX_CHUNK)
        fh.seek(pos)
        data = fh.read(step)
        end = len(data)
        while True:
            nl = data.rfind(b"\n", 0, end)
            if nl < 0:
                held += end
                if held > limit:
                    parts = []
                else:
                    parts.append(data[:end])
                break
            begin = pos + nl + 1
            if line_end >= 0:
                length = line_end - begin
                if length <= limit:
                    parts.append(data[nl + 1 : end])
                    yield begin, b"".join(reversed(parts)), length
                else:
                    yield begin, None, length
            parts, held = [], 0
            line_end = end = pos + nl
            known = starts.get(line_end)
            if known is None:
                end = nl
                continue
            if known == 0:
                before = b"\n"
            elif known > pos:
                before = data[known - 1 - pos : known - pos]
            else:
                fh.seek(known - 1)
                before = fh.read(1)
            if before != b"\n":
                end = nl
                continue
            yield known, None, line_end - known
            if known == 0:
                return
            line_end = known - 1
            if line_end >= pos:
                end = line_end - pos
                continue
            pos = line_end
            break
    if line_end >= 0:
        yield 0, b"".join(reversed(parts)) if line_end <= limit else None, line_end


def _public(method: _F) -> _F:
    """Run under the store lock, turn OS errors into user-facing ones, then deliver notices."""

    @functools.wraps(method)
    def wrapper(self: SessionStore, *args: Any, **kwargs: Any) -> Any:
        try:
            with self._lock:
                return method(self, *args, **kwargs)
        except OSError as exc:
            raise storage_error(self.path, exc) from exc
        finally:
            self._flush_notices()

    return wrapper  # type: ignore[return-value]


class SessionStore:
    """Reads and appends the items of one ``session.jsonl``; thread-safe.

    Every item returned is a fresh copy: callers may mutate it freely.
    ``problems`` lists the human-readable notices produced so far (also sent to ``on_notice``,
    outside the lock, from the thread that found them).
    """

    #: lines longer than this are set aside unread (a class attribute so tests can use a small one)
    max_line_bytes = MAX_LINE_BYTES

    def __init__(self, path: Path, *, on_notice: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.quarantine_path = self.path.with_name(f"{self.path.stem}.quarantine.jsonl")
        self.lock_path = self.path.with_name(f"{self.path.name}.lock")
        self.problems: list[str] = []
        self._on_notice = on_notice
        self._lock = threading.RLock()
        self._file_lock = FileLock(self.lock_path)  # other processes; taken only to write
        self._newer_v = 0  # newest item schema seen, when above ours
        self._outbox: list[str] = []
        self._size = -1  # file size as last seen or written by us
        self._last: int | None = None  # last id, valid while the size is unchanged
        self._cache: dict[int, tuple[int, list[Item], bool]] = {}
        self._quarantined: dict[int, int] | None = None  # offset -> length (-1: not recorded)
        self._quarantine_size = -1
        self._reset_index()
        self._open_check()

    @_public
    def _open_check(self) -> None:
        size = self._refresh()
        if size > 0 and not self._ends_with_newline(size):
            with self._file_lock:  # the line may still be being written by another process
                size = self._refresh()
                if size > 0 and not self._ends_with_newline(size):
                    self._repair_torn(size)

    @property
    def read_only(self) -> bool:
        """True once items from a newer OkBot were seen: reading works, appending refuses."""
        return self._newer_v > 0

    def _note_versions(self, found: list[Item], bad: list[_Bad]) -> None:
        """Turn read-only when ``found`` or ``bad`` hold items from a newer OkBot."""
        version = max(
            [_newer(it) for it in found] + [int(b.reason[len(_NEWER) :]) for b in bad if b.reason.startswith(_NEWER)],
            default=0,
        )
        if version and not self._newer_v:
            self._notify(
                f"{self.path.name} holds items from a newer OkBot (item schema v{version}; "
                f"this build knows v{items.SCHEMA_VERSION}). The chat is shown read-only."
            )
        self._newer_v = max(self._newer_v, version)

    # ------------------------------------------------------------------ public API
    @_public
    def append(self, item: dict) -> dict:
        """Store ``item`` under the next id (any ``id`` given is ignored), durably; return it."""
        return _clone(self._append_locked(item))

    @_public
    def last_id(self) -> int:
        """The highest item id (0 when empty), found by reading backwards from the end."""
        return self._last_id_locked()

    @_public
    def tail(self, n: int) -> list[dict]:
        """The last ``n`` valid items, oldest first, read backwards from the end."""
        if n <= 0:
            return []
        size = self._refresh()
        if self._index_current(size):
            return list(self._iter_range(self._offs, self._lens, max(0, len(self._ids) - n), len(self._ids)))
        found, _, bad = self._read_back(size, want=n)
        if self._report(bad):
            found, _, _ = self._read_back(self._size, want=n)
        return [_clone(it) for it in found[-n:]]

    @_public
    def read_after(self, after_id: int) -> tuple[list[dict], bool]:
        """All valid items with id > ``after_id``, in order, and whether ``after_id`` exists.

        Reads backwards until a line with id <= ``after_id``, so the cost follows the tail.
        The existence flag is True for ``after_id == 0``. Repeated calls on an unchanged file
        are answered from a small cache that our own appends keep current.
        """
        size = self._refresh()
        hit = self._cache.get(after_id)
        if hit is None or hit[0] != size:
            if self._index_current(size):
                found, exists = self._read_after_indexed(after_id)
            else:
                found, boundary, bad = self._read_back(size, after_id=after_id)
                if self._report(bad):
                    size = self._size
                    found, boundary, _ = self._read_back(size, after_id=after_id)
                exists = after_id == 0 or (boundary is not None and boundary["id"] == after_id)
            if len(self._cache) >= _CACHE_SLOTS and after_id not in self._cache:
                self._cache.pop(next(iter(self._cache)))
            hit = self._cache[after_id] = (size, found, exists)
        return [_clone(it) for it in hit[1]], hit[2]

    def _index_current(self, size: int) -> bool:
        return self._indexed and self._indexed_to == size

    def _read_after_indexed(self, after_id: int) -> tuple[list[Item], bool]:
        """read_after through a current index: exact even when outside edits left ids out of order."""
        ids = self._ids
        pos = bisect.bisect_right(ids, after_id)
        exists = after_id == 0 or (pos > 0 and ids[pos - 1] == after_id)
        return list(self._iter_range(self._offs, self._lens, pos, len(ids))), exists

    @_public
    def get(self, item_id: int) -> dict | None:
        """The item with ``item_id``, or None; random access through the offset index."""
        self._ensure_index_locked()
        pos = bisect.bisect_left(self._ids, item_id)
        if pos == len(self._ids) or self._ids[pos] != item_id:
            return None
        with self._open_read() as fh:
            fh.seek(self._offs[pos])
            return json.loads(fh.read(self._lens[pos]))

    @_public
    def ensure_index(self) -> None:
        """Build (or extend) the id -> offset index with one forward scan, validating every line."""
        self._ensure_index_locked()

    @_public
    def ids(self) -> array:
        """Every valid item id, in order (a copy; builds the index)."""
        self._ensure_index_locked()
        return array("q", self._ids)

    @_public
    def __len__(self) -> int:
        """Number of valid items (builds the index)."""
        self._ensure_index_locked()
        return len(self._ids)

    @_public
    def iter_items(self, start_id: int | None = None, end_id: int | None = None) -> Iterator[dict]:
        """Valid items with ``start_id <= id <= end_id`` (either bound optional), in order."""
        self._ensure_index_locked()
        ids, offs, lens = self._ids, self._offs, self._lens
        lo = 0 if start_id is None else bisect.bisect_left(ids, start_id)
        hi = len(ids) if end_id is None else bisect.bisect_right(ids, end_id)
        return self._iter_range(offs, lens, lo, hi)

    def _iter_range(self, offs: array, lens: array, lo: int, hi: int) -> Iterator[Item]:
        if lo >= hi:
            return
        with self._open_read() as fh:
            for pos in range(lo, hi):
                fh.seek(offs[pos])
                yield json.loads(fh.read(lens[pos]))

    # ------------------------------------------------------------------ file access
    def _open_read(self) -> BinaryIO:
        """Open the session for reading (one place, so tests can count what is read)."""
        return open(self.path, "rb")

    def _refresh(self) -> int:
        """Current size; forget cached answers when someone else changed the file."""
        size = _size_of(self.path)
        if size != self._size:
            self._cache.clear()
            self._last = None
            self._size = size
        return size

    def _ends_with_newline(self, size: int) -> bool:
        with self._open_read() as fh:
            fh.seek(size - 1)
            return fh.read(1) == b"\n"

    def _write(self, path: Path, data: bytes) -> int:
        """Append ``data`` durably to ``path`` (one place, so tests can fail writes); return the new size."""
        return append_durably(path, data)

    def _skip_map(self) -> dict[int, int]:
        """Lines set aside before that are over the limit: passed over by offset and length, unread."""
        limit = self.max_line_bytes
        return {off: length for off, length in self._quarantine_set().items() if length > limit}

    # ------------------------------------------------------------------ backwards reading
    def _read_back(
        self, size: int, *, after_id: int | None = None, want: int | None = None
    ) -> tuple[list[Item], Item | None, list[_Bad]]:
        """Read valid items backwards from ``size``. Stops at the first valid line with id <= ``after_id``
        (returned as the boundary), or once ``want`` items are held and an older valid line confirms
        their order. A later line whose id is not above an earlier one loses, as in the forward scan.
        Returns the items in file order, the boundary and the newly seen bad lines; notes items from
        a newer OkBot (read-only)."""
        held: list[tuple[int, int, Item]] = []  # (offset, length, item), newest first
        bad: list[_Bad] = []
        boundary = None
        if size == 0:
            return [], None, bad
        limit = self.max_line_bytes
        with self._open_read() as fh:
            for offset, line, length in _lines_backward(fh, size, limit, self._skip_map()):
                if line is None:
                    bad.append(_Bad(offset, _over_long(length, limit), None, length))
                    continue
                if _is_blank(line):
                    continue
                item, reason = _check_line(line)
                if item is None:
                    bad.append(_Bad(offset, reason, _kept(line), length))
                    continue
                item_id = item["id"]
                if after_id is not None and item_id <= after_id:
                    boundary = item
                    break
                if want is not None and len(held) >= want and item_id < held[-1][2]["id"]:
                    boundary = item
                    break
                while held and held[-1][2]["id"] <= item_id:
                    off, n, lost = held.pop()  # its text is read again only if it is recorded
                    bad.append(
                        _Bad(
                            off,
                            f"duplicate or non-increasing id {lost['id']} (an earlier line has id {item_id})",
                            None,
                            n,
                        )
                    )
                held.append((offset, length, item))
        if bad:
            known = self._quarantine_set()
            bad = [b for b in bad if b.offset not in known]
        held.reverse()
        found = [it for _, _, it in held]
        self._note_versions(found if boundary is None else [*found, boundary], bad)
        return found, boundary, bad

    def _last_id_locked(self) -> int:
        size = self._refresh()
        if self._last is None:
            if self._index_current(size):
                self._last = self._index_max
            else:
                found, _, bad = self._read_back(size, want=1)
                self._last = max(found[-1]["id"] if found else 0, self._index_max)
                self._report(bad)  # may append a notice, which advances self._last
        return self._last

    # ------------------------------------------------------------------ writing
    def _append_locked(self, item: Item) -> Item:
        with self._file_lock:  # other processes wait from here until the line is durable
            seen = self._size
            size = self._refresh()
            # our own writes always end with a newline; check only when someone else wrote
            if size > 0 and size != seen and not self._ends_with_newline(size):
                self._repair_torn(size)
            new_id = self._last_id_locked() + 1
            if self._newer_v:
                raise OkBotError(
                    f"{self.path} was written by a newer OkBot (item schema v{self._newer_v}; "
                    f"this build knows v{items.SCHEMA_VERSION}), so it is read-only here.",
                    hint="update OkBot to continue this chat",
                )
            size = self._size
            stored: Item = {"id": new_id}
            stored.update((k, v) for k, v in item.items() if k != "id")
            stored.setdefault("v", items.SCHEMA_VERSION)
            stored.setdefault("ts", items.now_iso())
            secrets = keys.remembered_secrets()
            if secrets:
                stored.update((k, _redacted(v, secrets)) for k, v in stored.items() if k not in _NOT_REDACTED)
            items.validate_item(stored)
            data = items.encode_item(stored)
            if len(data) - 1 > self.max_line_bytes:  # it could never be read back as an item
                raise OkBotError(
                    f"This {stored['type']} item is {len(data) - 1:,} bytes long; a session "
                    f"line holds at most {self.max_line_bytes:,}, so it was not stored."
                )
            new_size = self._write(self.path, data)
        if new_size != size + len(data):  # someone wrote without the lock: trust nothing cached
            self._size = -1
            return stored
        for key, (cached_size, found, exists) in list(self._cache.items()):
            if cached_size == size:
                found.append(stored)
                self._cache[key] = (new_size, found, exists)
            else:
                del self._cache[key]
        if self._indexed and self._indexed_to == size:
            self._add_to_index(new_id, size, len(data) - 1)
            self._indexed_to = new_size
        self._last = new_id
        self._size = new_size
        return stored

    def _repair_torn(self, size: int) -> None:
        """The file does not end with a newline: set the fragment aside, then append one."""
        limit = self.max_line_bytes
        with self._open_read() as fh:
            start = self._line_start(fh, size)
            fragment = None
            if size - start <= limit:
                fh.seek(start)
                fragment = fh.read(size - start)
        if fragment is None:
            item, reason = None, _over_long(size - start, limit)
        else:
            item, reason = _check_line(fragment)
        before, _, _ = self._read_back(start, want=1)  # notes items from a newer OkBot
        self._note_versions([item] if item else [], [_Bad(start, reason, None, size - start)])
        if self._newer_v:
            return  # a newer OkBot's file: leave every byte as it is
        if item is not None and before and before[-1]["id"] >= item["id"]:
            item, reason = None, f"duplicate or non-increasing id {item['id']}"
        if item is not None:
            self._write(self.path, b"\n")
            self._size = -1
            self._notify(
                f"The last line of {self.path.name} lacked its newline (interrupted "
                "write); the newline was added and nothing was lost."
            )
            return
        self._quarantine([_Bad(start, f"torn last line (interrupted write): {reason}", fragment, size - start)])
        self._write(self.path, b"\n")
        self._size = -1
        text = (
            f"The last line of {self.path.name} was cut off by an interrupted write; it was "
            f"set aside in {self.quarantine_path.name} (byte {start}). Every other line is intact."
        )
        self._notify(text)
        self._append_locked(items.notice(text, "warning"))

    @staticmethod
    def _line_start(fh: BinaryIO, size: int) -> int:
        """Where the line holding byte ``size - 1`` starts: just after the last newline before ``size``."""
        pos = size
        while pos > 0:
            step = min(_SCAN_CHUNK, pos)
            pos -= step
            fh.seek(pos)
            nl = fh.read(step).rfind(b"\n")
            if nl >= 0:
                return pos + nl + 1
        return 0

    # ------------------------------------------------------------------ quarantine and notices
    def _quarantine_set(self) -> dict[int, int]:
        """Offset -> length (-1 when the record does not say) of every line recorded in the quarantine."""
        q_size = _size_of(self.quarantine_path)
        if self._quarantined is None or q_size != self._quarantine_size:  # first use, or another writer
            recorded: dict[int, int] = {}
            with contextlib.suppress(FileNotFoundError), open(self.quarantine_path, "rb") as fh:
                # records start with offset and length, so even an old full copy of a huge line
                # needs only its first bytes
                for offset, raw, _ in _lines_forward(fh, 0, q_size, _FIRST_CHUNK):
                    if raw is None:
                        fh.seek(offset)
                        raw = fh.read(100)
                    match = _RECORD_HEAD.match(raw)
                    if match is not None:
                        recorded[int(match.group(1))] = int(match.group(2) or -1)
                        continue
                    with contextlib.suppress(ValueError, KeyError, TypeError):
                        record = json.loads(raw)
                        recorded[int(record["offset"])] = int(record.get("length", -1))
            self._quarantined, self._quarantine_size = recorded, q_size
        return self._quarantined

    def _quarantine(self, bad: list[_Bad]) -> list[_Bad]:
        """Record the lines not yet recorded; return those newly recorded."""
        known = self._quarantine_set()
        fresh: dict[int, _Bad] = {}
        for entry in sorted(bad):
            if entry.offset not in known:
                fresh.setdefault(entry.offset, entry)
        if not fresh:
            return []
        pending: list[bytes] = []
        held = 0
        with self._open_read() as fh:
            for entry in fresh.values():
                record = self._record(fh, entry)
                pending.append(record)
                held += len(record)
                if held > _FIRST_CHUNK * 16:  # write as we go: a batch may hold many long lines
                    self._quarantine_size = self._write(self.quarantine_path, b"".join(pending))
                    pending, held = [], 0
        if pending:
            self._quarantine_size = self._write(self.quarantine_path, b"".join(pending))
        known.update((offset, entry.length) for offset, entry in fresh.items())
        return list(fresh.values())

    def _record(self, fh: BinaryIO, entry: _Bad) -> bytes:
        """The quarantine line for ``entry``: the line itself, or for an over-long one a bounded excerpt."""
        record: Item = {"offset": entry.offset, "length": entry.length, "reason": entry.reason, "ts": items.now_iso()}
        raw = entry.raw
        if raw is None and entry.length <= self.max_line_bytes:
            fh.seek(entry.offset)
            raw = fh.read(entry.length)
        if raw is not None:
            try:
                record["line"] = raw.decode("utf-8")
            except UnicodeDecodeError:
                record["line_b64"] = base64.b64encode(raw).decode("ascii")
        else:  # stream it: the hash, its first and last bytes
            digest, head, tail = hashlib.sha256(), b"", b""
            fh.seek(entry.offset)
            left = entry.length
            while left > 0:
                data = fh.read(min(_SCAN_CHUNK, left))
                if not data:
                    break
                left -= len(data)
                digest.update(data)
                if len(head) < EXCERPT_BYTES:
                    head += data[: EXCERPT_BYTES - len(head)]
                tail = (tail + data[-EXCERPT_BYTES:])[-EXCERPT_BYTES:]
            record.update(
                sha256=digest.hexdigest(),
                excerpt_bytes=EXCERPT_BYTES,
                head=head.decode("utf-8", "backslashreplace"),
                tail=tail.decode("utf-8", "backslashreplace"),
            )
        return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")

    def _report(self, bad: list[_Bad]) -> bool:
        """Quarantine newly found bad lines and add one notice for the batch; True if any.

        Nothing is written to a read-only (newer OkBot's) session.
        """
        if not bad:
            return False
        self._note_versions([], bad)
        if self._newer_v:
            return False
        with self._file_lock:  # re-reads records another process added, so each line is recorded once
            fresh = self._quarantine(bad)
        if not fresh:
            return False
        offset, reason = fresh[0].offset, fresh[0].reason
        count = f"{len(fresh)} damaged line{'s' if len(fresh) > 1 else ''}"
        text = (
            f"{count} in {self.path.name} {'were' if len(fresh) > 1 else 'was'} skipped and "
            f"set aside in {self.quarantine_path.name} (first at byte {offset}: {reason}). "
            "Every other line is intact."
        )
        self._notify(text)
        self._append_locked(items.notice(text, "warning"))
        return True

    def _notify(self, text: str) -> None:
        self.problems.append(text)
        self._outbox.append(text)

    def _flush_notices(self) -> None:
        with self._lock:
            pending, self._outbox = self._outbox, []
        if self._on_notice is not None:
            for text in pending:
                self._on_notice(text)

    # ------------------------------------------------------------------ the offset index
    def _reset_index(self) -> None:
        self._ids = array("q")
        self._offs = array("q")
        self._lens = array("q")
        self._indexed = False
        self._indexed_to = 0  # bytes covered (always just after a newline)
        self._index_max = 0

    def _add_to_index(self, item_id: int, offset: int, length: int) -> None:
        self._ids.append(item_id)
        self._offs.append(offset)
        self._lens.append(length)
        self._index_max = item_id

    def _ensure_index_locked(self) -> None:
        size = self._refresh()
        if size < self._indexed_to:
            self._notify(f"{self.path.name} became shorter than before; it was read again.")
            self._reset_index()
        if not self._indexed or size > self._indexed_to:
            bad = self._scan(size) if size else []
            self._indexed = True
            self._report(bad)

    def _scan(self, size: int) -> list[_Bad]:
        """Index the complete lines between ``_indexed_to`` and ``size``; return new bad lines."""
        bad: list[_Bad] = []
        max_id = self._index_max
        add = self._add_to_index
        limit = self.max_line_bytes
        end = self._indexed_to
        with self._open_read() as fh:
            for pos, line, length in _lines_forward(fh, end, size, limit, self._skip_map()):
                end = pos + length + 1
                if line is None:
                    bad.append(_Bad(pos, _over_long(length, limit), None, length))
                elif not _is_blank(line):
                    item, reason = _check_line(line)
                    if item is not None and item["id"] <= max_id:
                        reason = f"duplicate or non-increasing id {item['id']} (an earlier line has id {max_id})"
                        item = None
                    if item is None:
                        bad.append(_Bad(pos, reason, _kept(line), length))
                    else:
                        max_id = item["id"]
                        add(max_id, pos, length)
                        if _newer(item):
                            self._note_versions([item], [])
        self._indexed_to = end
        return bad
