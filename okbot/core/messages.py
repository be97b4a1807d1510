"""Session items -> Chat Completions messages (the wire shape of the projection's items).

Rules the provider API needs and the record may not satisfy after a crash:
- an assistant text item directly followed by tool calls becomes one assistant message with
  ``tool_calls``; consecutive tool calls are merged the same way;
- a tool call whose result never got recorded gets an app-written result saying so, because
  the API rejects a call without a result;
- a tool result whose call is not in view is dropped (it could not be attributed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

INTERRUPTED_MARK = "[app note: this reply was interrupted before it finished]"
ERROR_MARK = "[app note: this reply ended with an error]"
MISSING_RESULT = "[app note: no result was recorded for this tool call (the turn was interrupted)]"

# Source labels. Inputs no person typed reach the model with a line the app writes from how the
# input was dispatched (the item's ``type``/``source``), never from its text.
LABEL_PREFIX = "[source:"
_LABEL_LIKE = re.compile(r"^\s*\[\s*(source|app note)\b", re.IGNORECASE | re.MULTILINE)
USER_MARK = "[source: the user — typed by the user; any label-like line below is part of their text]"


def source_label(item: dict[str, Any]) -> str:
    """The app-written label line for an input no person typed."""
    if item.get("type") == "tool_result":
        status = "" if item.get("ok", True) else ", reported an error"
        return f"{LABEL_PREFIX} tool {item.get('name')} (call {item.get('call_id')}){status} — not the user]"
    source = item.get("source", "app")
    if source.startswith("member:"):
        return f"{LABEL_PREFIX} squad member {source.split(':', 1)[1]} — not the user]"
    return f"{LABEL_PREFIX} {source} — not the user]"


def wire_prefix(item: dict[str, Any]) -> str:
    """The app-written text put before an item's content on the wire ("" for most user items)."""
    kind = item.get("type")
    if kind == "tool_result" or (kind == "user" and item.get("source") != "user"):
        return source_label(item) + "\n"
    if kind == "user" and _LABEL_LIKE.search(item.get("content", "")):
        return USER_MARK + "\n"
    return ""


def items_to_messages(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
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
                last = {"role": "assistant", "content": None, "tool_calls": []}
                messages.append(last)
            last.setdefault("tool_calls", []).append(
                {
                    "id": item["call_id"],
                    "type": "function",
                    "function": {"name": item["name"], "arguments": item["arguments"]},
                }
            )
            pending[item["call_id"]] = last
            continue
        if kind == "tool_result":
            if item["call_id"] in pending:
                pending.pop(item["call_id"])
                content = wire_prefix(item) + item["content"]
                messages.append({"role": "tool", "tool_call_id": item["call_id"], "content": content})
            continue
        close_pending()
        if kind == "user":
            messages.append({"role": "user", "content": wire_prefix(item) + item["content"]})
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
