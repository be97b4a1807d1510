"""Reading the lines of a file in bounded memory, forwards or backwards, through an open binary handle.

Pure functions over a file handle (and :func:`size_of`, over a path): they know nothing of items,
sessions or the quarantine. A line is yielded as ``(offset, bytes, length)``; one longer than the
caller's ``limit``, or one the caller's ``skip`` map says to pass over, comes as
``(offset, None, length)`` and is never held whole. The piece after the last newline (a line still
being written) is never yielded.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

FIRST_CHUNK = 64 * 1024  # backwards reads start here and double...
MAX_CHUNK = 8 * 1024 * 1024  # ...up to this
SCAN_CHUNK = 4 * 1024 * 1024  # forward scans read this much at a time


def lines_forward(
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
        data = fh.read(min(SCAN_CHUNK, stop - read_at))
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


def lines_backward(
    fh: BinaryIO, size: int, limit: int, skip: dict[int, int] | None = None
) -> Iterator[tuple[int, bytes | None, int]]:
    """Complete lines within the first ``size`` bytes, last first, as ``(offset, bytes, length)``.

    Bounded like :func:`lines_forward` (over-long and skipped lines come as ``None``); the piece
    after the last newline is skipped. Chunks double up to ``MAX_CHUNK``, so a short tail costs a
    short read, and a line ``skip`` maps to its length is jumped over once its end is found."""
    starts = {off + length: off for off, length in skip.items()} if skip else {}
    pos, chunk = size, FIRST_CHUNK
    parts: list[bytes] = []  # pieces of the line being assembled, latest first
    held = 0
    line_end = -1  # the newline ending the line being assembled; -1: none yet (the unfinished piece)
    while pos > 0:
        step = min(chunk, pos)
        pos -= step
        chunk = min(chunk * 2, MAX_CHUNK)
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


def line_start(fh: BinaryIO, size: int) -> int:
    """Where the line holding byte ``size - 1`` starts: just after the last newline before ``size``."""
    pos = size
    while pos > 0:
        step = min(SCAN_CHUNK, pos)
        pos -= step
        fh.seek(pos)
        nl = fh.read(step).rfind(b"\n")
        if nl >= 0:
            return pos + nl + 1
    return 0


def size_of(path: Path) -> int:
    """The size of the file at ``path``; 0 when there is none."""
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0
