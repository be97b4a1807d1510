"""The line above the composer while one of your messages is being edited: what sending will do, and Cancel."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

QUOTE_CHARS = 40  # of the edited message, in the banner


class EditBanner(QWidget):
    """Shown while ``item_id`` is being edited; ``cancelled`` when the user gives up (Cancel or Esc)."""

    cancelled = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("editBanner")
        self.item_id = 0
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setObjectName("cancelEditButton")
        self.cancel_button.setFlat(True)
        self.cancel_button.clicked.connect(self.cancelled.emit)
        row = QHBoxLayout(self)
        row.setContentsMargins(20, 0, 20, 0)
        row.addWidget(self.label, 1)
        row.addWidget(self.cancel_button)
        self.hide()

    @property
    def editing(self) -> bool:
        return self.item_id > 0

    def begin(self, item_id: int, text: str = "") -> None:
        """Show the banner for message ``item_id``, named by the start of its ``text`` (ids are OkBot's own)."""
        self.item_id = item_id
        line = " ".join(text.split())
        quoted = line if len(line) <= QUOTE_CHARS else line[: QUOTE_CHARS - 1].rstrip() + "…"
        self.label.setText(
            self.tr(
                "✎ Editing your message “{start}”. Sending makes it a new version: the reply and what followed "
                "are kept as the earlier version (‹ › switches back)."
            ).format(start=quoted)
        )
        self.show()

    def end(self) -> None:
        self.item_id = 0
        self.hide()
