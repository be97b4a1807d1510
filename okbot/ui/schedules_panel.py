"""The Schedules window of a chat: its scheduled jobs (the rule in words, next and last run, on or paused), a line
to set one, and Run now / Remove.

Every read and change runs through ``ctx.tasks`` (:class:`okbot.core.schedules.store.ScheduleStore`); the list
follows the scheduler's runs and jobs set elsewhere (``okbot schedule add``, the assistant's own tool) through
the relay's ``changed``. Run now runs the job's turn in the background, shown in the chat like a scheduled run.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from okbot.app.scheduler import SchedulerEvents, run_now
from okbot.core.schedules import rules
from okbot.core.schedules.job import Job
from okbot.core.schedules.store import Loaded, ScheduleStore
from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP, translate
from okbot.ui.chat.colors import ChatColors

if TYPE_CHECKING:
    from okbot.ui.app_context import AppContext
    from okbot.ui.schedule_relay import ScheduleRelay

log = logging.getLogger("okbot.ui.schedules")

MESSAGE_COLUMN, RULE_COLUMN, NEXT_COLUMN, LAST_COLUMN = range(4)
JOB_ROLE = Qt.ItemDataRole.UserRole + 1
# (rule kind, its words in the picker, the value's placeholder; "" = no value)
KIND_CHOICES = (
    (
        "once",
        QT_TRANSLATE_NOOP("SchedulesDialog", "Once at"),
        QT_TRANSLATE_NOOP("SchedulesDialog", "+30m or 2026-12-05T08:30"),
    ),
    (
        "every",
        QT_TRANSLATE_NOOP("SchedulesDialog", "Every … minutes"),
        QT_TRANSLATE_NOOP("SchedulesDialog", "minutes, e.g. 30"),
    ),
    ("hourly", QT_TRANSLATE_NOOP("SchedulesDialog", "Hourly"), ""),
    (
        "daily",
        QT_TRANSLATE_NOOP("SchedulesDialog", "Daily at"),
        QT_TRANSLATE_NOOP("SchedulesDialog", "HH:MM, e.g. 08:30"),
    ),
    (
        "cron",
        QT_TRANSLATE_NOOP("SchedulesDialog", "Cron"),
        QT_TRANSLATE_NOOP("SchedulesDialog", "e.g. 0 9 * * mon-fri"),
    ),
)
RESULT_WORDS = {
    "complete": QT_TRANSLATE_NOOP("SchedulesDialog", "done"),
    "interrupted": QT_TRANSLATE_NOOP("SchedulesDialog", "stopped"),
    "error": QT_TRANSLATE_NOOP("SchedulesDialog", "failed"),
    "skipped": QT_TRANSLATE_NOOP("SchedulesDialog", "skipped: the chat was busy"),
}


def _tr(text: str) -> str:
    return translate("SchedulesDialog", text)


class SchedulesDialog(QDialog):
    """``target``'s scheduled jobs. ``store`` is for tests (their clock); ``relay`` the desktop's scheduler."""

    def __init__(
        self,
        ctx: AppContext,
        target: Target,
        relay: ScheduleRelay | None = None,
        parent: QWidget | None = None,
        *,
        store: ScheduleStore | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx, self.target, self.relay = ctx, target, relay
        self.store = store if store is not None else ScheduleStore()
        self.setObjectName("schedulesDialog")
        self.setWindowTitle(self.tr("Schedules — {name}").format(name=target.name))
        self.resize(760, 420)
        intro = QLabel(
            self.tr(
                "Messages OkBot sends to this chat at set times, while it runs (also in the tray). "
                "A time missed while OkBot was closed runs once when it starts."
            )
        )
        intro.setWordWrap(True)
        intro.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.view = QTreeWidget(self, objectName="scheduleList")
        self.view.setHeaderLabels([self.tr("Message"), self.tr("When"), self.tr("Next run"), self.tr("Last run")])
        self.view.setRootIsDecorated(False)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.view.header()
        header.setSectionResizeMode(MESSAGE_COLUMN, QHeaderView.ResizeMode.Stretch)
        for column in (RULE_COLUMN, NEXT_COLUMN, LAST_COLUMN):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.view.itemChanged.connect(self._on_view_item_changed)
        self.view.itemSelectionChanged.connect(self._update_buttons)
        self.empty = QLabel(self.tr("No scheduled jobs yet: set one below, or ask the assistant to."))
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.message_edit = QLineEdit(self, objectName="scheduleMessage")
        self.message_edit.setPlaceholderText(self.tr("The message to send"))
        self.kind_box = QComboBox(self, objectName="scheduleKind")
        for kind, words, _hint in KIND_CHOICES:
            self.kind_box.addItem(_tr(words), kind)
        self.value_edit = QLineEdit(self, objectName="scheduleValue")
        self.kind_box.currentIndexChanged.connect(self._on_kind_box_changed)
        self.add_button = QPushButton(self.tr("Add"), self, objectName="scheduleAdd")
        self.add_button.clicked.connect(self._on_add_clicked)
        self.message_edit.returnPressed.connect(self._on_add_clicked)
        self.value_edit.returnPressed.connect(self._on_add_clicked)
        self.status = QLabel(self, objectName="scheduleStatus")
        self.status.setWordWrap(True)
        self.run_button = QPushButton(self.tr("Run now"), self, objectName="scheduleRun")
        self.run_button.clicked.connect(self._on_run_clicked)
        self.remove_button = QPushButton(self.tr("Remove"), self, objectName="scheduleRemove")
        self.remove_button.clicked.connect(self._on_remove_clicked)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        buttons.addButton(self.run_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.remove_button, QDialogButtonBox.ButtonRole.ActionRole)
        when_row = QHBoxLayout()  # under the message: a narrow window still shows the whole time hint
        when_row.addWidget(self.kind_box)
        when_row.addWidget(self.value_edit, 1)
        when_row.addWidget(self.add_button)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.empty)
        layout.addWidget(self.message_edit)
        layout.addLayout(when_row)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self._filling = False
        self._on_kind_box_changed()
        self._update_buttons()
        if relay is not None:
            relay.changed.connect(self.reload)
        self.reload()

    # -- reading ---------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the jobs again (off the GUI thread) and show them."""
        self.ctx.tasks.run(lambda: self.store.load(self.target), self._show, self._show_error, owner=self)

    def jobs(self) -> list[Job]:
        """The jobs shown, in order."""
        return [
            self.view.topLevelItem(row).data(MESSAGE_COLUMN, JOB_ROLE) for row in range(self.view.topLevelItemCount())
        ]

    def _show(self, loaded: Loaded) -> None:
        selected = self._selected()
        self._filling = True
        self.view.clear()
        for job in loaded.jobs:
            row = QTreeWidgetItem(
                [
                    " ".join(job.text.split()),
                    rules.describe(job.rule),
                    rules.short_time(job.next_run) if job.next_run and job.enabled else self._paused_or_done(job),
                    self._last(job),
                ]
            )
            row.setData(MESSAGE_COLUMN, JOB_ROLE, job)
            row.setToolTip(MESSAGE_COLUMN, job.text)
            row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            row.setCheckState(MESSAGE_COLUMN, Qt.CheckState.Checked if job.enabled else Qt.CheckState.Unchecked)
            self.view.addTopLevelItem(row)
            if selected is not None and job.id == selected.id:
                row.setSelected(True)
        self._filling = False
        self.empty.setVisible(not loaded.jobs)
        if loaded.problem:
            self._show_error(loaded.problem)
        self._update_buttons()

    def _paused_or_done(self, job: Job) -> str:
        return self.tr("paused") if not job.enabled else "—"

    def _last(self, job: Job) -> str:
        if job.last_run is None:
            return self.tr("never")
        words = RESULT_WORDS.get(job.last_result)
        when = rules.short_time(job.last_run)
        return f"{when} · {_tr(words)}" if words else when

    # -- changing --------------------------------------------------------------------------
    def _on_kind_box_changed(self, *_args: Any) -> None:
        hint = KIND_CHOICES[self.kind_box.currentIndex()][2]
        self.value_edit.setEnabled(bool(hint))
        self.value_edit.setPlaceholderText(_tr(hint) if hint else "")

    def _on_add_clicked(self) -> None:
        text, kind, value = self.message_edit.text(), self.kind_box.currentData(), self.value_edit.text()

        def add() -> Job:
            return self.store.add(self.target, text, _rule(kind, value, self.store), created_by="user")

        def added(job: Job) -> None:
            self.message_edit.clear()
            self.value_edit.clear()
            self._say(
                self.tr("Set: {rule}, next run {when}.").format(
                    rule=rules.describe(job.rule), when=rules.short_time(job.next_run)
                )
            )
            self._changed()

        self.ctx.tasks.run(add, added, self._show_error, owner=self)

    def _on_remove_clicked(self) -> None:
        job = self._selected()
        if job is not None:
            self.ctx.tasks.run(
                lambda: self.store.remove(self.target, job.id), lambda _j: self._changed(), self._show_error, owner=self
            )

    def _on_run_clicked(self) -> None:
        job = self._selected()
        if job is None:
            return
        events = self.relay.events() if self.relay is not None else SchedulerEvents()
        app, store, target = self.ctx.app, self.store, self.target
        self._say(self.tr("Running “{text}” now; the reply shows in the chat.").format(text=job.text[:60]))
        self.ctx.tasks.run(  # the turn goes on if the window closes; only these callbacks are dropped then
            lambda: run_now(app, store, target, job, events), lambda _r: self.reload(), self._show_error, owner=self
        )

    def _on_view_item_changed(self, row: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != MESSAGE_COLUMN:
            return
        job: Job = row.data(MESSAGE_COLUMN, JOB_ROLE)
        enabled = row.checkState(MESSAGE_COLUMN) == Qt.CheckState.Checked
        if enabled != job.enabled:
            self.ctx.tasks.run(
                lambda: self.store.set_enabled(self.target, job.id, enabled),
                lambda _j: self._changed(),
                self._show_error,
                owner=self,
            )

    def _changed(self) -> None:
        if self.relay is not None:
            self.relay.wake()
        self.reload()

    # -- the rest --------------------------------------------------------------------------
    def _selected(self) -> Job | None:
        rows = self.view.selectedItems()
        return rows[0].data(MESSAGE_COLUMN, JOB_ROLE) if rows else None

    def _update_buttons(self) -> None:
        chosen = self._selected() is not None
        self.run_button.setEnabled(chosen)
        self.remove_button.setEnabled(chosen)

    def _say(self, text: str) -> None:
        self.status.setStyleSheet("")
        self.status.setText(text)

    def _show_error(self, exc: BaseException | str) -> None:
        self.status.setStyleSheet(f"color: {ChatColors.from_palette(self.palette()).error.name()};")
        self.status.setText(str(exc))


def _rule(kind: str, value: str, store: ScheduleStore) -> rules.Rule:
    if kind == "once":
        return rules.once(value, store.clock(), store.tz)
    if kind == "every":
        return rules.every(value)
    if kind == "daily":
        return rules.daily(value)
    if kind == "cron":
        return rules.cron(value)
    return rules.Rule("hourly")
