"""Persona and skill upkeep after a turn: throttled, in the background, one model call per kind that is due.

The memory keeper's wrap-up calls :meth:`Upkeep.run` after each turn and at each compression (a
segment boundary). A kind is due when, since its last run, the user wrote ``evolution.everyTurns``
messages or the conversation grew by ``evolution.everyChars`` characters, or at a boundary when
anything new was said. The model sees the persona (with the changes staged so far) or the skill
catalog and the new messages with their ids; what it proposes is checked (:mod:`.persona`,
:mod:`.skill_edits`) and staged (:class:`~okbot.core.evolution.store.Evolution`), to land together
at the next boundary. ``force`` (``okbot evolve``) runs every kind now and lands at once.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from okbot.core.evolution import offers, persona, skill_edits
from okbot.core.evolution.persona import Refusal
from okbot.core.evolution.store import KINDS, SCAN_ITEMS, STATE_FILE, LogEntry
from okbot.core.grounding import typed_by_user
from okbot.core.memory.secrets import redact
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.llm.provider import ask_in_background
from okbot.storage import migrations
from okbot.storage.atomic import atomic_write_json
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.evolution")

SHOWN_ITEMS = 30  # of which the model is shown at most this many messages
USER_CHARS = 1500
REPLY_CHARS = 500
REPLY_MAX_TOKENS = 700
WHY_CHARS = 200
STATE_VERSION = migrations.CURRENT["evolution-state"]  # newer: upkeep stays off, the file untouched

Phase = Callable[[Target, str], None]  # (target, "persona" | "skills" | "") -- "" when done


@dataclass
class UpkeepReport:
    """What one upkeep run did, per kind: proposed, staged, refused (with the check), applied."""

    target: str = ""
    ran: list[str] = field(default_factory=list)
    proposed: int = 0
    staged: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    applied: list[LogEntry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "ran": self.ran,
            "proposed": self.proposed,
            "staged": self.staged,
            "applied": [
                {"id": e.id, "kind": e.kind, "summary": e.summary, "cited": list(e.cited)} for e in self.applied
            ],
            "refused": [{"what": r.what, "check": r.check, "reason": r.reason} for r in self.refused],
            "problems": self.problems,
        }


class Upkeep:
    """Runs persona and skill upkeep for a target through ``provider`` (a provider or a factory of one)."""

    def __init__(self, sources: Any, provider: Any, *, on_phase: Phase | None = None) -> None:
        self.sources = sources
        self._provider = provider
        self.on_phase = on_phase

    @property
    def evolution(self) -> Any:
        return self.sources.evolution

    def run(self, target: Target, *, boundary: bool = False, force: bool = False) -> UpkeepReport:
        """Upkeep of every kind that is due (all with ``force``); ``force`` also lands the changes at once."""
        report = UpkeepReport(target=target.name)
        if not self.evolution.enabled(target) and not force:
            return report
        if force and not target.is_assistant:
            report.problems.append(
                translate("upkeep", "only assistants evolve: a squad has no persona or skills of its own")
            )
            return report
        state = self._load_state(target)
        if state is None:
            report.problems.append(
                migrations.newer_message(target.dir / STATE_FILE, self._state_version(target), "evolution-state")
            )
            return report
        session = self.sources.session(target)
        recent = session.tail(SCAN_ITEMS)
        for kind in KINDS:
            since = state.get(kind, 0)
            new = [it for it in recent if it.get("id", 0) > since and it.get("type") in ("user", "assistant")]
            if not self._due(new, boundary=boundary, force=force):
                continue
            shown = new[-SHOWN_ITEMS:]
            self._phase(target, kind)
            try:
                (self._persona if kind == "persona" else self._skills)(target, shown, report)
            except OkBotError as exc:  # the staging file cannot be written (a newer OkBot's, a full disk)
                report.problems.append(str(exc))
                return report
            finally:
                self._phase(target, "")
            report.ran.append(kind)
            state[kind] = shown[-1]["id"]
            self._save_state(target, state)
        if force:
            report.applied = self.evolution.land(target)
        return report

    def _due(self, new: list[dict[str, Any]], *, boundary: bool, force: bool) -> bool:
        turns = sum(1 for it in new if typed_by_user(it))
        if not turns:
            return False
        if force or boundary:
            return True
        settings = self.sources.settings
        chars = sum(len(str(it.get("content") or "")) for it in new)
        return turns >= settings.get("evolution.everyTurns") or chars >= settings.get("evolution.everyChars")

    # -- the two kinds ----------------------------------------------------------------------
    def _persona(self, target: Target, items: list[dict[str, Any]], report: UpkeepReport) -> None:
        seen = self.evolution.soul_bytes(target)
        soul = self.evolution.effective_soul(target, seen)
        if soul is None:
            report.problems.append(
                translate("upkeep", "SOUL.md is missing, unreadable or not plain UTF-8 text: upkeep leaves it alone")
            )
            return
        edits = self._proposals(target, persona, soul, items, report)
        if edits is None:
            return
        mine, undone, _skills, _undone_skills = self.evolution.provenance(target)
        mine |= {change.after for change, _why in self.evolution.pending(target).persona}  # staged lines are upkeep's
        changes, refusals = persona.check_edits(edits, soul, items, written_by_upkeep=mine, undone=undone)
        changes = self._not_on_a_card(target, changes, refusals, lambda c: persona.content(c.after or c.before))
        report.proposed += len(edits)
        report.refused.extend(refusals)
        staged = [(c, _why(c.cited, items)) for c in changes]
        report.refused.extend(self.evolution.stage(target, seen, staged, [], refusals))
        report.staged.extend(f"persona: {c.op} {persona.content(c.after or c.before)}" for c in changes)

    def _skills(self, target: Target, items: list[dict[str, Any]], report: UpkeepReport) -> None:
        catalog = self.sources.skills_of(target)
        existing = {s.name: text for s in catalog.skills() if (text := _read(s.path)) is not None}
        staged_now = self.evolution.pending(target).skills
        for change, _reason in staged_now:  # what is staged counts as there already
            existing[change.name] = change.after
        proposals = self._proposals(target, skill_edits, catalog.catalog(), items, report)
        if proposals is None:
            return
        _mine, _undone, written, undone = self.evolution.provenance(target)
        for change, _reason in staged_now:
            written[change.name] = change.after
        changes, refusals = skill_edits.check_proposals(
            proposals, items, existing, written_by_upkeep=written, undone=sorted(undone)
        )
        changes = self._not_on_a_card(target, changes, refusals, lambda c: f"skill {c.name}: {c.description}")
        report.proposed += len(proposals)
        report.refused.extend(refusals)
        self.evolution.stage(target, None, [], [(c, _why(c.cited, items)) for c in changes], refusals)
        report.staged.extend(f"skill: {c.op} {c.name}" for c in changes)

    def _not_on_a_card(self, target: Target, changes: list[Any], refusals: list[Refusal], what: Any) -> list[Any]:
        """``changes`` without those citing only messages offered on a teaching card (kept, declined or waiting):
        those are the user's to keep as written, never the model's to reword. Each one left out is refused."""
        carded = offers.taught_ids(self.sources, target)
        kept = []
        for change in changes:
            if change.cited and set(change.cited) <= carded:
                ids = ", ".join(f"#{i}" for i in change.cited)
                reason = translate("upkeep", "{ids} was offered to the user as written, on a card").format(ids=ids)
                refusals.append(Refusal(redact(what(change))[:200], "teaching", reason))
            else:
                kept.append(change)
        return kept

    def _proposals(
        self, target: Target, kind: Any, shown: Any, items: list[dict[str, Any]], report: UpkeepReport
    ) -> list[Any] | None:
        """Ask the model (``kind`` is :mod:`.persona` or :mod:`.skill_edits`) and read its answer; None when
        there is none to check (the request failed or the answer is unusable, both reported)."""
        structured = bool(self.sources.settings.get("evolution.structuredOutput"))
        messages = kind.build_messages(shown, _items_text(items), structured=structured)
        try:
            answer = ask_in_background(
                self._provider,
                self.sources.model_for(target),
                messages,
                max_tokens=REPLY_MAX_TOKENS,
                response_format=kind.RESPONSE_FORMAT if structured else None,
            )
        except (OkBotError, OSError) as exc:
            report.problems.append(translate("upkeep", "upkeep request failed: {error}").format(error=exc))
            log.warning("upkeep of %s failed: %s", target.name, exc)
            return None
        found, problem = kind.parse_answer(answer)
        if problem:
            report.problems.append(
                translate("upkeep", "{kind} upkeep answer unusable: {problem}").format(kind=kind.KIND, problem=problem)
            )
            return None
        return found

    def _phase(self, target: Target, kind: str) -> None:
        if self.on_phase is not None:
            try:
                self.on_phase(target, kind)
            except Exception:  # noqa: BLE001 - a listener's bug must not stop upkeep
                log.exception("upkeep phase listener failed")

    # -- state ----------------------------------------------------------------------------------
    def _load_state(self, target: Target) -> dict[str, int] | None:
        """How far each kind has read; None when a newer OkBot wrote the file (upkeep then stays off)."""
        try:
            obj = json.loads((target.dir / STATE_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("upkeep state of %s unreadable (%s); starting from the recent messages", target.name, exc)
            return {}
        if not isinstance(obj, dict):
            return {}
        if (migrations.version_of(obj) or 0) > STATE_VERSION:
            return None
        through = obj.get("throughId") if obj.get("version") == STATE_VERSION else None
        if not isinstance(through, dict):
            return {}
        return {k: v for k, v in through.items() if k in KINDS and isinstance(v, int)}

    def _state_version(self, target: Target) -> int:
        on_disk = migrations.read_upgrade(target.dir / STATE_FILE, "evolution-state")
        return on_disk.from_version if on_disk is not None else STATE_VERSION

    def _save_state(self, target: Target, state: dict[str, int]) -> None:
        try:
            atomic_write_json(target.dir / STATE_FILE, {"version": STATE_VERSION, "throughId": state})
        except OSError as exc:
            log.warning("could not save the upkeep state of %s: %s", target.name, exc)


def _items_text(items: list[dict[str, Any]]) -> str:
    lines = []
    for it in items:
        text = " ".join(str(it.get("content") or "").split())
        limit = USER_CHARS if it.get("type") == "user" else REPLY_CHARS
        who = "user" if typed_by_user(it) else str(it.get("type"))
        lines.append(f"[#{it['id']} {who}] {text if len(text) <= limit else text[:limit] + ' …'}")
    return "\n".join(lines)


def _why(cited: tuple[int, ...], items: list[dict[str, Any]]) -> str:
    """The user's words a change came from, briefly (never a secret)."""
    by_id = {it.get("id"): it for it in items}
    words = " / ".join(" ".join(str(by_id[i].get("content") or "").split()) for i in cited if i in by_id)
    words = redact(words)
    return words if len(words) <= WHY_CHARS else words[: WHY_CHARS - 1] + "…"


def _read(path: Any) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
