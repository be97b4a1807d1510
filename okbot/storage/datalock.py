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

* **Nothing runs on a data dir while it is restored.** Every CLI command (``okbot chat`` streaming a
  reply, ``okbot import-okbot`` …) holds :class:`DataDirUse` shared (``<data dir>/.okbot-use.lock``) for
  its run and leaves a note naming itself (``.okbot-use-<pid>.lock``, locked by it, so a note left by
  a crash is seen as stale). A restore takes it exclusively: it refuses while anything holds it, naming
  who, and a command started meanwhile refuses, saying a restore runs.

Locks are advisory: ``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows, and a no-op where
neither exists (there the rule degrades to "atomic replace only"). ``msvcrt`` has no shared locks:
on Windows :class:`DataDirUse` is held only by a restore, which then sees the GUI but not the CLI.
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
from okbot.storage.lines import line_start, lines_backward, size_of

DATA_DIR_LOCK_NAME = ".okbot.lock"
DATA_DIR_USE_NAME = ".okbot-use.lock"
_USE_NOTE_PREFIX = ".okbot-use-"  # + pid + ".lock": who holds DATA_DIR_USE_NAME shared
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0)
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)
MAX_RECORD_BYTES = 64 * 1024 * 1024  # a longer line in an append log is no record a reader looks back for

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


def _lock_fd(fd: int, blocking: bool, *, shared: bool = False) -> bool:
    """Take the exclusive (or ``shared``) lock on ``fd``; False when ``blocking`` is off and another process
    holds it. Where only exclusive locks exist (Windows) a shared lock is not taken, and True."""
    if fcntl is not None:
        kind = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        try:
            fcntl.flock(fd, kind if blocking else kind | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    if shared:  # pragma: no cover - Windows
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

    def acquire(self, *, blocking: bool = True, shared: bool = False) -> bool:
        """Take the lock (waiting for other processes unless ``blocking`` is False; ``shared`` with other
        shared holders); True if taken."""
        if self._depth:
            self._depth += 1
            return True
        try:
            fd = os.open(self.path, _OPEN_FLAGS, PRIVATE_FILE_MODE)
        except FileNotFoundError:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.path, _OPEN_FLAGS, PRIVATE_FILE_MODE)
        try:
            taken = _lock_fd(fd, blocking, shared=shared)
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

    def write_note(self, text: str) -> None:
        """While held, make ``text`` the sidecar's content: who holds it (informative, so failures are ignored)."""
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)
            os.lseek(self._fd, 0, os.SEEK_SET)
            os.write(self._fd, text.encode("utf-8"))
        except OSError:
            pass

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

    def lines_backward(self, limit: int = MAX_RECORD_BYTES) -> Iterator[bytes]:
        """The non-empty lines, last first, read backwards by :func:`okbot.storage.lines.lines_backward`
        (stop early: the cost follows what is read). A torn last line (no newline yet) comes first, as it
        is: callers skip what they cannot parse. A line over ``limit`` bytes is passed over, never held."""
        size = size_of(self.path)
        if not size:
            return
        with open(self.path, "rb") as fh:
            start = line_start(fh, size)
            if 0 < size - start <= limit:
                fh.seek(start)
                yield fh.read(size - start)
            yield from (line for _, line, _ in lines_backward(fh, size, limit) if line)

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
        if self._depth == 1:
            self.write_note(f"{os.getpid()}\n")
        return True

    def holder_pid(self) -> int | None:
        """The process id recorded by the current holder, if readable."""
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return int(text) if text.isdigit() else None


class DataDirUse:
    """A process's use of a data dir (``<data dir>/.okbot-use.lock``), shared by its users, exclusive for a restore.

    :meth:`share` is what every CLI command takes for its run: shared with the others, plus a note naming
    it. :meth:`take_exclusive` is what a restore takes; :meth:`holders` then names who refused it.
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self._gate = FileLock(self.data_dir / DATA_DIR_USE_NAME)
        self._note = FileLock(self.data_dir / f"{_USE_NOTE_PREFIX}{os.getpid()}.lock")

    def share(self, who: str) -> bool:
        """Hold the data dir as one of its users, noted as ``who`` (``okbot chat``); False while a restore runs."""
        if not self._gate.acquire(blocking=False, shared=True):
            return False
        try:
            self._note.acquire()
        except OSError:
            return True  # the note only names the holder; the shared lock is what keeps a restore out
        self._note.write_note(f"{who}\n")
        return True

    def take_exclusive(self) -> bool:
        """Hold the data dir alone (a restore); False while any process uses it."""
        return self._gate.acquire(blocking=False)

    def release(self) -> None:
        """Let go of the data dir (and remove this process's note)."""
        if self._note.held:
            try:
                self._note.path.unlink()
            except OSError:
                pass
            self._note.release()
        self._gate.release()

    def holders(self) -> list[str]:
        """``"okbot chat (process 123)"`` for each process using the data dir now; a crashed one's note is removed."""
        found = []
        try:
            names = sorted(
                n for n in os.listdir(self.data_dir) if n.startswith(_USE_NOTE_PREFIX) and n.endswith(".lock")
            )
        except OSError:
            return []
        for name in names:
            note = FileLock(self.data_dir / name)
            pid = name[len(_USE_NOTE_PREFIX) : -len(".lock")]
            try:
                if note.acquire(blocking=False):  # nobody holds it: left by a process that is gone
                    try:
                        note.path.unlink()
                    finally:
                        note.release()
                    continue
                who = note.path.read_text("utf-8", "replace").strip() or "OkBot"
            except OSError:
                continue
            found.append(translate("datalock", "{who} (process {pid})").format(who=who, pid=pid))
        return found
