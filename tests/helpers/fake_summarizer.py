"""Scripted summarizers for the fake server: replies computed from the request the app sent.

``faithful`` answers with the edits a careful model would send (a goal citing the user's message
that set it, one progress line, every checklist id ticked), as JSON when the request asks for a
schema and as lines otherwise. Tests compose faults on top of it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.helpers.fake_openai import Reply

TOPIC_QUESTION = "Answer with one word: yes or no."


_HEADER = re.compile(r"^(PREVIOUS SUMMARY|NEWLY COVERED ITEMS|CHECKLIST)[^\n]*:$", re.MULTILINE)


def request_parts(body: dict[str, Any]) -> dict[str, str]:
    """PREVIOUS SUMMARY / NEWLY COVERED ITEMS / CHECKLIST blocks of a summarizer request."""
    text = next(m["content"] for m in body["messages"] if m["role"] == "user")
    marks = list(_HEADER.finditer(text))
    return {
        m.group(1): text[m.end() : marks[i + 1].start() if i + 1 < len(marks) else len(text)].strip()
        for i, m in enumerate(marks)
    }


def is_summarizer_request(body: dict[str, Any]) -> bool:
    return any("PREVIOUS SUMMARY:" in (m.get("content") or "") for m in body.get("messages", []))


def covered_users(body: dict[str, Any]) -> list[tuple[int, str]]:
    """``(id, text)`` of the messages the user typed among the newly covered items of a request."""
    out = []
    for line in request_parts(body).get("NEWLY COVERED ITEMS", "").splitlines():
        match = re.match(r"#(\d+) user: (.*)$", line)
        if match:
            out.append((int(match.group(1)), match.group(2)))
    return out


def faithful_edits(body: dict[str, Any]) -> dict[str, Any]:
    """The edits a careful model sends (the JSON schema's fields): the first request, and every message
    that says it sets a goal, become goals citing that message; one progress line; every checklist id ticked."""
    parts = request_parts(body)
    has_active = "[active]" in parts["PREVIOUS SUMMARY"]
    users = covered_users(body)
    new_goals = [{"goal": t[:80], "set_by": i} for i, t in users if re.match(r"(goal|new topic)\b", t, re.IGNORECASE)]
    if not new_goals and users and not has_active:
        new_goals = [{"goal": users[0][1][:80], "set_by": users[0][0]}]
    ids = [int(i) for i in re.findall(r"^\[(\d+)\]", parts["CHECKLIST"], re.MULTILINE)]
    system = next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
    chinese = "in Simplified Chinese" in system  # it writes in the language it is asked for, as a real model does
    return {
        "new_goals": new_goals,
        "goal_status": [],
        "agreements": [],
        "decisions": [],
        "progress": ["已将较早的对话并入本摘要" if chinese else "folded older conversation into this summary"],
        "drop_progress": [],
        "references": [],
        "keep": ids,
        "release": [],
    }


def as_lines(edits: dict[str, Any]) -> str:
    """The same edits in the text format (what a server without JSON schemas gets)."""
    lines = [f"GOAL: {g['goal']} #{g['set_by']}" for g in edits["new_goals"]]
    lines += [f"GOAL {s['goal']}: {s['status']} #{s['because']}" for s in edits["goal_status"]]
    for key, word in (
        ("agreements", "AGREEMENT"),
        ("decisions", "DECISION"),
        ("progress", "PROGRESS"),
        ("references", "REFERENCE"),
    ):
        lines += [f"{word}: {text}" for text in edits[key]]
    if edits["drop_progress"]:
        lines.append(f"DROP PROGRESS: {', '.join(map(str, edits['drop_progress']))}")
    lines.append(f"KEEP: {', '.join(map(str, edits['keep'])) or 'none'}")
    lines.append(f"RELEASE: {', '.join(map(str, edits['release'])) or 'none'}")
    return "\n".join(lines)


def faithful_text(body: dict[str, Any]) -> str:
    """A careful summarizer's answer in the text format."""
    return as_lines(faithful_edits(body))


def faithful(body: dict[str, Any]) -> Reply:
    """A careful summarizer (JSON when the request asks for a schema, else lines), and a topic check
    that always says 'no'."""
    if is_summarizer_request(body):
        edits = faithful_edits(body)
        return Reply(text=json.dumps(edits) if body.get("response_format") else as_lines(edits))
    if TOPIC_QUESTION in body["messages"][-1]["content"]:
        return Reply(text="no")
    return Reply(text="ok")
