"""Checking what a person gives for an assistant or squad record: names, free text, squad members, captain.

Pure functions over values (no files): the workspace calls them before it writes anything, so
bad input is refused with a clear :class:`OkBotError` and nothing on disk changes.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage.errors import OkBotError

MAX_NAME_CHARS = 200
MIN_SQUAD_MEMBERS = 2
MAX_ROUNDS = 1000
DEFAULT_CAPTAIN: dict[str, Any] = {"persona": "", "playbook": ""}
DEFAULT_CAPTAIN.update(maxCaptainRounds=20, maxMemberRounds=10)
_CAPTAIN_TEXT = ("persona", "playbook")
_CAPTAIN_TEXT_NAMES = {
    "persona": QT_TRANSLATE_NOOP("record_fields", "captain persona"),
    "playbook": QT_TRANSLATE_NOOP("record_fields", "captain playbook"),
}
_CAPTAIN_ROUNDS = ("maxCaptainRounds", "maxMemberRounds")


def check_name(name: Any) -> str:
    """``name`` stripped; refused when not text, empty, too long or holding control characters."""
    if not isinstance(name, str):
        raise OkBotError(translate("record_fields", "A name must be text."))
    stripped = name.strip()
    if not stripped:
        raise OkBotError(translate("record_fields", "A name cannot be empty."))
    if len(stripped) > MAX_NAME_CHARS:
        raise OkBotError(
            translate("record_fields", "A name can have at most {limit} characters ({n} given).").format(
                limit=MAX_NAME_CHARS, n=len(stripped)
            )
        )
    if any(unicodedata.category(ch) == "Cc" for ch in stripped):
        raise OkBotError(
            translate("record_fields", "A name cannot contain control characters such as line breaks or tabs.")
        )
    return stripped


def check_text(value: Any, what: str) -> str:
    """Free text stripped (``None`` -> ``""``); anything but text is refused, naming ``what`` (a
    ``QT_TRANSLATE_NOOP("record_fields", …)`` text)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise OkBotError(
            translate("record_fields", "The {what} must be text.").format(what=translate("record_fields", what))
        )
    return value.strip()


def clean_members(raw: Any) -> list[dict]:
    """The readable ``{"assistant": id, "role": str}`` entries of a squad.json ``members`` value."""
    return [
        {"assistant": m["assistant"], "role": m.get("role") if isinstance(m.get("role"), str) else ""}
        for m in (raw if isinstance(raw, list) else [])
        if isinstance(m, dict) and isinstance(m.get("assistant"), str) and m["assistant"]
    ]


def check_members(members: Any, resolve: Callable[[str], Any]) -> list[dict]:
    """``(assistant id or name, role)`` pairs -> squad.json members: distinct existing assistants, at least two.

    ``resolve`` finds a target by id or name (``Workspace.resolve``; it raises when none matches).
    """
    resolved: list[dict] = []
    seen: set[str] = set()
    for entry in members or []:
        if not (isinstance(entry, (tuple, list)) and len(entry) == 2):
            raise OkBotError(translate("record_fields", "Each squad member must be given as (assistant, role)."))
        ref, member_role = entry
        member_role = check_text(member_role, QT_TRANSLATE_NOOP("record_fields", "member role"))
        target = resolve(ref)
        if not target.is_assistant:
            raise OkBotError(
                translate("record_fields", "'{ref}' is a squad; only assistants can be squad members.").format(ref=ref)
            )
        if target.id in seen:
            raise OkBotError(
                translate("record_fields", "{name} ({id}) is listed twice in the squad.").format(
                    name=target.name, id=target.id
                )
            )
        seen.add(target.id)
        resolved.append({"assistant": target.id, "role": member_role})
    if len(resolved) < MIN_SQUAD_MEMBERS:
        raise OkBotError(
            translate("record_fields", "A squad needs at least {min} different assistants ({n} given).").format(
                min=MIN_SQUAD_MEMBERS, n=len(resolved)
            )
        )
    return resolved


def check_captain(captain: Any, current: Any = None) -> dict:
    """``captain`` (persona, playbook, maxCaptainRounds, maxMemberRounds; any subset) merged onto ``current``.

    ``current`` is the stored captain (defaults when it is not an object); keys it holds that this
    version does not know are kept. Unknown keys in ``captain``, non-text texts and round limits
    outside 1..1000 are refused.
    """
    if not isinstance(captain, dict):
        raise OkBotError(
            translate("record_fields", "The captain settings must be an object (persona, playbook, round limits).")
        )
    unknown = sorted(set(captain) - {*_CAPTAIN_TEXT, *_CAPTAIN_ROUNDS})
    if unknown:
        raise OkBotError(
            translate("record_fields", "Unknown captain setting(s): {keys}.").format(keys=", ".join(map(str, unknown)))
        )
    merged = {**DEFAULT_CAPTAIN, **(current if isinstance(current, dict) else {})}
    for key, value in captain.items():
        if key in _CAPTAIN_TEXT:
            merged[key] = check_text(value, _CAPTAIN_TEXT_NAMES[key])
        elif isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ROUNDS:
            raise OkBotError(
                translate("record_fields", "The captain's {key} must be a whole number from 1 to {max}.").format(
                    key=key, max=MAX_ROUNDS
                )
            )
        else:
            merged[key] = value
    return merged
