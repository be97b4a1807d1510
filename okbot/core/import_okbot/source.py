"""Reading the original's data dir the safe way: only regular files that lie inside it, each one bounded.

A name is judged before it is opened and the file again after (its ``fstat``), so neither a symlink
(to the destination's ``keys.json``, to a private file, a folder out of the source) nor a file swapped
in meanwhile is followed: folders are reached through :mod:`okbot.core.local_tools.safe_open`, files are
opened with ``O_NOFOLLOW`` relative to their folder. FIFOs and devices are refused from their ``lstat``
and opened, if at all, with ``O_NONBLOCK``, so nothing blocks. A regular file with more than one name
that is one of OkBot's protected files (a hard link to ``keys.json``) is refused as the local tools
refuse it (:func:`okbot.core.local_tools.guard.protected_link`). Sizes are checked before reading, and
the read stops at the bound whatever the file grew to; long files are read line by line, each line
bounded. What is refused raises :class:`Unreadable`, whose message says what was skipped and why.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from okbot.core.local_tools.guard import protected_link
from okbot.core.local_tools.safe_open import Folder, PathChanged, open_folder
from okbot.i18n import translate
from okbot.storage import jsontext
from okbot.storage.errors import OkBotError

MAX_NAMES = 100_000  # entries listed in one folder of the source
_SKIP_CHUNK = 1024 * 1024  # how much of an over-long line is read at a time while passing over it


class Unreadable(OkBotError):
    """A name in the source the import does not read (a symlink, not a regular file, too big, protected)."""


class TooBig(Unreadable):
    """The file ``file`` (as the report names it) is over the ``limit`` bytes the import reads from it."""

    def __init__(self, file: str, size: int, limit: int) -> None:
        self.file, self.size, self.limit = file, size, limit
        super().__init__(
            self.say(translate("import_okbot", "{file} is {size}, over the {limit} the import reads; not imported"))
        )

    def say(self, template: str) -> str:
        """``template`` with ``{file}``, ``{size}`` and ``{limit}`` filled in."""
        return template.format(file=self.file, size=size_text(self.size), limit=size_text(self.limit))


def size_text(n: int) -> str:
    """``n`` bytes for a person: KB below a megabyte, else MB."""
    if n < 1024 * 1024:
        return translate("import_okbot", "{n} KB").format(n=f"{n / 1024:,.0f}")
    return translate("import_okbot", "{n} MB").format(n=f"{n / (1024 * 1024):,.1f}")


class SourceFolder:
    """A folder of the source, opened without following links; ``rel`` names it in messages.

    A folder that is not there is one too (``folder`` None): it holds nothing, so a roster entry
    without its folder reads as empty files rather than failing.
    """

    def __init__(self, folder: Folder | None, rel: str) -> None:
        self.folder = folder
        self.rel = rel

    def __enter__(self) -> SourceFolder:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.folder is not None:
            self.folder.close()

    @property
    def exists(self) -> bool:
        return self.folder is not None

    @property
    def path(self) -> Path:
        """Where the folder is (its name relative to the source when it is not there)."""
        return self.folder.path if self.folder is not None else Path(self.rel)

    def label(self, name: str) -> str:
        """``name`` as the report shows it: relative to the source."""
        return f"{self.rel}/{name}" if self.rel else name

    def kind(self, name: str) -> str:
        """``"file"``, ``"dir"``, ``"link"``, ``"other"`` (FIFO, device, socket) or ``""`` (nothing there)."""
        st = self.folder.lstat(name) if self.folder is not None else None
        if st is None:
            return ""
        if stat.S_ISLNK(st.st_mode):
            return "link"
        if stat.S_ISREG(st.st_mode):
            return "file"
        return "dir" if stat.S_ISDIR(st.st_mode) else "other"

    def names(self) -> list[str]:
        """The names in this folder (at most :data:`MAX_NAMES`), sorted."""
        return sorted(self.folder.names(MAX_NAMES)) if self.folder is not None else []

    def child(self, name: str) -> SourceFolder:
        """The folder ``name`` in this one (one that is not there when there is nothing by that name).

        Raises :class:`Unreadable` when it is a symlink, not a folder, or cannot be opened.
        """
        kind = self.kind(name)
        if kind and kind != "dir":
            raise self.refusal(name, kind)
        folder = None
        if kind and self.folder is not None:
            try:
                folder = self.folder.child(name)
            except PathChanged:
                raise self.refusal(name, "link") from None
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise self._cannot_read(name, exc) from None
        return SourceFolder(folder, self.label(name))

    def open(self, name: str, limit: int | None) -> BinaryIO | None:
        """The regular file ``name`` in this folder opened for reading, or None when there is none.

        Raises :class:`Unreadable` for a symlink, anything but a regular file, a protected file's other
        name, a file that cannot be opened, or (:class:`TooBig`) a file over ``limit`` bytes.
        """
        kind = self.kind(name)
        if not kind:
            return None
        if kind != "file":
            raise self.refusal(name, kind)
        assert self.folder is not None  # a name was found in it
        try:
            fd, st = self.folder.open_read(name)
        except PathChanged:
            raise self.refusal(name, "link") from None
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self._cannot_read(name, exc) from None
        fh = os.fdopen(fd, "rb")
        try:
            if not stat.S_ISREG(st.st_mode):  # swapped after the lstat
                raise self.refusal(name, "other")
            why = protected_link(st)
            if why:
                text = translate("import_okbot", "{file} was not read: {why}")
                raise Unreadable(text.format(file=self.label(name), why=why))
            if limit is not None and st.st_size > limit:
                raise TooBig(self.label(name), st.st_size, limit)
        except BaseException:
            fh.close()
            raise
        return fh

    def read(self, name: str, limit: int) -> bytes | None:
        """The bytes of the regular file ``name`` (at most ``limit``), or None when there is none."""
        fh = self.open(name, limit)
        if fh is None:
            return None
        with fh:
            try:
                data = fh.read(limit + 1)  # the file may have grown since its fstat
            except OSError as exc:
                raise self._cannot_read(name, exc) from None
        if len(data) > limit:
            raise TooBig(self.label(name), len(data), limit)
        return data

    def refusal(self, name: str, kind: str) -> Unreadable:
        """Why ``name``, of ``kind`` (:meth:`kind`), is not read where a file or folder was expected."""
        if kind == "link":
            text = translate("import_okbot", "{file} is a symlink; links are not followed, so it was not imported")
        elif kind == "dir":
            text = translate("import_okbot", "{file} is a folder where a file belongs; not imported")
        elif kind == "file":
            text = translate("import_okbot", "{file} is a file where a folder belongs; not imported")
        else:
            text = translate("import_okbot", "{file} is not a regular file (a pipe or a device); not read")
        return Unreadable(text.format(file=self.label(name)))

    def _cannot_read(self, name: str, exc: OSError) -> Unreadable:
        text = translate("import_okbot", "{file} cannot be read ({why}); not imported")
        return Unreadable(text.format(file=self.label(name), why=exc.strerror or exc))


def open_source(path: Path) -> SourceFolder:
    """The source folder ``path`` (absolute and resolved), reached without following links."""
    return SourceFolder(open_folder(path), "")


def bounded_lines(fh: BinaryIO, limit: int) -> Iterator[tuple[int, bytes | None, bool]]:
    """``(line number, line, torn)`` for each line of ``fh``, read one at a time.

    ``line`` is None for a line longer than ``limit`` bytes (passed over, never held whole); ``torn``
    is True for a last line without its newline.
    """
    number = 0
    while True:
        raw = fh.readline(limit + 1)
        if not raw:
            return
        number += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = fh.readline(_SKIP_CHUNK)
            yield number, None, False
            continue
        yield number, raw, not raw.endswith(b"\n")


# -------------------------------------------------------------------------- reads that note what they skip
def child(folder: SourceFolder, name: str, notes: list[str]) -> SourceFolder:
    """``folder.child(name)``; one that is not there (and a note why) when it cannot be read."""
    try:
        return folder.child(name)
    except Unreadable as exc:
        notes.append(str(exc))
        return SourceFolder(None, folder.label(name))


def open_file(folder: SourceFolder, name: str, limit: int | None, notes: list[str]) -> BinaryIO | None:
    """``folder.open(name, limit)``; None (and a note why) when it cannot be read."""
    try:
        return folder.open(name, limit)
    except Unreadable as exc:
        notes.append(str(exc))
        return None


def read_file(folder: SourceFolder, name: str, limit: int, notes: list[str], too_big: str = "") -> bytes | None:
    """``folder.read(name, limit)``; None (and a note why) when it cannot be read.

    ``too_big`` is the note for a file over ``limit`` (``{file}``, ``{size}``, ``{limit}`` filled in).
    """
    try:
        return folder.read(name, limit)
    except TooBig as exc:
        notes.append(exc.say(too_big) if too_big else str(exc))
    except Unreadable as exc:
        notes.append(str(exc))
    return None


def read_text(folder: SourceFolder, name: str, limit: int, notes: list[str], too_big: str = "") -> str | None:
    """The file as text (bad UTF-8 replaced), or None as :func:`read_file`."""
    data = read_file(folder, name, limit, notes, too_big)
    return None if data is None else data.decode("utf-8-sig", errors="replace")


def read_json(folder: SourceFolder, name: str, limit: int, notes: list[str]) -> Any:
    """The file's JSON (depth bounded by :func:`okbot.storage.jsontext.loads`), or None and a note why."""
    text = read_text(folder, name, limit, notes)
    if text is None:
        return None
    try:
        return jsontext.loads(text, what=folder.label(name))
    except jsontext.JSONTextError as exc:
        notes.append(translate("import_okbot", "{why}; not imported").format(why=exc))
        return None
