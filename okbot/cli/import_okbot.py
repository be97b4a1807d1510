"""``okbot import-okbot [DIR]``: bring assistants, squads and chats over from the original OkBot.

DIR defaults to where the original keeps its data on this OS (``~/.okbot``, see
:mod:`okbot.core.import_okbot`). The source is only read. The report says, per assistant and squad, how
many items, skills and memories came over and whether the summary did, then what was not imported and
why (skipped lines by number, item kinds, files not read: links, pipes, files over their size bound;
settings set, kept or not mapped, keys never copied); ``--json`` prints the same report as one JSON object
(:meth:`ImportReport.to_json`). Running it again skips what an earlier run imported.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from okbot.core.import_okbot import apply_settings, default_source_dir, import_okbot
from okbot.i18n import translate


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "import-okbot",
        help=translate("cli_import", "bring assistants and chats over from the original (Electron) OkBot"),
    )
    p.add_argument(
        "source",
        nargs="?",
        type=Path,
        metavar="DIR",
        help=translate("cli_import", "the original's data dir (default: {path})").format(path=default_source_dir()),
    )
    p.add_argument("--json", action="store_true", help=translate("cli_import", "print the report as JSON"))


def cmd_import_okbot(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.config.settings import Settings
    from okbot.core.workspace import Workspace

    workspace = Workspace()
    report = import_okbot(args.source or default_source_dir(), workspace)
    apply_settings(report, Settings.load(), workspace)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2), file=out)
    else:
        print(report.text(), file=out)
    return 0
