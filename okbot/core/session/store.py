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
by *appending* a newline; existing bytes are never rewritten. Recording and recognising set-aside
lines is :mod:`okbot.core.session.quarantine`'s job; judging one line, :mod:`okbot.core.session.parse`'s.

Memory stays bounded whatever the file holds. Every reader works in chunks
(:mod:`okbot.storage.lines`), and a line longer than :data:`MAX_LINE_BYTES` (far above the
largest item OkBot writes, which :meth:`SessionStore.append` refuses past it) is never held whole:
readers only look for its end, it is set aside with a bounded excerpt (head, tail, length, a
streamed sha256) instead of a copy, and once recorded it is passed over by offset and length,
unread, on every later open.

Before an item is stored, every API key the app has resolved (``okbot.llm.keys``) is replaced by
``[redacted]`` in its text; nothing else in the text changes.

Limits: ids out of order can only come from outside edits. Once the index is current the readers
use it and are exact. Before that, the backwards readers resolve duplicates and disorder within
the part they read, but cannot see an earlier line with a *higher* id beyond where they stop
(e.g. ids ``2, 1``: ``read_after(1)`` stops at the bad ``1``); the scan sets such lines aside.

Several processes may append (GUI and CLI): each write ("find the last id on disk, assign the
next, write, fsync"; a torn-line repair; a quarantine record) holds an advisory lock on the
sidecar ``session.jsonl.lock`` (:mod:`okbot.storage.datalock`), so ids never repeat and lines never
interleave. Items from a newer OkBot (``v`` above ``items.NEWEST_VERSION``) make the store
read-only: reading works (items it cannot understand are skipped), appending raises OkBotError,
and nothing is rewritten, repaired or quarantined.
"""

from __future__ import annotations

import bisect
import contextlib
import copy
import functools
import json
import os
import threading
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from okbot.core import items
from okbot.core.session import branches
from okbot.core.session.parse import MAX_ID, NEWER, Item, check_line, is_blank, newer
from okbot.core.session.quarantine import BadLine, Quarantine, kept, over_long
from okbot.i18n import plural, translate
from okbot.llm import keys
from okbot.storage.datalock import FileLock, append_durably, storage_error
from okbot.storage.errors import OkBotError
from okbot.storage.lines import line_start, lines_backward, lines_forward

_F = TypeVar("_F", bound=Callable[..., Any])

_CACHE_SLOTS = 4  # read_after answers kept (by after_id)

#: The longest line read as an item. The largest item OkBot writes is a reply of at most 2,000,000
#: characters (``openai_backend.MAX_REPLY_CHARS``; a user message holds at most 1,000,000, a tool
#: result far less), at most 12 MB even if every character were a six-byte JSON escape.
MAX_LINE_BYTES = 32 * 1024 * 1024
# attachments: file records whose path must keep naming the copy (the file's text is never in them)
_NOT_REDACTED = frozenset(
    {"id", "v", "ts", "type", "author", "source", "status", "level", "ok", "usage", "attachments"}
)


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


class StaleIndex(OkBotError):
    """The file under the session's name is not the one indexed (replaced by one of the same size)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            translate("store", "{file} was replaced by another file; it was read again.").format(file=path.name)
        )


def _public(method: _F) -> _F:
    """Run under the store lock, turn OS errors into user-facing ones, then deliver notices."""

    @functools.wraps(method)
    def wrapper(self: SessionStore, *args: Any, **kwargs: Any) -> Any:
        try:
            with self._lock:
                try:
                    return method(self, *args, **kwargs)
                except StaleIndex as exc:  # (a lazy iter_items raises it to its reader; the next call resets)
                    self._notify(str(exc))
                    self._reset_index()
                    self._cache.clear()
                    self._size = -1
                    return method(self, *args, **kwargs)  # this pass indexes the file under the name afresh
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
        self._identity: tuple[int, int] | None = None  # (device, inode) of the file as last seen
        self._last: int | None = None  # last id, valid while the size is unchanged
        self._cache: dict[int, tuple[int, list[Item], bool]] = {}
        self._quarantine = Quarantine(self.quarantine_path)
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

    def _note_versions(self, found: list[Item], bad: list[BadLine]) -> None:
        """Turn read-only when ``found`` or ``bad`` hold items from a newer OkBot."""
        version = max(
            [newer(it) for it in found] + [int(b.reason[len(NEWER) :]) for b in bad if b.reason.startswith(NEWER)],
            default=0,
        )
        if version and not self._newer_v:
            self._notify(
                translate(
                    "store",
                    "{file} holds items from a newer OkBot (item schema v{version}; "
                    "this build knows v{known}). The chat is shown read-only.",
                ).format(file=self.path.name, version=version, known=items.NEWEST_VERSION)
            )
        self._newer_v = max(self._newer_v, version)

    # ------------------------------------------------------------------ public API
    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the store's thread lock across several reads and appends (a look at the tail and what is
        appended because of it), so another thread's appends wait; re-entrant, as every method takes it."""
        with self._lock:
            yield

    @_public
    def append(self, item: dict) -> dict:
        """Store ``item`` under the next id (any ``id`` given is ignored), durably; return it."""
        return _clone(self._append_locked(item))

    @_public
    def last_id(self) -> int:
        """The highest item id (0 when empty), found by reading backwards from the end."""
        return self._last_id_locked()

    @_public
    def tail(self, n: int, *, all_versions: bool = False) -> list[dict]:
        """Of the last ``n`` valid items (oldest first, read backwards from the end), those on the
        current branch (:mod:`~okbot.core.session.branches`), or all of them with ``all_versions``."""
        if n <= 0:
            return []
        size = self._refresh()
        if self._index_current(size):
            found = list(
                self._iter_range(self._ids, self._offs, self._lens, max(0, len(self._ids) - n), len(self._ids))
            )
        else:
            found, _, bad = self._read_back(size, want=n)
            if self._report(bad):
                found, _, _ = self._read_back(self._size, want=n)
            found = [_clone(it) for it in found[-n:]]
        return found if all_versions else branches.current_branch(found)

    @_public
    def read_after(self, after_id: int, *, all_versions: bool = False) -> tuple[list[dict], bool]:
        """The valid items with id > ``after_id`` on the current branch (every one with
        ``all_versions``), in order, and whether ``after_id`` exists.

        Reads backwards until a line with id <= ``after_id``, so the cost follows the tail.
        The existence flag is True for ``after_id == 0``. Repeated calls on an unchanged file
        are answered from a small cache that our own appends keep current.
        """
        found, exists = self._read_after_all(after_id)
        if not all_versions:
            found = branches.current_branch(found, after_id if exists else None)
        return found, exists

    def _read_after_all(self, after_id: int) -> tuple[list[dict], bool]:
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
        return list(self._iter_range(self._ids, self._offs, self._lens, pos, len(ids))), exists

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
    def marker_ids(self) -> frozenset[int]:
        """The ids of the branch markers (builds the index)."""
        self._ensure_index_locked()
        return frozenset(self._parents)

    @_public
    def branch_ids(self, after_id: int = 0, *, markers: bool = True) -> array:
        """The ids on the current branch above ``after_id``, in order (builds the index); without the
        branch markers themselves when ``markers`` is False (the rows a chat shows).

        With no branch marker above ``after_id`` that is every id above it; otherwise one step per marker
        on the path (:func:`~okbot.core.session.branches.branch_slices`) and a copy of each run of ids."""
        self._ensure_index_locked()
        ids = self._ids
        lo = bisect.bisect_right(ids, after_id)
        if not any(marker > after_id for marker in self._parents):
            return array("q", ids[lo:])
        out = array("q")
        for start, stop in branches.branch_slices(ids, self._parents, lo):
            skip = not markers and ids[start] in self._parents
            out.extend(ids[start + skip : stop])
        return out

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
        return self._iter_range(ids, offs, lens, lo, hi)

    def _iter_range(self, ids: array, offs: array, lens: array, lo: int, hi: int) -> Iterator[Item]:
        if lo >= hi:
            return
        with self._open_read() as fh:
            for pos in range(lo, hi):
                fh.seek(offs[pos])
                try:
                    item = json.loads(fh.read(lens[pos]))
                except ValueError:
                    item = None
                if not isinstance(item, dict) or item.get("id") != ids[pos]:
                    raise StaleIndex(self.path)  # another file of the same size took the name (the stat could not tell)
                yield item

    # ------------------------------------------------------------------ file access
    def _open_read(self) -> BinaryIO:
        """Open the session for reading (one place, so tests can count what is read)."""
        return open(self.path, "rb")

    def _refresh(self) -> int:
        """Current size; forget cached answers when someone else changed the file, and the index too when
        another file took its name (a restored copy, an editor's save: OkBot itself only ever appends)."""
        try:
            st = os.stat(self.path)
            size, identity = st.st_size, (st.st_dev, st.st_ino)
        except FileNotFoundError:
            size, identity = 0, None
        replaced = None not in (identity, self._identity) and identity != self._identity
        self._identity = identity
        if self._indexed and (replaced or size < self._indexed_to):  # no offset of the old file holds
            if replaced:
                self._notify(str(StaleIndex(self.path)))
            elif identity is not None:  # (a file removed reads as empty; one made again is read afresh)
                self._notify(
                    translate("store", "{file} became shorter than before; it was read again.").format(
                        file=self.path.name
                    )
                )
            self._reset_index()
        if replaced or size != self._size:
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

    # ------------------------------------------------------------------ backwards reading
    def _read_back(
        self, size: int, *, after_id: int | None = None, want: int | None = None
    ) -> tuple[list[Item], Item | None, list[BadLine]]:
        """Read valid items backwards from ``size``. Stops at the first valid line with id <= ``after_id``
        (returned as the boundary), or once ``want`` items are held and an older valid line confirms
        their order. A later line whose id is not above an earlier one loses, as in the forward scan.
        Returns the items in file order, the boundary and the newly seen bad lines; notes items from
        a newer OkBot (read-only)."""
        held: list[tuple[int, int, Item]] = []  # (offset, length, item), newest first
        bad: list[BadLine] = []
        boundary = None
        if size == 0:
            return [], None, bad
        limit = self.max_line_bytes
        with self._open_read() as fh:
            for offset, line, length in lines_backward(fh, size, limit, self._quarantine.skip_map(limit)):
                if line is None:
                    bad.append(BadLine(offset, over_long(length, limit), None, length))
                    continue
                if is_blank(line):
                    continue
                item, reason = check_line(line)
                if item is None:
                    bad.append(BadLine(offset, reason, kept(line), length))
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
                        BadLine(
                            off,
                            f"duplicate or non-increasing id {lost['id']} (an earlier line has id {item_id})",
                            None,
                            n,
                        )
                    )
                held.append((offset, length, item))
        if bad:
            known = self._quarantine.recorded()
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
            if new_id > MAX_ID:  # only an outside edit writes such an id: this chat can take no more
                raise OkBotError(
                    translate(
                        "store", "{path} holds item id {last}, the highest there can be, so nothing more can be added."
                    ).format(path=self.path, last=f"{new_id - 1:,}"),
                    hint=translate("store", "export this chat and start a new one"),
                )
            if self._newer_v:
                raise OkBotError(
                    translate(
                        "store",
                        "{path} was written by a newer OkBot (item schema v{version}; "
                        "this build knows v{known}), so it is read-only here.",
                    ).format(path=self.path, version=self._newer_v, known=items.NEWEST_VERSION),
                    hint=translate("store", "update OkBot to continue this chat"),
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
                    translate(
                        "store",
                        "This {type} item is {size} bytes long; a session "
                        "line holds at most {limit}, so it was not stored.",
                    ).format(type=stored["type"], size=f"{len(data) - 1:,}", limit=f"{self.max_line_bytes:,}")
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
            parent = branches.explicit_parent(stored)
            if parent is not None:
                self._parents[new_id] = parent
            self._indexed_to = new_size
        self._last = new_id
        self._size = new_size
        return stored

    def _repair_torn(self, size: int) -> None:
        """The file does not end with a newline: set the fragment aside, then append one."""
        limit = self.max_line_bytes
        with self._open_read() as fh:
            start = line_start(fh, size)
            fragment = None
            if size - start <= limit:
                fh.seek(start)
                fragment = fh.read(size - start)
        if fragment is None:
            item, reason = None, over_long(size - start, limit)
        else:
            item, reason = check_line(fragment)
        before, _, _ = self._read_back(start, want=1)  # notes items from a newer OkBot
        self._note_versions([item] if item else [], [BadLine(start, reason, None, size - start)])
        if self._newer_v:
            return  # a newer OkBot's file: leave every byte as it is
        if item is not None and before and before[-1]["id"] >= item["id"]:
            item, reason = None, f"duplicate or non-increasing id {item['id']}"
        if item is not None:
            self._write(self.path, b"\n")
            self._size = -1
            self._notify(
                translate(
                    "store",
                    "The last line of {file} lacked its newline (interrupted "
                    "write); the newline was added and nothing was lost.",
                ).format(file=self.path.name)
            )
            return
        self._set_aside([BadLine(start, f"torn last line (interrupted write): {reason}", fragment, size - start)])
        self._write(self.path, b"\n")
        self._size = -1
        text = translate(
            "store",
            "The last line of {file} was cut off by an interrupted write; it was "
            "set aside in {quarantine} (byte {offset}). Every other line is intact.",
        ).format(file=self.path.name, quarantine=self.quarantine_path.name, offset=start)
        self._notify(text)
        self._append_locked(items.notice(text, "warning"))

    # ------------------------------------------------------------------ quarantine and notices
    def _set_aside(self, bad: list[BadLine]) -> list[BadLine]:
        """Record in the quarantine the lines not yet recorded; return those newly recorded."""
        return self._quarantine.record(bad, self._open_read, self._write, self.max_line_bytes)

    def _report(self, bad: list[BadLine]) -> bool:
        """Quarantine newly found bad lines and add one notice for the batch; True if any.

        Nothing is written to a read-only (newer OkBot's) session.
        """
        if not bad:
            return False
        self._note_versions([], bad)
        if self._newer_v:
            return False
        with self._file_lock:  # re-reads records another process added, so each line is recorded once
            fresh = self._set_aside(bad)
        if not fresh:
            return False
        offset, reason = fresh[0].offset, fresh[0].reason
        text = plural(
            len(fresh),
            translate(
                "store",
                "{n} damaged line in {file} was skipped and set aside in {quarantine} "
                "(first at byte {offset}: {reason}). Every other line is intact.",
            ),
            translate(
                "store",
                "{n} damaged lines in {file} were skipped and set aside in {quarantine} "
                "(first at byte {offset}: {reason}). Every other line is intact.",
            ),
        ).format(n=len(fresh), file=self.path.name, quarantine=self.quarantine_path.name, offset=offset, reason=reason)
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
        self._parents: dict[int, int] = {}  # branch marker id -> its parent id

    def _add_to_index(self, item_id: int, offset: int, length: int) -> None:
        self._ids.append(item_id)
        self._offs.append(offset)
        self._lens.append(length)
        self._index_max = item_id

    def _ensure_index_locked(self) -> None:
        size = self._refresh()
        if not self._indexed or size > self._indexed_to:
            bad = self._scan(size) if size else []
            self._indexed = True
            self._report(bad)

    def _scan(self, size: int) -> list[BadLine]:
        """Index the complete lines between ``_indexed_to`` and ``size``; return new bad lines."""
        bad: list[BadLine] = []
        max_id = self._index_max
        add = self._add_to_index
        limit = self.max_line_bytes
        end = self._indexed_to
        with self._open_read() as fh:
            for pos, line, length in lines_forward(fh, end, size, limit, self._quarantine.skip_map(limit)):
                end = pos + length + 1
                if line is None:
                    bad.append(BadLine(pos, over_long(length, limit), None, length))
                elif not is_blank(line):
                    item, reason = check_line(line)
                    if item is not None and item["id"] <= max_id:
                        reason = f"duplicate or non-increasing id {item['id']} (an earlier line has id {max_id})"
                        item = None
                    if item is None:
                        bad.append(BadLine(pos, reason, kept(line), length))
                    else:
                        max_id = item["id"]
                        add(max_id, pos, length)
                        parent = branches.explicit_parent(item)
                        if parent is not None:
                            self._parents[max_id] = parent
                        if newer(item):
                            self._note_versions([item], [])
        self._indexed_to = end
        return bad
