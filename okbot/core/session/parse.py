"""One ``session.jsonl`` line read as an item, or the reason it is not one.

Only the line's own bytes are judged here; whether its id comes after the ids before it is the
reader's business (:mod:`okbot.core.session.store`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from okbot.core import items

Item = dict[str, Any]

_ID_PREFIX = re.compile(rb'\{"id":(\d{1,18})[,}]')
#: How the reason for an item from a newer OkBot starts; the schema version follows it.
NEWER = "written by a newer OkBot: item schema v"


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
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        return None, "not valid JSON (nested too deeply)"
    try:
        items.validate_item(obj)
    except items.InvalidItem as exc:
        version = newer(obj) if isinstance(obj, dict) else 0
        return None, f"{NEWER}{version}" if version else f"not a session item: {exc}"
    match = _ID_PREFIX.match(line)
    if match is not None and int(match.group(1)) != obj["id"]:
        return None, "ambiguous item: the 'id' key appears more than once"
    return obj, ""


def is_blank(line: bytes) -> bool:
    """True for an empty or whitespace-only line, which readers pass over silently."""
    return not line or line.isspace()
