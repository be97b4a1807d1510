"""The Evolution tab of the Assistant dialog: what upkeep changed in the persona and skills, and what it will change.

Shows the assistant's own switch ("Learn from the conversation", ``"evolution"`` in assistant.json),
the changes waiting for the next summary update (with Apply now) and the applied changes, newest
first, each with the user's words it came from, its diff and an Undo button. Everything is read and
written through :class:`~okbot.core.evolution.store.Evolution` and
:meth:`~okbot.core.workspace.Workspace.set_meta` in ``ctx.tasks`` jobs; the dialog's FileWatcher calls
:meth:`EvolutionPanel.on_disk_changed` when the log, the staged changes or assistant.json change.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette, QSyntaxHighlighter, QTextCharFormat
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from okbot.core.evolution.store import LOG_FILE, PENDING_FILE, LogEntry, Pending, summary_of
from okbot.core.kind import Kind
from okbot.core.workspace import Target
from okbot.i18n import plural
from okbot.storage.errors import OkBotError
from okbot.ui.chat.colors import ChatColors, blend
from okbot.ui.message_bar import MessageBar

if TYPE_CHECKING:
    from okbot.ui.app_context import AppContext

log = logging.getLogger("okbot.ui.evolution_panel")

WHEN, KIND, CHANGE, SOURCE, ACTION = range(5)
MAX_ROWS = 300  # newest applied changes listed (each row has its own button)
STAGED_LINE_CHARS = 110
REFUSED_SHOWN = 5  # newest refused proposals listed (the log keeps every one)
_ADDED = QColor(22, 163, 74)  # green; mixed with the palette's text so it reads on any base


@dataclass(frozen=True)
class Snapshot:
    """What the tab shows, read in one job: the assistant as on disk, its log and staged changes, the setting."""

    target: Target
    entries: list[LogEntry]
    pending: Pending
    globally_on: bool
    refused: list[dict[str, Any]] = field(default_factory=list)  # the log's refusal records, oldest first


class DiffHighlighter(QSyntaxHighlighter):
    """Colours a unified diff: added lines green, removed lines red, hunk headers muted."""

    def __init__(self, editor: QPlainTextEdit) -> None:
        super().__init__(editor.document())
        self.formats: dict[str, QTextCharFormat] = {}
        self.set_palette(editor.palette())

    def set_palette(self, palette: QPalette) -> None:
        colors = ChatColors.from_palette(palette)
        for mark, colour in (("+", blend(_ADDED, colors.text, 0.2)), ("-", colors.error), ("@", colors.muted)):
            fmt = QTextCharFormat()
            fmt.setForeground(colour)
            self.formats[mark] = fmt
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        if text.startswith(("+++", "---")):
            self.setFormat(0, len(text), self.formats["@"])
        elif text[:1] in self.formats:
            self.setFormat(0, len(text), self.formats[text[:1]])


class EvolutionPanel(QWidget):
    """One assistant's evolution: its switch, staged changes (Apply now) and applied ones (Undo, diff).

    Signals: ``loaded`` after a read from disk is shown; ``undone(LogEntry)`` and ``landed(list)`` after
    an Undo or Apply now reached disk; ``switched(Target)`` after the switch was written (the target
    as re-read, for whoever holds an older copy); ``failed(str)`` when an action was refused (the
    message is also shown in the panel).
    """

    loaded = Signal()
    undone = Signal(object)
    landed = Signal(list)
    switched = Signal(object)
    failed = Signal(str)

    def __init__(self, ctx: AppContext, target: Target, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("evolutionPanel")
        self.ctx, self.target = ctx, target
        self.snapshot: Snapshot | None = None
        self.undo_buttons: dict[int, QPushButton] = {}  # by entry id; an undone change's is disabled for good
        self._undoable: set[int] = set()
        self._loading = False
        self._reload_again = False
        self._writes = 0
        self._build()
        self.refresh()

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        name = self.target.name
        self.switch = QCheckBox(self.tr("Learn from the conversation"), objectName="evolutionSwitch")
        self.switch.setToolTip(
            self.tr("Off: {name}'s persona and skills change only when you edit them").format(name=name)
        )
        self.switch.toggled.connect(self._on_switch_toggled)
        self.hint = QLabel(
            self.tr(
                "{name} keeps its persona (SOUL.md) and skills up with the lasting rules and procedures you "
                "teach it. Every change cites your words and can be undone here."
            ).format(name=name),
            objectName="evolutionHint",
        )
        self.hint.setWordWrap(True)
        self.hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.global_bar = MessageBar("info", object_name="evolutionGlobalOff")
        self.message_bar = MessageBar("error", object_name="evolutionMessage")
        self.message_bar.add_button(self.tr("Dismiss"), self.message_bar.hide, name="dismiss")
        self.staged_bar = MessageBar("info", object_name="evolutionStaged")
        self.apply_button = self.staged_bar.add_button(self.tr("Apply now"), self._on_apply_clicked, name="apply")
        self.apply_button.setToolTip(self.tr("Write the waiting changes now instead of at the next summary update"))
        self.refused_bar = MessageBar("warning", object_name="evolutionRefused")

        self.tree = QTreeWidget(objectName="evolutionList")
        self.tree.setColumnCount(5)
        self.tree.setHeaderLabels([self.tr("When"), self.tr("Kind"), self.tr("Change"), self.tr("From your words"), ""])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.setWordWrap(False)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(CHANGE, QHeaderView.ResizeMode.Stretch)
        metrics = self.fontMetrics()
        for column, sample in (
            (WHEN, "2026-12-31 23:59"),
            (KIND, self.tr("Persona")),
            (SOURCE, "m" * 14),
            (ACTION, self.tr("undone {day}").format(day="2026-12-31")),
        ):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 28)
        self.tree.itemSelectionChanged.connect(self._on_tree_selection_changed)
        self._row_height = max(metrics.height() + 12, QPushButton(self.tr("Undo")).sizeHint().height() + 4)
        self.empty_label = QLabel(objectName="evolutionEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty_label.hide()
        self.count_label = QLabel(objectName="evolutionCount")
        self.count_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        self.source_label = QLabel(objectName="evolutionSource")
        self.source_label.setWordWrap(True)
        self.source_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.diff = QPlainTextEdit(objectName="evolutionDiff")
        self.diff.setReadOnly(True)
        self.diff.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.diff.setFont(font)
        self.diff.setPlaceholderText(self.tr("Select a change to see what it changed."))
        self.highlighter = DiffHighlighter(self.diff)
        details = QWidget()
        details_layout = QVBoxLayout(details)
        details_layout.setContentsMargins(0, 4, 0, 0)
        details_layout.setSpacing(4)
        details_layout.addWidget(self.source_label)
        details_layout.addWidget(self.diff, 1)

        self.splitter = QSplitter(Qt.Orientation.Vertical, objectName="evolutionSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(details)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)

        heading = QHBoxLayout()
        title = QLabel(self.tr("Applied changes"))
        bold = QFont(title.font())
        bold.setBold(True)
        title.setFont(bold)
        heading.addWidget(title)
        heading.addStretch(1)
        heading.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self.switch)
        layout.addWidget(self.hint)
        layout.addWidget(self.global_bar)
        layout.addWidget(self.message_bar)
        layout.addWidget(self.staged_bar)
        layout.addWidget(self.refused_bar)
        layout.addSpacing(4)
        layout.addLayout(heading)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.empty_label, 1)

    # -- reading -----------------------------------------------------------------------------
    def watched_paths(self) -> list[Path]:
        """The log, the staged changes and assistant.json (for the dialog's FileWatcher)."""
        return [self.target.dir / LOG_FILE, self.target.dir / PENDING_FILE, self.target.meta_path]

    @property
    def busy(self) -> bool:
        """True while a read or a write runs."""
        return self._loading or self._writes > 0

    def entries(self) -> list[LogEntry]:
        """The applied changes listed, newest first."""
        return [
            self.tree.topLevelItem(i).data(WHEN, Qt.ItemDataRole.UserRole) for i in range(self.tree.topLevelItemCount())
        ]

    def refresh(self) -> None:
        """Re-read the log, the staged changes and the switch off the GUI thread (coalesced)."""
        if self._loading:
            self._reload_again = True
            return
        self._loading, self._reload_again = True, False
        ctx, directory = self.ctx, self.target.dir

        def read() -> Snapshot:
            target, _problem = ctx.workspace.load(Kind.ASSISTANT, directory)
            evolution = ctx.sources.evolution
            return Snapshot(
                target,
                evolution.entries(target),
                evolution.pending(target),
                bool(ctx.settings.get("evolution.enabled")),
                evolution.refusals(target),
            )

        ctx.tasks.run(read, self._on_read_done, self._on_read_failed, owner=self)

    def on_disk_changed(self) -> None:
        """The log, the staged changes or assistant.json changed on disk: reload."""
        self.refresh()

    def _on_read_done(self, snapshot: Snapshot) -> None:
        self._loading = False
        if self._reload_again:
            self.refresh()
            return
        self.snapshot, self.target = snapshot, snapshot.target
        self._show(snapshot)
        self.loaded.emit()

    def _on_read_failed(self, exc: BaseException) -> None:
        self._loading = False
        log.error("reading the evolution of %s failed", self.target.name, exc_info=exc)
        self.message_bar.show_message(
            self.tr("Could not read what {name} learnt: {error}").format(name=self.target.name, error=exc), "error"
        )
        if self._reload_again:
            self.refresh()

    # -- showing -------------------------------------------------------------------------------
    def _show(self, snapshot: Snapshot) -> None:
        target = snapshot.target
        self.switch.blockSignals(True)
        self.switch.setChecked(target.meta.get("evolution") is not False)
        self.switch.blockSignals(False)
        self.switch.setEnabled(not target.read_only and bool(target.meta) and self._writes == 0)
        if target.read_only:
            self.switch.setToolTip(target.read_only)
        if snapshot.globally_on:
            self.global_bar.hide()
        else:
            self.global_bar.show_message(
                self.tr(
                    "Learning is off for every assistant (Settings → Advanced → Evolution): nothing new is learnt. "
                    "The changes below can still be undone."
                )
            )
        self._show_staged(snapshot.pending)
        self._show_refused(snapshot.refused)
        self._show_entries(list(reversed(snapshot.entries)))
        self.empty_label.setText(
            self.tr("Nothing has changed yet: the waiting changes above are written at the next summary update.")
            if not snapshot.pending.empty
            else self.tr(
                "Nothing learnt yet. When you set a lasting rule (“from now on, …”) or teach a procedure "
                "(“when I say ship it: 1) …”), {name} updates its persona or skills and the change "
                "is listed here."
            ).format(name=target.name)
        )

    def _show_refused(self, refused: list[dict[str, Any]]) -> None:
        """What OkBot's checks refused of what the model proposed, and why (newest first)."""
        if not refused:
            self.refused_bar.hide()
            return
        n = len(refused)
        head = plural(
            n,
            self.tr("OkBot's checks refused {n} proposed change (newest first):"),
            self.tr("OkBot's checks refused {n} proposed changes (newest first):"),
        ).format(n=n)
        lines = [head]
        for record in reversed(refused[-REFUSED_SHOWN:]):
            what, why = str(record.get("what") or "?"), str(record.get("reason") or record.get("check") or "")
            lines.append(f"• {_elided(what, STAGED_LINE_CHARS // 2)} — {_elided(why, STAGED_LINE_CHARS)}")
        self.refused_bar.show_message("\n".join(lines))
        self.refused_bar.label.setToolTip(
            "\n".join(f"{r.get('what')}\n    {r.get('check')}: {r.get('reason')}" for r in reversed(refused))
        )

    def _show_staged(self, pending: Pending) -> None:
        staged = [(summary_of(change), why) for change, why in [*pending.persona, *pending.skills]]
        if not staged:
            self.staged_bar.hide()
            return
        n = len(staged)
        waiting = plural(
            n,
            self.tr("{n} change waiting for the next summary update:"),
            self.tr("{n} changes waiting for the next summary update:"),
        )
        lines = [waiting.format(n=n)]
        lines += [f"• {_elided(summary, STAGED_LINE_CHARS)}" for summary, _why in staged]
        self.staged_bar.show_message("\n".join(lines))
        self.staged_bar.label.setToolTip("\n".join(f"{summary}\n    “{why}”" for summary, why in staged))
        self.apply_button.setEnabled(self._writes == 0)

    def _show_entries(self, entries: list[LogEntry]) -> None:
        current = self.selected_entry()
        keep = current.id if current is not None else None
        colors = ChatColors.from_palette(self.palette())
        self.tree.clear()
        self.undo_buttons.clear()
        self._undoable = {e.id for e in entries if not e.undone}
        for entry in entries[:MAX_ROWS]:
            item = QTreeWidgetItem(
                [
                    _when(entry.at),
                    self.tr("Persona") if entry.kind == "persona" else self.tr("Skill"),
                    entry.summary,
                    _source(entry),
                    "",
                ]
            )
            item.setData(WHEN, Qt.ItemDataRole.UserRole, entry)
            item.setSizeHint(WHEN, QSize(0, self._row_height))
            item.setToolTip(CHANGE, entry.summary)
            item.setToolTip(SOURCE, f"“{entry.why}”" if entry.why else "")
            for column in (WHEN, KIND, SOURCE):
                item.setForeground(column, colors.muted)
            if entry.undone:
                item.setForeground(CHANGE, colors.muted)
            self.tree.addTopLevelItem(item)
            self.tree.setItemWidget(item, ACTION, self._undo_button(entry))
            if entry.id == keep:
                self.tree.setCurrentItem(item)
        empty = not entries
        self.splitter.setVisible(not empty)
        self.empty_label.setVisible(empty)
        n = len(entries)
        more = self.tr(" (the newest {n} listed)").format(n=MAX_ROWS) if n > MAX_ROWS else ""
        count = plural(n, self.tr("{n} change"), self.tr("{n} changes")).format(n=n)
        self.count_label.setText("" if empty else count + more)
        self._show_details()

    def _undo_button(self, entry: LogEntry) -> QPushButton:
        button = QPushButton(
            self.tr("undone {day}").format(day=_day(entry.undone)) if entry.undone else self.tr("Undo")
        )
        button.setObjectName("evolutionUndo")
        button.setAutoDefault(False)
        button.setEnabled(not entry.undone and self._writes == 0)
        button.setToolTip("" if entry.undone else self.tr("Put back what was there before this change"))
        button.clicked.connect(lambda _checked=False, i=entry.id: self.undo(i))
        self.undo_buttons[entry.id] = button
        return button

    def _show_details(self) -> None:
        entry = self.selected_entry()
        if entry is None:
            self.source_label.setText("")
            self.source_label.hide()
            self.diff.setPlainText("")
            return
        ids = ", ".join(f"#{i}" for i in entry.cited)
        source = (
            plural(len(entry.cited), self.tr("From your message {ids}"), self.tr("From your messages {ids}")).format(
                ids=ids
            )
            if ids
            else self.tr("From the conversation")
        )
        self.source_label.setText(
            self.tr("{source}: “{why}”").format(source=source, why=entry.why) if entry.why else source
        )
        self.source_label.show()
        self.diff.setPlainText(entry.diff)

    def selected_entry(self) -> LogEntry | None:
        item = self.tree.currentItem()
        return item.data(WHEN, Qt.ItemDataRole.UserRole) if item is not None else None

    def select(self, entry_id: int) -> bool:
        """Make change ``entry_id`` current (its diff shows); ``False`` when it is not listed."""
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.data(WHEN, Qt.ItemDataRole.UserRole).id == entry_id:
                self.tree.setCurrentItem(item)
                return True
        return False

    # -- actions -------------------------------------------------------------------------------
    def undo(self, entry_id: int) -> None:
        """Undo change ``entry_id`` on disk (in the background); a refusal is shown in the panel."""
        ctx, target = self.ctx, self.target
        self._write(lambda: ctx.sources.evolution.undo(target, entry_id), self.undone.emit, self.tr("Could not undo"))

    def apply_now(self) -> None:
        """Write the staged changes now (in the background)."""
        ctx, target = self.ctx, self.target
        staged = self.snapshot.pending if self.snapshot is not None else Pending()
        count = len(staged.persona) + len(staged.skills)

        def done(landed: list[LogEntry]) -> None:
            dropped = count - len(landed)
            if dropped > 0:
                text = plural(
                    dropped,
                    self.tr("{n} of the waiting changes was dropped: what it changes was edited by hand meanwhile."),
                    self.tr("{n} of the waiting changes were dropped: what they change was edited by hand meanwhile."),
                )
                self.message_bar.show_message(text.format(n=dropped), "warning")
            self.landed.emit(landed)

        self._write(lambda: ctx.sources.evolution.land(target), done, self.tr("Could not apply the changes"))

    def set_learning(self, on: bool) -> None:
        """Write the assistant's own switch (``"evolution": true/false`` in assistant.json)."""
        workspace, target = self.ctx.workspace, self.target

        def done(written: Target) -> None:
            self.target = written
            self.switched.emit(written)

        self._write(lambda: workspace.set_meta(target, "evolution", on), done, self.tr("Could not change the switch"))

    def _write(self, job: Callable[[], Any], done: Callable[[Any], None], what: str) -> None:
        self._writes += 1
        self._set_actions_enabled(False)
        self.message_bar.hide()

        def finished(value: Any) -> None:
            self._writes -= 1
            done(value)
            self.refresh()

        def failed(exc: BaseException) -> None:
            self._writes -= 1
            if isinstance(exc, OkBotError):
                message = str(exc)
            else:
                log.error("a change to the evolution of %s failed", self.target.name, exc_info=exc)
                message = self.tr("{what}: {error}").format(what=what, error=exc)
            self.message_bar.show_message(message, "error")
            self.failed.emit(message)
            self.refresh()  # shows the switch and the buttons as they are on disk again

        self.ctx.tasks.run(job, finished, failed, owner=self)

    def _set_actions_enabled(self, enabled: bool) -> None:
        self.switch.setEnabled(enabled)
        self.apply_button.setEnabled(enabled)
        for entry_id, button in self.undo_buttons.items():
            button.setEnabled(enabled and entry_id in self._undoable)

    # -- slots ---------------------------------------------------------------------------------
    def _on_switch_toggled(self, on: bool) -> None:
        self.set_learning(on)

    def _on_apply_clicked(self) -> None:
        self.apply_now()

    def _on_tree_selection_changed(self) -> None:
        self._show_details()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "highlighter"):
            self.highlighter.set_palette(self.diff.palette())
            if self.snapshot is not None:
                self._show_entries(list(reversed(self.snapshot.entries)))
        super().changeEvent(event)


def _when(at: str) -> str:
    """``2026-05-04 14:03`` in local time (the raw text when it cannot be read)."""
    moment = _moment(at)
    return moment.strftime("%Y-%m-%d %H:%M") if moment else at


def _day(at: str) -> str:
    moment = _moment(at)
    return moment.strftime("%Y-%m-%d") if moment else at


def _moment(at: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone() if moment.tzinfo else moment


def _source(entry: LogEntry) -> str:
    ids = ", ".join(f"#{i}" for i in entry.cited)
    return f"{ids} “{entry.why}”" if entry.why else ids


def _elided(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
