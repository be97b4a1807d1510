"""Where to cut: how many of the newest originals to keep, and how many items each summarizer call takes.

Keep between ``keep_min`` and ``keep_max`` of the newest items -- fewer than ``keep_max`` only
when needed to get under the threshold; fewer than ``keep_min`` only when even that would not fit
the window (minus a reply reserve). A kept tail never starts with a tool result whose call would
be covered: the cut moves to keep the call (keep more, never less).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def safe_keep(items: Sequence[dict[str, Any]], keep: int) -> int:
    """Grow ``keep`` until the first kept item does not depend on a covered tool call."""
    n = len(items)
    keep = max(0, min(keep, n))
    while 0 < keep < n:
        first = items[n - keep]
        before = items[n - keep - 1]
        if first.get("type") == "tool_result" or before.get("type") == "tool_call":
            keep += 1
            continue
        break
    return keep


def choose_keep(
    items: Sequence[dict[str, Any]],
    tokens: Sequence[int],
    *,
    fixed_tokens: int,
    threshold: int,
    limit: int,
    keep_min: int,
    keep_max: int,
) -> int:
    """How many of the newest ``items`` to keep when compressing now (``len(items)`` = nothing to cover).

    ``fixed_tokens`` is what the request costs besides these items (instructions with the summary
    budget, the new message, overhead); ``limit`` is the window minus the reply reserve.
    """
    n = len(items)
    suffix = [0] * (n + 1)  # suffix[k] = tokens of the newest k items
    for k in range(1, n + 1):
        suffix[k] = suffix[k - 1] + tokens[n - k]

    def cost(keep: int) -> int:
        return fixed_tokens + suffix[keep]

    floor = safe_keep(items, min(keep_min, n))
    for keep in range(min(keep_max, n), min(keep_min, n) - 1, -1):
        kept = safe_keep(items, keep)
        if cost(kept) < threshold:
            return kept
    if cost(floor) <= limit:
        return floor
    keep = min(keep_min, n)
    while keep > 0:
        keep -= 1
        kept = safe_keep(items, keep)
        if cost(kept) <= limit:
            return kept
    return safe_keep(items, 0)


def max_batch_tokens(window: int) -> int:
    """Bound on the items one summarizer call adds (beside its instructions, summary and kept words): a larger
    delta is fed in several calls."""
    return max(1500, min(8000, window // 4))


def _splits_pair(items: Sequence[dict[str, Any]], end: int) -> bool:
    """Whether a batch ending before ``items[end]`` would part a tool call from its result."""
    return 0 < end < len(items) and (
        items[end].get("type") == "tool_result" or items[end - 1].get("type") == "tool_call"
    )


def next_batch(items: Sequence[dict[str, Any]], cost: Callable[[dict[str, Any]], int], base: int, budget: int) -> int:
    """How many of ``items`` the next summarizer call takes: as many as fit ``budget`` beside ``base`` (what the
    call costs without them), at least one, and never ending between a tool call and its result."""
    used = base
    for end, item in enumerate(items):
        tokens = cost(item)
        if end and used + tokens > budget and not _splits_pair(items, end):
            return end
        used += tokens
    return len(items)
