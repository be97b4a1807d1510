"""Plain-text pieces of the chat view: one-line tool digests, notice and divider labels, status lines.

No Qt here (the view in :mod:`okbot.ui.chat` draws them), so the wording can be tested on its own and shared
with the copy actions.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from okbot.core.digest import call_digest, result_digest
from okbot.core.grounding import typed_by_user
from okbot.core.items import is_delegation, is_member_answer, item_text, preview
from okbot.core.messages import task_text
from okbot.i18n import plural, translate
from okbot.llm import keys
from okbot.storage import jsontext

DIGEST_CHARS = 96  # a collapsed tool row shows at most this much
TASK_CHARS = 240  # a collapsed delegation row's task (then elided to the row's width)
EXPANDED_CHARS = 4000  # an expanded tool row shows at most this much of the content
CACHE_TEXT_CHARS = 20_000  # what the model keeps in memory of a huge tool result
SHOWN_TEXT_FIELDS = ("content", "arguments", "error")  # what a row shows (or copies) of an item


def tool_digest(item: dict[str, Any]) -> str:
    """One line for a collapsed ``tool_call`` / ``tool_result`` row: the same digest the summarizer reads."""
    if item.get("type") == "tool_call":
        return call_digest(item, DIGEST_CHARS)
    return result_digest(item, DIGEST_CHARS, full_chars=item.get("_full_chars"), full_lines=item.get("_full_lines"))


def delegation_label(item: dict[str, Any], member: str, *, with_task: bool = True) -> str:
    """One line for the captain's delegation: ``asked Rex: <task>`` (or why ``member`` was not asked)."""
    if item.get("type") == "tool_call":
        if not with_task:
            return translate("chat_text", "asked {member}").format(member=member)
        return translate("chat_text", "asked {member}: {task}").format(
            member=member, task=preview(task_text(item), TASK_CHARS)
        )
    content = str(item.get("content") or "")
    first = next((line for line in content.splitlines() if line.strip()), "")
    return translate("chat_text", "could not ask {member}: {why}").format(
        member=member, why=preview(first, DIGEST_CHARS)
    )


def tool_detail(item: dict[str, Any]) -> str:
    """The text an expanded tool row shows (pretty JSON arguments, or the result, cut at EXPANDED_CHARS)."""
    if item.get("type") == "tool_call":
        raw = item.get("arguments", "")
        try:
            text = json.dumps(jsontext.loads(raw), ensure_ascii=False, indent=2)
        except ValueError:  # not JSON, or nested too deep to show: the raw text
            text = raw
    else:
        text = item_text(item).rstrip()
    full = int(item.get("_full_chars", len(text)))
    if len(text) > EXPANDED_CHARS or full > len(text):
        more = f"{full - min(len(text), EXPANDED_CHARS):,}"
        text = (
            text[:EXPANDED_CHARS] + "\n" + translate("chat_text", "… ({n} more chars; Copy takes all)").format(n=more)
        )
    return text


def trim_for_cache(item: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``item`` fit to show and keep in the row cache: an API key an older OkBot stored in it
    is redacted (new items are stored without), and huge tool results are cut."""
    item = _without_keys(item)
    if item.get("type") != "tool_result":
        return item
    content = item.get("content")
    if not isinstance(content, str) or len(content) <= CACHE_TEXT_CHARS:
        return item
    out = dict(item)
    out["content"] = content[:CACHE_TEXT_CHARS]
    out["_full_chars"] = len(content)
    out["_full_lines"] = content.count("\n") + 1
    return out


def _without_keys(item: dict[str, Any]) -> dict[str, Any]:
    secrets = keys.remembered_secrets()
    if not secrets:
        return item
    changed = {
        key: new
        for key in SHOWN_TEXT_FIELDS
        if isinstance(old := item.get(key), str) and (new := keys.redact_remembered(old, secrets)) != old
    }
    return {**item, **changed} if changed else item


def divider_label(count: int) -> str:
    """The coverage divider: ``Earlier messages summarized — 1,234 items``."""
    return plural(
        count,
        translate("chat_text", "Earlier messages summarized — {n} item"),
        translate("chat_text", "Earlier messages summarized — {n} items"),
    ).format(n=f"{count:,}")


def divider_action(expanded: bool) -> str:
    return translate("chat_text", "Hide summary ▴") if expanded else translate("chat_text", "Show summary ▾")


def status_line(item: dict[str, Any]) -> str:
    """Why an assistant reply is incomplete ("" when it completed)."""
    status = item.get("status", "complete")
    if status == "interrupted":
        if item.get("content"):
            return translate("chat_text", "Stopped — the reply was interrupted")
        return translate("chat_text", "Stopped before the model replied")
    if status == "error":
        # ``attempt``: set by the chat view when the turn's earlier failed attempts are folded into this one
        attempt = item.get("attempt")
        if isinstance(attempt, int) and attempt > 1:
            lead = translate("chat_text", "Failed again (attempt {n})").format(n=attempt)
        else:
            lead = translate("chat_text", "The reply failed")
        error = str(item.get("error") or "").strip()
        return translate("chat_text", "{lead}: {error}").format(lead=lead, error=preview(error, 160)) if error else lead
    return ""


def time_label(ts: str) -> str:
    """``14:03`` in local time for an ISO timestamp (``""`` when it cannot be read)."""
    if not ts:
        return ""
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ""
    local = moment.astimezone() if moment.tzinfo else moment
    return local.strftime("%H:%M")


def copy_text(item: dict[str, Any]) -> str:
    """What "Copy message" puts on the clipboard: the Markdown source, the task asked, or the tool text."""
    if is_delegation(item) and item.get("type") == "tool_call":
        return task_text(item)
    if is_member_answer(item):
        return str(item.get("content") or "")
    if item.get("type") == "tool_call":
        return f"{item.get('name', '')}({item.get('arguments', '')})"
    return item_text(item)


def sent_messages(items: list[dict[str, Any]]) -> list[str]:
    """What the user typed among ``items`` (oldest first), newest first, a message repeated in a row once:
    what Up in the composer goes back through."""
    sent: list[str] = []
    for item in reversed(items):
        text = str(item.get("content") or "")
        if typed_by_user(item) and text.strip() and (not sent or sent[-1] != text):
            sent.append(text)
    return sent
