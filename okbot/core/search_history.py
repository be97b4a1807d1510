"""The ``search_history`` tool: the model reads original detail from this session's whole record.

Covered items are included (that is the point: the summary is short, the record is not).
Terms are matched case-insensitively; items matching more terms rank first, newer before older.
Output is bounded: an excerpt per match and a cap on the whole result.
"""

from __future__ import annotations

import heapq
from typing import Any

from okbot.core.items import item_text
from okbot.core.tools import Tool, ToolContext, ToolOutcome

EXCERPT_CHARS = 320
OUTPUT_CAP_CHARS = 6000
DEFAULT_LIMIT = 8
MAX_LIMIT = 20

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "words to look for (case-insensitive)"},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
        "from_id": {"type": "integer", "description": "only items with id >= this"},
        "to_id": {"type": "integer", "description": "only items with id <= this"},
    },
    "required": ["query"],
}


def _excerpt(text: str, term: str) -> str:
    at = text.lower().find(term)
    start = max(0, at - EXCERPT_CHARS // 3) if at >= 0 else 0
    piece = " ".join(text[start : start + EXCERPT_CHARS].split())
    return ("…" if start else "") + piece + ("…" if start + EXCERPT_CHARS < len(text) else "")


def _int_arg(args: dict[str, Any], key: str, default: int | None) -> int | None:
    value = args.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise ValueError(f"{key} must be an integer")
    return int(value)


def search(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        return ToolOutcome("search_history needs a non-empty 'query' string.", ok=False)
    try:
        limit = _int_arg(args, "limit", DEFAULT_LIMIT)
        lo = _int_arg(args, "from_id", None)
        hi = _int_arg(args, "to_id", None)
    except ValueError as exc:
        return ToolOutcome(f"search_history: {exc}.", ok=False)
    limit = max(1, min(MAX_LIMIT, limit or DEFAULT_LIMIT))
    terms = sorted({t for t in query.lower().split() if t})
    best: list[tuple[int, int, dict[str, Any]]] = []  # min-heap of (score, id, item)
    for item in ctx.session.iter_items(lo, hi):
        if item.get("type") == "notice" or item.get("name") == "search_history":
            continue  # notices are for the user; earlier searches (and this one's own call) are noise
        text = item_text(item).lower()
        score = sum(1 for t in terms if t in text)
        if not score:
            continue
        entry = (score, item["id"], item)
        if len(best) < limit:
            heapq.heappush(best, entry)
        elif entry[:2] > best[0][:2]:
            heapq.heapreplace(best, entry)
    if not best:
        return ToolOutcome(f"No items in this session's record match {query!r}.")
    ranked = sorted(best, key=lambda e: (e[0], e[1]), reverse=True)
    # an edited or regenerated message's earlier version is still found, and said to be one
    on_branch = set(ctx.session.branch_ids(min(e[1] for e in ranked) - 1))
    lines = [f"{len(ranked)} match(es) for {query!r}, best first (ids refer to this session's record):"]
    used = len(lines[0])
    for _score, item_id, item in ranked:
        text = item_text(item)
        first = next((t for t in terms if t in text.lower()), terms[0])
        who = item.get("name") if item.get("type") in ("tool_call", "tool_result") else item.get("author")
        replaced = "" if item_id in on_branch else " (an earlier version, since replaced)"
        line = f"- #{item_id} {item.get('type')}{replaced} · {who} · {len(text):,} chars: {_excerpt(text, first)}"
        if used + len(line) > OUTPUT_CAP_CHARS:
            lines.append(f"(output capped at {OUTPUT_CAP_CHARS:,} chars; narrow the query or use from_id/to_id)")
            break
        lines.append(line)
        used += len(line)
    return ToolOutcome("\n".join(lines))


SEARCH_HISTORY = Tool(
    name="search_history",
    note="search this session's full record (including summarized items) for original detail; "
    "returns item ids and short excerpts",
    parameters=PARAMETERS,
    run=search,
    approval_key="tools.search_history.approval",
)
