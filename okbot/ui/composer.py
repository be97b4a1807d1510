"""The message composer: a growing text box with Send / Stop.

Enter sends, Shift+Enter inserts a newline, and Enter never sends while an input method is
composing (a non-empty pre-edit string, e.g. Japanese or Chinese input): it goes to the input
method to commit the candidate. While a reply streams the button turns into Stop. The composer
clears only when told the message was accepted, so a refused message stays where it was typed.

Up in an empty box recalls the messages sent in this chat, newest first (Up again goes further
back, Down forward, past the newest the box is empty again); the owner supplies them when asked
(``history_wanted``). Typing into a recalled message makes it the user's text: recall stops there.
The placeholder is the longest of its wordings that fits the box, so it never wraps out of sight.

Files go with the message too: the + (attach) button picks them, files dropped or pasted into the box
are taken, and so is a pasted image; each shows as a removable chip above the box
(:mod:`okbot.ui.attachment_chips`). A message may be files alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QFontMetrics, QImage, QInputMethodEvent, QKeyEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
)

from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.ui.attachment_chips import AttachmentChips, save_pasted

MAX_VISIBLE_LINES = 8
# the placeholder's wordings, longest first: the first that fits the box is shown, the last one elided
# (translated where shown, in set_target_name)
PLACEHOLDERS = (
    QT_TRANSLATE_NOOP("Composer", "Message {name} — Enter to send, Shift+Enter for a new line"),
    QT_TRANSLATE_NOOP("Composer", "Message {name} — Enter to send"),
    QT_TRANSLATE_NOOP("Composer", "Message {name}"),
)
SQUAD_PLACEHOLDERS = (
    QT_TRANSLATE_NOOP("Composer", "Message {name} — start with {mention} to ask one member"),
    QT_TRANSLATE_NOOP("Composer", "Message {name} — {mention} asks one member"),
    QT_TRANSLATE_NOOP("Composer", "Message {name}"),
)


class ComposerEdit(QPlainTextEdit):
    """A plain-text editor where Enter submits (outside IME composition) and Shift+Enter breaks the line."""

    submit = Signal()
    recall = Signal(int)  # Up (+1: further back) or Down (-1) where the composer recalls sent messages
    files_given = Signal(list)  # local files (Paths) dropped or pasted into the box, or a pasted image saved

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._preedit = ""
        self._placeholders: tuple[str, ...] = ("",)
        self.recalling = False  # the box shows a recalled message, untouched: Up and Down move through them
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

    def inputMethodEvent(self, event: QInputMethodEvent) -> None:
        self._preedit = event.preeditString()
        super().inputMethodEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
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
        if event.key() in (Qt.Key.Key_Up, Qt.Key.Key_Down) and event.modifiers() == Qt.KeyboardModifier.NoModifier:
            if not self.composing and (self.recalling or not self.toPlainText()):
                event.accept()
                self.recall.emit(1 if event.key() == Qt.Key.Key_Up else -1)
                return
        super().keyPressEvent(event)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return source.hasImage() or bool(_local_files(source)) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """Files dropped or pasted become attachments, a pasted image too; text is inserted as ever."""
        files = _local_files(source)
        if not files and source.hasImage():
            pasted = save_pasted(QImage(source.imageData()))
            files = [pasted] if pasted is not None else []
        if files:
            self.files_given.emit(files)
            return
        super().insertFromMimeData(source)

    def set_placeholders(self, wordings: tuple[str, ...]) -> None:
        """Offer ``wordings`` (longest first) as the placeholder; the widest that fits is shown."""
        self._placeholders = wordings or ("",)
        self._fit_placeholder()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_placeholder()

    def _fit_placeholder(self) -> None:
        metrics = self.fontMetrics()
        room = int(self.viewport().width() - 2 * self.document().documentMargin()) - 2
        for wording in self._placeholders:
            if metrics.horizontalAdvance(wording) <= room:
                self.setPlaceholderText(wording)
                return
        self.setPlaceholderText(metrics.elidedText(self._placeholders[-1], Qt.TextElideMode.ElideRight, max(room, 0)))

    def sizeHint(self) -> QSize:
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


def _local_files(source: QMimeData) -> list[Path]:
    """The local files among ``source``'s URLs (a dragged web link is text, not a file)."""
    if not source.hasUrls():
        return []
    return [Path(url.toLocalFile()) for url in source.urls() if url.isLocalFile() and url.toLocalFile()]


class Composer(QFrame):
    """The text box, its attach button and its Send / Stop button, with the chips of the files to send.

    ``send_requested(text)`` asks to send (:meth:`attachments` are the files to go with it); the owner
    calls :meth:`accept_sent` once the turn took the message (the box and the chips clear) and leaves
    both in place when it was refused. ``attach_refused(why)``: a file that could not be added.
    """

    send_requested = Signal(str)
    stop_requested = Signal()
    history_wanted = Signal()  # Up in the empty box before the sent messages were given (set_history)
    attach_refused = Signal(str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        self._streaming = False
        self._history: list[str] | None = None  # sent messages, newest first (None: not read yet)
        self._recall_at = -1  # which of them is on show (-1: none)
        self._recall_wanted = False  # Up was pressed before the history arrived

        self.edit = ComposerEdit(self)
        self.edit.setObjectName("composerEdit")
        self.edit.submit.connect(self._on_edit_submit)
        self.edit.recall.connect(self._on_edit_recall)
        self.edit.textChanged.connect(self._update_button)
        self.edit.textChanged.connect(self._on_edit_text_changed)
        self.edit.files_given.connect(self.add_files)

        self.chips = AttachmentChips(self)
        self.chips.changed.connect(self._update_button)
        self.attach_button = QToolButton(self)
        self.attach_button.setObjectName("attachButton")
        self.attach_button.setText("+")  # a glyph every font has (emoji fonts are often missing)
        self.attach_button.setAutoRaise(True)
        self.attach_button.setToolTip(
            self.tr("Attach files: text, code, Markdown, PDF; images for models that read them")
        )
        self.attach_button.setAccessibleName(self.tr("Attach files"))
        self.attach_button.clicked.connect(self._on_attach_button_clicked)
        # how the attach button asks for files (a file dialog; tests give their own)
        self.pick_files: Callable[[], list[str]] = self._files_from_dialog

        self.button = QPushButton(self.tr("Send"), self)
        self.button.setObjectName("sendButton")
        self.button.setDefault(False)
        self.button.setAutoDefault(False)
        self.button.clicked.connect(self._on_button_clicked)

        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(self.attach_button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.edit, 1, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        layout.addWidget(self.chips)
        layout.addLayout(row)
        self.set_target_name("OkBot")
        self._update_button()

    # ------------------------------------------------------------------ public
    @property
    def streaming(self) -> bool:
        return self._streaming

    def text(self) -> str:
        return self.edit.toPlainText()

    def attachments(self) -> list[Path]:
        """The files to send with the next message, in the order they were added."""
        return self.chips.paths

    def add_files(self, paths: Iterable[Path | str]) -> None:
        """Add files to the next message; each one that cannot be added is said by ``attach_refused``."""
        for path in paths:
            problem = self.chips.add(Path(path))
            if problem:
                self.attach_refused.emit(problem)

    def set_model(self, model: str, vision: bool) -> None:
        """The chat's model and whether it reads images (an image chip warns when it does not)."""
        self.chips.set_model(model, vision)

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)
        self.edit.moveCursor(self.edit.textCursor().MoveOperation.End)

    def set_target_name(self, name: str, *, mention: str = "") -> None:
        """Name the chat in the placeholder; ``mention`` (a squad member, ``@Ada``) adds how to ask one member."""
        wordings = SQUAD_PLACEHOLDERS if mention else PLACEHOLDERS
        self.edit.set_placeholders(
            tuple(QCoreApplication.translate("Composer", w).format(name=name, mention=mention) for w in wordings)
        )

    def set_history(self, sent: list[str]) -> None:
        """The messages sent in this chat, newest first; recalls the newest when Up was waiting for them."""
        self._history = list(sent)
        if self._recall_wanted:
            self._recall_wanted = False
            if not self.text():
                self._on_edit_recall(1)

    def set_streaming(self, streaming: bool) -> None:
        """Show Stop (streaming) or Send. Typing stays possible either way."""
        self._streaming = streaming
        self._update_button()

    def accept_sent(self, text: str) -> None:
        """The turn took ``text`` and the files: clear the chips, and the box unless the user already typed
        something else."""
        if text and self._history is not None and (not self._history or self._history[0] != text):
            self._history.insert(0, text)
        if self.text() == text:
            self.edit.clear()
        self.chips.clear()

    def focus_input(self) -> None:
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # ------------------------------------------------------------------- slots
    def _on_edit_submit(self) -> None:
        # while a reply streams Enter queues the message (the chat sends it after the reply); Stop is a click or Esc
        text = self.text()
        if text.strip() or self.chips.paths:
            self.send_requested.emit(text)

    def _on_edit_recall(self, step: int) -> None:
        if self._history is None:
            if step > 0 and not self._recall_wanted:  # asked once; the answer recalls the newest
                self._recall_wanted = True
                self.history_wanted.emit()
            return
        at = max(-1, min(self._recall_at + step, len(self._history) - 1))
        if at == self._recall_at:
            return
        self._recall_at = at
        self.set_text(self._history[at] if at >= 0 else "")
        self.edit.recalling = at >= 0

    def _on_edit_text_changed(self) -> None:
        shown = self._history[self._recall_at] if self._history and self._recall_at >= 0 else None
        if shown is not None and self.text() != shown:  # typed into: the user's text now
            self._recall_at = -1
            self.edit.recalling = False
        elif not self.text():
            self._recall_at = -1
            self.edit.recalling = False

    def _on_attach_button_clicked(self) -> None:
        self.add_files(self.pick_files())
        self.focus_input()

    def _files_from_dialog(self) -> list[str]:
        files, _filter = QFileDialog.getOpenFileNames(
            self,
            self.tr("Attach files"),
            "",
            self.tr("Text, code, PDFs and images")
            + " (*.pdf *.txt *.md *.py *.json *.csv *.log *.yaml *.yml *.toml *.html *.js "
            "*.ts *.c *.h *.cpp *.rs *.go *.java *.sh *.png *.jpg *.jpeg *.gif *.webp);;"
            + self.tr("All files")
            + " (*)",
        )
        return files

    def _on_button_clicked(self) -> None:
        if self._streaming:
            self.stop_requested.emit()
        else:
            self._on_edit_submit()

    def _update_button(self) -> None:
        if self._streaming:
            self.button.setText(self.tr("Stop"))
            self.button.setToolTip(self.tr("Stop the reply (Esc). Enter queues your message for after it."))
            self.button.setEnabled(True)
        else:
            self.button.setText(self.tr("Send"))
            self.button.setToolTip(self.tr("Send (Enter)"))
            self.button.setEnabled(bool(self.text().strip() or self.chips.paths))
