"""The report of an import from the original OkBot: what came over per assistant and squad, and what did not."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

SHOWN_SKIPPED_LINES = 20  # per chat in the text report; the JSON one has them all


@dataclass
class OwnerReport:
    """What came over for one assistant or squad of the original."""

    kind: str  # "assistant" | "squad"
    source_id: str
    name: str
    new_id: str = ""
    status: str = "imported"  # imported | already imported | skipped
    items: int = 0
    summary: str = "none"
    skills: int = 0
    memories: int = 0
    skipped_lines: list[dict[str, Any]] = field(default_factory=list)  # {"line": n, "reason": text}
    skipped_kinds: dict[str, int] = field(default_factory=dict)  # item kinds not imported -> count
    notes: list[str] = field(default_factory=list)


@dataclass
class ImportReport:
    """The whole import: one :class:`OwnerReport` per assistant and squad, plus what was not imported."""

    source: str
    owners: list[OwnerReport] = field(default_factory=list)
    global_memories: int = 0
    not_imported: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def imported(self) -> list[OwnerReport]:
        return [o for o in self.owners if o.status == "imported"]

    def text(self) -> str:
        """The report as plain lines (the CLI and the app print this)."""
        lines = [f"Imported from {self.source}:"]
        for o in self.owners:
            head = f"- {o.kind} {o.name!r} ({o.source_id})"
            if o.status != "imported":
                lines.append(f"{head}: {o.status}{' as ' + o.new_id if o.new_id else ''}")
            else:
                lines.append(
                    f"{head} -> {o.new_id}: {o.items} items, summary {o.summary}, "
                    f"{o.skills} skills, {o.memories} memories"
                )
            for s in o.skipped_lines[:SHOWN_SKIPPED_LINES]:
                lines.append(f"    skipped line {s['line']}: {s['reason']}")
            if len(o.skipped_lines) > SHOWN_SKIPPED_LINES:
                more = len(o.skipped_lines) - SHOWN_SKIPPED_LINES
                lines.append(f"    … and {more} more skipped line(s) (--json lists them all)")
            for kind, n in sorted(o.skipped_kinds.items()):
                lines.append(f"    not imported: {n} {kind} item(s)")
            lines.extend(f"    note: {n}" for n in o.notes)
        if not self.owners:
            lines.append("- no assistants or squads found")
        lines.append(f"Global memories: {self.global_memories}")
        lines.extend(f"Not imported: {n}" for n in self.not_imported)
        return "\n".join(lines)
