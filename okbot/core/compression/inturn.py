"""Summary + Buffer inside a long turn: what gives way, in which order, before a tool round's request.

A turn of many tool rounds grows its own request. Before each round's request (the first is seen to
before the turn) :meth:`Compressor.within_turn <okbot.core.compression.compressor.Compressor.within_turn>`
checks it against the threshold (``window x ratio``) and the limit (``window - reply reserve``) and
moves things out in this order, each step only while the request is still over:

1. this turn's older tool results give way to their one-line digests (:func:`results_to_hide`; the
   newest round's results stay whole as long as anything else can move), the full text staying in
   ``session.jsonl`` for ``search_history`` or a second run of the tool;
2. the summarizer compresses inside the turn, the turn's own message pinned word for word as the
   current request (``currentRequestIds``, shown by :func:`okbot.core.context.build_context`);
3. over the limit still: every result but the newest gives way, then older items move out without
   the model (a plain digest);
4. the newest tool result alone too large: it is cut to fit and says so (:func:`cut_to_fit`);
5. nothing more can move: the turn ends with one plain message (:func:`too_large`), never a raw 400.

This module decides (pure functions over a projection); the compressor walks the steps under the
session's lock, with its own summarizer path and plain move-out. The chat gets a quiet line for each
step that moved something (:class:`TurnFit` ``notes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from okbot.core.context import (
    cut_stub,
    hidden_stub,
    item_token_count,
    reply_reserve,
)
from okbot.core.projection import ContextProjection
from okbot.i18n import translate
from okbot.storage.errors import OkBotError

# Below this many tokens of room a cut tool result would say nothing useful: the turn ends instead.
MIN_CUT_TOKENS = 64


@dataclass
class TurnFit:
    """What :meth:`Compressor.within_turn` did before one round's request.

    ``projection`` is the request to send (None when it cannot fit: ``error`` says why in plain words);
    ``reports`` the compressions that ran (summarizer or plain digest); ``notes`` the quiet lines for the chat.
    """

    projection: ContextProjection | None = None
    reports: list[Any] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: OkBotError | None = None


def limit_of(proj: ContextProjection) -> int:
    """The most a request may cost: the window less the room kept for the reply."""
    return proj.window - reply_reserve(proj.window)


def over(proj: ContextProjection, mark: int) -> bool:
    """Whether the request (as calibrated against what the server reported) reaches ``mark`` tokens."""
    return proj.calibrated_tokens > mark


def newest_round_size(items: Sequence[dict[str, Any]]) -> int:
    """How many items the newest round holds: the trailing run of tool calls and their results."""
    size = 0
    while size < len(items) and items[len(items) - 1 - size].get("type") in ("tool_call", "tool_result"):
        size += 1
    return size


def results_to_hide(
    proj: ContextProjection, counter: Any, mark: int, after_id: int, *, newest_round: bool
) -> list[int]:
    """This turn's tool results (ids after ``after_id``) to show as digests, oldest first, until the
    request is under ``mark``. The newest round's results are spared unless ``newest_round``; even then
    the very newest result is spared (a cut, not a digest, is its next step)."""
    items, tokens = proj.items, proj.item_tokens
    end = len(items) - 1 if newest_round else len(items) - newest_round_size(items)
    factor = proj.calibration_factor or 1.0
    excess = proj.calibrated_tokens - mark
    chosen, saved = [], 0
    for index in range(end):
        item = items[index]
        if item.get("type") != "tool_result" or item.get("hidden") or item["id"] <= after_id:
            continue
        if saved * factor >= excess:
            break
        chosen.append(item["id"])
        saved += max(0, tokens[index] - item_token_count(counter, hidden_stub(item), proj.files))
    return chosen


def cut_to_fit(
    proj: ContextProjection, counter: Any, limit: int, original: dict[str, Any] | None
) -> tuple[int, int] | None:
    """``(item id, characters to show)`` cutting the newest tool result (``original``: as recorded) so the
    request fits ``limit``; None when the newest item is no tool result or too little room would be left."""
    newest = proj.items[-1] if proj.items else {}
    if newest.get("type") != "tool_result" or newest.get("hidden") or original is None:
        return None
    content = original.get("content", "")
    if not isinstance(content, str) or len(content) < 2:
        return None
    factor = proj.calibration_factor or 1.0
    room = int(limit / factor) - (proj.total_tokens - proj.item_tokens[-1])
    if room < MIN_CUT_TOKENS:
        return None
    whole = item_token_count(counter, original, proj.files)
    chars = min(len(content) - 1, max(1, len(content) * room // max(1, whole)))
    while chars > 0 and item_token_count(counter, cut_stub(original, chars), proj.files) > room:
        chars = int(chars * 0.9)
    return (original["id"], chars) if chars > 0 else None


def largest_part(proj: ContextProjection) -> tuple[str, int]:
    """What takes the most room in the request, in words, and its tokens."""
    parts = [
        (translate("inturn", "the instructions' {name} block").format(name=b.title), b.tokens) for b in proj.blocks
    ]
    for item, tokens in zip(proj.items, proj.item_tokens, strict=True):
        if item.get("type") == "user":
            parts.append((translate("inturn", "your message #{id}").format(id=item["id"]), tokens))
        elif item.get("type") == "tool_result":
            parts.append(
                (
                    translate("inturn", "the output of {tool} (#{id})").format(tool=item.get("name"), id=item["id"]),
                    tokens,
                )
            )
    return max(parts, key=lambda p: p[1], default=(translate("inturn", "the instructions"), 0))


def too_large(proj: ContextProjection, limit: int) -> OkBotError:
    """The one plain message that ends a turn whose next request cannot fit, naming what is too large."""
    part, tokens = largest_part(proj)
    return OkBotError(
        translate(
            "inturn",
            "The next request of this turn needs about {tokens} tokens and the model's window is {window} "
            "(at most {limit} with room for the reply), even with the turn's earlier steps summarized and its "
            "tool output shown as digests; the largest part is {part} ({part_tokens} tokens). The turn stopped "
            "here; everything so far is kept.",
        ).format(
            tokens=f"{proj.calibrated_tokens:,}",
            window=f"{proj.window:,}",
            limit=f"{limit:,}",
            part=part,
            part_tokens=f"{tokens:,}",
        ),
        hint=translate("inturn", "pick a model with a larger context window, or ask for less at a time"),
    )


def digests_note() -> str:
    """The quiet line for step 1 (said once a turn: it carries no count)."""
    return translate(
        "inturn",
        "To fit the context window, this turn's older tool output goes to the model as one-line digests; "
        "the full output stays in the chat, and search_history can read it.",
    )


def summary_note(report: Any) -> str:
    """The quiet line for step 2, from the compression's report."""
    if report.ok:
        return translate(
            "inturn",
            "Summarized {count} earlier item(s) of this conversation (#{first}–#{last}) inside the turn to fit "
            "the context window; your request stays word for word.",
        ).format(count=report.covered_items, first=report.new_ids[0], last=report.new_ids[-1])
    return translate(
        "inturn", "The summary could not be updated inside the turn ({failure}); older items moved out plainly instead."
    ).format(failure=report.error or report.message)


def moved_note(report: Any) -> str:
    """The quiet line for step 3's plain digest."""
    return translate(
        "inturn",
        "Moved {count} earlier item(s) (#{first}–#{last}) out of the request without a summary to fit the context "
        "window; search_history finds them.",
    ).format(count=report.covered_items, first=report.new_ids[0], last=report.new_ids[-1])


def cut_note(item: dict[str, Any], chars: int) -> str:
    """The quiet line for step 4."""
    content = item.get("content", "")
    return translate(
        "inturn",
        "The output of {tool} (#{id}) is too large for the context window: the model sees its first {chars} of "
        "{total} characters, and search_history can read the rest.",
    ).format(tool=item.get("name"), id=item["id"], chars=f"{chars:,}", total=f"{len(content):,}")
