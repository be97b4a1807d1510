"""Markdown -> QTextDocument for chat bubbles: code blocks in monospace with room for a header, styled tables.

``QTextDocument.setMarkdown`` (GitHub dialect) does the parsing; this module adjusts the result so
it reads well in a bubble and finds the code blocks, whose exact text the Copy button takes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QRectF
from PySide6.QtGui import (
    QBrush,
    QFont,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrameFormat,
    QTextOption,
    QTextTable,
)

from okbot.ui.chat.colors import ChatColors

CODE_PAD = 9  # padding above and below the code inside its box
CODE_PAD_X = 12  # padding left and right
CODE_HEADER = 26  # the strip above the code: language on the left, Copy on the right
PARAGRAPH_GAP = 8
_CODE_FENCE = QTextFormat.Property.BlockCodeFence
_CODE_LANGUAGE = QTextFormat.Property.BlockCodeLanguage


@dataclass
class CodeBlock:
    """One fenced code block: its text, language and box (document coordinates, header included)."""

    text: str
    language: str
    rect: QRectF


def make_document(text: str, font: QFont, *, markdown: bool = True) -> QTextDocument:
    """A document with no margin, ``font`` as default, wrapping anywhere when a word is too long."""
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    doc.setDefaultTextOption(option)
    if markdown:
        doc.setMarkdown(text, QTextDocument.MarkdownFeature.MarkdownDialectGitHub)
    else:
        doc.setPlainText(text)
    return doc


def style_document(doc: QTextDocument, mono: QFont, colors: ChatColors) -> None:
    """Monospace code blocks with padding, a tinted background for inline code, bordered tables."""
    cursor = QTextCursor(doc)
    cursor.beginEditBlock()
    block = doc.begin()
    while block.isValid():
        if block.blockFormat().hasProperty(_CODE_FENCE):
            block = _style_code_run(cursor, block, mono)
            continue
        _space_block(cursor, block)
        _style_inline_code(cursor, block, colors)
        block = block.next()
    for frame in doc.rootFrame().childFrames():
        if isinstance(frame, QTextTable):
            _style_table(frame, colors)
    _trim_edges(cursor, doc)
    cursor.endEditBlock()


_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")


def fenced_sources(markdown: str) -> list[str]:
    """The exact text of each fenced code block in ``markdown`` (tabs kept; the parser expands them)."""
    found: list[str] = []
    lines = markdown.split("\n")
    if lines and lines[-1] == "":  # the final newline ends the last line; it adds none
        lines.pop()
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match is None or (match.group(2)[0] == "`" and "`" in match.group(3)):
            i += 1
            continue
        indent, fence = len(match.group(1)), match.group(2)
        body: list[str] = []
        i += 1
        while i < len(lines):
            close = _FENCE.match(lines[i])
            if (
                close
                and close.group(2)[0] == fence[0]
                and len(close.group(2)) >= len(fence)
                and not close.group(3).strip()
            ):
                break
            line = lines[i]
            strip = len(line) - len(line.lstrip(" "))
            body.append(line[min(indent, strip) :])
            i += 1
        i += 1
        found.append("\n".join(body))
    return found


def code_blocks(doc: QTextDocument, source: str | None = None) -> list[CodeBlock]:
    """The document's code blocks with their boxes (call after the text width is set).

    With the Markdown ``source``, each block's text is taken from it verbatim when the blocks pair
    up one to one (Qt's parser turns tabs into spaces); otherwise from the document.
    """
    layout = doc.documentLayout()
    width = doc.textWidth()
    found: list[CodeBlock] = []
    for blocks, language in code_runs(doc):
        first, last = blocks[0], blocks[-1]
        top = layout.blockBoundingRect(first).top() - CODE_HEADER - CODE_PAD
        bottom = layout.blockBoundingRect(last).bottom() + CODE_PAD
        text = "\n".join(block.text() for block in blocks)
        found.append(CodeBlock(text, language, QRectF(0, top, width, bottom - top)))
    if source is not None:
        texts = fenced_sources(source)
        if len(texts) == len(found):
            for code, text in zip(found, texts, strict=True):
                code.text = text
    return found


def code_runs(doc: QTextDocument) -> list[tuple[list[QTextBlock], str]]:
    """Each fenced code block of ``doc``: its lines (one block each) and the fence's language."""
    runs: list[tuple[list[QTextBlock], str]] = []
    block = doc.begin()
    while block.isValid():
        if not block.blockFormat().hasProperty(_CODE_FENCE):
            block = block.next()
            continue
        language = str(block.blockFormat().property(_CODE_LANGUAGE) or "")
        lines = []
        while block.isValid() and block.blockFormat().hasProperty(_CODE_FENCE):
            lines.append(block)
            block = block.next()
        runs.append((lines, language))
    return runs


def _style_code_run(cursor: QTextCursor, block: QTextBlock, mono: QFont) -> QTextBlock:
    """Style consecutive code-fence blocks as one box; return the block after them."""
    run = []
    while block.isValid() and block.blockFormat().hasProperty(_CODE_FENCE):
        run.append(block)
        block = block.next()
    char = QTextCharFormat()
    char.setFont(mono)
    char.setFontFixedPitch(True)
    for i, line in enumerate(run):
        fmt = line.blockFormat()
        fmt.setLeftMargin(CODE_PAD_X)
        fmt.setRightMargin(CODE_PAD_X)
        fmt.setNonBreakableLines(False)
        # block margins collapse (the larger of two neighbours wins), so the gap outside the box
        # is part of the code block's own margin; code_blocks() draws the box inside it
        outside_top = PARAGRAPH_GAP if line.previous().isValid() else 0
        outside_bottom = PARAGRAPH_GAP if line.next().isValid() else 0
        fmt.setTopMargin(outside_top + CODE_HEADER + CODE_PAD if i == 0 else 0)
        fmt.setBottomMargin(CODE_PAD + outside_bottom if i == len(run) - 1 else 0)
        cursor.setPosition(line.position())
        cursor.setBlockFormat(fmt)
        cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(char)
    return block


def _space_block(cursor: QTextCursor, block: QTextBlock) -> None:
    """Even spacing: a gap after paragraphs and lists, headings set off above, list items close."""
    cursor.setPosition(block.position())
    if cursor.currentTable() is not None:
        return
    fmt = block.blockFormat()
    previous = block.previous()
    after_code = previous.isValid() and previous.blockFormat().hasProperty(_CODE_FENCE)
    if fmt.headingLevel() > 0:
        top, bottom = 12, 4
        _size_heading(cursor, block, fmt.headingLevel())
    elif block.textList() is not None:
        items = block.textList()
        last = items.item(items.count() - 1) == block
        top, bottom = 0, (PARAGRAPH_GAP if last else 3)
    else:
        top, bottom = 0, PARAGRAPH_GAP
    fmt.setTopMargin(0 if after_code else top)
    fmt.setBottomMargin(bottom)
    cursor.setBlockFormat(fmt)


_HEADING_SCALE = {1: 1.4, 2: 1.22, 3: 1.1}


def _size_heading(cursor: QTextCursor, block: QTextBlock, level: int) -> None:
    """Headings a little larger than the text, not poster-sized (Qt's defaults are for pages)."""
    size = block.document().defaultFont().pointSizeF() * _HEADING_SCALE.get(level, 1.0)
    it = block.begin()
    while not it.atEnd():
        fragment = it.fragment()
        char = fragment.charFormat()
        char.clearProperty(QTextFormat.Property.FontSizeAdjustment)  # it would override the size
        char.setFontPointSize(size)
        char.setFontWeight(QFont.Weight.Bold if level <= 2 else QFont.Weight.DemiBold)
        cursor.setPosition(fragment.position())
        cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor)
        cursor.setCharFormat(char)
        it += 1
    cursor.clearSelection()


def _style_inline_code(cursor: QTextCursor, block: QTextBlock, colors: ChatColors) -> None:
    it = block.begin()
    while not it.atEnd():
        fragment = it.fragment()
        fmt = fragment.charFormat()
        if fmt.fontFixedPitch() and not fmt.isAnchor():
            tinted = QTextCharFormat()
            tinted.setBackground(QBrush(colors.inline_code_bg))
            cursor.setPosition(fragment.position())
            cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(tinted)
        it += 1


def _style_table(table: QTextTable, colors: ChatColors) -> None:
    fmt = table.format()
    fmt.setBorder(1)
    fmt.setBorderBrush(QBrush(colors.code_border))
    fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
    fmt.setBorderCollapse(True)
    fmt.setCellPadding(6)
    fmt.setCellSpacing(0)
    fmt.setTopMargin(6)
    fmt.setBottomMargin(6)
    table.setFormat(fmt)
    for column in range(table.columns()):
        cell = table.cellAt(0, column)
        cell_fmt = cell.format()
        cell_fmt.setBackground(QBrush(colors.pill_bg))
        cell_fmt.setFontWeight(QFont.Weight.DemiBold)
        cell.setFormat(cell_fmt)


def _trim_edges(cursor: QTextCursor, doc: QTextDocument) -> None:
    """No paragraph margin above the first block or below the last: the bubble has its own padding."""
    first, last = doc.begin(), doc.lastBlock()
    if not first.blockFormat().hasProperty(_CODE_FENCE):
        fmt = first.blockFormat()
        fmt.setTopMargin(0)
        cursor.setPosition(first.position())
        cursor.setBlockFormat(fmt)
    if not last.blockFormat().hasProperty(_CODE_FENCE):
        fmt = last.blockFormat()
        fmt.setBottomMargin(0)
        cursor.setPosition(last.position())
        cursor.setBlockFormat(fmt)
