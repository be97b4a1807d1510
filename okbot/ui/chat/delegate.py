"""ChatDelegate: paints chat rows (bubbles, code boxes, tool digests, notices, the divider) and hit-tests them.

Layouts are cached per (row key, width) in a small LRU and heights in a dict, so a row is laid
out (its Markdown parsed) once per width, and only when it is shown. Text selection uses Qt's
editor mechanism: "editing" a row opens :class:`SelectableText`, a read-only, frameless
QTextBrowser holding a copy of the row's own document, placed exactly over the painted text.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontDatabase,
    QFontMetricsF,
    QLinearGradient,
    QPainter,
    QPalette,
    QPen,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTextBrowser, QWidget

from okbot.ui.chat.colors import ChatColors, avatar_colors, speaker_border, speaker_color
from okbot.ui.chat.layout import BUTTON_PAD, CAPTION_MIN_W, Action, LayoutBuilder, RowData, RowLayout, copied_label
from okbot.ui.chat.markdown import CODE_HEADER
from okbot.ui.chat.model import ChatModel
from okbot.ui.chat.syntax import CodeHighlighter

_Index = QModelIndex | QPersistentModelIndex
LAYOUT_SLOTS = 300  # laid-out rows kept (documents included)
HEIGHT_SLOTS = 200_000  # remembered heights (ints) before the table is cleared
_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
FADE_H = 44  # a collapsed message fades out over its last pixels of text


class SelectableText(QTextBrowser):
    """The read-only text selector opened over a bubble (double-click, or "Select text")."""

    def __init__(
        self, parent: QWidget, layout: RowLayout, colors: ChatColors, font: QFont, builder: LayoutBuilder | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("chatSelectableText")
        self.setReadOnly(True)
        self.setOpenExternalLinks(True)
        self.setFrameShape(QTextBrowser.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFont(font)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextBrowserInteraction | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Base, QColor(0, 0, 0, 0))
        palette.setColor(QPalette.ColorRole.Text, colors.text)
        palette.setColor(QPalette.ColorRole.Link, colors.link)
        self.setPalette(palette)
        self.viewport().setAutoFillBackground(False)
        self.setAutoFillBackground(False)
        assert layout.doc is not None
        doc = layout.doc.clone(self)
        if builder is not None and builder.highlighter is not None:  # a clone has no layout formats
            builder.highlighter.highlight(doc, builder.code_formats)
        self.setDocument(doc)
        self.setLineWrapMode(QTextBrowser.LineWrapMode.FixedPixelWidth)
        self.setLineWrapColumnOrWidth(round(layout.doc.textWidth()))
        self.selectAll()


class ChatDelegate(QStyledItemDelegate):
    """Paints :class:`ChatModel` rows; the view tells it what is hovered and flashed (never the model)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.developer_mode = False
        self.hover_key: Any = None  # key of the row under the mouse
        self.hover_action: tuple[str, Any] | None = None
        self.flash: tuple[Any, str, Any] | None = None  # (row key, action, payload) just used: "Copied ✓"
        self.editing_key: Any = None  # the row whose text selector is open (its text is not painted)
        self.editor: SelectableText | None = None
        self.find: tuple[str, int, int] | None = None  # find-in-chat: (needle, current item id, occurrence)
        self.focus_action: tuple[Any, str] | None = None  # (row key, action): a card's button the keyboard is on
        self._view_focused = False  # while painting: the view has the keyboard focus (so the focus ring shows)
        self.highlighter = CodeHighlighter(self)
        self._builder: LayoutBuilder | None = None
        self._style_token: tuple[int, str] | None = None
        self._layouts: OrderedDict[tuple[Any, int], RowLayout] = OrderedDict()
        self._heights: dict[tuple[Any, int], int] = {}
        self.layouts_built = 0

    # ------------------------------------------------------------------ layouts
    def reset_style(self) -> None:
        """Forget every layout (call after a palette or font change)."""
        self._builder = None
        self._layouts.clear()
        self._heights.clear()

    def forget(self, key: Any) -> None:
        """Forget the layouts of one row key (its content changed)."""
        for cache_key in [k for k in self._layouts if k[0] == key]:
            del self._layouts[cache_key]
        for cache_key in [k for k in self._heights if k[0] == key]:
            del self._heights[cache_key]

    def builder(self, widget: QWidget | None) -> LayoutBuilder:
        palette = widget.palette() if widget is not None else QPalette()
        font = widget.font() if widget is not None else QFont()
        token = (palette.cacheKey(), font.key())
        if self._builder is None or token != self._style_token:
            self._layouts.clear()
            self._heights.clear()
            mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
            self._builder = LayoutBuilder(font, mono, ChatColors.from_palette(palette), self.highlighter)
            self._style_token = token
        return self._builder

    def layout(self, option: QStyleOptionViewItem, index: _Index) -> RowLayout:
        """The (cached) layout of ``index`` at ``option.rect.width()``."""
        width = max(1, option.rect.width())
        builder = self.builder(option.widget)
        key = (index.data(ChatModel.KeyRole), width)
        hit = self._layouts.get(key)
        if hit is not None:
            self._layouts.move_to_end(key)
            return hit
        layout = builder.build(self._row_data(index), width)
        self.layouts_built += 1
        self._layouts[key] = layout
        if len(self._layouts) > LAYOUT_SLOTS:
            self._layouts.popitem(last=False)
        if len(self._heights) > HEIGHT_SLOTS:
            self._heights.clear()
        self._heights[key] = layout.height
        return layout

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        width = max(1, option.rect.width())
        height = self._heights.get((index.data(ChatModel.KeyRole), width))
        if height is None:
            height = self.layout(option, index).height
        return QSize(width, height)

    def actions(self, option: QStyleOptionViewItem, index: _Index) -> list[Action]:
        """Clickable areas of the row (row coordinates); footer actions count only while hovered."""
        layout = self.layout(option, index)
        out = list(layout.actions)
        out += self.builder(option.widget).footer_actions(layout, self.developer_mode)
        return out

    def action_at(self, option: QStyleOptionViewItem, index: _Index, pos: QPointF) -> Action | None:
        """The action under ``pos`` (viewport coordinates), if any."""
        local = QPointF(pos) - QPointF(option.rect.topLeft())
        for action in self.actions(option, index):
            if action.rect.contains(local):
                return action
        return None

    def _row_data(self, index: _Index) -> RowData:
        model = index.model()
        divider = index.data(ChatModel.DividerRole)
        return RowData(
            kind=index.data(ChatModel.KindRole),
            item=index.data(ChatModel.ItemRole),
            author=index.data(ChatModel.AuthorRole) or "",
            expanded=bool(index.data(ChatModel.ExpandedRole)),
            retryable=bool(index.data(ChatModel.RetryableRole)),
            divider=divider,
            squad=bool(getattr(model, "show_authors", False)),
            info=index.data(ChatModel.SquadRole),
            versions=index.data(ChatModel.VersionsRole),
            changeable=bool(index.data(ChatModel.ChangeableRole)),
            thought_open=bool(index.data(ChatModel.ThoughtOpenRole)),
            teaching=index.data(ChatModel.TeachingRole),
            thumbs=index.data(ChatModel.ThumbsRole) or {},
        )

    # ------------------------------------------------------------------ painting
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        layout = self.layout(option, index)
        colors = self.builder(option.widget).colors
        key = index.data(ChatModel.KeyRole)
        hovered = key == self.hover_key
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.translate(QPointF(option.rect.topLeft()))
        painter.setClipRect(QRectF(0, 0, option.rect.width(), option.rect.height()), Qt.ClipOperation.IntersectClip)
        self._view_focused = option.widget is not None and option.widget.hasFocus()
        paint = {
            "user": self._paint_message,
            "assistant": self._paint_message,
            "stream": self._paint_message,
            "tool": self._paint_tool,
            "notice": self._paint_notice,
            "divider": self._paint_divider,
            "delegation": self._paint_delegation,
            "teaching": self._paint_teaching,
        }.get(layout.style, self._paint_notice)
        paint(painter, layout, colors, key, hovered)
        state = QStyle.StateFlag
        selected = bool(option.state & state.State_Selected) and bool(option.state & state.State_HasFocus)
        if selected and layout.style in ("user", "assistant", "notice", "teaching"):
            pen = QPen(option.palette.color(QPalette.ColorRole.Highlight), 2)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(layout.bubble.adjusted(-1, -1, 1, 1), 13, 13)
        painter.restore()

    def _paint_message(self, painter: QPainter, layout: RowLayout, colors: ChatColors, key: Any, hovered: bool) -> None:
        builder = self._builder
        assert builder is not None
        user = layout.style == "user"
        if layout.avatar is not None:
            self._paint_author(painter, layout, colors)
        border = colors.user_border if user else colors.assistant_border
        if not user and layout.slot is not None:
            border = speaker_border(colors, layout.slot)
        painter.setPen(QPen(border, 1))
        painter.setBrush(colors.user_bg if user else colors.assistant_bg)
        painter.drawRoundedRect(layout.bubble.adjusted(0.5, 0.5, -0.5, -0.5), 12, 12)
        if layout.thought is not None:
            self._paint_thought(painter, layout, colors, key)
        painter.save()
        if layout.collapsed:
            shown = QRectF(layout.bubble.left(), layout.doc_pos.y(), layout.bubble.width(), layout.shown_h)
            painter.setClipRect(shown, Qt.ClipOperation.IntersectClip)
        self._paint_codes(painter, layout, colors, key)
        if layout.doc is not None and key != self.editing_key:
            self._draw_doc(painter, layout, colors.text, colors)
        painter.restore()
        if layout.collapsed:
            self._paint_fade(painter, layout, colors.user_bg if user else colors.assistant_bg)
        if layout.thumbs:
            self._paint_thumbs(painter, layout, colors)
        if layout.more is not None:
            self._paint_link(painter, layout.more, colors, key)
        if layout.status:
            self._paint_status(painter, layout, colors, key)
        if hovered and layout.footer:
            self._paint_footer(painter, layout, colors, key)
        if layout.version_label:
            self._paint_versions(painter, layout, colors, key)

    def _paint_thumbs(self, painter: QPainter, layout: RowLayout, colors: ChatColors) -> None:
        """A sent message's images, each with a thin border and its file name under it."""
        builder = self._builder
        assert builder is not None
        painter.save()
        painter.setFont(builder.small)
        for rect, image, name in layout.thumbs:
            painter.drawImage(rect, image)
            painter.setPen(QPen(colors.user_border, 1))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect.adjusted(0.5, 0.5, -0.5, -0.5))
            caption = QRectF(rect.left(), rect.bottom() + 2, max(rect.width(), CAPTION_MIN_W), layout.caption_h)
            painter.setPen(colors.muted)
            shown = builder.sfm.elidedText(name, Qt.TextElideMode.ElideMiddle, caption.width())
            painter.drawText(caption, _LEFT, shown)
        painter.restore()

    def _paint_versions(self, painter: QPainter, layout: RowLayout, colors: ChatColors, key: Any) -> None:
        builder = self._builder
        assert builder is not None
        painter.setFont(builder.small)
        painter.setPen(colors.muted)
        painter.drawText(layout.version_rect, Qt.AlignmentFlag.AlignCenter, layout.version_label)
        painter.setPen(colors.faint)
        for rect, arrow in layout.version_ends:
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, arrow)
        for action in layout.actions:
            if action.name == "version":
                self._paint_button(painter, action, colors, key, quiet=True)

    def _paint_fade(self, painter: QPainter, layout: RowLayout, background: QColor) -> None:
        """The last lines of a collapsed message fade into the bubble (there is more below)."""
        bottom = layout.doc_pos.y() + layout.shown_h
        rect = QRectF(layout.bubble.left() + 1, bottom - FADE_H, layout.bubble.width() - 2, FADE_H)
        gradient = QLinearGradient(rect.topLeft(), rect.bottomLeft())
        clear = QColor(background)
        clear.setAlpha(0)
        gradient.setColorAt(0.0, clear)
        gradient.setColorAt(1.0, background)
        painter.fillRect(rect, gradient)

    def _paint_thought(self, painter: QPainter, layout: RowLayout, colors: ChatColors, key: Any) -> None:
        """ "Thought for 12 s ▸" in muted text (soft background while hovered), and the reasoning when unfolded."""
        builder = self._builder
        assert builder is not None and layout.thought is not None
        action = layout.thought
        if self.hover_action == (action.name, action.payload) and self.hover_key == key:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colors.accent_soft)
            painter.drawRoundedRect(action.rect, 6, 6)
        painter.setPen(colors.muted)
        painter.setFont(builder.small)
        text_rect = action.rect.adjusted(BUTTON_PAD, 0, -BUTTON_PAD, 0)
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, action.label)
        if layout.thought_doc is None:
            return
        box = layout.thought_box
        painter.setPen(QPen(colors.muted, 2))
        painter.drawLine(QPointF(box.left(), box.top()), QPointF(box.left(), box.bottom()))
        painter.save()
        painter.translate(layout.thought_pos)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        palette = QPalette(ctx.palette)
        palette.setColor(QPalette.ColorRole.Text, colors.muted)
        ctx.palette = palette
        layout.thought_doc.documentLayout().draw(painter, ctx)
        painter.restore()

    def _paint_link(self, painter: QPainter, action: Action, colors: ChatColors, key: Any) -> None:
        """ "Show more" / "Show less": accent text, a soft background while hovered."""
        builder = self._builder
        assert builder is not None
        if self.hover_action == (action.name, action.payload) and self.hover_key == key:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colors.accent_soft)
            painter.drawRoundedRect(action.rect, 6, 6)
        painter.setPen(colors.accent)
        painter.setFont(builder.bold_small)
        painter.drawText(action.rect, Qt.AlignmentFlag.AlignCenter, action.label)

    def _paint_author(self, painter: QPainter, layout: RowLayout, colors: ChatColors) -> None:
        """A squad speaker's avatar and name (the captain's avatar is a rounded square in the accent)."""
        builder = self._builder
        assert builder is not None and layout.avatar is not None
        avatar_bg, avatar_fg = avatar_colors(colors, layout.author, layout.slot)
        captain = layout.slot is not None and layout.slot < 0
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(avatar_bg)
        if captain:
            painter.drawRoundedRect(layout.avatar, 8, 8)
        else:
            painter.drawEllipse(layout.avatar)
        painter.setPen(avatar_fg)
        painter.setFont(builder.bold_small)
        painter.drawText(layout.avatar, Qt.AlignmentFlag.AlignCenter, (layout.author[:1] or "?").upper())
        rect = layout.author_rect
        if layout.slot is None:
            painter.setPen(colors.muted)
            painter.drawText(rect, _LEFT, layout.author)
            return
        painter.setPen(speaker_color(colors, layout.slot))
        painter.setFont(builder.bold_small)
        painter.drawText(rect, _LEFT, layout.author)
        if layout.author_note:
            name_w = QFontMetricsF(builder.bold_small).horizontalAdvance(layout.author)
            painter.setPen(colors.faint)
            painter.setFont(builder.small)
            painter.drawText(rect.adjusted(name_w, 0, 0, 0), _LEFT, f"  ·  {layout.author_note}")

    def _paint_codes(self, painter: QPainter, layout: RowLayout, colors: ChatColors, key: Any) -> None:
        builder = self._builder
        assert builder is not None
        for code in layout.codes:
            box = code.rect.translated(layout.doc_pos)
            painter.setPen(QPen(colors.code_border, 1))
            painter.setBrush(colors.code_bg)
            painter.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 8, 8)
            if layout.style == "tool":
                continue
            strip = QRectF(box.left(), box.top(), box.width(), CODE_HEADER)
            painter.save()
            painter.setClipRect(strip, Qt.ClipOperation.IntersectClip)
            painter.setBrush(colors.code_header_bg)
            painter.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 8, 8)
            painter.restore()
            painter.setPen(QPen(colors.code_border, 1))
            painter.drawLine(QPointF(box.left() + 1, strip.bottom()), QPointF(box.right() - 1, strip.bottom()))
            header = QRectF(box.left() + 12, box.top(), box.width() - 24, CODE_HEADER)
            painter.setFont(builder.small)
            painter.setPen(colors.code_header)
            painter.drawText(header, _LEFT, code.language or self.tr("code"))
        for action in layout.actions:
            if action.name == "copy_code":
                self._paint_button(painter, action, colors, key, quiet=True)

    def _paint_status(self, painter: QPainter, layout: RowLayout, colors: ChatColors, key: Any) -> None:
        builder = self._builder
        assert builder is not None
        error = layout.status_error
        color = colors.muted if layout.status_quiet else colors.error if error else colors.warning
        painter.setFont(builder.small)
        painter.setPen(color)
        shown = layout.status if layout.status_quiet else f"⚠  {layout.status}"
        text = builder.sfm.elidedText(shown, Qt.TextElideMode.ElideRight, layout.status_rect.width())
        painter.drawText(layout.status_rect, _LEFT, text)
        for action in layout.actions:
            if action.name == "retry":
                self._paint_button(painter, action, colors, key, quiet=False)

    def _paint_footer(self, painter: QPainter, layout: RowLayout, colors: ChatColors, key: Any) -> None:
        builder = self._builder
        assert builder is not None
        painter.setFont(builder.small)
        painter.setPen(colors.faint)
        if layout.footer_time:
            painter.drawText(layout.footer_time_rect, Qt.AlignmentFlag.AlignCenter, layout.footer_time)
        for action in builder.footer_actions(layout, self.developer_mode):
            self._paint_button(painter, action, colors, key, quiet=True)

    def _paint_button(self, painter: QPainter, action: Action, colors: ChatColors, key: Any, *, quiet: bool) -> None:
        builder = self._builder
        assert builder is not None
        hot = self.hover_action == (action.name, action.payload) and self.hover_key == key
        flashed = self.flash is not None and self.flash == (key, action.name, action.payload)
        label = copied_label() if flashed else action.label
        rect = action.rect
        if quiet:
            if hot:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(colors.accent_soft)
                painter.drawRoundedRect(rect, 6, 6)
            painter.setPen(colors.accent if (hot or flashed) else colors.muted)
        else:
            painter.setPen(QPen(colors.accent, 1))
            painter.setBrush(colors.accent_soft if hot else colors.background)
            painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), rect.height() / 2, rect.height() / 2)
            painter.setPen(colors.accent)
        painter.setFont(builder.bold_small if not quiet else builder.small)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)

    def _paint_tool(self, painter: QPainter, layout: RowLayout, colors: ChatColors, key: Any, hovered: bool) -> None:
        builder = self._builder
        assert builder is not None
        failed = layout.level == "failed"
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colors.accent_soft if hovered else colors.pill_bg)
        painter.drawRoundedRect(layout.bubble, layout.bubble.height() / 2, layout.bubble.height() / 2)
        painter.setFont(builder.small)
        painter.setPen(colors.muted)
        expanded = layout.doc is not None
        icon_rect = QRectF(layout.bubble.left() + 8, layout.bubble.top(), 16, layout.bubble.height())
        painter.drawText(icon_rect, Qt.AlignmentFlag.AlignCenter, "▾" if expanded else "▸")
        text = builder.sfm.elidedText(layout.label, Qt.TextElideMode.ElideRight, layout.label_rect.width())
        self._paint_label_matches(painter, layout, text, colors)
        painter.setPen(colors.error if failed else colors.muted)
        painter.drawText(layout.label_rect, _LEFT, text)
        if expanded:
            self._paint_codes(painter, layout, colors, key)
            if key != self.editing_key:
                self._draw_doc(painter, layout, colors.text, colors)

    def _paint_delegation(
        self, painter: QPainter, layout: RowLayout, colors: ChatColors, key: Any, hovered: bool
    ) -> None:
        """ "▸ asked Rex: task" — the member's name in their colour; the whole task in a box when open."""
        builder = self._builder
        assert builder is not None
        failed = layout.level == "failed"
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colors.accent_soft if hovered else (colors.error_bg if failed else colors.pill_bg))
        painter.drawRoundedRect(layout.bubble, layout.bubble.height() / 2, layout.bubble.height() / 2)
        match = self._label_match(layout)
        if match is not None:  # the label is drawn in pieces: the whole pill is outlined
            painter.setPen(QPen(colors.find_current_bg if match else colors.find_bg, 2))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            radius = layout.bubble.height() / 2
            painter.drawRoundedRect(layout.bubble.adjusted(1, 1, -1, -1), radius, radius)
        painter.setFont(builder.small)
        painter.setPen(colors.muted)
        expanded = layout.doc is not None
        icon_rect = QRectF(layout.bubble.left() + 8, layout.bubble.top(), 16, layout.bubble.height())
        painter.drawText(icon_rect, Qt.AlignmentFlag.AlignCenter, "▾" if expanded else "▸")
        head, name, tail = layout.label.partition(layout.to_name) if layout.to_name else (layout.label, "", "")
        rect = QRectF(layout.label_rect)
        quiet = colors.error if failed else colors.muted
        bold = QFontMetricsF(builder.bold_small)
        for text, font, metrics, color in (
            (head, builder.small, builder.sfm, quiet),
            (name, builder.bold_small, bold, speaker_color(colors, layout.to_slot)),
            (tail, builder.small, builder.sfm, quiet),
        ):
            if not text or rect.width() <= 0:
                continue
            shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
            painter.setFont(font)
            painter.setPen(color)
            painter.drawText(rect, _LEFT, shown)
            rect.setLeft(rect.left() + metrics.horizontalAdvance(shown))
        if expanded:
            box = layout.status_rect
            painter.setPen(QPen(speaker_border(colors, layout.to_slot), 1))
            painter.setBrush(colors.assistant_bg)
            painter.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 10, 10)
            if key != self.editing_key:
                self._draw_doc(painter, layout, colors.text, colors)

    def _paint_notice(self, painter: QPainter, layout: RowLayout, colors: ChatColors, key: Any, hovered: bool) -> None:
        bg = {"warning": colors.warning_bg, "error": colors.error_bg}.get(layout.level, colors.pill_bg)
        fg = {"warning": colors.warning, "error": colors.error}.get(layout.level, colors.muted)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(bg)
        radius = min(12.0, layout.bubble.height() / 2)
        painter.drawRoundedRect(layout.bubble, radius, radius)
        if layout.doc is not None and key != self.editing_key:
            self._draw_doc(painter, layout, fg, colors)

    def _paint_teaching(
        self, painter: QPainter, layout: RowLayout, colors: ChatColors, key: Any, hovered: bool
    ) -> None:
        """A teaching card: quiet (the notice's grey, a thin rule), the words quoted, Keep in the accent."""
        builder = self._builder
        assert builder is not None
        painter.setPen(QPen(colors.rule, 1))
        painter.setBrush(colors.pill_bg)
        painter.drawRoundedRect(layout.bubble.adjusted(0.5, 0.5, -0.5, -0.5), 12, 12)
        rect = QRectF(layout.label_rect)
        bold = QFontMetricsF(builder.bold_small)
        title = bold.elidedText(layout.label, Qt.TextElideMode.ElideRight, rect.width())
        painter.setFont(builder.bold_small)
        painter.setPen(colors.text)
        painter.drawText(rect, _LEFT, title)
        rect.setLeft(rect.left() + bold.horizontalAdvance(title))
        if rect.width() > 0:
            painter.setFont(builder.small)
            painter.setPen(colors.muted)
            note = builder.sfm.elidedText(f"  ·  {layout.author_note}", Qt.TextElideMode.ElideRight, rect.width())
            painter.drawText(rect, _LEFT, note)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colors.accent)
        painter.drawRoundedRect(layout.status_rect, 1.5, 1.5)
        if layout.doc is not None and key != self.editing_key:
            self._draw_doc(painter, layout, colors.text, colors)
        for action in layout.actions:
            self._paint_button(painter, action, colors, key, quiet=action.name != "teach_keep")
            if self._view_focused and self.focus_action == (key, action.name):
                painter.setPen(QPen(colors.accent, 2))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                ring = action.rect.adjusted(-2, -2, 2, 2)
                painter.drawRoundedRect(ring, ring.height() / 2, ring.height() / 2)
        if layout.note_doc is not None:
            painter.save()
            painter.translate(layout.note_pos)
            ctx = QAbstractTextDocumentLayout.PaintContext()
            palette = QPalette(ctx.palette)
            palette.setColor(QPalette.ColorRole.Text, colors.accent if layout.level == "kept" else colors.muted)
            ctx.palette = palette
            layout.note_doc.documentLayout().draw(painter, ctx)
            painter.restore()

    def _paint_divider(self, painter: QPainter, layout: RowLayout, colors: ChatColors, key: Any, hovered: bool) -> None:
        builder = self._builder
        assert builder is not None
        label = layout.label_rect
        mid = label.center().y()
        painter.setPen(QPen(colors.rule, 1))
        painter.drawLine(QPointF(layout.bubble.left(), mid), QPointF(label.left() - 6, mid))
        painter.drawLine(QPointF(label.right() + 6, mid), QPointF(layout.bubble.right(), mid))
        painter.setPen(QPen(colors.rule, 1))
        painter.setBrush(colors.accent_soft if hovered else colors.background)
        painter.drawRoundedRect(label.adjusted(0.5, 0.5, -0.5, -0.5), label.height() / 2, label.height() / 2)
        head, _, tail = layout.label.partition("  ·  ")
        painter.setFont(builder.small)
        fm = builder.sfm
        total = fm.horizontalAdvance(layout.label)
        x = label.left() + (label.width() - total) / 2
        painter.setPen(colors.muted)
        painter.drawText(QPointF(x, mid + fm.ascent() / 2 - 1), head + "  ·  ")
        painter.setPen(colors.accent)
        painter.drawText(QPointF(x + fm.horizontalAdvance(head + "  ·  "), mid + fm.ascent() / 2 - 1), tail)
        if layout.doc is not None:
            box = layout.status_rect
            painter.setPen(QPen(colors.assistant_border, 1))
            painter.setBrush(colors.assistant_bg)
            painter.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 12, 12)
            self._paint_codes(painter, layout, colors, key)
            if key != self.editing_key:
                self._draw_doc(painter, layout, colors.text, colors)

    def _draw_doc(self, painter: QPainter, layout: RowLayout, color: QColor, colors: ChatColors) -> None:
        assert layout.doc is not None
        painter.save()
        painter.translate(layout.doc_pos)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        palette = QPalette(ctx.palette)
        palette.setColor(QPalette.ColorRole.Text, color)
        palette.setColor(QPalette.ColorRole.Link, colors.link)
        ctx.palette = palette
        if painter.hasClipping():
            ctx.clip = painter.clipBoundingRect()
        if self.find is not None and layout.style in ("user", "assistant", "notice"):
            ctx.selections = self._find_selections(layout, colors)
        layout.doc.documentLayout().draw(painter, ctx)
        painter.restore()

    # ------------------------------------------------------------------ find-in-chat highlights
    def doc_matches(self, layout: RowLayout) -> list[tuple[int, int]]:
        """Where the find needle occurs in ``layout``'s document (start, end), cached on the layout."""
        if self.find is None or layout.doc is None:
            return []
        needle = self.find[0]
        if layout.found is None or layout.found[0] != needle:
            layout.found = (needle, document_matches(layout.doc, needle))
        return layout.found[1]

    def current_occurrence(self, layout: RowLayout) -> int:
        """Which match of ``layout``'s row is the current one (-1: none there)."""
        if self.find is None or layout.item is None or layout.item.get("id") != self.find[1]:
            return -1
        return self.find[2]

    def _find_selections(self, layout: RowLayout, colors: ChatColors) -> list[Any]:
        assert layout.doc is not None
        current = self.current_occurrence(layout)
        out = []
        for i, (start, end) in enumerate(self.doc_matches(layout)):
            selection = QAbstractTextDocumentLayout.Selection()
            cursor = QTextCursor(layout.doc)
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            fmt = QTextCharFormat()
            fmt.setBackground(colors.find_current_bg if i == current else colors.find_bg)
            selection.cursor, selection.format = cursor, fmt
            out.append(selection)
        return out

    def _label_match(self, layout: RowLayout) -> bool | None:
        """For one-line rows: None when the label does not match, else whether it holds the current match."""
        if self.find is None or self.find[0] not in layout.label.lower():
            return None
        return self.current_occurrence(layout) >= 0

    def _paint_label_matches(self, painter: QPainter, layout: RowLayout, shown: str, colors: ChatColors) -> None:
        """Mark the needle behind a tool row's label (as much of it as the elided label shows)."""
        if self._label_match(layout) is None:
            return
        assert self.find is not None
        builder = self._builder
        assert builder is not None
        needle, current = self.find[0], self.current_occurrence(layout)
        lower = shown.lower()
        visible = len(shown) - (1 if shown != layout.label else 0)  # not under the ellipsis
        start, i = lower.find(needle), 0
        painter.setPen(Qt.PenStyle.NoPen)
        while 0 <= start and start + len(needle) <= visible:
            x = layout.label_rect.left() + builder.sfm.horizontalAdvance(shown[:start])
            w = builder.sfm.horizontalAdvance(shown[start : start + len(needle)])
            painter.setBrush(colors.find_current_bg if i == current else colors.find_bg)
            painter.drawRoundedRect(
                QRectF(x - 1, layout.label_rect.top() + 3, w + 2, layout.label_rect.height() - 6), 3, 3
            )
            start, i = lower.find(needle, start + len(needle)), i + 1

    # ------------------------------------------------------------------ text selection ("editing")
    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget | None:
        layout = self.layout(option, index)
        if layout.doc is None:
            return None
        builder = self.builder(option.widget)
        self.editing_key = index.data(ChatModel.KeyRole)
        self.editor = SelectableText(parent, layout, builder.colors, builder.font, builder)
        return self.editor

    def destroyEditor(self, editor: QWidget, index: _Index) -> None:
        self.editing_key = None
        if editor is self.editor:
            self.editor = None
        super().destroyEditor(editor, index)

    def setEditorData(self, editor: QWidget, index: _Index) -> None:
        """The selector already holds the row's document."""

    def setModelData(self, editor: QWidget, model: Any, index: _Index) -> None:
        """Read-only: nothing is written back."""

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem, index: _Index) -> None:
        layout = self.layout(option, index)
        rect = layout.doc_rect().translated(QPointF(option.rect.topLeft())).toAlignedRect()
        rect.setWidth(round(layout.doc.textWidth()) if layout.doc is not None else rect.width())
        editor.setGeometry(rect.adjusted(0, 0, 0, 2))


def document_matches(doc: QTextDocument, needle: str) -> list[tuple[int, int]]:
    """Every case-insensitive occurrence of ``needle`` in ``doc``, as (start, end) positions."""
    out: list[tuple[int, int]] = []
    if not needle:
        return out
    cursor = doc.find(needle, 0)
    while not cursor.isNull():
        out.append((cursor.selectionStart(), cursor.selectionEnd()))
        cursor = doc.find(needle, cursor)
    return out
