"""The structured summary: fixed sections, goal entries with status, and the checks a new one must pass.

A summary is Markdown with exactly these ``## `` sections, in this order::

    ## Goals                     - [active|done|withdrawn] goal (queue: how far it got)
    ## Agreements                how to report, what the assistant may decide alone
    ## Decisions                 decision — reason
    ## Progress and next steps
    ## References                exact paths, ids, numbers, URLs

plus, only when the app had to move items out without the model, a marked
``## Moved out without summarizing`` section of plain digests (the next summary folds it in).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SECTIONS = ("Goals", "Agreements", "Decisions", "Progress and next steps", "References")
FALLBACK_SECTION = "Moved out without summarizing"
UNCHANGED = "(unchanged)"
EMPTY_BODY = "- (none yet)"
GOAL_STATUSES = ("active", "done", "withdrawn")

_HEADING = re.compile(r"^##\s+(.+?)\s*$")
_GOAL = re.compile(r"^\s*[-*]\s*\[(\w+)\]\s*(.+)$")
# Numbers of two or more digits (with separators: 4,417 · 1.2.3 · 10:30). Bare single digits are
# exempt on purpose: counts the summarizer writes itself ("2 of 5 done") are legitimate, while
# exact references (ids, PRs, ports, versions, sizes) have more digits.
_NUMBER = re.compile(r"(?<![\d.,_:/-])\d[\d,._:/-]*\d(?!\d)")
_ITEM_REF = re.compile(r"#\d+")
_URL = re.compile(r"https?://[^\s)\]>\"']+")
_PATH = re.compile(
    r"(?<![\w:/])(?:~|\.{1,2})?/?(?:[\w@.+-]+/)+[\w@.+-]+|\b[\w-]+\.(?:py|js|ts|tsx|jsx|json|md|txt|"
    r"yml|yaml|toml|ini|cfg|sh|rs|go|java|c|h|cpp|hpp|cs|rb|php|html|css|sql|csv|lock|xml)\b"
)


def empty_summary() -> str:
    return "\n\n".join(f"## {name}\n{EMPTY_BODY}" for name in SECTIONS)


def parse_sections(text: str) -> tuple[dict[str, str], list[str]]:
    """``(section name -> body, problems)``; problems name text outside sections and unknown headings."""
    sections: dict[str, str] = {}
    problems: list[str] = []
    current: str | None = None
    body: list[str] = []
    outside: list[str] = []

    def close() -> None:
        if current is not None:
            sections[current] = "\n".join(body).strip()

    for line in text.strip().splitlines():
        match = _HEADING.match(line)
        if match:
            close()
            name = match.group(1).strip().rstrip(":")
            canonical = next((s for s in (*SECTIONS, FALLBACK_SECTION) if s.lower() == name.lower()), None)
            if canonical is None:
                problems.append(f"unknown section '## {name}' (only {', '.join(SECTIONS)} are allowed)")
                current, body = None, []
                continue
            if canonical in sections:
                problems.append(f"section '## {canonical}' appears twice")
            current, body = canonical, []
        elif current is None:
            if line.strip():
                outside.append(line.strip())
        else:
            body.append(line)
    close()
    if outside:
        problems.append(f"text outside the sections: {outside[0][:60]!r}")
    return sections, problems


def render(sections: dict[str, str]) -> str:
    """Canonical order; empty sections get a placeholder so every heading stays."""
    names = [*SECTIONS, *([FALLBACK_SECTION] if sections.get(FALLBACK_SECTION) else [])]
    return "\n\n".join(f"## {name}\n{sections.get(name) or EMPTY_BODY}" for name in names)


def goal_entries(body: str) -> list[tuple[str, str]]:
    """``(status, text)`` per goal line; a status outside GOAL_STATUSES is returned as is."""
    return [(m.group(1).lower(), m.group(2).strip()) for m in map(_GOAL.match, body.splitlines()) if m]


def references(text: str) -> set[str]:
    """Exact references in ``text``: multi-digit numbers, #ids, URLs and paths."""
    refs = {m.group(0).rstrip(".,;:") for m in _URL.finditer(text)}
    without_urls = _URL.sub(" ", text)
    refs |= {m.group(0) for m in _ITEM_REF.finditer(without_urls)}
    refs |= {m.group(0).rstrip(".,;:") for m in _PATH.finditer(without_urls)}
    refs |= {m.group(0) for m in _NUMBER.finditer(_ITEM_REF.sub(" ", without_urls))}
    return refs


def ungrounded(new_text: str, sources: Iterable[str]) -> list[str]:
    """References in ``new_text`` that occur in none of ``sources`` (invented or altered)."""
    source = "\n".join(sources)
    # the source side is read generously: "T-103" grounds a bare "103", "v1.2.3" grounds "1.2.3"
    known = references(source) | set(re.findall(r"\d[\d,._:/-]*\d|\d", source))
    missing = []
    for ref in sorted(references(new_text)):
        if ref in known:
            continue
        if not ref[0].isdigit() and not ref.startswith("#") and ref in source:
            continue  # a path or URL that occurs verbatim, even if the source tokenised it differently
        missing.append(ref)
    return missing


def check(new_text: str, previous_text: str, *, max_chars: int, sources: Iterable[str]) -> list[str]:
    """Every problem with ``new_text`` as the revision of ``previous_text`` (empty list: accept)."""
    if not new_text.strip():
        return ["the summary is empty"]
    problems = []
    if len(new_text) > max_chars:
        problems.append(f"the summary is {len(new_text):,} characters; the limit is {max_chars:,}")
    sections, parse_problems = parse_sections(new_text)
    problems.extend(parse_problems)
    missing = [name for name in SECTIONS if name not in sections]
    if missing:
        problems.append(f"missing section(s): {', '.join('## ' + m for m in missing)}")
    new_goals = goal_entries(sections.get("Goals", ""))
    bad_status = sorted({s for s, _ in new_goals if s not in GOAL_STATUSES})
    if bad_status:
        problems.append(f"goal status must be one of {', '.join(GOAL_STATUSES)}, got {', '.join(bad_status)}")
    old_goals = goal_entries(parse_sections(previous_text)[0].get("Goals", "")) if previous_text else []
    if len(new_goals) < len(old_goals):
        problems.append(
            f"the Goals section has {len(new_goals)} entries, fewer than the {len(old_goals)} before; "
            "goals are never deleted, only marked done or withdrawn"
        )
    invented = ungrounded(new_text, [previous_text, *sources])
    if invented:
        problems.append(
            "these references occur neither in the previous summary nor in the covered items "
            f"(copy exact references exactly, invent none): {', '.join(invented[:12])}"
        )
    return problems


def merge_unchanged(new_text: str, previous_text: str) -> str:
    """Replace sections the summarizer marked ``(unchanged)`` by the previous text, word for word."""
    new_sections, _ = parse_sections(new_text)
    old_sections, _ = parse_sections(previous_text) if previous_text else ({}, [])
    if not any(body.strip() == UNCHANGED for body in new_sections.values()):
        return new_text
    merged = {}
    for name, body in new_sections.items():
        merged[name] = old_sections.get(name, EMPTY_BODY) if body.strip() == UNCHANGED else body
    return render(merged)
