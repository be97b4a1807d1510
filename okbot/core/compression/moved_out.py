"""The marked section for items moved out without the model, and the user's words it keeps verbatim.

When a request cannot fit and no summary can be written, the oldest items are covered with a plain
digest instead. The section says exactly which items moved out (``items #1–#34``) and which of them
still have a digest in it (the newest that fit its budget); for the older ones it says plainly that
only search_history finds them. An id is never dropped from the ranges, only its digest. The marker
line comes last, after the digests: a request cut of the section keeps the newest lines, so it keeps
the ranges too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from okbot.core.compression import structure
from okbot.core.digest import is_directive, item_digest, user_checklist

_MARKER = re.compile(r"^- items (?P<ranges>.+?) moved out without a summary")
_RANGE = re.compile(r"#(\d+)(?:–#(\d+))?")
_DIGEST = re.compile(r"^\s+- (#(\d+) .*)$")
_HEADING = f"## {structure.FALLBACK_SECTION}\n"
DIGEST_CHARS = 120

Range = tuple[int, int]


def parse(section: str) -> tuple[list[Range], dict[int, str]]:
    """``(ranges moved out, digest by item id)`` read back from a moved-out section."""
    ranges: list[Range] = []
    digests: dict[int, str] = {}
    for line in section.splitlines():
        marker = _MARKER.match(line)
        if marker:
            ranges += [(int(a), int(b or a)) for a, b in _RANGE.findall(marker.group("ranges"))]
            continue
        digest = _DIGEST.match(line)
        if digest:
            digests[int(digest.group(2))] = digest.group(1)
    return _merged(ranges), digests


def _merged(ranges: Sequence[Range]) -> list[Range]:
    out: list[Range] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _ranges_text(ranges: Sequence[Range]) -> str:
    parts = [f"#{a}–#{b}" if a != b else f"#{a}" for a, b in ranges]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _clipped(ranges: Sequence[Range], first: int) -> list[Range]:
    return [(max(a, first), b) for a, b in ranges if b >= first]


def _marker(ranges: Sequence[Range], shown_from: int | None, all_shown: bool) -> str:
    head = f"- items {_ranges_text(ranges)} moved out without a summary"
    if shown_from is None:
        return f"{head}; no room for their digests, search_history finds them."
    if all_shown:
        return f"{head}; a digest of each above (search_history finds the full text)."
    shown = _ranges_text(_clipped(ranges, shown_from))
    return f"{head}; digests of {shown} above, the older ones only by search_history."


def section(previous: str, moved: Sequence[dict[str, Any]], previous_covered: int, budget: int) -> str:
    """The moved-out section after moving ``moved`` out (everything after ``previous_covered`` up to the
    last of them), within ``budget`` characters if at all possible: the newest digests that fit, the
    ranges always whole (so the marker line alone may exceed a tiny budget rather than lose an id)."""
    ranges, digests = parse(previous)
    new = [it for it in moved if it["id"] > previous_covered]  # a call pulled in beside its result is covered
    if not new:
        return previous
    ranges = _merged([*ranges, (previous_covered + 1, new[-1]["id"])])
    for item in new:
        digests.setdefault(item["id"], item_digest(item, text_limit=DIGEST_CHARS))
    ids = sorted(digests, reverse=True)
    lines: list[str] = []
    text = _marker(ranges, None, False)
    for count, item_id in enumerate(ids, start=1):
        candidate = [f"  - {digests[item_id]}", *lines]
        marker = _marker(ranges, item_id, count == len(ids))
        if len(marker) + sum(len(line) + 1 for line in candidate) > budget:
            break
        lines, text = candidate, "\n".join([*candidate, marker])
    return text


def fit(summary: str, moved: Sequence[dict[str, Any]], previous_covered: int, max_chars: int) -> str:
    """``summary`` with ``moved`` added to its moved-out section, the whole within ``max_chars`` when the
    other sections leave room for at least the marker line."""
    sections, _ = structure.parse_sections(summary or structure.empty_summary())
    previous = sections.pop(structure.FALLBACK_SECTION, "")
    language = structure.heading_language(summary)
    rest = structure.render(sections, language)
    budget = max_chars - len(rest) - len("\n\n") - len(_HEADING)
    sections[structure.FALLBACK_SECTION] = section(previous, moved, previous_covered, budget)
    return structure.render(sections, language)


def kept_ids(kept: Sequence[int], moved: Sequence[dict[str, Any]], previous_covered: int) -> list[int]:
    """The user's words to keep verbatim when no model ticked any: the ones kept before, every message
    among ``moved`` that looks like a directive (ranked later, so chit-chat never pushes one out), and
    the user's first message when it is among them."""
    typed = user_checklist(list(moved))
    new = {it["id"] for it in typed if is_directive(it.get("content", ""))}
    if previous_covered == 0 and typed:
        new.add(typed[0]["id"])
    return sorted({*kept, *new})
