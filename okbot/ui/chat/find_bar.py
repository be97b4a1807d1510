"""FindBar: the find-in-chat strip floating over the top right of the chat (Ctrl+F).

A line edit, the "3 of 41" count, older / newer buttons and a close button. Typing searches after
a short pause (a new query replaces the running one); Enter goes to the next (older) match,
Shift+Enter to the previous (newer) one, Esc closes. The bar only reports what the user asks
for; :class:`okbot.ui.chat.view.ChatView` runs the search.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

DEBOUNCE_MS = 150  # typing pauses this long before the search starts


class FindBar(QFrame):
    """The find strip; see the module docstring."""

    query_changed = Signal(str)  # the text to look for (after the typing pause)
    next_requested = Signal()  # older match
    previous_requested = Signal()  # newer match
    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatFindBar")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.edit = QLineEdit(self)
        self.edit.setObjectName("chatFindEdit")
        self.edit.setPlaceholderText(self.tr("Find in chat"))
        self.edit.setClearButtonEnabled(True)
        self.edit.setMinimumWidth(200)
        self.edit.installEventFilter(self)
        self.count = QLabel("", self)
        self.count.setObjectName("chatFindCount")
        self.count.setMinimumWidth(72)
        self.count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.older = self._button("↑", self.tr("Older match (Enter)"), self.next_requested.emit)
        self.newer = self._button("↓", self.tr("Newer match (Shift+Enter)"), self.previous_requested.emit)
        self.close_button = self._button("✕", self.tr("Close (Esc)"), self.close_bar)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 5, 5, 5)
        layout.setSpacing(4)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.count)
        layout.addWidget(self.older)
        layout.addWidget(self.newer)
        layout.addWidget(self.close_button)
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self._on_debounce_timeout)
        self.edit.textChanged.connect(self._on_edit_text_changed)
        self.hide()

    def _button(self, text: str, tip: str, slot: object) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.clicked.connect(slot)
        return button

    def text(self) -> str:
        return self.edit.text()

    def open_bar(self) -> None:
        """Show and focus the bar, its text selected (typing replaces it)."""
        self.show()
        self.raise_()
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.edit.selectAll()

    def set_query(self, text: str) -> None:
        """Put ``text`` in the box without starting a search of its own (the caller searches)."""
        self._debounce.stop()
        blocked = self.edit.blockSignals(True)
        self.edit.setText(text)
        self.edit.blockSignals(blocked)

    def close_bar(self) -> None:
        self._debounce.stop()
        self.hide()
        self.closed.emit()

    def search_now(self) -> None:
        """Skip the typing pause (Enter before it ran)."""
        if self._debounce.isActive():
            self._debounce.stop()
            self.query_changed.emit(self.edit.text())

    def set_count(self, current: int, total: int, *, done: bool, error: str = "") -> None:
        """Show where the user is: ``current`` (0-based, -1 none) of ``total`` matches, ``done`` when all are known."""
        more = "" if done else "…"
        if error:
            text = self.tr("Search failed")
            self.count.setToolTip(error)
        elif not self.edit.text():
            text = ""
        elif total == 0:
            text = self.tr("No matches") if done else self.tr("Searching…")
        elif current < 0:
            text = self.tr("{total} found").format(total=f"{total:,}{more}")
        else:
            text = self.tr("{current} of {total}").format(current=f"{current + 1:,}", total=f"{total:,}{more}")
        self.count.setText(text)
        self.older.setEnabled(total > 0)
        self.newer.setEnabled(total > 0)

    def _on_edit_text_changed(self, _text: str) -> None:
        self._debounce.start()

    def _on_debounce_timeout(self) -> None:
        self.query_changed.emit(self.edit.text())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.edit and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.search_now()
                if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                    self.previous_requested.emit()
                else:
                    self.next_requested.emit()
                return True
            if key == Qt.Key.Key_Escape:
                self.close_bar()
                return True
        return super().eventFilter(watched, event)
