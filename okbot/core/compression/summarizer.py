"""The summarizer: previous summary + digests of newly covered items -> edits -> revised structured summary.

A pure object given a ``complete`` callable (messages -> reply text) and a token counter, so it
is testable without a network. Its input is proportional to the newly covered items only (the
previous summary enters cut to its budgets, :func:`structure.fit_sections`). The model answers
with edits, never a rewrite (:mod:`okbot.core.compression.edits`); the app applies them, so lines
not named stay byte for byte, and refuses a bad edit on its own. One repair request names what was
refused; an answer that cannot be read twice raises :class:`SummaryRejected` and the caller keeps
the previous summary and coverage. The model never retypes the user's words: it only ticks ids on
a checklist and the app copies the text from the record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from okbot.core.compression import edits, structure
from okbot.core.digest import checklist_entry, is_directive, item_digest
from okbot.core.items import item_text
from okbot.core.language import LANGUAGE_WORDS, users_language
from okbot.core.wire_names import NO_NAMES, WireNames

Complete = Callable[[list[dict[str, str]]], str]

SYSTEM_PROMPT = """You keep the running summary of a long conversation between a user and an assistant up to date.
You get the PREVIOUS SUMMARY (goals and progress lines numbered), the NEWLY COVERED ITEMS (older
conversation leaving the model's view, each with its #id) and a CHECKLIST of messages the user typed.

Do not rewrite the summary. Write only what changed, one edit per line:
{text_format}

Rules:
- Only what is new. Every line you do not name stays as it is. Nothing new: write only KEEP and RELEASE.
- A goal comes only from a message the user typed: end it with that message's #id. Keep the user's meaning:
  a rule about how to work ("report each one in one line") is an AGREEMENT, never a task.
- Mark a goal finished by number, citing the newly covered item that shows it finished (GOAL 2: done #31);
  only the user withdraws a goal (GOAL 2: withdrawn #<their message>). A queue is done only at its last item.
  Never restate an old goal.
- Lines marked (from the record) or （据记录） are the app's: no edit changes them. One that points at the
  user's message as the goal is replaced when you write that goal in words (GOAL: … #<that id>).
- Copy exact references (numbers, #ids, paths, URLs) character for character; invent none.
- One short line per edit; the whole answer under {limit} characters.
- In a squad (a captain and members), say who decided or promised what: the user, the captain or the member by name.
- KEEP a checklist message when it sets direction, states a constraint or prohibition, a preference or a permission
  that still applies; RELEASE it when it was withdrawn, superseded or is done. Keep few.
- Write the text of every edit in {language}, the language the user writes in. The keywords (GOAL, AGREEMENT,
  DECISION, PROGRESS, REFERENCE, DROP PROGRESS, KEEP, RELEASE, done, withdrawn, active) stay in English.
If your reply must follow a JSON schema, put the same edits in its fields.

Example (from another conversation: never copy it):
GOAL: migrate the billing tables, one a day #14
GOAL 1: done #17
DECISION: use pg_dump — it keeps constraints
PROGRESS: invoices table migrated; next: payments
DROP PROGRESS: 2
KEEP: 14
RELEASE: none"""


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
    """Revises a structured summary from digests: asks for edits, applies them, repairs once."""

    # what the app asks of a server that takes a JSON schema (the text format is the fallback)
    RESPONSE_FORMAT = edits.RESPONSE_FORMAT

    def __init__(
        self,
        complete: Complete,
        count_tokens: Callable[[str], int],
        *,
        max_chars: int,
        names: WireNames = NO_NAMES,  # a squad's members, by the names the model knows them
    ) -> None:
        self.complete = complete
        self.count_tokens = count_tokens
        self.max_chars = max_chars
        self.names = names

    def build_messages(
        self,
        previous: str,
        covered: Sequence[dict[str, Any]],
        checklist: Sequence[dict[str, Any]],
        language: str | None = None,
    ) -> list[dict[str, str]]:
        """The request: the previous summary numbered and cut to its budgets, digests, the checklist.

        It asks for ``language`` (default: the language the user writes in, :func:`summary_language`)."""
        digests = "\n".join(item_digest(it, names=self.names) for it in covered) or "(none)"
        boxes = "\n".join(checklist_entry(it) for it in checklist) or "(none)"
        view = structure.fit_sections(edits.numbered_view(previous), self.max_chars)
        user = (
            f"PREVIOUS SUMMARY:\n{view}\n\n"
            f"NEWLY COVERED ITEMS:\n{digests}\n\nCHECKLIST (messages the user typed):\n{boxes}"
        )
        words = LANGUAGE_WORDS[language or summary_language(previous, covered, checklist)]
        system = SYSTEM_PROMPT.format(text_format=edits.TEXT_FORMAT, limit=self.max_chars, language=words)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def input_cost(self, previous: str, covered: Sequence[dict[str, Any]], checklist: Sequence[dict[str, Any]]) -> int:
        """Tokens of the first request for this delta."""
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
        A refused edit is left out (and named in ``notes``); the answer as a whole is rejected only when
        it cannot be read, twice.
        """
        language = summary_language(previous, covered, checklist)
        messages = self.build_messages(previous, covered, checklist, language)
        citable = {
            it["id"]: f"#{it['id']} {it.get('content', '')}"
            for it in (*covered, *checklist)
            if it.get("type") == "user" and it.get("source") == "user"
        }
        covered_text = {it["id"]: item_text(it) for it in covered}
        grounding = [*sources, *(f"#{it['id']} {it.get('content', '')}" for it in checklist)]
        input_tokens = first_prompt = sum(self.count_tokens(m["content"]) for m in messages)
        output_tokens = calls = 0
        problems: list[str] = []
        best: tuple[str, edits.Edits, list[str]] | None = None
        for attempt in range(2):
            try:
                answer = self.complete(messages) or ""
            except Exception as exc:  # noqa: BLE001 - any failure of the call means "keep the previous summary"
                raise SummaryRejected(
                    [f"the summarizer call failed: {exc}"], input_tokens=input_tokens, output_tokens=output_tokens
                ) from exc
            calls += 1
            output_tokens += self.count_tokens(answer)
            parsed, problems = edits.parse_answer(answer, max_chars=self.max_chars)
            if parsed is not None:
                summary, refused = edits.apply_edits(
                    previous, parsed, citable=citable, sources=grounding, covered=covered_text, language=language
                )
                problems = structure.check(summary, previous)
                if not problems:
                    best = (summary, parsed, refused)
                    problems = refused
            if not problems or attempt == 1:
                break
            messages = [
                *messages,
                {"role": "assistant", "content": answer},
                {"role": "user", "content": _repair_request(problems, readable=parsed is not None)},
            ]
            input_tokens += sum(self.count_tokens(m["content"]) for m in messages)
        if best is None:
            raise SummaryRejected(problems, input_tokens=input_tokens, output_tokens=output_tokens)
        summary, parsed, refused = best
        if not parsed.lines.get(edits.PROGRESS):
            summary = edits.note_progress(summary, covered)
        notes = [f"refused edit: {r}" for r in refused]
        if parsed.keep is None:
            notes.append("no KEEP line; kept every checklist message not released")
        unknown = sorted((set(parsed.keep or []) | set(parsed.release)) - {it["id"] for it in checklist})
        if unknown:
            notes.append(f"ignored ids that are not on the checklist: {unknown}")
        kept = decide_kept(checklist, set(previously_kept), parsed.keep, parsed.release)
        return SummaryOutcome(summary, kept, input_tokens, output_tokens, calls, notes, first_prompt)


def summary_language(previous: str, covered: Sequence[dict[str, Any]], checklist: Sequence[dict[str, Any]]) -> str:
    """The language the summary is written in: the user's in the newly covered items and the checklist,
    else that of the previous summary's headings."""
    return users_language([*covered, *checklist], default=structure.heading_language(previous or ""))


def _repair_request(problems: Sequence[str], *, readable: bool) -> str:
    """The one repair request: what was wrong, and what to send instead."""
    head = "These edits were refused:" if readable else "Your answer could not be read:"
    tail = (
        "Answer again with all your edits, the accepted ones too, with these corrected or left out."
        if readable
        else "Answer again with the edits only, one per line in the format described."
    )
    return "\n".join([head, *(f"- {p}" for p in problems), tail])
