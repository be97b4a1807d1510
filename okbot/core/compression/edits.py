"""The summarizer's answer as edits: what changed, read from JSON or from lines, checked, applied by the app.

The model never rewrites the summary. It names new lines per section, goal status changes by goal
number, Progress lines to drop, and the KEEP/RELEASE ticks of the user-message checklist; the app
applies them, so every line not named stays byte for byte. Each edit is checked on its own: a bad
one is refused (and named), the others still apply. No edit reaches what the app keeps from the record
(its sections, :data:`structure.APP_SECTIONS`, and the marked lines in Goals, which goal numbers skip),
and a line the model writes never carries the app's mark.

Two ways to answer, parsed whichever arrives:

* JSON under :data:`SCHEMA` (requested with :data:`RESPONSE_FORMAT` where the server has it), and
* lines a 1.5B model can write (``GOAL: … #14``, ``GOAL 2: done``, ``DECISION: …``,
  ``DROP PROGRESS: 3``, ``KEEP: 4, 9``; see :data:`TEXT_FORMAT`), also inside code fences or with
  ``## Section`` headings followed by ``- line`` bullets.

Parsing is bounded: an answer over twice the summary limit is refused unread, and JSON nested deeper
than :data:`MAX_JSON_DEPTH` is refused before it is decoded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from okbot.core.compression import structure
from okbot.core.items import item_text, preview

PROGRESS = "Progress and next steps"
# The sections an edit may add plain lines to (Goals have their own edits).
LINE_SECTIONS = ("Agreements", "Decisions", PROGRESS, "References")
MAX_JSON_DEPTH = 6
MAX_JSON_STARTS = 20
MAX_LINE_CHARS = 400

TEXT_FORMAT = """GOAL: <a goal the user set> #<id of the user's message that set it>
GOAL <number>: done | withdrawn | active #<id of the newly covered item that shows it>
AGREEMENT: <how to report, what the assistant may decide alone, a permission or a prohibition>
DECISION: <decision — reason>
PROGRESS: <what got done, what comes next>
DROP PROGRESS: <numbers of progress lines that are out of date>
REFERENCE: <an exact path, id, number, URL or name>
KEEP: <checklist ids to keep verbatim> (or KEEP: none)
RELEASE: <checklist ids to release> (or RELEASE: none)"""

_STRINGS = {"type": "array", "items": {"type": "string"}}
_NUMBERS = {"type": "array", "items": {"type": "integer"}}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "new_goals": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"goal": {"type": "string"}, "set_by": {"type": "integer"}},
                "required": ["goal", "set_by"],
                "additionalProperties": False,
            },
        },
        "goal_status": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "goal": {"type": "integer"},
                    "status": {"type": "string", "enum": list(structure.GOAL_STATUSES)},
                    "because": {"type": "integer"},
                },
                "required": ["goal", "status", "because"],
                "additionalProperties": False,
            },
        },
        "agreements": _STRINGS,
        "decisions": _STRINGS,
        "progress": _STRINGS,
        "drop_progress": _NUMBERS,
        "references": _STRINGS,
        "keep": _NUMBERS,
        "release": _NUMBERS,
    },
    "required": [
        "new_goals",
        "goal_status",
        "agreements",
        "decisions",
        "progress",
        "drop_progress",
        "references",
        "keep",
        "release",
    ],
    "additionalProperties": False,
}
RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {"name": "summary_edits", "strict": True, "schema": SCHEMA},
}
_JSON_SECTIONS = {
    "agreements": "Agreements",
    "decisions": "Decisions",
    "progress": PROGRESS,
    "references": "References",
}

_BULLET = re.compile(r"^\s*(?:[-*•]\s+|\*\*|__)?")
# KEEP/RELEASE/DROP need a colon or bare numbers after them: "keep the old ids" is a line, not a tick
_IDS_LINE = re.compile(r"^(KEEP|RELEASE)\s*(?:[:=](.*)|\s(#?\d+(?:[\s,;]+#?\d+)*|none)\W*)$", re.IGNORECASE)
_DROP = re.compile(r"^DROP(?:\s+PROGRESS)?(?:\s+LINES?)?[\s:=]*([P#]?\d+(?:[\s,;]+[P#]?\d+)*|none)\W*$", re.IGNORECASE)
_CITED = re.compile(r"#(\d{1,9})\b")
_STATUS = re.compile(
    r"^GOAL\s*(?:#|G|NO\.?\s*)?(\d{1,3})\b\W*(?:(?:is|now|marked|as|set|to)\b\W*)*(active|done|withdrawn)\b",
    re.IGNORECASE,
)
_ADD = re.compile(
    r"^(?:ADD|NEW)?\s*(goals?|agreements?|decisions?|progress(?: and next steps)?|references?)"
    r"\s*[:=—-]\s*(.+)$",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^#{1,6}(?!\d)(.*)$")
_NUMBERED = re.compile(r"^\s*(\d{1,3})[.)]\s*(.*)$")
_GOAL_LINE = re.compile(r"^\[(\w+)\]\s*(.+)$")
_CITATION = re.compile(r"\(?(?:\s*(?:set\s+(?:by|in)|from|by|per|see))?\s*#(\d+)\s*\)?", re.IGNORECASE)
_NOTHING = re.compile(r"^(?:no (?:changes?|edits?)|nothing(?: (?:new|changed))?|none)\W*$", re.IGNORECASE)
_FENCE = re.compile(r"^`{3,}.*$")


@dataclass
class NewGoal:
    """A goal to add; ``cited`` is the id of the user's message that set it (None: no citation)."""

    text: str
    cited: int | None


@dataclass
class Edits:
    """What the summarizer says changed (``keep`` is None when the answer had no KEEP tick at all)."""

    goals: list[NewGoal] = field(default_factory=list)
    status: list[tuple[int, str, int | None]] = field(default_factory=list)  # (goal number, status, cited #id)
    lines: dict[str, list[str]] = field(default_factory=dict)
    drop_progress: list[int] = field(default_factory=list)
    keep: list[int] | None = None
    release: list[int] = field(default_factory=list)

    def add_line(self, section: str, text: str) -> None:
        """Queue ``text`` as a new line of ``section`` (blank and placeholder lines are ignored)."""
        text = structure.without_record_notes(text).strip()
        if text and text.lower() not in ("(none)", "(none yet)", "(unchanged)", "none", "n/a"):
            self.lines.setdefault(section, []).append(text)


def parse_answer(text: str, *, max_chars: int) -> tuple[Edits | None, list[str]]:
    """``(edits, [])`` from a JSON or line answer, or ``(None, why it cannot be read)``."""
    body = (text or "").strip()
    if not body:
        return None, ["the answer is empty"]
    if len(body) > 2 * max_chars:
        return None, [f"the answer is {len(body):,} characters, over twice the summary limit ({max_chars:,})"]
    start = body.find("{")
    if start >= 0 and (depth := _json_depth(body[start:])) > MAX_JSON_DEPTH:
        return None, [f"the JSON answer nests {depth} levels deep; the edits need at most 3"]
    decoder = json.JSONDecoder()
    for _ in range(MAX_JSON_STARTS):  # the first object with the schema's fields, prose around it or not
        if start < 0:
            break
        try:
            value, _end = decoder.raw_decode(body, start)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict) and set(value) & set(SCHEMA["properties"]):
            return _from_json(value)
        start = body.find("{", start + 1)
    edits, problems = _from_lines(body)
    if edits is None and body.lstrip("`json \n").startswith("{"):
        return None, [f"the JSON answer has none of the fields {', '.join(SCHEMA['properties'])}"]
    return edits, problems


def _json_depth(text: str) -> int:
    """The deepest bracket nesting in ``text`` outside JSON strings (a linear scan, no recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "}]":
            depth = max(0, depth - 1)
    return deepest


def _ints(value: Any) -> list[int]:
    """Integers in a JSON value or a line ("4, 9", "P3", [4, "9"]); anything else is skipped."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, str):
        return [int(x) for x in re.findall(r"\d{1,9}", value)]
    if isinstance(value, list):
        return [n for v in value[:200] for n in _ints(v) if not isinstance(v, list)]
    return []


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value[:200] if isinstance(v, str)]
    return []


def _from_json(obj: dict[str, Any]) -> tuple[Edits, list[str]]:
    edits = Edits()
    for entry in obj.get("new_goals") or []:
        if isinstance(entry, dict):
            cited = _ints(entry.get("set_by"))
            edits.goals.append(_new_goal(str(entry.get("goal") or ""), cited[0] if cited else None))
        elif isinstance(entry, str):
            edits.goals.append(_goal_from_text(entry))
    for entry in obj.get("goal_status") or []:
        if isinstance(entry, dict):
            number, cited = _ints(entry.get("goal")), _ints(entry.get("because"))
            if number:
                status = str(entry.get("status") or "").strip().lower()
                edits.status.append((number[0], status, cited[0] if cited else None))
    for key, section in _JSON_SECTIONS.items():
        for line in _strings(obj.get(key)):
            edits.add_line(section, line)
    edits.drop_progress = _ints(obj.get("drop_progress"))
    edits.keep = _ints(obj["keep"]) if "keep" in obj else None
    edits.release = _ints(obj.get("release"))
    edits.goals = [g for g in edits.goals if g.text]
    return edits, []


def _new_goal(text: str, cited: int | None) -> NewGoal:
    return NewGoal(structure.without_record_notes(text).strip(" .;"), cited)


def _goal_from_text(text: str) -> NewGoal:
    """A goal written on one line; its citation is the last ``#id`` in it, taken out of the text."""
    citations = list(_CITATION.finditer(text))
    if not citations:
        return _new_goal(text, None)
    last = citations[-1]
    return _new_goal(text[: last.start()] + " " + text[last.end() :], int(last.group(1)))


def _section_named(name: str) -> str | None:
    canonical = structure.canonical_section(name)
    if canonical is not None:
        return canonical
    low = name.strip().lower()
    if low.startswith("goal"):
        return "Goals"
    if low.startswith(("progress", "next")):
        return PROGRESS
    low = low.rstrip("s")
    return next((s for s in LINE_SECTIONS if s.lower().rstrip("s") == low), None)


def _from_lines(body: str) -> tuple[Edits | None, list[str]]:
    edits = Edits()
    recognised = 0
    section: str | None = None  # after a "## Section" heading, bullets are new lines of that section
    for raw in body.splitlines():
        if _FENCE.match(raw.strip()):
            continue
        heading = _HEADING.match(raw.strip())
        if heading:
            section = _section_named(heading.group(1).strip().rstrip(":"))
            recognised += section is not None
            continue
        line = _BULLET.sub("", raw.strip(), count=1).replace("**", "").strip()
        if not line:
            continue
        if _read_line(edits, line) or ((numbered := _NUMBERED.match(line)) and _read_line(edits, numbered.group(2))):
            recognised += 1
            section = None
        elif section is not None and raw.lstrip()[:1] in "-*•0123456789[":
            recognised += _read_bullet(edits, section, line)
    if not recognised:
        return None, [
            "no edit found: start each line with GOAL, AGREEMENT, DECISION, PROGRESS, REFERENCE, "
            "DROP PROGRESS, KEEP or RELEASE"
        ]
    return edits, []


def _read_line(edits: Edits, line: str) -> bool:
    """Apply one protocol line to ``edits``; False when the line is not one."""
    if match := _IDS_LINE.match(line):
        raw = match.group(2) if match.group(2) is not None else match.group(3)
        ids = [] if raw.strip().lower().startswith("none") else _ints(raw)
        if match.group(1).upper() == "KEEP":
            edits.keep = [*(edits.keep or []), *ids]
        else:
            edits.release += ids
    elif match := _DROP.match(line):
        edits.drop_progress += _ints(match.group(1))
    elif match := _STATUS.match(line):
        cited = _CITED.search(line[match.end() :])
        edits.status.append((int(match.group(1)), match.group(2).lower(), int(cited.group(1)) if cited else None))
    elif match := _ADD.match(line):
        section = _section_named(match.group(1))
        if section == "Goals":
            goal = _goal_from_text(match.group(2))
            if goal.text:
                edits.goals.append(goal)
        elif section is not None:
            edits.add_line(section, match.group(2))
    else:
        return bool(_NOTHING.match(line))
    return True


def _read_bullet(edits: Edits, section: str, line: str) -> bool:
    """A bullet under a ``## Section`` heading: a new line, or (numbered goal) a status change."""
    numbered = _NUMBERED.match(line)
    if section == "Goals":
        if numbered and (goal := _GOAL_LINE.match(numbered.group(2))):
            cited = _CITED.search(goal.group(2))
            edits.status.append((int(numbered.group(1)), goal.group(1).lower(), int(cited.group(1)) if cited else None))
            return True
        goal = _GOAL_LINE.match(line)
        text = goal.group(2) if goal else line
        edits.goals.append(_goal_from_text(text))
        return True
    if numbered:  # an echo of a numbered progress line: it stays as it is
        return True
    edits.add_line(section, line)
    return True


# -- checking and applying ----------------------------------------------------------------------


def numbered_view(summary: str) -> str:
    """The summary as the model sees it: its goals and progress lines numbered for its edits.

    The app's own lines in Goals are shown unnumbered (no edit can name them), and the sections the
    app keeps from the record are left out: the model has no edit for them, and a small model reads less.
    """
    sections, _ = structure.parse_sections(summary or structure.empty_summary())
    for name in structure.APP_SECTIONS:
        sections.pop(name, None)
    goals, number = [], 0
    for line in _body_lines(sections.get("Goals", "")):
        if structure.is_app_line(line):
            goals.append(line)
        else:
            number += 1
            goals.append(f"{number}. {_BULLET.sub('', line, count=1)}")
    sections["Goals"] = "\n".join(goals)
    lines = _body_lines(sections.get(PROGRESS, ""))
    sections[PROGRESS] = "\n".join(f"{n}. {_BULLET.sub('', ln, count=1)}" for n, ln in enumerate(lines, start=1))
    return structure.render(sections, structure.heading_language(summary))


def _body_lines(body: str) -> list[str]:
    return [ln for ln in body.splitlines() if ln.strip() and not structure.is_empty_body(ln)]


def _same(a: str, b: str) -> bool:
    """Whether two lines say the same (bullet, case, spacing and closing punctuation aside)."""
    return _plain(a) == _plain(b)


def _plain(line: str) -> str:
    return " ".join(_BULLET.sub("", line.strip(), count=1).split()).rstrip(" .;,!").casefold()


def apply_edits(
    previous: str,
    edits: Edits,
    *,
    citable: Mapping[int, str],
    sources: Sequence[str],
    covered: Mapping[int, str] | None = None,
    language: str | None = None,
) -> tuple[str, list[str]]:
    """``(new summary, refused edits)``: ``edits`` applied to ``previous``, each checked on its own.

    ``language``: the headings' language (the user's, :mod:`okbot.core.language`); None keeps
    ``previous``'s.

    ``citable`` maps the ids of the user's own messages (type user, source user) among the covered
    items and the checklist to their text: a new goal must cite one, and its exact references must
    come from that message. New lines must not carry references found neither in ``previous`` nor in
    ``sources``. Lines not named by an edit stay byte for byte; the marked section of items moved out
    without the model is dropped, its digests having been shown to the model.

    Closing a goal needs evidence: ``done`` must cite one of the ``covered`` items (the newly covered
    ids and their text), ``withdrawn`` one of the user's own messages in ``citable``; reopening
    (``active``) needs none. A small model once closed "triage BUG-101 to BUG-140" after BUG-106.
    """
    sections, _ = structure.parse_sections(previous or structure.empty_summary())
    sections.pop(structure.FALLBACK_SECTION, None)
    kept_by_app = {name: sections[name] for name in structure.APP_SECTIONS if sections.get(name)}
    body = {name: _body_lines(sections.get(name, "")) for name in structure.SECTIONS}
    refused: list[str] = []
    goal_index = [
        i for i, ln in enumerate(body["Goals"]) if structure.goal_entries(ln) and not structure.is_app_line(ln)
    ]
    for number, status, cited in edits.status:
        if status not in structure.GOAL_STATUSES:
            refused.append(f"GOAL {number}: status must be one of {', '.join(structure.GOAL_STATUSES)}, not {status!r}")
        elif not 1 <= number <= len(goal_index):
            refused.append(f"GOAL {number}: there is no goal {number} (the summary has {len(goal_index)})")
        elif problem := _closing_problem(number, status, cited, citable, covered or {}):
            refused.append(problem)
        else:
            at = goal_index[number - 1]
            body["Goals"][at] = re.sub(r"\[\w+\]", f"[{status}]", body["Goals"][at], count=1)
    grounding = [previous, *sources]
    for goal in edits.goals:
        if any(_same(goal.text, _goal_text(ln)) for ln in body["Goals"]):
            continue  # a goal the summary has (an echo): nothing to add
        problem = _goal_problem(goal, citable)
        if problem:
            refused.append(problem)
        else:
            body["Goals"].append(f"- [active] {goal.text[:MAX_LINE_CHARS]} (#{goal.cited})")
    drops = sorted(set(edits.drop_progress))
    progress = body[PROGRESS]
    bad_drops = [n for n in drops if not 1 <= n <= len(progress)]
    if bad_drops:
        refused.append(f"DROP PROGRESS {', '.join(map(str, bad_drops))}: no such progress line")
    body[PROGRESS] = [ln for n, ln in enumerate(progress, start=1) if n not in drops]
    for section in LINE_SECTIONS:
        for text in edits.lines.get(section, []):
            invented = structure.ungrounded(text, grounding)
            if invented:
                refused.append(
                    f"{_keyword(section)}: {text[:60]!r} names {', '.join(invented[:6])}, found neither in the "
                    "summary nor in the covered items (copy exact references, invent none)"
                )
            elif not any(_same(text, ln) for ln in body[section]):
                body[section].append(f"- {text[:MAX_LINE_CHARS]}")
    language = language or structure.heading_language(previous)
    revised = {name: "\n".join(lines) for name, lines in body.items()}
    return structure.render({**revised, **kept_by_app}, language), refused


def _closing_problem(
    number: int, status: str, cited: int | None, citable: Mapping[int, str], covered: Mapping[int, str]
) -> str:
    """Why a goal status change is refused ('' when it stands on the cited item)."""
    if status == "done" and cited not in covered:
        where = f"#{cited} is not one of the newly covered items" if cited else "it cites no item"
        return f"GOAL {number}: done needs the #id of the newly covered item that shows it done; {where}"
    if status == "withdrawn" and cited not in citable:
        where = f"#{cited} is not a message the user typed" if cited else "it cites no message"
        return f"GOAL {number}: only the user withdraws a goal: cite their message; {where}"
    return ""


RECORD_NOTES = structure.RECORD_NOTES
RECORD_NOTE = RECORD_NOTES["en"]
_RECORD_LINES = {
    "en": ("covers items up to #{last}", "; the user's last request there (#{id}): {text}"),
    "zh_CN": ("已涵盖到 #{last}", "；用户在其中的最后请求（#{id}）：{text}"),
}


def note_progress(summary: str, covered: Sequence[Mapping[str, Any]]) -> str:
    """When the model wrote no Progress line, the app writes one from the record: how far the summary
    reaches and the user's last request in it (its own previous such line is replaced).

    A small model often adds nothing to Progress; without this, the summary kept saying where things
    stood many items ago while coverage moved on.
    """
    if not covered:
        return summary
    users = [it for it in covered if it.get("type") == "user" and it.get("source") == "user"]
    language = structure.heading_language(summary)
    reach, request = _RECORD_LINES.get(language, _RECORD_LINES["en"])
    line = f"- {RECORD_NOTES.get(language, RECORD_NOTE)} {reach.format(last=covered[-1]['id'])}"
    if users:
        line += request.format(id=users[-1]["id"], text=preview(item_text(users[-1]), 160))
    sections, _ = structure.parse_sections(summary)
    lines = [ln for ln in _body_lines(sections.get(PROGRESS, "")) if not any(m in ln for m in RECORD_NOTES.values())]
    sections[PROGRESS] = "\n".join([*lines, line])
    return structure.render(sections, language)


def _goal_text(line: str) -> str:
    """A stored goal line's text without its status and its trailing ``(#id)`` citation."""
    entries = structure.goal_entries(line)
    return re.sub(r"\s*\(#\d+\)$", "", entries[0][1]) if entries else line


def _keyword(section: str) -> str:
    return "PROGRESS" if section == PROGRESS else section.rstrip("s").upper()


def _goal_problem(goal: NewGoal, citable: Mapping[int, str]) -> str:
    """Why a new goal is refused ('' when it is fine)."""
    label = f"GOAL {goal.text[:60]!r}"
    if goal.cited is None:
        return f"{label} cites no message: add the #id of the user's message that set it"
    if goal.cited not in citable:
        return (
            f"{label} cites #{goal.cited}, which is not a message the user typed among the covered items; "
            "a goal comes only from the user's own words"
        )
    invented = structure.ungrounded(goal.text, [citable[goal.cited]])
    if invented:
        return f"{label} names {', '.join(invented[:6])}, which the user's message #{goal.cited} does not"
    return ""
