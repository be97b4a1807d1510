"""Crash-safe file replacement: temp file in the same dir, fsync, rename, fsync the dir."""

from __future__ import annotations

import glob
import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from okbot.storage import paths

PRIVATE_FILE_MODE = 0o600
STALE_TEMP_SECONDS = 600  # a temp file this old was left by a writer that died before its rename


def file_stamp(path: Path) -> tuple[int, int] | None:
    """``(mtime in ns, size)`` of ``path``, None when it cannot be read: a cheap "did it change" check."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def fsync_dir(path: Path | str, *, dir_fd: int | None = None) -> None:
    """Make a rename or create inside ``path`` (relative to the open folder ``dir_fd``, if given) durable
    (no-op where dirs cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY, dir_fd=dir_fd)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, backup: bool = False) -> None:
    """Replace ``path`` with ``data`` so a crash leaves either the old or the new file, never a mix.

    With ``backup=True`` the previous version is kept as ``<name>.bak`` (hard-linked where
    possible, so the backup is also never half-written).
    """
    path = Path(path)
    paths.ensure_private_dir(path.parent)
    _sweep_stale_temps(path)
    with atomic_open(path, "wb", backup=backup) as (fh, _tmp):
        fh.write(data)


@contextmanager
def atomic_open(
    path: Path, mode: str = "wb", *, backup: bool = False, **options: Any
) -> Iterator[tuple[IO[Any], Path]]:
    """``(file, its temp path)`` for writing ``path`` whole or not at all: a private temp file beside it,
    fsynced and renamed over ``path`` when the block ends, removed when it raises. With ``backup`` the
    version it replaces is kept as ``<name>.bak`` first."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, **options) as fh:
            yield fh, Path(tmp)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, PRIVATE_FILE_MODE)
        if backup and path.exists():
            _replace_backup(path, path.with_name(path.name + ".bak"))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(path.parent)


def _sweep_stale_temps(path: Path) -> None:
    """Remove temp files of ``path`` that a killed writer left behind (old enough not to be in use)."""
    cutoff = time.time() - STALE_TEMP_SECONDS
    try:
        for stale in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
            try:
                if stale.stat().st_mtime < cutoff:
                    stale.unlink()
            except OSError:
                continue
    except OSError:
        return


def _replace_backup(current: Path, bak: Path) -> None:
    tmp_link = bak.with_name(bak.name + ".tmp")
    try:
        if tmp_link.exists():
            tmp_link.unlink()
        os.link(current, tmp_link)
    except OSError:
        # No hard links here (some filesystems): copy instead, still via rename.
        tmp_link.write_bytes(current.read_bytes())
    os.replace(tmp_link, bak)


def atomic_write_json(path: Path, obj: Any, *, backup: bool = False) -> None:
    text = json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False) + "\n"
    atomic_write_bytes(path, to_utf8(text), backup=backup)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def to_utf8(text: str) -> bytes:
    """``text`` as UTF-8. Lone surrogates (half an emoji from a broken paste, or a ``\\ud800`` escape read
    from a file) cannot be encoded: each becomes U+FFFD, so the write goes through instead of failing."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8")
