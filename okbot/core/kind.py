"""What a target is: an assistant or a squad.

A :class:`Kind` is the plain on-disk string as well (``Kind.SQUAD == "squad"``, ``json.dumps`` and
f-strings write ``squad``), so records, exports, trash manifests and entry names keep the values
they always had. Python 3.10 has no ``enum.StrEnum``, hence ``str`` mixed into ``Enum``.
"""

from __future__ import annotations

from enum import Enum


class Kind(str, Enum):
    """An assistant or a squad; equal to, and written as, its on-disk string."""

    ASSISTANT = "assistant"
    SQUAD = "squad"

    # Enum hashes a member by its name ("SQUAD"); the string's hash lets a Kind find the entries
    # keyed by the plain string (record names in migrations, labels, JSON read back) and back.
    __hash__ = str.__hash__

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: object) -> Kind | None:
        """The Kind ``value`` names exactly (as read from disk), or ``None`` for anything else."""
        if not isinstance(value, str):
            return None
        try:
            return cls(value)
        except ValueError:
            return None

    @property
    def folder(self) -> str:
        """The data-dir folder its targets live in: ``assistants`` or ``squads``."""
        return f"{self.value}s"

    @property
    def meta_file(self) -> str:
        """Its JSON file in the target's directory: ``assistant.json`` or ``squad.json``."""
        return f"{self.value}.json"
