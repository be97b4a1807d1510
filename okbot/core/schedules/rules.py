"""When a scheduled job runs: its rule (once, every N minutes, hourly, daily at HH:MM, a cron expression), the
parsing of what the user types for one, and the next run after a moment.

Times are aware datetimes in UTC (an instant in a repeated fall-back hour compares unequal to itself in
another zone, so every instant here is kept in UTC). Wall-clock rules (hourly, daily, cron) are worked out
in the local time zone (``tz`` None: the system's, as it stands on each date) on naive wall times, then
placed in the zone: a wall time that does not exist on a spring-forward day (02:30 when clocks jump
02:00 -> 03:00) runs at the instant the clocks show after the jump, and one that occurs twice on a
fall-back day runs at its first occurrence only, so a job never fails to run on such a day, nor runs twice.

Cron expressions are read by ``croniter`` (five fields: minute hour day month weekday; names such as ``mon`` and
``jan``, ranges, lists and steps), the one thing that package is for here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone, tzinfo

from croniter import croniter

from okbot.i18n import translate
from okbot.storage.errors import OkBotError

KINDS = ("once", "every", "hourly", "daily", "cron")
MIN_GAP = timedelta(minutes=1)  # no job runs more often than this
MAX_EVERY_MINUTES = 366 * 24 * 60
_RELATIVE = re.compile(r"^\+\s*(\d{1,7})\s*([smhd])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_HHMM = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


class BadRule(OkBotError):
    """A rule, time or cron expression that cannot be a job's: the message says what to type instead."""


@dataclass(frozen=True)
class Rule:
    """When a job runs. ``kind`` is one of :data:`KINDS`; ``when`` (once) is the instant, ``minutes`` (every)
    the gap, ``at`` (daily) ``"HH:MM"``, ``expr`` (cron) the five fields."""

    kind: str
    when: datetime | None = None
    minutes: int = 0
    at: str = ""
    expr: str = ""

    def to_json(self) -> dict[str, object]:
        if self.kind == "once":
            assert self.when is not None
            return {"kind": "once", "when": iso(self.when)}
        if self.kind == "every":
            return {"kind": "every", "minutes": self.minutes}
        if self.kind == "daily":
            return {"kind": "daily", "at": self.at}
        if self.kind == "cron":
            return {"kind": "cron", "expr": self.expr}
        return {"kind": "hourly"}

    @staticmethod
    def from_json(obj: object) -> Rule:
        """The rule a file holds; :class:`BadRule` saying what is wrong with a hand-edited one."""
        if not isinstance(obj, dict) or obj.get("kind") not in KINDS:
            raise BadRule(translate("schedules", "the rule has no known kind (once, every, hourly, daily or cron)"))
        kind = obj["kind"]
        if kind == "once":
            when = obj.get("when")
            if not isinstance(when, str):
                raise BadRule(translate("schedules", "a once rule needs its time in 'when'"))
            return Rule("once", when=parse_instant(when))
        if kind == "every":
            return every(obj.get("minutes"))
        if kind == "daily":
            return daily(obj.get("at"))
        if kind == "cron":
            return cron(obj.get("expr"))
        return Rule("hourly")


def iso(moment: datetime) -> str:
    """``moment`` as ISO 8601 in this system's local time with its offset, to the second."""
    return moment.astimezone().isoformat(timespec="seconds")


def parse_instant(text: str) -> datetime:
    """An ISO 8601 time read from a file (with its offset; a naive one is local time)."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise BadRule(translate("schedules", "'{text}' is not an ISO 8601 time").format(text=text)) from exc
    return place(moment, None) if moment.tzinfo is None else moment.astimezone(timezone.utc)


# -- building rules from what the user typed ------------------------------------------------------
def once(when: str, now: datetime, tz: tzinfo | None = None) -> Rule:
    """A one-off run at ``when``: ISO 8601 local time (``2026-12-05T08:30``, an offset is honoured) or a
    moment from ``now`` (``+30s``, ``+5m``, ``+2h``, ``+1d``). A time not after ``now`` is refused."""
    text = str(when).strip()
    relative = _RELATIVE.match(text)
    if relative:
        seconds = int(relative.group(1)) * _UNIT_SECONDS[relative.group(2)]
        moment = now.replace(microsecond=0) + timedelta(seconds=seconds)  # whole seconds, as its file keeps it
    else:
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError as exc:
            raise BadRule(
                translate(
                    "schedules",
                    "'{text}' is not a time: give an ISO 8601 local time such as 2026-12-05T08:30, "
                    "or one from now such as +30s, +5m or +2h",
                ).format(text=text)
            ) from exc
        moment = place(parsed, tz) if parsed.tzinfo is None else parsed.astimezone(timezone.utc)
    if moment <= now:
        raise BadRule(
            translate("schedules", "{when} is in the past: give a time to come").format(when=iso(moment.astimezone(tz)))
        )
    return Rule("once", when=moment)


def every(minutes: object) -> Rule:
    """A run every ``minutes`` minutes (at least 1)."""
    if isinstance(minutes, str) and minutes.strip().isdigit():
        minutes = int(minutes.strip())
    if not isinstance(minutes, int) or isinstance(minutes, bool) or not 1 <= minutes <= MAX_EVERY_MINUTES:
        raise BadRule(
            translate("schedules", "every takes a whole number of minutes from 1 to {most}; got '{value}'").format(
                most=MAX_EVERY_MINUTES, value=minutes
            )
        )
    return Rule("every", minutes=minutes)


def daily(at: object) -> Rule:
    """A run every day at ``at`` (``HH:MM``, 24-hour, local time)."""
    match = _HHMM.match(at.strip()) if isinstance(at, str) else None
    if not match:
        raise BadRule(
            translate("schedules", "daily takes a time of day as HH:MM (24-hour, such as 08:30); got '{value}'").format(
                value=at
            )
        )
    return Rule("daily", at=f"{int(match.group(1)):02d}:{match.group(2)}")


def cron(expr: object) -> Rule:
    """A run at the times of a five-field cron expression; refused when two runs come less than a minute apart."""
    text = " ".join(expr.split()) if isinstance(expr, str) else ""
    if len(text.split(" ")) != 5 or not croniter.is_valid(text):
        raise BadRule(
            translate(
                "schedules",
                "'{value}' is not a cron expression of five fields (minute hour day month weekday, such as "
                "'0 9 * * mon-fri')",
            ).format(value=expr)
        )
    rule = Rule("cron", expr=text)
    first = _cron_after(text, datetime(2026, 1, 1))
    second = _cron_after(text, first)
    if second - first < MIN_GAP:
        raise BadRule(translate("schedules", "no job may run more often than once a minute"))
    return rule


# -- the next run ----------------------------------------------------------------------------------
def next_after(rule: Rule, after: datetime, tz: tzinfo | None = None) -> datetime | None:
    """The first run of ``rule`` strictly after ``after`` (aware), or None (a once rule whose time is past)."""
    if rule.kind == "once":
        assert rule.when is not None
        return rule.when if rule.when > after else None
    if rule.kind == "every":
        return after + timedelta(minutes=rule.minutes)
    wall = wall_time(after, tz)
    for _ in range(4):  # a wall time placed before ``after`` (a fall-back hour) is passed over
        wall = _next_wall(rule, wall)
        moment = place(wall, tz)
        if moment > after:
            return moment
    return after + MIN_GAP  # pragma: no cover - four wall times in a row inside one repeated hour


def following(rule: Rule, due: datetime, now: datetime, tz: tzinfo | None = None) -> datetime | None:
    """The run after the one due at ``due`` that ran at ``now``: the rule's next after ``due``, or, when that
    is already past too (OkBot was not running), its next after ``now`` — so missed runs are not repeated."""
    candidate = next_after(rule, due, tz)
    if candidate is not None and candidate <= now:
        candidate = next_after(rule, now, tz)
    return candidate


def _next_wall(rule: Rule, wall: datetime) -> datetime:
    """The rule's first wall time strictly after the naive wall time ``wall``."""
    if rule.kind == "hourly":
        return wall.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    if rule.kind == "daily":
        hour, minute = (int(part) for part in rule.at.split(":"))
        today = datetime.combine(wall.date(), time(hour, minute))
        return today if today > wall else datetime.combine(wall.date() + timedelta(days=1), time(hour, minute))
    return _cron_after(rule.expr, wall)


def _cron_after(expr: str, wall: datetime) -> datetime:
    return croniter(expr, wall.replace(tzinfo=None)).get_next(datetime)


def wall_time(moment: datetime, tz: tzinfo | None) -> datetime:
    """The naive wall time the clocks of ``tz`` (None: this system's) show at ``moment``."""
    return moment.astimezone(tz).replace(tzinfo=None, fold=0)


def place(wall: datetime, tz: tzinfo | None) -> datetime:
    """The instant a naive wall time names in ``tz`` (None: this system's zone): its first occurrence when it
    occurs twice, and the instant after the jump when it does not occur at all (a spring-forward gap)."""
    wall = wall.replace(fold=0)
    # naive means local: the system's rules for that date (mktime). In a gap, fold 0 reads the wall time with
    # the offset before the jump, which names the instant the clocks show after it (02:30 -> 03:30).
    moment = wall.astimezone() if tz is None else wall.replace(tzinfo=tz)
    return moment.astimezone(timezone.utc)


def describe(rule: Rule, tz: tzinfo | None = None) -> str:
    """The rule in words, for lists and panels."""
    if rule.kind == "once":
        assert rule.when is not None
        return translate("schedules", "once at {when}").format(when=short_time(rule.when, tz))
    if rule.kind == "every":
        if rule.minutes == 1:
            return translate("schedules", "every minute")
        return translate("schedules", "every {n} minutes").format(n=rule.minutes)
    if rule.kind == "hourly":
        return translate("schedules", "hourly, on the hour")
    if rule.kind == "daily":
        return translate("schedules", "daily at {at}").format(at=rule.at)
    return translate("schedules", "cron {expr}").format(expr=rule.expr)


def short_time(moment: datetime, tz: tzinfo | None = None) -> str:
    """``moment`` in local time as ``YYYY-MM-DD HH:MM``."""
    return moment.astimezone(tz).strftime("%Y-%m-%d %H:%M")
