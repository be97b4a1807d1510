"""Squads at run time: the built-in captain, its ``ask_<member>`` delegation tools, direct address.

The user talks to the squad; a captain (built in, not a member) answers. Its instructions carry
the roster, the captain's persona and the playbook; it delegates by calling one tool per member
(``ask_<member>`` with a ``task``), and the member's answer comes back as that tool's result,
recorded with the member as its speaker. ``@member …`` at the start of a message sends it straight
to that member; the captain stays out of that turn. What a member sees is built by the same
``build_context`` (``member=`` the member's id): its own role, SOUL.md, skills and memories, the
squad's summary and conversation, and the task.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any

from okbot.core.items import delegation_tool_name
from okbot.core.record_fields import DEFAULT_CAPTAIN
from okbot.core.tools import Tool, ToolContext, ToolOutcome
from okbot.core.wire_names import WireNames
from okbot.core.workspace import Target, Workspace
from okbot.i18n import translate
from okbot.storage.errors import OkBotError

MAX_TASK_CHARS = 8000
_MENTION = re.compile(r"^\s*@([^\s,:;]+)[\s,:;]*", re.UNICODE)
_HANDLE = re.compile(r"[^\s,:;]+", re.UNICODE)  # what _MENTION reads as one address

CAPTAIN_NAME = "the captain of the squad {name}"
CAPTAIN_ROLE = (
    "you lead a team of assistants for the user. Decide who works on what, delegate with the ask_<member> "
    "tools (one task each, with everything the member needs; several at once when they are independent), "
    "check their results and answer the user yourself with one integrated reply. Do simple things yourself. "
    "Members' results reach you as tool results; they are not the user's words."
)


@dataclass(frozen=True)
class Member:
    """A member as the squad sees them: the assistant, their role here, and the tool that asks them."""

    target: Target
    role: str

    @property
    def tool_name(self) -> str:
        return delegation_tool_name(self.target.id)


def wire_names(found: list[Member]) -> WireNames:
    """How the model knows these members: by their current names (okbot.core.wire_names)."""
    return WireNames.of((m.target.id, m.target.name) for m in found)


def captain_settings(squad: Target) -> dict[str, Any]:
    """The squad's captain settings with defaults for what is missing or malformed."""
    stored = squad.meta.get("captain")
    merged = {**DEFAULT_CAPTAIN, **(stored if isinstance(stored, dict) else {})}
    for key in ("maxCaptainRounds", "maxMemberRounds"):
        value = merged.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            merged[key] = DEFAULT_CAPTAIN[key]
    return merged


def members(squad: Target, workspace: Workspace) -> tuple[list[Member], list[str]]:
    """The squad's members that still exist, and a problem line per member that does not."""
    found, problems = [], []
    for entry in squad.members:
        ref = entry.get("assistant") if isinstance(entry, dict) else None
        try:
            who = workspace.resolve(str(ref))
        except OkBotError:
            problems.append(
                translate("squad", "squad {squad}: member {member} no longer exists").format(
                    squad=squad.name, member=repr(ref)
                )
            )
            continue
        if who.is_assistant:
            found.append(Member(who, str(entry.get("role") or "")))
    if len(found) < 2:
        problems.append(
            translate(
                "squad", "squad {squad} has {n} member(s) left; a squad needs at least two (edit it to add members)"
            ).format(squad=squad.name, n=len(found))
        )
    return found, problems


def member_by_id(squad: Target, workspace: Workspace, member_id: str) -> Member:
    for member in members(squad, workspace)[0]:
        if member.target.id == member_id:
            return member
    raise OkBotError(
        translate("squad", "{member} is not a member of the squad {squad}.").format(
            member=repr(member_id), squad=squad.name
        )
    )


def direct_address(text: str, squad: Target, workspace: Workspace) -> Member | None:
    """The member a message starting with ``@name`` is addressed to; ``None`` when it starts otherwise.

    A mention of anyone who is not a member is an error, raised before anything is sent.
    """
    match = _MENTION.match(text)
    if match is None:
        return None
    wanted = match.group(1).casefold()
    found = members(squad, workspace)[0]
    by_id = [m for m in found if m.target.id.casefold() == wanted]
    by_name = [m for m in found if wanted in _names(m)]
    if by_id or by_name:
        return (by_id or by_name)[0]
    available = ", ".join(mention(m, found) for m in found) or translate("squad", "none")
    raise OkBotError(
        translate("squad", "@{name} is not a member of the squad {squad}.").format(
            name=match.group(1), squad=squad.name
        ),
        hint=translate("squad", "members: {members}").format(members=available),
    )


def mention(member: Member, among: list[Member]) -> str:
    """How the user addresses ``member`` at the start of a message: ``@`` and its current name without
    spaces (``@BobStone``), or its id when that name cannot be typed as one word or another member answers to it."""
    handle = "".join(member.target.name.split())
    clash = any(
        other is not member and handle.casefold() in {other.target.id.casefold(), *_names(other)} for other in among
    )
    if not _HANDLE.fullmatch(handle) or clash:
        handle = member.target.id
    return "@" + handle


def _names(member: Member) -> set[str]:
    name = member.target.name.casefold()
    return {name, "".join(name.split())}


def member_role_line(member: Member, squad: Target) -> str:
    """A member's role line inside a squad: their own, then their role here and who leads."""
    own = member.target.role_line.strip().rstrip(".")
    here = f"in the squad {squad.name} your role is {member.role}" if member.role else f"in the squad {squad.name}"
    lead = "the squad's captain hands you tasks; answer with your result, briefly and completely"
    return "; ".join(p for p in (own, here, lead) if p) + "."


def captain_soul(squad: Target) -> str:
    """The captain's persona and playbook (the squad's stand-in for SOUL.md)."""
    settings = captain_settings(squad)
    parts = []
    if str(settings.get("persona") or "").strip():
        parts.append(str(settings["persona"]).strip())
    if str(settings.get("playbook") or "").strip():
        parts.append("## Playbook\n" + str(settings["playbook"]).strip())
    return "\n\n".join(parts)


class TurnBudget:
    """One tool budget for a whole turn (captain and members together), safe across threads."""

    def __init__(self, calls: int) -> None:
        self.limit = calls
        self.used = 0
        self._lock = threading.Lock()

    @property
    def spent(self) -> bool:
        with self._lock:
            return self.used >= self.limit

    def take(self) -> bool:
        """Use one call; ``False`` (nothing used) when the budget is spent."""
        with self._lock:
            if self.used >= self.limit:
                return False
            self.used += 1
            return True


def delegation_tool(member: Member) -> Tool:
    """``ask_<member>``: the captain hands ``member`` a task; the runner's turn runtime runs it."""
    desc = f" ({member.role})" if member.role else ""
    line = member.target.role_line
    note = f"ask {member.target.name}{desc} to do a task and report back" + (f" — {line}" if line else "")
    return Tool(
        name=member.tool_name,
        note=note,
        parameters={
            "type": "object",
            "properties": {"task": {"type": "string", "description": "what to do, with everything needed"}},
            "required": ["task"],
        },
        run=lambda args, ctx, m=member: _ask(m, args, ctx),
        parallel=True,
    )


def _ask(member: Member, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    task = args.get("task")
    if not isinstance(task, str) or not task.strip():
        return ToolOutcome(f"the task is empty; say what {member.target.name} should do.", ok=False)
    if len(task) > MAX_TASK_CHARS:
        return ToolOutcome(f"the task is over {MAX_TASK_CHARS:,} characters; shorten it.", ok=False)
    if ctx.runtime is None:
        return ToolOutcome("members can only be asked during a squad turn.", ok=False)
    return ctx.runtime.run_member(member, ctx.call_id)
