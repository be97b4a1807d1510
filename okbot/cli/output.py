"""How the command line says an error, and whether it may style its output.

An error is one ``okbot: …`` line on stderr; under ``--json`` it is one JSON object instead,
``{"error": message, "hint": hint or null}``, so a program reading the output never has to parse words; what a
command did is one JSON object on stdout (:func:`print_json`).
Bold and dim escapes go only to a terminal, and not when ``NO_COLOR`` is set (https://no-color.org) or
``TERM`` is ``dumb``.
"""

from __future__ import annotations

import json
import os
from typing import Any, TextIO

from okbot.i18n import translate
from okbot.storage.errors import OkBotError


def add_json_flag(parser: Any) -> None:
    """``--json`` on a command that changes something: it prints what it did as one JSON object."""
    parser.add_argument("--json", action="store_true", help=translate("cli", "print what was done as one JSON object"))


def print_json(value: Any, out: TextIO) -> None:
    """``value`` as the indented JSON every ``--json`` prints on stdout."""
    print(json.dumps(value, ensure_ascii=False, indent=2), file=out)


def error_text(message: str, hint: str = "", *, as_json: bool) -> str:
    """The line that says an error: ``okbot: message (hint)``, or with ``as_json`` its JSON object."""
    if as_json:
        return json.dumps({"error": message, "hint": hint or None}, ensure_ascii=False)
    return f"okbot: {OkBotError(message, hint=hint)}"


def print_error(error: BaseException, err: TextIO, *, as_json: bool) -> None:
    """Say ``error`` on ``err`` (an OkBotError's message and hint; any other error's text)."""
    message = getattr(error, "message", None)
    if not isinstance(message, str):
        message = str(error)
    print(error_text(message, getattr(error, "hint", "") or "", as_json=as_json), file=err)


def styled(stream: TextIO) -> bool:
    """Whether escapes (bold, dim) may be written to ``stream``: a terminal that has not asked for plain text.

    ``NO_COLOR`` counts when it is not empty, whatever its value (no-color.org)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
