"""``session-summary.json``: the folded summary of a session and how far it reaches.

``coveredThroughId`` is the id of the last session item folded into ``summary``; the model sees
the summary plus the items after it. ``keptUserIds`` are the user's own messages that the
app quotes verbatim next to the summary. ``hiddenItemIds`` are tool calls/results after the
coverage that were hidden from the model to make a request fit (they stay on disk and
searchable); ``cutItems`` maps a tool result after the coverage to how many of its characters a
request shows (one too large for the window alone, cut there with a note, whole on disk);
``currentRequestIds`` are the user's message(s) of the turn a compression *inside* that turn ran in:
while the turn goes on (no newer user message) the request shows them at the head of the tail, word
for word and marked as the current request, even after coverage passed them. ``health`` records how
compaction has gone for this session. The file is replaced
atomically with the previous version kept as ``session-summary.json.bak``; a damaged file falls
back to that backup, then to an empty summary, always with a notice and never an exception.

Versions (see :mod:`okbot.storage.migrations`): a summary without ``version`` (format 0) is read through
the named migrations; the next save keeps the old file as ``session-summary.json.v0.bak`` first. Format 2
added ``currentRequestIds``, ``cutItems`` and the trigger ``turn`` (a compression inside a turn). A
summary from a newer OkBot is read for the fields this one knows and is read-only:
:meth:`SummaryStore.save` raises :class:`~okbot.storage.migrations.NewerVersion` (an OkBotError) and
leaves the file alone. Any other failed save raises OkBotError too, naming the file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from okbot.core import items
from okbot.i18n import translate
from okbot.storage import atomic, migrations
from okbot.storage.errors import OkBotError

SUMMARY_VERSION = migrations.CURRENT["summary"]
TRIGGERS = ("", "ratio", "topic", "manual", "turn")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass
class SessionSummary:
    """The summary of one session's older items (empty: nothing compressed yet)."""

    summary: str = ""
    covered_through_id: int = 0
    kept_user_ids: list[int] = field(default_factory=list)
    updated_at: str = ""
    trigger: str = ""  # "" | "ratio" | "topic" | "manual" | "turn"
    version: int = SUMMARY_VERSION
    hidden_item_ids: list[int] = field(default_factory=list)  # tail tool items hidden from the model to fit
    health: dict[str, Any] = field(default_factory=dict)  # compaction health (count, last trigger, ...)
    current_request_ids: list[int] = field(default_factory=list)  # the turn's own message(s), pinned while it runs
    cut_items: dict[int, int] = field(default_factory=dict)  # tool result id -> characters a request shows

    def to_json(self) -> dict:
        """The on-disk form (camelCase keys, shared with the Electron original)."""
        return {
            "version": self.version,
            "summary": self.summary,
            "coveredThroughId": self.covered_through_id,
            "keptUserIds": list(self.kept_user_ids),
            "updatedAt": self.updated_at,
            "trigger": self.trigger,
            "hiddenItemIds": list(self.hidden_item_ids),
            "health": dict(self.health),
            "currentRequestIds": list(self.current_request_ids),
            "cutItems": {str(k): v for k, v in sorted(self.cut_items.items())},
        }

    @classmethod
    def from_json(cls, obj: Any) -> SessionSummary:
        """Parse the on-disk form; missing keys take defaults, wrong ones raise ValueError saying why."""
        if not isinstance(obj, dict):
            raise ValueError(f"a summary must be a JSON object, not {type(obj).__name__}")
        version = obj.get("version", SUMMARY_VERSION)
        if not _is_int(version) or version < 1:
            raise ValueError(f"'version' must be a positive integer, got {version!r}")
        if version > SUMMARY_VERSION:
            raise ValueError(
                f"'version' {version} was written by a newer OkBot (this one reads up to {SUMMARY_VERSION})"
            )
        summary = obj.get("summary", "")
        if not isinstance(summary, str):
            raise ValueError(f"'summary' must be text, got {type(summary).__name__}")
        covered = obj.get("coveredThroughId", 0)
        if not _is_int(covered) or covered < 0:
            raise ValueError(f"'coveredThroughId' must be an integer >= 0, got {covered!r}")
        kept = obj.get("keptUserIds", [])
        if not isinstance(kept, list) or not all(_is_int(k) and k > 0 for k in kept):
            raise ValueError(f"'keptUserIds' must be a list of positive integer ids, got {kept!r}")
        updated = obj.get("updatedAt", "")
        if not isinstance(updated, str):
            raise ValueError(f"'updatedAt' must be text, got {type(updated).__name__}")
        trigger = obj.get("trigger", "")
        if trigger not in TRIGGERS:
            raise ValueError(f"'trigger' must be one of {', '.join(map(repr, TRIGGERS))}, got {trigger!r}")
        hidden = obj.get("hiddenItemIds", [])
        if not isinstance(hidden, list) or not all(_is_int(k) and k > 0 for k in hidden):
            raise ValueError(f"'hiddenItemIds' must be a list of positive integer ids, got {hidden!r}")
        health = obj.get("health", {})
        if not isinstance(health, dict):
            raise ValueError(f"'health' must be an object, got {type(health).__name__}")
        current = obj.get("currentRequestIds", [])
        if not isinstance(current, list) or not all(_is_int(k) and k > 0 for k in current):
            raise ValueError(f"'currentRequestIds' must be a list of positive integer ids, got {current!r}")
        cut = _cut_items(obj.get("cutItems", {}))
        return cls(
            summary=summary,
            covered_through_id=covered,
            kept_user_ids=list(kept),
            updated_at=updated,
            trigger=trigger,
            version=version,
            hidden_item_ids=list(hidden),
            health=dict(health),
            current_request_ids=list(current),
            cut_items=cut,
        )


def _cut_items(obj: Any) -> dict[int, int]:
    """``cutItems`` read: item ids (as JSON object keys) to a positive number of characters."""
    if not isinstance(obj, dict):
        raise ValueError(f"'cutItems' must be an object, got {type(obj).__name__}")
    out = {}
    for key, chars in obj.items():
        if not (isinstance(key, str) and key.isdigit() and int(key) > 0 and _is_int(chars) and chars > 0):
            raise ValueError(f"'cutItems' must map item ids to a positive number of characters, got {key!r}: {chars!r}")
        out[int(key)] = chars
    return out


class SummaryStore:
    """Loads and saves one ``session-summary.json``.

    ``load`` never raises for bad content: it falls back to the backup, then to an empty
    summary, adding a notice to ``problems`` and calling ``on_notice`` for each fallback.
    """

    def __init__(self, path: Path, *, on_notice: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.backup_path = self.path.with_name(self.path.name + ".bak")
        self.problems: list[str] = []
        self.read_only = ""  # set by load() when the file comes from a newer OkBot: why saves are refused
        self._on_notice = on_notice

    def load(self) -> SessionSummary:
        """The stored summary; an empty one when there is none or nothing usable."""
        summary, why = self._read(self.path)
        if summary is not None:
            return summary
        if why is None:  # no file: nothing compressed yet
            return SessionSummary()
        backup, bak_why = self._read(self.backup_path)
        if backup is not None:
            self._notify(
                translate("summary", "The session summary {path} {why}; using its backup ({backup}) instead.").format(
                    path=self.path, why=why, backup=self.backup_path.name
                )
            )
            return backup
        self._notify(
            translate(
                "summary",
                "The session summary {path} {why} and no usable backup exists; "
                "starting with an empty summary (the full session is still kept).",
            ).format(path=self.path, why=why)
        )
        if bak_why is not None:
            self._notify(
                translate("summary", "The summary backup {path} {why} as well.").format(
                    path=self.backup_path, why=bak_why
                )
            )
        return SessionSummary()

    def save(self, s: SessionSummary) -> None:
        """Validate and write ``s`` atomically, keeping the previous file as the backup.

        Raises :class:`~okbot.storage.migrations.NewerVersion` (nothing written) when the file on disk
        comes from a newer OkBot, and OkBotError when it cannot be written. An older file is first
        kept as ``<name>.v<N>.bak``.
        """
        on_disk = migrations.read_upgrade(self.path, "summary")
        if on_disk is None:  # missing or damaged: the backup may still be a newer OkBot's
            backup = migrations.read_upgrade(self.backup_path, "summary")
            if backup is not None and backup.newer:
                raise migrations.NewerVersion(
                    self.backup_path, backup.from_version, SUMMARY_VERSION, action="save the session summary"
                )
        elif on_disk.newer:
            raise migrations.NewerVersion(
                self.path, on_disk.from_version, SUMMARY_VERSION, action="save the session summary"
            )
        if not s.updated_at:
            s.updated_at = items.now_iso()
        data = {**s.to_json(), "version": SUMMARY_VERSION}  # a save always writes this build's format
        SessionSummary.from_json(data)  # refuse to write what could not be read back
        try:
            migrations.persist_upgrade(self.path, "summary", on_disk)
            atomic.atomic_write_json(self.path, data, backup=True)
        except OSError as exc:
            raise OkBotError(
                translate(
                    "summary",
                    "The session summary could not be saved to {path} ({error}); the previous summary is kept.",
                ).format(path=self.path, error=exc.strerror or exc)
            ) from exc

    def _read(self, path: Path) -> tuple[SessionSummary | None, str | None]:
        """``(summary, None)``, ``(None, None)`` when missing, or ``(None, what is wrong)``."""
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            return None, translate("summary", "cannot be read ({error})").format(error=exc.strerror or exc)
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            return None, translate("summary", "is damaged (not valid JSON: {error})").format(error=exc)
        version = migrations.version_of(obj) if isinstance(obj, dict) else None
        try:
            if version is not None and version > SUMMARY_VERSION:
                return self._read_newer(path, obj, version), None
            if version is not None and version < SUMMARY_VERSION:
                obj = migrations.upgrade("summary", obj, version).data
            return SessionSummary.from_json(obj), None
        except ValueError as exc:
            return None, translate("summary", "is invalid ({error})").format(error=exc)

    def _read_newer(self, path: Path, obj: dict[str, Any], version: int) -> SessionSummary:
        """A newer OkBot's summary: the fields this build knows, and the store becomes read-only."""
        message = migrations.newer_message(path, version, "summary")
        if not self.read_only:
            self.read_only = message
            self._notify(translate("summary", "The session summary {message}.").format(message=message))
        summary = SessionSummary.from_json({**obj, "version": SUMMARY_VERSION})
        summary.version = version
        return summary

    def _notify(self, text: str) -> None:
        self.problems.append(text)
        if self._on_notice is not None:
            self._on_notice(text)
