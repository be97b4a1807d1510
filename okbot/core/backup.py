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
files (``*.lock``), temp files of an unfinished atomic write (``.<name>.*.tmp``) and symlinks.

**Consistency while OkBot runs**: append-only files (``*.jsonl``) are copied up to the size read once when
the copy starts, so a line appended meanwhile is left for the next backup (a torn last line is fine: the
store sets it aside on open). Whole-file JSON is replaced atomically by its writers, so the open file is
one version. Files are streamed through in chunks (a 1 GB chat is never held in memory), and the zip is
written to a temp file beside the destination and renamed over it at the end.

**Restore** checks everything before touching anything: a manifest it understands (a newer format is
refused with a clear message), entry names that are relative and stay inside (no absolute paths, no
``..``: zip-slip), no symlinks, no entry the manifest does not list, and every file's size and sha256.
It never overwrites silently: a data dir that holds data is refused unless ``replace`` is given, and then
its entries are first moved aside to ``<data dir>-before-restore-<stamp>`` beside it (``keys.json`` and
``logs/`` stay: the backup has none). Files land via a staging folder, byte-identical. No OkBot may run
on the data dir meanwhile: restore takes the app's data-dir lock (:class:`~okbot.storage.datalock.DataDirLock`)
and refuses when another process holds it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

from okbot import __version__
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage.atomic import PRIVATE_FILE_MODE, atomic_open, fsync_dir
from okbot.storage.datalock import DATA_DIR_LOCK_NAME, DataDirLock
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
KEPT_ON_REPLACE = (KEY_FILE, "logs", DATA_DIR_LOCK_NAME)  # not in any backup: a restore leaves them be

Progress = Callable[[int, int], None]  # (bytes done, bytes in all)


@dataclass
class BackupReport:
    """What :func:`create_backup` wrote."""

    path: Path
    files: int
    bytes: int
    left_out: list[str] = field(default_factory=list)


@dataclass
class RestoreReport:
    """What :func:`restore_backup` did."""

    files: int
    bytes: int
    moved_aside: Path | None  # where the data dir's previous contents went (None: it held nothing)
    created_at: str
    okbot_version: str


# ---------------------------------------------------------------------------- backup
def _left_out(rel: PurePosixPath, name: str) -> bool:
    top = rel.parts[0]
    if len(rel.parts) > 1 and top in LEFT_OUT_DIRS:
        return True
    if len(rel.parts) == 1 and top in LEFT_OUT_FILES:
        return True
    return name.endswith(".lock") or (name.startswith(".") and name.endswith(".tmp"))


def _walk(root: Path, skip: set[Path]) -> Iterator[tuple[PurePosixPath, Path, int]]:
    """``(relative posix path, path, size)`` of every regular file to back up, sorted, symlinks never followed."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        rel_here = here.relative_to(root)
        dirs[:] = sorted(d for d in dirs if not (rel_here == Path(".") and d in LEFT_OUT_DIRS))
        for name in sorted(files):
            path = here / name
            rel = PurePosixPath(*(rel_here / name).parts)
            if path in skip or _left_out(rel, name):
                continue
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode):  # symlinks, sockets, fifos: left out
                yield rel, path, info.st_size


def _copy_into(
    zf: zipfile.ZipFile, arcname: str, path: Path, seen_size: int, on_bytes: Callable[[int], None]
) -> tuple[int, str]:
    """Stream ``path`` into ``zf``; an append-only file only up to ``seen_size``, its size when the backup
    listed it (what is appended later waits for the next backup). Returns (size, sha256)."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as src:
        limit = seen_size if path.suffix == ".jsonl" else None
        info = zipfile.ZipInfo.from_file(path, arcname)
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
                    size, sha = _copy_into(zf, DATA_PREFIX + str(rel), path, seen, on_bytes)
                except FileNotFoundError:
                    continue  # removed since the walk (a temp file renamed away): not data any more
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
    return BackupReport(dest, len(listed), sum(f["size"] for f in listed), list(manifest["leftOut"]))


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
        manifest = json.loads(raw)
    except ValueError as exc:
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


def _unlisted(path: Path, entry: str) -> OkBotError:
    return OkBotError(
        translate("backup", "{name} holds {entry}, which its manifest does not list").format(
            name=path.name, entry=repr(entry)
        )
    )


# ---------------------------------------------------------------------------- restore
def holds_data(data_dir: Path) -> bool:
    """Whether ``data_dir`` holds anything a restore would replace (keys, logs and the lock do not count)."""
    try:
        return any(entry.name not in KEPT_ON_REPLACE for entry in os.scandir(data_dir))
    except FileNotFoundError:
        return False


def _move_aside(data_dir: Path) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    aside = data_dir.with_name(f"{data_dir.name}-before-restore-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = data_dir.with_name(f"{data_dir.name}-before-restore-{stamp}-{n}")
    aside.mkdir(mode=0o700)
    for entry in sorted(os.scandir(data_dir), key=lambda e: e.name):
        if entry.name not in KEPT_ON_REPLACE:
            os.rename(entry.path, aside / entry.name)
    for kept in (KEY_FILE,):  # the backup has no keys: the old data beside keeps a copy too
        if (data_dir / kept).is_file():
            shutil.copy2(data_dir / kept, aside / kept)
    fsync_dir(aside)
    fsync_dir(data_dir)
    return aside


def _extract(zf: zipfile.ZipFile, files: list[dict[str, Any]], staging: Path, on_bytes: Callable[[int], None]) -> None:
    for entry in files:
        rel = _safe_rel(entry["path"])
        out = staging.joinpath(*rel.parts)
        out.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
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
    otherwise the lock is taken here and a running OkBot makes the restore refuse.
    """
    data_dir = Path(data_dir)
    lock: DataDirLock | None = None
    if not lock_held:
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock = DataDirLock(data_dir)
        if not lock.try_acquire():
            pid = lock.holder_pid()
            if pid:
                text = translate("backup", "OkBot (process {pid}) is running on {path}")
            else:
                text = translate("backup", "OkBot is running on {path}")
            raise OkBotError(
                text.format(pid=pid, path=data_dir),
                hint=translate(
                    "backup", "close it first, or restore from Settings → Advanced inside the app; nothing was restored"
                ),
            )
    try:
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

        try:
            with zipfile.ZipFile(path) as zf:
                _extract(zf, checked.files, staging, on_bytes)
            aside = _move_aside(data_dir) if holds_data(data_dir) else None
            for entry in sorted(os.scandir(staging), key=lambda e: e.name):
                os.rename(entry.path, data_dir / entry.name)
            fsync_dir(data_dir)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    finally:
        if lock is not None:
            lock.release()
    manifest = checked.manifest
    return RestoreReport(
        len(checked.files),
        checked.bytes,
        aside,
        str(manifest.get("createdAt", "")),
        str(manifest.get("okbotVersion", "")),
    )
