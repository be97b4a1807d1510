"""How a squad's members are named in what the model reads: by their current name, never their id.

A squad's record keeps ids, which stay stable when an assistant is renamed: ``author``,
``source = "member:<id>"`` and the captain's ``ask_<id>`` calls. The model reads names instead: its
delegation tools are ``ask_<name>`` (``ask_ada`` for Ada, whatever folder she lives in), and the
labels before members' words say "squad member Ada". :class:`WireNames` maps the one to the other on
the way out (tool specs, tool notes, messages, summarizer input) and a tool call back on the way in,
so a rename reaches the very next request and the record never changes.

A name gives its tool name only when that is unambiguous: a name with no Latin letters (``小明``),
or one another member's name or id also gives, keeps the id's ``ask_<id>``; two members sharing a
name are labelled with their ids as well.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from okbot.core.items import ASK_PREFIX, delegation_tool_name
from okbot.core.workspace import ascii_slug

_NOT_LABEL_CHARS = re.compile(r"[\[\]\x00-\x1f\x7f]+")  # a name cannot close or break the app's label line


def _name_tool(name: str) -> str:
    """``ask_<name>`` in the characters tool names hold (``""`` when the name has none of them)."""
    slug = ascii_slug(name, "_")
    return (ASK_PREFIX + slug)[:64].rstrip("_") if slug else ""


@dataclass(frozen=True)
class WireNames:
    """Member ids -> the names the model reads (see the module docstring). Empty outside squads."""

    labels: Mapping[str, str] = field(default_factory=dict)  # member id -> how labels name them
    tools: Mapping[str, str] = field(default_factory=dict)  # ask_<id> -> the tool name the model sees

    @classmethod
    def of(cls, members: Iterable[tuple[str, str]]) -> WireNames:
        """The names for a squad's members, given as ``(id, current name)`` pairs."""
        pairs = list(dict(members).items())
        by_id = {member: delegation_tool_name(member) for member, _ in pairs}
        wanted = {member: _name_tool(name) for member, name in pairs}
        taken = Counter(wanted.values())
        shared = Counter(name.casefold() for _, name in pairs)
        tools, labels = {}, {}
        for member, name in pairs:
            own, want = by_id[member], wanted[member]
            unique = bool(want) and taken[want] == 1 and (want == own or want not in by_id.values())
            tools[own] = want if unique else own
            shown = " ".join(_NOT_LABEL_CHARS.sub(" ", name).split())
            alone = bool(shown) and shared[name.casefold()] == 1
            labels[member] = shown if alone else f"{shown} ({member})".lstrip()
        return cls(labels=labels, tools=tools)

    @classmethod
    def from_json(cls, value: Any) -> WireNames:
        """The names an as-sent record kept (empty for anything malformed)."""
        if not isinstance(value, dict):
            return NO_NAMES
        labels, tools = value.get("labels"), value.get("tools")
        if not (_text_map(labels) and _text_map(tools)):
            return NO_NAMES
        return cls(labels=dict(labels), tools=dict(tools))

    def to_json(self) -> dict[str, dict[str, str]]:
        return {"labels": dict(self.labels), "tools": dict(self.tools)}

    def __bool__(self) -> bool:
        return bool(self.labels or self.tools)

    def label(self, member: str) -> str:
        """How the model is told who ``member`` (an id) is: the name, or the id of someone no longer there."""
        return self.labels.get(member, member)

    def tool(self, name: str) -> str:
        """The tool name the model sees for the recorded ``name``."""
        return self.tools.get(name, name)

    def recorded(self, name: str) -> str:
        """The recorded (``ask_<id>``) name of a tool the model called by the name it sees."""
        return next((own for own, shown in self.tools.items() if shown == name), name)


NO_NAMES = WireNames()


def _text_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
