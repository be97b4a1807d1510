"""The session item schema (one JSON object per line of ``session.jsonl``).

Every item carries ``id`` (a positive integer, strictly increasing within a session, so
coverage comparisons are plain integer comparisons), ``v`` (schema version), ``ts`` (UTC ISO
time), ``type``, ``author`` (``user`` or an assistant id; ``app`` for notices), ``source``
(who *sent* it: ``user`` only for what a person typed; otherwise ``tool``, ``app`` or
``member:<assistant id>``) and its content:

=============  ==============================================================================
type           content fields
=============  ==============================================================================
user           ``content`` (str)
assistant      ``content`` (str), ``status`` (complete | interrupted | error), ``usage`` (dict)
tool_call      ``call_id``, ``name``, ``arguments`` (JSON text as the model produced it)
tool_result    ``call_id``, ``name``, ``content`` (str), ``ok`` (bool)
notice         ``content`` (str), ``level`` (info | warning | error) -- shown to the user only
=============  ==============================================================================

Lines are written with ``id`` as the first key so the offset index can read ids without a full
JSON parse.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from okbot.storage.atomic import to_utf8

SCHEMA_VERSION = 1

ITEM_TYPES = ("user", "assistant", "tool_call", "tool_result", "notice")
ASSISTANT_STATUSES = ("complete", "interrupted", "error")
NOTICE_LEVELS = ("info", "warning", "error")

_REQUIRED: dict[str, tuple[tuple[str, type], ...]] = {
    "user": (("content", str),),
    "assistant": (("content", str),),
    "tool_call": (("call_id", str), ("name", str), ("arguments", str)),
    "tool_result": (("call_id", str), ("name", str), ("content", str)),
    "notice": (("content", str),),
}


class InvalidItem(ValueError):
    """A line that is JSON but not a session item."""


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def validate_item(obj: Any) -> dict[str, Any]:
    """Return ``obj`` if it is a well-formed item, else raise :class:`InvalidItem` saying why."""
    if not isinstance(obj, dict):
        raise InvalidItem(f"expected a JSON object, got {type(obj).__name__}")
    item_id = obj.get("id")
    if not isinstance(item_id, int) or isinstance(item_id, bool) or item_id <= 0:
        raise InvalidItem("missing or invalid 'id' (must be a positive integer)")
    kind = obj.get("type")
    if kind not in _REQUIRED:
        raise InvalidItem(f"unknown item type {kind!r}")
    for key, expected in _REQUIRED[kind]:
        if not isinstance(obj.get(key), expected):
            raise InvalidItem(f"{kind} item {item_id} lacks a valid {key!r}")
    for key in ("author", "source", "ts"):
        if key in obj and not isinstance(obj[key], str):
            raise InvalidItem(f"item {item_id} has a non-text {key!r}")
    return obj


def new_item(kind: str, *, author: str, source: str, **fields: Any) -> dict[str, Any]:
    """Build an item without an id (the session store assigns ``id`` on append)."""
    if kind not in _REQUIRED:
        raise ValueError(f"unknown item type {kind!r}")
    item: dict[str, Any] = {
        "v": SCHEMA_VERSION,
        "ts": now_iso(),
        "type": kind,
        "author": author,
        "source": source,
    }
    item.update(fields)
    if kind == "assistant":
        item.setdefault("status", "complete")
    return item


def user_message(text: str) -> dict[str, Any]:
    return new_item("user", author="user", source="user", content=text)


def notice(text: str, level: str = "info") -> dict[str, Any]:
    return new_item("notice", author="app", source="app", content=text, level=level)


def encode_item(item: dict[str, Any]) -> bytes:
    """Serialise an item as one line, ``id`` first. No raw newlines can occur inside."""
    ordered = {"id": item["id"], **{k: v for k, v in item.items() if k != "id"}}
    return to_utf8(json.dumps(ordered, ensure_ascii=False, separators=(",", ":")) + "\n")


def item_text(item: dict[str, Any]) -> str:
    """The main text of an item, whatever its type (used for previews, search and token counts)."""
    if item.get("type") == "tool_call":
        return f"{item.get('name', '')}({item.get('arguments', '')})"
    content = item.get("content", "")
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def preview(text: str, limit: int = 80) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"
