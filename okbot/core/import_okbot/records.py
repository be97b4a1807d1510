"""The original's ``session.jsonl`` records and how they become this app's items.

A record is a v2 envelope ``{v: 2, id, createdAt, item, meta?}`` holding an OpenAI Agents SDK item, or a
legacy ``ChatMessage`` line (see the package docstring for the field names and where they are defined).
:func:`parse_record` reads either, :class:`Converter` turns one into an item (or says what kind of record
it leaves out), and :func:`whole_pairs` makes every tool call and result a whole pair as they are written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from okbot.core.import_okbot.report import OwnerReport
from okbot.core.items import member_source, new_item, now_iso
from okbot.i18n import QT_TRANSLATE_NOOP, translate

CAPTAIN_SPEAKER = "__captain__"  # speakerBotId of the original's built-in squad captain
# How the original writes a turn that failed (``registerChat.ts``: ``assistantMsg.content = `错误：${message}```):
# the reply's text is this prefix and the reason, with nothing of an answer.
ERROR_PREFIX = "错误："
TOOL_CALL_TYPES = ("function_call",)
TOOL_RESULT_TYPES = ("function_call_result", "function_call_output")
# an item kind the import leaves out (a key of the report, translated in its text)
UNPAIRED_RESULT = QT_TRANSLATE_NOOP("report", "tool result without its call")


def text_of(value: Any) -> str:
    """``value`` stripped when it is text, else ``""``."""
    return value.strip() if isinstance(value, str) else ""


def _parts_text(content: Any) -> str:
    """The text of an SDK item's ``content`` / ``output``: a string, a text part, or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        for key in ("text", "output", "refusal"):
            if isinstance(content.get(key), str):
                return content[key]
        return json.dumps(content, ensure_ascii=False)
    if isinstance(content, list):
        return "".join(_parts_text(p) for p in content if isinstance(p, (str, dict)))
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def parse_record(obj: Any) -> dict[str, Any] | None:
    """A v2 envelope as is, a legacy ChatMessage as a v2 envelope, else ``None`` (``parseSessionLine``)."""
    if not isinstance(obj, dict):
        return None
    if obj.get("v") == 2 and isinstance(obj.get("id"), str) and isinstance(obj.get("item"), dict):
        return obj
    if isinstance(obj.get("id"), str) and isinstance(obj.get("role"), str) and isinstance(obj.get("content"), str):
        meta = {k: obj[k] for k in ("speakerBotId", "usage") if k in obj}
        item = {"type": "message", "role": obj["role"], "content": obj["content"]}
        return {"v": 2, "id": obj["id"], "createdAt": text_of(obj.get("createdAt")), "item": item, "meta": meta}
    return None


def _usage(raw: Any) -> dict[str, int] | None:
    if not isinstance(raw, dict):
        return None
    out = {}
    for src, dst in (("input", "prompt_tokens"), ("output", "completion_tokens"), ("cache", "cached_tokens")):
        value = raw.get(src)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            out[dst] = int(value)
    return out or None


_THINK = re.compile(r"\A\s*<think>(.*?)</think>\s*", re.DOTALL)


def _split_think(text: str) -> tuple[str, str]:
    """``(answer, reasoning)``: a leading ``<think>…</think>`` span the original kept in the text is moved out."""
    match = _THINK.match(text)
    if not match:
        return text, ""
    return text[match.end() :], match.group(1).strip()


class Converter:
    """Turns the original's records into this app's items for one chat (``author`` is its id).

    For a squad (``members`` given) only the transcript the original showed is taken: user rows and
    bubbles carrying a ``speakerBotId`` (``FileStorage.toSquadUiMessages``); the runner's own rows
    (captain messages without a speaker, function calls and results) fed only its model and would
    repeat those bubbles here.
    """

    def __init__(self, author: str, members: dict[str, str] | None = None) -> None:
        self.author = author
        self.squad = members is not None
        self.members = members or {}  # original bot id -> new assistant id
        self.last: dict[str, Any] | None = None  # the last item converted

    def convert(self, rec: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
        """``(item, "")``, or ``(None, what kind of record was not imported)``."""
        item, meta = rec["item"], rec.get("meta") if isinstance(rec.get("meta"), dict) else {}
        kind = item.get("type") if isinstance(item.get("type"), str) else "message"
        ts = text_of(rec.get("createdAt")) or now_iso()
        speaker = text_of(meta.get("speakerBotId"))
        if self.squad and not speaker and (kind != "message" or (meta.get("uiRole") or item.get("role")) != "user"):
            return None, f"squad runner {kind}"
        if kind == "message":
            out, why = self._message(item, meta, speaker, ts)
        elif kind in TOOL_CALL_TYPES:
            out, why = self._call(item, ts)
        elif kind in TOOL_RESULT_TYPES:
            out, why = self._result(item, kind, ts)
        else:
            out, why = None, kind
        if out is not None:
            self.last = out
        return out, why

    def _message(self, item: dict, meta: dict, speaker: str, ts: str) -> tuple[dict[str, Any] | None, str]:
        role = meta.get("uiRole") or item.get("role")
        text = _parts_text(item.get("content"))
        if role == "user":
            last = self.last
            if last is not None and last.get("type") == "user" and last.get("content") == text:
                return None, "repeated user message (the runner's copy of the one before)"
            return new_item("user", author="user", source="user", content=text, ts=ts), ""
        if role != "assistant":
            return None, f"{role or 'unknown'}-role message"
        answer, thought = _split_think(text)
        fields: dict[str, Any] = {"content": answer, "ts": ts, "status": "complete"}
        if answer.startswith(ERROR_PREFIX):  # a failed turn: what the runner here writes for one
            fields.update(content="", status="error", error=answer[len(ERROR_PREFIX) :].strip())
        if thought:
            fields["reasoning"] = thought
        usage = _usage(meta.get("usage"))
        if usage:
            fields["usage"] = usage
        if speaker and speaker != CAPTAIN_SPEAKER:
            member = self.members.get(speaker)
            if member is None:
                return None, "reply of a squad member that was not imported"
            return new_item("assistant", author=member, source=member_source(member), **fields), ""
        return new_item("assistant", author=self.author, source="app", **fields), ""

    def _call(self, item: dict, ts: str) -> tuple[dict[str, Any] | None, str]:
        call_id = text_of(item.get("callId")) or text_of(item.get("call_id")) or text_of(item.get("id"))
        if not call_id:
            return None, "function_call without a call id"
        args = item.get("arguments")
        args = args if isinstance(args, str) else json.dumps(args if args is not None else {}, ensure_ascii=False)
        name = text_of(item.get("name")) or "tool"
        return new_item(
            "tool_call", author=self.author, source="app", call_id=call_id, name=name, arguments=args, ts=ts
        ), ""

    def _result(self, item: dict, kind: str, ts: str) -> tuple[dict[str, Any] | None, str]:
        call_id = text_of(item.get("callId")) or text_of(item.get("call_id"))
        if not call_id:
            return None, f"{kind} without a call id"
        return new_item(
            "tool_result",
            author=self.author,
            source="tool",
            call_id=call_id,
            name=text_of(item.get("name")) or "tool",
            content=_parts_text(item.get("output")),
            ok=item.get("status") not in ("incomplete", "failed"),
            ts=ts,
        ), ""


def whole_pairs(
    converted: Iterable[tuple[int, str, dict[str, Any] | None]],
    calls: set[str],
    answered: set[str],
    owner: OwnerReport,
) -> Iterator[tuple[int, str, dict[str, Any] | None]]:
    """Drop results whose call is not there; give a call that never got its result the app's note as a result.

    ``calls`` and ``answered`` are the call ids of every converted call and result (a first pass over
    the chat), so ``converted`` streams through without being held. The app never sends a model a call
    without its result (nor the reverse); the original could leave one when it closed during a call.
    The note goes where the runner puts it: after the calls, before what follows.
    """
    open_calls: list[dict[str, Any]] = []

    def close_open() -> Iterator[tuple[int, str, dict[str, Any] | None]]:
        for call in open_calls:
            note = f"[app note: {call['name']} has no result in the original OkBot's record]"
            result = new_item(
                "tool_result",
                author=call["author"],
                source="app",
                call_id=call["call_id"],
                name=call["name"],
                content=note,
                ok=False,
                ts=call["ts"],
            )
            yield 0, "", result
            text = translate("records", "tool call {id} had no result; the app's note stands in for it")
            owner.notes.append(text.format(id=call["call_id"]))
        open_calls.clear()

    for number, rec_id, item in converted:
        kind = item["type"] if item is not None else ""
        if kind == "tool_result" and item["call_id"] not in calls:
            owner.skipped_kinds[UNPAIRED_RESULT] = owner.skipped_kinds.get(UNPAIRED_RESULT, 0) + 1
            yield number, rec_id, None
            continue
        if item is not None and kind not in ("tool_call", "tool_result"):
            yield from close_open()
        yield number, rec_id, item
        if kind == "tool_call" and item["call_id"] not in answered:
            open_calls.append(item)
    yield from close_open()
