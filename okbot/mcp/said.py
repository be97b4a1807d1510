"""What an MCP server says, made safe to show: no escape sequences, no control characters.

A server's tool descriptions, its name and version, its stderr lines and its tool results reach a
terminal (``okbot mcp list``, ``okbot chat``), the GUI, the log and the model. An escape sequence in
them could set the terminal's title, write the clipboard (OSC 52) or clear the screen, so every text
a server sends is cleaned here, where it enters OkBot, before anything keeps or shows it.
"""

from __future__ import annotations

import re

# Escape sequences whole (their parameters would otherwise be left as text): OSC/DCS/APC/PM strings up to
# their terminator, CSI sequences up to their final byte (ESC [ or the 8-bit CSI), then any two-byte escape.
_SEQUENCES = re.compile(
    r"(?:\x1b[\]P_^X]|[\x9d\x90\x9f\x9e\x98])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|\x1b[ -/]*[0-~]?"
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_LINE_BREAKS = re.compile(r"\r\n?")


def clean(text: str, *, one_line: bool = False) -> str:
    """``text`` without escape sequences and control characters (tab and newline kept; a carriage return is
    a newline); with ``one_line``, every line break and tab a space."""
    text = _CONTROLS.sub("", _SEQUENCES.sub("", _LINE_BREAKS.sub("\n", text)))
    return " ".join(text.split()) if one_line else text
