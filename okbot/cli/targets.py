"""``okbot list | new | rm | trash`` and restoring from the trash: the assistants and squads themselves."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from okbot.cli import provider
from okbot.cli.common import note, report_problems, workspace
from okbot.cli.output import print_json
from okbot.i18n import translate
from okbot.storage.errors import OkBotError


def cmd_list(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    ws = workspace()
    rows = [{"id": t.id, "name": t.name, "kind": t.kind} for t in ws.list()]
    report_problems(ws.problems, err)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2), file=out)
    else:
        for row in rows:
            print(f"{row['kind']:<9}  {row['id']:<24}  {row['name']}", file=out)
    return 0


def cmd_new(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    ws = workspace()
    if args.kind == "assistant":
        soul = None
        if args.soul is not None:
            try:
                soul = sys.stdin.read() if str(args.soul) == "-" else args.soul.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise OkBotError(
                    translate("cli", "cannot read SOUL file {path}: {why}").format(path=args.soul, why=exc)
                ) from exc
        model = None
        if args.model is not None:
            from okbot.config.settings import Settings

            model = provider.check_model_ref(Settings.load(), args.model, err)
        target = ws.create_assistant(args.name, role=args.role, soul_text=soul, model=model)
    else:
        members = []
        for spec in args.member:
            ref, _, role = spec.partition(":")
            members.append((ref.strip(), role.strip()))
        target = ws.create_squad(args.name, members, description=args.description)
    if args.json:
        print_json(described(target), out)
    else:
        print(created(target), file=out)
    return 0


def described(target: Any) -> dict[str, str]:
    """An assistant or squad in the JSON of the commands that make, trash or restore one."""
    return {"kind": target.kind, "id": target.id, "name": target.name}


def created(target: Any) -> str:
    if target.is_squad:
        text = translate("cli", "created squad {id} ({name})")
    else:
        text = translate("cli", "created assistant {id} ({name})")
    return text.format(id=target.id, name=target.name)


def cmd_rm(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core import trash

    ws = workspace()
    target = ws.resolve(args.target)
    trash_id = trash.delete(ws, target.id)
    if args.json:
        print_json(described(target) | {"trashId": trash_id}, out)
    else:
        if target.is_squad:
            text = translate("cli", "moved squad {id} ({name}) to the trash; undo with: okbot restore {trash_id}")
        else:
            text = translate("cli", "moved assistant {id} ({name}) to the trash; undo with: okbot restore {trash_id}")
        print(text.format(id=target.id, name=target.name, trash_id=trash_id), file=out)
    for squad in ws.squads_below_minimum():
        print(note(translate("cli", "squad {name} now has fewer than two members").format(name=squad.name)), file=err)
    return 0


def cmd_restore(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core import trash

    target = trash.restore(workspace(), args.what)
    if args.json:
        print_json(described(target) | {"trashId": args.what}, out)
        return 0
    if target.is_squad:
        text = translate("cli", "restored squad {id} ({name})")
    else:
        text = translate("cli", "restored assistant {id} ({name})")
    print(text.format(id=target.id, name=target.name), file=out)
    return 0


def cmd_trash(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core import trash

    entries = trash.entries(workspace())
    if args.json:
        print(json.dumps(entries, ensure_ascii=False, indent=2), file=out)
    else:
        for entry in entries:
            print(f"{entry['id']}  {entry['kind']:<9}  {entry['name']}", file=out)
    return 0
