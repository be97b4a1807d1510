"""``okbot export``, ``okbot backup`` and ``okbot restore FILE.zip``: a chat to take away, the data dir in one zip.

``okbot restore`` also undoes ``okbot rm`` (``okbot restore TRASH_ID``): an argument naming a file (or
ending in ``.zip``) is a backup, anything else a trash id.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from okbot.cli import targets
from okbot.cli.output import add_json_flag, print_json
from okbot.i18n import plural, translate
from okbot.storage.errors import OkBotError


def add_parsers(sub: Any) -> None:
    """Declare ``export`` and ``backup`` on the main parser's subcommands (``restore`` is declared in cli.py)."""
    p = sub.add_parser(
        "export",
        help=translate("cli_export", "write a chat as Markdown or JSON"),
        epilog=translate(
            "cli_export",
            "Markdown reads like the chat (summaries, tool calls and reasoning folded; the versions on screen\n"
            "only). JSON is one object holding every record as it is on disk: the target's file, the summary file\n"
            "and every item of session.jsonl (every version). Without -o the export goes to stdout.",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("target", metavar="TARGET", help=translate("cli_export", "an assistant or squad id or name"))
    p.add_argument(
        "--format", choices=("md", "json"), default="md", help=translate("cli_export", "md (default) or json")
    )
    p.add_argument(
        "-o", "--output", type=Path, metavar="FILE", help=translate("cli_export", "write to FILE (default: stdout)")
    )
    p.add_argument("--force", action="store_true", help=translate("cli_export", "replace FILE when it exists"))

    p = sub.add_parser(
        "backup",
        help=translate("cli_export", "write the whole data folder (never the API keys) to one zip"),
        epilog=translate(
            "cli_export",
            "The zip holds the whole data folder except the API keys (keys.json; the keyring is never read),\n"
            "the logs, the search index, the trash and lock files, with a manifest of every file's size and sha256.",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", type=Path, metavar="FILE.zip")
    p.add_argument("--force", action="store_true", help=translate("cli_export", "replace FILE.zip when it exists"))
    add_json_flag(p)


def add_restore_arguments(p: argparse.ArgumentParser) -> None:
    """``okbot restore FILE.zip [--replace]`` or ``okbot restore TRASH_ID``."""
    p.add_argument(
        "what",
        metavar="FILE.zip|TRASH_ID",
        help=translate("cli_export", "a backup made by `okbot backup`, or a trash id"),
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help=translate(
            "cli_export", "backups: when the data folder holds data, move it aside to a dated folder beside it first"
        ),
    )


def cmd_export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core.export import export_chat, export_to_file
    from okbot.core.workspace import Workspace

    ws = Workspace()
    target = ws.resolve(args.target)
    if args.output is None:
        if args.force:
            raise OkBotError(translate("cli_export", "--force goes with -o FILE"))
        export_chat(target, ws, args.format, out)
        return 0
    written = export_to_file(target, ws, args.format, args.output, force=args.force)
    text = plural(
        written,
        translate("cli_export", "exported {n} item of {name} to {path}"),
        translate("cli_export", "exported {n} items of {name} to {path}"),
    )
    print(text.format(n=f"{written:,}", name=target.name, path=args.output), file=err)
    return 0


def cmd_backup(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core.backup import create_backup
    from okbot.storage import paths

    report = create_backup(paths.data_dir(), args.file, force=args.force)
    if args.json:
        print_json({"path": str(report.path), "files": report.files, "bytes": report.bytes}, out)
    else:
        text = plural(
            report.files,
            translate("cli_export", "backed up {n} file ({size} bytes) to {path}"),
            translate("cli_export", "backed up {n} files ({size} bytes) to {path}"),
        )
        print(text.format(n=f"{report.files:,}", size=f"{report.bytes:,}", path=report.path), file=out)
    left_out = ", ".join(translate("backup", what) for what in report.left_out)  # the manifest's words, translated
    print(translate("cli_export", "left out: {what}").format(what=left_out), file=err)
    for what in report.skipped:
        print(translate("cli_export", "left out: {what}").format(what=what), file=err)
    return 0


def is_backup_ref(what: str) -> bool:
    """Whether ``okbot restore WHAT`` names a backup file rather than a trash id."""
    return what.lower().endswith(".zip") or Path(what).is_file()


def cmd_restore(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """A backup (see :mod:`okbot.core.backup`), or an assistant or squad from the trash."""
    if not is_backup_ref(args.what):
        if args.replace:
            raise OkBotError(translate("cli_export", "--replace goes with a backup file"))
        return targets.cmd_restore(args, out, err)
    from okbot.core.backup import restore_backup
    from okbot.storage import paths

    path = Path(args.what)
    if not path.is_file():
        raise OkBotError(translate("cli_export", "no file {path}").format(path=path))
    data_dir = paths.data_dir()
    report = restore_backup(path, data_dir, replace=args.replace)
    if args.json:
        moved_aside = str(report.moved_aside) if report.moved_aside is not None else None
        print_json(
            {
                "backup": str(path),
                "dataDir": str(data_dir),
                "files": report.files,
                "bytes": report.bytes,
                "movedAside": moved_aside,
            },
            out,
        )
    else:
        _say_restored(report, data_dir, out)
    print(
        translate("cli_export", "API keys are never in a backup: set them again if this computer has none."),
        file=err or sys.stderr,
    )
    return 0


def _say_restored(report: Any, data_dir: Path, out: TextIO) -> None:
    text = plural(
        report.files,
        translate("cli_export", "restored {n} file ({size} bytes) into {path}"),
        translate("cli_export", "restored {n} files ({size} bytes) into {path}"),
    )
    print(text.format(n=f"{report.files:,}", size=f"{report.bytes:,}", path=data_dir), file=out)
    if report.moved_aside is not None:
        print(
            translate("cli_export", "the data that was there is kept in {path}").format(path=report.moved_aside),
            file=out,
        )
