"""A one-line label that elides its text to the width it gets (``Travel pla…``), with the whole text as tooltip."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy


class ElidedLabel(QLabel):
    """A QLabel for one line of plain text that may shrink below its text: the end is elided, never clipped.

    :meth:`text` is the whole text; the tooltip shows it whole while it is elided (or always shows the
    text given to :meth:`set_tip`).
    """

    def __init__(self, text: str = "", parent: Any = None) -> None:
        super().__init__(parent)
        self._full = ""
        self._tip = ""
        self._mode = Qt.TextElideMode.ElideRight
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:
        self._full = text
        self._elide()
        self.updateGeometry()

    def set_elide_mode(self, mode: Qt.TextElideMode) -> None:
        """Where the text gives way: its end (the default), or its middle to keep how it ends in view."""
        self._mode = mode
        self._elide()

    def set_tip(self, tip: str) -> None:
        """Show ``tip`` as the tooltip, elided or not ("": the whole text, while it is elided)."""
        self._tip = tip
        self._elide()

    def sizeHint(self) -> QSize:
        margins = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance(self._full) + margins.left() + margins.right() + 2
        return QSize(width, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self.fontMetrics().horizontalAdvance("…") * 3, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, self._mode, self.contentsRect().width())
        super().setText(shown)
        self.setToolTip(self._tip or (self._full if shown != self._full else ""))
