"""JumpButton: the floating "Jump to latest ↓" pill over the chat's bottom right while the user reads back.

While the user is scrolled up, new content (a new item, a reply streaming in) does not move what
they read; it turns the pill into "New messages ↓" instead. Clicking it goes to the end.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QAbstractButton, QWidget

from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.ui.chat.colors import ChatColors

JUMP_TEXT = QT_TRANSLATE_NOOP("JumpButton", "Jump to latest ↓")  # both translated where shown
NEW_TEXT = QT_TRANSLATE_NOOP("JumpButton", "New messages ↓")
PAD_X, HEIGHT = 14, 30


class JumpButton(QAbstractButton):
    """The pill; the view shows, hides and places it (see :class:`okbot.ui.chat.view.ChatView`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatJumpButton")
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setText(self.tr(JUMP_TEXT))
        self.setToolTip(self.tr("Scroll to the newest message"))
        self.new_content = False
        self.hide()

    def set_new_content(self, new: bool) -> None:
        """Say "New messages" (something arrived while scrolled up) or plain "Jump to latest"."""
        if new != self.new_content:
            self.new_content = new
            self.setText(self.tr(NEW_TEXT if new else JUMP_TEXT))
            self.resize(self.sizeHint())
            self.update()

    def sizeHint(self) -> QSize:
        font = self.font()
        font.setBold(True)
        return QSize(round(QFontMetricsF(font).horizontalAdvance(self.text()) + 2 * PAD_X), HEIGHT)

    def paintEvent(self, event: QPaintEvent) -> None:
        colors = ChatColors.from_palette(self.palette())
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(1, 1, -1, -1)
        hot = self.underMouse() or self.isDown()
        if self.new_content:
            background = colors.accent if not hot else colors.accent.darker(112)
            text = colors.background
            border = background
        else:
            background = colors.accent_soft if hot else colors.background
            text = colors.accent
            border = colors.assistant_border
        shadow = QColor(0, 0, 0, 40)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(shadow)
        painter.drawRoundedRect(rect.translated(0, 1.5), rect.height() / 2, rect.height() / 2)
        painter.setPen(QPen(border, 1))
        painter.setBrush(background)
        painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
        font = self.font()
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(text)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self.text())
        painter.end()

    def enterEvent(self, event: object) -> None:
        self.update()
        super().enterEvent(event)

    def leaveEvent(self, event: object) -> None:
        self.update()
        super().leaveEvent(event)
