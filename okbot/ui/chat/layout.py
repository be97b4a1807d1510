"""Geometry of one chat row at one width: bubble, text document, code boxes and clickable areas.

A :class:`RowLayout` is built once per (row key, width) by :class:`LayoutBuilder` and cached by the
delegate; painting, hit-testing and the text selector all read the same layout, so what is drawn
and what is clicked cannot disagree. Hover, developer mode and "Copied" feedback never change a
row's height (the footer space is always reserved), so they need no re-layout.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QCoreApplication, QPointF, QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QImage, QTextCharFormat, QTextDocument, QTextTable

from okbot.core import chat_text
from okbot.core.attachments import attachment_line, records_of
from okbot.core.items import is_delegation, is_member_answer, scheduled_job_of, split_app_note, teaching_of
from okbot.core.messages import task_text
from okbot.core.roster import SquadInfo
from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.ui.chat.colors import ChatColors, syntax_colors
from okbot.ui.chat.markdown import CODE_HEADER, CodeBlock, code_blocks, make_document, style_document
from okbot.ui.chat.syntax import CodeHighlighter, char_formats
from okbot.ui.chat.thumbnails import THUMB_MAX

MARGIN_X = 20  # space between the view's edges and the conversation column
COLUMN_MAX = 860  # the conversation column never gets wider (long lines are hard to read)
GAP = 4  # space above each message
PAD_X, PAD_Y = 14, 10
RADIUS = 12
AVATAR = 28
FOOTER = 22  # below user/assistant bubbles: time and hover actions
SWITCH_GAP = 8  # between the version switch and the hover actions
USER_MAX_FRACTION = 0.78
STATUS_H = 26
BUTTON_PAD = 8
TOOL_H = 24
DIVIDER_H = 36
DELEGATION_BELOW = 8  # space under a delegation row (the next speaker's name needs air)
RETRY_LABEL = QT_TRANSLATE_NOOP("ChatLayout", "↻  Retry")  # labels here are translated by _tr where laid out
COLLAPSE_LINES = 25  # a message taller than this many lines of text shows collapsed, with "Show more"
COLLAPSED_LINES = 14  # how much of it shows then
MORE_H = 26  # the "Show more" / "Show less" strip at the bottom of a long message
MORE_LABEL, LESS_LABEL = QT_TRANSLATE_NOOP("ChatLayout", "Show more ▾"), QT_TRANSLATE_NOOP("ChatLayout", "Show less ▴")
THOUGHT_H = 24  # the "Thought for 12 s ▸" line at the top of a reply with reasoning
THOUGHT_GAP = 6  # between the unfolded reasoning and the answer
CARD_MAX_W = 600.0  # a teaching card is never wider
THUMB_GAP = 8  # between a message's image thumbnails, and between them and its text
CAPTION_MIN_W = 64.0  # a narrow image's caption (its file name) still gets this much room
QUOTE_BAR = 12  # the quoted words sit this far right of the card's text edge, a bar in the gap
# a teaching card's words (translated by _tr where laid out)
TEACHING_TITLES = {
    "rule": QT_TRANSLATE_NOOP("ChatLayout", "You set a rule"),
    "prohibition": QT_TRANSLATE_NOOP("ChatLayout", "You set a prohibition"),
    "permission": QT_TRANSLATE_NOOP("ChatLayout", "You gave a permission"),
    "procedure": QT_TRANSLATE_NOOP("ChatLayout", "You taught a procedure"),
}
TEACHING_FROM = QT_TRANSLATE_NOOP("ChatLayout", "your message #{id}")
KEEP_RULE, KEEP_SKILL = (
    QT_TRANSLATE_NOOP("ChatLayout", "Keep as a rule"),
    QT_TRANSLATE_NOOP("ChatLayout", "Keep as a skill"),
)
NOT_NOW = QT_TRANSLATE_NOOP("ChatLayout", "Not now")
TEACHING_NOTES = {
    "kept": QT_TRANSLATE_NOOP("ChatLayout", "✓ Kept as a rule, in your words. To undo it: Assistant… → Evolution."),
    "kept-skill": QT_TRANSLATE_NOOP(
        "ChatLayout", "✓ Kept as a skill, in your words. To undo it: Assistant… → Evolution."
    ),
    "declined": QT_TRANSLATE_NOOP("ChatLayout", "Not kept. It will not be offered again."),
    "busy": QT_TRANSLATE_NOOP("ChatLayout", "Saving…"),
}


def _tr(text: str) -> str:
    """``text`` (a label of a chat row) in the current language."""
    return QCoreApplication.translate("ChatLayout", text)


def copied_label() -> str:
    """A Copy button's label just after it copied (its width is reserved from the start)."""
    return QCoreApplication.translate("ChatLayout", "Copied ✓")


@dataclass
class Action:
    """A clickable area of a row (row coordinates); ``payload`` says which code block, etc."""

    name: (
        str  # copy | view_context | copy_code | retry | toggle | thought | edit | regenerate | version (payload: index)
    )
    # (toggle: tool rows, the divider, a long message's Show more / less)
    rect: QRectF
    label: str = ""
    payload: Any = None


@dataclass
class RowData:
    """What a row shows, read from the model once per layout."""

    kind: str  # item | divider | stream
    item: dict[str, Any] | None
    author: str = ""
    expanded: bool = False
    retryable: bool = False
    divider: tuple[int, str] | None = None
    squad: bool = False  # assistant bubbles carry an avatar: indent tool rows to match
    info: SquadInfo | None = None  # a squad with a roster: who speaks, whom the captain asked
    versions: tuple[int, int] | None = None  # (index, count) when the message has several versions
    changeable: bool = False  # in the uncompressed tail: Edit (yours) or Regenerate (a reply)
    thought_open: bool = False  # a reply's reasoning is unfolded
    teaching: str | None = None  # a teaching card's state (offered | kept | declined | busy); None: no card
    thumbs: dict[str, QImage] = field(default_factory=dict)  # a user message's image thumbnails, by copy path

    @property
    def style(self) -> str:
        if self.kind in ("divider", "stream"):
            return self.kind
        item = self.item or {}
        if self.teaching is not None and teaching_of(item) is not None:
            return "teaching"  # the card offering what the user taught, with Keep / Not now
        if self.info is not None and is_member_answer(item):
            return "assistant"  # a member's answer to the captain is that member's bubble
        if self.info is not None and is_delegation(item):
            return "delegation"  # "asked Rex: …", expands to the whole task
        kind = item.get("type", "notice")
        return {"tool_call": "tool", "tool_result": "tool"}.get(kind, kind)


@dataclass
class RowLayout:
    """Everything needed to paint and hit-test one row."""

    style: str
    width: int
    height: int
    bubble: QRectF = field(default_factory=QRectF)
    doc: QTextDocument | None = None
    doc_pos: QPointF = field(default_factory=QPointF)
    codes: list[CodeBlock] = field(default_factory=list)
    label: str = ""
    label_rect: QRectF = field(default_factory=QRectF)
    author: str = ""
    author_rect: QRectF = field(default_factory=QRectF)
    avatar: QRectF | None = None
    status: str = ""
    status_rect: QRectF = field(default_factory=QRectF)
    actions: list[Action] = field(default_factory=list)  # always shown
    footer: list[Action] = field(default_factory=list)  # shown on hover
    footer_time: str = ""
    footer_time_rect: QRectF = field(default_factory=QRectF)
    level: str = "info"
    item: dict[str, Any] | None = None
    slot: int | None = None  # squads: the speaker's colour slot (None: by name)
    author_note: str = ""  # squads: "to the captain" after a member's name
    status_error: bool = False  # the status line reads as an error (else a warning)
    status_quiet: bool = False  # the status line is a plain fact (a scheduled message), neither
    to_name: str = ""  # a delegation row: the member asked
    version_label: str = ""  # "2/3" between the ‹ › of a message with versions
    version_rect: QRectF = field(default_factory=QRectF)
    version_ends: list[tuple[QRectF, str]] = field(default_factory=list)  # dimmed arrows with nothing beyond
    to_slot: int = 0
    collapsed: bool = False  # a long message shows only its first ``shown_h`` pixels of text
    shown_h: float = 0.0  # how much of the document shows (its full height unless collapsed)
    more: Action | None = None  # a long message's "Show more" / "Show less" link
    found: tuple[str, list[tuple[int, int]]] | None = None  # find-in-chat: (needle, match spans), cached
    thought: Action | None = None  # "Thought for 12 s ▸" (a reply with reasoning); "Thinking… 4 s" streaming
    thought_doc: QTextDocument | None = None  # the reasoning, when unfolded
    thought_pos: QPointF = field(default_factory=QPointF)
    thought_box: QRectF = field(default_factory=QRectF)  # where the unfolded reasoning sits
    note_doc: QTextDocument | None = None  # a teaching card's state line, once kept or declined
    note_pos: QPointF = field(default_factory=QPointF)
    thumbs: list[tuple[QRectF, QImage, str]] = field(default_factory=list)  # sent images: where, what, file name
    caption_h: float = 0.0  # the height of the file name under each thumbnail

    def doc_rect(self) -> QRectF:
        """Where the text document sits (row coordinates)."""
        if self.doc is None:
            return QRectF()
        size = self.doc.size()
        return QRectF(self.doc_pos, size)


class LayoutBuilder:
    """Builds row layouts for one font and palette."""

    def __init__(
        self, font: QFont, mono: QFont, colors: ChatColors, highlighter: CodeHighlighter | None = None
    ) -> None:
        self.font = QFont(font)
        self.small = QFont(font)
        self.small.setPointSizeF(font.pointSizeF() * 0.88)
        self.bold_small = QFont(self.small)
        self.bold_small.setWeight(QFont.Weight.DemiBold)
        self.mono = QFont(mono)
        self.mono.setPointSizeF(font.pointSizeF() * 0.95)
        self.colors = colors
        self.highlighter = highlighter
        self.code_formats: dict[str, QTextCharFormat] = char_formats(syntax_colors(colors))
        self.fm = QFontMetricsF(self.font)
        self.sfm = QFontMetricsF(self.small)

    # ------------------------------------------------------------------ public
    def build(self, data: RowData, width: int) -> RowLayout:
        """The layout of ``data`` for a row ``width`` pixels wide."""
        style = data.style
        if style == "divider":
            return self._divider(data, width)
        if style == "tool":
            return self._tool(data, width)
        if style == "delegation":
            return self._delegation(data, width)
        if style == "notice":
            return self._notice(data, width)
        if style == "teaching":
            return self._teaching(data, width)
        return self._message(data, width)

    def footer_actions(self, layout: RowLayout, developer_mode: bool) -> list[Action]:
        """The hover actions to show (View context only for user messages in developer mode)."""
        return [a for a in layout.footer if a.name != "view_context" or developer_mode]

    # ------------------------------------------------------------------ helpers
    def column(self, width: int) -> tuple[float, float]:
        """Left edge and width of the conversation column."""
        inner = max(120, width - 2 * MARGIN_X)
        col_w = min(COLUMN_MAX, inner)
        return float((width - col_w) // 2), float(col_w)

    def markdown_doc(self, text: str, text_width: float) -> QTextDocument:
        doc = make_document(text, self.font)
        style_document(doc, self.mono, self.colors)
        if self.highlighter is not None:
            self.highlighter.highlight(doc, self.code_formats)
        doc.setTextWidth(max(40.0, text_width))
        return doc

    def plain_doc(self, text: str, font: QFont, text_width: float) -> QTextDocument:
        doc = make_document(text, font, markdown=False)
        doc.setTextWidth(max(40.0, text_width))
        return doc

    # ------------------------------------------------------------------ message bubbles
    def _message(self, data: RowData, width: int) -> RowLayout:
        """A message bubble (user, assistant, streaming): squad author, text, code buttons, status line, footer."""
        item = data.item or {}
        style = data.style
        user = style == "user"
        col_x, col_w = self.column(width)
        out = RowLayout(style=style, width=width, height=0, item=item)
        x, col_w, y = self._author(data, out, col_x, col_w, float(GAP))
        max_w = float(math.floor(min(col_w * USER_MAX_FRACTION, 640.0) if user else col_w))
        thumbs, thumbs_w, thumbs_h = self._thumb_cells(item, data.thumbs if user else {}, max_w - 2 * PAD_X)
        text, status = self._text_and_status(out, item, style, {path for path, _ in thumbs})
        doc = self.markdown_doc(text, max_w - 2 * PAD_X) if text.strip() else None
        codes, content_w = self._fit_doc(doc, text)
        content_w = max(content_w, thumbs_w)
        thought_line, thought_doc = self._thought(item, style, data.thought_open, max_w)
        thought_h = 0.0
        if thought_line:
            content_w = max(content_w, self._button_w(thought_line) - BUTTON_PAD)
            thought_h = THOUGHT_H + (THOUGHT_GAP if doc is not None or status else 0)
        if thought_doc is not None:
            content_w = max(content_w, thought_doc.textWidth() + 12)
            thought_h += thought_doc.size().height() + 4
        retry_w = self._button_w(_tr(RETRY_LABEL), bold=True) + 12 if data.retryable else 0.0
        if status:
            content_w = max(content_w, min(max_w - 2 * PAD_X, self.sfm.horizontalAdvance(status) + 20 + retry_w))
        doc_h = doc.size().height() if doc is not None else 0.0
        long = style != "stream" and doc_h > COLLAPSE_LINES * self.fm.lineSpacing()
        if long:
            content_w = max(content_w, self._button_w(LESS_LABEL))
            if not data.expanded:
                out.collapsed = True
                doc_h = COLLAPSED_LINES * self.fm.lineSpacing()
        out.shown_h = doc_h
        bubble_w = max(content_w + 2 * PAD_X, 56.0)
        more_h = MORE_H if long else 0
        bubble_h = PAD_Y * 2 + doc_h + more_h + (STATUS_H + (6 if doc is not None else 0) if status else 0)
        if doc is None and not status:
            bubble_h = PAD_Y * 2 + (0.0 if thought_line else self.fm.height())
        bubble_h += thought_h
        if thumbs:
            bubble_h += thumbs_h + (THUMB_GAP if doc is not None else 0.0)
            if doc is None and not status:
                bubble_h -= self.fm.height()  # the line an empty bubble keeps is not needed under pictures
        bx = col_x + col_w - bubble_w if user else x
        out.bubble = QRectF(bx, y, bubble_w, bubble_h)
        if thought_line:
            self._place_thought(out, thought_line, thought_doc, style != "stream")
        y += thought_h
        out.doc = doc
        out.doc_pos = QPointF(bx + PAD_X, y + PAD_Y)
        out.codes = codes
        self._copy_code_actions(out)
        if long:
            label = _tr(LESS_LABEL if data.expanded else MORE_LABEL)
            rect = QRectF(bx + PAD_X - BUTTON_PAD, y + PAD_Y + doc_h + 2, self._button_w(label), MORE_H - 4)
            out.more = Action("toggle", rect, label)
            out.actions.append(out.more)
        if thumbs:
            top = y + PAD_Y + (doc_h + more_h + THUMB_GAP if doc is not None else 0.0)
            out.caption_h = self.sfm.height()
            out.thumbs = [(rect.translated(bx + PAD_X, top), image, name) for _, (rect, image, name) in thumbs]
        if status:
            self._status_line(out, status, data.retryable, retry_w)
        y = out.bubble.bottom()
        if style == "stream":
            out.height = math.ceil(y + GAP + 6)
            return out
        self._footer(out, item, user, y, data.changeable)
        if data.versions is not None:
            self._version_switch(out, data.versions, user, y)
        out.height = math.ceil(y + FOOTER)
        return out

    def _thought(self, item: dict[str, Any], style: str, shown: bool, max_w: float) -> tuple[str, QTextDocument | None]:
        """A reply's folded-reasoning line ("" without reasoning) and, unfolded, the reasoning's document."""
        reasoning = str(item.get("reasoning") or "") if style in ("assistant", "stream") else ""
        if not reasoning.strip():
            return "", None
        label = thought_label(item, shown)
        if not shown or style == "stream":
            return label, None
        doc = self.plain_doc(reasoning.strip(), self.small, max_w - 2 * PAD_X - 12)
        ideal = math.ceil(doc.idealWidth()) + 1
        if ideal < doc.textWidth():
            doc.setTextWidth(ideal)
        return label, doc

    def _place_thought(self, out: RowLayout, label: str, doc: QTextDocument | None, clickable: bool) -> None:
        """The thought line at the top of ``out.bubble`` and, unfolded, the reasoning under it."""
        top = out.bubble.top() + PAD_Y - 2
        rect = QRectF(out.bubble.left() + PAD_X - BUTTON_PAD, top, self._button_w(label), THOUGHT_H - 2)
        out.thought = Action("thought", rect, label)
        if clickable:
            out.actions.append(out.thought)
        if doc is not None:
            out.thought_doc = doc
            out.thought_pos = QPointF(out.bubble.left() + PAD_X + 12, top + THOUGHT_H + 2)
            out.thought_box = QRectF(out.bubble.left() + PAD_X + 2, top + THOUGHT_H, 2, doc.size().height() + 4)

    def _author(
        self, data: RowData, out: RowLayout, col_x: float, col_w: float, y: float
    ) -> tuple[float, float, float]:
        """Squads: place a reply's avatar and author name; return the bubble's left edge, the width left, and y below.

        Outside squads (and for the user's own messages) nothing moves: ``(col_x, col_w, y)``.
        """
        x = col_x
        if data.squad and data.style != "user":  # squads: every reply sits right of its author's avatar
            x = col_x + AVATAR + 10
            col_w -= AVATAR + 10
            if data.author:
                out.author = data.author
                out.avatar = QRectF(col_x, y, AVATAR, AVATAR)
                out.author_rect = QRectF(x + 2, y, col_w, self.sfm.height())
                y += self.sfm.height() + 4
            if data.info is not None:
                out.slot = data.info.slot
                out.author_note = (
                    QCoreApplication.translate("ChatLayout", "to the captain") if data.info.to_captain else ""
                )
        return x, col_w, y

    def _thumb_cells(
        self, item: dict[str, Any], images: dict[str, QImage], room: float
    ) -> tuple[list[tuple[str, tuple[QRectF, QImage, str]]], float, float]:
        """The thumbnails of a message's sent images, laid out in rows within ``room`` from (0, 0), each with
        its file name under it; and the width and height they take. An image without one is not here."""
        cells: list[tuple[str, tuple[QRectF, QImage, str]]] = []
        x = y = line_h = width = 0.0
        caption_h = self.sfm.height() + 2
        for record in records_of(item):
            path = str(record.get("path"))
            image = images.get(path) if record.get("kind") == "image" else None
            if image is None:
                continue
            w, h = float(min(image.width(), THUMB_MAX[0])), float(min(image.height(), THUMB_MAX[1]))
            cell_w = max(w, CAPTION_MIN_W)
            if x > 0 and x + cell_w > room:
                x, y, line_h = 0.0, y + line_h + THUMB_GAP, 0.0
            cells.append((path, (QRectF(x, y, w, h), image, str(record.get("name") or ""))))
            width = max(width, x + cell_w)
            x += cell_w + THUMB_GAP
            line_h = max(line_h, h + caption_h)
        return cells, width, (y + line_h if cells else 0.0)

    def _text_and_status(
        self, out: RowLayout, item: dict[str, Any], style: str, shown: set[str] | None = None
    ) -> tuple[str, str]:
        """The bubble's text and its status line ("" for none), marking ``out.status_error``.

        A member's answer has the app's note split off its text (the note is the status when the
        answer failed); a streaming row ends with a cursor. ``shown``: the copies drawn as thumbnails,
        left out of the line naming the files sent.
        """
        text = str(item.get("content") or "")
        status = chat_text.status_line(item) if style == "assistant" else ""
        if style == "user" and scheduled_job_of(item):  # sent by a job the user set, not typed now
            status = QCoreApplication.translate("ChatLayout", "Sent by a schedule")
            out.status_quiet = True
        out.status_error = item.get("status") == "error"
        if is_member_answer(item):
            text, note = split_app_note(text)
            if not item.get("ok", True):
                status = note or QCoreApplication.translate("ChatLayout", "The member's answer failed")
                out.status_error = "stopped by the user" not in status
        if style == "user" and (files := attachment_line(item, shown or ())):  # the files sent with it: name · size
            text = f"{text}\n\n{files}" if text else files
        if style == "stream":
            text += " ▍"
        return text, status

    def _fit_doc(self, doc: QTextDocument | None, text: str) -> tuple[list[CodeBlock], float]:
        """The code blocks of ``doc`` and the width its content needs.

        Without code blocks or tables the document is narrowed to its ideal width, so short
        replies get snug bubbles.
        """
        if doc is None:
            return [], 0.0
        codes = code_blocks(doc, text)
        if not codes and not _has_table(doc):
            ideal = math.ceil(doc.idealWidth()) + 1
            if ideal < doc.textWidth():
                doc.setTextWidth(ideal)
        return codes, doc.textWidth()

    def _copy_code_actions(self, out: RowLayout) -> None:
        """A Copy button at the top right of each of ``out.codes`` (sized for "Copied ✓")."""
        for i, code in enumerate(out.codes):
            if out.collapsed and code.rect.top() + CODE_HEADER > out.shown_h:
                continue  # its header is in the hidden part
            box = code.rect.translated(out.doc_pos)
            label = QCoreApplication.translate("ChatLayout", "Copy")
            w = max(self.sfm.horizontalAdvance(copied_label()), self.sfm.horizontalAdvance(label)) + 2 * BUTTON_PAD
            rect = QRectF(box.right() - w - 4, box.top() + 3, w, CODE_HEADER - 6)
            out.actions.append(Action("copy_code", rect, label, i))

    def _status_line(self, out: RowLayout, status: str, retryable: bool, retry_w: float) -> None:
        """The status line at the bottom of ``out.bubble``, with a Retry button at its right when ``retryable``."""
        bx, bubble_w = out.bubble.left(), out.bubble.width()
        sy = out.bubble.bottom() - PAD_Y - STATUS_H
        out.status = status
        out.status_rect = QRectF(bx + PAD_X, sy, bubble_w - 2 * PAD_X - retry_w, STATUS_H)
        if retryable:
            rect = QRectF(out.bubble.right() - PAD_X - retry_w + 12, sy + 1, retry_w - 12, STATUS_H - 2)
            out.actions.append(Action("retry", rect, _tr(RETRY_LABEL)))

    def _footer(self, out: RowLayout, item: dict[str, Any], user: bool, y: float, changeable: bool) -> None:
        h = self.sfm.height() + 6
        top = y + (FOOTER - h) / 2 + 1
        out.footer_time = chat_text.time_label(str(item.get("ts") or ""))
        parts: list[tuple[str, str]] = [("copy", QCoreApplication.translate("ChatLayout", "Copy"))]
        if changeable:
            parts.append(
                ("edit", QCoreApplication.translate("ChatLayout", "Edit"))
                if user
                else ("regenerate", QCoreApplication.translate("ChatLayout", "↻ Regenerate"))
            )
        if user:
            parts.append(("view_context", QCoreApplication.translate("ChatLayout", "View context")))
        widths = [self._button_w(label) for _, label in parts]
        time_w = self.sfm.horizontalAdvance(out.footer_time) + 6 if out.footer_time else 0.0
        if user:  # right-aligned under the bubble: [time] [Copy] [View context]
            cursor = out.bubble.right()
            for (name, label), w in reversed(list(zip(parts, widths, strict=True))):
                cursor -= w
                out.footer.append(Action(name, QRectF(cursor, top, w, h), label))
            out.footer.reverse()
            out.footer_time_rect = QRectF(cursor - time_w, top, time_w, h)
        else:  # left-aligned: [time] [Copy]
            cursor = out.bubble.left() + 2
            out.footer_time_rect = QRectF(cursor, top, time_w, h)
            cursor += time_w
            for (name, label), w in zip(parts, widths, strict=True):
                out.footer.append(Action(name, QRectF(cursor, top, w, h), label))
                cursor += w + 2

    def _version_switch(self, out: RowLayout, versions: tuple[int, int], user: bool, y: float) -> None:
        """‹ 2/3 › under the bubble, on the side the hover actions leave free and clear of them and the time
        (a short bubble's footer reaches past it); always shown. Call after :meth:`_footer`."""
        index, count = versions
        h = self.sfm.height() + 6
        top = y + (FOOTER - h) / 2 + 1
        label = f"{index + 1}/{count}"
        arrow_w = self._button_w("‹")
        label_w = self.sfm.horizontalAdvance(label) + 8
        switch_w = 2 * arrow_w + label_w
        taken = [a.rect for a in out.footer] + ([out.footer_time_rect] if out.footer_time else [])
        if user:  # left of the bubble's footer: [‹ 2/3 ›] [time] [Copy] [Edit] [View context]
            edge = min((r.left() for r in taken), default=out.bubble.left())
            left = max(0.0, min(out.bubble.left(), edge - SWITCH_GAP - switch_w))
        else:  # right of it: [time] [Copy] [↻ Regenerate] [‹ 2/3 ›]
            edge = max((r.right() for r in taken), default=out.bubble.right())
            left = min(out.width - switch_w, max(out.bubble.right() - switch_w, edge + SWITCH_GAP))
        out.version_label = label
        out.version_rect = QRectF(left + arrow_w, top, label_w, h)
        for rect, arrow, wanted in (
            (QRectF(left, top, arrow_w, h), "‹", index - 1),
            (QRectF(left + arrow_w + label_w, top, arrow_w, h), "›", index + 1),
        ):
            if 0 <= wanted < count:
                out.actions.append(Action("version", rect, arrow, wanted))
            else:  # no version that way: the arrow is shown, dimmed, and does nothing
                out.version_ends.append((rect, arrow))

    def _button_w(self, label: str, *, bold: bool = False) -> float:
        metrics = QFontMetricsF(self.bold_small) if bold else self.sfm
        return math.ceil(metrics.horizontalAdvance(label)) + 2 * BUTTON_PAD + (6 if bold else 0)

    # ------------------------------------------------------------------ other rows
    def _tool(self, data: RowData, width: int) -> RowLayout:
        item = data.item or {}
        col_x, col_w = self.column(width)
        indent = AVATAR + 10 if data.squad else 0
        x = col_x + indent + 4
        w = col_w - indent - 4
        out = RowLayout(style="tool", width=width, height=0, item=item)
        out.label = ("⚙ " if item.get("type") == "tool_call" else "↳ ") + chat_text.tool_digest(item)
        line_w = min(w, self.sfm.horizontalAdvance(out.label) + 40)
        out.bubble = QRectF(x, 3, line_w, TOOL_H - 2)
        out.label_rect = QRectF(x + 24, 3, line_w - 32, TOOL_H - 2)
        out.level = "ok" if item.get("ok", True) else "failed"
        y = out.bubble.bottom()
        if data.expanded:
            doc = self.plain_doc(chat_text.tool_detail(item), self.mono, w - 2 * PAD_X)
            out.doc = doc
            box = QRectF(x, y + 4, w, doc.size().height() + 2 * 8)
            out.doc_pos = QPointF(x + PAD_X, box.top() + 8)
            out.codes = [CodeBlock(chat_text.copy_text(item), "", QRectF(-PAD_X, -8, w, box.height()))]
            y = box.bottom()
        out.actions.append(Action("toggle", QRectF(out.bubble)))
        out.height = math.ceil(y + 3)
        return out

    def _delegation(self, data: RowData, width: int) -> RowLayout:
        """The captain's ``ask_<member>`` call: one line "asked Rex: task", the whole task when expanded.

        A result of such a call that is not the member's answer (the member was never asked, e.g.
        an empty task) shows the same way, marked failed: "could not ask Rex: why".
        """
        item = data.item or {}
        info = data.info or SquadInfo(name="", slot=0)
        col_x, col_w = self.column(width)
        indent = AVATAR + 10 if data.squad else 0
        x = col_x + indent + 4
        w = col_w - indent - 4
        out = RowLayout(style="delegation", width=width, height=0, item=item)
        out.to_name, out.to_slot = info.to_name, info.to_slot
        call = item.get("type") == "tool_call"
        detail = task_text(item) if call else str(item.get("content") or "")
        # open, the box shows the whole task, so the line only says who was asked
        out.label = chat_text.delegation_label(item, info.to_name, with_task=not data.expanded)
        out.level = "ok" if item.get("ok", True) else "failed"
        line_w = min(w, self.sfm.horizontalAdvance(out.label) + 40)
        out.bubble = QRectF(x, 3, line_w, TOOL_H - 2)
        out.label_rect = QRectF(x + 24, 3, line_w - 32, TOOL_H - 2)
        y = out.bubble.bottom()
        if data.expanded:
            doc = self.plain_doc(
                detail.strip() or QCoreApplication.translate("ChatLayout", "(no task)"),
                self.font,
                min(w, 720.0) - 2 * PAD_X,
            )
            ideal = math.ceil(doc.idealWidth()) + 1
            if ideal < doc.textWidth():
                doc.setTextWidth(ideal)
            out.doc = doc
            box = QRectF(x, y + 4, max(doc.textWidth() + 2 * PAD_X, line_w), doc.size().height() + 2 * 8)
            out.doc_pos = QPointF(x + PAD_X, box.top() + 8)
            out.status_rect = box  # the task's box
            y = box.bottom()
        out.actions.append(Action("toggle", QRectF(out.bubble)))
        out.height = math.ceil(y + DELEGATION_BELOW)
        return out

    def _notice(self, data: RowData, width: int) -> RowLayout:
        item = data.item or {}
        col_x, col_w = self.column(width)
        out = RowLayout(style="notice", width=width, height=0, item=item)
        out.level = str(item.get("level") or "info")
        icon = {"warning": "⚠", "error": "⚠"}.get(out.level, "ℹ")
        max_w = min(col_w, 620.0)
        doc = self.plain_doc(f"{icon}  {item.get('content', '')}", self.small, max_w - 2 * 12)
        ideal = math.ceil(doc.idealWidth()) + 1
        if ideal < doc.textWidth():
            doc.setTextWidth(ideal)
        bw, bh = doc.textWidth() + 24, doc.size().height() + 12
        out.bubble = QRectF(col_x + (col_w - bw) / 2, GAP + 2, bw, bh)
        out.doc = doc
        out.doc_pos = QPointF(out.bubble.left() + 12, out.bubble.top() + 6)
        out.height = math.ceil(out.bubble.bottom() + GAP + 6)
        return out

    def _teaching(self, data: RowData, width: int) -> RowLayout:
        """A teaching card: what kind and from which message (``label``, ``author_note``), the user's words quoted
        (``doc``; a bar at ``status_rect``), then Keep / Not now, or once decided the line saying what became of it.
        """
        item = data.item or {}
        card = teaching_of(item) or {"of": 0, "kind": "rule", "words": ""}
        procedure = card["kind"] == "procedure"
        col_x, col_w = self.column(width)
        w = min(col_w, CARD_MAX_W)
        x = col_x + (col_w - w) / 2
        inner = w - 2 * PAD_X
        out = RowLayout(style="teaching", width=width, height=0, item=item)
        out.level = data.teaching or "offered"
        top = float(GAP + 4)
        out.label = _tr(TEACHING_TITLES.get(card["kind"], TEACHING_TITLES["rule"]))
        out.author_note = _tr(TEACHING_FROM).format(id=card["of"])
        out.label_rect = QRectF(x + PAD_X, top + PAD_Y - 2, inner, math.ceil(self.sfm.height()) + 4)
        y = out.label_rect.bottom() + 6
        doc = self.plain_doc(card["words"], self.font, inner - QUOTE_BAR)
        out.doc = doc
        out.doc_pos = QPointF(x + PAD_X + QUOTE_BAR, y)
        out.status_rect = QRectF(x + PAD_X + 1, y + 2, 3, max(4.0, doc.size().height() - 4))  # the quote's bar
        y += doc.size().height() + 10
        if out.level == "offered":
            keep_label = _tr(KEEP_SKILL if procedure else KEEP_RULE)
            keep = QRectF(x + PAD_X, y, self._button_w(keep_label, bold=True), STATUS_H)
            later = QRectF(keep.right() + 8, y, self._button_w(_tr(NOT_NOW)), STATUS_H)
            out.actions.append(Action("teach_keep", keep, keep_label, card["of"]))
            out.actions.append(Action("teach_not_now", later, _tr(NOT_NOW), card["of"]))
            y += STATUS_H
        else:
            note = "kept-skill" if out.level == "kept" and procedure else out.level
            out.note_doc = self.plain_doc(_tr(TEACHING_NOTES.get(note, TEACHING_NOTES["busy"])), self.small, inner)
            out.note_pos = QPointF(x + PAD_X, y)
            y += out.note_doc.size().height()
        out.bubble = QRectF(x, top, w, y + PAD_Y - top)
        out.height = math.ceil(out.bubble.bottom() + GAP + 4)
        return out

    def _divider(self, data: RowData, width: int) -> RowLayout:
        count, summary, kept = data.divider or (0, "", ())
        col_x, col_w = self.column(width)
        out = RowLayout(style="divider", width=width, height=0)
        out.label = f"{chat_text.divider_label(count)}  ·  {chat_text.divider_action(data.expanded)}"
        label_w = self.sfm.horizontalAdvance(out.label) + 28
        out.label_rect = QRectF(col_x + (col_w - label_w) / 2, 8, label_w, DIVIDER_H - 16)
        out.bubble = QRectF(col_x, 0, col_w, DIVIDER_H)
        y = float(DIVIDER_H)
        if data.expanded:
            text = summary.strip() or "_{}_".format(QCoreApplication.translate("ChatLayout", "The summary is empty."))
            text += kept_words_markdown(kept)
            doc = self.markdown_doc(text, col_w - 2 * PAD_X)
            out.doc = doc
            out.codes = code_blocks(doc, text)
            box = QRectF(col_x, y, col_w, doc.size().height() + 2 * PAD_Y)
            out.doc_pos = QPointF(col_x + PAD_X, y + PAD_Y)
            out.status_rect = box  # the summary box
            out.actions.extend(_kept_actions(doc, out.doc_pos))
            y = box.bottom() + 8
        out.actions.append(Action("toggle", QRectF(out.label_rect)))
        out.height = math.ceil(y)
        return out


_KEPT_ANCHOR = "okbot-message:"


def kept_words_markdown(kept: tuple[tuple[int, str], ...]) -> str:
    """The divider's list of the user's messages the model reads word for word (after the summary), each a
    link that opens its message; "" when the summary keeps none."""
    if not kept:
        return ""
    head = QCoreApplication.translate("ChatLayout", "Your words, kept as you wrote them")
    note = QCoreApplication.translate("ChatLayout", "the model reads these messages word for word")
    rows = [f"- [#{item_id}]({_KEPT_ANCHOR}{item_id}) {_inline(line)}" for item_id, line in kept]
    return f"\n\n---\n\n**{head}** ({note})\n\n" + "\n".join(rows)


def _inline(line: str) -> str:
    """``line`` as literal Markdown text (no emphasis, links or code spans of its own)."""
    return re.sub(r"([\\`*_\[\]<>#|~!])", r"\\\1", line) or "…"


def _kept_actions(doc: QTextDocument, origin: QPointF) -> list[Action]:
    """One ``open_message`` action (payload: the message id) over each kept message's line of ``doc``."""
    actions = []
    block = doc.begin()
    layout = doc.documentLayout()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            href = it.fragment().charFormat().anchorHref()
            if href.startswith(_KEPT_ANCHOR) and href[len(_KEPT_ANCHOR) :].isdigit():
                rect = layout.blockBoundingRect(block).translated(origin)
                actions.append(Action("open_message", rect, payload=int(href[len(_KEPT_ANCHOR) :])))
                break
            it += 1
        block = block.next()
    return actions


def thought_label(item: dict[str, Any], shown: bool = False) -> str:
    """ "Thought for 12 s ▸" (``▾`` unfolded); "Thinking… 4 s" while the reply still thinks."""
    seconds = item.get("reasoningSeconds")
    n = max(1, round(seconds)) if isinstance(seconds, (int, float)) else None
    if item.get("thinking"):
        return (
            QCoreApplication.translate("ChatLayout", "Thinking… {n} s").format(n=n)
            if n is not None
            else QCoreApplication.translate("ChatLayout", "Thinking…")
        )
    label = (
        QCoreApplication.translate("ChatLayout", "Thought for {n} s").format(n=n)
        if n is not None
        else QCoreApplication.translate("ChatLayout", "Thought")
    )
    if item.get("status") == "streaming":
        return label + " ▸"
    return label + (" ▾" if shown else " ▸")


def _has_table(doc: QTextDocument) -> bool:
    return any(isinstance(f, QTextTable) for f in doc.rootFrame().childFrames())
