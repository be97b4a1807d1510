"""Tool calls an earlier turn left without a result (OkBot closed while one waited or ran) are closed, saying so."""

from __future__ import annotations

from typing import Any

from okbot.core.items import new_item, notice
from okbot.core.turn.pending import PendingApprovals, PendingCall
from okbot.core.workspace import Target
from okbot.i18n import plural, translate


def close_dangling_calls(
    session: Any, target: Target, calls_per_turn: int, *, keep_waiting: bool = False
) -> list[dict[str, Any]]:
    """Tool calls of an earlier turn that never got a result (OkBot closed while one waited for
    approval or ran) get one now, saying so, so the record and the user both see how it ended.
    ``calls_per_turn`` (``tools.maxCallsPerTurn``) sizes the look back: a whole round's calls and
    results and the turn's other items. Returns the items appended (none when nothing dangles).

    ``keep_waiting``: a turn whose calls wait for approval on disk (:mod:`okbot.core.turn.pending`) is left
    as it is, to go on once answered (the chat opening); otherwise those calls are forgotten and closed too
    (the user moved on)."""
    pending = PendingApprovals(target.dir)
    with session.exclusive():  # the chat page (on open) and a turn (on start) may both look at once
        tail = session.tail(2 * calls_per_turn + 64)
        dangling = dangling_calls(tail)
        if keep_waiting and still_waiting(pending.calls(), dangling, tail):
            return []
        pending.clear()
        return _close(session, target, dangling)


def dangling_calls(tail: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool calls of ``tail`` without a result, in order."""
    answered = {it.get("call_id") for it in tail if it.get("type") == "tool_result"}
    return [it for it in tail if it.get("type") == "tool_call" and it.get("call_id") not in answered]


def still_waiting(calls: list[PendingCall], dangling: list[dict[str, Any]], tail: list[dict[str, Any]]) -> bool:
    """Whether the kept ``calls`` are those of the last turn, which is still open: each belongs to a call of the
    record without a result, or is a member's asked directly by the last message, with nothing after it."""
    if not calls:
        return False
    open_ids = {it.get("call_id") for it in dangling}
    last_user = next((it for it in reversed(tail) if it.get("type") == "user"), None)
    for call in calls:
        if call.parent or not call.member:
            if call.chat_call not in open_ids:
                return False
        elif last_user is None or last_user.get("id") != call.user_id:
            return False
        elif any(it.get("type") == "assistant" for it in tail[tail.index(last_user) + 1 :]):
            return False
    return True


def _close(session: Any, target: Target, dangling: list[dict[str, Any]]) -> list[dict[str, Any]]:
    added = []
    for call in dangling:
        note = f"[app note: {call.get('name')} was not run — OkBot closed before this call was approved or finished]"
        added.append(
            session.append(
                new_item(
                    "tool_result",
                    author=call.get("author", target.id),
                    source="app",
                    call_id=call["call_id"],
                    name=call.get("name", ""),
                    content=note,
                    ok=False,
                )
            )
        )
    if dangling:
        added.append(
            session.append(
                notice(
                    plural(
                        len(dangling),
                        translate(
                            "runner", "{n} tool call of the last turn was not run: OkBot closed while it waited."
                        ),
                        translate(
                            "runner", "{n} tool calls of the last turn were not run: OkBot closed while they waited."
                        ),
                    ).format(n=len(dangling)),
                    "warning",
                )
            )
        )
    return added
