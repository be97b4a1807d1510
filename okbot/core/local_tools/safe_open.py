"""Open, inspect and replace files without following a symlink anywhere on the way.

``os.open(path, O_NOFOLLOW)`` refuses a symlink only as the *last* part of ``path``: a folder
swapped for a symlink between the guard's check and the open is still followed, and the tool
reads (or replaces) whatever the symlink points to. Here a folder is reached by opening each part
of its resolved path from its parent's descriptor with ``O_NOFOLLOW``, starting at the root; names
inside it are then opened, inspected and replaced through that descriptor. So what a tool touches
is exactly the symlink-free path the guard judged, or the call fails with :class:`PathChanged`.

Where the OS cannot open relative to a folder descriptor (Windows), :class:`Folder` works on plain
paths: the same calls, without the guarantee.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from itertools import islice
from pathlib import Path
from types import TracebackType

from okbot.storage.atomic import atomic_write_bytes, fsync_dir

PRIVATE_DIR_MODE = 0o700
NEW_FILE_MODE = 0o600

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# To read: a FIFO or device swapped in must not block the open; Windows must not translate line ends.
_O_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
# O_PATH (Linux) reaches a folder without needing read permission on it, like a path lookup does.
_O_SEARCH = getattr(os, "O_PATH", os.O_RDONLY) | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
WALKS = bool(_O_NOFOLLOW and _O_DIRECTORY) and {os.open, os.stat, os.mkdir, os.rename, os.unlink} <= os.supports_dir_fd


class PathChanged(OSError):
    """A part of the path is a symlink now: it was swapped in after the path was checked."""


def open_folder(path: Path, *, create: bool = False) -> Folder:
    """The folder at ``path`` (absolute and resolved), reached without following any symlink.

    With ``create`` missing folders are made (0700). Raises :class:`PathChanged` when a part of the
    path is a symlink, ``FileNotFoundError`` / ``NotADirectoryError`` as ``os.open`` would.
    """
    path = Path(path)
    if not WALKS:
        if create:
            path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
        if not path.is_dir():
            code = errno.ENOTDIR if path.exists() else errno.ENOENT
            raise OSError(code, os.strerror(code), str(path))  # NotADirectoryError / FileNotFoundError
        return Folder(path, None)
    fd = os.open(path.anchor, _O_SEARCH)
    for name in path.parts[1:]:
        fd = _step(fd, name, path, create)  # closes the parent, even when it raises
    return Folder(path, fd)


def _step(parent: int, name: str, path: Path, create: bool) -> int:
    """The folder ``name`` inside ``parent``, made first when missing and ``create``; ``parent`` is closed."""
    try:
        try:
            return os.open(name, _O_SEARCH, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                raise
            try:
                os.mkdir(name, PRIVATE_DIR_MODE, dir_fd=parent)
            except FileExistsError:  # made meanwhile by someone else: open what is there now
                pass
            return os.open(name, _O_SEARCH, dir_fd=parent)
    except OSError as exc:
        raise _why(exc, parent, name, path) from None
    finally:
        os.close(parent)


def _why(exc: OSError, parent: int, name: str, path: Path) -> OSError:
    """``exc`` as :class:`PathChanged` when ``name`` is a symlink (O_NOFOLLOW refused it), else as is."""
    if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):  # EMLINK: FreeBSD's O_NOFOLLOW
        return exc
    try:
        is_link = stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return exc
    if not is_link:
        return exc
    return PathChanged(
        errno.ELOOP, f"{name!r} in {path} is now a symlink (it was not when the path was checked)", str(path)
    )


class Folder:
    """An open folder: names in it are opened, inspected and replaced relative to it, links not followed."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd  # None: no dir_fd support here, plain paths are used

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def open(self, name: str, flags: int, mode: int = NEW_FILE_MODE) -> int:
        """``os.open`` of ``name`` in this folder; a symlink there raises :class:`PathChanged`."""
        if self.fd is None:
            return os.open(self.path / name, flags | _O_NOFOLLOW | _O_CLOEXEC, mode)
        try:
            return os.open(name, flags | _O_NOFOLLOW | _O_CLOEXEC, mode, dir_fd=self.fd)
        except OSError as exc:
            raise _why(exc, self.fd, name, self.path / name) from None

    def open_read(self, name: str) -> tuple[int, os.stat_result]:
        """``name`` opened for reading (a descriptor the caller closes) and the ``fstat`` of what was opened:
        the caller judges that, not the name. Never blocks on a FIFO; a symlink raises :class:`PathChanged`."""
        fd = self.open(name, _O_READ)
        try:
            return fd, os.fstat(fd)
        except BaseException:
            os.close(fd)
            raise

    def lstat(self, name: str) -> os.stat_result | None:
        """What ``name`` is (a symlink is not followed), or None when there is nothing by that name."""
        try:
            if self.fd is None:
                return os.lstat(self.path / name)
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def child(self, name: str) -> Folder:
        """The folder ``name`` inside this one; a symlink there raises :class:`PathChanged`."""
        if self.fd is None:
            return open_folder(self.path / name)
        try:
            fd = os.open(name, _O_SEARCH, dir_fd=self.fd)
        except OSError as exc:
            raise _why(exc, self.fd, name, self.path / name) from None
        return Folder(self.path / name, fd)

    def names(self, limit: int) -> list[str]:
        """At most ``limit`` names in this folder, in directory order."""
        if self.fd is None or os.scandir not in os.supports_fd:
            with os.scandir(self.path) as it:
                return [entry.name for entry in islice(it, limit)]
        fd = os.open(".", os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC, dir_fd=self.fd)  # O_PATH cannot be listed
        try:
            with os.scandir(fd) as it:
                return [entry.name for entry in islice(it, limit)]
        finally:
            os.close(fd)

    def readlink(self, name: str) -> str:
        """Where the symlink ``name`` in this folder points (not followed)."""
        if self.fd is None or os.readlink not in os.supports_dir_fd:
            return os.readlink(self.path / name)
        return os.readlink(name, dir_fd=self.fd)

    def replace(self, name: str, data: bytes, mode: int = NEW_FILE_MODE) -> None:
        """Replace ``name`` with ``data`` atomically (a temp file renamed over it, fsynced), with ``mode``.

        The rename replaces the name itself, so a hard link or symlink that was there is never
        written through.
        """
        if self.fd is None:
            atomic_write_bytes(self.path / name, data)
            os.chmod(self.path / name, mode)
            return
        tmp = f".{name}.{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW, NEW_FILE_MODE, dir_fd=self.fd)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
                os.fchmod(fh.fileno(), mode)
            os.rename(tmp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=self.fd)
            except OSError:
                pass
            raise
        fsync_dir(".", dir_fd=self.fd)  # the rename is durable
