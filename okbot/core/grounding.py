"""Is a line the model proposes said in the items it cites? The checks memory and evolution share.

Small local models invent, and what they invent about the user is then recalled or obeyed for
weeks. So nothing a background model call proposes is kept on its word: it cites item ids, the
ids must be among the items it was given, its exact references (numbers, paths, URLs, names)
must occur in the cited items, and most of its content words must be there too.

Whose words count is the caller's rule; :func:`typed_by_user` tells the user's own messages from
a reply, a tool's output or another squad member's input. Answers are read with
:func:`json_object`, which takes the first JSON object in a reply (fenced or not) and never raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from okbot.core.compression.structure import ungrounded
from okbot.core.digest import item_digest

MIN_SUPPORT = 0.6  # a line must mostly be said in the items it cites, not just avoid invented numbers
STEM = 4
_FILLER = frozenset(
    "the user user's users they their them this that with from for and are was were has have had been will "
    "would should can could about into onto over under than then also just very wants want likes like said "
    "says prefers prefer asked asks told tells".split()
)
_WORD = re.compile(r"[A-Za-z][\w'-]*")
_CONTENT_WORD = re.compile(r"[a-z0-9][a-z0-9'-]{2,}")
_SAYS = re.compile(r"[^\W\d_]{2,}")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def says_something(text: str) -> bool:
    """Does ``text`` hold at least one word (not only "...", numbers or punctuation, as a template echoed back)?"""
    return bool(_SAYS.search(text))


def typed_by_user(item: dict[str, Any]) -> bool:
    """Is ``item`` a message the user typed (not a reply, a tool's output or another member's input)?"""
    return item.get("type") == "user" and item.get("source", "user") == "user"


def unsupported(text: str, items: Sequence[dict[str, Any]], *, min_support: float = MIN_SUPPORT) -> str:
    """Why ``items`` do not say ``text`` ("" when they do): an invented reference or name, or too little overlap."""
    source_texts = [full_text(it) for it in items]
    missing = ungrounded(text, source_texts)
    joined = "\n".join(source_texts).casefold()
    missing += [name for name in names(text) if name.casefold() not in joined]
    if missing:
        return f"not in the cited items: {', '.join(missing[:5])}"
    if support(text, joined) < min_support:
        return "the cited items do not say this"
    return ""


def support(text: str, source: str) -> float:
    """Share of ``text``'s content words (crudely stemmed) that ``source`` (casefolded) contains."""
    words = [w for w in _CONTENT_WORD.findall(text.casefold()) if w not in _FILLER]
    if not words:
        return 1.0
    stems = {w[:STEM] for w in _CONTENT_WORD.findall(source)}
    return sum(w[:STEM] in stems for w in words) / len(words)


def names(text: str) -> list[str]:
    """Capitalised words not at a sentence start: names the cited items must contain."""
    skip = {"The", "User", "Assistant", "I", "They", "He", "She", "It", "This", "That", "A", "An"}
    found = []
    for m in _WORD.finditer(text):
        word, before = m.group(0), text[: m.start()].rstrip()
        if word[0].isupper() and word not in skip and before and before[-1] not in ".!?:-*#":
            found.append(word)
    return found


def cited_kinds(items: Sequence[dict[str, Any]]) -> str:
    """What cited items are, in words ("assistant replies and tool output")."""
    kinds = {"assistant": "assistant replies", "tool_result": "tool output", "tool_call": "tool calls"}
    return " and ".join(dict.fromkeys(kinds.get(str(it.get("type")), "messages no person typed") for it in items))


def full_text(item: dict[str, Any]) -> str:
    """A message's whole text; a tool call or result as its digest."""
    return str(item.get("content") or "") if item.get("type") in ("user", "assistant") else item_digest(item)


def json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in a model's answer (inside a code fence or between the outer braces), or None."""
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        obj = json.loads(body[start : end + 1])
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def cited_ids(value: Any) -> set[int]:
    """Item ids from a ``from`` field: ints, ``"12"`` or ``"#12"``, one or a list."""
    ids = set()
    for v in as_list(value) if not isinstance(value, int) else [value]:
        if isinstance(v, str) and v.lstrip("#").isdigit():
            v = int(v.lstrip("#"))
        if isinstance(v, int) and not isinstance(v, bool):
            ids.add(v)
    return ids
