"""``okbot evolve``: persona and skill upkeep now, the evolution log, and undo, from the command line.

``okbot evolve TARGET`` runs every kind of upkeep that has new messages to read, lands what passed
its checks at once (the user asked: that is a boundary) and prints what was applied and what was
refused, by which check and why. ``--log`` lists the changes; ``--undo N`` undoes change N.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from okbot.cli.common import target_and_sources
from okbot.core.evolution.store import LogEntry
from okbot.core.evolution.upkeep import Upkeep, UpkeepReport
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.llm.providers import ProviderPool
from okbot.storage.errors import OkBotError

WHY_SHOWN = 80


def evolve(
    sources: Any, target: Target, *, log: bool, undo: int | None, as_json: bool, out: TextIO, err: TextIO
) -> int:
    if not target.is_assistant:
        raise OkBotError(
            translate("cli_evolve", "{name} is a squad: only assistants have a persona and skills to keep up.").format(
                name=target.name
            )
        )
    evolution = sources.evolution
    if log:
        entries = evolution.entries(target)
        if as_json:
            print(json.dumps([_entry_json(e) for e in entries], ensure_ascii=False, indent=2), file=out)
        else:
            for entry in entries or []:
                print(_entry_line(entry), file=out)
            if not entries:
                print(translate("cli_evolve", "{name}: no changes yet.").format(name=target.name), file=out)
        return 0
    if undo is not None:
        entry = evolution.undo(target, undo)
        if as_json:
            print(json.dumps(_entry_json(entry), ensure_ascii=False, indent=2), file=out)
        else:
            text = translate("cli_evolve", "undid #{id} {kind}: {summary}")
            print(text.format(id=entry.id, kind=entry.kind, summary=entry.summary), file=out)
        return 0
    if not evolution.enabled(target):
        text = translate("cli_evolve", "okbot: note: upkeep is off for {name}; running it because you asked")
        print(text.format(name=target.name), file=err)
    report = Upkeep(sources, ProviderPool(sources.settings)).run(target, force=True)
    if as_json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2), file=out)
    else:
        _print_report(target, report, out)
    return 1 if report.problems and not report.ran else 0


def _print_report(target: Target, report: UpkeepReport, out: TextIO) -> None:
    if not report.ran and not report.applied:
        print(
            translate("cli_evolve", "{name}: nothing new to learn from since the last upkeep.").format(
                name=target.name
            ),
            file=out,
        )
    else:
        ran = ", ".join(report.ran) or translate("cli_evolve", "nothing new; staged changes only")
        text = translate(
            "cli_evolve", "{name}: upkeep ran ({ran}): {proposed} proposed, {applied} applied, {refused} refused."
        )
        print(
            text.format(
                name=target.name,
                ran=ran,
                proposed=report.proposed,
                applied=len(report.applied),
                refused=len(report.refused),
            ),
            file=out,
        )
    for entry in report.applied:
        print(translate("cli_evolve", "applied {change}").format(change=_entry_line(entry)), file=out)
    for refusal in report.refused:
        text = translate("cli_evolve", "refused ({check}): {what} -- {reason}")
        print(text.format(check=refusal.check, what=refusal.what, reason=refusal.reason), file=out)
    for problem in report.problems:
        print(translate("cli_evolve", "problem: {problem}").format(problem=problem), file=out)


def _entry_line(entry: LogEntry) -> str:
    cited = ", ".join(f"#{i}" for i in entry.cited)
    why = entry.why if len(entry.why) <= WHY_SHOWN else entry.why[: WHY_SHOWN - 1] + "…"
    undone = translate("cli_evolve", " [undone {when}]").format(when=entry.undone) if entry.undone else ""
    text = translate("cli_evolve", "#{id} {at} {kind}: {summary} (from {cited}: {why}){undone}")
    return text.format(
        id=entry.id, at=entry.at, kind=entry.kind, summary=entry.summary, cited=cited, why=repr(why), undone=undone
    )


def _entry_json(entry: LogEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "at": entry.at,
        "kind": entry.kind,
        "summary": entry.summary,
        "why": entry.why,
        "cited": list(entry.cited),
        "diff": entry.diff,
        "undone": entry.undone,
        "change": entry.change.to_json(),
    }


def cmd_evolve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    sources, target = target_and_sources(args.target, err)
    return evolve(sources, target, log=args.log, undo=args.undo, as_json=args.json, out=out, err=err)
