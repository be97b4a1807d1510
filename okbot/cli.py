"""Headless command line over the same core the app uses.

``okbot`` with no command starts the desktop app; every subcommand here runs without Qt.
Exit codes: 0 success, 1 a user-facing error (message on stderr: one ``okbot: …`` line, a JSON object under
``--json``; also a search with no match and a compression that changed nothing), 2 bad usage, 70 an unexpected failure
(a bug: a crash report is written), 130 a turn stopped with Ctrl+C, 141 the reader of stdout closed it (as
``okbot export … | head -1`` does; nothing is said).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from okbot import __version__, cli_export, cli_import, cli_mcp, cli_provider, cli_search, cli_teach
from okbot.cli_output import add_json_flag, error_text, print_error, print_json
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.storage.errors import OkBotError

EXIT_CRASH = 70  # EX_SOFTWARE: distinct from a user-facing error (1) and from Ctrl+C (130)
# 128 + SIGPIPE: what the shell reports for `seq 1000000 | head -1`, so a pipeline (and `set -o pipefail`)
# sees the output was cut short, and 1 keeps meaning an error said on stderr
EXIT_BROKEN_PIPE = 141

# argparse's own words (its usage line, section titles, errors), looked up in OkBot's catalogue: argparse
# asks gettext for them, and OkBot ships no gettext catalogue
ARGPARSE_WORDS = (
    QT_TRANSLATE_NOOP("argparse", "usage: "),
    QT_TRANSLATE_NOOP("argparse", "positional arguments"),
    QT_TRANSLATE_NOOP("argparse", "options"),
    QT_TRANSLATE_NOOP("argparse", "show this help message and exit"),
    QT_TRANSLATE_NOOP("argparse", "%(prog)s: error: %(message)s\n"),
    QT_TRANSLATE_NOOP("argparse", "argument %(argument_name)s: %(message)s"),
    QT_TRANSLATE_NOOP("argparse", "the following arguments are required: %s"),
    QT_TRANSLATE_NOOP("argparse", "one of the arguments %s is required"),
    QT_TRANSLATE_NOOP("argparse", "unrecognized arguments: %s"),
    QT_TRANSLATE_NOOP("argparse", "not allowed with argument %s"),
    QT_TRANSLATE_NOOP("argparse", "ignored explicit argument %r"),
    QT_TRANSLATE_NOOP("argparse", "expected one argument"),
    QT_TRANSLATE_NOOP("argparse", "expected at most one argument"),
    QT_TRANSLATE_NOOP("argparse", "expected at least one argument"),
    QT_TRANSLATE_NOOP("argparse", "expected %s argument"),
    QT_TRANSLATE_NOOP("argparse", "expected %s arguments"),
    QT_TRANSLATE_NOOP("argparse", "ambiguous option: %(option)s could match %(matches)s"),
    QT_TRANSLATE_NOOP("argparse", "invalid %(type)s value: %(value)r"),
    QT_TRANSLATE_NOOP("argparse", "invalid choice: %(value)r (choose from %(choices)s)"),
    QT_TRANSLATE_NOOP("argparse", "can't open '%(filename)s': %(error)s"),
)


def write_what_the_terminal_shows() -> None:
    """Have stdout and stderr replace what their encoding cannot hold (Chinese on an ASCII or Latin-1
    terminal, ``PYTHONIOENCODING=ascii``) instead of failing the command with UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # None without a console; a test's StringIO
        if reconfigure is not None:
            reconfigure(errors="replace")


def _argparse_gettext(text: str) -> str:
    return translate("argparse", text)


def _argparse_ngettext(singular: str, plural_: str, n: int) -> str:
    return translate("argparse", singular if n == 1 else plural_)


def speak_argparse() -> None:
    """Have argparse's own words (usage, section titles, its errors) in the current language."""
    argparse._ = _argparse_gettext  # type: ignore[attr-defined]
    argparse.ngettext = _argparse_ngettext  # type: ignore[attr-defined]


def build_parser() -> argparse.ArgumentParser:
    """The command line: every command, its options and its help are declared here and only here.

    Built after the language is set: every help text is in that language."""
    speak_argparse()
    target_help = translate("cli", "an assistant or squad id or name")
    parser = argparse.ArgumentParser(
        prog="okbot",
        description=translate("cli", "OkBot: desktop chat with assistants and squads."),
        epilog=translate(
            "cli",
            "`okbot COMMAND --help` shows a command's arguments.\n"
            "Environment: OKBOT_HOME (data dir), OKBOT_BASE_URL, OKBOT_MODEL, OKBOT_API_KEY (each overrides the\n"
            "settings when set). Run `okbot` with no command to open the desktop app.",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-V",
        "--version",
        action="version",
        version=f"okbot {__version__}",
        help=translate("cli", "show the version number and exit"),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title=translate("cli", "headless commands"))

    p = sub.add_parser("chat", help=translate("cli", "send a message (or stdin) and stream the reply"))
    p.add_argument("target", metavar="TARGET", help=target_help)
    p.add_argument("-m", "--message", help=translate("cli", "the message (default: read stdin)"))
    p.add_argument(
        "--retry",
        action="store_true",
        help=translate("cli", "run the last message's turn again after a failed or stopped reply"),
    )
    p.add_argument(
        "--edit", type=int, metavar="ID", help=translate("cli", "send the message as a new version of your message ID")
    )
    p.add_argument(
        "--regenerate",
        type=int,
        nargs="?",
        const=0,
        metavar="ID",
        help=translate("cli", "a new version of the reply holding item ID (default: the last reply)"),
    )
    p.add_argument(
        "--attach",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help=translate(
            "cli", "attach a file to the message (text, code, Markdown, or an image for a vision model); repeatable"
        ),
    )
    p.add_argument("--json", action="store_true", help=translate("cli", "emit events as JSON lines"))
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help=translate(
            "cli", "print the model's reasoning (on stderr) and, for squads, each delegation and member reply"
        ),
    )

    p = sub.add_parser("context", help=translate("cli", "print exactly what the model would see"))
    p.add_argument("target", metavar="TARGET", help=target_help)
    p.add_argument(
        "--member", metavar="ID", help=translate("cli", "squads: that member's request instead of the captain's")
    )
    p.add_argument(
        "--at", type=int, metavar="ID", help=translate("cli", "cut off at this user message (what the viewer shows)")
    )
    p.add_argument("--json", action="store_true", help=translate("cli", "machine-readable output"))
    p.add_argument("--full", action="store_true", help=translate("cli", "do not cut long bodies"))
    p.add_argument(
        "--as-sent",
        action="store_true",
        help=translate(
            "cli", "with --at: the request as it was sent for that message (every block and item it held, its numbers)"
        ),
    )
    p.add_argument(
        "--attempt",
        type=int,
        metavar="K",
        help=translate("cli", "with --as-sent: attempt K of the turn (default: the reply's)"),
    )
    p.add_argument(
        "--round", type=int, metavar="R", help=translate("cli", "with --as-sent: tool round R of that attempt")
    )

    p = sub.add_parser("compress", help=translate("cli", "fold older items into the summary now; undo, redo"))
    p.add_argument("target", metavar="TARGET", help=target_help)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--undo",
        action="store_true",
        help=translate("cli", "bring back the summary and coverage from before the last compression"),
    )
    mode.add_argument("--redo", action="store_true", help=translate("cli", "bring back the compression undone last"))
    mode.add_argument(
        "--last",
        action="store_true",
        help=translate("cli", "what the last compression changed: the summary's diff and the items it covered"),
    )
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("evolve", help=translate("cli", "keep an assistant's persona and skills up now; its log; undo"))
    p.add_argument("target", metavar="TARGET", help=translate("cli", "an assistant id or name"))
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--log", action="store_true", help=translate("cli", "list the changes upkeep made (and undid)"))
    mode.add_argument("--undo", type=int, metavar="N", help=translate("cli", "undo change N of the log"))
    p.add_argument("--json", action="store_true")

    cli_teach.add_parsers(sub)

    p = sub.add_parser("list", help=translate("cli", "assistants and squads (id, name, kind)"))
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("config", help=translate("cli", "read or change settings (validated)"))
    csub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    g = csub.add_parser("get", help=translate("cli", "print one setting, or all"))
    g.add_argument("key", nargs="?", metavar="KEY")
    g.add_argument("--json", action="store_true")
    s = csub.add_parser("set", help=translate("cli", "change a setting (validated)"))
    s.add_argument("key", metavar="KEY")
    s.add_argument("value", metavar="VALUE")
    add_json_flag(s)
    r = csub.add_parser("reset", help=translate("cli", "back to the default"))
    r.add_argument("key", metavar="KEY")
    add_json_flag(r)

    p = sub.add_parser("new", help=translate("cli", "create an assistant or a squad"))
    nsub = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    a = nsub.add_parser("assistant", help=translate("cli", "a new assistant"))
    a.add_argument("name", metavar="NAME")
    a.add_argument("--soul", type=Path, metavar="FILE", help=translate("cli", "SOUL.md to start from (- reads stdin)"))
    a.add_argument("--role", default="", help=translate("cli", "one-line role"))
    a.add_argument(
        "--model",
        default=None,
        metavar="[PROVIDER/]MODEL",
        help=translate("cli", "its own model (default: provider.model)"),
    )
    add_json_flag(a)
    q = nsub.add_parser("squad", help=translate("cli", "a new squad of two or more assistants"))
    q.add_argument("name", metavar="NAME")
    q.add_argument(
        "--member",
        action="append",
        default=[],
        metavar="ID[:ROLE]",
        required=True,
        help=translate("cli", "a member; give two or more"),
    )
    q.add_argument("--description", default="", help=translate("cli", "what the squad is for"))
    add_json_flag(q)

    p = sub.add_parser("rm", help=translate("cli", "move an assistant or squad to the trash"))
    p.add_argument("target", metavar="TARGET", help=target_help)
    add_json_flag(p)
    p = sub.add_parser("restore", help=translate("cli", "undo rm (TRASH_ID), or restore a backup (FILE.zip)"))
    cli_export.add_restore_arguments(p)
    add_json_flag(p)
    p = sub.add_parser("trash", help=translate("cli", "what is in the trash"))
    p.add_argument("--json", action="store_true")
    cli_provider.add_parsers(sub)
    cli_mcp.add_parsers(sub)
    cli_export.add_parsers(sub)
    cli_import.add_parsers(sub)
    cli_search.add_parsers(sub)
    return parser


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run a parsed subcommand; user-facing errors become a message and exit code 1."""
    out = out or sys.stdout
    err = err or sys.stderr
    as_json = getattr(args, "json", False)  # the commands that take --json say their errors in JSON
    handler = _HANDLERS[args.command]
    try:
        with _using_data_dir(args):
            code = handler(args, out, err)
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
    from okbot.logs import write_crash_report

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
    if args.command == "restore" and cli_export.is_backup_ref(args.what):
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


def _workspace() -> Any:
    from okbot.core.workspace import Workspace

    ws = Workspace()
    ws.ensure_default()
    return ws


def _report(problems: list[str], err: TextIO) -> None:
    for problem in problems:
        print(note(problem), file=err)


def note(text: str) -> str:
    """``okbot: note: text`` in the current language (a remark on stderr that is not an error)."""
    return translate("cli", "okbot: note: {text}").format(text=text)


def _cmd_chat(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.cli_chat import run_chat

    ws = _workspace()
    target = ws.resolve(args.target)
    if args.attach and (args.retry or args.regenerate is not None or args.edit is not None):
        raise OkBotError(
            translate("cli", "--attach goes with a new message"),
            hint=translate("cli", "drop --retry, --edit or --regenerate"),
        )
    if args.retry or args.regenerate is not None:
        text = None
    elif args.message is not None:
        text = args.message
    elif sys.stdin is None or sys.stdin.isatty():
        if not args.attach:
            raise OkBotError(
                translate("cli", "no message given"), hint=translate("cli", "use -m TEXT or pipe the message on stdin")
            )
        text = ""  # the attached files are the message
    else:  # a pipe ends its text with a newline (`echo … |`, a file): that is not part of the message
        text = sys.stdin.read().rstrip("\r\n")
    return run_chat(
        ws,
        target,
        text,
        as_json=args.json,
        verbose=args.verbose,
        out=out,
        err=err,
        edit_of=args.edit,
        regenerate_of=args.regenerate,
        attachments=args.attach,
    )


def _target_and_sources(ref: str, err: TextIO) -> tuple[Any, Any]:
    """The context sources over the data dir and the resolved target, with exact token counts."""
    from okbot.core.sources import ContextSources

    ws = _workspace()
    sources = ContextSources(ws)
    _report(sources.settings.problems, err)
    target = ws.resolve(ref)
    sources.loaded_counter(target)
    return sources, target


def _cmd_context(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core.context import build_context
    from okbot.core.render import remember_api_keys, render_json, render_markdown
    from okbot.core.tokens import APPROX_NOTE

    sources, target = _target_and_sources(args.target, err)
    remember_api_keys(sources.settings)  # no provider is built here: the key must be known to redact it
    if args.as_sent or args.attempt is not None or args.round is not None:
        _check_as_sent_args(args)
    proj = build_context(target, args.at, sources=sources, member=args.member)
    if args.as_sent:
        return _print_as_sent(args, sources, target, proj, out)
    if args.json:
        print(render_json(proj, _prompt_cache(sources, target, proj)), file=out)
    else:
        out.write(render_markdown(proj, body_limit=None if args.full else 2000, approx_note=APPROX_NOTE))
    return 0


def _prompt_cache(sources: Any, target: Any, proj: Any) -> dict[str, Any] | None:
    """``okbot context --json``'s ``promptCache``: that of the request the message's turn answered with."""
    from okbot.app.context_view import sent_request

    at = (
        proj.at
        if proj.at is not None
        else next((it["id"] for it in reversed(proj.items) if it.get("type") == "user"), None)
    )
    sent = sent_request(sources, target, at) if at is not None else None
    return sent.cache.to_json() if sent is not None and sent.cache is not None else None


def _check_as_sent_args(args: argparse.Namespace) -> None:
    if not args.as_sent:
        raise OkBotError(
            translate("cli", "--attempt and --round choose a request of --as-sent"),
            hint=translate("cli", "add --as-sent"),
        )
    if args.at is None:
        raise OkBotError(
            translate("cli", "--as-sent needs --at"),
            hint=translate("cli", "give the id of the message you typed (--at ID)"),
        )


def _print_as_sent(args: argparse.Namespace, sources: Any, target: Any, proj: Any, out: TextIO) -> int:
    """``okbot context --at N --as-sent``: the recorded request, as the viewer's As-sent tab shows it."""
    from okbot.app.context_view import sent_request
    from okbot.core.assent import compare_blocks
    from okbot.core.render import as_sent_json, as_sent_markdown
    from okbot.core.sent_request import choose

    turn = sources.as_sent(target).turn(args.at, args.member)
    if not turn:
        raise OkBotError(
            translate("cli", "no as-sent record for message #{id}").format(id=args.at),
            hint=translate("cli", "it was sent before OkBot kept one, or never sent"),
        )
    sent = sent_request(sources, target, args.at, choose(turn, args.attempt, args.round).id, args.member)
    assert sent is not None  # the turn has it
    states = compare_blocks(sent.request, proj)
    if args.json:
        print(as_sent_json(sent, states), file=out)
    else:
        out.write(as_sent_markdown(sent, proj, states, body_limit=None if args.full else 2000))
    return 0


def _cmd_compress(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from dataclasses import asdict

    from okbot.app import OkBotApp
    from okbot.cli_chat import wait_for_wrap_up

    if args.undo or args.redo or args.last:
        return _compress_history(args, out, err)
    ws = _workspace()
    app = OkBotApp(ws)
    try:
        _report(app.settings.problems, err)
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

    ws = _workspace()
    target = ws.resolve(args.target)
    if args.last:
        session = _session_of(target)
        last = undo.describe_last(target, item_text=lambda i: (session.get(i) or {}).get("content"))
        _report(last.problems if last else [], err)
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


def _session_of(target: Any) -> Any:
    from okbot.core.session import SessionStore

    return SessionStore(target.session_path)


def _cmd_evolve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.cli_evolve import evolve

    sources, target = _target_and_sources(args.target, err)
    return evolve(sources, target, log=args.log, undo=args.undo, as_json=args.json, out=out, err=err)


def _cmd_list(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    ws = _workspace()
    rows = [{"id": t.id, "name": t.name, "kind": t.kind} for t in ws.list()]
    _report(ws.problems, err)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2), file=out)
    else:
        for row in rows:
            print(f"{row['kind']:<9}  {row['id']:<24}  {row['name']}", file=out)
    return 0


def _cmd_config(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.config.schema import setting
    from okbot.config.settings import Settings

    settings = Settings.load()
    _report(settings.problems, err)

    def shown(key: str) -> Any:  # a password in OKBOT_BASE_URL is never printed
        return setting(key).shown(settings.get(key))

    if args.action == "get":
        if args.key is None:
            values = {key: shown(key) for key in settings.as_dict()}
            if args.json:
                print(json.dumps(values, ensure_ascii=False, indent=2), file=out)
            else:
                for key, value in values.items():
                    print(f"{key} = {json.dumps(value, ensure_ascii=False)}", file=out)
            return 0
        setting(args.key)  # unknown keys: a clear error with suggestions
        value = shown(args.key)
        print(
            json.dumps(value, ensure_ascii=False) if args.json or not isinstance(value, str) else value,
            file=out,
        )
    elif args.action == "set":
        settings.set_text(args.key, args.value)
        if args.json:
            print_json({"key": args.key, "value": shown(args.key)}, out)
        else:
            print(f"{args.key} = {json.dumps(shown(args.key), ensure_ascii=False)}", file=out)
    else:
        settings.reset(args.key)
        if args.json:
            print_json({"key": args.key, "value": shown(args.key), "default": True}, out)
        else:
            value = json.dumps(shown(args.key), ensure_ascii=False)
            print(translate("cli", "{key} = {value} (default)").format(key=args.key, value=value), file=out)
    return 0


def _cmd_new(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    ws = _workspace()
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

            model = cli_provider.check_model_ref(Settings.load(), args.model, err)
        target = ws.create_assistant(args.name, role=args.role, soul_text=soul, model=model)
    else:
        members = []
        for spec in args.member:
            ref, _, role = spec.partition(":")
            members.append((ref.strip(), role.strip()))
        target = ws.create_squad(args.name, members, description=args.description)
    if args.json:
        print_json(_described(target), out)
    else:
        print(_created(target), file=out)
    return 0


def _described(target: Any) -> dict[str, str]:
    """An assistant or squad in the JSON of the commands that make, trash or restore one."""
    return {"kind": target.kind, "id": target.id, "name": target.name}


def _created(target: Any) -> str:
    if target.is_squad:
        text = translate("cli", "created squad {id} ({name})")
    else:
        text = translate("cli", "created assistant {id} ({name})")
    return text.format(id=target.id, name=target.name)


def _cmd_rm(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core import trash

    ws = _workspace()
    target = ws.resolve(args.target)
    trash_id = trash.delete(ws, target.id)
    if args.json:
        print_json(_described(target) | {"trashId": trash_id}, out)
    else:
        if target.is_squad:
            text = translate("cli", "moved squad {id} ({name}) to the trash; undo with: okbot restore {trash_id}")
        else:
            text = translate("cli", "moved assistant {id} ({name}) to the trash; undo with: okbot restore {trash_id}")
        print(text.format(id=target.id, name=target.name, trash_id=trash_id), file=out)
    for squad in ws.squads_below_minimum():
        print(note(translate("cli", "squad {name} now has fewer than two members").format(name=squad.name)), file=err)
    return 0


def _cmd_restore(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core import trash

    target = trash.restore(_workspace(), args.what)
    if args.json:
        print_json(_described(target) | {"trashId": args.what}, out)
        return 0
    if target.is_squad:
        text = translate("cli", "restored squad {id} ({name})")
    else:
        text = translate("cli", "restored assistant {id} ({name})")
    print(text.format(id=target.id, name=target.name), file=out)
    return 0


def _cmd_trash(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from okbot.core import trash

    entries = trash.entries(_workspace())
    if args.json:
        print(json.dumps(entries, ensure_ascii=False, indent=2), file=out)
    else:
        for entry in entries:
            print(f"{entry['id']}  {entry['kind']:<9}  {entry['name']}", file=out)
    return 0


_HANDLERS = {
    "provider": cli_provider.cmd_provider,
    "set-model": cli_provider.cmd_set_model,
    "mcp": cli_mcp.cmd_mcp,
    "import-okbot": cli_import.cmd_import_okbot,
    "search": cli_search.cmd_search,
    "chat": _cmd_chat,
    "context": _cmd_context,
    "compress": _cmd_compress,
    "evolve": _cmd_evolve,
    "teach": lambda args, out, err: cli_teach.cmd_teach(args, out, err, sources_for=_target_and_sources),
    "list": _cmd_list,
    "config": _cmd_config,
    "new": _cmd_new,
    "rm": _cmd_rm,
    "restore": lambda args, out, err: cli_export.cmd_restore(args, out, err, restore_trash=_cmd_restore),
    "export": cli_export.cmd_export,
    "backup": cli_export.cmd_backup,
    "trash": _cmd_trash,
}
