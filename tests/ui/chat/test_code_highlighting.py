"""Syntax highlighting of fenced code blocks: Pygments colours, lexed off the GUI thread, cached per block."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from okbot.core import items
from okbot.core.session import SessionStore
from okbot.ui.chat.colors import ChatColors, syntax_colors
from okbot.ui.chat.markdown import code_runs
from okbot.ui.chat.syntax import HIGHLIGHT_CHARS, guess_language, lex
from tests.ui.chat.test_chat_view import assistant, layout_of, open_view
from tests.ui.palettes import dark_palette

PYTHON = "```python\ndef handle(request):\n    # route it\n    return serve(request, retries=3)\n```"


def code_session(path: Path, *texts: str) -> SessionStore:
    store = SessionStore(path)
    store.append(items.user_message("Show me some code."))
    for text in texts:
        store.append(assistant(text))
    return store


def colours_of(layout) -> dict[str, str]:  # noqa: ANN001 - a RowLayout
    """Each coloured piece of the layout's code blocks -> its colour."""
    out = {}
    for blocks, _language in code_runs(layout.doc):
        for block in blocks:
            for part in block.layout().formats():
                text = block.text()[part.start : part.start + part.length]
                out[text] = part.format.foreground().color().name()
    return out


def contrast(a: QColor, b: QColor) -> float:
    def luminance(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_code_blocks_are_coloured_for_the_palette(qtbot: QtBot, tmp_path: Path, theme: str) -> None:
    view = open_view(qtbot, None)
    if theme == "dark":
        view.setPalette(dark_palette())
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.set_session(code_session(tmp_path / "session.jsonl", PYTHON))
    highlighter = view.chat_delegate().highlighter
    qtbot.waitUntil(lambda: highlighter.pending == 0 and highlighter.lexed == 1, timeout=10_000)
    QApplication.processEvents()
    colors = ChatColors.from_palette(view.palette())
    syntax = syntax_colors(colors)
    found = colours_of(layout_of(view, 1))
    assert found["def"] == syntax["keyword"].name()
    assert found["handle"] == syntax["function"].name()
    assert found["# route it"] == syntax["comment"].name()
    assert found["3"] == syntax["number"].name()
    for category, color in syntax.items():  # every token colour reads on the code box
        assert contrast(color, colors.code_bg) >= 3.0, category
    assert colors.dark == (theme == "dark")


def test_each_block_is_lexed_once_and_highlighting_never_changes_a_row_height(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, code_session(tmp_path / "session.jsonl", PYTHON, "Again:\n\n" + PYTHON))
    highlighter = view.chat_delegate().highlighter
    qtbot.waitUntil(lambda: highlighter.pending == 0 and highlighter.lexed >= 1, timeout=10_000)
    assert highlighter.lexed == 1  # the same block in two messages: one lexing job
    heights = [view.visualRect(view.chat_model().index(r, 0)).height() for r in range(3)]
    view.resize(640, 900)  # new width: new layouts, cached tokens
    QApplication.processEvents()
    assert highlighter.lexed == 1 and highlighter.pending == 0
    assert (
        colours_of(layout_of(view, 2))["def"]
        == syntax_colors(ChatColors.from_palette(view.palette()))["keyword"].name()
    )
    plain = SessionStore(tmp_path / "plain.jsonl")
    plain.append(items.user_message("Show me some code."))
    for text in (PYTHON.replace("python", "text"), "Again:\n\n" + PYTHON.replace("python", "text")):
        plain.append(assistant(text))
    other = open_view(qtbot, plain)
    assert [other.visualRect(other.chat_model().index(r, 0)).height() for r in range(3)] == heights


def test_long_blocks_are_coloured_only_up_to_the_bound() -> None:
    code = "x = 1  # one\n" * 5000
    spans = lex("python", code)
    assert spans and max(start + length for start, length, _ in spans) <= HIGHLIGHT_CHARS
    assert lex("no-such-language", "x = 1") == ()


@pytest.mark.parametrize(
    ("code", "language"),
    [
        ("#!/usr/bin/env python3\nprint('hi')", "python"),
        ("#!/bin/sh\necho hi", "bash"),
        ('{"a": [1, 2], "b": null}', "json"),
        ("<?xml version='1.0'?>\n<a/>", "xml"),
        ("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b", "diff"),
        ("from pathlib import Path\nPath('.').glob('*')", "python"),
        ("Just some words in a box.", ""),
        ("{ not json", ""),
        ("SELECT * FROM t", ""),  # could be many things: left plain
    ],
)
def test_a_fence_without_language_is_guessed_only_when_sure(code: str, language: str) -> None:
    assert guess_language(code) == language


def test_the_text_selector_keeps_the_colours(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, code_session(tmp_path / "session.jsonl", PYTHON))
    highlighter = view.chat_delegate().highlighter
    qtbot.waitUntil(lambda: highlighter.pending == 0 and highlighter.lexed == 1, timeout=10_000)
    assert view.select_text(1)
    editor = view.chat_delegate().editor
    assert editor is not None
    block = editor.document().begin()
    while block.isValid() and not block.layout().formats():
        block = block.next()
    assert block.isValid() and editor.palette().color(QPalette.ColorRole.Base).alpha() == 0


def test_code_coloured_after_it_was_drawn_is_still_drawn(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, code_session(tmp_path / "session.jsonl", PYTHON))
    highlighter = view.chat_delegate().highlighter
    qtbot.waitUntil(lambda: highlighter.pending == 0 and highlighter.lexed == 1, timeout=10_000)
    QApplication.processEvents()
    layout = layout_of(view, 1)
    box = (
        layout.codes[0]
        .rect.translated(layout.doc_pos)
        .translated(0, view.visualRect(view.chat_model().index(1, 0)).top())
    )
    image = view.viewport().grab().toImage()
    syntax = syntax_colors(ChatColors.from_palette(view.palette()))
    inked = {
        image.pixelColor(x, y).getRgb()[:3]
        for x in range(round(box.left()), round(box.right()))
        for y in range(round(box.top()) + 30, round(box.bottom()))
    }

    def drawn(color: QColor) -> bool:  # glyphs are antialiased: their cores come close to the colour
        r, g, b = color.red(), color.green(), color.blue()
        return any(abs(r - x) + abs(g - y) + abs(b - z) < 45 for x, y, z in inked)

    assert {name for name in ("keyword", "function", "comment", "number") if drawn(syntax[name])} == {
        "keyword",
        "function",
        "comment",
        "number",
    }
