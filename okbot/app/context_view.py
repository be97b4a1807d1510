"""What the View-context window shows for one user message, built off the GUI thread.

:func:`load_snapshot` calls the one ``build_context`` (cut at the message) and the core's
``render_markdown``, loads the chosen request of the message's turn from the as-sent record (every
block and item it held: :func:`~okbot.core.sent_request.load_sent`), renders it with the core's
``as_sent_markdown`` and compares it with the live projection. It is blocking and Qt-free: the viewer
runs it through the app's TaskRunner and only displays the :class:`ViewerSnapshot` it returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from okbot.core.assent import AsSentRequest, compare_blocks
from okbot.core.context import build_context
from okbot.core.items import member_of
from okbot.core.projection import ContextProjection
from okbot.core.prompt_cache import attach_prompt_cache
from okbot.core.render import as_sent_markdown, remember_api_keys, render_markdown
from okbot.core.roster import SquadRoster
from okbot.core.sent_request import SentRequest, load_sent
from okbot.core.sources import ContextSources
from okbot.core.tokens import APPROX_NOTE
from okbot.core.turn.timing import turn_timing
from okbot.core.workspace import Target
from okbot.storage.errors import NotFound


@dataclass(frozen=True)
class TurnMember:
    """A squad member who took part in one user message's turn (asked by the captain, or addressed)."""

    id: str
    name: str
    present: bool = True  # still a member (a removed or deleted one cannot be rebuilt)


@dataclass
class ViewerSnapshot:
    """The projection for one user message, its Markdown, and the request the message's turn sent, loaded
    whole and compared with it."""

    projection: ContextProjection
    markdown: str  # render_markdown(projection) — what the Context tab shows
    full_markdown: str  # the same with no body cut — what "Copy all" copies
    sent: SentRequest | None = None  # the chosen request of the turn (default: the one the reply came from)
    as_sent_markdown: str = ""  # as_sent_markdown(sent, projection) — what the As-sent tab shows
    as_sent_full_markdown: str = ""  # the same with no body cut
    block_states: list[tuple[str, str]] = field(default_factory=list)
    member: str | None = None  # a squad member's request, not the captain's
    turn_members: list[TurnMember] = field(default_factory=list)  # squads: who worked in this turn

    @property
    def health(self) -> dict[str, Any]:
        """The session's compaction health (``SessionSummary.health``), ``{}`` when not recorded."""
        health = getattr(self.projection.summary, "health", None)
        return dict(health) if isinstance(health, Mapping) else {}

    @property
    def as_sent(self) -> AsSentRequest | None:
        """The chosen request's record (``None`` when the turn has none)."""
        return self.sent.request if self.sent is not None else None

    @property
    def changed_blocks(self) -> list[str]:
        return [name for name, state in self.block_states if state != "same"]


def load_snapshot(
    sources: ContextSources,
    target: Target,
    item_id: int,
    member: str | None = None,
    request_id: int | None = None,
) -> ViewerSnapshot:
    """Build everything the viewer shows for ``item_id`` (blocking: run it through the TaskRunner).

    For a squad, ``member`` builds that member's request for the turn instead of the captain's
    (``build_context(..., member=)``) and reads that member's requests from the as-sent record.
    ``request_id`` picks one request of the turn (an earlier attempt, another tool round); ``None``, or
    one the turn does not have, shows the request the reply came from.
    """
    sources.loaded_counter(target)
    remember_api_keys(sources.settings)  # a key echoed into the record is shown redacted, as by `okbot context`
    proj = build_context(target, item_id, sources=sources, member=member)
    snap = ViewerSnapshot(
        projection=proj,
        markdown=render_markdown(proj, approx_note=APPROX_NOTE),
        full_markdown=render_markdown(proj, body_limit=None, approx_note=APPROX_NOTE),
        member=member,
        turn_members=turn_members(sources, target, item_id) if target.is_squad else [],
    )
    try:
        sent = sent_request(sources, target, item_id, request_id, member)
    except NotFound:  # a request this turn does not have: the one the reply came from
        sent = sent_request(sources, target, item_id, member=member)
    if sent is not None:
        snap.sent = sent
        snap.block_states = compare_blocks(sent.request, proj)
        snap.as_sent_markdown = as_sent_markdown(sent, proj, snap.block_states)
        snap.as_sent_full_markdown = as_sent_markdown(sent, proj, snap.block_states, body_limit=None)
    return snap


def turn_timing_of(sources: ContextSources, target: Target, item_id: int) -> dict[str, Any] | None:
    """Where the time of user message ``item_id``'s turn went (each reply's trace and their sum), as
    ``okbot context --json`` shows it; None when its replies kept none (sent before OkBot kept timing)."""
    after, exists = sources.session(target).read_after(item_id)
    return turn_timing(after) if exists else None


def sent_request(
    sources: ContextSources,
    target: Target,
    item_id: int,
    request_id: int | None = None,
    member: str | None = None,
) -> SentRequest | None:
    """The request ``request_id`` of user message ``item_id``'s turn (default: the one its reply came from; with
    ``member``, that squad member's), loaded whole with what the server's prompt cache reported; None when none
    was recorded. NotFound when ``request_id`` is not one of the turn's. The viewer's As-sent tab and
    ``okbot context --as-sent`` show it."""
    sent = load_sent(sources, target, item_id, request_id, member)
    if sent is not None:
        attach_prompt_cache(sources, target, sent)
    return sent


def turn_members(sources: ContextSources, target: Target, item_id: int) -> list[TurnMember]:
    """The members who worked in the turn of user message ``item_id``, in the order they were asked.

    Reads the items after the message up to the next user message: the captain's ``ask_<id>``
    calls, and a member's direct reply when the message addressed them.
    """
    workspace = sources.workspace
    roster = SquadRoster.build(target, workspace.assistants())
    current = set(roster.members)
    found: list[str] = []
    for item in sources.session(target).iter_items(item_id + 1):
        kind = item.get("type")
        if kind == "user":
            break
        who = ""
        if kind == "tool_call":
            who = roster.member_of_call(str(item.get("name") or ""))
        elif kind in ("assistant", "tool_result"):
            who = member_of(item)
        if who and who not in found:
            found.append(who)
    return [TurnMember(m, roster.name(m), m in current) for m in found]
