"""Schema versions of the files OkBot writes, and the named migrations that upgrade older ones.

=======================  ==================================  =======  ===============================================
file                     where the version is                current  migrations (from version: name)
=======================  ==================================  =======  ===============================================
settings.json            ``"version"``                       2        declared by :mod:`okbot.config.settings_file`
session-summary.json     ``"version"``                       2        0: ``summary-v0-defaults``,
                                                                     1: ``summary-v1-turn-fields``
assistant.json           ``"version"``                       1        0: ``assistant-v0-defaults``
squad.json               ``"version"``                       1        0: ``squad-v0-defaults``
memories.jsonl           header line ``{"okbot": "memories",  1        0: ``memories-v0-add-header``
                         "version": N}``
memory-recall.json       ``"version"`` (a cache)             1        0: ``memory-recall-v0-discard`` (recomputed)
extraction.json          ``"version"``                       1        0: ``extraction-v0-add-version``
as-sent/requests.jsonl   ``"v"`` on every line               3        none: append-only, older lines are read as is
evolution.jsonl          ``"v"`` on every line               1        none: append-only; newer lines are skipped
evolution-pending.json   ``"version"``                       1        none
evolution-state.json     ``"version"``                       1        none
session.jsonl            ``"v"`` on every item (items.py)    1        owned by the session store
session-summary.         ``"v"`` on every line               1        none: append-only; newer lines are skipped
history.jsonl
schedules.json           ``"version"``                       1        none
pending-approvals.json   ``"version"``                       1        none
=======================  ==================================  =======  ===============================================

A missing version means 0 (written before versions existed). The rules:

* **Older** -- the stores migrate what they read *in memory*, through the ordered migrations of
  :data:`MIGRATIONS` (a file a higher layer owns declares its own there with :func:`register`);
  reading never writes. The next save first keeps the old bytes as ``<file>.v<N>.bak``
  (:func:`keep_old_copy`), then writes the current version, and logs each applied migration's name
  (:func:`log_applied`). An older OkBot can keep reading an untouched file.
* **Newer** -- the file is read for what this build knows and opened **read-only**: a clear
  message goes to the store's problems, and every write raises :class:`NewerVersion` (an
  :class:`~okbot.storage.errors.OkBotError`) before touching anything, so the bytes on disk stay
  exactly as the newer OkBot left them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage.atomic import atomic_write_bytes, atomic_write_json
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.migrations")

VERSION_KEY = "version"


class NewerVersion(OkBotError):
    """A write refused because the file was written by a newer OkBot (it is opened read-only)."""

    def __init__(
        self,
        path: Path | str,
        version: int,
        current: int,
        *,
        action: str = QT_TRANSLATE_NOOP("migrations", "change it"),
    ) -> None:
        """``action`` says what was not done ("change it"); marked with ``QT_TRANSLATE_NOOP("migrations", …)``
        where it is written, it is shown in the current language."""
        self.path, self.version, self.current = Path(path), version, current
        super().__init__(
            translate(
                "migrations",
                "{name} was written by a newer version of OkBot (file format {version}; this one reads up to "
                "{current}), so it is read-only here: OkBot did not {action} and left the file untouched",
            ).format(name=Path(path).name, version=version, current=current, action=translate("migrations", action)),
            hint=translate("migrations", "update OkBot to change it"),
        )


@dataclass(frozen=True)
class Migration:
    """One named step that turns a version ``from_version`` object into a ``from_version + 1`` one."""

    from_version: int
    name: str
    apply: Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class Upgrade:
    """What :func:`upgrade` did: the (possibly migrated) object, the version read and the steps applied.

    ``newer`` is true when the object came from a newer OkBot (then ``data`` is the object unchanged).
    """

    data: dict[str, Any]
    from_version: int
    applied: list[str] = field(default_factory=list)
    newer: bool = False

    @property
    def migrated(self) -> bool:
        return bool(self.applied)


# --------------------------------------------------------------------------------- the migrations
def with_version(obj: dict[str, Any], version: int = 1) -> dict[str, Any]:
    """``obj`` with ``"version"`` first (how every current file starts)."""
    return {VERSION_KEY: version, **{k: v for k, v in obj.items() if k != VERSION_KEY}}


def _summary_v0(obj: dict[str, Any]) -> dict[str, Any]:
    # Before versions a summary held summary / coveredThroughId / updatedAt only; an id written as
    # digits in a string (the Electron original's form) becomes the integer id it names.
    out = with_version(obj)
    covered = out.get("coveredThroughId")
    if isinstance(covered, str) and covered.strip().isdigit():
        out["coveredThroughId"] = int(covered.strip())
    elif covered is None:
        out["coveredThroughId"] = 0
    for key, default in (
        ("summary", ""),
        ("keptUserIds", []),
        ("updatedAt", ""),
        ("trigger", ""),
        ("hiddenItemIds", []),
        ("health", {}),
    ):
        out.setdefault(key, default)
    return out


def _summary_v1(obj: dict[str, Any]) -> dict[str, Any]:
    # Format 2 pins the current request of a turn compressed inside itself and cuts a tool result too
    # large for the window in the request; a format-1 summary has neither.
    out = with_version(obj, 2)
    out.setdefault("currentRequestIds", [])
    out.setdefault("cutItems", {})
    return out


def _assistant_v0(obj: dict[str, Any]) -> dict[str, Any]:
    out = with_version(obj)
    out.setdefault("role", "")
    out.setdefault("model", None)
    out.setdefault("toolPolicy", {})
    return out


def _squad_v0(obj: dict[str, Any]) -> dict[str, Any]:
    out = with_version(obj)
    out.setdefault("description", "")
    out.setdefault("members", [])
    out.setdefault("captain", {})
    return out


def _memories_header_v0(_header: dict[str, Any]) -> dict[str, Any]:
    return {"okbot": "memories", VERSION_KEY: 1}


CURRENT: dict[str, int] = {
    "summary": 2,  # 2: currentRequestIds, cutItems, the trigger "turn"
    "assistant": 1,
    "squad": 1,
    "memories": 1,
    "memory-recall": 1,
    "extraction": 1,
    "as-sent": 3,  # 2: the ids of the items sent, the round, the window and token parts; 3: pinned, cut
    "evolution-log": 1,
    "evolution-pending": 1,
    "evolution-state": 1,
    "summary-history": 1,  # session-summary.history.jsonl: each compression, undo and redo
    "pending-approvals": 1,  # pending-approvals.json: tool calls that wait for an answer across a restart
    "schedules": 1,  # schedules.json: the target's scheduled jobs
}

MIGRATIONS: dict[str, list[Migration]] = {
    "summary": [
        Migration(0, "summary-v0-defaults", _summary_v0),
        Migration(1, "summary-v1-turn-fields", _summary_v1),
    ],
    "assistant": [Migration(0, "assistant-v0-defaults", _assistant_v0)],
    "squad": [Migration(0, "squad-v0-defaults", _squad_v0)],
    "memories": [Migration(0, "memories-v0-add-header", _memories_header_v0)],
    "memory-recall": [Migration(0, "memory-recall-v0-discard", lambda _obj: {VERSION_KEY: 1, "key": {}, "lines": []})],
    "extraction": [Migration(0, "extraction-v0-add-version", with_version)],
    "as-sent": [],
    "evolution-log": [],
    "evolution-pending": [],
    "evolution-state": [],
    "summary-history": [],
    "pending-approvals": [],
    "schedules": [],
}


def _check_registry() -> None:
    for kind, steps in MIGRATIONS.items():
        froms = [m.from_version for m in steps]
        if froms != sorted(set(froms)) or any(f >= CURRENT[kind] for f in froms):
            raise AssertionError(f"migrations of {kind} are not ordered below version {CURRENT[kind]}")


_check_registry()


def register(kind: str, current: int, steps: list[Migration]) -> None:
    """Declare the format of a file a higher layer owns (``settings`` is :mod:`okbot.config.settings_file`'s):
    its current version and the ordered migrations that bring an older one up to it. Declaring a kind again
    with other steps is a bug."""
    names = [step.name for step in steps]
    if kind in CURRENT and (CURRENT[kind], [m.name for m in MIGRATIONS[kind]]) != (current, names):
        raise AssertionError(f"the migrations of {kind} are declared twice")
    CURRENT[kind], MIGRATIONS[kind] = current, list(steps)
    _check_registry()


# ----------------------------------------------------------------------------------- reading
def version_of(obj: dict[str, Any], key: str = VERSION_KEY) -> int | None:
    """The version an object records: 0 when the key is missing, ``None`` when it is not an integer >= 0."""
    if key not in obj:
        return 0
    value = obj[key]
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def read_upgrade(path: Path, kind: str, key: str = VERSION_KEY) -> Upgrade | None:
    """How ``path`` on disk stands against this build: ``None`` when missing, unreadable or without a
    usable version; else the :class:`Upgrade` that reading it would apply (``newer`` for a newer file)."""
    try:
        obj = json.loads(Path(path).read_bytes().decode("utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return None
    version = version_of(obj, key) if isinstance(obj, dict) else None
    return None if version is None else upgrade(kind, obj, version)


def upgrade(kind: str, obj: dict[str, Any], version: int) -> Upgrade:
    """Bring ``obj`` (read as ``version``) up to :data:`CURRENT` ``[kind]`` through the named migrations.

    Nothing is written or logged here: the caller persists (and logs) on its next save. A newer
    object comes back unchanged with ``newer=True``.
    """
    current = CURRENT[kind]
    if version > current:
        return Upgrade(dict(obj), version, newer=True)
    data, applied = dict(obj), []
    for step in MIGRATIONS[kind]:
        if step.from_version >= version:
            data = step.apply(data)
            applied.append(step.name)
    return Upgrade(data, version, applied)


def newer_message(path: Path | str, version: int, kind: str) -> str:
    """The problem line shown for a file written by a newer OkBot."""
    return translate(
        "migrations",
        "{name} was written by a newer version of OkBot (file format {version}; this one reads up to "
        "{current}); it is opened read-only and will not be changed",
    ).format(name=Path(path).name, version=version, current=CURRENT[kind])


# ----------------------------------------------------------------------------------- writing
def keep_old_copy(path: Path, from_version: int) -> Path | None:
    """Copy ``path``'s current bytes to ``<name>.v<from_version>.bak`` before it is upgraded.

    An identical copy already there is reused; a different one is never overwritten (the next free
    ``<name>.v<N>.<k>.bak`` is used). Returns the copy, or ``None`` when there is no file to keep.
    Raises OSError when the copy cannot be written (the caller must then not upgrade the file).
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    target = path.with_name(f"{path.name}.v{from_version}.bak")
    k = 1
    while target.exists():
        if target.read_bytes() == raw:
            return target
        k += 1
        target = path.with_name(f"{path.name}.v{from_version}.{k}.bak")
    atomic_write_bytes(target, raw)
    return target


def log_applied(path: Path, kind: str, upgrade_: Upgrade, backup: Path | None) -> None:
    """Log the migrations just persisted for ``path`` (one line per named migration)."""
    kept = f"; the old file was kept as {backup.name}" if backup is not None else ""
    for name in upgrade_.applied:
        log.info("%s: applied migration %s (format %d -> %d)%s", path, name, upgrade_.from_version, CURRENT[kind], kept)


def persist_upgrade(path: Path, kind: str, upgrade_: Upgrade | None) -> None:
    """Before writing an upgraded file: keep the old bytes as ``.v<N>.bak`` and log the migrations.

    A no-op for ``None`` or an object that needed no migration. OSError propagates (write nothing then).
    """
    if upgrade_ is None or upgrade_.newer or upgrade_.from_version >= CURRENT[kind]:
        return
    backup = keep_old_copy(path, upgrade_.from_version)
    log_applied(path, kind, upgrade_, backup)


def current_form(kind: str, obj: dict[str, Any], path: Path) -> tuple[dict[str, Any], str]:
    """``obj`` (read from ``path``) brought to this build's format in memory, and ``""``; or, for a
    newer OkBot's object, ``obj`` unchanged and the read-only message. A bad version is left alone."""
    version = version_of(obj) if obj else None
    if version is None or version == CURRENT[kind]:
        return obj, ""
    up = upgrade(kind, obj, version)
    return (obj, newer_message(path, version, kind)) if up.newer else (up.data, "")


def write_json(path: Path, kind: str, obj: dict[str, Any], *, action: str) -> None:
    """Replace the JSON file ``path`` with ``obj`` in this build's format (atomic, previous kept as .bak).

    Checks the file on disk first: a newer OkBot's file raises :class:`NewerVersion` and nothing is
    written; an older one is kept as ``<name>.v<N>.bak`` and its migrations are logged. A failed write
    raises OkBotError naming the file (nothing replaced).
    """
    on_disk = read_upgrade(path, kind)
    if on_disk is not None and on_disk.newer:
        raise NewerVersion(path, on_disk.from_version, CURRENT[kind], action=action)
    data = {VERSION_KEY: CURRENT[kind], **{k: v for k, v in obj.items() if k != VERSION_KEY}}
    try:
        persist_upgrade(path, kind, on_disk)
        atomic_write_json(path, data, backup=True)
    except OSError as exc:
        raise OkBotError(
            translate("migrations", "Could not save {path}: {why}; nothing was changed.").format(
                path=path, why=exc.strerror or exc
            )
        ) from exc
