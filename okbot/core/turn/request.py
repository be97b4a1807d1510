"""What a front-end asks of a turn: a value, so the desktop, the CLI and a web front-end say it the same way.

- :class:`Send` a new message (with files; ``source`` ``schedule:<id>`` for a scheduled job's, run as a job);
- :class:`Retry` the last message's turn (after a stopped or failed reply, or none yet);
- :class:`Edit` a message: its text sent as a new version, the old one kept on disk;
- :class:`Regenerate` a reply as a new version (``item_id`` ``None``: the last reply);
- :class:`Resume` the turn whose tool calls waited for approval when OkBot closed, once each is answered
  (:mod:`okbot.core.turn.pending`).

:meth:`okbot.core.turn.runner.TurnRunner.run` takes any of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Send:
    text: str
    attachments: tuple[Path, ...] = field(default=())
    source: str = "user"  # who sends it: the user, or a scheduled job in their stead (``schedule:<id>``)

    def __post_init__(self) -> None:
        object.__setattr__(self, "attachments", tuple(Path(p) for p in self.attachments))


@dataclass(frozen=True)
class Retry:
    pass


@dataclass(frozen=True)
class Edit:
    item_id: int
    text: str


@dataclass(frozen=True)
class Regenerate:
    item_id: int | None = None  # the reply holding this item (or answering this user message); None: the last


@dataclass(frozen=True)
class Resume:
    pass


TurnRequest = Send | Retry | Edit | Regenerate | Resume


def is_job(request: TurnRequest) -> bool:
    """Whether ``request`` comes from a scheduled job, not the user at the screen (it waits behind the user's)."""
    return isinstance(request, Send) and request.source != "user"
