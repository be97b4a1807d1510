"""Tool calls an earlier turn left without a result (OkBot closed while one waited or ran) are closed, saying so."""

from __future__ import annotations

from typing import Any

from okbot.core.items import new_item, notice
from okbot.core.workspace import Target
from okbot.i18n import plural, translate


def close_dangling_calls(session: Any, target: Target, calls_per_turn: int) -> list[dict[str, Any]]:
    """Tool calls of an earlier turn that never got a result (OkBot closed while one waited for
    approval or ran) get one now, saying so, so the record and the user both see how it ended.
    ``calls_per_turn`` (``tools.maxCallsPerTurn``) sizes the look back: a whole round's calls and
    results and the turn's other items. Returns the items appended (none when nothing dangles)."""
    with session.exclusive():  # the chat page (on open) and a turn (on start) may both look at once
        return _close_dangling(session, target, 2 * calls_per_turn + 64)


def _close_dangling(session: Any, target: Target, lookback: int) -> list[dict[str, Any]]:
    tail = session.tail(lookback)
    answered = {it.get("call_id") for it in tail if it.get("type") == "tool_result"}
    dangling = [it for it in tail if it.get("type") == "tool_call" and it.get("call_id") not in answered]
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
