"""The command line's grammar: every command, its options and its help, in the user's language."""

from __future__ import annotations

import argparse
from pathlib import Path

from okbot import __version__
from okbot.cli import export, import_okbot, mcp, provider, schedule, search, teach, web_search
from okbot.cli.output import add_json_flag
from okbot.i18n import QT_TRANSLATE_NOOP, translate

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

    teach.add_parsers(sub)

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
    export.add_restore_arguments(p)
    add_json_flag(p)
    p = sub.add_parser("trash", help=translate("cli", "what is in the trash"))
    p.add_argument("--json", action="store_true")
    provider.add_parsers(sub)
    mcp.add_parsers(sub)
    export.add_parsers(sub)
    import_okbot.add_parsers(sub)
    search.add_parsers(sub)
    schedule.add_parsers(sub)
    web_search.add_parsers(sub)
    return parser
