"""Choose which memories go into the instructions: pinned always, then the most relevant durables.

Relevance is a small local BM25 (k1=1.2, b=0.75) of each durable's text against the recent user text,
plus a small bonus for entries recalled often. Everything is one pass over the entries plus a bounded
selection (``heapq.nsmallest``), so 10,000 entries stay fast. Same inputs give the same output, byte for byte.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from okbot.core.memory.secrets import has_secret
from okbot.core.memory.store import MAX_ENTRY_CHARS, MemoryEntry

K1 = 1.2
B = 0.75
# A small bonus for often-recalled entries: HIT_BONUS * log(1 + hits), capped at HIT_BONUS_MAX. It orders entries
# that match equally (or not at all) and keeps useful ones around; a match on a rare query word outweighs it.
HIT_BONUS = 0.1
HIT_BONUS_MAX = 0.5
FOLD_LINE = "({n} more memories not shown)"

STOP_WORDS = frozenset(
    "a an and are as at be but by do for from has have i if in is it me my no not of on or our so that the "
    "their them they this to was we were what when which who will with you your".split()
)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Recall:
    """The memories block: its lines in order (a last folded line when some were left out) and the recalled ids."""

    lines: tuple[str, ...]
    ids: tuple[str, ...]
    left_out: int


def tokenize(text: str) -> list[str]:
    """Casefolded words (letters, digits, underscore) without the tiny stop-word list."""
    return [word for word in _WORD.findall(text.casefold()) if word not in STOP_WORDS]


def _line(entry: MemoryEntry) -> str:
    return " ".join(entry.text.split())


def _pinned_key(entry: MemoryEntry) -> tuple[bool, str, str, str]:
    return (entry.scope != "global", entry.created, entry.scope, entry.id)


def _scores(durables: Sequence[MemoryEntry], query: str) -> list[float]:
    """BM25 of each durable against the query (one pass to count, one to score) plus the hit bonus."""
    terms = sorted(set(tokenize(query)))
    wanted = set(terms)
    docs: list[tuple[int, dict[str, int]]] = []
    df: Counter[str] = Counter()
    total_len = 0
    for entry in durables:
        words = tokenize(entry.text)
        total_len += len(words)
        matched = [word for word in words if word in wanted]
        counts: dict[str, int] = Counter(matched) if matched else {}
        df.update(counts.keys())
        docs.append((len(words), counts))
    n = len(docs)
    avg_len = total_len / n if n else 0.0
    idf = {t: math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
    scores = []
    for entry, (length, counts) in zip(durables, docs, strict=True):
        score = 0.0
        if counts:
            norm = K1 * (1.0 - B + B * length / avg_len) if avg_len else K1
            for t in terms:  # a fixed order keeps the float sum identical run to run
                tf = counts.get(t, 0)
                if tf:
                    score += idf[t] * tf * (K1 + 1.0) / (tf + norm)
        scores.append(score + min(HIT_BONUS_MAX, HIT_BONUS * math.log1p(max(entry.hits, 0))))
    return scores


def recall(
    entries: Sequence[MemoryEntry],
    query: str,
    *,
    max_entries: int,
    max_chars: int,
    now: datetime | None = None,
) -> Recall:
    """Pick the memories for the instructions (see the module docstring and the rules in the memory brief).

    Pinned recallable entries come first (global scope first, then by created, then id) and are never dropped,
    even over budget. Then unpinned durables by relevance (ties by id) while both budgets hold; the rest are
    counted in ``left_out`` and folded into one last line. Candidates, retired and expired entries, entries
    longer than MAX_ENTRY_CHARS (possible only by hand-editing the file) and unpinned entries holding a secret
    (kept before extraction refused them; only the chosen few are checked, so this stays cheap) are never
    recalled. A pinned entry is the user's own choice and is recalled whatever it holds.
    """
    if max_entries <= 0:
        return Recall((), (), 0)
    moment = now or datetime.now(timezone.utc)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    pinned: list[MemoryEntry] = []
    durables: list[MemoryEntry] = []
    for entry in entries:
        if len(entry.text) > MAX_ENTRY_CHARS or not entry.recallable(moment):
            continue
        if entry.pinned:
            pinned.append(entry)
        elif entry.status == "durable":
            durables.append(entry)
    pinned.sort(key=_pinned_key)
    chosen = list(pinned)
    used_chars = sum(len(_line(e)) for e in pinned)
    if durables:
        scores = _scores(durables, query)
        room = max(0, max_entries - len(chosen))
        ranked = heapq.nsmallest(
            room, range(len(durables)), key=lambda i: (-scores[i], durables[i].id, durables[i].scope)
        )
        for index in ranked:
            if has_secret(durables[index].text):
                continue  # stored before extraction refused secrets (issue 16): never sent to a model again
            size = len(_line(durables[index]))
            if used_chars + size > max_chars:
                break  # the least relevant go first: nothing below a cut-off entry gets in
            chosen.append(durables[index])
            used_chars += size
    left_out = len(pinned) + len(durables) - len(chosen)
    lines = [_line(e) for e in chosen]
    if left_out:
        lines.append(FOLD_LINE.format(n=left_out))
    return Recall(tuple(lines), tuple(e.id for e in chosen), left_out)
