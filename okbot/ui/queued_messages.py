"""Messages sent while a reply streams: they wait here, above the message box, and go one after another.

Each row says *Queued*, the start of the message (and how many files go with it) and has ✕, which takes the
message back into the box: nothing the user typed is ever dropped. The chat page sends the next one when a reply
completes; after a Stop or a failed reply it gives them all back to the box instead (the user decides).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from okbot.i18n import plural
from okbot.ui.elided_label import ElidedLabel

MAX_QUEUED = 20  # a runaway Enter key does not fill the screen: beyond this the message stays in the box


@dataclass(frozen=True)
class Queued:
    text: str
    files: tuple[Path, ...] = field(default=())


class QueuedMessages(QWidget):
    """The queue of one chat; ``cancelled(Queued)`` when the user takes one back (✕)."""

    cancelled = Signal(object)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("queuedMessages")
        self._items: list[Queued] = []
        self._rows: list[QWidget] = []
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(20, 0, 20, 0)
        self._layout.setSpacing(2)
        self.hide()

    # ------------------------------------------------------------------ public
    def __len__(self) -> int:
        return len(self._items)

    @property
    def full(self) -> bool:
        return len(self._items) >= MAX_QUEUED

    def messages(self) -> list[Queued]:
        return list(self._items)

    def add(self, message: Queued) -> None:
        self._items.append(message)
        self._rebuild()

    def take_next(self) -> Queued | None:
        """The oldest queued message, out of the queue (None when there is none)."""
        if not self._items:
            return None
        message = self._items.pop(0)
        self._rebuild()
        return message

    def take_all(self) -> list[Queued]:
        taken, self._items = self._items, []
        self._rebuild()
        return taken

    # --------------------------------------------------------------- internals
    def _rebuild(self) -> None:
        for row in self._rows:
            row.deleteLater()
        self._rows = [self._row(message) for message in self._items]
        for row in self._rows:
            self._layout.addWidget(row)
        self.setVisible(bool(self._items))

    def _row(self, message: Queued) -> QWidget:
        row = QWidget(self)
        row.setObjectName("queuedMessage")
        tag = QLabel(self.tr("Queued"), row)
        tag.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        line = " ".join(message.text.split())
        if message.files:
            n = len(message.files)
            files = plural(n, self.tr("{n} file"), self.tr("{n} files")).format(n=n)
            line = f"{line} · {files}" if line else files
        text = ElidedLabel(line, row)
        text.setObjectName("queuedText")
        cancel = QToolButton(row)
        cancel.setObjectName("cancelQueuedButton")
        cancel.setText("✕")
        cancel.setAutoRaise(True)
        cancel.setToolTip(self.tr("Don't send it: back into the message box"))
        cancel.setAccessibleName(self.tr("Cancel the queued message"))
        cancel.clicked.connect(lambda _checked=False, m=message: self._cancel(m))
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(tag)
        layout.addWidget(text, 1)
        layout.addWidget(cancel)
        return row

    def _cancel(self, message: Queued) -> None:
        if message in self._items:
            self._items.remove(message)
            self._rebuild()
            self.cancelled.emit(message)
