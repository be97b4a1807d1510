"""``settings.json`` itself: read leniently, written atomically, its format versions and their migrations.

Reading never raises for bad content. A file that cannot be parsed is copied to
``settings.json.broken-<UTC stamp>`` and nothing is taken from it; a file that could be parsed but had
to be repaired is copied the same way before the repairs are ever written. What reading found is kept
in :attr:`SettingsFile.problems` (said in the language of the moment it is shown).

Versions (see :mod:`okbot.storage.migrations`, where this module declares the settings' migrations): a
file without ``version`` (format 0) is migrated in memory and written as the current format on the next
write, after a copy of the old file is kept as ``settings.json.v0.bak``. A file from a newer OkBot is
**read-only**: :meth:`SettingsFile.write` raises :class:`SettingError` and the file is never rewritten.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any

from okbot.config.said import Said, refusal, said
from okbot.config.schema import SettingError, show_value
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage import migrations
from okbot.storage.atomic import atomic_write_bytes, atomic_write_json, file_stamp

log = logging.getLogger("okbot.config")

KIND = "settings"  # the name settings.json goes by in okbot.storage.migrations
FORMAT_VERSION = 2
VERSION_KEY = migrations.VERSION_KEY

# How a part of the settings saves a change it made: write the settings, then tell the subscribers ``key``;
# when the write fails, call ``undo`` and raise (``Settings.commit``).
Commit = Callable[[str, Callable[[], None]], None]


def _providers_v1(obj: dict[str, Any]) -> dict[str, Any]:
    # Before providers there was one server, set by provider.baseUrl / provider.keySource: it becomes the
    # provider called "default" (the name the key store files its key under); the model stays provider.model.
    out = migrations.with_version(obj, 2)
    default: dict[str, Any] = {"name": "default"}
    for old, new in (("provider.baseUrl", "baseUrl"), ("provider.keySource", "keySource")):
        if old in out:
            default[new] = out.pop(old)
    others = out.get("providers")
    kept = (
        [p for p in others if not (isinstance(p, dict) and p.get("name") == "default")]
        if isinstance(others, list)
        else []
    )
    if len(default) > 1 or kept:
        out["providers"] = [default, *kept]
    return out


migrations.register(
    KIND,
    FORMAT_VERSION,
    [
        migrations.Migration(0, "settings-v0-add-version", migrations.with_version),
        migrations.Migration(1, "settings-v1-providers", _providers_v1),
    ],
)


def _utc_stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


class SettingsFile:
    """The file at ``path``: :meth:`read` it once, then :meth:`write` the whole object back each time.

    ``problems`` lists what reading found (the parts of the settings report theirs here too, through
    :meth:`problem`); :attr:`read_only` says why the file must not be written, if it must not.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.problems: list[Said] = []
        self.version = FORMAT_VERSION
        self._raw = b""  # the bytes read, copied aside before repairs are written
        self._save_blocked: Said | None = None  # why write() must not overwrite the file on disk
        self._upgrade: migrations.Upgrade | None = None  # an older file migrated in memory, persisted on write
        self._stamp: tuple[int, int] | None = None  # the file's mtime and size when it was read

    @property
    def name(self) -> str:
        return self.path.name

    def problem(self, message: Said) -> None:
        """Note what reading found (logged now, shown later in the language of then)."""
        self.problems.append(message)
        log.warning("%s", message())

    # ----------------------------------------------------------------- reading

    def read(self) -> dict[str, Any] | None:
        """The file's object brought to the current format in memory; None when there is nothing to take
        from it (missing, unreadable or unparseable: each noted in :attr:`problems` but the first)."""
        name = self.name
        self._stamp = file_stamp(self.path)
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._save_blocked = said(
                QT_TRANSLATE_NOOP(
                    "settings",
                    "{name} could not be read ({why}); OkBot will not overwrite it. Fix its permissions and restart"
                    " OkBot",
                ),
                name=name,
                why=_why(exc),
            )
            self.problem(
                said(
                    QT_TRANSLATE_NOOP(
                        "settings",
                        "{name} could not be read ({why}); defaults in use, and changes will not be saved until it"
                        " can be read",
                    ),
                    name=name,
                    why=_why(exc),
                )
            )
            return None
        self._raw = raw
        try:
            data = json.loads(raw.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            if isinstance(exc, UnicodeDecodeError):
                what = said(QT_TRANSLATE_NOOP("settings", "{name} was not valid UTF-8 text"), name=name)
            elif not raw.strip():
                what = said(QT_TRANSLATE_NOOP("settings", "{name} was empty"), name=name)
            else:
                what = said(QT_TRANSLATE_NOOP("settings", "{name} was not valid JSON"), name=name)
            self._broken(what)
            return None
        if not isinstance(data, dict):
            self._broken(said(QT_TRANSLATE_NOOP("settings", "{name} did not hold a JSON object"), name=name))
            return None
        version = migrations.version_of(data)
        if version is not None and version < FORMAT_VERSION:
            self._upgrade = migrations.upgrade(KIND, data, version)
            data = self._upgrade.data
        return data

    def read_version(self, value: Any) -> bool:
        """Take the file's ``version``; True when it had to be repaired (it was no version at all)."""
        if isinstance(value, int) and not isinstance(value, bool) and value >= FORMAT_VERSION:
            self.version = value
            if value > FORMAT_VERSION:
                message = partial(migrations.newer_message, self.path, value, KIND)
                self._save_blocked = message
                self.problem(
                    said(
                        QT_TRANSLATE_NOOP("settings", "{message}; the settings this version knows are used"),
                        message=message,
                    )
                )
            return False
        self.problem(
            said(
                QT_TRANSLATE_NOOP("settings", "{file}: version was {value}; treated as {version}"),
                file=self.name,
                value=show_value(value),
                version=FORMAT_VERSION,
            )
        )
        return True

    def entries(self, key: str, value: Any, parse: Callable[[Any], Any], removed: str) -> tuple[list[Any], bool]:
        """The entries of the list ``value`` (under ``key``) that ``parse`` takes, and whether any was refused
        (each refused one is left out, with the message ``removed`` saying why)."""
        if not isinstance(value, list):
            self.problem(
                said(
                    QT_TRANSLATE_NOOP("settings", "{file}: {key} was {value}, not a list; ignored"),
                    file=self.name,
                    key=key,
                    value=show_value(value),
                )
            )
            return [], True
        parsed, refused = [], False
        for entry in value:
            try:
                parsed.append(parse(entry))
            except SettingError:
                self.problem(said(removed, file=self.name, problem=refusal(partial(parse, entry))))
                refused = True
        return parsed, refused

    def keep_original(self) -> None:
        """Reading repaired something: copy the bytes read aside before a write can replace them."""
        backup = self._backup()
        if backup:
            self.problem(
                said(
                    QT_TRANSLATE_NOOP(
                        "settings", "the original {name} was backed up to {backup} before the repairs above"
                    ),
                    name=self.name,
                    backup=backup,
                )
            )

    def _broken(self, what: Said) -> None:
        backup = self._backup()
        if backup:
            self.problem(
                said(
                    QT_TRANSLATE_NOOP("settings", "{what}; backed up to {backup}; defaults in use"),
                    what=what,
                    backup=backup,
                )
            )

    def _backup(self) -> str:
        """Copy the bytes read to ``<name>.broken-<stamp>`` (reusing an identical earlier copy)."""
        parent, name, raw = self.path.parent, self.name, self._raw
        try:
            for old in sorted(parent.glob(f"{name}.broken-*")):
                if old.is_file() and old.stat().st_size == len(raw) and old.read_bytes() == raw:
                    return old.name
            target = parent / f"{name}.broken-{_utc_stamp()}"
            n = 1
            while target.exists():
                n += 1
                target = parent / f"{name}.broken-{_utc_stamp()}-{n}"
            atomic_write_bytes(target, raw)
        except OSError as exc:
            self._save_blocked = said(
                QT_TRANSLATE_NOOP("settings", "{name} needs repair but no backup copy could be made ({why})"),
                name=name,
                why=_why(exc),
            )
            self.problem(
                said(
                    QT_TRANSLATE_NOOP(
                        "settings",
                        "{name} had problems and could not be backed up ({why}); defaults in use for the bad values,"
                        " and the file will not be overwritten",
                    ),
                    name=name,
                    why=_why(exc),
                )
            )
            return ""
        return target.name

    def changed_on_disk(self) -> bool:
        """Whether the file on disk is no longer the one read (another process or an editor wrote it, or this
        one did since): its modification time or size differs."""
        return file_stamp(self.path) != self._stamp

    # ----------------------------------------------------------------- writing

    @property
    def read_only(self) -> str:
        """Why settings.json must not be written (a newer OkBot's file, an unreadable one), else ``""``."""
        return self._save_blocked() if self._save_blocked is not None else ""

    def write(self, obj: dict[str, Any]) -> None:
        """Replace the file with ``obj`` atomically (mode 0600, previous version kept as ``.bak``).

        An older file is first copied to ``settings.json.v<N>.bak`` (the migrations are logged then).
        Raises :class:`SettingError` rather than overwrite a file that could not be read or backed up,
        or one written by a newer OkBot (read-only).
        """
        if self._save_blocked is not None:
            raise SettingError(translate("settings", "settings not saved: {why}").format(why=self._save_blocked()))
        try:
            migrations.persist_upgrade(self.path, KIND, self._upgrade)
        except OSError as exc:
            raise SettingError(
                translate(
                    "settings", "settings not saved: the old {name} could not be backed up before upgrading it ({why})"
                ).format(name=self.name, why=_why(exc))
            ) from exc
        try:
            atomic_write_json(self.path, obj, backup=True)
        except OSError as exc:
            raise SettingError(
                translate("settings", "settings not saved: could not write {path} ({why})").format(
                    path=self.path, why=_why(exc)
                )
            ) from exc
        self._upgrade = None
