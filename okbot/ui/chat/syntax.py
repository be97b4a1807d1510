"""Syntax highlighting of fenced code blocks (Pygments), lexed off the GUI thread and cached per block.

A code block's text is lexed on a TaskRunner thread into spans ``(start, length, category)``,
cached per (language, text), and laid over the block's lines as QTextLayout formats. The formats
only set a colour, so a highlighted row is exactly as tall as a plain one: nothing is re-measured,
and until the spans arrive the code shows plain. Pygments is imported on the worker thread only,
so neither start-up nor painting ever waits for it.

Lexing is Python work, and a Python thread competes with the GUI thread for the GIL: while a chat
opens or scrolls, the GUI thread lays rows out and every call into Qt hands the GIL back and forth.
So the blocks asked for are collected for :data:`LEX_DELAY_MS` (the burst of layout and painting
is over by then) and lexed in one job that offers the GIL back between tokens.

Bounds: only the first :data:`HIGHLIGHT_CHARS` of a block are coloured (the rest stays plain), so a
pasted 10,000-line file costs no more than a screenful. Without a language on the fence, a guess is
made only when it is cheap and sure (a shebang, JSON, XML/HTML, a unified diff, unmistakable
Python); otherwise the block stays plain.
"""

from __future__ import annotations

import bisect
import json
import re
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextDocument, QTextLayout
from shiboken6 import Shiboken

from okbot.ui.chat.markdown import code_runs
from okbot.ui.tasks import TaskRunner, default_task_runner

HIGHLIGHT_CHARS = 6000  # coloured characters per code block; the rest stays plain
CACHE_BLOCKS = 512  # lexed blocks kept
LEX_DELAY_MS = 150  # blocks asked for are lexed together, this long after the first (see the docstring)
YIELD_TOKENS = 64  # the lexing thread offers the GIL to the GUI thread every this many tokens
Span = tuple[int, int, str]  # start, length, category (a key of colors.syntax_colors)

_SHEBANG = re.compile(r"^#!\s*\S*?(?:/env\s+)?(python|bash|sh|zsh|node|ruby|perl)\w*\b")
_PYTHON = re.compile(
    r"^(?:from [\w.]+ import \w|import [\w.]+\s*$|def \w+\(.*\)(?: -> .+)?:\s*$|class \w+(\(.*\))?:\s*$)"
)


def guess_language(code: str) -> str:
    """A language for a fence without one, only when the text says so plainly; ``""`` otherwise."""
    stripped = code.strip()
    if not stripped:
        return ""
    first = stripped.split("\n", 1)[0]
    shebang = _SHEBANG.match(first)
    if shebang:
        return {"sh": "bash", "zsh": "bash", "node": "javascript"}.get(shebang.group(1), shebang.group(1))
    if stripped[0] in "{[" and len(stripped) <= HIGHLIGHT_CHARS:
        try:
            json.loads(stripped)
        except ValueError:
            pass
        else:
            return "json"
    lower = first.lower()
    if lower.startswith(("<?xml", "<!doctype html", "<html")):
        return "html" if "html" in lower else "xml"
    if first.startswith(("diff --git ", "--- ")) and "\n@@ " in stripped:
        return "diff"
    if any(_PYTHON.match(line) for line in stripped.split("\n", 20)[:20]):
        return "python"
    return ""


def lex(language: str, code: str) -> tuple[Span, ...]:
    """The coloured spans of ``code`` (its first HIGHLIGHT_CHARS); blocking, call off the GUI thread."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    name = (language.split() or [""])[0].lower() or guess_language(code)
    if not name:
        return ()
    try:
        lexer = get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return ()
    spans: list[Span] = []
    for n, (start, token, value) in enumerate(lexer.get_tokens_unprocessed(code[:HIGHLIGHT_CHARS])):
        if n % YIELD_TOKENS == 0:
            time.sleep(0)  # a long block must not keep the GUI thread waiting for the GIL
        category = _category(token)
        if not category or not value:
            continue
        if spans and spans[-1][2] == category and spans[-1][0] + spans[-1][1] == start:
            spans[-1] = (spans[-1][0], spans[-1][1] + len(value), category)
        else:
            spans.append((start, len(value), category))
    return tuple(spans)


def _category(token: Any) -> str:
    from pygments import token as t

    for kind, category in (
        (t.Comment, "comment"),
        (t.String, "string"),
        (t.Number, "number"),
        (t.Keyword, "keyword"),
        (t.Operator.Word, "keyword"),
        (t.Name.Builtin, "builtin"),
        (t.Name.Function, "function"),
        (t.Name.Class, "class"),
        (t.Name.Decorator, "decorator"),
        (t.Name.Tag, "tag"),
        (t.Name.Attribute, "attribute"),
        (t.Generic.Inserted, "inserted"),
        (t.Generic.Deleted, "deleted"),
        (t.Generic.Heading, "heading"),
        (t.Generic.Subheading, "heading"),
    ):
        if token in kind:
            return category
    return ""


def char_formats(colors: dict[str, QColor]) -> dict[str, QTextCharFormat]:
    """One colour-only format per category (a colour never changes a line's width)."""
    out = {}
    for category, color in colors.items():
        fmt = QTextCharFormat()
        fmt.setForeground(color)
        out[category] = fmt
    return out


class CodeHighlighter(QObject):
    """Colours the code blocks of chat documents; lexes each distinct block once, on a TaskRunner thread.

    ``lexed`` counts the blocks lexed so far (tests use it to show the cache works).
    """

    ready = Signal()  # colours were laid over documents already shown: repaint

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tasks: TaskRunner | None = None
        self._spans: OrderedDict[tuple[str, str], tuple[Span, ...]] = OrderedDict()
        self._waiting: dict[tuple[str, str], list[Callable[[tuple[Span, ...]], None]]] = {}
        self._queued: list[tuple[str, str]] = []
        self._timer = QTimer(self, singleShot=True, interval=LEX_DELAY_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self.lexed = 0

    def set_tasks(self, tasks: TaskRunner | None) -> None:
        """The runner that lexes (the view's); the process-wide one when None."""
        self._tasks = tasks

    @property
    def pending(self) -> int:
        """Blocks waiting for their spans."""
        return len(self._waiting)

    def highlight(self, doc: QTextDocument, formats: dict[str, QTextCharFormat]) -> None:
        """Colour ``doc``'s code blocks now when their spans are cached, else as soon as they are lexed."""
        for blocks, language in code_runs(doc):
            code = "\n".join(block.text() for block in blocks)[:HIGHLIGHT_CHARS]
            key = (language, code)
            spans = self._spans.get(key)
            if spans is not None:
                self._spans.move_to_end(key)
                _apply(doc, blocks[0].blockNumber(), spans, formats)
                continue
            ref = weakref.ref(doc)
            first = blocks[0].blockNumber()

            def apply(found: tuple[Span, ...], ref: Any = ref, first: int = first) -> None:
                target = ref()
                if target is not None and Shiboken.isValid(target):
                    _apply(target, first, found, formats)

            waiting = self._waiting.get(key)
            if waiting is not None:
                waiting.append(apply)
                continue
            self._waiting[key] = [apply]
            self._queued.append(key)
            if not self._timer.isActive():
                self._timer.start()

    def _on_timer_timeout(self) -> None:
        keys, self._queued = self._queued, []
        (self._tasks or default_task_runner()).run(
            lambda: [lex(*key) for key in keys],
            lambda found: self._on_lexed(keys, found),
            lambda _exc: self._on_lexed(keys, [() for _ in keys]),
            owner=self,
        )

    def _on_lexed(self, keys: list[tuple[str, str]], found: list[tuple[Span, ...]]) -> None:
        coloured = False
        for key, spans in zip(keys, found, strict=True):
            self.lexed += 1
            self._spans[key] = spans
            for apply in self._waiting.pop(key, ()):
                apply(spans)
            coloured |= bool(spans)
        while len(self._spans) > CACHE_BLOCKS:
            self._spans.popitem(last=False)
        if coloured:
            self.ready.emit()


def _apply(doc: QTextDocument, first: int, spans: tuple[Span, ...], formats: dict[str, QTextCharFormat]) -> None:
    """Lay ``spans`` (offsets into the block run's text joined by newlines) over the blocks from ``first`` on."""
    if not spans:
        return
    block = doc.findBlockByNumber(first)
    starts, blocks = [], []
    offset = 0
    while block.isValid() and offset <= spans[-1][0]:
        starts.append(offset)
        blocks.append(block)
        offset += len(block.text()) + 1
        block = block.next()
    ranges: list[list[QTextLayout.FormatRange]] = [[] for _ in blocks]
    for start, length, category in spans:
        fmt = formats.get(category)
        if fmt is None:
            continue
        i = bisect.bisect_right(starts, start) - 1
        end = start + length
        while i < len(blocks) and starts[i] < end:
            lo, hi = max(start, starts[i]), min(end, starts[i] + len(blocks[i].text()))
            if hi > lo:
                part = QTextLayout.FormatRange()
                part.start, part.length, part.format = lo - starts[i], hi - lo, fmt
                ranges[i].append(part)
            i += 1
    for block, parts in zip(blocks, ranges, strict=True):
        if parts:
            block.layout().setFormats(parts)
    if blocks:  # a block laid out already drops its lines with new formats: have them laid out again
        end = blocks[-1].position() + blocks[-1].length()
        doc.markContentsDirty(blocks[0].position(), end - blocks[0].position())
