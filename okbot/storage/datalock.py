"""Cross-process locks: who may write what while several OkBot processes share one data dir.

The rule (issue 9, "one writer per data dir"):

* **One GUI per data dir.** The desktop app holds :class:`DataDirLock` (``<data dir>/.okbot.lock``)
  for as long as it runs. A second GUI on the same data dir does not start a second writer: it asks
  the first to raise its window and exits (see ``okbot.ui.single_instance``). The lock is an OS
  advisory lock tied to an open file, so a crashed app leaves no stale lock behind.
* **The CLI may run while the GUI runs.** It does not take the data-dir lock; instead every file
  is written so that concurrent writers are safe:

  - *append-only files* (``session.jsonl``, the as-sent ``requests.jsonl``, a memory folder's
    ``memories.jsonl.bad``) are appended under a per-file :class:`FileLock` on a sidecar
    ``<file>.lock`` held around "find the last id on disk, assign the next, write, fsync" -- ids
    never repeat and lines never interleave, whichever process appends. :class:`AppendLog` is that
    one write path: lock, read the tail, start on a fresh line after a torn one, append, fsync, and
    a user-facing :func:`storage_error` when the OS refuses (disk full, file too large, read-only);
  - *whole JSON files* (settings, summaries, assistant/squad files, memory indexes) are replaced
    atomically (:mod:`okbot.storage.atomic`: temp file, fsync, rename), so a reader always sees the
    old or the new version, never a mix. Two processes saving the same JSON file at once is
    last-writer-wins; neither file is ever torn.

Locks are advisory: ``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows, and a no-op where
neither exists (there the rule degrades to "atomic replace only").
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
try:
    import msvcrt
except ImportError:
    msvcrt = None  # type: ignore[assignment]

from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage.atomic import PRIVATE_FILE_MODE, fsync_dir
from okbot.storage.errors import OkBotError

DATA_DIR_LOCK_NAME = ".okbot.lock"
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0)
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)
_FIRST_CHUNK = 8 * 1024  # backwards reads start here and double...
_MAX_CHUNK = 8 * 1024 * 1024  # ...up to this

# what the user can do, by errno (translated where shown)
_HINTS = {
    errno.ENOSPC: QT_TRANSLATE_NOOP("datalock", "the disk is full: free some space and try again"),
    errno.EFBIG: QT_TRANSLATE_NOOP(
        "datalock", "the file is as large as the system allows: free some space and try again"
    ),
    errno.EROFS: QT_TRANSLATE_NOOP("datalock", "the disk is read-only"),
    errno.EACCES: QT_TRANSLATE_NOOP("datalock", "check that OkBot may write to this folder"),
    errno.EPERM: QT_TRANSLATE_NOOP("datalock", "check that OkBot may write to this folder"),
}
if hasattr(errno, "EDQUOT"):  # not on Windows
    _HINTS[errno.EDQUOT] = QT_TRANSLATE_NOOP("datalock", "the disk quota is used up: free some space and try again")
_GENERAL_HINT = QT_TRANSLATE_NOOP("datalock", "check that the disk is not full and the file is readable")


def storage_error(path: Path, exc: OSError) -> OkBotError:
    """The user-facing error for an OS failure on ``path``: what failed, and what the user can do."""
    return OkBotError(
        translate("datalock", "Cannot use {path}: {why}").format(path=path, why=exc.strerror or exc),
        hint=translate("datalock", _HINTS.get(exc.errno, _GENERAL_HINT)),
    )


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
                view = view[os.write(fd, view) :]
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


class AppendLog:
    """An append-only file of one record per line, written the one durable way every record uses.

    :meth:`writing` takes the thread lock and the sidecar :class:`FileLock` (``<file>.lock`` unless
    another is given), so the caller can read the tail and assign the next id from what is on disk
    before any other writer, in this process or another, gets in; :meth:`LockedLog.append` then
    appends durably. A record after a torn last line (a crash mid-write) starts on a line of its
    own, a write the disk cuts short is cut back off, and every OS failure -- reading or writing --
    comes out as :func:`storage_error`, naming the file.
    """

    def __init__(self, path: Path, *, lock: FileLock | None = None) -> None:
        self.path = Path(path)
        self.lock = lock if lock is not None else FileLock(self.path.with_name(f"{self.path.name}.lock"))
        self._thread_lock = threading.RLock()

    @contextmanager
    def writing(self) -> Iterator[LockedLog]:
        """Hold both locks for a read-the-tail-then-append; OS failures inside become :func:`storage_error`."""
        with self._thread_lock:
            try:
                with self.lock:
                    yield LockedLog(self.path)
            except OSError as exc:
                raise storage_error(self.path, exc) from exc

    def append(self, data: bytes) -> None:
        """Append one record (a whole line, ending in a newline) under the locks, durably."""
        with self.writing() as log:
            log.append(data)


class LockedLog:
    """The file of an :class:`AppendLog` while its locks are held (only inside :meth:`AppendLog.writing`)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def lines_backward(self) -> Iterator[bytes]:
        """The non-empty lines, last first, read backwards in growing chunks (stop early: the cost follows
        what is read). A torn last line (no newline yet) comes first, as it is: callers skip what they
        cannot parse."""
        try:
            fh = open(self.path, "rb")
        except FileNotFoundError:
            return
        with fh:
            pos, chunk = fh.seek(0, os.SEEK_END), _FIRST_CHUNK
            rest = b""  # the start of a line that began before the chunk just read
            while pos > 0:
                step = min(chunk, pos)
                pos -= step
                chunk = min(chunk * 2, _MAX_CHUNK)
                fh.seek(pos)
                lines = (fh.read(step) + rest).split(b"\n")
                rest = lines[0]
                yield from (line for line in reversed(lines[1:]) if line)
            if rest:
                yield rest

    def append(self, data: bytes) -> int:
        """Append ``data`` (whole lines) durably, on a fresh line after a torn one; return the new size."""
        if not data.endswith(b"\n"):
            raise ValueError("a record must be whole lines, ending in a newline")
        try:
            size = os.stat(self.path).st_size
        except FileNotFoundError:
            size = 0
        if size:
            with open(self.path, "rb") as fh:
                fh.seek(size - 1)
                if fh.read(1) != b"\n":
                    data = b"\n" + data  # one write: cut back off with the record if the disk is full
        return append_durably(self.path, data)


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
