"""Headless command line over the same core the app uses.

``okbot`` with no command starts the desktop app; every subcommand here runs without Qt.
Exit codes: 0 success, 1 a user-facing error (message on stderr: one ``okbot: …`` line, a JSON object under
``--json``; also a search with no match and a compression that changed nothing), 2 bad usage, 70 an unexpected failure
(a bug: a crash report is written), 130 a turn stopped with Ctrl+C, 141 the reader of stdout closed it (as
``okbot export … | head -1`` does; nothing is said).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from okbot.cli.export import is_backup_ref
from okbot.cli.output import error_text, print_error
from okbot.cli.parser import build_parser
from okbot.i18n import translate
from okbot.storage.errors import OkBotError

__all__ = ["build_parser", "handler", "run", "write_what_the_terminal_shows"]

EXIT_CRASH = 70  # EX_SOFTWARE: distinct from a user-facing error (1) and from Ctrl+C (130)
# 128 + SIGPIPE: what the shell reports for `seq 1000000 | head -1`, so a pipeline (and `set -o pipefail`)
# sees the output was cut short, and 1 keeps meaning an error said on stderr
EXIT_BROKEN_PIPE = 141


def write_what_the_terminal_shows() -> None:
    """Have stdout and stderr replace what their encoding cannot hold (Chinese on an ASCII or Latin-1
    terminal, ``PYTHONIOENCODING=ascii``) instead of failing the command with UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # None without a console; a test's StringIO
        if reconfigure is not None:
            reconfigure(errors="replace")


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run a parsed subcommand; user-facing errors become a message and exit code 1."""
    out = out or sys.stdout
    err = err or sys.stderr
    as_json = getattr(args, "json", False)  # the commands that take --json say their errors in JSON
    run_command = handler(args.command)
    try:
        with _using_data_dir(args):
            code = run_command(args, out, err)
        out.flush()  # what is still buffered meets a closed pipe here, not at exit
        return code
    except BrokenPipeError:  # the reader has what it wanted (`| head -1`): end quietly, as coreutils do
        _silence(out)
        return EXIT_BROKEN_PIPE
    except OkBotError as exc:
        print_error(exc, err, as_json=as_json)
        return 1
    except OSError as exc:
        where = exc.filename or translate("cli", "the data dir")
        text = translate("cli", "cannot access {where}: {why}").format(where=where, why=exc.strerror)
        print(error_text(text, as_json=as_json), file=err)
        return 1
    except Exception as exc:  # noqa: BLE001 - a bug: say so, keep the report (Ctrl+C is no Exception)
        return _crashed(exc, err, as_json=as_json)


def _silence(out: TextIO) -> None:
    """Point ``out``'s descriptor at the null device, so the flush at exit does not meet the closed pipe again
    (the recipe of the Python docs' note on SIGPIPE)."""
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):  # a test's StringIO: nothing flushes it at exit
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _crashed(exc: Exception, err: TextIO, *, as_json: bool) -> int:
    from okbot.logs import write_crash_report  # only after a crash

    path = write_crash_report(type(exc), exc, exc.__traceback__)
    if path is None:
        text = translate("cli", "okbot: OkBot failed unexpectedly ({error}) and could not write a crash report")
    else:
        text = translate("cli", "okbot: OkBot failed unexpectedly ({error}); the crash report is {path}")
    text = text.format(error=type(exc).__name__, path=path)
    print(error_text(text.removeprefix("okbot: "), as_json=True) if as_json else text, file=err)
    return EXIT_CRASH


@contextmanager
def _using_data_dir(args: argparse.Namespace) -> Iterator[None]:
    """Hold the data dir as one of its users for the command's run, so no restore runs under it (a restore of
    a backup holds it alone itself); refuse while a restore runs."""
    if args.command == "restore" and is_backup_ref(args.what):
        yield
        return
    from okbot.storage import paths
    from okbot.storage.datalock import DataDirUse

    data_dir = paths.data_dir()
    use = DataDirUse(data_dir)
    if not use.share(f"okbot {args.command}"):
        raise OkBotError(
            translate("cli", "a backup is being restored into {path}").format(path=data_dir),
            hint=translate("cli", "try again when the restore is done"),
        )
    try:
        yield
    finally:
        use.release()


# "module:function" under okbot.cli: a command's module is imported when it runs, not at start-up
_HANDLERS = {
    "provider": "provider:cmd_provider",
    "set-model": "provider:cmd_set_model",
    "mcp": "mcp:cmd_mcp",
    "import-okbot": "import_okbot:cmd_import_okbot",
    "search": "search:cmd_search",
    "schedule": "schedule:cmd_schedule",
    "web-search": "web_search:cmd_web_search",
    "chat": "chat:cmd_chat",
    "context": "context:cmd_context",
    "compress": "compress:cmd_compress",
    "evolve": "evolve:cmd_evolve",
    "teach": "teach:cmd_teach",
    "list": "targets:cmd_list",
    "config": "config:cmd_config",
    "new": "targets:cmd_new",
    "rm": "targets:cmd_rm",
    "restore": "export:cmd_restore",
    "export": "export:cmd_export",
    "backup": "export:cmd_backup",
    "trash": "targets:cmd_trash",
}


def handler(command: str) -> Any:
    """The function that runs ``command`` (its module imported now)."""
    module, _, name = _HANDLERS[command].partition(":")
    return getattr(importlib.import_module(f"okbot.cli.{module}"), name)
