"""The sidecar ``session.quarantine.jsonl``: the lines of a session that were set aside.

Each damaged line is recorded once, by byte offset and length, with why it was set aside and
either its text or, for a line over the item limit, a bounded excerpt (head, tail, length and a
streamed sha256) instead of a copy. Readers ask :meth:`Quarantine.recorded` which lines are known
already, and pass the over-long ones (:meth:`Quarantine.skip_map`) over unread.

A :class:`Quarantine` is used under its session store's locks: the store's thread lock around
every call, and its file lock around :meth:`Quarantine.record`, so another process's records are
read before new ones are written and each line is recorded once.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from okbot.core import items
from okbot.storage.lines import FIRST_CHUNK, SCAN_CHUNK, lines_forward, size_of

EXCERPT_BYTES = 2048  # head and tail kept when an over-long line is set aside
_RECORD_HEAD = re.compile(rb'\{"offset": (\d{1,18})(?:, "length": (\d{1,18}))?')


class BadLine(NamedTuple):
    """A line set aside: where it starts, why, its bytes (None: not held, read from the file when
    recorded) and its length without the newline."""

    offset: int
    reason: str
    raw: bytes | None
    length: int


def kept(line: bytes) -> bytes | None:
    """A bad line's bytes if short; a long one is read again only when it is recorded."""
    return line if len(line) <= FIRST_CHUNK else None


def over_long(length: int, limit: int) -> str:
    """Why a line longer than ``limit`` bytes is set aside."""
    return f"a line of {length:,} bytes, over the {limit:,}-byte limit for one item (not read)"


class Quarantine:
    """Reads and appends one ``session.quarantine.jsonl``; knows which session lines it holds."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._recorded: dict[int, int] | None = None  # offset -> length (-1: not recorded)
        self._size = -1

    def recorded(self) -> dict[int, int]:
        """Offset -> length (-1 when the record does not say) of every line recorded in the quarantine."""
        q_size = size_of(self.path)
        if self._recorded is None or q_size != self._size:  # first use, or another writer
            recorded: dict[int, int] = {}
            with contextlib.suppress(FileNotFoundError), open(self.path, "rb") as fh:
                # records start with offset and length, so even an old full copy of a huge line
                # needs only its first bytes
                for offset, raw, _ in lines_forward(fh, 0, q_size, FIRST_CHUNK):
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
            self._recorded, self._size = recorded, q_size
        return self._recorded

    def skip_map(self, limit: int) -> dict[int, int]:
        """Lines set aside before that are over ``limit``: passed over by offset and length, unread."""
        return {off: length for off, length in self.recorded().items() if length > limit}

    def record(
        self,
        bad: list[BadLine],
        open_session: Callable[[], BinaryIO],
        write: Callable[[Path, bytes], int],
        limit: int,
    ) -> list[BadLine]:
        """Record the lines not yet recorded; return those newly recorded.

        ``open_session`` opens the session for reading the lines' bytes (only when there is something
        to record), ``write`` appends durably and returns the new size, and ``limit`` is the longest
        line copied whole.
        """
        known = self.recorded()
        fresh: dict[int, BadLine] = {}
        for entry in sorted(bad):
            if entry.offset not in known:
                fresh.setdefault(entry.offset, entry)
        if not fresh:
            return []
        pending: list[bytes] = []
        held = 0
        with open_session() as fh:
            for entry in fresh.values():
                record = record_line(fh, entry, limit)
                pending.append(record)
                held += len(record)
                if held > FIRST_CHUNK * 16:  # write as we go: a batch may hold many long lines
                    self._size = write(self.path, b"".join(pending))
                    pending, held = [], 0
        if pending:
            self._size = write(self.path, b"".join(pending))
        known.update((offset, entry.length) for offset, entry in fresh.items())
        return list(fresh.values())


def record_line(fh: BinaryIO, entry: BadLine, limit: int) -> bytes:
    """The quarantine line for ``entry`` read from the session ``fh``: the line itself, or for one over
    ``limit`` bytes a bounded excerpt."""
    record: dict[str, Any] = {
        "offset": entry.offset,
        "length": entry.length,
        "reason": entry.reason,
        "ts": items.now_iso(),
    }
    raw = entry.raw
    if raw is None and entry.length <= limit:
        fh.seek(entry.offset)
        raw = fh.read(entry.length)
    if raw is not None:
        try:
            record["line"] = raw.decode("utf-8")
        except UnicodeDecodeError:
            record["line_b64"] = base64.b64encode(raw).decode("ascii")
    else:
        record.update(_excerpt(fh, entry))
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


def _excerpt(fh: BinaryIO, entry: BadLine) -> dict[str, Any]:
    """A line too long to copy, streamed: its sha256, its first and last :data:`EXCERPT_BYTES`."""
    digest, head, tail = hashlib.sha256(), b"", b""
    fh.seek(entry.offset)
    left = entry.length
    while left > 0:
        data = fh.read(min(SCAN_CHUNK, left))
        if not data:
            break
        left -= len(data)
        digest.update(data)
        if len(head) < EXCERPT_BYTES:
            head += data[: EXCERPT_BYTES - len(head)]
        tail = (tail + data[-EXCERPT_BYTES:])[-EXCERPT_BYTES:]
    return {
        "sha256": digest.hexdigest(),
        "excerpt_bytes": EXCERPT_BYTES,
        "head": head.decode("utf-8", "backslashreplace"),
        "tail": tail.decode("utf-8", "backslashreplace"),
    }
