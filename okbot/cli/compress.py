"""``okbot compress``: fold older items into the summary now, or undo, redo or describe the last compression."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from okbot.cli.common import report_problems, session_of, workspace
from okbot.cli.output import error_text


def cmd_compress(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from dataclasses import asdict

    from okbot.app import OkBotApp
    from okbot.cli.chat import wait_for_wrap_up

    if args.undo or args.redo or args.last:
        return _compress_history(args, out, err)
    ws = workspace()
    app = OkBotApp(ws)
    try:
        report_problems(app.settings.problems, err)
        target = ws.resolve(args.target)
        app.sources.loaded_counter(target)
        report = app.compress_now(target)
        if report.ok:  # memory extraction follows, as after any compression
            wait_for_wrap_up(app, err)
    finally:
        app.close()
    if args.json:
        print(json.dumps(asdict(report), ensure_ascii=False, indent=2), file=out)
    elif report.ok:
        print(report.message, file=out)
    else:  # nothing changed: said as an error, and the exit status is the same with or without --json
        print(error_text(report.message, as_json=False), file=err)
    return 0 if report.ok else 1


def _compress_history(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``okbot compress --undo | --redo | --last``: no provider is needed, nothing is sent."""
    from okbot.core.compression import undo

    ws = workspace()
    target = ws.resolve(args.target)
    if args.last:
        session = session_of(target)
        last = undo.describe_last(target, item_text=lambda i: (session.get(i) or {}).get("content"))
        report_problems(last.problems if last else [], err)
        if args.json:
            print(json.dumps(last.to_json() if last else None, ensure_ascii=False, indent=2), file=out)
        else:
            out.write(undo.describe_text(last))
        return 0
    restored = undo.undo_last(target) if args.undo else undo.redo_last(target)
    if args.json:
        print(json.dumps(restored.to_json(), ensure_ascii=False, indent=2), file=out)
    else:
        print(restored.message, file=out)
    return 0
