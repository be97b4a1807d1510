"""The session item schema (one JSON object per line of ``session.jsonl``).

Every item carries ``id`` (a positive integer, strictly increasing within a session, so
coverage comparisons are plain integer comparisons), ``v`` (schema version), ``ts`` (UTC ISO
time), ``type``, ``author`` (``user`` or an assistant id; ``app`` for notices), ``source``
(who *sent* it: ``user`` only for what a person typed; otherwise ``tool``, ``app`` or
``member:<assistant id>``) and its content:

=============  ==============================================================================
type           content fields
=============  ==============================================================================
user           ``content`` (str), optionally ``attachments`` (records of attached files, see
               :mod:`okbot.core.attachments`: metadata and a path to the copy, never the bytes)
assistant      ``content`` (str), ``status`` (complete | interrupted | error), ``usage`` (dict);
               optional ``reasoning`` (str, what the model showed of its thinking) and
               ``reasoningSeconds`` (float) -- kept for the user only: never sent back to the
               model, summarized or mined for memories; usage counts it as completion tokens;
               optional ``timing`` (where the reply's time went: :mod:`okbot.core.turn.timing`),
               also for the user only; older items have none and read as before
tool_call      ``call_id``, ``name``, ``arguments`` (JSON text as the model produced it)
tool_result    ``call_id``, ``name``, ``content`` (str), ``ok`` (bool)
notice         ``content`` (str), ``level`` (info | warning | error) -- shown to the user only;
               optionally ``teaching`` (:func:`teaching_notice`): the card offering what the user
               taught in message ``of`` as written
=============  ==============================================================================

Lines are written with ``id`` as the first key so the offset index can read ids without a full
JSON parse.

Squad vocabulary, known here only: a squad member's words carry ``source = "member:<id>"``
(:func:`member_source`, read back with :func:`member_of`); the captain hands member ``<id>`` a task
through the tool ``ask_<id>`` (:func:`delegation_tool_name`), and the member's answer is that
call's ``tool_result`` from ``member:<id>`` (:func:`is_member_answer`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from okbot.storage.atomic import to_utf8

SCHEMA_VERSION = 1  # written on ordinary items
NEWEST_VERSION = 2  # the newest item schema this build reads (2: branch markers, okbot.core.session.branches)

ITEM_TYPES = ("user", "assistant", "tool_call", "tool_result", "notice")
ASSISTANT_STATUSES = ("complete", "interrupted", "error")
NOTICE_LEVELS = ("info", "warning", "error")
ATTACHMENT_KINDS = ("text", "pdf", "image")  # a user item's attached files (okbot.core.attachments)

MEMBER_PREFIX = "member:"  # source of what a squad member said: member:<assistant id>
MCP_PREFIX = "mcp:"  # source of what an MCP server's tool returned: mcp:<server name>
SCHEDULE_PREFIX = "schedule:"  # source of a message a scheduled job sent: schedule:<job id>
APP_NOTE = "[app note:"  # how the app's own remark inside an item's text starts
ASK_PREFIX = "ask_"  # the captain's delegation tool for a member: ask_<assistant id>
_TOOL_NAME_OK = re.compile(r"[^a-zA-Z0-9_-]")

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
    if kind == "user" and "attachments" in obj:
        problem = attachments_problem(obj["attachments"])
        if problem:
            raise InvalidItem(f"user item {item_id}: {problem}")
    return obj


def attachments_problem(value: Any) -> str:
    """Why ``value`` is not a list of attachment records ("" when it is one)."""
    if not isinstance(value, list):
        return "'attachments' is not a list"
    for record in value:
        if not isinstance(record, dict):
            return "an attachment is not an object"
        if record.get("kind") not in ATTACHMENT_KINDS:
            return f"an attachment has an unknown kind {record.get('kind')!r}"
        for key in ("name", "path", "sha256"):
            if not isinstance(record.get(key), str):
                return f"an attachment lacks a valid {key!r}"
    return ""


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


def user_message(text: str, attachments: list[dict[str, Any]] | None = None, source: str = "user") -> dict[str, Any]:
    """What the user typed, with the records of the files they attached (none: no ``attachments`` key).

    ``source`` other than ``"user"`` says who sent it in the user's stead (``schedule:<id>``: a job the user
    set); the model is told so on a line of OkBot's, never that the user typed it."""
    if attachments:
        return new_item("user", author="user", source=source, content=text, attachments=attachments)
    return new_item("user", author="user", source=source, content=text)


def notice(text: str, level: str = "info") -> dict[str, Any]:
    return new_item("notice", author="app", source="app", content=text, level=level)


TEACHING = "teaching"  # the notice field of a card offering a teaching (okbot.core.evolution.offers)
TEACHING_VERSION = 1  # a newer card is shown as its plain notice text


def teaching_notice(text: str, *, of: int, kind: str, words: str) -> dict[str, Any]:
    """The card offering what the user taught in message ``of`` (``kind``: rule, prohibition, permission or
    procedure; ``words``: what it quotes, as typed). ``text`` says it in words for what draws no card."""
    return {**notice(text), TEACHING: {"v": TEACHING_VERSION, "of": of, "kind": kind, "words": words}}


def teaching_of(item: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``{"of", "kind", "words"}`` a card notice offers, or None (another item, a malformed or newer card)."""
    card = item.get(TEACHING) if item.get("type") == "notice" else None
    if not isinstance(card, dict) or card.get("v") != TEACHING_VERSION:
        return None
    of, kind, words = card.get("of"), card.get("kind"), card.get("words")
    if type(of) is not int or of <= 0 or not isinstance(kind, str) or not isinstance(words, str):
        return None
    return {"of": of, "kind": kind, "words": words}


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


def member_source(member_id: str) -> str:
    """The ``source`` of what squad member ``member_id`` said: ``member:<id>``."""
    return MEMBER_PREFIX + member_id


def member_of(item: Mapping[str, Any]) -> str:
    """The squad member who said ``item`` (its ``source`` is ``member:<id>``), or ``""``."""
    source = str(item.get("source") or "")
    return source[len(MEMBER_PREFIX) :] if source.startswith(MEMBER_PREFIX) else ""


def scheduled_job_of(item: Mapping[str, Any]) -> str:
    """The scheduled job that sent the user message ``item`` (its ``source`` is ``schedule:<id>``), or ``""``."""
    source = str(item.get("source") or "")
    return source[len(SCHEDULE_PREFIX) :] if item.get("type") == "user" and source.startswith(SCHEDULE_PREFIX) else ""


def is_member_answer(item: Mapping[str, Any]) -> bool:
    """A member's answer to the captain's task: a ``tool_result`` spoken by that member."""
    return item.get("type") == "tool_result" and bool(member_of(item))


def reply_finished(after_user: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the items that follow a user message end its turn with a whole reply: the last reply, tool
    call or tool result among them is a complete assistant reply. A failed or stopped reply, a tool round
    cut short and no reply yet are not finished (a retry runs those again)."""
    last = next(
        (it for it in reversed(after_user) if it.get("type") in ("assistant", "tool_call", "tool_result")), None
    )
    return last is not None and last.get("type") == "assistant" and last.get("status", "complete") == "complete"


def delegation_tool_name(assistant_id: str) -> str:
    """``ask_<id>``, restricted to the characters tool names may hold (64 at most)."""
    return (ASK_PREFIX + _TOOL_NAME_OK.sub("_", assistant_id))[:64]


def asked_member(tool_name: str) -> str:
    """What follows ``ask_`` in a delegation tool's name (``""`` for other tools).

    It is the member's id unless the id held characters a tool name cannot (see
    :func:`delegation_tool_name`); ``SquadRoster.member_of_call`` maps it back through the roster.
    """
    return tool_name[len(ASK_PREFIX) :] if tool_name.startswith(ASK_PREFIX) else ""


def is_delegation(item: Mapping[str, Any]) -> bool:
    """The captain handing a member a task (an ``ask_<member>`` call) — or a result that never reached them."""
    name = str(item.get("name") or "")
    return item.get("type") in ("tool_call", "tool_result") and bool(asked_member(name))


def with_app_note(text: str, note: str) -> str:
    """``text`` followed by the app's ``[app note: …]`` (a member's answer the app had to annotate)."""
    return f"{text}\n\n{APP_NOTE} {note}]" if text else f"{APP_NOTE} {note}]"


def split_app_note(text: str) -> tuple[str, str]:
    """``(what the member said, the app's note)`` for an answer ending in ``[app note: …]``."""
    body = text.rstrip()
    start = body.rfind(APP_NOTE)
    if start < 0 or not body.endswith("]"):
        return text, ""
    note = body[start + len(APP_NOTE) : -1].strip()
    return body[:start].rstrip(), note
