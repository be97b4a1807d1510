"""Scripted persona and skill upkeep for the fake server: answers computed from the upkeep request.

``teacher`` behaves like a careful model: a user message that sets a lasting rule ("from now on …",
"always …", "never …", "you may …") becomes an ADD of that sentence citing the message; a message
that teaches a procedure ("when I say ship it: 1) …, 2) …") becomes a skill with those steps. It
answers as JSON when the request asks for a schema and as lines otherwise, as a real server would.
``reckless`` proposes what the checks must refuse: instructions taken from an assistant's reply,
a widened permission, an invented number, a hand-written line removed. :func:`teach` has a chat
teach an assistant for real (the server answering as ``teacher``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from okbot.core.evolution.store import LogEntry
from okbot.core.evolution.upkeep import Upkeep
from okbot.core.items import new_item, user_message
from okbot.core.workspace import Target
from tests.helpers.fake_memory import with_summaries
from tests.helpers.fake_openai import Reply

LESSONS = (
    "From now on, always answer in British English.",
    "When I say ship it: 1) run make test, 2) tag the release, 3) push the tag.",
)

_ITEM = re.compile(r"^\[#(\d+) (\w+)\] (.*)$", re.MULTILINE)
_RULE = re.compile(r"(?i)\b(from now on|always|never|you may|don't|do not)\b")
_PROCEDURE = re.compile(r"(?i)when I say ([\w -]+?):\s*(.*)$")
_STEP = re.compile(r"\d\)\s*([^,;]+?)(?=,?\s*\d\)|[.;]?\s*$)")


def is_persona_request(body: dict[str, Any]) -> bool:
    return "persona file (SOUL.md)" in _system(body)


def is_skill_request(body: dict[str, Any]) -> bool:
    return "into skills" in _system(body)


def is_upkeep_request(body: dict[str, Any]) -> bool:
    return is_persona_request(body) or is_skill_request(body)


def items(body: dict[str, Any]) -> list[tuple[int, str, str]]:
    """``(id, who, text)`` of each conversation item an upkeep request shows."""
    text = body["messages"][-1]["content"].split("NEW CONVERSATION ITEMS:", 1)[-1]
    return [(int(m.group(1)), m.group(2), m.group(3)) for m in _ITEM.finditer(text)]


def soul_lines(body: dict[str, Any]) -> list[tuple[int, str]]:
    text = body["messages"][-1]["content"].split("NEW CONVERSATION ITEMS:", 1)[0]
    return [(int(n), line) for n, line in re.findall(r"^L(\d+): (.*)$", text, re.MULTILINE)]


def _system(body: dict[str, Any]) -> str:
    return next((m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "system"), "")


def _structured(body: dict[str, Any]) -> bool:
    return (body.get("response_format") or {}).get("type") == "json_schema"


def persona_edits(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The ADDs a careful model proposes: each rule sentence the user wrote, copied."""
    shown = {" ".join(line.lstrip("-* ").split()).casefold() for _n, line in soul_lines(body)}
    edits = []
    for item_id, who, text in items(body):
        if who != "user" or _PROCEDURE.search(text):
            continue
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            if _RULE.search(sentence) and " ".join(sentence.split()).casefold() not in shown:
                edits.append({"op": "add", "section": "Style", "line": 0, "text": sentence, "from": [item_id]})
    return edits


def skill_proposals(body: dict[str, Any]) -> list[dict[str, Any]]:
    proposals = []
    for item_id, who, text in items(body):
        match = _PROCEDURE.search(text) if who == "user" else None
        if match is None:
            continue
        steps = [s.strip() for s in _STEP.findall(match.group(2))]
        name = "-".join(match.group(1).split()).casefold()
        description = f"What to do when the user says {match.group(1).strip()}."
        proposals.append({"name": name, "description": description, "steps": steps, "from": [item_id]})
    return proposals


def _as_lines_persona(edits: list[dict[str, Any]]) -> str:
    out = []
    for e in edits:
        ids = " ".join(f"#{i}" for i in e["from"])
        if e["op"] == "add":
            out.append(f"ADD {e['section']}: {e['text']} {ids}")
        elif e["op"] == "change":
            out.append(f"CHANGE L{e['line']}: {e['text']} {ids}")
        else:
            out.append(f"REMOVE L{e['line']} {ids}")
    return "\n".join(out) or "NONE"


def _as_lines_skills(proposals: list[dict[str, Any]]) -> str:
    blocks = []
    for p in proposals:
        ids = " ".join(f"#{i}" for i in p["from"])
        steps = "\n".join(f"{n}. {s}" for n, s in enumerate(p["steps"], 1))
        blocks.append(f"SKILL {p['name']}: {p['description']} {ids}\n{steps}\nEND")
    return "\n".join(blocks) or "NONE"


def answer(body: dict[str, Any], edits: list[dict[str, Any]], proposals: list[dict[str, Any]]) -> Reply:
    if is_persona_request(body):
        text = json.dumps({"edits": edits}) if _structured(body) else _as_lines_persona(edits)
    else:
        text = json.dumps({"skills": proposals}) if _structured(body) else _as_lines_skills(proposals)
    return Reply(text=text)


def teacher(body: dict[str, Any]) -> Reply:
    """Upkeep -> careful edits and skills; everything else as ``fake_memory.with_summaries``."""
    if not is_upkeep_request(body):
        return with_summaries(body)
    return answer(body, persona_edits(body), skill_proposals(body))


def reckless(body: dict[str, Any]) -> Reply:
    """Upkeep -> the careful edits plus ones every check must refuse."""
    if not is_upkeep_request(body):
        return with_summaries(body)
    shown = items(body)
    replies = [i for i, who, _ in shown if who == "assistant"]
    users = [i for i, who, _ in shown if who == "user"]
    bad: list[dict[str, Any]] = []
    if replies:
        bad.append({"op": "add", "section": "Style", "line": 0, "text": "Deploy on Fridays.", "from": replies[:1]})
    if users:
        granting = [(i, text) for i, who, text in shown if who == "user" and " may " in f" {text} "]
        if granting:  # the user allowed one thing: the model widens it
            widened = re.sub(r"\s*\S*\d\S*", "", re.sub(r"\bthe\b", "any", granting[0][1]))
            if widened == granting[0][1]:
                widened = widened.replace("may ", "may do anything, and ", 1)
            bad.append({"op": "add", "section": "", "line": 0, "text": widened, "from": [granting[0][0]]})
        bad.append({"op": "add", "section": "", "line": 0, "text": "Keep replies under 17 words.", "from": users[:1]})
        hand = [n for n, line in soul_lines(body) if line.strip() and not line.startswith("#")]
        if hand:
            bad.append({"op": "remove", "section": "", "line": hand[0], "text": "", "from": users[:1]})
    skills = skill_proposals(body)
    if users:
        skills.append(
            {"name": "wipe", "description": "Wipe the disk.", "steps": ["rm -rf /"], "from": replies[:1] or users[:1]}
        )
    return answer(body, persona_edits(body) + bad, skills)


def teach(
    sources: Any, provider: Any, target: Target, lessons: tuple[str, ...] = LESSONS, *, land: bool = True
) -> list[LogEntry]:
    """``lessons`` said in ``target``'s chat (each answered "ok"), then upkeep at a boundary: what the model
    proposed is checked and staged for real, and landed with ``land`` (returns the applied changes).
    With :data:`LESSONS` and the server answering as :func:`teacher`: a persona line citing #1 and the
    skill ship-it citing #3."""
    store = sources.session(target)
    for text in lessons:
        store.append(user_message(text))
        store.append(new_item("assistant", author=target.id, source="app", content="ok", status="complete"))
    Upkeep(sources, provider).run(target, boundary=True)
    return sources.evolution.land(target) if land else []
