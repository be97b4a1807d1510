"""The line above the composer while one of your messages is being edited: what sending will do, and Cancel."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget


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

    def begin(self, item_id: int) -> None:
        self.item_id = item_id
        self.label.setText(
            self.tr(
                "✎ Editing your message #{id}. Sending makes it a new version: the reply and what followed are "
                "kept as the earlier version (‹ › switches back)."
            ).format(id=item_id)
        )
        self.show()

    def end(self) -> None:
        self.item_id = 0
        self.hide()
