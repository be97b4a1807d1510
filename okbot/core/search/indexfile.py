"""Where ``search.sqlite`` lives: only a regular file of the index's own is ever opened there.

The index is a cache built from the records, so anything else found in its place (a symlink, dangling
or not, a folder, a FIFO, a file hard-linked from elsewhere), in the place of SQLite's side files
(``-wal``, ``-shm``, ``-journal``) or of its lock (``.lock``), or in the place of its folder (``index/``
as a symlink or a file), is moved aside under a new name, never followed, written or deleted, and the
index is built again. The file is created without following a symlink, and the database SQLite
opens is checked to be that very file, so nothing is ever created or written outside the data dir.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from okbot.i18n import translate
from okbot.storage import paths
from okbot.storage.datalock import PRIVATE_FILE_MODE
from okbot.storage.errors import OkBotError

SIDE_FILES = ("-wal", "-shm", "-journal", ".lock")  # what SQLite (and the writers' lock) open beside it, by name
ASIDE = ".not-a-file-"  # a moved-aside name: search.sqlite.not-a-file-<UTC time>
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in refuses instead of waiting for a reader


def _ours(st: os.stat_result) -> bool:
    """A regular file no other name shares."""
    return stat.S_ISREG(st.st_mode) and st.st_nlink <= 1


def clear_the_way(path: Path, notify: Callable[[str], None]) -> None:
    """Move aside what is not the index's own folder or file at ``path`` and its side files, and make the
    folder (private) where it is missing; ``notify`` says so once for each thing moved."""
    try:
        folder = os.lstat(path.parent)
    except FileNotFoundError:
        folder = None
    if folder is not None and not stat.S_ISDIR(folder.st_mode):
        _move_aside(path.parent, notify)
    paths.ensure_private_dir(path.parent)
    for where in (path, *(Path(f"{path}{suffix}") for suffix in SIDE_FILES)):
        try:
            st = os.lstat(where)
        except FileNotFoundError:
            continue
        if not _ours(st):
            _move_aside(where, notify)


def _move_aside(where: Path, notify: Callable[[str], None]) -> None:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    aside = where.with_name(f"{where.name}{ASIDE}{stamp}")
    os.rename(where, aside)  # renames the name itself: a symlink is not followed
    notify(
        translate(
            "index",
            "{path} was not a file of the search index; it was moved aside to {aside} "
            "and the index is built again from your chats.",
        ).format(path=where, aside=aside)
    )


def connect(path: Path, notify: Callable[[str], None]) -> sqlite3.Connection:
    """A connection to the index at ``path`` (created private when missing), after :func:`clear_the_way`."""
    clear_the_way(path, notify)
    # private like the records it points into (its words are theirs); SQLite gives -wal/-shm the same mode
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | _O_NOFOLLOW | _O_NONBLOCK, PRIVATE_FILE_MODE)
    try:
        made = os.fstat(fd)
        conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    finally:
        os.close(fd)
    try:
        now = os.lstat(path)
    except FileNotFoundError:
        now = None
    if not _ours(made) or now is None or (now.st_dev, now.st_ino) != (made.st_dev, made.st_ino):
        conn.close()
        raise OkBotError(
            translate("index", "{path} changed while the search index was being opened").format(path=path),
            hint=translate("index", "search again: what is there now is moved aside"),
        )
    return conn
