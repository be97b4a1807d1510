"""The Memories tab of the Assistant dialog: global and this assistant's memories in one table.

A :class:`MemoryTableModel` holds the entries of both stores (one row per entry, no widget per
entry); :class:`MemoryFilter` applies the search box and "Show retired". Every read and write of
a store runs through ``ctx.tasks`` (a store of 10,000 entries is a file of megabytes); results are
shown on the GUI thread. A reload that started before a write finished is dropped and redone, so
the table never shows an older state than the last write.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QModelIndex,
    QPoint,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from okbot.core.memory.store import MAX_ENTRY_CHARS, MemoryEntry, MemoryStore
from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP, plural
from okbot.storage import paths
from okbot.storage.errors import OkBotError
from okbot.ui.chat.colors import ChatColors
from okbot.ui.memory_model import (
    EXPIRES,
    HITS,
    PINNED,
    ROW_ROLE,
    SCOPE,
    STATUS,
    TEXT,
    MemoryFilter,
    MemoryRow,
    MemoryTableModel,
)
from okbot.ui.message_bar import MessageBar

if TYPE_CHECKING:
    from okbot.ui.app_context import AppContext

log = logging.getLogger("okbot.ui.memory_panel")

SEARCH_DEBOUNCE_MS = 150
EXPIRY_CHOICES = (
    (QT_TRANSLATE_NOOP("MemoryTextDialog", "Never"), None),
    (QT_TRANSLATE_NOOP("MemoryTextDialog", "In 1 day"), 1),
    (QT_TRANSLATE_NOOP("MemoryTextDialog", "In 1 week"), 7),
    (QT_TRANSLATE_NOOP("MemoryTextDialog", "In 30 days"), 30),
    (QT_TRANSLATE_NOOP("MemoryTextDialog", "In 1 year"), 365),
)


class MemoryTextDialog(QDialog):
    """Add a memory (text, scope, pinned, expiry) or edit one's text; emits ``submitted`` with the values."""

    submitted = Signal(dict)  # {"text", "scope": "own"|"global", "pinned", "expires_days"}

    def __init__(self, assistant_name: str, entry: MemoryEntry | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryTextDialog")
        self.setWindowTitle(self.tr("Edit memory") if entry else self.tr("Add memory"))
        self.setMinimumWidth(460)
        self.text_edit = QPlainTextEdit(entry.text if entry else "")
        self.text_edit.setPlaceholderText(self.tr("Something worth remembering, e.g. “Prefers metric units.”"))
        self.text_edit.setTabChangesFocus(True)
        self.text_edit.setMinimumHeight(90)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {ChatColors.from_palette(self.palette()).error.name()};")
        self.error.hide()
        form = QFormLayout()
        form.addRow(self.text_edit)
        self.scope_combo = QComboBox()
        self.pinned_check = QCheckBox(self.tr("Pinned (always recalled)"))
        self.expiry_combo = QComboBox()
        if entry is None:
            self.scope_combo.addItem(self.tr("{name} only").format(name=assistant_name), "own")
            self.scope_combo.addItem(self.tr("All assistants (global)"), "global")
            for label, days in EXPIRY_CHOICES:
                self.expiry_combo.addItem(QCoreApplication.translate("MemoryTextDialog", label), days)
            form.addRow(self.tr("Remember for"), self.scope_combo)
            form.addRow(self.tr("Forget"), self.expiry_combo)
            form.addRow("", self.pinned_check)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Save") if entry else self.tr("Add"))
        buttons.accepted.connect(self._on_buttons_accepted)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def values(self) -> dict:
        return {
            "text": self.text_edit.toPlainText().strip(),
            "scope": self.scope_combo.currentData() or "own",
            "pinned": self.pinned_check.isChecked(),
            "expires_days": self.expiry_combo.currentData(),
        }

    def _on_buttons_accepted(self) -> None:
        values = self.values()
        problem = ""
        if not values["text"]:
            problem = self.tr("Write the memory first.")
        elif len(values["text"]) > MAX_ENTRY_CHARS:
            problem = self.tr("A memory holds at most {limit} characters (this one has {n}).").format(
                limit=f"{MAX_ENTRY_CHARS:,}", n=f"{len(values['text']):,}"
            )
        if problem:
            self.error.setText(problem)
            self.error.show()
            return
        self.submitted.emit(values)
        self.accept()


class MemoryPanel(QWidget):
    """Lists global and this assistant's memories; search, add, edit, pin, promote, retire, delete with undo.

    Signals: ``loaded`` after a reload from disk is shown, ``written`` after an edit reached disk,
    ``failed(str)`` when an edit was refused (the message is also shown in the panel).
    """

    loaded = Signal()
    written = Signal()
    failed = Signal(str)

    def __init__(self, ctx: AppContext, target: Target, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryPanel")
        self.ctx, self.target = ctx, target
        self._global_dir, self._own_dir = paths.global_memory_dir(), target.memory_dir
        self._stores: tuple[MemoryStore, MemoryStore | None] | None = None  # built by the first job: it reads
        self._stores_lock = threading.Lock()
        self._generation = 0  # bumped by every finished write: older reloads are dropped
        self._loading = False
        self._reload_again = False
        self._writes = 0
        self._undo: list[MemoryRow] = []
        self.text_dialog: MemoryTextDialog | None = None  # the Add / Edit dialog last opened
        self.model = MemoryTableModel({"global": self.tr("Global"), target.id: target.name}, self)
        self.proxy = MemoryFilter(self)
        self.proxy.setSourceModel(self.model)
        self._build()
        self._apply_palette()
        self.refresh()

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.search = QLineEdit(objectName="memorySearch")
        self.search.setPlaceholderText(self.tr("Search memories"))
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self, singleShot=True, interval=SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self._on_search_timer_timeout)
        self.search.textChanged.connect(self._on_search_text_changed)
        self.show_retired = QCheckBox(self.tr("Show retired"))
        self.show_retired.toggled.connect(self._on_show_retired_toggled)
        self.count_label = QLabel(objectName="memoryCount")

        self.problems_bar = MessageBar("warning", object_name="memoryProblems")
        self.error_bar = MessageBar("error", object_name="memoryError")
        self.error_bar.add_button(self.tr("Dismiss"), self.error_bar.hide, name="dismiss")
        self.undo_bar = MessageBar("info", object_name="memoryUndo")
        self.undo_button = self.undo_bar.add_button(self.tr("Undo"), self._on_undo_clicked, name="undo")

        self.view = QTableView(objectName="memoryTable")
        self.view.setModel(self.proxy)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.setShowGrid(False)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        header = self.view.horizontalHeader()
        header.setHighlightSections(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(TEXT, QHeaderView.ResizeMode.Stretch)
        metrics = self.fontMetrics()
        for column, sample in (
            (SCOPE, self.tr("Global") + "   "),
            (STATUS, self.tr("Candidate") + " "),
            (PINNED, self.tr("Pinned")),
            (HITS, self.tr("Hits") + " 99"),
            (EXPIRES, self.tr("expired {day}").format(day="2026-12-31")),
        ):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 24)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._on_view_context_menu_requested)
        self.view.doubleClicked.connect(self._on_view_double_clicked)
        self.view.selectionModel().selectionChanged.connect(self._on_selection_changed)

        def action(text: str, slot: Callable[[], None], shortcut: QKeySequence | str | None = None) -> QAction:
            act = QAction(text, self)
            act.triggered.connect(slot)
            if shortcut is not None:
                act.setShortcut(QKeySequence(shortcut))
                act.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                self.addAction(act)
            return act

        self.add_action = action(self.tr("Add…"), self._on_add_triggered)
        self.edit_action = action(self.tr("Edit…"), self._on_edit_triggered, "F2")
        self.pin_action = action(self.tr("Pin"), self._on_pin_triggered)
        self.promote_action = action(self.tr("Promote"), self._on_promote_triggered)
        self.promote_action.setToolTip(self.tr("Make the candidate durable, so it can be recalled"))
        self.retire_action = action(self.tr("Retire"), self._on_retire_triggered)
        self.retire_action.setToolTip(self.tr("Stop recalling it; it stays on disk, marked retired"))
        self.delete_action = action(self.tr("Delete"), self._on_delete_triggered, QKeySequence.StandardKey.Delete)
        self.undo_action = action(self.tr("Undo delete"), self._on_undo_clicked, QKeySequence.StandardKey.Undo)
        self.buttons: dict[str, QPushButton] = {}
        bar = QHBoxLayout()
        bar.setSpacing(6)
        for name, act in (
            ("add", self.add_action),
            ("edit", self.edit_action),
            ("pin", self.pin_action),
            ("promote", self.promote_action),
            ("retire", self.retire_action),
            ("delete", self.delete_action),
        ):
            button = QPushButton(act.text())
            button.setAutoDefault(False)
            button.setToolTip(act.toolTip())
            button.clicked.connect(act.trigger)
            self.buttons[name] = button
            bar.addWidget(button)
        bar.addStretch(1)
        bar.addWidget(self.count_label)

        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.show_retired)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(6)
        layout.addLayout(top)
        layout.addWidget(self.problems_bar)
        layout.addWidget(self.error_bar)
        layout.addWidget(self.undo_bar)
        layout.addWidget(self.view, 1)
        layout.addLayout(bar)
        self._update_actions()

    def _apply_palette(self) -> None:
        colors = ChatColors.from_palette(self.palette())
        self.model.set_colors(colors)
        self.count_label.setStyleSheet(f"color: {colors.muted.name()};")

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "model"):
            self._apply_palette()
        super().changeEvent(event)

    # -- reading -----------------------------------------------------------------------------
    def watched_paths(self) -> list[Path]:
        """The memory folders this panel shows (for the dialog's FileWatcher)."""
        return [d for d in (self._global_dir, self._own_dir) if d is not None]

    def stores(self) -> tuple[MemoryStore, MemoryStore | None]:
        """(global store, this assistant's store or None for a squad). Constructing one reads its file:
        call this off the GUI thread (every job of this panel does) or after the first load."""
        with self._stores_lock:
            if self._stores is None:
                own = MemoryStore(self._own_dir, self.target.id) if self._own_dir is not None else None
                self._stores = (MemoryStore(self._global_dir, "global"), own)
            return self._stores

    @property
    def busy(self) -> bool:
        """True while a reload or a write is running."""
        return self._loading or self._writes > 0

    def refresh(self) -> None:
        """Reload both stores off the GUI thread (coalesced: one reload at a time, one more if asked meanwhile)."""
        if self._loading:
            self._reload_again = True
            return
        self._loading, self._reload_again = True, False
        generation = self._generation
        if not self.model.rowCount():
            self.count_label.setText(self.tr("Loading memories…"))

        def read() -> tuple[list[MemoryRow], list[str]]:
            rows, problems = [], []
            for store in self.stores():
                if store is None:
                    continue
                rows += [MemoryRow(store, e) for e in store.entries(include_retired=True)]
                where = (
                    self.tr("Global memories")
                    if store.scope == "global"
                    else self.tr("{name}'s memories").format(name=self.target.name)
                )
                problems += [
                    self.tr("{where}: {problem}").format(where=where, problem=problem) for problem in store.problems
                ]
            return rows, problems

        self.ctx.tasks.run(
            read, lambda result: self._on_read_done(generation, result), self._on_read_failed, owner=self
        )

    def on_disk_changed(self) -> None:
        """A memory folder changed on disk: reload."""
        self.refresh()

    def _on_read_done(self, generation: int, result: tuple[list[MemoryRow], list[str]]) -> None:
        self._loading = False
        if generation != self._generation or self._reload_again:
            self.refresh()  # a write finished meanwhile: this read may predate it
            return
        rows, problems = result
        selected = {r.key for r in self.selected_rows()}
        current = self.view.currentIndex()
        current_key = current.data(ROW_ROLE).key if current.isValid() else None
        self.model.set_rows(rows)
        self._reselect(selected, current_key)
        if problems:
            self.problems_bar.show_message("\n".join(problems))
        else:
            self.problems_bar.hide()
        self._update_count()
        self._update_actions()
        self.loaded.emit()

    def _on_read_failed(self, exc: BaseException) -> None:
        self._loading = False
        self._show_error(self.tr("Could not read the memories: {error}").format(error=exc))
        if self._reload_again:
            self.refresh()

    def _reselect(self, keys: set[tuple[str, str]], current_key: tuple[str, str] | None) -> None:
        selection = self.view.selectionModel()
        flags = selection.SelectionFlag.Select | selection.SelectionFlag.Rows
        for key in keys:
            row = self.model.row_of(key)
            if row is not None:
                index = self.proxy.mapFromSource(self.model.index(row, 0))
                if index.isValid():
                    selection.select(index, flags)
        if current_key is not None and (row := self.model.row_of(current_key)) is not None:
            index = self.proxy.mapFromSource(self.model.index(row, 0))
            if index.isValid():
                selection.setCurrentIndex(index, selection.SelectionFlag.NoUpdate)

    # -- selection -----------------------------------------------------------------------------
    def selected_rows(self) -> list[MemoryRow]:
        """The selected rows, in view order."""
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        return [self.proxy.index(r, 0).data(ROW_ROLE) for r in rows]

    def find_row(self, text: str) -> MemoryRow | None:
        """The first row whose entry text is exactly ``text`` (tests and scripting)."""
        return next((r for r in self.model.rows() if r.entry.text == text), None)

    def select_rows(self, rows: Sequence[MemoryRow]) -> None:
        """Select exactly ``rows`` (those currently shown)."""
        self.view.clearSelection()
        self._reselect({r.key for r in rows}, rows[0].key if rows else None)

    def _update_actions(self) -> None:
        rows = self.selected_rows()
        live = [r for r in rows if r.entry.status != "retired"]
        self.edit_action.setEnabled(len(rows) == 1)
        pin = not rows or not all(r.entry.pinned for r in rows)
        self.pin_action.setText(self.tr("Pin") if pin else self.tr("Unpin"))
        self.pin_action.setEnabled(bool(live) or (bool(rows) and not pin))
        self.promote_action.setEnabled(any(r.entry.status == "candidate" for r in rows))
        retire = not rows or any(r.entry.status != "retired" for r in rows)
        self.retire_action.setText(self.tr("Retire") if retire else self.tr("Reinstate"))
        self.retire_action.setToolTip(
            self.tr("Stop recalling it; it stays on disk, marked retired")
            if retire
            else self.tr("Back to durable, so it can be recalled again")
        )
        self.retire_action.setEnabled(bool(rows))
        self.delete_action.setEnabled(bool(rows))
        self.undo_action.setEnabled(bool(self._undo))
        for name, act in (
            ("edit", self.edit_action),
            ("pin", self.pin_action),
            ("promote", self.promote_action),
            ("retire", self.retire_action),
            ("delete", self.delete_action),
        ):
            self.buttons[name].setText(act.text())
            self.buttons[name].setToolTip(act.toolTip())
            self.buttons[name].setEnabled(act.isEnabled())

    def _update_count(self) -> None:
        total, shown = self.model.rowCount(), self.proxy.rowCount()
        numbers = {"total": f"{total:,}", "shown": f"{shown:,}"}
        if shown == total:
            text = plural(total, self.tr("{total} memory"), self.tr("{total} memories"))
        else:
            text = plural(
                total, self.tr("{shown} of {total} memory shown"), self.tr("{shown} of {total} memories shown")
            )
        self.count_label.setText(text.format(**numbers))

    # -- writing -------------------------------------------------------------------------------
    def _write(self, job: Callable[[], list[MemoryRow]], done: Callable[[list[MemoryRow]], None] | None = None) -> None:
        """Run ``job`` (store writes) off the GUI thread; show its rows, then reload."""
        self._writes += 1
        self.error_bar.hide()

        def on_done(rows: list[MemoryRow]) -> None:
            self._writes -= 1
            self._generation += 1
            for row in rows:
                self.model.replace(row)
            if done is not None:
                done(rows)
            self._update_count()
            self._update_actions()
            self.written.emit()
            self.refresh()

        def on_error(exc: BaseException) -> None:
            self._writes -= 1
            self._generation += 1
            self._show_error(
                str(exc)
                if isinstance(exc, OkBotError)
                else self.tr("Could not change the memory: {error}").format(error=exc)
            )
            if not isinstance(exc, OkBotError):
                log.error("memory write failed", exc_info=exc)
            self.refresh()

        self.ctx.tasks.run(job, on_done, on_error, owner=self)

    def _show_error(self, message: str) -> None:
        self.error_bar.show_message(message)
        self.failed.emit(message)

    def _update_rows(self, rows: Sequence[MemoryRow], **changes: Any) -> None:
        targets = list(rows)
        self._write(lambda: [MemoryRow(r.store, r.store.update(r.entry.id, **changes)) for r in targets])

    def add_entry(
        self,
        text: str,
        *,
        scope: str = "own",
        pinned: bool = False,
        status: str = "durable",
        expires: str | None = None,
    ) -> None:
        """Add a memory to this assistant's store (``scope="own"``) or the global one; written in the background."""

        def add() -> list[MemoryRow]:
            global_store, own_store = self.stores()
            store = global_store if scope == "global" or own_store is None else own_store
            return [MemoryRow(store, store.add(text, status=status, pinned=pinned, expires=expires))]

        self._write(add, lambda rows: self._select_after(rows))

    def edit_text(self, row: MemoryRow, text: str) -> None:
        """Replace an entry's text."""
        self._update_rows([row], text=text)

    def set_pinned(self, rows: Sequence[MemoryRow], pinned: bool) -> None:
        self._update_rows(rows, pinned=pinned)

    def promote(self, rows: Sequence[MemoryRow]) -> None:
        """Candidates become durable (others are left as they are)."""
        self._update_rows([r for r in rows if r.entry.status == "candidate"], status="durable")

    def retire(self, rows: Sequence[MemoryRow]) -> None:
        self._update_rows(
            [r for r in rows if r.entry.status != "retired"], status="retired", note="retired by the user"
        )

    def reinstate(self, rows: Sequence[MemoryRow]) -> None:
        self._update_rows([r for r in rows if r.entry.status == "retired"], status="durable", note="")

    def delete(self, rows: Sequence[MemoryRow]) -> None:
        """Delete entries; the Undo bar (or Ctrl+Z) puts them back with the same ids."""
        targets = list(rows)

        def delete() -> list[MemoryRow]:
            return [MemoryRow(r.store, r.store.delete(r.entry.id)) for r in targets]

        def done(deleted: list[MemoryRow]) -> None:
            for row in deleted:
                self.model.remove(row.key)
            self._undo = deleted
            first = " ".join(deleted[0].entry.text.split()) if deleted else ""
            if len(deleted) == 1:
                text = self.tr("Deleted “{text}”.").format(text=first[:60] + ("…" if len(first) > 60 else ""))
            else:
                text = plural(len(deleted), self.tr("Deleted {n} memory."), self.tr("Deleted {n} memories.")).format(
                    n=len(deleted)
                )
            self.undo_bar.show_message(text)

        self._write(lambda: [] if not targets else delete(), done)

    def undo_delete(self) -> None:
        """Put back the entries of the last delete."""
        rows, self._undo = self._undo, []
        self.undo_bar.hide()
        if not rows:
            return

        def restore() -> list[MemoryRow]:
            for row in rows:
                row.store.restore(row.entry)
            return rows

        self._write(restore, self._select_after)

    def _select_after(self, rows: list[MemoryRow]) -> None:
        self.select_rows(rows)
        if rows and (row := self.model.row_of(rows[0].key)) is not None:
            self.view.scrollTo(self.proxy.mapFromSource(self.model.index(row, 0)))

    # -- slots ---------------------------------------------------------------------------------
    def _on_search_text_changed(self, _text: str) -> None:
        self._search_timer.start()

    def _on_search_timer_timeout(self) -> None:
        self.apply_search()

    def apply_search(self) -> None:
        """Filter by the search box now (typing applies it after a short pause)."""
        self._search_timer.stop()
        self.proxy.set_search(self.search.text())
        self._update_count()

    def _on_show_retired_toggled(self, checked: bool) -> None:
        self.proxy.set_show_retired(checked)
        self._update_count()

    def _on_selection_changed(self, *_args: Any) -> None:
        self._update_actions()

    def _on_view_double_clicked(self, _index: QModelIndex) -> None:
        self._on_edit_triggered()

    def _on_view_context_menu_requested(self, pos: QPoint) -> None:
        menu = QMenu(self)
        menu.addAction(self.add_action)
        if self.selected_rows():
            menu.addAction(self.edit_action)
            menu.addSeparator()
            for act in (self.pin_action, self.promote_action, self.retire_action):
                menu.addAction(act)
            menu.addSeparator()
            menu.addAction(self.delete_action)
        if self._undo:
            menu.addAction(self.undo_action)
        menu.popup(self.view.viewport().mapToGlobal(pos))

    def _on_add_triggered(self) -> None:
        dialog = MemoryTextDialog(self.target.name, parent=self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.submitted.connect(self._on_add_dialog_submitted)
        self.text_dialog = dialog
        dialog.open()

    def _on_add_dialog_submitted(self, values: dict) -> None:
        expires = None
        if values.get("expires_days"):
            expires = (
                (datetime.now(timezone.utc) + timedelta(days=values["expires_days"])).replace(microsecond=0).isoformat()
            )
        self.add_entry(values["text"], scope=values["scope"], pinned=values["pinned"], expires=expires)

    def _on_edit_triggered(self) -> None:
        rows = self.selected_rows()
        if len(rows) != 1:
            return
        row = rows[0]
        dialog = MemoryTextDialog(self.target.name, row.entry, parent=self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.submitted.connect(lambda values: self.edit_text(row, values["text"]))
        self.text_dialog = dialog
        dialog.open()

    def _on_pin_triggered(self) -> None:
        rows = self.selected_rows()
        self.set_pinned(rows, not all(r.entry.pinned for r in rows))

    def _on_promote_triggered(self) -> None:
        self.promote(self.selected_rows())

    def _on_retire_triggered(self) -> None:
        rows = self.selected_rows()
        if any(r.entry.status != "retired" for r in rows):
            self.retire(rows)
        else:
            self.reinstate(rows)

    def _on_delete_triggered(self) -> None:
        self.delete(self.selected_rows())

    def _on_undo_clicked(self) -> None:
        self.undo_delete()
