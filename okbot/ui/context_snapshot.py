"""What the View-context window shows for one user message, built off the GUI thread.

:func:`load_snapshot` calls the one ``build_context`` (cut at the message) and the core's
``render_markdown``, reads the as-sent record and compares it with the live projection. It is
blocking and Qt-free: the viewer runs it through the app's TaskRunner and only displays the
:class:`ViewerSnapshot` it returns.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from okbot.core.assent import AsSentRequest, AsSentStore, compare_blocks
from okbot.core.context import ContextProjection, build_context
from okbot.core.items import member_of
from okbot.core.render import body_text, remember_api_keys, render_markdown, shown_line
from okbot.core.roster import SquadRoster
from okbot.core.sources import ContextSources
from okbot.core.summary import SessionSummary
from okbot.core.tokens import APPROX_NOTE
from okbot.core.workspace import Target


@dataclass(frozen=True)
class TurnMember:
    """A squad member who took part in one user message's turn (asked by the captain, or addressed)."""

    id: str
    name: str
    present: bool = True  # still a member (a removed or deleted one cannot be rebuilt)


@dataclass
class ViewerSnapshot:
    """The projection for one user message, its Markdown, and the as-sent record compared with it."""

    projection: ContextProjection
    markdown: str  # render_markdown(projection) — what the Context tab shows
    full_markdown: str  # the same with no body cut — what "Copy all" copies
    as_sent: AsSentRequest | None = None
    as_sent_markdown: str = ""
    block_states: list[tuple[str, str]] = field(default_factory=list)
    member: str | None = None  # a squad member's request, not the captain's
    turn_members: list[TurnMember] = field(default_factory=list)  # squads: who worked in this turn

    @property
    def health(self) -> dict[str, Any]:
        """The session's compaction health (``SessionSummary.health``), ``{}`` when not recorded."""
        health = getattr(self.projection.summary, "health", None)
        return dict(health) if isinstance(health, Mapping) else {}

    @property
    def changed_blocks(self) -> list[str]:
        return [name for name, state in self.block_states if state != "same"]


def load_snapshot(sources: ContextSources, target: Target, item_id: int, member: str | None = None) -> ViewerSnapshot:
    """Build everything the viewer shows for ``item_id`` (blocking: run it through the TaskRunner).

    For a squad, ``member`` builds that member's request for the turn instead of the captain's
    (``build_context(..., member=)``); the as-sent record is the captain's, so it is read only then.
    """
    sources.loaded_counter(target)
    remember_api_keys(sources.settings)  # a key echoed into the record is shown redacted, as by `okbot context`
    proj = build_context(target, item_id, sources=sources, member=member)
    snap = ViewerSnapshot(
        projection=proj,
        markdown=render_markdown(proj, approx_note=APPROX_NOTE),
        full_markdown=render_markdown(proj, body_limit=None, approx_note=APPROX_NOTE),
        member=member,
        turn_members=turn_members(sources, target, item_id) if target.kind == "squad" else [],
    )
    if member is not None:
        return snap
    sent = AsSentStore(target.dir / "as-sent").for_user_message(item_id)
    if sent is not None:
        snap.as_sent = sent
        snap.block_states = compare_blocks(sent, proj)
        snap.as_sent_markdown = as_sent_markdown(sent, proj, snap.block_states)
    return snap


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


def _item_range(first: int | None, last: int | None, count: int) -> str:
    if not count:
        return "no session items"
    return f"items #{first}–#{last} ({count:,})"


def _diff(before: str, after: str, name: str) -> str:
    """A unified diff of a block's text, as an indented body (so no line of it can pass for a heading)."""
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), f"{name} (as sent)", f"{name} (now)", lineterm=""
    )
    return body_text("\n".join(lines) or "(only whitespace at line ends differs)")


def as_sent_markdown(sent: AsSentRequest, live: ContextProjection, states: list[tuple[str, str]]) -> str:
    """The recorded request as Markdown; blocks changed since are shown as a diff against ``live``."""
    live_blocks = {b.name: b for b in live.blocks}
    sent_blocks = {b["name"]: b for b in sent.blocks}
    head = [f"# As sent · request #{sent.id} · {sent.ts or 'time unknown'} · model {sent.model or '?'}"]
    head.append(
        f"Sent: {_item_range(sent.first_item_id, sent.last_item_id, sent.item_count)} · "
        f"coverage through #{sent.covered_through_id} · estimate {sent.estimate:,} tokens"
    )
    live_ids = (live.items[0]["id"], live.items[-1]["id"]) if live.items else (None, None)
    if (live_ids, len(live.items), live.covered_through_id) != (
        (sent.first_item_id, sent.last_item_id),
        sent.item_count,
        sent.covered_through_id,
    ):
        head.append(
            f"Now: {_item_range(*live_ids, len(live.items))} · coverage through #{live.covered_through_id} "
            "(the summary moved on since this was sent)"
        )
    head.append(f"Provider reported: {usage_text(sent)}")
    head.append(f"Tools offered: {', '.join(sent.tools) or 'none'}")
    changed = [name for name, state in states if state != "same"]
    head.append(
        "Instructions since sent: "
        + ("unchanged" if not changed else " · ".join(f"{n} {s}" for n, s in states if s != "same"))
    )
    out = [shown_line(line) for line in head]  # model, tool names …: each kept on its one line
    out.append("")
    out.append("## instructions")
    for name, state in states:
        before = sent_blocks.get(name, {})
        now = live_blocks.get(name)
        text = before.get("text")
        if state == "same":
            out.append(shown_line(f"### {name} · same as now · {before.get('tokens', 0):,} tokens"))
            out.append(body_text(text) if text is not None else "(this block's text is missing from as-sent/blocks)")
        elif state == "changed":
            out.append(
                shown_line(f"### {name} · changed since sent · {before.get('tokens', 0):,} → {now.tokens:,} tokens")
            )
            if text is None:
                out.append("(the sent text is missing from as-sent/blocks, so no diff can be shown)")
            else:
                out.append(_diff(text, now.text, name))
        elif state == "removed":
            out.append(shown_line(f"### {name} · removed since sent · was {before.get('tokens', 0):,} tokens"))
            out.append(_diff(text, "", name) if text is not None else "(text missing)")
        else:  # added
            out.append(shown_line(f"### {name} · added since sent · now {now.tokens:,} tokens"))
            out.append(_diff("", now.text, name))
        out.append("")
    out.append("## session items")
    if sent.item_count:
        out.append(
            f"{_item_range(sent.first_item_id, sent.last_item_id, sent.item_count)} from session.jsonl — "
            "the record is append-only, so they read the same now (see the Context tab)."
        )
    else:
        out.append("(none)")
    return "\n".join(out).rstrip() + "\n"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_text(sent: AsSentRequest | None) -> str:
    """What the provider reported for a recorded request: prompt tokens and the cached part."""
    if sent is None:
        return "no as-sent record for this message"
    usage = sent.usage if isinstance(sent.usage, Mapping) else {}
    prompt, cached = _int(usage.get("prompt_tokens")), _int(usage.get("cached_tokens"))
    status = sent.extra.get("status")
    if prompt is None:
        return f"no usage ({status})" if status else "no usage recorded (the reply never finished)"
    parts = [f"{prompt:,} prompt tokens", f"{cached:,} cached" if cached is not None else "cache not reported"]
    completion = _int(usage.get("completion_tokens"))
    if completion is not None:
        parts.append(f"{completion:,} completion tokens")
    if usage.get("estimated"):
        parts.append("estimated by OkBot (the provider sent no usage)")
    if status and status != "complete":
        parts.append(str(status))
    return " · ".join(parts)


def health_lines(
    health: Mapping[str, Any], sent: AsSentRequest | None, summary: SessionSummary | None = None
) -> tuple[str, str]:
    """``(text, last failure or "")`` for the compaction-health row (a second line for the request's usage)."""
    count = _int(health.get("count")) or 0
    if count:
        parts = [f"Compaction: {count:,} run{'s' if count != 1 else ''}"]
        trigger, at = health.get("lastTrigger"), health.get("lastAt")
        if trigger or at:
            when = str(at)[:16].replace("T", " ") if at else ""
            parts.append(f"last {trigger or 'run'}" + (f" at {when}" if when else ""))
        before, after = _int(health.get("tokensBefore")), _int(health.get("tokensAfter"))
        if before is not None and after is not None:
            parts.append(f"{before:,} → {after:,} tokens")
        summarizer = _int(health.get("summarizerTokens"))
        if summarizer is not None:
            parts.append(f"summarizer used {summarizer:,} tokens")
    elif summary is not None and summary.covered_through_id:
        when = summary.updated_at[:16].replace("T", " ")
        parts = [
            f"Compaction: summary covers items up to #{summary.covered_through_id}"
            f" (last trigger {summary.trigger or 'unknown'}{', ' + when if when else ''}); no run statistics kept"
        ]
    else:
        parts = ["Compaction: none on this session yet"]
    line = " · ".join(parts)
    if sent is not None:
        line += f"\nThis message's request: {usage_text(sent)}"
    failure = health.get("lastFailure")
    if isinstance(failure, Mapping):
        failure = failure.get("message") or failure.get("error") or str(dict(failure))
    return line, (f"Last compaction failure: {failure}" if failure else "")
