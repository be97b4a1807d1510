"""Which MCP servers an assistant may use: one checkbox per declared server (the assistant dialog's row)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QWidget

from okbot.i18n import QT_TRANSLATE_NOOP

NONE_DECLARED = QT_TRANSLATE_NOOP("McpServersChoice", "none yet: add them in Settings → MCP servers")


class McpServersChoice(QWidget):
    """A checkbox per server; ``chosen(list)`` with the checked names, in the declared order, after a click."""

    chosen = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcpServersChoice")
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.boxes: dict[str, QCheckBox] = {}
        self.empty = QLabel(QCoreApplication.translate("McpServersChoice", NONE_DECLARED), self)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self._layout.addWidget(self.empty)
        self._layout.addStretch(1)

    def set_servers(self, declared: Sequence[str], used: Sequence[str]) -> None:
        """Offer ``declared``, with ``used`` checked (a name no longer declared is not shown)."""
        for box in self.boxes.values():
            self._layout.removeWidget(box)
            box.deleteLater()
        self.boxes = {}
        for i, name in enumerate(declared):
            box = QCheckBox(name, self)
            box.setChecked(name in used)
            box.toggled.connect(self._on_box_toggled)
            self._layout.insertWidget(i, box)
            self.boxes[name] = box
        self.empty.setVisible(not declared)

    def checked(self) -> list[str]:
        return [name for name, box in self.boxes.items() if box.isChecked()]

    def _on_box_toggled(self, _on: bool) -> None:
        self.chosen.emit(self.checked())
