"""Who speaks in a squad's chat: the captain, the members, their names and colour slots.

A squad's record holds ids (``author``, ``source = "member:<id>"``, ``ask_<id>`` calls); the chat
view shows names. :class:`SquadRoster` maps one to the other: the captain (the squad's own id) is
"Captain", a member is their current name, and anyone no longer in the workspace shows their id.
Each member gets one of :data:`SLOTS` colour slots, spread so the squad's members differ. No Qt
here, so the wording and the slots can be tested on their own.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from okbot.core.items import asked_member, delegation_tool_name, member_of
from okbot.i18n import QT_TRANSLATE_NOOP, translate

CAPTAIN_LABEL = QT_TRANSLATE_NOOP("roster", "Captain")  # shown as translate("roster", CAPTAIN_LABEL)
SLOTS = 8  # colour slots (hues) an avatar can take
CAPTAIN_SLOT = -1  # the captain paints with the accent colour, not a member hue


@dataclass(frozen=True)
class SquadInfo:
    """How a squad row names its speaker (and, for a delegation, whom the captain asked)."""

    name: str
    slot: int  # colour slot (roster.CAPTAIN_SLOT for the captain)
    captain: bool = False
    to_captain: bool = False  # a member's answer to the captain's task
    to_name: str = ""  # a delegation: the member asked
    to_slot: int = 0


@dataclass
class SquadRoster:
    """Names and colour slots for one squad's speakers (see the module docstring)."""

    squad_id: str
    members: list[str] = field(default_factory=list)  # member ids, in the squad's order
    names: dict[str, str] = field(default_factory=dict)  # every known assistant id -> name
    captain_label: str = field(default_factory=lambda: translate("roster", CAPTAIN_LABEL))
    _slots: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._slots = spread_slots(self.members)

    @classmethod
    def build(cls, squad: Any, assistants: Iterable[Any]) -> SquadRoster:
        """The roster of ``squad`` (a Target) given the workspace's assistants (Targets with id/name)."""
        names = {a.id: a.name for a in assistants}
        members = [str(m.get("assistant")) for m in squad.members if isinstance(m, dict) and m.get("assistant")]
        return cls(squad_id=squad.id, members=members, names=names)

    def is_captain(self, author: str) -> bool:
        return author == self.squad_id

    def name(self, author: str) -> str:
        """ "Captain" for the squad itself, a member's name, or the id of someone no longer there."""
        if self.is_captain(author):
            return self.captain_label
        return self.names.get(author) or author

    def member_of_call(self, tool_name: str) -> str:
        """The member id an ``ask_<id>`` tool asks (``""`` for other tools)."""
        asked = asked_member(tool_name)
        if not asked:
            return ""
        for member in self.members:
            if delegation_tool_name(member) == tool_name:
                return member
        for known in self.names:
            if delegation_tool_name(known) == tool_name:
                return known
        return asked

    def speaker(self, item: Mapping[str, Any]) -> str:
        """Who said ``item``: a member id, the squad id for the captain, or ``""`` for the user / the app."""
        kind = item.get("type")
        member = member_of(item)
        if kind in ("assistant", "stream") and member:
            return member
        if kind == "tool_result" and member:
            return member
        if kind in ("assistant", "tool_call", "tool_result"):
            return str(item.get("author") or self.squad_id)
        return ""

    def slot(self, author: str) -> int:
        """The colour slot of ``author`` (:data:`CAPTAIN_SLOT` for the captain)."""
        if self.is_captain(author):
            return CAPTAIN_SLOT
        hit = self._slots.get(author)
        return hit if hit is not None else home_slot(author)


def home_slot(key: str) -> int:
    """The colour slot a speaker prefers: a hash of their id, the same in every session."""
    return zlib.crc32(key.encode("utf-8")) % SLOTS


def spread_slots(members: Iterable[str]) -> dict[str, int]:
    """Each member's slot: their home slot when no squad-mate's hue is near it, else the nearest slot
    that is (hues two slots apart read as different; neighbours do not).

    Members are placed in the squad's order, so adding one never recolours the others.
    """
    out: dict[str, int] = {}
    for member in members:
        if member in out:
            continue
        home = home_slot(member)
        taken = set(out.values())
        by_nearness = sorted(range(SLOTS), key=lambda s: (_ring(s, home), s))
        room = {s: min((_ring(s, t) for t in taken), default=SLOTS) for s in by_nearness}
        roomy = [s for s in by_nearness if room[s] >= 2]
        out[member] = roomy[0] if roomy else max(by_nearness, key=lambda s: room[s])
    return out


def _ring(a: int, b: int) -> int:
    """How many slots apart ``a`` and ``b`` are around the colour wheel."""
    d = abs(a - b) % SLOTS
    return min(d, SLOTS - d)


def working_text(names: list[str]) -> str:
    """``Rex is working…``, ``Rex and Mia are working…``, ``Rex, Mia and Ola are working…`` (``""``: nobody)."""
    if not names:
        return ""
    if len(names) == 1:
        return translate("roster", "{name} is working…").format(name=names[0])
    return translate("roster", "{names} and {last} are working…").format(
        names=translate("roster", ", ").join(names[:-1]), last=names[-1]
    )
