"""The SOUL.md tab of the Assistant dialog: a plain-text editor that never silently overwrites an outside edit.

The editor remembers the bytes it last read or wrote (``disk_bytes``). When the file changes on
disk (the dialog's FileWatcher calls :meth:`SoulEditor.on_disk_changed`) and there are no unsaved
edits, it reloads; with unsaved edits a bar offers *Reload* (take the file on disk) or *Keep mine*
(the next Save replaces it). Save re-checks the disk first, so an edit made after the last event
still shows the bar instead of being overwritten. Saving is atomic and keeps ``SOUL.md.bak``.

A SOUL.md that cannot be read, or is not valid UTF-8, is shown as a problem with the editor
disabled; *Start over* first copies the file to ``SOUL.md.broken-<UTC stamp>`` (so nothing is
lost), then opens what could be decoded for editing.

:class:`MessageBar` (a palette-coloured notice with buttons) lives here too; the Memories and
Skills panels use it.
"""

from __future__ import annotations

import logging
import os
from datetime import datetime, timezone
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.storage.atomic import atomic_write_bytes
from okbot.ui.message_bar import MessageBar

log = logging.getLogger("okbot.ui.soul_editor")

PLACEHOLDER = QT_TRANSLATE_NOOP("SoulEditor", "Who is this assistant? Its persona, tone and standing instructions.")


def _stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


class SoulEditor(QWidget):
    """Edit one assistant's SOUL.md (``path`` ``None``: a squad, which has no persona file).

    Emits ``saved`` after a successful save and ``modified_changed(bool)`` when unsaved edits
    appear or go away.
    """

    saved = Signal()
    modified_changed = Signal(bool)

    def __init__(self, path: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("soulEditor")
        self.path = path
        self.disk_bytes: bytes | None = None  # what the editor last read or wrote (None: file missing)
        self._broken = False  # the file could not be read/decoded and the user has not started over
        self._recovered_text = ""
        self._build()
        self.load()

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.problem_bar = MessageBar("error", object_name="soulProblemBar")
        self.start_over_button = self.problem_bar.add_button(
            self.tr("Start over…"), self._on_start_over_clicked, name="start_over"
        )
        self.start_over_button.setToolTip(self.tr("Keep a copy of the current file, then edit what could be read"))
        self.changed_bar = MessageBar("warning", object_name="soulChangedBar")
        self.reload_button = self.changed_bar.add_button(self.tr("Reload"), self._on_reload_clicked, name="reload")
        self.reload_button.setToolTip(self.tr("Discard your edits and show the file as it is on disk"))
        self.keep_button = self.changed_bar.add_button(self.tr("Keep mine"), self._on_keep_mine_clicked, name="keep")
        self.keep_button.setToolTip(self.tr("Keep editing; the next Save replaces the file on disk"))
        self.info_bar = MessageBar("info", object_name="soulInfoBar")

        self.editor = QPlainTextEdit(objectName="soulText")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.editor.setFont(font)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.editor.setTabChangesFocus(False)
        self.editor.document().setDocumentMargin(8)
        self.editor.modificationChanged.connect(self._on_editor_modification_changed)

        self.path_label = QLabel(objectName="soulPath")
        self.path_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status = QLabel(objectName="soulStatus")
        self.revert_button = QPushButton(self.tr("Revert"))
        self.revert_button.setToolTip(self.tr("Discard unsaved edits (show the file on disk)"))
        self.revert_button.setAutoDefault(False)
        self.revert_button.clicked.connect(self._on_revert_clicked)
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setToolTip(self.tr("Save SOUL.md (Ctrl+S)"))
        self.save_button.setAutoDefault(False)
        self.save_button.clicked.connect(self._on_save_clicked)
        shortcut = QShortcut(QKeySequence.StandardKey.Save, self)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self._on_save_clicked)

        footer = QHBoxLayout()
        footer.addWidget(self.path_label, 1)
        footer.addWidget(self.status)
        footer.addWidget(self.revert_button)
        footer.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.problem_bar)
        layout.addWidget(self.changed_bar)
        layout.addWidget(self.info_bar)
        layout.addWidget(self.editor, 1)
        layout.addLayout(footer)
        if self.path is None:
            self.path_label.setText(self.tr("Squads have no SOUL.md; each member has its own."))
        else:
            self.path_label.setText(str(self.path))
            self.path_label.setToolTip(str(self.path))

    # -- state -----------------------------------------------------------------------------
    @property
    def modified(self) -> bool:
        """True while the editor holds edits that are not on disk."""
        return self.editor.document().isModified()

    @property
    def text(self) -> str:
        return self.editor.toPlainText()

    @property
    def broken(self) -> bool:
        """True while the file on disk cannot be edited (unreadable or not UTF-8) and the user has not started over."""
        return self._broken

    def _read_disk(self) -> tuple[bytes | None, str | None]:
        """``(bytes or None when missing, problem)``; never raises."""
        assert self.path is not None
        try:
            return self.path.read_bytes(), None
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            return None, self.tr("SOUL.md cannot be read ({error}): {path}").format(
                error=exc.strerror or exc.__class__.__name__, path=self.path
            )

    def load(self) -> None:
        """(Re)read the file and show it, discarding unsaved edits."""
        self.changed_bar.hide()
        self.info_bar.hide()
        if self.path is None:
            self._set_editor_text("", enabled=False)
            self._update_buttons()
            return
        data, problem = self._read_disk()
        text = ""
        if problem is None and data is not None:
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                self._recovered_text = data.decode("utf-8-sig", errors="replace")
                problem = self.tr(
                    "SOUL.md is not valid UTF-8 (first bad byte at offset {offset}), so it is not "
                    "opened for editing. Start over to keep a copy of it and edit what could be read."
                ).format(offset=exc.start)
            else:
                if "\x00" in text:
                    self._recovered_text = text.replace("\x00", "")
                    problem = self.tr("SOUL.md contains NUL bytes, so it is not opened for editing.")
        elif problem is not None:
            self._recovered_text = ""
            problem += "\n" + self.tr("Start over to write a new SOUL.md (the old file, if any, is kept as a copy).")
        self.disk_bytes = data
        self._broken = problem is not None
        if problem is not None:
            self.problem_bar.show_message(problem)
            self._set_editor_text("", enabled=False)
        else:
            self.problem_bar.hide()
            self._set_editor_text(text, enabled=True)
        self.status.setText("" if data is not None or problem else self.tr("Not created yet"))
        self._update_buttons()

    def _set_editor_text(self, text: str, *, enabled: bool) -> None:
        bar = self.editor.verticalScrollBar()
        position = bar.value()
        cursor = self.editor.textCursor().position()
        self.editor.setPlainText(text)
        self.editor.document().setModified(False)
        self.editor.setEnabled(enabled)
        self.editor.setReadOnly(not enabled)
        self.editor.setPlaceholderText(self.tr(PLACEHOLDER) if enabled else "")
        cursor_after = self.editor.textCursor()
        cursor_after.setPosition(min(cursor, len(text)))
        self.editor.setTextCursor(cursor_after)
        bar.setValue(min(position, bar.maximum()))

    def _update_buttons(self) -> None:
        editable = self.path is not None and not self._broken
        self.save_button.setEnabled(editable and (self.modified or self.disk_bytes is None))
        self.revert_button.setEnabled(editable and self.modified)

    # -- outside changes -------------------------------------------------------------------
    def on_disk_changed(self) -> None:
        """The file may have changed on disk: reload it, or offer Reload / Keep mine when there are edits."""
        if self.path is None:
            return
        data, problem = self._read_disk()
        if problem is None and data == self.disk_bytes:
            return  # our own save, or a touch without a change
        if self._broken or not self.modified:
            self.load()
            return
        self.changed_bar.show_message(
            self.tr("SOUL.md was deleted while you were editing it.")
            if data is None and problem is None
            else self.tr("SOUL.md changed on disk while you were editing it.")
        )

    # -- saving ------------------------------------------------------------------------------
    def save(self) -> bool:
        """Write the editor's text (atomic, with SOUL.md.bak); ``False`` when nothing was written."""
        if self.path is None or self._broken:
            return False
        data, problem = self._read_disk()
        if problem is None and data != self.disk_bytes:
            # the file changed since we read it (or since "Keep mine") and the user has not decided yet
            self.changed_bar.show_message(
                self.tr("SOUL.md changed on disk since you opened it; saving would replace it.")
            )
            return False
        try:
            payload = self.text.encode("utf-8")
            atomic_write_bytes(self.path, payload, backup=True)
        except OSError as exc:
            self.info_bar.show_message(
                self.tr("Could not save SOUL.md: {error}").format(error=exc.strerror or exc), "error"
            )
            return False
        self.disk_bytes = payload
        self.changed_bar.hide()
        self.info_bar.hide()
        self.editor.document().setModified(False)
        self.status.setText(self.tr("Saved {time}").format(time=datetime.now().strftime("%H:%M")))
        self._update_buttons()
        self.saved.emit()
        return True

    def revert(self) -> None:
        """Throw away unsaved edits and show the file on disk."""
        self.load()

    def start_over(self) -> Path | None:
        """Copy the unusable file aside (``SOUL.md.broken-<stamp>``) and open what could be read; returns the copy."""
        if self.path is None or not self._broken:
            return None
        copy: Path | None = None
        if self.path.exists():
            copy = self.path.with_name(f"{self.path.name}.broken-{_stamp()}")
            try:
                os.link(self.path, copy)
            except OSError:
                try:
                    atomic_write_bytes(copy, self.path.read_bytes())
                except OSError as exc:
                    self.problem_bar.show_message(
                        self.tr("Could not keep a copy of SOUL.md ({error}); nothing was changed.").format(
                            error=exc.strerror or exc
                        )
                    )
                    return None
        self._broken = False
        self.problem_bar.hide()
        self._set_editor_text(self._recovered_text, enabled=True)
        self.editor.document().setModified(True)
        text = self.tr("Editing what could be read; Save writes a new SOUL.md.")
        if copy:
            text += " " + self.tr("The old file is kept as {name}.").format(name=copy.name)
        self.info_bar.show_message(text, "info")
        self._update_buttons()
        return copy

    # -- slots -------------------------------------------------------------------------------
    def _on_save_clicked(self) -> None:
        self.save()

    def _on_revert_clicked(self) -> None:
        self.revert()

    def _on_reload_clicked(self) -> None:
        self.load()

    def _on_keep_mine_clicked(self) -> None:
        data, problem = self._read_disk()
        if problem is None:
            self.disk_bytes = data  # the outside version is acknowledged: Save may replace it
        self.changed_bar.hide()
        self.editor.document().setModified(True)
        self._update_buttons()

    def _on_start_over_clicked(self) -> None:
        self.start_over()

    def _on_editor_modification_changed(self, modified: bool) -> None:
        self._update_buttons()
        self.modified_changed.emit(modified)
