"""Offering what the user taught, as written: the card after the reply, *Keep* and *Not now*, on disk.

After each turn (:func:`offer_after_turn`, run by the turn's wrap-up before the memory keeper's), the
message the user typed for it is read by :func:`~okbot.core.evolution.teachings.detect`. A teaching
not offered before gets:

- a **card** in ``session.jsonl``, right after the reply: a notice item carrying ``teaching``
  (:func:`okbot.core.items.teaching_notice`). The chat draws it as the card where it was offered, so
  it is there when the chat is opened again; its text says the same in words for what draws no card
  (an export, an older OkBot);
- a **state** in ``evolution.jsonl``: ``{"type": "teaching", "of": <message id>, "state": "offered" |
  "kept" | "declined", "kind": …, "entries": [<applied change ids>]}``, the newest record of a message
  being its state (:meth:`~okbot.core.evolution.store.Evolution.teaching_records`).

:func:`keep` writes the user's words, never a model's: each sentence of a rule, prohibition or
permission becomes one persona line of SOUL.md under "Learnt from our conversations"; a procedure
becomes a skill named after what triggers it, its description the trigger and its body the steps as
typed. A procedure is a skill, not persona lines, because it is needed only when its trigger comes
up (the catalog line, in every request, names that trigger; the steps load with ``load_skill``),
because its steps are lines of their own that one SOUL.md line cannot hold as typed, and because
procedures upkeep learns are skills too, so both kinds are listed, checked for duplicates and undone
in one place. The change goes through the staging machinery (:meth:`Evolution.stage`, then
:meth:`Evolution.land` at once, as *Apply now* does: the user asked, so this is a boundary and what
else waited lands with it); it is logged as applied with the message cited, so the Evolution tab
shows and undoes it like any other change.

A message that was offered is never offered again, whatever its state; upkeep refuses an edit that
cites only such messages (:func:`taught_ids`, check ``teaching``), so the model never proposes
again, in its own words, what the user kept or waved away.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from okbot.core.evolution import persona
from okbot.core.evolution.persona import DEFAULT_SECTION, MAX_SOUL_CHARS, Change
from okbot.core.evolution.skill_edits import SkillChange, skill_text, slug
from okbot.core.evolution.store import LogEntry
from okbot.core.evolution.teachings import PROCEDURE, Teaching, detect_item
from okbot.core.items import teaching_notice
from okbot.core.memory.secrets import redact
from okbot.core.skills import SKILL_FILE, check_name
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.evolution")

OFFERED, KEPT, DECLINED = "offered", "kept", "declined"
STATES = (OFFERED, KEPT, DECLINED)
WHY_CHARS = 200


@dataclass(frozen=True)
class Offer:
    """One message offered on a card: its id, what it teaches, its state and the changes keeping it applied."""

    of: int
    kind: str
    state: str
    words: str = ""
    entries: tuple[int, ...] = ()
    at: str = ""
    card: int = 0  # the id of the card's notice in the session

    def to_json(self) -> dict[str, Any]:
        return {
            "of": self.of,
            "card": self.card,
            "kind": self.kind,
            "state": self.state,
            "words": self.words,
            "entries": list(self.entries),
            "at": self.at,
        }


def offers(sources: Any, target: Target) -> dict[int, Offer]:
    """Every message offered on a card in ``target``'s chat, by id, in its newest state."""
    out = {}
    for of, obj in sources.evolution.teaching_records(target).items():
        state = obj.get("state")
        if state not in STATES:
            continue
        entries = tuple(i for i in obj.get("entries") or [] if type(i) is int)
        words = obj.get("words") if isinstance(obj.get("words"), str) else ""
        card = obj.get("card") if type(obj.get("card")) is int else 0
        out[of] = Offer(of, str(obj.get("kind") or ""), state, words, entries, str(obj.get("at") or ""), card)
    return out


def taught_ids(sources: Any, target: Target) -> set[int]:
    """The user's messages offered on a card (kept, declined or waiting): upkeep leaves them to the card."""
    return set(sources.evolution.teaching_records(target))


def offer_after_turn(sources: Any, target: Target, result: Any) -> dict[str, Any] | None:
    """After a complete turn of an assistant that learns: the card for what the user's message taught (appended to
    the session and to ``result.items``), or None. Never raises: a card is not worth a failed turn."""
    try:
        return _offer(sources, target, result)
    except (OkBotError, OSError) as exc:
        log.warning("could not offer what %s was taught: %s", target.name, exc)
        return None


def _offer(sources: Any, target: Target, result: Any) -> dict[str, Any] | None:
    if result.status != "complete" or not result.user_id or not sources.evolution.enabled(target):
        return None
    if not sources.settings.get("evolution.offerTeachings"):
        return None
    session = sources.session(target)
    user = session.get(result.user_id)
    teaching = detect_item(user) if user else None
    if teaching is None or result.user_id in sources.evolution.teaching_records(target):
        return None
    card = session.append(
        teaching_notice(card_text(teaching, result.user_id), of=result.user_id, kind=teaching.kind, words=teaching.text)
    )
    record = {
        "of": result.user_id,
        "state": OFFERED,
        "kind": teaching.kind,
        "words": _why(teaching),
        "card": card["id"],
    }
    sources.evolution.record_teaching(target, record)
    result.items.append(card)
    return card


def card_text(teaching: Teaching, of: int) -> str:
    """The card in words, for what draws no card: what it offers and from which message."""
    if teaching.kind == PROCEDURE:
        text = translate("offers", "Keep this as a skill? “{words}” (your message #{id})")
    else:
        text = translate("offers", "Keep this as a rule? “{words}” (your message #{id})")
    return text.format(words=teaching.text, id=of)


def keep(sources: Any, target: Target, of: int) -> list[LogEntry]:
    """Write what message ``of`` taught, in its words (persona lines or a skill); the applied changes.

    OkBotError when there is nothing to keep: no such card, kept already, the message no longer says it,
    SOUL.md cannot take it."""
    offer = _offer_of(sources, target, of)
    if offer.state == KEPT:
        raise OkBotError(translate("offers", "Message #{id} was kept already.").format(id=of))
    user = sources.session(target).get(of)
    teaching = detect_item(user) if user else None
    if teaching is None:  # the words are read from the message itself, never from the card
        raise OkBotError(translate("offers", "Message #{id} no longer holds what was offered.").format(id=of))
    evolution = sources.evolution
    why = _why(teaching)
    if teaching.kind == PROCEDURE:
        change: Change | SkillChange = _skill(sources, target, teaching, of)
        evolution.stage(target, None, [], [(change, why)], [])
    else:
        seen = evolution.soul_bytes(target)
        changes = _persona_lines(evolution, target, seen, teaching, of)
        if not changes:
            raise OkBotError(translate("offers", "{name}'s persona already says this.").format(name=target.name))
        evolution.stage(target, seen, [(c, why) for c in changes], [], [])
    landed = evolution.land(target)
    mine = [e for e in landed if e.cited == (of,)]
    if not mine:
        raise OkBotError(
            translate("offers", "Message #{id} was not kept: its file changed meanwhile.").format(id=of),
            hint=translate("offers", "try again"),
        )
    evolution.record_teaching(
        target,
        {
            "of": of,
            "state": KEPT,
            "kind": teaching.kind,
            "words": why,
            "entries": [e.id for e in mine],
            "card": offer.card,
        },
    )
    return mine


def decline(sources: Any, target: Target, of: int) -> Offer:
    """*Not now*: message ``of`` is not kept, and never offered again (``okbot teach keep`` still keeps it)."""
    offer = _offer_of(sources, target, of)
    if offer.state == KEPT:
        raise OkBotError(
            translate("offers", "Message #{id} was kept already.").format(id=of),
            hint=translate("offers", "undo it in Assistant… → Evolution, or with okbot evolve --undo"),
        )
    record = {"of": of, "state": DECLINED, "kind": offer.kind, "words": offer.words, "card": offer.card}
    written = sources.evolution.record_teaching(target, record)
    return Offer(of, offer.kind, DECLINED, offer.words, (), str(written.get("at") or ""), offer.card)


def _offer_of(sources: Any, target: Target, of: int) -> Offer:
    if not target.is_assistant:
        raise OkBotError(
            translate("offers", "{name} is a squad: only assistants keep rules and skills.").format(name=target.name)
        )
    offer = offers(sources, target).get(of)
    if offer is None:
        raise OkBotError(
            translate("offers", "Message #{id} of {name} was not offered to keep.").format(id=of, name=target.name),
            hint=translate("offers", "okbot teach list {target} shows what was").format(target=target.id),
        )
    return offer


def _persona_lines(evolution: Any, target: Target, seen: bytes | None, teaching: Teaching, of: int) -> list[Change]:
    soul = evolution.effective_soul(target, seen)
    if soul is None:
        raise OkBotError(
            translate("offers", "SOUL.md of {name} is missing or not plain text: nothing was written.").format(
                name=target.name
            )
        )
    present = {_key(line) for line in soul.splitlines()}
    changes = [
        Change("add", "", f"- {line}", DEFAULT_SECTION, (of,)) for line in teaching.lines if _key(line) not in present
    ]
    grows = sum(len(c.after) + 1 for c in changes)
    if changes and len(soul) + grows > MAX_SOUL_CHARS:
        raise OkBotError(
            translate("offers", "SOUL.md of {name} would be over {limit} characters.").format(
                name=target.name, limit=f"{MAX_SOUL_CHARS:,}"
            ),
            hint=translate("offers", "shorten it in Assistant… → Persona, then keep it again"),
        )
    return changes


def _skill(sources: Any, target: Target, teaching: Teaching, of: int) -> SkillChange:
    if target.skills_dir is None:
        raise OkBotError(translate("offers", "{name} has no skills folder.").format(name=target.name))
    name = _skill_name(teaching.phrase, of)
    taken = {s.name.casefold() for s in sources.skills_of(target).skills()}
    taken |= {c.name.casefold() for c, _why in sources.evolution.pending(target).skills}
    if name.casefold() in taken or (target.skills_dir / name / SKILL_FILE).exists():
        name = _skill_name(f"{teaching.phrase}-{of}", of)
    body = "\n".join(f"{n}. {step}" for n, step in enumerate(teaching.steps, 1))
    description = teaching.trigger
    return SkillChange("create", name, description, "", skill_text(name, description, body), (of,))


def _skill_name(phrase: str, of: int) -> str:
    try:
        return check_name(slug(phrase)[:48].strip("-."))
    except OkBotError:
        return f"procedure-{of}"


def _why(teaching: Teaching) -> str:
    words = redact(teaching.text)
    return words if len(words) <= WHY_CHARS else words[: WHY_CHARS - 1] + "…"


def _key(line: str) -> str:
    return " ".join(persona.content(line).casefold().split())
