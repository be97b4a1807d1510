"""Inline ``<think>…</think>`` at the start of a reply (Qwen3, R1 distills on local servers), split off.

Such models write their reasoning into the content itself. :class:`ThinkSplitter` takes the content
as it streams and tells reasoning from answer, holding back only what could still be a tag, so a
partial ``<think`` or ``</think`` never shows as answer text. Only a block that opens the reply
(after optional whitespace) counts: ``<think>`` later in an answer is the answer's own text.
"""

from __future__ import annotations

OPEN = "<think>"
CLOSE = "</think>"


class ThinkSplitter:
    """Feed content pieces; get ``(reasoning, answer)`` text that can be shown now."""

    def __init__(self) -> None:
        self._state = "start"  # start -> thinking -> after -> answer, or start -> answer
        self._held = ""

    @property
    def thinking(self) -> bool:
        """Inside an open ``<think>`` block (a stream that ends here was cut mid-thought)."""
        return self._state == "thinking"

    def feed(self, piece: str) -> tuple[str, str]:
        """What of ``piece`` (after what was held back) is reasoning and what is answer."""
        if self._state == "after":  # the whitespace between the block and the answer is dropped
            piece = piece.lstrip()
            if piece:
                self._state = "answer"
        if self._state in ("after", "answer"):
            return "", piece
        text = self._held + piece
        self._held = ""
        if self._state == "start":
            stripped = text.lstrip()
            if not stripped or OPEN.startswith(stripped):
                self._held = text  # whitespace, or what may still become "<think>"
                return "", ""
            if not stripped.startswith(OPEN):
                self._state = "answer"
                return "", text
            self._state = "thinking"
            text = stripped[len(OPEN) :]
        end = text.find(CLOSE)
        if end >= 0:
            answer = text[end + len(CLOSE) :].lstrip()
            self._state = "answer" if answer else "after"
            return text[:end], answer
        keep = _partial_at_end(text, CLOSE)
        self._held = text[len(text) - keep :] if keep else ""
        return text[: len(text) - keep], ""

    def flush(self, *, cut: bool = False) -> tuple[str, str]:
        """The stream ended: what was held back, as reasoning (inside a block) or answer.

        ``cut``: it broke off, so a reply that is only the start of ``<think>`` so far was a tag, not text."""
        held, self._held = self._held, ""
        if self._state == "thinking":
            return held, ""
        if self._state == "start" and (cut or not held.strip()):
            return "", ""  # only whitespace, or a tag cut short: no answer is invented from it
        return "", held


def split_think(text: str) -> tuple[str, str]:
    """``(reasoning, answer)`` of a whole reply (the non-streaming path)."""
    splitter = ThinkSplitter()
    reasoning, answer = splitter.feed(text)
    more_reasoning, more_answer = splitter.flush()
    return reasoning + more_reasoning, answer + more_answer


def _partial_at_end(text: str, tag: str) -> int:
    """How many characters at the end of ``text`` could be the start of ``tag``."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0
