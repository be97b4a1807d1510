"""One ``session.jsonl`` line read as an item, or the reason it is not one.

Only the line's own bytes are judged here; whether its id comes after the ids before it is the
reader's business (:mod:`okbot.core.session.store`). Every reader of the records (the store, the search
index, and through the store the chat, the export) takes its items from :func:`check_line`, so a value
the app cannot carry is refused here, once, and the line is set aside like any malformed one:

* any integer outside the signed 64-bit range the offset index and SQLite hold (so an ``id`` is at most
  :data:`MAX_ID`; the store refuses to append past it), any ``NaN`` or infinite number, a ``v`` that is not
  a positive integer (``true`` is not 1 here);
* a ``ts`` longer than :data:`MAX_TS_CHARS`, or one naming a moment so far from now that converting it
  to local time overflows (a ``ts`` that is not a time at all is shown without one);
* JSON nested deeper than :data:`okbot.storage.jsontext.MAX_DEPTH` or numbers too long to read.

Numbers are judged as they are parsed (``json.loads`` hooks) and the depth only when the line holds more
brackets than the limit, so a line costs little more than its parse.
"""

from __future__ import annotations

import json
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
        obj = _DECODER.decode(text)
    except OutOfRange as exc:
        return None, f"not a session item: it holds {exc}"
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        return None, "not valid JSON (nested too deeply)"
    except ValueError as exc:  # a number too long to read
        return None, f"not valid JSON ({exc})"
    if line.count(b"[") + line.count(b"{") > jsontext.MAX_DEPTH and jsontext.too_deep(obj):
        return None, f"not valid JSON (nested more than {jsontext.MAX_DEPTH} levels deep)"
    try:
        items.validate_item(obj)
    except items.InvalidItem as exc:
        version = newer(obj) if isinstance(obj, dict) else 0
        return None, f"{NEWER}{version}" if version else f"not a session item: {exc}"
    why = _invalid_fields(obj)
    if why:
        return None, f"not a session item: item {_short(obj['id'])} {why}"
    match = _ID_PREFIX.match(line)
    if match is not None and int(match.group(1)) != obj["id"]:
        return None, "ambiguous item: the 'id' key appears more than once"
    return obj, ""


class OutOfRange(ValueError):
    """A number in the line the app cannot carry (raised while the line is parsed)."""


def _int(text: str) -> int:
    value = int(text)
    if not -_INT64 <= value < _INT64:
        raise OutOfRange(f"a number out of the 64-bit range ({_short(value)})")
    return value


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise OutOfRange(f"a number too large to hold ({_short(text)})")
    return value


def _constant(name: str) -> float:
    raise OutOfRange(f"{name}, which is not a number JSON allows")


_DECODER = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_constant)


def _invalid_fields(obj: Item) -> str:
    """Why a well-formed item's id, ``v`` or ``ts`` is one the app cannot carry (see the module docstring),
    or ``""``; every number in it was checked as it was parsed."""
    version = obj.get("v", 1)
    if type(version) is not int or version < 1:
        return f"has an invalid 'v' {_short(version)} (must be a positive integer)"
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
