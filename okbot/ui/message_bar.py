"""A notice bar inside a panel: a message in the palette's info / warning / error colour, with buttons."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from okbot.ui.chat.colors import ChatColors

BAR_KINDS = ("info", "warning", "error")


class MessageBar(QFrame):
    """A one-line notice (info / warning / error) with optional buttons, coloured from the palette."""

    def __init__(self, kind: str = "warning", parent: QWidget | None = None, *, object_name: str = "") -> None:
        super().__init__(parent)
        self.setObjectName(object_name or "messageBar")
        self._kind = kind if kind in BAR_KINDS else "warning"
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(10, 6, 6, 6)
        self._row.setSpacing(6)
        self._row.addWidget(self.label, 1)
        self.buttons: dict[str, QPushButton] = {}
        self._restyle()
        self.hide()

    def add_button(self, text: str, slot: object, *, name: str = "") -> QPushButton:
        """Add a button at the right end (``name`` keys ``buttons``; defaults to ``text``)."""
        button = QPushButton(text)
        button.setAutoDefault(False)
        button.clicked.connect(slot)
        self._row.addWidget(button)
        self.buttons[name or text] = button
        return button

    def show_message(self, text: str, kind: str | None = None) -> None:
        """Show ``text`` (plain) with the given kind (keeps the current kind when ``None``)."""
        if kind is not None and kind != self._kind and kind in BAR_KINDS:
            self._kind = kind
            self._restyle()
        self.label.setText(text)
        self.show()

    @property
    def kind(self) -> str:
        return self._kind

    def text(self) -> str:
        return self.label.text()

    def _restyle(self) -> None:
        self.update()

    def _tones(self) -> tuple[QColor, QColor]:
        colors = ChatColors.from_palette(self.palette())
        return {
            "info": (colors.accent, colors.accent_soft),
            "warning": (colors.warning, colors.warning_bg),
            "error": (colors.error, colors.error_bg),
        }[self._kind]

    def paintEvent(self, event: QPaintEvent) -> None:
        # painted, not a style sheet: a style sheet would change the palette it is derived from
        tone, background = self._tones()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(tone, 1))
        painter.setBrush(background)
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6)
        painter.end()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.update()
        super().changeEvent(event)
