"""The user's kept words: their own messages the summary block quotes verbatim, copied from the record.

:func:`kept_words` chooses what the request shows within the caps (:func:`kept_words_caps`): strong
directives first, then the user's first kept message, weak directives, then the rest
(:func:`rank_kept`); a tier gets only the room the tiers above it left, so chit-chat never pushes a
directive out, and a message with no room is named by id (search_history finds it).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from okbot.core.digest import STRONG_DIRECTIVE, checklist_entry, directive_grade
from okbot.core.instructions import listed_note
from okbot.core.summary import SessionSummary
from okbot.i18n import translate

# Caps on the user's kept words (tokens): per message, in total (scaled down for small windows),
# and the least a message may be shortened to before only the first and newest are kept.
KEPT_PER_MESSAGE_TOKENS = 300
KEPT_TOTAL_TOKENS = 3000
KEPT_MIN_SHARE_TOKENS = 40
# What a shown message costs besides its text (its `[#id] ` label).
KEPT_ENTRY_TOKENS = 4


def kept_words_caps(window: int) -> tuple[int, int]:
    """(per-message, total) token caps for the user's kept words; the total shrinks for small windows."""
    return KEPT_PER_MESSAGE_TOKENS, min(KEPT_TOTAL_TOKENS, max(KEPT_PER_MESSAGE_TOKENS, window // 40))


@dataclass(frozen=True)
class KeptWords:
    """The user's kept messages as the request shows them: ``shown`` (id, text) in id order, and the ids
    of kept messages not shown for room (``listed``, best ranked first; search_history finds them)."""

    shown: tuple[tuple[int, str], ...] = ()
    listed: tuple[int, ...] = ()


def _cut_tokens(text: str, tokens: int, counter: Any, item_id: int) -> str:
    """``text`` cut to about ``tokens`` tokens (the pointer included), pointing to the full text by id."""
    if counter.count_text(text) <= tokens:
        return text
    pointer = f" … [cut; full text: item #{item_id}, search_history finds it]"
    room = max(5, tokens - counter.count_text(pointer))
    chars = max(20, room * 3)
    while chars > 20 and counter.count_text(text[:chars]) > room:
        chars = int(chars * 0.8)
    return f"{text[:chars].rstrip()}{pointer}"


def checklist_share(
    kept: Sequence[dict[str, Any]], count: Callable[[str], int], window: int
) -> tuple[list[dict[str, Any]], list[int]]:
    """The kept messages a summarizer call lists, and the ids of those it does not.

    The checklist shows, best ranked first (:func:`rank_kept`), as many kept messages as the request's kept
    words can show (:func:`kept_words_caps`), so a call's cost does not grow with every message a careful
    model keeps. The others stay kept: a kept message goes only when released, and the model can release
    only what it sees."""
    _, budget = kept_words_caps(window)
    by_id = {it["id"]: it for it in kept}
    shown: list[dict[str, Any]] = []
    used = 0
    for tier in rank_kept([(i, str(it.get("content") or "")) for i, it in by_id.items()]):
        for item_id, _text in tier:
            cost = count(checklist_entry(by_id[item_id])) + 2
            if shown and used + cost > budget:
                continue
            shown.append(by_id[item_id])
            used += cost
    shown_ids = {it["id"] for it in shown}
    return sorted(shown, key=lambda it: it["id"]), sorted(i for i in by_id if i not in shown_ids)


def rank_kept(kept: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """Kept messages in tiers, best first, each tier in the order it gets room: strong directives (the
    oldest, then the newest first), the user's first kept message, weak directives, then the rest
    (newest first)."""
    if not kept:
        return []
    grades = {i: directive_grade(t) for i, t in kept}
    first = min(grades)
    oldest_strong = min((i for i in grades if grades[i] == STRONG_DIRECTIVE), default=None)

    def tier(item_id: int) -> int:
        if grades[item_id] == STRONG_DIRECTIVE:
            return 0
        return 1 if item_id == first else 3 - grades[item_id]

    tiers: list[list[tuple[int, str]]] = [[], [], [], []]
    for entry in sorted(kept, key=lambda e: (e[0] != oldest_strong, -e[0])):
        tiers[tier(entry[0])].append(entry)
    return [t for t in tiers if t]


def _water_level(costs: list[int], room: int) -> int:
    """The largest per-message share such that every message gets min(its cost, share) within ``room``."""
    remaining = room
    ordered = sorted(costs)
    for index, cost in enumerate(ordered):
        left = len(ordered) - index
        if cost * left > remaining:
            return remaining // left
        remaining -= cost
    return max(ordered, default=0)


def _fit_tier(tier: list[tuple[int, str]], room: int, counter: Any) -> tuple[list[tuple[int, str]], int, list[int]]:
    """``(shown, tokens used, ids not shown)`` for one tier in ``room``: as many as can have at least
    ``KEPT_MIN_SHARE_TOKENS`` each (or their whole text), shortened evenly, in the tier's order."""
    costs = [counter.count_text(t) + KEPT_ENTRY_TOKENS for _, t in tier]
    most, used = 0, 0  # showing more than ``most`` would leave someone under the least share
    for cost in costs:
        used += min(cost, KEPT_MIN_SHARE_TOKENS)
        if used > room:
            break
        most += 1
    for shown in range(most, 0, -1):
        level = min(KEPT_PER_MESSAGE_TOKENS, _water_level(costs[:shown], room))
        if level >= KEPT_MIN_SHARE_TOKENS or level >= max(costs[:shown]):
            words = [(i, _cut_tokens(t, level - KEPT_ENTRY_TOKENS, counter, i)) for i, t in tier[:shown]]
            return words, sum(min(c, level) for c in costs[:shown]), [i for i, _ in tier[shown:]]
    return [], 0, [i for i, _ in tier]


def _fit_words(tiers: list[list[tuple[int, str]]], budget: int, counter: Any) -> KeptWords:
    """Show what ``budget`` allows, tier by tier: a tier gets only what the tiers above it left, so
    chit-chat never takes room from a directive; the messages not shown are named by id."""
    reserve = 0  # room for the line naming the messages not shown
    for _ in range(3):
        room, shown, listed = budget - reserve, [], []
        for tier in tiers:
            if listed:  # a tier above did not fit whole: lower tiers get no room
                listed += [i for i, _ in tier]
                continue
            words, used, rest = _fit_tier(tier, room, counter)
            shown, room, listed = shown + words, room - used, listed + rest
        need = counter.count_text(listed_note(listed)) if listed else 0
        if need <= reserve:
            break
        reserve = need
    return KeptWords(tuple(sorted(shown)), tuple(listed))


def kept_words(
    session: Any,
    summary: SessionSummary,
    covered: int,
    notices: list[str],
    counter: Any,
    window: int,
    shown: Collection[int] = (),
) -> KeptWords:
    """The user's kept messages, copied from the record (never retyped by a model), within the caps;
    ``shown``: ids the items show word for word already (the pinned current request).

    They get the budget tier by tier in :func:`rank_kept` order, so chit-chat never pushes a directive
    out; see :func:`_fit_words` for how a message is shortened or only named by id.
    """
    kept = []
    for item_id in summary.kept_user_ids:
        if item_id > covered or item_id in shown:
            continue  # in the items verbatim anyway
        item = session.get(item_id)
        if item is None or item.get("type") != "user" or item.get("source") != "user":
            notices.append(
                translate("context", "kept user message #{id} is not a user message in the record; left out.").format(
                    id=item_id
                )
            )
            continue
        kept.append((item_id, item["content"]))
    _, total = kept_words_caps(window)
    return _fit_words(rank_kept(kept), total, counter)
