"""``okbot COMMAND``: the headless command line, one module per command over the application layer.

:mod:`~okbot.cli.main` runs a parsed command (:func:`~okbot.cli.main.run`), :mod:`~okbot.cli.parser` declares
them all, :mod:`~okbot.cli.common` and :mod:`~okbot.cli.output` are what the commands share. A command's
module loads when that command runs, so ``okbot`` with no command starts the desktop app without them.
"""
