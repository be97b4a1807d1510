"""Cross-process locks: who may write what while several OkBot processes share one data dir.

The rule (issue 9, "one writer per data dir"):

* **One GUI per data dir.** The desktop app holds :class:`DataDirLock` (``<data dir>/.okbot.lock``)
  for as long as it runs. A second GUI on the same data dir does not start a second writer: it asks
  the first to raise its window and exits (see ``okbot.ui.single_instance``). The lock is an OS
  advisory lock tied to an open file, so a crashed app leaves no stale lock behind.
* **The CLI may run while the GUI runs.** It does not take the data-dir lock; instead every file
  is written so that concurrent writers are safe:

  - *append-only files* (``session.jsonl``) are appended under a per-file :class:`FileLock` on a
    sidecar ``<file>.lock`` held around "find the last id on disk, assign the next, write,
    fsync" -- ids never repeat and lines never interleave, whichever process appends;
  - *whole JSON files* (settings, summaries, assistant/squad files, memory indexes) are replaced
    atomically (:mod:`okbot.core.atomic`: temp file, fsync, rename), so a reader always sees the
    old or the new version, never a mix. Two processes saving the same JSON file at once is
    last-writer-wins; neither file is ever torn.

Locks are advisory: ``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows, and a no-op where
neither exists (there the rule degrades to "atomic replace only").
"""

from __future__ import annotations

import os
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
try:
    import msvcrt
except ImportError:
    msvcrt = None  # type: ignore[assignment]

from okbot.core.atomic import PRIVATE_FILE_MODE, fsync_dir

DATA_DIR_LOCK_NAME = ".okbot.lock"
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0)
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)


def append_durably(path: Path, data: bytes) -> int:
    """Append ``data`` to ``path`` and fsync it, creating the file private; return the new size.

    A write that fails part-way (disk full, file size limit) is cut back off, so the file is left
    as it was. The caller holds the file's :class:`FileLock` when other processes may append too.
    """
    created = not path.exists()
    if created:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, _APPEND_FLAGS, PRIVATE_FILE_MODE)
    try:
        start = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError:
            try:
                os.ftruncate(fd, start)
            except OSError:
                pass  # the reader sets a torn tail aside on the next open
            raise
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)
    return size


def _lock_fd(fd: int, blocking: bool) -> bool:
    """Take the exclusive lock on ``fd``; False when ``blocking`` is off and another process holds it."""
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    if msvcrt is not None:  # pragma: no cover - Windows
        os.lseek(fd, 0, os.SEEK_SET)
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return True
            except OSError:
                if not blocking:
                    return False
                time.sleep(0.005)
    return True  # pragma: no cover - no advisory locks on this platform


def _unlock_fd(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
    elif msvcrt is not None:  # pragma: no cover - Windows
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


class FileLock:
    """An exclusive advisory lock on the sidecar file ``path``, re-entrant within one instance.

    The sidecar is opened on the outermost :meth:`acquire` and closed on the matching
    :meth:`release`, so an idle lock holds no file descriptor. Not thread-safe by itself: callers
    serialize their own threads (``SessionStore`` holds its thread lock around it).
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self._depth = 0

    @property
    def held(self) -> bool:
        """True while this instance holds the lock."""
        return self._depth > 0

    def acquire(self, *, blocking: bool = True) -> bool:
        """Take the lock (waiting for other processes unless ``blocking`` is False); True if taken."""
        if self._depth:
            self._depth += 1
            return True
        try:
            fd = os.open(self.path, _OPEN_FLAGS, PRIVATE_FILE_MODE)
        except FileNotFoundError:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.path, _OPEN_FLAGS, PRIVATE_FILE_MODE)
        try:
            taken = _lock_fd(fd, blocking)
        except BaseException:
            os.close(fd)
            raise
        if not taken:
            os.close(fd)
            return False
        self._fd, self._depth = fd, 1
        return True

    def release(self) -> None:
        """Undo one :meth:`acquire`; the outermost release unlocks and closes the sidecar."""
        if self._depth == 0:
            return
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                _unlock_fd(fd)
            finally:
                os.close(fd)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class DataDirLock(FileLock):
    """The lock a GUI holds on its data dir for its whole run (``<data dir>/.okbot.lock``).

    The holder writes its process id into the file, so a refused second instance can say who
    holds it. The lock dies with the process, so a crash leaves nothing stale.
    """

    def __init__(self, data_dir: Path) -> None:
        super().__init__(Path(data_dir) / DATA_DIR_LOCK_NAME)
        self.data_dir = Path(data_dir)

    def try_acquire(self) -> bool:
        """Take the lock without waiting; False when another process holds it."""
        if not self.acquire(blocking=False):
            return False
        if self._depth == 1 and self._fd is not None:
            try:
                os.ftruncate(self._fd, 0)
                os.lseek(self._fd, 0, os.SEEK_SET)
                os.write(self._fd, f"{os.getpid()}\n".encode("ascii"))
            except OSError:
                pass  # the pid is only informative
        return True

    def holder_pid(self) -> int | None:
        """The process id recorded by the current holder, if readable."""
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return int(text) if text.isdigit() else None
