"""Skills learnt from the conversation: a procedure the user taught becomes (or updates) a ``SKILL.md``.

When the user teaches a repeatable procedure ("when I say ship it: 1) run the tests, 2) tag, 3) …"),
the model proposes a skill: a name, a one-line description (what it does, when to use it) and a
body of steps, citing the user's messages. Nothing is taken on its word: the checks are those of
persona edits (:mod:`.persona`), by the same names -- ``citation`` (only the user's own typed
messages), ``grounding`` (the steps are said there), ``permission`` (a step that skips asking must
be said exactly so), ``secret``, ``format`` and ``size`` (a body of at most :data:`MAX_BODY_CHARS`),
``hand-written`` (a skill the user wrote or edited is never overwritten), ``duplicate`` and ``undone``.

Answers come as JSON under :data:`SCHEMA` or as text::

    SKILL ship-it: Release the app; use when the user says "ship it". #12
    1. Run make test.
    2. Tag the release vX.Y.Z.
    END
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from okbot.core.evolution.persona import Refusal, own_words, said_exactly, widens
from okbot.core.grounding import as_list, cited_ids, json_object, says_something, unsupported
from okbot.core.memory.secrets import redact, secret_kinds
from okbot.core.skills import CATALOG_DESCRIPTION_CHARS, check_name, quote
from okbot.storage.errors import OkBotError

KIND = "skill"  # in messages: "skill upkeep answer unusable: …"
MAX_BODY_CHARS = 4000
MAX_SKILLS = 2  # per upkeep
DESCRIPTION_SUPPORT = 0.4  # a description paraphrases ("use when the user says …"); its names must still be there

SYSTEM_PROMPT = """You turn procedures a user taught an assistant into skills: short instructions it loads when needed.
You get the SKILLS it has (name: description) and the NEW CONVERSATION ITEMS, each with its id ([#12 user]).

Propose a skill only when the user taught a repeatable procedure: steps to follow whenever something happens or
they say something ("when I say ship it: 1) ..., 2) ..."). Not a one-off task, not what the assistant suggested.
Copy the user's steps, names, commands and paths exactly; add nothing they did not say.
Cite the ids of the user's own messages that teach it. To update an existing skill, use its name.

Answer with nothing else than:
SKILL <short-name-with-dashes>: <one line: what it does and when to use it> #<ids>
1. <first step>
2. <next step>
END
or the single word NONE when no procedure was taught (most of the time)."""

JSON_PROMPT = """Answer with one JSON object, {"skills": []} when no procedure was taught:
{"skills": [{"name": "<short-name>", "description": "<what it does, when to use it>",
             "steps": ["<the user's first step>", "<the next step>"], "from": [<ids of the user's messages>]}]}"""

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "skills": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "steps": {"type": "array", "items": {"type": "string"}},
                    "from": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["name", "description", "steps", "from"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["skills"],
    "additionalProperties": False,
}
RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {"name": "skill_proposals", "strict": True, "schema": SCHEMA},
}

_HEAD = re.compile(r"^\W*SKILL\b\s*[:=-]?\s*([\w.-]+(?:\s+[\w.-]+){0,5}?)\s*[:—-]\s*(.*)$", re.IGNORECASE)
_END = re.compile(r"^\W*END(?:\s+SKILL)?\W*$", re.IGNORECASE)
_NOTHING = re.compile(r"^\W*(?:none|no skills?|nothing)\W*$", re.IGNORECASE)
_STEP = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*•])\s*")
_IDS = re.compile(r"[\s;,—-]*[(\[]?\s*(?:from|cites?|per)?\s*[:=]?\s*((?:#\d{1,9}[\s,;]*)+)[)\]]?\W*$", re.IGNORECASE)


@dataclass(frozen=True)
class Proposal:
    """A skill as the model proposed it."""

    name: str
    description: str
    steps: tuple[str, ...]
    cited: tuple[int, ...]


@dataclass(frozen=True)
class SkillChange:
    """A checked skill: ``before`` is the SKILL.md it replaces (``""`` when new), ``after`` the whole new file."""

    op: str  # "create" | "update"
    name: str
    description: str
    before: str
    after: str
    cited: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        keys = ("op", "name", "description", "before", "after")
        return {**{k: getattr(self, k) for k in keys}, "cited": list(self.cited)}

    @classmethod
    def from_json(cls, obj: Any) -> SkillChange | None:
        if not isinstance(obj, dict) or obj.get("op") not in ("create", "update"):
            return None
        text = {
            k: obj.get(k) if isinstance(obj.get(k), str) else "" for k in ("name", "description", "before", "after")
        }
        if not text["name"] or not text["after"]:
            return None
        cited = tuple(sorted(cited_ids(obj.get("cited"))))
        return cls(obj["op"], text["name"], text["description"], text["before"], text["after"], cited)


def build_messages(catalog: Sequence[tuple[str, str]], items_text: str, *, structured: bool) -> list[dict[str, str]]:
    skills = "\n".join(f"- {name}: {description}" for name, description in catalog) or "(none yet)"
    user = f"SKILLS:\n{skills}\n\nNEW CONVERSATION ITEMS:\n{items_text}"
    system = SYSTEM_PROMPT + ("\n\n" + JSON_PROMPT if structured else "")
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def parse_answer(answer: str) -> tuple[list[Proposal], str]:
    """``(proposals, problem)`` from a JSON or text answer; never raises."""
    body = (answer or "").strip()
    if not body:
        return [], "the answer is empty"
    obj = json_object(body)
    if obj is not None and "skills" in obj:
        return [p for raw in as_list(obj.get("skills")) if (p := _from_json(raw)) is not None], ""
    proposals: list[Proposal] = []
    current: tuple[str, str, tuple[int, ...]] | None = None
    steps: list[str] = []
    nothing = False
    for raw in [*body.splitlines(), "END"]:
        line = raw.strip().strip("`").strip()
        head = _HEAD.match(line)
        if head or _END.match(line):
            if current is not None and steps:
                proposals.append(Proposal(current[0], current[1], tuple(steps), current[2]))
            current, steps = None, []
            if head:
                description, cited = _split_ids(head.group(2))
                current = (head.group(1), description, cited)
        elif current is not None and line:
            step, cited = _split_ids(_STEP.sub("", line))
            if step:
                steps.append(step)
            current = (current[0], current[1], tuple(sorted({*current[2], *cited})))
        elif _NOTHING.match(line):
            nothing = True
    if not proposals and not nothing:
        return [], f"no SKILL block in the answer: {redact(' '.join(body.split()))[:80]!r}"
    return proposals, ""


def _from_json(raw: Any) -> Proposal | None:
    if not isinstance(raw, dict):
        return None
    steps = tuple(s for s in (" ".join(str(x).split()) for x in as_list(raw.get("steps"))) if s)
    name = str(raw.get("name") or "").strip()
    return Proposal(
        name, " ".join(str(raw.get("description") or "").split()), steps, tuple(sorted(cited_ids(raw.get("from"))))
    )


def _split_ids(text: str) -> tuple[str, tuple[int, ...]]:
    match = _IDS.search(text)
    if match is None:
        return " ".join(text.split()), ()
    return " ".join(text[: match.start()].split()), tuple(sorted(cited_ids(re.findall(r"#(\d+)", match.group(1)))))


def check_proposals(
    proposals: Sequence[Proposal],
    items: Sequence[dict[str, Any]],
    existing: Mapping[str, str],
    *,
    written_by_upkeep: Mapping[str, str],
    undone: Sequence[str] = (),
) -> tuple[list[SkillChange], list[Refusal]]:
    """Check each proposal. ``existing``: skill name -> its SKILL.md text now; ``written_by_upkeep``: name -> the
    text upkeep last wrote there (a skill whose text differs was written or edited by hand); ``undone``: SKILL.md
    texts of changes the user undid."""
    by_id = {it["id"]: it for it in items if isinstance(it.get("id"), int)}
    changes: list[SkillChange] = []
    refusals: list[Refusal] = []
    for proposal in proposals:
        what = redact(f"skill {proposal.name or '(no name)'}: {proposal.description}")[:200]
        if len(changes) >= MAX_SKILLS:
            refusals.append(Refusal(what, "format", f"more than {MAX_SKILLS} skills at once"))
            continue
        change, why = _check_one(proposal, by_id, existing, written_by_upkeep, set(undone))
        if change is None:
            refusals.append(Refusal(what, *why))
        else:
            changes.append(change)
    return changes, refusals


def _check_one(
    proposal: Proposal,
    by_id: dict[int, dict[str, Any]],
    existing: Mapping[str, str],
    mine: Mapping[str, str],
    undone: set[str],
) -> tuple[SkillChange | None, tuple[str, str]]:
    try:
        name = check_name(slug(proposal.name))
    except OkBotError as exc:
        return None, ("format", str(exc))
    description, steps = proposal.description, proposal.steps
    if not description or len(description) > CATALOG_DESCRIPTION_CHARS:
        return None, ("format", f"the description must be one line of 1 to {CATALOG_DESCRIPTION_CHARS} characters")
    if not steps:
        return None, ("format", "no steps")
    if not all(map(says_something, (description, *steps))):  # a template echoed back: "...", "1. ..."
        return None, ("format", "the description or a step has no words")
    body = "\n".join(f"{n}. {step}" for n, step in enumerate(steps, 1))
    if len(body) > MAX_BODY_CHARS:
        return None, ("size", f"the steps are over {MAX_BODY_CHARS:,} characters")
    if kinds := secret_kinds("\n".join((name, description, body))):
        return None, ("secret", f"holds a secret ({', '.join(kinds)})")
    cited, why = own_words(proposal.cited, by_id)
    if cited is None:
        return None, why
    if problem := _said_by_user(description, steps, cited):
        return None, problem
    text = skill_text(name, description, body)
    key = next((k for k in existing if k.casefold() == name.casefold()), None)
    before = existing.get(key, "") if key is not None else ""
    if text in undone:
        return None, ("undone", "the user undid this skill before")
    if key is not None:
        if before == text:
            return None, ("duplicate", f"skill {key} already says this")
        if mine.get(key) != before:
            return None, ("hand-written", f"skill {key} was written or edited by hand; upkeep never overwrites it")
        return SkillChange("update", key, description, before, text, proposal.cited), ("", "")
    return SkillChange("create", name, description, "", text, proposal.cited), ("", "")


def _said_by_user(description: str, steps: Sequence[str], cited: list[dict[str, Any]]) -> tuple[str, str] | None:
    """Why the cited user messages do not teach this skill (each step in their words, no step widening a
    permission), or None."""
    for step in steps:
        if problem := unsupported(step, cited):
            return "grounding", f"the user's cited words do not teach the step {step[:60]!r} ({problem})"
    if problem := unsupported(description, cited, min_support=DESCRIPTION_SUPPORT):
        return "grounding", f"the description is not in the user's words ({problem})"
    for step in steps:
        if widens(step) and not said_exactly(step, cited):
            return "permission", f"the step {step[:60]!r} lets the assistant do more than the user said"
    return None


def slug(name: str) -> str:
    """``name`` as a skill folder name: lower case, runs of anything but letters, digits, "." and "-" as one "-"."""
    return re.sub(r"-{2,}", "-", re.sub(r"[^\w.-]+", "-", name.strip().casefold())).strip("-.")


def skill_text(name: str, description: str, body: str) -> str:
    """A SKILL.md as upkeep writes it: front matter, a title, the numbered steps."""
    return f"---\nname: {name}\ndescription: {quote(description)}\n---\n\n# {name}\n\n{body}\n"
