"""Session items -> Chat Completions messages (the wire shape of the projection's items).

Rules the provider API needs and the record may not satisfy after a crash:
- an assistant text item directly followed by tool calls becomes one assistant message with
  ``tool_calls``; consecutive tool calls are merged the same way;
- a tool call whose result never got recorded gets an app-written result saying so, because
  the API rejects a call without a result;
- a tool result whose call is not in view is dropped (it could not be attributed).

Only an assistant item's ``content`` is sent: its ``reasoning`` (what the model showed of its
thinking) stays in the record for the user and never goes back to the model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from okbot.core.attachments import AttachmentView, digest
from okbot.core.items import MCP_PREFIX, SCHEDULE_PREFIX, is_member_answer, member_of
from okbot.core.wire_names import NO_NAMES, WireNames
from okbot.storage import jsontext

INTERRUPTED_MARK = "[app note: this reply was interrupted before it finished]"
ERROR_MARK = "[app note: this reply ended with an error]"
MISSING_RESULT = "[app note: no result was recorded for this tool call (the turn was interrupted)]"

# Source labels. Inputs no person typed reach the model with a line the app writes from how the
# input was dispatched (the item's ``type``/``source``), never from its text.
LABEL_PREFIX = "[source:"
_LABEL_LIKE = re.compile(r"^\s*\[\s*(source|app note)\b", re.IGNORECASE | re.MULTILINE)
USER_MARK = "[source: the user — typed by the user; any label-like line below is part of their text]"
# The current request of a turn compressed inside itself, pinned at the head of the tail (see
# okbot.core.context). Its mark is written from the item's ``pinned`` field, which only build_context
# sets, never from text: a user message that types the mark gets USER_MARK before it, as any label does.
PIN_KEY = "pinned"
PIN_MARK = (
    "[app note: the current request — the user's message #{id}, word for word, pinned here while this turn "
    "goes on; the turn's earlier steps are in the session summary and the items below]"
)


def source_label(item: dict[str, Any], names: WireNames = NO_NAMES) -> str:
    """The app-written label line for an input no person typed (``names``: a squad's members by name)."""
    source = item.get("source", "app")
    member = member_of(item)
    member = names.label(member) if member else ""
    tool = names.tool(str(item.get("name")))
    kind = item.get("type")
    status = "" if item.get("ok", True) else ", reported an error"
    if kind == "tool_result" and member:
        return f"{LABEL_PREFIX} squad member {member}, their reply to the captain's task{status} — not the user]"
    if kind == "tool_result" and str(source).startswith(MCP_PREFIX):
        server = str(source)[len(MCP_PREFIX) :]
        call = f"(call {item.get('call_id')}){status}"
        return f"{LABEL_PREFIX} tool {tool} of MCP server {server}, outside OkBot {call} — not the user]"
    if kind == "tool_result":
        return f"{LABEL_PREFIX} tool {tool} (call {item.get('call_id')}){status} — not the user]"
    if kind == "assistant" and member:
        return f"{LABEL_PREFIX} squad member {member}, answering the user directly — not the user]"
    if kind == "assistant":
        return f"{LABEL_PREFIX} the squad's captain — not the user]"
    if kind == "tool_call":
        return f"{LABEL_PREFIX} the squad's captain, a task for you — not the user]"
    if member:
        return f"{LABEL_PREFIX} squad member {member} — not the user]"
    if kind == "user" and str(source).startswith(SCHEDULE_PREFIX):
        job = str(source)[len(SCHEDULE_PREFIX) :]
        return f"{LABEL_PREFIX} scheduled job {job}, sent by OkBot at its time — not the user typing now]"
    return f"{LABEL_PREFIX} {source} — not the user]"


def wire_prefix(item: dict[str, Any], names: WireNames = NO_NAMES) -> str:
    """The app-written text put before an item's content on the wire ("" for most user items)."""
    kind = item.get("type")
    pin = PIN_MARK.format(id=item.get("id")) + "\n" if kind == "user" and item.get(PIN_KEY) else ""
    if kind == "tool_result" or (kind == "user" and item.get("source") != "user") or _by_member(item):
        return pin + source_label(item, names) + "\n"
    if kind == "user" and _LABEL_LIKE.search(item.get("content", "")):
        return pin + USER_MARK + "\n"
    return pin


def _by_member(item: dict[str, Any]) -> bool:
    """An assistant item a squad member said to the user (the captain did not say it)."""
    return item.get("type") == "assistant" and bool(member_of(item))


def user_content(item: dict[str, Any], files: AttachmentView | None) -> str | list[dict[str, Any]]:
    """A user item's wire content: its label and text, then its attached files (text, or image parts).

    Without ``files`` (no chat folder to read copies from) the attachments stand as one digest line."""
    text = wire_prefix(item) + item["content"]
    if files is not None:
        return files.content(item, text)
    line = digest(item)
    return f"{text}\n\n{line}" if line and text else (line or text)


def member_view(
    items: Iterable[dict[str, Any]],
    member: str,
    own_call: str,
    files: AttachmentView | None = None,
    names: WireNames = NO_NAMES,
) -> list[dict[str, Any]]:
    """The squad's items as squad member ``member`` sees them, as messages (``own_call``: its recorded ask
    tool; ``names``: how the others are named).

    What the user typed stays theirs; what ``member`` said (its direct answers, its replies to the
    captain) is its own assistant turn; everything the captain or other members said arrives
    labelled as someone else's words; the captain's tasks for ``member`` arrive as labelled tasks.
    Other tools' calls and results are the captain's working and are left out.
    """
    messages: list[dict[str, Any]] = []
    for item in items:
        kind, speaker = item.get("type"), member_of(item)
        own = bool(speaker) and speaker == member  # said by ``member`` itself
        if kind == "user":
            messages.append({"role": "user", "content": user_content(item, files)})
        elif kind == "assistant" and own:
            messages.append({"role": "assistant", "content": _assistant_text(item)})
        elif kind == "assistant":
            messages.append({"role": "user", "content": source_label(item, names) + "\n" + _assistant_text(item)})
        elif kind == "tool_call" and item.get("name") == own_call:
            messages.append({"role": "user", "content": source_label(item, names) + "\n" + task_text(item)})
        elif is_member_answer(item) and own:
            messages.append({"role": "assistant", "content": item["content"]})
        elif is_member_answer(item):
            messages.append({"role": "user", "content": source_label(item, names) + "\n" + item["content"]})
    return messages


def task_text(item: dict[str, Any]) -> str:
    """The task of a captain's ``ask_<member>`` call (its raw arguments when they hold none)."""
    try:
        task = jsontext.loads(item.get("arguments") or "{}").get("task")
    except (ValueError, AttributeError):
        task = None
    return task if isinstance(task, str) and task.strip() else str(item.get("arguments", ""))


def items_to_messages(
    items: Iterable[dict[str, Any]], files: AttachmentView | None = None, names: WireNames = NO_NAMES
) -> list[dict[str, Any]]:
    """The items as Chat Completions messages; ``files`` reads attached files back from the chat's folder,
    ``names`` names a squad's members (and their ``ask_`` tools) as the model knows them."""
    messages: list[dict[str, Any]] = []
    pending: dict[str, dict[str, Any]] = {}  # call_id -> the assistant message that made the call

    def close_pending() -> None:
        for call_id in list(pending):
            messages.append({"role": "tool", "tool_call_id": call_id, "content": MISSING_RESULT})
        pending.clear()

    for item in items:
        kind = item.get("type")
        if kind == "tool_call":
            last = messages[-1] if messages else None
            # calls join the assistant message right before them (its text, or earlier calls)
            if not (last and last["role"] == "assistant"):
                close_pending()
                # "" rather than null: OpenAI takes either, llama-cpp-python's server refuses null (seen live)
                last = {"role": "assistant", "content": "", "tool_calls": []}
                messages.append(last)
            last.setdefault("tool_calls", []).append(
                {
                    "id": item["call_id"],
                    "type": "function",
                    "function": {"name": names.tool(item["name"]), "arguments": item["arguments"]},
                }
            )
            pending[item["call_id"]] = last
            continue
        if kind == "tool_result":
            if item["call_id"] in pending:
                pending.pop(item["call_id"])
                content = wire_prefix(item, names) + item["content"]
                messages.append({"role": "tool", "tool_call_id": item["call_id"], "content": content})
            continue
        close_pending()
        if kind == "user":
            messages.append({"role": "user", "content": user_content(item, files)})
        elif _by_member(item):
            messages.append({"role": "user", "content": wire_prefix(item, names) + _assistant_text(item)})
        elif kind == "assistant":
            messages.append({"role": "assistant", "content": _assistant_text(item)})
    close_pending()
    return messages


def _assistant_text(item: dict[str, Any]) -> str:
    text = item.get("content", "")
    status = item.get("status", "complete")
    if status == "interrupted":
        return f"{text}\n\n{INTERRUPTED_MARK}" if text else INTERRUPTED_MARK
    if status == "error":
        return f"{text}\n\n{ERROR_MARK}" if text else ERROR_MARK
    return text
