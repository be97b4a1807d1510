"""One scheduled job: the message a target is sent by a rule, and what its runs did (as kept in ``schedules.json``)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from okbot.core.items import SCHEDULE_PREFIX
from okbot.core.kind import Kind
from okbot.core.schedules.rules import BadRule, Rule, iso, parse_instant
from okbot.i18n import translate

CREATORS = ("user", "assistant")
MAX_TEXT_CHARS = 20_000


def new_id() -> str:
    """A fresh job id: short, and unique across every target's jobs in practice (``j`` + 8 hex digits)."""
    return "j" + secrets.token_hex(4)


@dataclass(frozen=True)
class Job:
    """A message ``text`` sent to the assistant or squad ``target_kind``/``target_id`` by ``rule``.

    ``next_run`` None: nothing more to run (a once job that ran). ``created_by`` says who set it: the user
    (CLI, panel) or the assistant itself (the ``manage_schedule`` tool). ``last_result`` is a turn's status,
    or ``skipped`` (its chat was busy)."""

    id: str
    target_kind: str
    target_id: str
    text: str
    rule: Rule
    created: datetime
    next_run: datetime | None
    created_by: str = "user"
    enabled: bool = True
    last_run: datetime | None = None
    last_result: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # keys a newer OkBot wrote: kept as is

    @property
    def source(self) -> str:
        """The ``source`` of the message each run sends (``schedule:<id>``)."""
        return SCHEDULE_PREFIX + self.id

    def due(self, now: datetime) -> bool:
        return self.enabled and self.next_run is not None and self.next_run <= now

    def with_changes(self, **changes: Any) -> Job:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.extra,
            "id": self.id,
            "text": self.text,
            "rule": self.rule.to_json(),
            "created": iso(self.created),
            "createdBy": self.created_by,
            "enabled": self.enabled,
            "nextRun": iso(self.next_run) if self.next_run else None,
            "lastRun": iso(self.last_run) if self.last_run else None,
            "lastResult": self.last_result,
        }

    @staticmethod
    def from_json(obj: Any, kind: Kind | str, target_id: str) -> Job:
        """A job as the file holds it; :class:`BadRule` naming the field a hand edit broke."""
        if not isinstance(obj, dict):
            raise BadRule(translate("schedules", "a job is not a JSON object"))
        job_id, text = obj.get("id"), obj.get("text")
        if not isinstance(job_id, str) or not job_id.strip() or len(job_id) > 64:
            raise BadRule(translate("schedules", "a job has no valid 'id'"))
        if not isinstance(text, str) or not text.strip():
            raise BadRule(translate("schedules", "job {id} has no message in 'text'").format(id=job_id))
        try:
            rule = Rule.from_json(obj.get("rule"))
            created = _time(obj.get("created"), "created", required=True)
            next_run = _time(obj.get("nextRun"), "nextRun")
            last_run = _time(obj.get("lastRun"), "lastRun")
        except BadRule as exc:
            raise BadRule(translate("schedules", "job {id}: {why}").format(id=job_id, why=exc.message)) from exc
        created_by = obj.get("createdBy", "user")
        enabled = obj.get("enabled", True)
        if created_by not in CREATORS or not isinstance(enabled, bool):
            raise BadRule(translate("schedules", "job {id} has an invalid 'createdBy' or 'enabled'").format(id=job_id))
        last_result = obj.get("lastResult", "")
        known = {"id", "text", "rule", "created", "createdBy", "enabled", "nextRun", "lastRun", "lastResult"}
        assert created is not None
        return Job(
            id=job_id,
            target_kind=str(kind),
            target_id=target_id,
            text=text,
            rule=rule,
            created=created,
            next_run=next_run,
            created_by=created_by,
            enabled=enabled,
            last_run=last_run,
            last_result=last_result if isinstance(last_result, str) else "",
            extra={k: v for k, v in obj.items() if k not in known},
        )


def _time(value: Any, key: str, *, required: bool = False) -> datetime | None:
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise BadRule(translate("schedules", "'{key}' is not an ISO 8601 time").format(key=key))
    return parse_instant(value)
