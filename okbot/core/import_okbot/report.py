"""The report of an import from the original OkBot: what came over per assistant and squad, and what did not."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from okbot.core.kind import Kind
from okbot.i18n import QT_TRANSLATE_NOOP, plural, translate

SHOWN_SKIPPED_LINES = 20  # per chat in the text report
LISTED_SKIPPED_LINES = 1000  # per chat in the JSON report (memory stays bounded whatever the chat holds)
# an owner's status and summary as the JSON report holds them (English), translated in the text report
IMPORTED = QT_TRANSLATE_NOOP("report", "imported")
ALREADY_IMPORTED = QT_TRANSLATE_NOOP("report", "already imported")
SKIPPED = QT_TRANSLATE_NOOP("report", "skipped")
NO_SUMMARY = QT_TRANSLATE_NOOP("report", "none")


@dataclass
class OwnerReport:
    """What came over for one assistant or squad of the original."""

    kind: Kind
    source_id: str
    name: str
    new_id: str = ""
    status: str = IMPORTED  # imported | already imported | skipped | why an earlier import is unfinished
    items: int = 0
    summary: str = NO_SUMMARY
    skills: int = 0
    memories: int = 0
    skipped_lines: list[dict[str, Any]] = field(default_factory=list)  # {"line": n, "reason": text}
    skipped_unlisted: int = 0  # skipped lines past LISTED_SKIPPED_LINES, counted only
    skipped_kinds: dict[str, int] = field(default_factory=dict)  # item kinds not imported -> count
    notes: list[str] = field(default_factory=list)

    def skip_line(self, number: int, reason: str) -> None:
        """Record line ``number`` of the chat as skipped (listed up to LISTED_SKIPPED_LINES, then counted)."""
        if len(self.skipped_lines) < LISTED_SKIPPED_LINES:
            self.skipped_lines.append({"line": number, "reason": reason})
        else:
            self.skipped_unlisted += 1


@dataclass
class ImportReport:
    """The whole import: one :class:`OwnerReport` per assistant and squad, plus what was not imported."""

    source: str
    owners: list[OwnerReport] = field(default_factory=list)
    global_memories: int = 0
    not_imported: list[str] = field(default_factory=list)
    # what of the original's settings.json maps here (settings_map.read_settings), until it is applied
    settings_plan: dict[str, Any] = field(default_factory=dict)
    settings: list[str] = field(default_factory=list)  # what applying it set, kept or could not set

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def imported(self) -> list[OwnerReport]:
        return [o for o in self.owners if o.status == IMPORTED]

    def text(self) -> str:
        """The report as plain lines (the CLI and the app print this)."""
        lines = [translate("report", "Imported from {path}:").format(path=self.source)]
        for o in self.owners:
            if o.kind is Kind.SQUAD:
                head = translate("report", "- squad {name} ({id})").format(name=repr(o.name), id=o.source_id)
            else:
                head = translate("report", "- assistant {name} ({id})").format(name=repr(o.name), id=o.source_id)
            status = translate("report", o.status)
            if o.status != IMPORTED:
                text = translate("report", "{head}: {status} as {id}") if o.new_id else "{head}: {status}"
                lines.append(text.format(head=head, status=status, id=o.new_id))
            else:
                text = translate(
                    "report", "{head} -> {id}: {items} items, summary {summary}, {skills} skills, {memories} memories"
                )
                lines.append(
                    text.format(
                        head=head,
                        id=o.new_id,
                        items=o.items,
                        summary=translate("report", o.summary),
                        skills=o.skills,
                        memories=o.memories,
                    )
                )
            for s in o.skipped_lines[:SHOWN_SKIPPED_LINES]:
                lines.append(
                    translate("report", "    skipped line {n}: {reason}").format(n=s["line"], reason=s["reason"])
                )
            if len(o.skipped_lines) > SHOWN_SKIPPED_LINES and not o.skipped_unlisted:
                more = len(o.skipped_lines) - SHOWN_SKIPPED_LINES
                text = plural(
                    more,
                    translate("report", "    … and {n} more skipped line (--json lists them all)"),
                    translate("report", "    … and {n} more skipped lines (--json lists them all)"),
                )
                lines.append(text.format(n=more))
            elif o.skipped_unlisted:
                more = len(o.skipped_lines) - SHOWN_SKIPPED_LINES + o.skipped_unlisted
                text = plural(
                    more,
                    translate("report", "    … and {n} more skipped line (--json lists the first {listed})"),
                    translate("report", "    … and {n} more skipped lines (--json lists the first {listed})"),
                )
                lines.append(text.format(n=more, listed=LISTED_SKIPPED_LINES))
            for kind, n in sorted(o.skipped_kinds.items()):
                text = plural(
                    n,
                    translate("report", "    not imported: {n} {kind} item"),
                    translate("report", "    not imported: {n} {kind} items"),
                )
                lines.append(text.format(n=n, kind=translate("report", kind)))
            lines.extend(translate("report", "    note: {note}").format(note=n) for n in o.notes)
        if not self.owners:
            lines.append(translate("report", "- no assistants or squads found"))
        lines.append(translate("report", "Global memories: {n}").format(n=self.global_memories))
        lines.extend(translate("report", "Settings: {what}").format(what=n) for n in self.settings)
        lines.extend(translate("report", "Not imported: {what}").format(what=n) for n in self.not_imported)
        return "\n".join(lines)
