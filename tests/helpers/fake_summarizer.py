"""Scripted summarizers for the fake server: replies computed from the request the app sent.

``faithful`` revises the previous summary the way a careful model would (keeps every section and
goal, adds one progress line, ticks every checklist id). Tests compose faults on top of it.
"""

from __future__ import annotations

import re
from typing import Any

from okbot.core.compression import structure
from tests.helpers.fake_openai import Reply

TOPIC_QUESTION = "Answer with one word: yes or no."


_HEADER = re.compile(r"^(PREVIOUS SUMMARY|NEWLY COVERED ITEMS|CHECKLIST)[^\n]*:$", re.MULTILINE)


def request_parts(body: dict[str, Any]) -> dict[str, str]:
    """PREVIOUS SUMMARY / NEWLY COVERED ITEMS / CHECKLIST blocks of a summarizer request."""
    text = next(m["content"] for m in body["messages"] if m["role"] == "user")
    marks = list(_HEADER.finditer(text))
    return {m.group(1): text[m.end(): marks[i + 1].start() if i + 1 < len(marks) else len(text)].strip()
            for i, m in enumerate(marks)}


def is_summarizer_request(body: dict[str, Any]) -> bool:
    return any("PREVIOUS SUMMARY:" in (m.get("content") or "") for m in body.get("messages", []))


def faithful_text(body: dict[str, Any], *, goal: str | None = None) -> str:
    parts = request_parts(body)
    sections, _ = structure.parse_sections(parts["PREVIOUS SUMMARY"])
    sections.pop(structure.FALLBACK_SECTION, None)
    covered = parts["NEWLY COVERED ITEMS"].splitlines()
    users = [ln.split(": ", 1)[1] for ln in covered if " user: " in ln]
    goals = sections.get("Goals", "")
    # a careful model records the first request as a goal, and every message that says it sets one
    new_goals = [goal] if goal else []
    new_goals += [u for u in users if re.match(r"(goal|new topic)\b", u, re.IGNORECASE)]
    if not new_goals and users and "[active]" not in goals:
        new_goals = [users[0]]
    for text in new_goals:
        line = f"- [active] {text[:80]}"
        goals = line if goals.strip() in ("", structure.EMPTY_BODY) else goals + "\n" + line
    sections["Goals"] = goals
    progress = sections.get("Progress and next steps", "")
    step = "- folded older conversation into this summary"
    sections["Progress and next steps"] = step if progress.strip() in ("", structure.EMPTY_BODY) else progress
    ids = re.findall(r"^\[(\d+)\]", parts["CHECKLIST"], re.MULTILINE)
    return structure.render(sections) + f"\nKEEP: {', '.join(ids) if ids else 'none'}"


def faithful(body: dict[str, Any]) -> Reply:
    """A careful summarizer (and a topic check that always says 'no')."""
    if is_summarizer_request(body):
        return Reply(text=faithful_text(body))
    if TOPIC_QUESTION in body["messages"][-1]["content"]:
        return Reply(text="no")
    return Reply(text="ok")
