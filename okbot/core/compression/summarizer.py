"""The summarizer: previous summary + digests of newly covered items -> revised structured summary.

A pure object given a ``complete`` callable (messages -> reply text) and a token counter, so it
is testable without a network. Its input is proportional to the newly covered items only. Its
output is checked (structure.check); one repair request names every problem; if the answer is
still wrong the summarizer raises :class:`SummaryRejected` and the caller keeps the previous
summary and coverage. The model never retypes the user's words: it only ticks ids on a
checklist and the app copies the text from the record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from okbot.core.compression import structure
from okbot.core.digest import checklist_entry, is_directive, item_digest

Complete = Callable[[list[dict[str, str]]], str]

SYSTEM_PROMPT = """You maintain the running summary of a long conversation between a user and an assistant.
You get the PREVIOUS SUMMARY, digests of the NEWLY COVERED ITEMS (older conversation that is leaving the
model's view), and a CHECKLIST of messages the user typed. Reply with the revised summary, then one KEEP line.

The summary has exactly these sections, in this order, and nothing outside them:
## Goals
- [active|done|withdrawn] each goal the user set; for a queue of work say how far it got
## Agreements
How to report, what the assistant may decide alone, permissions and prohibitions.
## Decisions
Decision — reason.
## Progress and next steps
## References
Exact paths, ids, numbers, URLs, names.

Rules:
- Revise, do not re-invent. A section with nothing new: write exactly (unchanged) as its whole body.
- Never delete a goal; mark it done or withdrawn instead. Keep every earlier goal line.
- Copy exact references (numbers, #ids, paths, URLs) character for character; invent none.
- Stay under {max_chars} characters in total. Be terse.
- Do not quote the user at length: instead tick checklist ids.
- In a squad (a captain and members), say who decided or promised what: the user, the captain or the member by name.

After the summary write two lines:
KEEP: <checklist ids to keep> (or KEEP: none)
RELEASE: <checklist ids to release> (or RELEASE: none)
Keep a message when it sets direction, states a constraint or prohibition, a preference or a permission
that still applies. Release it when it was withdrawn, superseded or is done. Keep few."""

_ID_LINE = re.compile(r"^\s*\**\s*(KEEP|RELEASE)\s*\**\s*:\s*(.*)$", re.IGNORECASE | re.MULTILINE)
_FENCE = re.compile(r"^```[\w-]*\s*\n(.*?)\n```\s*$", re.DOTALL)


class SummaryRejected(Exception):
    """The summarizer's answer failed the checks twice (or the call itself failed)."""

    def __init__(self, problems: Sequence[str], *, input_tokens: int = 0, output_tokens: int = 0) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens


@dataclass
class SummaryOutcome:
    summary: str
    keep_ids: list[int]
    input_tokens: int  # every call, repairs included
    output_tokens: int
    calls: int
    notes: list[str] = field(default_factory=list)
    prompt_tokens: int = 0  # the first call's input: what the delta itself costs


def parse_answer(text: str) -> tuple[str, list[int] | None, list[int], list[str]]:
    """``(summary, keep ids or None when no KEEP line, release ids, problems)``."""
    problems: list[str] = []
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if body.startswith("{") or body.startswith("["):
        try:
            json.loads(body)
            problems.append("the answer is JSON; write the Markdown sections and the KEEP/RELEASE lines instead")
        except ValueError:
            pass
    found: dict[str, list[int]] = {}
    for match in reversed(list(_ID_LINE.finditer(body))):
        kind, raw = match.group(1).upper(), match.group(2).strip()
        found.setdefault(kind, [] if raw.lower().startswith("none") else [int(x) for x in re.findall(r"\d+", raw)])
        body = (body[: match.start()] + body[match.end() :]).strip()
    return body, found.get("KEEP"), found.get("RELEASE", []), problems


def decide_kept(
    checklist: Sequence[dict[str, Any]], previously_kept: set[int], keep: list[int] | None, release: list[int]
) -> list[int]:
    """Which checklist ids stay verbatim. Keep more, never less: a previously kept message goes only when
    released explicitly; a new one stays when ticked, or when it looks like a directive and was not released."""
    ticked = set(keep or [])
    released = set(release) - ticked
    out = []
    for item in checklist:
        item_id = item["id"]
        if item_id in released:
            continue
        if item_id in previously_kept or item_id in ticked or keep is None or is_directive(item.get("content", "")):
            out.append(item_id)
    return sorted(out)


class Summarizer:
    """Revises a structured summary from digests; checks and repairs the answer once."""

    def __init__(self, complete: Complete, count_tokens: Callable[[str], int], *, max_chars: int) -> None:
        self.complete = complete
        self.count_tokens = count_tokens
        self.max_chars = max_chars

    def build_messages(
        self, previous: str, covered: Sequence[dict[str, Any]], checklist: Sequence[dict[str, Any]]
    ) -> list[dict[str, str]]:
        digests = "\n".join(item_digest(it) for it in covered) or "(none)"
        boxes = "\n".join(checklist_entry(it) for it in checklist) or "(none)"
        user = (
            f"PREVIOUS SUMMARY:\n{previous.strip() or structure.empty_summary()}\n\n"
            f"NEWLY COVERED ITEMS:\n{digests}\n\nCHECKLIST (messages the user typed):\n{boxes}"
        )
        return [
            {"role": "system", "content": SYSTEM_PROMPT.format(max_chars=self.max_chars)},
            {"role": "user", "content": user},
        ]

    def input_cost(self, previous: str, covered: Sequence[dict[str, Any]], checklist: Sequence[dict[str, Any]]) -> int:
        return sum(self.count_tokens(m["content"]) for m in self.build_messages(previous, covered, checklist))

    def summarize(
        self,
        previous: str,
        covered: Sequence[dict[str, Any]],
        checklist: Sequence[dict[str, Any]],
        *,
        sources: Sequence[str],
        previously_kept: Sequence[int] = (),
    ) -> SummaryOutcome:
        """Revise ``previous`` with ``covered``; ``sources`` = full texts the references may come from.

        ``previously_kept``: checklist ids already kept verbatim (they stay unless released explicitly).
        """
        messages = self.build_messages(previous, covered, checklist)
        allowed = {it["id"] for it in checklist}
        input_tokens = first_prompt = sum(self.count_tokens(m["content"]) for m in messages)
        output_tokens = 0
        problems: list[str] = []
        for attempt in range(2):
            try:
                answer = self.complete(messages)
            except Exception as exc:  # noqa: BLE001 - any failure of the call means "keep the previous summary"
                raise SummaryRejected(
                    [f"the summarizer call failed: {exc}"], input_tokens=input_tokens, output_tokens=output_tokens
                ) from exc
            output_tokens += self.count_tokens(answer or "")
            summary, keep, release, problems = parse_answer(answer or "")
            summary = structure.merge_unchanged(summary, previous)
            problems += structure.check(
                summary,
                previous,
                max_chars=self.max_chars,
                sources=[*sources, *(f"#{it['id']} {it.get('content', '')}" for it in checklist)],
            )
            notes = []
            if keep is None:
                notes.append("no KEEP line; kept every checklist message not released")
            unknown = sorted((set(keep or []) | set(release)) - allowed)
            if unknown:
                notes.append(f"ignored ids that are not on the checklist: {unknown}")
            if not problems:
                canonical = structure.render(structure.parse_sections(summary)[0])
                kept = decide_kept(checklist, set(previously_kept), keep, release)
                return SummaryOutcome(canonical, kept, input_tokens, output_tokens, attempt + 1, notes, first_prompt)
            if attempt == 0:
                repair = (
                    "Your answer has these problems:\n"
                    + "\n".join(f"- {p}" for p in problems)
                    + "\nAnswer again with the whole corrected summary and the KEEP/RELEASE lines, fixing all of them."
                )
                messages = [
                    *messages,
                    {"role": "assistant", "content": answer or ""},
                    {"role": "user", "content": repair},
                ]
                input_tokens += sum(self.count_tokens(m["content"]) for m in messages)
        raise SummaryRejected(problems, input_tokens=input_tokens, output_tokens=output_tokens)
