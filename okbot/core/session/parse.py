"""One ``session.jsonl`` line read as an item, or the reason it is not one.

Only the line's own bytes are judged here; whether its id comes after the ids before it is the
reader's business (:mod:`okbot.core.session.store`). Every reader of the records (the store, the search
index, and through the store the chat, the export) takes its items from :func:`check_line`, so a value
the app cannot carry is refused here, once, and the line is set aside like any malformed one:

* any integer outside the signed 64-bit range the offset index and SQLite hold (so an ``id`` is at most
  :data:`MAX_ID`; the store refuses to append past it), any ``NaN`` or infinite number, a ``v`` that is not
  a positive integer (``true`` is not 1 here);
* a ``ts`` longer than :data:`MAX_TS_CHARS`, or one naming a moment so far from now that converting it
  to local time overflows (a ``ts`` that is not a time at all is shown without one, as before);
* JSON nested deeper than :data:`okbot.storage.jsontext.MAX_DEPTH` or numbers too long to read.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone
from typing import Any

from okbot.core import items
from okbot.storage import jsontext

Item = dict[str, Any]

_ID_PREFIX = re.compile(rb'\{"id":(\d{1,19})[,}]')
#: How the reason for an item from a newer OkBot starts; the schema version follows it.
NEWER = "written by a newer OkBot: item schema v"
_INT64 = 2**63
MAX_ID = _INT64 - 1  # the highest item id
MAX_TS_CHARS = 64  # an ISO time with every optional part is about 32
# a local time is at most a day from UTC: a moment inside these converts anywhere without overflow
_EARLIEST = datetime.min.replace(tzinfo=timezone.utc) + timedelta(days=2)
_LATEST = datetime.max.replace(tzinfo=timezone.utc) - timedelta(days=2)


def newer(obj: dict) -> int:
    """The item's schema version if it is newer than this build's, else 0."""
    v = obj.get("v")
    return v if type(v) is int and v > items.NEWEST_VERSION else 0


def check_line(line: bytes) -> tuple[Item | None, str]:
    """``(item, "")`` if ``line`` is a valid item, else ``(None, why)``. Ordering is not checked."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"invalid UTF-8 at byte {exc.start}"
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        obj = jsontext.loads(text, what="the line")
    except jsontext.JSONTextError as exc:
        return None, str(exc)
    try:
        items.validate_item(obj)
    except items.InvalidItem as exc:
        version = newer(obj) if isinstance(obj, dict) else 0
        return None, f"{NEWER}{version}" if version else f"not a session item: {exc}"
    why = _out_of_range(obj)
    if why:
        return None, f"not a session item: item {_short(obj['id'])} {why}"
    match = _ID_PREFIX.match(line)
    if match is not None and int(match.group(1)) != obj["id"]:
        return None, "ambiguous item: the 'id' key appears more than once"
    return obj, ""


def _out_of_range(obj: Item) -> str:
    """Why a well-formed item holds a value the app cannot carry (see the module docstring), or ``""``."""
    if obj["id"] > MAX_ID:
        return f"has an id above {MAX_ID:,}"
    version = obj.get("v", 1)
    if type(version) is not int or version < 1:
        return f"has an invalid 'v' {_short(version)} (must be a positive integer)"
    for key, value in obj.items():
        stack = [value]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
            elif isinstance(node, int) and not -_INT64 <= node < _INT64:
                return f"holds a number out of range in {key!r}"
            elif isinstance(node, float) and not math.isfinite(node):
                return f"holds a number that is not finite in {key!r}"
    ts = obj.get("ts")
    if isinstance(ts, str) and (len(ts) > MAX_TS_CHARS or not _in_range(ts)):
        return f"has a 'ts' the app cannot show: {_short(ts)}"
    return ""


def _in_range(ts: str) -> bool:
    """False for an ISO time whose moment lies so far out that converting it to local time overflows."""
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return True  # not a time: readers show the item without one
    aware = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    try:
        return _EARLIEST <= aware <= _LATEST
    except OverflowError:
        return False


def _short(value: Any) -> str:
    """``value`` for a reason: its repr, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def is_blank(line: bytes) -> bool:
    """True for an empty or whitespace-only line, which readers pass over silently."""
    return not line or line.isspace()
