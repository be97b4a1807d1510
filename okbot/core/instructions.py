"""Instruction assembly: the system prompt the model sees, as named blocks, stable ones first.

Order (DESIGN.md): role line -> roster -> SOUL.md -> tool notes -> skill catalog (stable: learnt changes to the
persona and skills land only at segment boundaries), then session summary with the user's kept words ->
recalled memories (volatile). Stable-then-volatile
keeps the provider's prompt-prefix cache warm. Same inputs always give byte-identical text: no
timestamps, no unordered iteration inside a block. Empty blocks are omitted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

# How many ids of kept messages not shown for room the summary block names.
LISTED_MAX = 24


@dataclass(frozen=True)
class InstructionBlock:
    """One named part of the instructions, with its token count once counted."""

    name: str
    title: str
    text: str
    stable: bool
    tokens: int = 0
    uncut: int = 0  # leading characters a text view must show whole (the user's own words)

    def with_tokens(self, tokens: int) -> InstructionBlock:
        return replace(self, tokens=tokens)


@dataclass(frozen=True)
class RosterEntry:
    """Someone taking part in the conversation (the assistant alone, or a squad's members)."""

    name: str
    role: str = ""
    description: str = ""


@dataclass(frozen=True)
class InstructionInputs:
    """Everything instruction assembly reads. Parts that later capabilities fill start empty."""

    name: str
    role_line: str = ""
    squad_name: str = ""
    squad_description: str = ""
    roster: Sequence[RosterEntry] = ()
    soul: str = ""
    tool_notes: Sequence[tuple[str, str]] = ()
    skills: Sequence[tuple[str, str]] = ()
    summary: str = ""
    covered_through_id: int = 0
    kept_user_words: Sequence[tuple[int, str]] = ()
    kept_user_listed: Sequence[int] = ()  # kept messages not shown for room, best ranked first
    memories: Sequence[str] = field(default_factory=tuple)


def _role_block(inp: InstructionInputs) -> str:
    if inp.role_line.strip():
        return f"You are {inp.name}: {inp.role_line.strip()}"
    return f"You are {inp.name}, an assistant in the OkBot desktop app."


def _roster_block(inp: InstructionInputs) -> str:
    if not inp.roster:
        return ""
    if inp.squad_name:
        lines = [f"# Squad: {inp.squad_name}"]
        if inp.squad_description.strip():
            lines.append(inp.squad_description.strip())
        lines.append("Members:")
    else:
        lines = ["# Participants", "You talk with the user one to one. Taking part:"]
    for entry in inp.roster:
        line = f"- {entry.name}"
        if entry.role:
            line += f" ({entry.role})"
        if entry.description:
            line += f": {entry.description}"
        lines.append(line)
    return "\n".join(lines)


def _soul_block(inp: InstructionInputs) -> str:
    soul = inp.soul.strip()
    return f"# Persona (SOUL.md)\n{soul}" if soul else ""


def _tool_notes_block(inp: InstructionInputs) -> str:
    if not inp.tool_notes:
        return ""
    return "# Tools\n" + "\n".join(f"- {name}: {note}" for name, note in inp.tool_notes)


def _skills_block(inp: InstructionInputs) -> str:
    if not inp.skills:
        return ""
    return "# Skills\n" + "\n".join(f"- {name}: {desc}" for name, desc in inp.skills)


def _summary_head(inp: InstructionInputs) -> str:
    """The summary block up to its body: the coverage line and the user's own words.

    The user's words come before the summary and the moved-out digests, so no cut of the rest
    (a display limit, a summary over its length) can reach them.
    """
    if not inp.summary.strip() and not inp.kept_user_words and not inp.kept_user_listed:
        return ""
    parts = [f"# Session summary (covers items up to #{inp.covered_through_id}; newer items follow verbatim)"]
    if inp.kept_user_words or inp.kept_user_listed:
        parts.append("## The user's own words (verbatim, from the record)")
        parts.extend(f"[#{item_id}] {text}" for item_id, text in inp.kept_user_words)
        if inp.kept_user_listed:
            parts.append(listed_note(inp.kept_user_listed))
    return "\n\n".join(parts)


def _summary_block(inp: InstructionInputs) -> str:
    head = _summary_head(inp)
    if not head or not inp.summary.strip():
        return head
    return f"{head}\n\n{inp.summary.strip()}"


def listed_note(listed: Sequence[int]) -> str:
    """The line naming kept messages there is no room to show: the best ranked ids (in id order), then a count."""
    named = sorted(listed[:LISTED_MAX])
    more = f" and {len(listed) - len(named)} more" if len(listed) > len(named) else ""
    ids = ", ".join(f"#{i}" for i in named)
    return f"Also kept, not shown for room (search_history finds them): {ids}{more}"


def _memories_block(inp: InstructionInputs) -> str:
    if not inp.memories:
        return ""
    return "# Remembered\n" + "\n".join(f"- {m}" for m in inp.memories)


# (name, title, stable, renderer) in the order the model sees them.
BLOCK_ORDER = (
    ("role", "Role", True, _role_block),
    ("roster", "Roster", True, _roster_block),
    ("soul", "SOUL.md", True, _soul_block),
    ("tool_notes", "Tool notes", True, _tool_notes_block),
    ("skills", "Skill catalog", True, _skills_block),
    ("summary", "Session summary", False, _summary_block),
    ("memories", "Recalled memories", False, _memories_block),
)


def assemble_instructions(inputs: InstructionInputs) -> list[InstructionBlock]:
    """Build the non-empty instruction blocks in their fixed order (token counts left at 0)."""
    blocks = []
    for name, title, stable, render in BLOCK_ORDER:
        text = render(inputs)
        if text:
            uncut = len(_summary_head(inputs)) if name == "summary" else 0
            blocks.append(InstructionBlock(name=name, title=title, text=text, stable=stable, uncut=uncut))
    return blocks


def join_blocks(blocks: Sequence[InstructionBlock]) -> str:
    """The system message text: blocks separated by a blank line."""
    return "\n\n".join(b.text for b in blocks)
