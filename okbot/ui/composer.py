"""The message composer: a growing text box with Send / Stop.

Enter sends, Shift+Enter inserts a newline, and Enter never sends while an input method is
composing (a non-empty pre-edit string, e.g. Japanese or Chinese input): it goes to the input
method to commit the candidate. While a reply streams the button turns into Stop. The composer
clears only when told the message was accepted, so a refused message stays where it was typed.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QFontMetrics, QInputMethodEvent, QKeyEvent, QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPlainTextEdit, QPushButton, QSizePolicy

MAX_VISIBLE_LINES = 8
PLACEHOLDER = "Message {name} — Enter to send, Shift+Enter for a new line"


class ComposerEdit(QPlainTextEdit):
    """A plain-text editor where Enter submits (outside IME composition) and Shift+Enter breaks the line."""

    submit = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._preedit = ""
        self.setTabChangesFocus(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().contentsChanged.connect(self._on_document_contents_changed)
        self._on_document_contents_changed()

    @property
    def composing(self) -> bool:
        """True while an input method has uncommitted pre-edit text."""
        return bool(self._preedit)

    def inputMethodEvent(self, event: QInputMethodEvent) -> None:  # noqa: N802 (Qt API)
        self._preedit = event.preeditString()
        super().inputMethodEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt API)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if self.composing:  # the input method commits its candidate; never send, never break the line
                event.accept()
                return
            modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
            if modifiers == Qt.KeyboardModifier.NoModifier:
                event.accept()
                self.submit.emit()
                return
            if modifiers == Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
                event.accept()
                return
        super().keyPressEvent(event)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return QSize(super().sizeHint().width(), self._wanted_height())

    def _lines(self) -> int:
        return max(1, int(self.document().size().height()))  # a plain-text layout measures in lines

    def _wanted_height(self) -> int:
        line = QFontMetrics(self.font()).lineSpacing()
        margins = self.contentsMargins()
        doc_margin = int(self.document().documentMargin() * 2)
        slack = 4  # the layout's own leading; without it a scroll bar appears for one line
        return min(self._lines(), MAX_VISIBLE_LINES) * line + doc_margin + margins.top() + margins.bottom() + slack

    def _on_document_contents_changed(self) -> None:
        overflow = self._lines() > MAX_VISIBLE_LINES
        self.setVerticalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAsNeeded if overflow else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        )
        self.setFixedHeight(self._wanted_height())


class Composer(QFrame):
    """The text box and its Send / Stop button.

    ``send_requested(text)`` asks to send; the owner calls :meth:`accept_sent` once the turn took
    the message (the box clears) and leaves the text in place when it was refused.
    """

    send_requested = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        self._streaming = False

        self.edit = ComposerEdit(self)
        self.edit.setObjectName("composerEdit")
        self.edit.submit.connect(self._on_edit_submit)
        self.edit.textChanged.connect(self._update_button)

        self.button = QPushButton("Send", self)
        self.button.setObjectName("sendButton")
        self.button.setDefault(False)
        self.button.setAutoDefault(False)
        self.button.clicked.connect(self._on_button_clicked)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(8)
        layout.addWidget(self.edit, 1, Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        self.set_target_name("OkBot")
        self._update_button()

    # ------------------------------------------------------------------ public
    @property
    def streaming(self) -> bool:
        return self._streaming

    def text(self) -> str:
        return self.edit.toPlainText()

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)
        self.edit.moveCursor(self.edit.textCursor().MoveOperation.End)

    def set_target_name(self, name: str) -> None:
        self.edit.setPlaceholderText(PLACEHOLDER.format(name=name))

    def set_streaming(self, streaming: bool) -> None:
        """Show Stop (streaming) or Send. Typing stays possible either way."""
        self._streaming = streaming
        self._update_button()

    def accept_sent(self, text: str) -> None:
        """The turn took ``text``: clear the box unless the user already typed something else."""
        if self.text() == text:
            self.edit.clear()

    def focus_input(self) -> None:
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # ------------------------------------------------------------------- slots
    def _on_edit_submit(self) -> None:
        if self._streaming:
            return  # Enter while a reply streams does nothing; Stop is a click or Esc
        text = self.text()
        if text.strip():
            self.send_requested.emit(text)

    def _on_button_clicked(self) -> None:
        if self._streaming:
            self.stop_requested.emit()
        else:
            self._on_edit_submit()

    def _update_button(self) -> None:
        if self._streaming:
            self.button.setText("Stop")
            self.button.setToolTip("Stop the reply (Esc)")
            self.button.setEnabled(True)
        else:
            self.button.setText("Send")
            self.button.setToolTip("Send (Enter)")
            self.button.setEnabled(bool(self.text().strip()))
