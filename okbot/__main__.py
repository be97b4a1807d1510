"""``okbot`` and ``python -m okbot``: the desktop app, or a headless subcommand."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from okbot import cli
    from okbot.llm.keys import take_from_environment
    from okbot.logs import setup_logging

    argv = sys.argv[1:] if argv is None else argv
    args = cli.build_parser().parse_args(argv)
    setup_logging()  # okbot.log and crash reports in the data dir's logs/, secrets redacted
    take_from_environment()  # the key leaves the environment: no child inherits it, `ps e` does not show it
    if args.command is None:
        from okbot.ui.app import run_gui

        return run_gui([sys.argv[0], *argv])
    return cli.run(args)


if __name__ == "__main__":
    sys.exit(main())
