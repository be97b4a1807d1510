"""What upkeep changed and what it will change: the evolution log, staged changes, landing and undo.

Per assistant, beside ``SOUL.md``:

- ``evolution.jsonl`` -- one record per applied change (what, why, cited ids, diff), per undo, per
  refusal and per step of a teaching card (offered, kept, declined: :mod:`.offers`), appended the one
  durable way (:class:`~okbot.storage.datalock.AppendLog`). It is also how upkeep knows which lines and
  skills it wrote: everything else was written by hand and is never changed or removed by upkeep.
- ``evolution-pending.json`` -- checked changes waiting for a segment boundary, with the SHA-256 of
  the SOUL.md they were made against.
- ``evolution-state.json`` -- how far each kind of upkeep has read the session.

Staged changes land together (:meth:`Evolution.land_if_due`, called before a turn's context is
built) when the summary's coverage moved since they were staged -- a compression or a topic change,
which change the prompt anyway -- or when they waited ``evolution.waitTurns`` turns. So the persona
and the skill catalog, stable blocks of the instructions, change at most once per segment and the
provider's prompt-prefix cache stays warm between boundaries. An outside edit of SOUL.md (or of a
skill) since the changes were made wins: they are dropped and logged, never written over it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import os
import threading
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from okbot.core.evolution import persona
from okbot.core.evolution.persona import Change, Refusal
from okbot.core.evolution.skill_edits import SkillChange
from okbot.core.grounding import typed_by_user
from okbot.core.skills import SKILL_FILE
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.storage import migrations, paths
from okbot.storage.atomic import atomic_write_bytes, atomic_write_json, fsync_dir, to_utf8
from okbot.storage.datalock import AppendLog, FileLock, storage_error
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.evolution")

LOG_FILE = "evolution.jsonl"
PENDING_FILE = "evolution-pending.json"
STATE_FILE = "evolution-state.json"
VERSION = migrations.CURRENT["evolution-pending"]  # a newer OkBot's staging file is never written over
LOG_VERSION = migrations.CURRENT["evolution-log"]  # on every line as "v"; newer lines are skipped
MAX_LOG_READ = 4 * 1024 * 1024  # the log is read from its last 4 MB: years of upkeep
OUTSIDE_EDIT = "outside-edit"
KINDS = ("persona", "skills")
SCAN_ITEMS = 200  # newest items upkeep looks at (never the whole of a long session)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class LogEntry:
    """One applied change as the log keeps it; ``undone`` is set when the user undid it."""

    id: int
    at: str
    kind: str  # "persona" | "skill"
    summary: str  # one line: what changed
    why: str  # the user's words it came from
    cited: tuple[int, ...]
    diff: str
    change: Change | SkillChange
    undone: str = ""  # when (empty: in force)


@dataclass
class Pending:
    """Checked changes waiting for a boundary."""

    base: str = ""  # SHA-256 of the SOUL.md the persona changes were made against
    persona: list[tuple[Change, str]] = field(default_factory=list)  # (change, why)
    skills: list[tuple[SkillChange, str]] = field(default_factory=list)
    key: list[int] = field(default_factory=list)  # [covered through id, compressions] when staged
    staged_at: int = 0  # the session's last id when first staged

    @property
    def empty(self) -> bool:
        return not (self.persona or self.skills)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "base": self.base,
            "persona": [{**c.to_json(), "why": why} for c, why in self.persona],
            "skills": [{**c.to_json(), "why": why} for c, why in self.skills],
            "key": self.key,
            "stagedAt": self.staged_at,
        }

    @classmethod
    def from_json(cls, obj: Any) -> Pending:
        if not isinstance(obj, dict) or obj.get("version") != VERSION:
            return cls()
        out = cls(base=str(obj.get("base") or ""), key=[k for k in obj.get("key") or [] if isinstance(k, int)])
        out.staged_at = obj["stagedAt"] if isinstance(obj.get("stagedAt"), int) else 0
        for raw in obj.get("persona") or []:
            if (c := Change.from_json(raw)) is not None:
                out.persona.append((c, str(raw.get("why") or "")))
        for raw in obj.get("skills") or []:
            if (s := SkillChange.from_json(raw)) is not None:
                out.skills.append((s, str(raw.get("why") or "")))
        return out


class Evolution:
    """The evolution state of every assistant: staged changes, landing, the log and undo. No model calls."""

    def __init__(self, sources: Any) -> None:
        self.sources = sources
        self._guard = threading.Lock()
        self._locks: dict[Path, threading.RLock] = {}
        self._sent: dict[Path, list[int]] = {}  # the boundary key of each target's last request

    # -- switches -----------------------------------------------------------------------------
    def enabled(self, target: Target) -> bool:
        """Upkeep is on for ``target``: an assistant, the setting on, its own switch not off, not read-only."""
        if not target.is_assistant or target.read_only or target.problem:
            return False
        return bool(self.sources.settings.get("evolution.enabled")) and target.meta.get("evolution") is not False

    # -- reading ------------------------------------------------------------------------------
    def entries(self, target: Target) -> list[LogEntry]:
        """Applied changes, oldest first, each marked when undone."""
        applied: dict[int, LogEntry] = {}
        undone: dict[int, str] = {}
        for obj in self._records(target):
            if obj.get("type") == "undo" and isinstance(obj.get("of"), int):
                undone[obj["of"]] = str(obj.get("at") or "")
            elif obj.get("type") == "applied" and (entry := _entry(obj)) is not None:
                applied[entry.id] = entry
        return [
            replace(e, undone=undone[e.id]) if e.id in undone else e
            for e in sorted(applied.values(), key=lambda e: e.id)
        ]

    def teaching_records(self, target: Target) -> dict[int, dict[str, Any]]:
        """The newest ``teaching`` record of each user message offered on a card, by its id (see :mod:`.offers`)."""
        out: dict[int, dict[str, Any]] = {}
        for obj in self._records(target):
            if obj.get("type") == "teaching" and type(obj.get("of")) is int:
                out[obj["of"]] = obj
        return out

    def record_teaching(self, target: Target, record: dict[str, Any]) -> dict[str, Any]:
        """Append one ``teaching`` record (``of``, ``state`` …); it is that message's state from now on."""
        return self._append(target, {"type": "teaching", "at": now(), **record})

    def refusals(self, target: Target, limit: int = 200) -> list[dict[str, Any]]:
        """The newest refusal records (what, check, reason, at), oldest first."""
        return [obj for obj in self._records(target) if obj.get("type") == "refused"][-limit:]

    def provenance(self, target: Target) -> tuple[set[str], set[str], dict[str, str], set[str]]:
        """``(persona lines upkeep wrote, lines undone, skill name -> text upkeep wrote, skill texts undone)``."""
        lines: set[str] = set()
        undone_lines: set[str] = set()
        skills: dict[str, str] = {}
        undone_skills: set[str] = set()
        for entry in self.entries(target):
            change = entry.change
            if isinstance(change, Change):
                (undone_lines if entry.undone else lines).add(change.after)
            elif entry.undone:
                undone_skills.add(change.after)
            else:
                skills[change.name] = change.after
        return {line for line in lines if line}, undone_lines, skills, undone_skills

    def pending(self, target: Target) -> Pending:
        try:
            return Pending.from_json(json.loads((target.dir / PENDING_FILE).read_text(encoding="utf-8")))
        except FileNotFoundError:
            return Pending()
        except (OSError, ValueError) as exc:
            log.warning("staged evolution of %s unreadable (%s); dropped", target.name, exc)
            return Pending()

    def soul_bytes(self, target: Target) -> bytes | None:
        """SOUL.md as stored (None: missing or unreadable)."""
        try:
            return target.soul_path.read_bytes() if target.soul_path is not None else None
        except OSError:
            return None

    def effective_soul(self, target: Target, data: bytes | None) -> str | None:
        """SOUL.md (``data``, as read) with the staged changes made: what the next upkeep is shown. None when it
        cannot be edited."""
        text = _decoded(data)
        if text is None:
            return None
        staged = self.pending(target)
        if staged.persona and staged.base == sha(data or b""):
            for change, _why in staged.persona:
                text = persona.apply(text, change) or text
        return text

    # -- staging ------------------------------------------------------------------------------
    def stage(
        self,
        target: Target,
        soul_seen: bytes | None,
        changes: list[tuple[Change, str]],
        skills: list[tuple[SkillChange, str]],
        refusals: list[Refusal],
    ) -> list[Refusal]:
        """Add checked changes to the staged ones; ``soul_seen`` is the SOUL.md upkeep read. Returns refusals added
        for an outside edit of SOUL.md meanwhile (those changes are dropped)."""
        with self._locked(target):
            staged = self.pending(target)
            current = self.soul_bytes(target)
            extra: list[Refusal] = []
            if changes and (current is None or sha(current) != sha(soul_seen or b"")):
                extra = [
                    Refusal(c.after or c.before, OUTSIDE_EDIT, "SOUL.md changed while upkeep ran") for c, _ in changes
                ]
                changes = []
            if staged.persona and current is not None and staged.base != sha(current):
                extra += self._drop_outside(target, staged)
            if changes:
                staged.base = sha(current or b"")
                staged.persona.extend(changes)
            staged.skills.extend(skills)
            if not staged.empty and not staged.key:
                # The key the last request went out with: when the summary moved since (a compression ahead,
                # after the reply), the next request changes anyway, and these changes land with it.
                with self._guard:
                    sent = self._sent.get(target.dir)
                staged.key, staged.staged_at = sent or self._boundary_key(target), self._last_id(target)
            self._save_pending(target, staged)
            self._record_refusals(target, [*refusals, *extra])
            return extra

    # -- landing ------------------------------------------------------------------------------
    def land_if_due(self, target: Target) -> list[LogEntry]:
        """Before a turn: land staged changes at a boundary or after ``evolution.waitTurns`` turns."""
        key = self._boundary_key(target)
        with self._guard:
            self._sent[target.dir] = key
        if not self.enabled(target):
            return []  # learning switched off: what is staged waits (Apply now in the dialog still lands it)
        staged = self.pending(target)
        if staged.empty:
            return []
        waited = self._turns_since(target, staged.staged_at)
        if staged.key == key and waited < self.sources.settings.get("evolution.waitTurns"):
            return []
        return self.land(target)

    def land(self, target: Target) -> list[LogEntry]:
        """Write every staged change now (what an outside edit made stale is dropped and logged)."""
        with self._locked(target):
            staged = self.pending(target)
            if staged.empty:
                return []
            applied = self._land_persona(target, staged)
            staged.persona = []  # written (or dropped): a failure below must not take it for an outside edit later
            self._save_pending(target, staged)
            applied += self._land_skills(target, staged)
        return applied

    def _land_persona(self, target: Target, staged: Pending) -> list[LogEntry]:
        if not staged.persona or target.soul_path is None:
            return []
        data = self.soul_bytes(target)
        text = _decoded(data)
        if text is None or sha(data or b"") != staged.base:
            self._drop_outside(target, staged)
            return []
        steps: list[tuple[Change, str, str, str]] = []  # change, why, before text, after text
        for change, why in staged.persona:
            after = persona.apply(text, change)
            if after is None:
                self._record_refusals(target, [Refusal(change.before, OUTSIDE_EDIT, "its line is gone")])
                continue
            steps.append((change, why, text, after))
            text = after
        if not steps:
            return []
        if self.soul_bytes(target) != data:  # a last look, just before writing: an editor may have saved meanwhile
            self._drop_outside(target, staged)
            return []
        self._write(target.soul_path, text)
        return [
            self._record_applied(target, "persona", change, why, _diff(before, after, "SOUL.md"))
            for change, why, before, after in steps
        ]

    def _land_skills(self, target: Target, staged: Pending) -> list[LogEntry]:
        directory = target.skills_dir
        if not staged.skills or directory is None:
            return []
        applied = []
        for change, why in list(staged.skills):
            path = directory / change.name / SKILL_FILE
            now_text = _read_text(path)
            if (now_text or "") != change.before or (change.op == "create" and _exists(directory / change.name)):
                reason = (
                    "the skill was edited by hand since" if change.op == "update" else "a skill with that name appeared"
                )
                self._record_refusals(target, [Refusal(f"skill {change.name}", OUTSIDE_EDIT, reason)])
                staged.skills.remove((change, why))
                continue
            try:
                paths.ensure_private_dir(path.parent)
                atomic_write_bytes(path, to_utf8(change.after))
                fsync_dir(directory)
            except OSError as exc:  # it stays staged, with the ones after it
                self._save_pending(target, staged)
                raise storage_error(path, exc) from exc
            staged.skills.remove((change, why))
            self._save_pending(target, staged)
            applied.append(
                self._record_applied(target, "skill", change, why, _diff(change.before, change.after, change.name))
            )
        self._save_pending(target, staged)
        return applied

    def _drop_outside(self, target: Target, staged: Pending) -> list[Refusal]:
        refused = [
            Refusal(c.after or c.before, OUTSIDE_EDIT, "SOUL.md was edited by hand since; upkeep will look again")
            for c, _why in staged.persona
        ]
        staged.persona = []
        self._record_refusals(target, refused)
        return refused

    # -- undo -----------------------------------------------------------------------------------
    def undo(self, target: Target, entry_id: int) -> LogEntry:
        """Undo one applied change on disk now; OkBotError saying why when it cannot be (edited since, undone)."""
        with self._locked(target):
            entry = next((e for e in self.entries(target) if e.id == entry_id), None)
            if entry is None:
                raise OkBotError(
                    translate("store", "No change #{id} in {name}'s evolution log.").format(
                        id=entry_id, name=target.name
                    )
                )
            if entry.undone:
                raise OkBotError(
                    translate("store", "Change #{id} was already undone ({when}).").format(
                        id=entry_id, when=entry.undone
                    )
                )
            if isinstance(entry.change, Change):
                self._undo_persona(target, entry)
            else:
                self._undo_skill(target, entry.change)
            self._append(target, {"type": "undo", "of": entry_id, "at": now()})
        return replace(entry, undone=now())

    def _undo_persona(self, target: Target, entry: LogEntry) -> None:
        assert isinstance(entry.change, Change) and target.soul_path is not None
        data = self.soul_bytes(target)
        text = _decoded(data)
        reverted = persona.revert(text, entry.change) if text is not None else None
        if reverted is None:
            raise OkBotError(
                translate("store", "Change #{id} cannot be undone: SOUL.md no longer has the line it wrote.").format(
                    id=entry.id
                ),
                hint=translate("store", "it was edited since; change SOUL.md by hand instead"),
            )
        staged = self.pending(target)
        self._write(target.soul_path, reverted)
        if staged.persona and staged.base == sha(data or b""):  # our own write: staged changes follow it
            staged.persona = [(c, why) for c, why in staged.persona if persona.apply(reverted, c) is not None]
            staged.base = sha(to_utf8(reverted))
            self._save_pending(target, staged)

    def _undo_skill(self, target: Target, change: SkillChange) -> None:
        assert target.skills_dir is not None
        folder = target.skills_dir / change.name
        path = folder / SKILL_FILE
        if _read_text(path) != change.after:
            raise OkBotError(
                translate("store", "Skill {name} cannot be undone: it was edited since.").format(name=change.name),
                hint=translate("store", "edit or delete {path} by hand").format(path=path),
            )
        if change.op == "update":
            self._write(path, change.before)
            return
        try:
            path.unlink()
            folder.rmdir()
        except OSError as exc:
            raise storage_error(folder, exc) from exc

    # -- files ----------------------------------------------------------------------------------
    def _records(self, target: Target) -> list[dict[str, Any]]:
        path = target.dir / LOG_FILE
        try:
            with open(path, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                fh.seek(max(0, size - MAX_LOG_READ))
                data = fh.read(MAX_LOG_READ)
        except FileNotFoundError:
            return []
        except OSError as exc:
            log.warning("evolution log of %s unreadable: %s", target.name, exc)
            return []
        out = []
        for line in data.split(b"\n")[1 if size > MAX_LOG_READ else 0 :]:
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                continue  # a torn last line or a hand edit: skipped, never fatal
            if isinstance(obj, dict) and obj.get("v") == LOG_VERSION:
                out.append(obj)
        return out

    def _append(self, target: Target, record: dict[str, Any]) -> dict[str, Any]:
        appender = AppendLog(target.dir / LOG_FILE)
        with appender.writing() as locked:
            record = {"v": LOG_VERSION, **record}
            if "id" in record:
                record["id"] = 1 + next((i for line in locked.lines_backward() if (i := _id_of(line))), 0)
            locked.append(to_utf8(json.dumps(record, ensure_ascii=False) + "\n"))
        return record

    def _record_applied(self, target: Target, kind: str, change: Change | SkillChange, why: str, diff: str) -> LogEntry:
        record = self._append(
            target,
            {
                "type": "applied",
                "id": 0,
                "at": now(),
                "kind": kind,
                "summary": summary_of(change),
                "why": why,
                "cited": list(change.cited),
                "diff": diff,
                "change": change.to_json(),
            },
        )
        entry = _entry(record)
        assert entry is not None
        return entry

    def _record_refusals(self, target: Target, refusals: list[Refusal]) -> None:
        for refusal in refusals:
            try:
                self._append(
                    target,
                    {
                        "type": "refused",
                        "at": now(),
                        "what": refusal.what,
                        "check": refusal.check,
                        "reason": refusal.reason,
                    },
                )
            except OkBotError as exc:  # the refusal is logged anyway; the log file is nice to have
                log.warning("could not record a refused change of %s: %s", target.name, exc)

    def _save_pending(self, target: Target, staged: Pending) -> None:
        path = target.dir / PENDING_FILE
        on_disk = migrations.read_upgrade(path, "evolution-pending")
        if on_disk is not None and on_disk.newer:
            raise migrations.NewerVersion(path, on_disk.from_version, VERSION, action="stage or land changes")
        try:
            if staged.empty:
                path.unlink(missing_ok=True)
            else:
                atomic_write_json(path, staged.to_json())
        except OSError as exc:
            raise storage_error(path, exc) from exc

    @staticmethod
    def _write(path: Path, text: str) -> None:
        try:
            atomic_write_bytes(path, to_utf8(text))
        except OSError as exc:
            raise storage_error(path, exc) from exc

    def _locked(self, target: Target) -> Any:
        with self._guard:
            lock = self._locks.setdefault(target.dir, threading.RLock())
        return _Both(lock, FileLock(target.dir / f"{PENDING_FILE}.lock"))

    # -- the session --------------------------------------------------------------------------
    def _boundary_key(self, target: Target) -> list[int]:
        summary, _ = self.sources.summary(target)
        return [summary.covered_through_id, int(summary.health.get("count", 0) or 0)]

    def _last_id(self, target: Target) -> int:
        return self.sources.session(target).last_id()

    def _turns_since(self, target: Target, item_id: int) -> int:
        recent = self.sources.session(target).tail(SCAN_ITEMS)  # bounded: never the whole of a long session
        return sum(1 for it in recent if it.get("id", 0) > item_id and typed_by_user(it))


class _Both:
    """The thread lock, then the cross-process file lock."""

    def __init__(self, lock: threading.RLock, file_lock: FileLock) -> None:
        self.lock, self.file_lock = lock, file_lock

    def __enter__(self) -> None:
        self.lock.acquire()
        try:
            self.file_lock.acquire()
        except BaseException:
            self.lock.release()
            raise

    def __exit__(self, *exc: object) -> None:
        self.file_lock.release()
        self.lock.release()


def _decoded(data: bytes | None) -> str | None:
    """SOUL.md text upkeep may edit: valid UTF-8 without NUL bytes (anything else is left to the user)."""
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if "\x00" in text else text


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _exists(path: Path) -> bool:
    return os.path.lexists(path)


def _diff(before: str, after: str, name: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{name}", f"b/{name}", n=1
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def summary_of(change: Change | SkillChange) -> str:
    """One line saying what ``change`` does (the log's ``summary``; the Evolution tab shows staged changes so)."""
    if isinstance(change, SkillChange):
        if change.op == "create":
            template = translate("store", "new skill {name}: {description}")
        else:
            template = translate("store", "updated skill {name}: {description}")
        return template.format(name=change.name, description=change.description)
    if change.op == "add":
        return translate("store", "added to {section}: {line}").format(
            section=change.section, line=persona.content(change.after)
        )
    if change.op == "remove":
        return translate("store", "removed: {line}").format(line=persona.content(change.before))
    return translate("store", "changed: {before} → {after}").format(
        before=persona.content(change.before), after=persona.content(change.after)
    )


def _id_of(line: bytes) -> int:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return 0
    value = obj.get("id") if isinstance(obj, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _entry(obj: dict[str, Any]) -> LogEntry | None:
    raw = obj.get("change")
    change: Change | SkillChange | None = (
        Change.from_json(raw) if obj.get("kind") == "persona" else SkillChange.from_json(raw)
    )
    if change is None or not isinstance(obj.get("id"), int):
        return None
    return LogEntry(
        id=obj["id"],
        at=str(obj.get("at") or ""),
        kind="persona" if isinstance(change, Change) else "skill",
        summary=str(obj.get("summary") or ""),
        why=str(obj.get("why") or ""),
        cited=tuple(i for i in obj.get("cited") or [] if isinstance(i, int)),
        diff=str(obj.get("diff") or ""),
        change=change,
    )
