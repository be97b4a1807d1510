"""``okbot`` and ``python -m okbot``: the desktop app, or a headless subcommand."""

from __future__ import annotations

import json
import sys


def language_setting() -> str:
    """The ``ui.language`` setting, read straight from settings.json (no repair, no backup: the settings
    are loaded properly later); ``system`` when the file is missing or broken."""
    from okbot.i18n import SYSTEM
    from okbot.storage import paths

    try:
        data = json.loads(paths.settings_file().read_bytes().decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return SYSTEM
    value = data.get("ui.language") if isinstance(data, dict) else None
    return value if isinstance(value, str) else SYSTEM


def main(argv: list[str] | None = None) -> int:
    from okbot import i18n

    # first of all: every help text, message and error below is in the user's language
    i18n.set_language(i18n.resolve(language_setting()))
    from okbot.cli import main as cli

    cli.write_what_the_terminal_shows()  # before anything is printed
    from okbot.config.providers import key_env_names
    from okbot.llm.keys import take_from_environment
    from okbot.logs import setup_logging
    from okbot.storage import paths

    argv = sys.argv[1:] if argv is None else argv
    args = cli.build_parser().parse_args(argv)
    setup_logging()  # okbot.log and crash reports in the data dir's logs/, secrets redacted
    # the keys leave the environment (OkBot's own and those its providers name): no child inherits them,
    # `ps e` does not show them
    take_from_environment(key_env_names(paths.settings_file()))
    if args.command is None:
        from okbot.ui.app import run_gui

        return run_gui([sys.argv[0], *argv])
    return cli.run(args)


if __name__ == "__main__":
    sys.exit(main())
