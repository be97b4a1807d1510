"""Memory extraction: newly covered items -> checked candidate memories, in one model call.

The model gets the items (with their ids), the entries already remembered (with theirs) and the
summary's Agreements section, and answers with JSON. Nothing it says is trusted as is: each new
entry must cite item ids among those it was given, its exact references (numbers, paths, URLs,
names) must occur in the cited items, and it must not carry a secret. Small local models invent,
and an invented memory is worse than none: a failing entry is dropped and logged, never stored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from okbot.core.compression.structure import ungrounded
from okbot.core.digest import item_digest

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
- from: the ids of the items that state it. Cite only ids you were given.
- scope: "user" for facts about the user that any assistant may use; "assistant" for this assistant's work.
- expires_in_days: only when the user gave a duration ("for the next two weeks" -> 14), else null.
- confirm: remembered entries these items show again or confirm.
- retire: remembered entries these items prove wrong or withdrawn (the user changed their mind).
Empty lists are fine. Most conversations hold nothing worth remembering."""

_SECRET = re.compile(
    r"\b(sk|pk|rk|ghp|gho|github_pat|xox[abp]|AKIA|AIza)[-_][A-Za-z0-9_-]{8,}"
    r"|\b(password|passwd|passcode|pin code|api[ _-]?key|secret|token|credential)s?\b"
    r"|\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{32,}\b"
    r"|\b(?:\d[ -]?){13,19}\b",
    re.IGNORECASE,
)
MIN_SUPPORT = 0.6  # a memory must mostly be said in the items it cites, not just avoid invented numbers
STEM = 4
_FILLER = frozenset(
    "the user user's users they their them this that with from for and are was were has have had been will "
    "would should can could about into onto over under than then also just very wants want likes like said "
    "says prefers prefer asked asks told tells".split()
)
_WORD = re.compile(r"[A-Za-z][\w'-]*")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


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
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n\n".join(parts)}]


def parse_answer(text: str, items: Sequence[dict[str, Any]], known_ids: Sequence[str]) -> Extraction:
    """Check the model's answer against the items it was given; never raises on junk."""
    obj = _json_object(text)
    if obj is None:
        return Extraction(problem=f"the answer is not a JSON object: {text.strip()[:80]!r}")
    by_id = {it["id"]: it for it in items if isinstance(it.get("id"), int)}
    result = Extraction()
    for raw in _list(obj.get("memories")):
        candidate, reason = _check_candidate(raw, by_id)
        if candidate is None:
            result.rejected.append((str(raw.get("text", raw) if isinstance(raw, dict) else raw)[:120], reason))
        else:
            result.candidates.append(candidate)
    known = set(known_ids)
    result.confirm = [m for m in _list(obj.get("confirm")) if isinstance(m, str) and m in known]
    for raw in _list(obj.get("retire")):
        if not isinstance(raw, dict) or raw.get("id") not in known:
            continue
        cited = _ids(raw.get("from"))
        if not cited or not cited <= by_id.keys():  # retiring also needs evidence in the items given
            result.rejected.append((f"retire {raw.get('id')}", "no valid item ids cited"))
            continue
        result.retire.append((raw["id"], str(raw.get("why") or "contradicted")[:200]))
    return result


def looks_secret(text: str) -> bool:
    """Does ``text`` look like it carries a credential (key, token, password, card number)?"""
    return bool(_SECRET.search(text))


def _check_candidate(raw: Any, by_id: dict[int, dict[str, Any]]) -> tuple[Candidate | None, str]:
    if not isinstance(raw, dict):
        return None, "not an object"
    text = " ".join(str(raw.get("text") or "").split())
    if not text:
        return None, "empty text"
    if len(text) > MAX_MEMORY_CHARS:
        return None, f"over {MAX_MEMORY_CHARS} characters"
    cited = _ids(raw.get("from"))
    if not cited:
        return None, "cites no item ids"
    if not cited <= by_id.keys():
        return None, f"cites ids it was not given: {sorted(cited - by_id.keys())}"
    if looks_secret(text):
        return None, "looks like a secret"
    source_texts = [_full_text(by_id[i]) for i in sorted(cited)]
    missing = ungrounded(text, source_texts)
    joined = "\n".join(source_texts).casefold()
    missing += [name for name in _names(text) if name.casefold() not in joined]
    if missing:
        return None, f"not in the cited items: {', '.join(missing[:5])}"
    if _support(text, joined) < MIN_SUPPORT:
        return None, "the cited items do not say this"
    days = raw.get("expires_in_days")
    if days is not None and not (isinstance(days, int) and not isinstance(days, bool) and 0 < days <= MAX_EXPIRY_DAYS):
        days = None
    scope = "user" if raw.get("scope") == "user" else "assistant"
    return Candidate(text=text, sources=tuple(sorted(cited)), scope=scope, expires_in_days=days), ""


def _support(text: str, source: str) -> float:
    """Share of the memory's content words (crudely stemmed) that the cited items contain."""
    words = [w for w in re.findall(r"[a-z0-9][a-z0-9'-]{2,}", text.casefold()) if w not in _FILLER]
    if not words:
        return 1.0
    stems = {w[:STEM] for w in re.findall(r"[a-z0-9][a-z0-9'-]{2,}", source)}
    return sum(w[:STEM] in stems for w in words) / len(words)


def _names(text: str) -> list[str]:
    """Capitalised words not at a sentence start: names the cited items must contain."""
    skip = {"The", "User", "Assistant", "I", "They", "He", "She", "It", "This", "That", "A", "An"}
    names = []
    for m in _WORD.finditer(text):
        word, before = m.group(0), text[: m.start()].rstrip()
        if word[0].isupper() and word not in skip and before and before[-1] not in ".!?:":
            names.append(word)
    return names


def _item_text(item: dict[str, Any]) -> str:
    if item.get("type") in ("user", "assistant"):
        text = " ".join(str(item.get("content") or "").split())
        return text if len(text) <= MAX_ITEM_CHARS else text[:MAX_ITEM_CHARS] + " …"
    return item_digest(item)


def _full_text(item: dict[str, Any]) -> str:
    return str(item.get("content") or "") if item.get("type") in ("user", "assistant") else item_digest(item)


def _json_object(text: str) -> dict[str, Any] | None:
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


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _ids(value: Any) -> set[int]:
    ids = set()
    for v in _list(value) if not isinstance(value, int) else [value]:
        if isinstance(v, str) and v.lstrip("#").isdigit():
            v = int(v.lstrip("#"))
        if isinstance(v, int) and not isinstance(v, bool):
            ids.add(v)
    return ids
