"""The ``manage_schedule`` tool: an assistant sets, lists and removes the scheduled jobs of its own chat.

Only the chat the turn runs in (the assistant's, or the squad's) is reachable; every call goes through the
approval card unless ``tools.manage_schedule.approval`` says otherwise. The jobs it sets are marked as the
assistant's (``createdBy``) and run like the user's: while OkBot runs, as turns sent by the schedule.
"""

from __future__ import annotations

from typing import Any

from okbot.core.tools import Tool, ToolContext, ToolOutcome
from okbot.storage.errors import OkBotError

ACTIONS = ("create", "list", "remove")
KINDS = ("once", "every", "hourly", "daily", "cron")

NOTE = (
    "set, list or remove scheduled jobs of this chat: a message sent to you once at a time, every N minutes, "
    "hourly, daily at HH:MM (local time) or by a cron expression; at most 50 jobs, none more often than once a "
    "minute; each run is a turn marked as sent by the schedule"
)
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS)},
        "message": {"type": "string", "description": "create: the message each run sends to this chat"},
        "kind": {"type": "string", "enum": list(KINDS), "description": "create: when it runs"},
        "when": {
            "type": "string",
            "description": "kind once: an ISO 8601 local time (2026-12-05T08:30) or from now: +30s, +5m, +2h",
        },
        "minutes": {"type": "integer", "minimum": 1, "description": "kind every: minutes between runs"},
        "at": {"type": "string", "description": "kind daily: the time of day, HH:MM (24-hour, local time)"},
        "cron": {"type": "string", "description": "kind cron: five fields, minute hour day month weekday"},
        "job_id": {"type": "string", "description": "remove: the job's id (from list)"},
    },
    "required": ["action"],
}


def _rule(args: dict[str, Any], store: Any) -> Any:
    from okbot.core.schedules import rules

    kind = args.get("kind")
    if kind == "once":
        return rules.once(str(args.get("when") or ""), store.clock(), store.tz)
    if kind == "every":
        return rules.every(args.get("minutes"))
    if kind == "hourly":
        return rules.Rule("hourly")
    if kind == "daily":
        return rules.daily(args.get("at"))
    if kind == "cron":
        return rules.cron(args.get("cron"))
    raise OkBotError(f"'kind' must be one of {', '.join(KINDS)}")


def _line(job: Any) -> str:
    from okbot.core.schedules.rules import describe, short_time

    when = short_time(job.next_run) if job.next_run else "-"
    paused = "" if job.enabled else " (paused)"
    return f"{job.id}: {describe(job.rule)}, next run {when}{paused}, set by the {job.created_by}: {job.text}"


def manage(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    from okbot.core.schedules.store import ScheduleStore

    store = ScheduleStore()
    action = args.get("action")
    if action == "list":
        loaded = store.load(ctx.target)
        lines = [_line(job) for job in loaded.jobs] or ["no scheduled jobs"]
        if loaded.problem:
            lines.append(f"(note: {loaded.problem})")
        return ToolOutcome("\n".join(lines))
    if action == "remove":
        job = store.remove(ctx.target, str(args.get("job_id") or ""))
        return ToolOutcome(f"removed job {job.id} ({job.text})")
    if action == "create":
        job = store.add(ctx.target, str(args.get("message") or ""), _rule(args, store), created_by="assistant")
        return ToolOutcome(f"set {_line(job)}")
    raise OkBotError(f"'action' must be one of {', '.join(ACTIONS)}")


MANAGE_SCHEDULE = Tool(
    name="manage_schedule",
    note=NOTE,
    parameters=PARAMETERS,
    run=manage,
    approval_key="tools.manage_schedule.approval",
)
