"""Memory extraction: newly covered items -> checked candidate memories, in one model call.

The model gets the items (with their ids), the entries already remembered (with theirs) and the
summary's Agreements section, and answers with JSON. Nothing it says is trusted as is: each new
entry must cite item ids among those it was given, its exact references (numbers, paths, URLs,
names) must occur in the cited items, and it must not carry a secret (:mod:`.secrets`). Small
local models invent, and an invented memory is worse than none: a failing entry is dropped and
logged (with any secret in it withheld), never stored.

Whose words count: a memory every assistant shares (scope "user", or any memory of a squad,
whose memories all go to the global store), a fact about the user, and a standing rule ("should",
"always", "never") must be said in the user's own messages -- items of type ``user`` typed by the
user -- and those alone must support it; an assistant's reply or a tool's output may be cited
beside them but does not count. A reply or a web page can claim anything about the user, and a
shared memory is recalled into every assistant's instructions. A fact about the work ("the
project's CI runs on GitHub Actions") may come from a tool's output or a reply, and then stays
in that assistant's own memory.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from okbot.core.digest import item_digest
from okbot.core.grounding import (
    as_list,
    cited_ids,
    cited_kinds,
    json_object,
    says_something,
    typed_by_user,
    unsupported,
)
from okbot.core.language import LANGUAGE_WORDS, users_language
from okbot.core.memory.secrets import redact, secret_kinds

Complete = Callable[[list[dict[str, str]]], str]

MAX_MEMORY_CHARS = 300  # one fact, said briefly
MAX_ITEM_CHARS = 1200  # per item shown to the extractor (long tool output is digested anyway)
MAX_EXPIRY_DAYS = 3650
KNOWN_SHOWN = 60  # existing entries shown so the model can merge, confirm and retire

SYSTEM_PROMPT = """You keep an assistant's long-term memory about its user.
You get CONVERSATION ITEMS (each starts with its id, like [#12 user]), the entries ALREADY REMEMBERED (each
with its id, like [m-1a2b3c4d]) and the AGREEMENTS recorded so far.

Extract only durable facts worth knowing in later conversations:
- facts about the user (name, role, situation), their lasting preferences and ways of working;
- facts about their project (names, paths, versions, decisions that stay true);
- anything the user explicitly asked to remember.
Never extract: chit-chat, one-off details of a single task, anything the assistant merely suggested,
secrets (passwords, API keys, tokens, card numbers), or facts already remembered (confirm those instead).

Answer with one JSON object and nothing else:
{"memories": [{"text": "...", "from": [12], "scope": "user"|"assistant", "expires_in_days": null}],
 "confirm": ["m-..."],
 "retire": [{"id": "m-...", "from": [15], "why": "..."}]}
- text: one short sentence in the third person ("The user prefers ..."), copying names, numbers and paths exactly.
- from: the ids of the items that state it. Cite only ids you were given. A fact about the user must cite the
  user's own message that states it: what an assistant or a tool said about the user is not evidence.
- scope: "user" for facts about the user that any assistant may use; "assistant" for this assistant's work.
- expires_in_days: only when the user gave a duration ("for the next two weeks" -> 14), else null.
- confirm: remembered entries these items show again or confirm.
- retire: remembered entries these items prove wrong or withdrawn (the user changed their mind).
Empty lists are fine. Most conversations hold nothing worth remembering."""
# Memories are written in the language the user writes in (recalled into instructions, shown in the panel).
LANGUAGE_LINE = (
    "Write each memory's text in {language}, the language the user writes in (third person all the same:"
    ' "The user prefers …", "用户偏好……").'
)

# A memory that speaks of the user, or a standing rule for the assistant: only the user's own words ground it.
_ABOUT_USER = re.compile(
    r"(?i:(?<![\w-])users?(?:'s|’s|')?(?![\w-])"
    r"|\b(?:should|must|always|never|prefers?|preferred|wants?|wanted|wish(?:es)?|likes?|dislikes?|allow(?:s|ed)?)\b)"
    r"|(?i:\b(?:my|me|mine|myself)\b)|\b(?:I|I'm|I've)\b|用户|我"
)


@dataclass(frozen=True)
class Candidate:
    """A checked new memory: text, the item ids it came from, its scope and optional expiry."""

    text: str
    sources: tuple[int, ...]
    scope: str = "assistant"  # "user" -> the global store
    expires_in_days: int | None = None


@dataclass
class Extraction:
    """The checked answer: what may be stored, and what was refused with the reason."""

    candidates: list[Candidate] = field(default_factory=list)
    confirm: list[str] = field(default_factory=list)
    retire: list[tuple[str, str]] = field(default_factory=list)  # (entry id, why)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (text, reason)
    problem: str = ""  # the whole answer was unusable

    @property
    def empty(self) -> bool:
        return not (self.candidates or self.confirm or self.retire)


def build_messages(
    items: Sequence[dict[str, Any]], known: Sequence[tuple[str, str]], agreements: str, *, explicit: bool = False
) -> list[dict[str, str]]:
    """The extraction request: ``known`` is ``(entry id, text)`` of what is remembered already."""
    lines = [f"[#{it.get('id')} {it.get('type', 'item')}] {_item_text(it)}" for it in items]
    remembered = "\n".join(f"[{mid}] {text}" for mid, text in known[:KNOWN_SHOWN]) or "(nothing yet)"
    parts = [
        "CONVERSATION ITEMS:\n" + "\n".join(lines),
        "ALREADY REMEMBERED:\n" + remembered,
        "AGREEMENTS:\n" + (agreements.strip() or "(none recorded)"),
    ]
    if explicit:
        parts.append("The user explicitly asked to remember something here: extract it.")
    system = f"{SYSTEM_PROMPT}\n{LANGUAGE_LINE.format(language=LANGUAGE_WORDS[users_language(items)])}"
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


def parse_answer(
    text: str, items: Sequence[dict[str, Any]], known_ids: Sequence[str], *, all_shared: bool = False
) -> Extraction:
    """Check the model's answer against the items it was given; never raises on junk.

    ``all_shared``: every memory lands in the store all assistants share (a squad's), so each one
    must be grounded in the user's own words, whatever scope the model gave it.
    """
    obj = json_object(text)
    if obj is None:
        return Extraction(problem=f"the answer is not a JSON object: {text.strip()[:80]!r}")
    by_id = {it["id"]: it for it in items if isinstance(it.get("id"), int)}
    result = Extraction()
    for raw in as_list(obj.get("memories")):
        candidate, reason = _check_candidate(raw, by_id, all_shared=all_shared)
        if candidate is None:
            said = " ".join(str(raw.get("text", raw) if isinstance(raw, dict) else raw).split())
            result.rejected.append((redact(said)[:120], reason))  # refusals are logged: never with the secret
        else:
            result.candidates.append(candidate)
    known = set(known_ids)
    result.confirm = [m for m in as_list(obj.get("confirm")) if isinstance(m, str) and m in known]
    for raw in as_list(obj.get("retire")):
        if not isinstance(raw, dict) or raw.get("id") not in known:
            continue
        cited = cited_ids(raw.get("from"))
        if not cited or not cited <= by_id.keys():  # retiring also needs evidence in the items given
            result.rejected.append((f"retire {raw.get('id')}", "no valid item ids cited"))
            continue
        result.retire.append((raw["id"], redact(str(raw.get("why") or "contradicted"))[:200]))  # kept as a note
    return result


def _check_candidate(raw: Any, by_id: dict[int, dict[str, Any]], *, all_shared: bool) -> tuple[Candidate | None, str]:
    if not isinstance(raw, dict):
        return None, "not an object"
    text = " ".join(str(raw.get("text") or "").split())
    if not says_something(text):  # empty, or a template echoed back ("...")
        return None, "empty text" if not text else f"no words: {text[:40]!r}"
    kinds = secret_kinds(text)
    if kinds:
        return None, f"holds a secret ({', '.join(kinds)})"
    if len(text) > MAX_MEMORY_CHARS:
        return None, f"over {MAX_MEMORY_CHARS} characters"
    cited = cited_ids(raw.get("from"))
    if not cited:
        return None, "cites no item ids"
    if not cited <= by_id.keys():
        return None, f"cites ids it was not given: {sorted(cited - by_id.keys())}"
    scope = "user" if raw.get("scope") == "user" else "assistant"
    items = [by_id[i] for i in sorted(cited)]
    needs_user = scope == "user" or all_shared or bool(_ABOUT_USER.search(text))
    what = "a shared memory" if scope == "user" or all_shared else "a fact about the user or a rule"
    own_words = [it for it in items if typed_by_user(it)]
    if needs_user and not own_words:
        return None, f"{what} must be in the user's own words; it cites only {cited_kinds(items)}"
    problem = unsupported(text, items)
    if problem:
        return None, problem
    if needs_user and unsupported(text, own_words):
        return None, f"{what} must be in the user's own words; only replies or tool output say this"
    days = raw.get("expires_in_days")
    if days is not None and not (isinstance(days, int) and not isinstance(days, bool) and 0 < days <= MAX_EXPIRY_DAYS):
        days = None
    return Candidate(text=text, sources=tuple(sorted(cited)), scope=scope, expires_in_days=days), ""


def _item_text(item: dict[str, Any]) -> str:
    if item.get("type") in ("user", "assistant"):
        text = " ".join(str(item.get("content") or "").split())
        return text if len(text) <= MAX_ITEM_CHARS else text[:MAX_ITEM_CHARS] + " …"
    return item_digest(item)
