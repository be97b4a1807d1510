"""Back up the whole data dir into one zip, and restore it, byte for byte.

**What goes in**: every file under the data dir (settings.json, assistants/ and squads/ with their
session.jsonl, session-summary.json, SOUL.md, memory/, skills/, as-sent records and attachments, the
global memory/, mcp-tools.json, calibration.json …) as ``data/<path>``, plus ``okbot-backup.json``, the
manifest::

    {"format": "okbot-backup", "formatVersion": 1, "okbotVersion": "0.1.0", "createdAt": "...Z",
     "files": [{"path": "assistants/okbot/session.jsonl", "size": 1234, "sha256": "..."}],
     "leftOut": ["keys.json (API keys)", ...]}

**What never goes in**: ``keys.json`` (the API keys and MCP secrets when there is no keyring; the keyring
itself is never read), ``logs/``, ``index/`` (the search index, rebuilt from the records), ``trash/``
(what the user deleted stays deleted: the trash is an undo buffer, not data to carry elsewhere), lock
files (``*.lock``), temp files of an unfinished atomic write (``.<name>.*.tmp``) and symlinks
(:func:`never_in_backup` is that rule). Symlinks are never followed: each file is opened from the data
dir down without following any (:mod:`~okbot.core.local_tools.safe_open`), so a folder swapped for a
symlink meanwhile is left out. Nor is a file the tools can reach (an assistant's workspace) that is
another name (a hard link) for a protected file: the keys, the keyring's files, OkBot's config
(:func:`~okbot.core.local_tools.guard.protected_link`). Both are reported (``BackupReport.skipped``).

**Consistency while OkBot runs**: append-only files (``*.jsonl``) are copied up to the size read once when
the copy starts, so a line appended meanwhile is left for the next backup (a torn last line is fine: the
store sets it aside on open). Whole-file JSON is replaced atomically by its writers, so the open file is
one version. Files are streamed through in chunks (a 1 GB chat is never held in memory), and the zip is
written to a temp file beside the destination and renamed over it at the end.

**Restore** checks everything before touching anything: a manifest it understands (read with bounded
depth; a newer format is refused with a clear message), entry names that are relative and stay inside
(no absolute paths, no ``..``: zip-slip), no symlinks, no entry the manifest does not list, no entry a
backup never holds (the same :func:`never_in_backup`), no file listed where another needs a folder,
and every file's size and sha256. It never overwrites silently: a data dir that holds data is refused
unless ``replace`` is given, and then its entries are first moved aside to
``<data dir>-before-restore-<stamp>`` beside it (``keys.json``, ``logs/`` and lock files stay: the
backup has none). Files land via a staging folder, byte-identical. When the OS stops the swap part-way
(a rename refused, the disk full), every entry moved is put back and the error says so. No OkBot may
run on the data dir meanwhile: restore takes the app's data-dir lock
(:class:`~okbot.storage.datalock.DataDirLock`) and the data dir alone
(:class:`~okbot.storage.datalock.DataDirUse`, which every CLI command holds shared), and refuses,
naming who, when another process holds either.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from okbot import __version__
from okbot.core.local_tools import guard
from okbot.core.local_tools.safe_open import PathChanged, open_folder
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage import jsontext
from okbot.storage.atomic import PRIVATE_FILE_MODE, atomic_open, fsync_dir
from okbot.storage.datalock import DataDirLock, DataDirUse
from okbot.storage.errors import OkBotError

FORMAT = "okbot-backup"
FORMAT_VERSION = 1
MANIFEST_NAME = "okbot-backup.json"
DATA_PREFIX = "data/"
CHUNK = 1024 * 1024
KEY_FILE = "keys.json"
# what a backup leaves out, in the manifest's words (English, always); translate("backup", …) to show them
LEFT_OUT_DIRS = {
    "logs": QT_TRANSLATE_NOOP("backup", "logs/ (the app's logs)"),
    "index": QT_TRANSLATE_NOOP("backup", "index/ (the search index, rebuilt from the records)"),
    "trash": QT_TRANSLATE_NOOP("backup", "trash/ (deleted assistants and squads)"),
}
LEFT_OUT_FILES = {KEY_FILE: QT_TRANSLATE_NOOP("backup", "keys.json (API keys)")}
LEFT_OUT_OTHER = (QT_TRANSLATE_NOOP("backup", "lock and temp files"), QT_TRANSLATE_NOOP("backup", "symlinks"))
KEPT_ON_REPLACE = (KEY_FILE, "logs")  # with the lock files: not in any backup, a restore leaves them be

Progress = Callable[[int, int], None]  # (bytes done, bytes in all)


@dataclass
class BackupReport:
    """What :func:`create_backup` wrote."""

    path: Path
    files: int
    bytes: int
    left_out: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # files left out for what they turned out to be (translated)


@dataclass
class RestoreReport:
    """What :func:`restore_backup` did."""

    files: int
    bytes: int
    moved_aside: Path | None  # where the data dir's previous contents went (None: it held nothing)
    created_at: str
    okbot_version: str


# ---------------------------------------------------------------------------- backup
def _left_out_dir(name: str) -> bool:
    return name.casefold() in LEFT_OUT_DIRS


def never_in_backup(rel: PurePosixPath) -> bool:
    """Whether a backup leaves ``rel`` (relative to the data dir) out: the one rule :func:`create_backup` copies
    by and :func:`check_backup` refuses by, so a restore never writes what a backup cannot hold."""
    top, name = rel.parts[0], rel.name.casefold()
    if _left_out_dir(top) or (len(rel.parts) == 1 and top.casefold() in LEFT_OUT_FILES):
        return True
    return name.endswith(".lock") or (name.startswith(".") and name.endswith(".tmp"))


def _kept_on_replace(name: str) -> bool:
    """A data dir entry a restore leaves where it is: the keys, the logs and the lock files (held right now)."""
    return name in KEPT_ON_REPLACE or name.endswith(".lock")


def _walk(root: Path, skip: set[Path]) -> Iterator[tuple[PurePosixPath, Path, int]]:
    """``(relative posix path, path, size)`` of every regular file to back up, sorted, symlinks never followed."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        rel_here = here.relative_to(root)
        dirs[:] = sorted(d for d in dirs if not (rel_here == Path(".") and _left_out_dir(d)))
        for name in sorted(files):
            path = here / name
            rel = PurePosixPath(*(rel_here / name).parts)
            if path in skip or never_in_backup(rel):
                continue
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode):  # symlinks, sockets, fifos: left out
                yield rel, path, info.st_size


def _open_listed(path: Path, rel: PurePosixPath) -> tuple[BinaryIO, os.stat_result] | str:
    """``path`` opened for the copy, or why it stays out (translated): no part of the path may have become a
    symlink since the walk, and a file the tools can reach must not be another name for a protected file."""
    try:
        with open_folder(path.parent) as folder:
            fd, st = folder.open_read(path.name)
    except PathChanged:
        return translate("backup", "{path} (it became a symlink during the backup)").format(path=rel)
    src = os.fdopen(fd, "rb")
    why = ""
    if not stat.S_ISREG(st.st_mode):
        why = translate("backup", "{path} (it is no longer a regular file)")
    elif st.st_nlink > 1 and not guard.protected(path) and guard.protected_link(st):
        why = translate("backup", "{path} (another name for a protected file, such as the API keys)")
    if why:
        src.close()
        return why.format(path=rel)
    return src, st


def _zip_time(mtime: float) -> tuple[int, int, int, int, int, int]:
    """``mtime`` as a zip entry's date and time, within the years a zip can hold (1980-2107)."""
    when = time.localtime(mtime)[:6]
    if when[0] < 1980:
        return (1980, 1, 1, 0, 0, 0)
    return (2107, 12, 31, 23, 59, 59) if when[0] > 2107 else when


def _copy_into(
    zf: zipfile.ZipFile,
    arcname: str,
    src: BinaryIO,
    st: os.stat_result,
    seen_size: int,
    on_bytes: Callable[[int], None],
) -> tuple[int, str]:
    """Stream the open file ``src`` into ``zf``; an append-only file only up to ``seen_size``, its size when the
    backup listed it (what is appended later waits for the next backup). Returns (size, sha256)."""
    digest = hashlib.sha256()
    size = 0
    with src:
        limit = seen_size if arcname.endswith(".jsonl") else None
        info = zipfile.ZipInfo(arcname, _zip_time(st.st_mtime))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (stat.S_IFREG | PRIVATE_FILE_MODE) << 16
        with zf.open(info, "w", force_zip64=True) as dst:
            while True:
                want = CHUNK if limit is None else min(CHUNK, limit - size)
                chunk = src.read(want) if want > 0 else b""
                if not chunk:
                    break
                digest.update(chunk)
                dst.write(chunk)
                size += len(chunk)
                on_bytes(len(chunk))
    return size, digest.hexdigest()


def create_backup(data_dir: Path, dest: Path, *, force: bool = False, progress: Progress | None = None) -> BackupReport:
    """Write the backup of ``data_dir`` to ``dest`` (see the module docstring); refuse an existing ``dest``
    unless ``force``."""
    data_dir, dest = Path(data_dir), Path(dest)
    if dest.exists() and not force:
        raise OkBotError(
            translate("backup", "{path} exists").format(path=dest),
            hint=translate("backup", "choose another file, or add --force to replace it"),
        )
    if not dest.parent.is_dir():
        raise OkBotError(translate("backup", "no folder {path}").format(path=dest.parent))
    listed: list[dict[str, Any]] = []
    skipped: list[str] = []
    with atomic_open(dest, "wb") as (raw, tmp):
        skip = {tmp.resolve(), dest.resolve()} if data_dir.exists() else set()
        files = list(_walk(data_dir.resolve(), skip)) if data_dir.exists() else []
        total = sum(size for _, _, size in files)
        done = 0

        def on_bytes(n: int) -> None:
            nonlocal done
            done += n
            if progress is not None:
                progress(done, total)

        with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
            for rel, path, seen in files:
                try:
                    opened = _open_listed(path, rel)
                except FileNotFoundError:
                    continue  # removed since the walk (a temp file renamed away): not data any more
                if isinstance(opened, str):
                    skipped.append(opened)
                    continue
                src, st = opened
                size, sha = _copy_into(zf, DATA_PREFIX + str(rel), src, st, seen, on_bytes)
                listed.append({"path": str(rel), "size": size, "sha256": sha})
            manifest = {
                "format": FORMAT,
                "formatVersion": FORMAT_VERSION,
                "okbotVersion": __version__,
                "createdAt": _now(),
                "files": listed,
                "leftOut": [*LEFT_OUT_FILES.values(), *LEFT_OUT_DIRS.values(), *LEFT_OUT_OTHER],
            }
            zf.writestr(MANIFEST_NAME, json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
    return BackupReport(dest, len(listed), sum(f["size"] for f in listed), list(manifest["leftOut"]), skipped)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


# ---------------------------------------------------------------------------- checking a backup
@dataclass
class CheckedBackup:
    """A backup whose manifest, names and checksums were all checked (:func:`check_backup`)."""

    path: Path
    manifest: dict[str, Any]
    files: list[dict[str, Any]]

    @property
    def bytes(self) -> int:
        return sum(int(f["size"]) for f in self.files)


def _safe_rel(name: str) -> PurePosixPath:
    """``name`` as a relative path that stays inside the data dir, else an OkBotError (zip-slip)."""
    bad = OkBotError(
        translate("backup", "the backup holds an unsafe path {path}").format(path=repr(name)),
        hint=translate("backup", "it would write outside the data folder; nothing was restored"),
    )
    if not name or "\\" in name or "\x00" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise bad
    rel = PurePosixPath(name)
    if rel.is_absolute() or any(part in ("..", "") for part in rel.parts) or rel.parts[0] == ".":
        raise bad
    return rel


def _read_manifest(zf: zipfile.ZipFile, path: Path) -> dict[str, Any]:
    try:
        raw = zf.read(MANIFEST_NAME)
    except KeyError:
        raise OkBotError(
            translate("backup", "{name} is not an OkBot backup").format(name=path.name),
            hint=translate("backup", "it has no {manifest}").format(manifest=MANIFEST_NAME),
        ) from None
    try:
        manifest = jsontext.loads(raw, what=MANIFEST_NAME)
    except jsontext.JSONTextError as exc:
        raise OkBotError(
            translate("backup", "{name}: its manifest cannot be read ({why})").format(name=path.name, why=exc)
        ) from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise OkBotError(
            translate("backup", "{name} is not an OkBot backup").format(name=path.name),
            hint=translate("backup", "its manifest names another format"),
        )
    version = manifest.get("formatVersion")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise OkBotError(translate("backup", "{name}: its manifest has no valid formatVersion").format(name=path.name))
    if version > FORMAT_VERSION:
        raise OkBotError(
            translate(
                "backup",
                "{name} was made by a newer OkBot ({made_by}, backup format v{version}); "
                "this OkBot ({current}) reads up to v{readable}",
            ).format(
                name=path.name,
                made_by=manifest.get("okbotVersion", "?"),
                version=version,
                current=__version__,
                readable=FORMAT_VERSION,
            ),
            hint=translate("backup", "update OkBot, then restore it; nothing was restored"),
        )
    files = manifest.get("files")
    if not isinstance(files, list) or not all(
        isinstance(f, dict)
        and isinstance(f.get("path"), str)
        and isinstance(f.get("size"), int)
        and isinstance(f.get("sha256"), str)
        for f in files
    ):
        raise OkBotError(translate("backup", "{name}: its manifest's file list is damaged").format(name=path.name))
    return manifest


def check_backup(path: Path, *, progress: Progress | None = None) -> CheckedBackup:
    """Read and check the whole backup at ``path`` (see the module docstring); writes nothing."""
    path = Path(path)
    try:
        zf = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise OkBotError(translate("backup", "cannot read {path} as a zip: {why}").format(path=path, why=exc)) from exc
    with zf:
        manifest = _read_manifest(zf, path)
        files = manifest["files"]
        wanted = {DATA_PREFIX + str(_safe_rel(f["path"])): f for f in files}
        if len(wanted) != len(files):
            raise OkBotError(translate("backup", "{name}: its manifest lists a file twice").format(name=path.name))
        _check_listed(path, [PurePosixPath(f["path"]) for f in files])
        for info in zf.infolist():
            if info.filename == MANIFEST_NAME:
                continue
            if not info.filename.startswith(DATA_PREFIX):
                _safe_rel(info.filename)
                raise _unlisted(path, info.filename)
            _safe_rel(info.filename[len(DATA_PREFIX) :])
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise OkBotError(
                    translate("backup", "{name} holds a symlink ({entry}); OkBot backups never do").format(
                        name=path.name, entry=info.filename
                    )
                )
            if info.is_dir():
                continue
            if info.filename not in wanted:
                raise _unlisted(path, info.filename)
        names = {info.filename for info in zf.infolist()}
        total = sum(int(f["size"]) for f in files)
        done = 0
        for arcname, entry in wanted.items():
            if arcname not in names:
                raise OkBotError(
                    translate("backup", "{name} lacks {entry}, which its manifest lists").format(
                        name=path.name, entry=entry["path"]
                    )
                )
            size, sha = 0, hashlib.sha256()
            try:
                with zf.open(arcname) as src:
                    while chunk := src.read(CHUNK):
                        sha.update(chunk)
                        size += len(chunk)
                        done += len(chunk)
                        if progress is not None:
                            progress(done, total)
            except (zipfile.BadZipFile, OSError) as exc:
                raise OkBotError(
                    translate("backup", "{name}: {entry} cannot be read ({why})").format(
                        name=path.name, entry=entry["path"], why=exc
                    )
                ) from exc
            if size != entry["size"] or sha.hexdigest() != entry["sha256"]:
                raise OkBotError(
                    translate("backup", "{name}: {entry} does not match its checksum").format(
                        name=path.name, entry=entry["path"]
                    ),
                    hint=translate("backup", "the backup is damaged; nothing was restored"),
                )
    return CheckedBackup(path, manifest, list(files))


def _check_listed(path: Path, listed: list[PurePosixPath]) -> None:
    """Refuse a file no backup holds (:func:`never_in_backup`: the keys, logs/ …) and a file listed where
    another listed file needs a folder: either would fail or do harm only once the data is moved aside."""
    folders = {parent for rel in listed for parent in rel.parents}
    for rel in listed:
        if never_in_backup(rel):
            raise OkBotError(
                translate("backup", "{name} holds {entry}, which an OkBot backup never holds").format(
                    name=path.name, entry=rel
                ),
                hint=translate("backup", "it was not made by OkBot, or was changed since; nothing was restored"),
            )
        if rel in folders:
            raise OkBotError(
                translate("backup", "{name}: its manifest lists {entry} as a file and as a folder").format(
                    name=path.name, entry=rel
                ),
                hint=translate("backup", "the backup is damaged; nothing was restored"),
            )


def _unlisted(path: Path, entry: str) -> OkBotError:
    return OkBotError(
        translate("backup", "{name} holds {entry}, which its manifest does not list").format(
            name=path.name, entry=repr(entry)
        )
    )


# ---------------------------------------------------------------------------- restore
def holds_data(data_dir: Path) -> bool:
    """Whether ``data_dir`` holds anything a restore would replace (keys, logs and lock files do not count)."""
    try:
        return any(not _kept_on_replace(entry.name) for entry in os.scandir(data_dir))
    except FileNotFoundError:
        return False


class _Swap:
    """Moving the data dir's entries aside and the restored ones in, undone entry by entry when a step fails."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.aside: Path | None = None
        self.moved: list[str] = []  # data dir entries now in ``aside``
        self.placed: list[str] = []  # restored entries now in the data dir

    def move_aside(self) -> Path:
        """Move what a restore replaces to ``<data dir>-before-restore-<stamp>`` (with a copy of the keys)."""
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        aside = self.data_dir.with_name(f"{self.data_dir.name}-before-restore-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = self.data_dir.with_name(f"{self.data_dir.name}-before-restore-{stamp}-{n}")
        aside.mkdir(mode=0o700)
        self.aside = aside
        for entry in sorted(os.scandir(self.data_dir), key=lambda e: e.name):
            if not _kept_on_replace(entry.name):
                os.rename(entry.path, aside / entry.name)
                self.moved.append(entry.name)
        if (self.data_dir / KEY_FILE).is_file():  # the backup has no keys: the old data beside keeps a copy too
            shutil.copy2(self.data_dir / KEY_FILE, aside / KEY_FILE)
        fsync_dir(aside)
        fsync_dir(self.data_dir)
        return aside

    def move_in(self, staging: Path) -> None:
        """Move the restored entries from ``staging`` into the data dir."""
        for entry in sorted(os.scandir(staging), key=lambda e: e.name):
            os.rename(entry.path, self.data_dir / entry.name)
            self.placed.append(entry.name)
        fsync_dir(self.data_dir)

    def undo(self) -> None:
        """Take out what was restored and put the old entries back where they were; the aside folder goes."""
        for name in reversed(self.placed):
            target = self.data_dir / name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            else:
                target.unlink()
        if self.aside is not None:
            for name in reversed(self.moved):
                os.rename(self.aside / name, self.data_dir / name)
            (self.aside / KEY_FILE).unlink(missing_ok=True)  # the copy: the keys never moved
            self.aside.rmdir()
            self.aside = None
        fsync_dir(self.data_dir)


def _extract(zf: zipfile.ZipFile, files: list[dict[str, Any]], staging: Path, on_bytes: Callable[[int], None]) -> None:
    for entry in files:
        rel = _safe_rel(entry["path"])
        out = staging.joinpath(*rel.parts)
        folder = staging
        for part in rel.parts[:-1]:  # each level 0700: mkdir(parents=True) makes the parents by the umask (0755)
            folder = folder / part
            folder.mkdir(exist_ok=True, mode=0o700)
        sha = hashlib.sha256()
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), PRIVATE_FILE_MODE)
        with zf.open(DATA_PREFIX + str(rel)) as src, os.fdopen(fd, "wb") as dst:
            while chunk := src.read(CHUNK):
                sha.update(chunk)
                dst.write(chunk)
                on_bytes(len(chunk))
            dst.flush()
            os.fsync(dst.fileno())
        if sha.hexdigest() != entry["sha256"]:  # the zip changed since it was checked
            raise OkBotError(
                translate("backup", "{entry} changed while it was restored").format(entry=entry["path"]),
                hint=translate("backup", "nothing was restored"),
            )


def restore_backup(
    path: Path,
    data_dir: Path,
    *,
    replace: bool = False,
    lock_held: bool = False,
    progress: Progress | None = None,
) -> RestoreReport:
    """Restore the backup at ``path`` into ``data_dir`` (see the module docstring).

    ``lock_held``: the caller is the app that holds ``data_dir``'s lock (it restarts afterwards);
    otherwise the lock is taken here and a running OkBot makes the restore refuse. Either way no other
    process may be using the data dir (:class:`~okbot.storage.datalock.DataDirUse`).
    """
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = None if lock_held else DataDirLock(data_dir)
    if lock is not None and not lock.try_acquire():
        pid = lock.holder_pid()
        holder = translate("backup", "OkBot (process {pid})").format(pid=pid) if pid else translate("backup", "OkBot")
        raise _in_use(holder, data_dir)
    use = DataDirUse(data_dir)
    try:
        if not use.take_exclusive():
            raise _in_use(", ".join(use.holders()) or translate("backup", "another OkBot process"), data_dir)
        return _restore_unlocked(path, data_dir, replace=replace, progress=progress)
    finally:
        use.release()
        if lock is not None:
            lock.release()


def _in_use(holder: str, data_dir: Path) -> OkBotError:
    return OkBotError(
        translate("backup", "{holder} is running on {path}").format(holder=holder, path=data_dir),
        hint=translate(
            "backup",
            "let it finish or close it first (the app restores from Settings → Advanced); nothing was restored",
        ),
    )


def _restore_unlocked(path: Path, data_dir: Path, *, replace: bool, progress: Progress | None) -> RestoreReport:
    checked = check_backup(path)
    if holds_data(data_dir) and not replace:
        raise OkBotError(
            translate("backup", "{path} already holds data").format(path=data_dir),
            hint=translate(
                "backup", "add --replace to move it aside to a dated folder beside it first; nothing was restored"
            ),
        )
    staging = Path(tempfile.mkdtemp(prefix=".okbot-restore-", dir=data_dir.parent))
    total, done = checked.bytes, 0

    def on_bytes(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total)

    swap = _Swap(data_dir)
    try:
        with zipfile.ZipFile(path) as zf:
            _extract(zf, checked.files, staging, on_bytes)
        if holds_data(data_dir):
            swap.move_aside()
        swap.move_in(staging)
    except OSError as exc:
        raise _rolled_back(swap, exc) from exc
    except BaseException:
        swap.undo()  # Ctrl+C part-way: the data dir as it was
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    manifest = checked.manifest
    return RestoreReport(
        len(checked.files),
        checked.bytes,
        swap.aside,
        str(manifest.get("createdAt", "")),
        str(manifest.get("okbotVersion", "")),
    )


def _rolled_back(swap: _Swap, exc: OSError) -> OkBotError:
    """The error for a restore the OS stopped (``exc``), once the data dir is put back as it was."""
    why = translate("backup", "the restore failed: cannot use {path}: {why}").format(
        path=exc.filename or swap.data_dir, why=exc.strerror or exc
    )
    try:
        swap.undo()
    except OSError as undo_exc:
        return OkBotError(
            why,
            hint=translate(
                "backup", "and the data could not all be put back ({why}): what is not in {path} is in {aside}"
            ).format(why=undo_exc.strerror or undo_exc, path=swap.data_dir, aside=swap.aside),
        )
    if swap.moved:
        return OkBotError(why, hint=translate("backup", "everything was put back as it was; nothing was restored"))
    return OkBotError(why, hint=translate("backup", "nothing was restored"))
