"""OkBot's main window: the sidebar of assistants and squads, and the chat with the selected one.

The window adapts: sidebar requests become workspace calls (create, rename, delete, restore),
chat pages report streaming and finished replies back to the sidebar's status dots. Pages are
kept per target while they stream (a reply keeps running when you look at another chat) and a
few idle ones are kept for quick switching.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QSizePolicy, QSplitter, QStackedWidget, QWidget

from okbot.core import trash
from okbot.core.workspace import Target, Workspace
from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.storage.errors import OkBotError
from okbot.ui.app_context import AppContext
from okbot.ui.sidebar import Sidebar
from okbot.ui.target_list_model import STREAMING, UNREAD, TargetListModel
from okbot.ui.target_pane import TargetPane
from okbot.ui.window_extras import make_first_run_panel, make_settings_dialog, needs_first_run, open_context_viewer

if TYPE_CHECKING:
    from okbot.core.schedules.job import Job
    from okbot.core.schedules.store import ScheduleStore
    from okbot.core.turn.outcome import TurnResult
    from okbot.ui.chat_page import ChatPage
    from okbot.ui.schedule_relay import ScheduleRelay
    from okbot.ui.schedules_panel import SchedulesDialog
    from okbot.ui.squad_dialog import SquadDialog
    from okbot.ui.tray import Tray

log = logging.getLogger("okbot.ui")

WINDOW_TITLE = "OkBot"
DEFAULT_SIZE = (1100, 720)
SIDEBAR_WIDTH = 240
IDLE_PAGES_KEPT = 6
NEW_ASSISTANT_NAME = QT_TRANSLATE_NOOP("MainWindow", "New assistant")  # translated when an assistant is made


class MainWindow(QMainWindow):
    """The top-level window. It owns no business logic: it shows what the workspace lists.

    ``problems`` are startup messages (settings repaired, template missing …) shown in the
    status bar together with whatever the workspace reports while listing.

    ``quit_requested`` fires when the user quits OkBot for real (the tray's Quit, or "Quit" on the first close).
    """

    quit_requested = Signal()

    def __init__(
        self,
        ctx: AppContext | Workspace,
        *,
        problems: Sequence[str] = (),
        first_run: bool = False,
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx if isinstance(ctx, AppContext) else AppContext.create(ctx)
        self.workspace = self.ctx.workspace
        self._startup_problems = list(problems)
        self._problems: list[str] = []
        self._pages: OrderedDict[Path, ChatPage] = OrderedDict()
        self._windows: list[QWidget] = []  # viewers kept alive while open
        self._assistant_dialogs: dict[Path, Any] = {}
        self.settings_dialog: Any = None
        self.first_run_panel: QWidget | None = None
        # Until the window's first frame is painted, the selected chat's page is only noted here
        # and built right after that paint (or at once when somebody asks for the page): the
        # window appears without waiting for the chat view's imports and the session read.
        self._first_frame_done = False
        self._deferred_target: Target | None = None
        self._context_watcher: Any = None  # a FileWatcher once a chat is shown
        self._search: Any = None  # the search across chats, made on first use
        self.tray: Tray | None = None  # where the desktop has a tray (attach_tray)
        self.kept_in_tray = False  # closed into the tray: hidden, still running
        self._quitting = False
        self._close_box: QMessageBox | None = None  # the question of the first close, while it is open
        self.schedules: ScheduleRelay | None = None  # once the scheduler is started (start_schedules)
        self.setWindowTitle(WINDOW_TITLE)
        self.resize(*DEFAULT_SIZE)
        self.setMinimumSize(640, 420)

        self.model = TargetListModel(parent=self)
        self.sidebar = Sidebar(self.model)
        self.sidebar.current_changed.connect(self._on_sidebar_current_changed)
        self.sidebar.create_requested.connect(self.create_assistant)
        self.sidebar.search_requested.connect(self.open_search)
        self.sidebar.create_squad_requested.connect(self.open_squad_dialog)
        self.sidebar.edit_squad_requested.connect(self.open_squad_dialog)
        self.sidebar.edit_assistant_requested.connect(self.open_assistant_dialog)
        self.sidebar.rename_requested.connect(self._on_sidebar_rename_requested)
        self.sidebar.delete_requested.connect(self._on_sidebar_delete_requested)
        self.sidebar.undo_requested.connect(self._on_sidebar_undo_requested)

        self.pane = TargetPane()
        self.stack = QStackedWidget()
        self.stack.addWidget(self.pane)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.sidebar)
        splitter.addWidget(self.stack)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setCollapsible(1, False)
        splitter.setSizes([SIDEBAR_WIDTH, DEFAULT_SIZE[0] - SIDEBAR_WIDTH])
        self.setCentralWidget(splitter)
        splitter.installEventFilter(self)  # its first paint ends the first-frame deferral

        self.problems_label = QLabel(objectName="problems")
        self.problems_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # A long message is clipped (full text in the tooltip) instead of widening the window.
        self.problems_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.statusBar().addWidget(self.problems_label, 1)

        self._make_actions()
        self.reload()
        if first_run:  # may read the keyring, which can block: ask off the GUI thread
            settings = self.ctx.settings
            self.ctx.tasks.run(lambda: needs_first_run(settings), self._on_first_run_checked, owner=self)

    # ------------------------------------------------------------------ public
    def reload(self) -> None:
        """Re-read the workspace, keeping the selection when that target still exists."""
        current = self.selected_target()
        self.model.set_targets(self.workspace.list())
        self._show_problems([*self._startup_problems, *self.workspace.problems])
        row = self.model.row_of(current.kind, current.id) if current else -1
        self.select_row(row if row >= 0 else self._first_healthy_row())
        if self.model.rowCount() == 0:
            self._show_target(None)

    def selected_target(self) -> Target | None:
        """The target selected in the sidebar, or ``None``."""
        return self.sidebar.current_target()

    def select_row(self, row: int) -> None:
        """Select (and make current) sidebar row ``row`` of the model; out-of-range rows are ignored."""
        self.sidebar.select_source_row(row)

    def select_target(self, kind: str, target_id: str) -> None:
        self.select_row(self.model.row_of(kind, target_id))

    def open_search(self) -> Any:
        """The search across every chat (Ctrl+Shift+F), opened or raised; returns the dialog."""
        if self._search is None:
            from okbot.ui.search_dialog import SearchDialog

            self._search = SearchDialog(self.ctx, self)
            self._search.hit_chosen.connect(self._on_search_hit_chosen)
        self._search.open_dialog()
        return self._search

    def _on_search_hit_chosen(self, hit: Any) -> None:
        from okbot.ui.search_dialog import needle_of

        if not self.reveal(hit.kind, hit.target_id, hit.item_id, needle_of(hit)):
            self._show_problems(
                [self.tr("{name} is not there any more (deleted since it was indexed).").format(name=hit.target_name)]
            )

    def reveal(self, kind: str, target_id: str, item_id: int, needle: str) -> bool:
        """Open chat ``kind``/``target_id`` at item ``item_id`` with ``needle`` highlighted; False when that
        chat is not in the sidebar (deleted meanwhile)."""
        if self.model.row_of(kind, target_id) < 0:
            return False
        self.select_target(kind, target_id)  # clears the sidebar's filter when it hides that chat
        page = self.current_page()
        if page is None:
            return False
        page.reveal(item_id, needle)
        return True

    def problems(self) -> list[str]:
        """The messages currently listed in the status bar."""
        return list(self._problems)

    def current_page(self) -> ChatPage | None:
        """The chat page on show, or ``None`` (nothing selected, or the target cannot be read)."""
        self._build_deferred_page()
        widget = self.stack.currentWidget()
        return widget if widget in self._pages.values() else None

    def page_for(self, target: Target) -> ChatPage | None:
        return self._pages.get(target.dir)

    def create_assistant(self) -> None:
        """Create an assistant named "New assistant" (numbered if taken) and start renaming it."""
        taken = {t.name.casefold() for t in self.model_targets()}
        base = QCoreApplication.translate("MainWindow", NEW_ASSISTANT_NAME)
        name, n = base, 2
        while name.casefold() in taken:
            name, n = f"{base} {n}", n + 1
        try:
            target = self.workspace.create_assistant(name)
        except (OkBotError, OSError) as exc:
            self.sidebar.show_message(self.tr("Could not create an assistant: {error}").format(error=exc))
            return
        self.sidebar.search.clear()
        self.reload()
        self.select_target(target.kind, target.id)
        self.sidebar.list.setFocus()
        self.sidebar.rename_current()

    def open_squad_dialog(self, squad: Target | None = None) -> SquadDialog:
        """Open the dialog that creates a squad (``squad`` ``None``) or edits ``squad``; returns it."""
        from okbot.ui.squad_dialog import SquadDialog  # only when asked for

        dialog = SquadDialog(self.workspace, squad, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.saved.connect(self._on_squad_dialog_saved)
        dialog.open()  # window-modal, without a nested event loop
        return dialog

    def open_assistant_dialog(self, target: Target, tab: str = "soul") -> Any:
        """Show ``target``'s dialog (SOUL.md, memories, skills) on ``tab``; one per assistant, kept while open."""
        from okbot.ui.assistant_dialog import AssistantDialog  # only when asked for

        dialog = self._assistant_dialogs.get(target.dir)
        if dialog is None:
            dialog = AssistantDialog(self.ctx, target, self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.destroyed.connect(lambda *_a, d=target.dir: self._assistant_dialogs.pop(d, None))
            dialog.target_changed.connect(self._on_assistant_dialog_target_changed)
            self._assistant_dialogs[target.dir] = dialog
        dialog.show_tab(tab)
        return dialog

    def model_targets(self) -> list[Target]:
        return [t for row in range(self.model.rowCount()) if (t := self.model.target(row)) is not None]

    # ------------------------------------------------------------------- slots
    def _on_sidebar_current_changed(self, target: Target | None) -> None:
        if self.first_run_panel is not None and target is not None:
            self._on_first_run_done()  # choosing a chat means browsing without a provider for now
            return
        self._show_target(target)
        if self.settings_dialog is not None:
            self.settings_dialog.set_current_target(target)

    def _on_squad_dialog_saved(self, squad: Target) -> None:
        self.sidebar.search.clear()
        self.reload()
        self.select_target(squad.kind, squad.id)
        page = self._pages.get(squad.dir)
        if page is not None:
            page.update_target(squad)

    def _on_assistant_dialog_target_changed(self, target: Target) -> None:
        """assistant.json was written (the learning switch): the sidebar and the open chat take the new meta."""
        self.reload()
        page = self._pages.get(target.dir)
        if page is not None:
            page.update_target(target)

    def _on_sidebar_rename_requested(self, target: Target, name: str) -> None:
        try:
            renamed = self.workspace.rename(target.id, name)
        except (OkBotError, OSError) as exc:
            self.sidebar.show_message(self.tr("Not renamed: {error}").format(error=exc))
            return
        self.reload()
        page = self._pages.get(renamed.dir)
        if page is not None:
            page.update_target(renamed)

    def _on_sidebar_delete_requested(self, target: Target) -> None:
        page = self._pages.get(target.dir)
        if page is not None and page.streaming:
            self.sidebar.show_message(
                self.tr("“{name}” is replying. Stop the reply first, then delete.").format(name=target.name)
            )
            return
        try:
            trash_id = trash.delete(self.workspace, target.id)
        except (OkBotError, OSError) as exc:
            self.sidebar.show_message(self.tr("Not deleted: {error}").format(error=exc))
            return
        self._drop_page(target.dir)
        self.model.set_status(target.kind, target.id, "")
        self.reload()
        self.sidebar.show_undo(target.name, trash_id)

    def _on_sidebar_undo_requested(self, trash_id: str) -> None:
        try:
            restored = trash.restore(self.workspace, trash_id)
        except (OkBotError, OSError) as exc:
            self.sidebar.show_message(self.tr("Could not undo: {error}").format(error=exc))
            return
        self.reload()
        self.select_target(restored.kind, restored.id)

    def _on_page_streaming_changed(self, page: ChatPage, streaming: bool) -> None:
        self.model.set_status(page.target.kind, page.target.id, STREAMING if streaming else "")
        self._stop_action.setEnabled(bool(self.current_page() and self.current_page().streaming))
        if not streaming:
            self._trim_pages()

    def _on_page_reply_finished(self, page: ChatPage, result: TurnResult) -> None:
        path = page.target.session_path  # what the turn added becomes searchable (off the GUI thread)
        self.ctx.tasks.run(lambda: self.ctx.search_index.catch_up_session(path), None, _index_not_updated)
        if page is not self.current_page():
            self.model.set_status(page.target.kind, page.target.id, UNREAD)
        if self.tray is not None and result.status == "complete" and (self.isHidden() or self.isMinimized()):
            self.tray.notify(page.target, result.reply_text)

    # ------------------------------------------------------------------ schedules
    def start_schedules(self, store: ScheduleStore | None = None) -> None:
        """Run the scheduled jobs while OkBot runs (started once the window is up; stopped when it quits).
        ``store`` (a ScheduleStore with its clock) is for tests."""
        from okbot.ui.schedule_relay import ScheduleRelay, start_scheduler  # croniter loads after the first paint

        if self.schedules is not None:
            return
        self.schedules = ScheduleRelay(self)
        self.schedules.started.connect(self._on_schedules_started)
        self.schedules.item.connect(self._on_schedules_item)
        self.schedules.finished.connect(self._on_schedules_finished)
        start_scheduler(self.ctx, self.schedules, store)

    def open_schedules(self, target: Target) -> SchedulesDialog:
        """The Schedules window of ``target``'s chat."""
        from okbot.ui.schedules_panel import SchedulesDialog

        store = self.schedules.scheduler.store if self.schedules and self.schedules.scheduler else None
        dialog = SchedulesDialog(self.ctx, target, self.schedules, self, store=store)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def _on_schedules_started(self, target: Target, job: Job) -> None:
        self.model.set_status(target.kind, target.id, STREAMING)
        if (page := self.page_for(target)) is not None:
            page.job_started(job.text)

    def _on_schedules_item(self, target: Target, item: dict) -> None:
        if (page := self.page_for(target)) is not None:
            page.show_job_item(item)

    def _on_schedules_finished(self, target: Target, _job: Job, result: TurnResult | None) -> None:
        path = target.session_path
        self.ctx.tasks.run(lambda: self.ctx.search_index.catch_up_session(path), None, _index_not_updated)
        page = self.page_for(target)
        if page is not None:
            page.job_finished()
        shown = page is not None and page is self.current_page() and not self.isHidden()
        self.model.set_status(target.kind, target.id, "" if shown or result is None else UNREAD)
        if self.tray is not None and result is not None and result.status == "complete" and not shown:
            self.tray.notify(target, result.reply_text)

    # ------------------------------------------------------------------ the tray
    def attach_tray(self, tray: Tray) -> None:
        """Keep running in ``tray`` when the window closes (as ``ui.onClose`` says); its menu opens chats."""
        self.tray = tray
        tray.open_requested.connect(self.show_from_tray)
        tray.quit_requested.connect(self.quit_app)

    def show_from_tray(self, target: Target | None = None) -> None:
        """Show the window again (on ``target``'s chat when given)."""
        self.kept_in_tray = False
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()
        if target is not None:
            self.select_target(target.kind, target.id)

    def quit_app(self) -> None:
        """Quit OkBot for real, whatever ``ui.onClose`` says (the tray's Quit): close, then ``quit_requested``
        (the application ends its event loop on it; a hidden window's close ends no loop by itself)."""
        self._quitting = True
        self.kept_in_tray = False
        self.close()
        self.quit_requested.emit()

    def _close_choice(self) -> str:
        """``tray``, ``quit`` or ``ask`` (the first close): what closing the window does now."""
        if self.tray is None or self._quitting:
            return "quit"
        return str(self.ctx.settings.get("ui.onClose"))

    def _on_close_answered(self, choice: str) -> None:
        try:
            self.ctx.settings.set("ui.onClose", choice)
        except OkBotError as exc:  # a read-only settings file: do what was asked, ask again next time
            log.warning("the close choice was not saved: %s", exc)
        if choice == "tray":
            self._hide_to_tray()
        else:
            self.quit_app()

    def _on_close_box_finished(self) -> None:
        self._close_box = None

    def _hide_to_tray(self) -> None:
        self.kept_in_tray = True
        self.hide()

    def _on_page_settings_requested(self, target: Target) -> None:
        if target.is_squad:
            self.open_squad_dialog(target)
        else:
            self.open_assistant_dialog(target)

    def _on_page_view_context_requested(self, target: Target, item_id: int) -> None:
        self._keep(open_context_viewer(self.ctx, target, item_id, self))

    def open_settings(self, page: str | None = None) -> Any:
        """Show the Settings dialog (one per window, non-modal); returns it."""
        if self.settings_dialog is None:
            self.settings_dialog = make_settings_dialog(self.ctx, self, self.selected_target())
            self.settings_dialog.setting_changed.connect(self._on_settings_setting_changed)
            self.settings_dialog.compress_finished.connect(self._on_settings_compress_finished)
            self.settings_dialog.undo_finished.connect(self._on_settings_compress_finished)
            self.settings_dialog.compression_page.turn_running = self._turn_running
        if page is not None:
            self.settings_dialog.open_page(page)
        self.settings_dialog.show()
        self.settings_dialog.raise_()
        self.settings_dialog.activateWindow()
        return self.settings_dialog

    def _on_settings_triggered(self) -> None:
        self.open_settings()

    def _on_settings_setting_changed(self, key: str) -> None:
        developer = bool(self.ctx.settings.get("developerMode"))
        for page in self._pages.values():
            page.set_developer_mode(developer)
            page.refresh_model()  # the default model may have changed
            page.refresh_gauge()  # model, window and ratio all change the gauge

    def _turn_running(self, target: Target) -> bool:
        page = self._pages.get(target.dir)
        return page is not None and page.streaming

    def _on_settings_compress_finished(self, _report: Any) -> None:
        page = self.current_page()
        if page is not None:
            page.reload_summary()
            page.refresh_gauge()

    def _on_first_run_checked(self, needed: bool) -> None:
        if not needed or self.first_run_panel is not None:
            return
        panel = make_first_run_panel(self.ctx)
        self.first_run_panel = panel
        panel.configured.connect(self._on_first_run_done)
        panel.skipped.connect(self._on_first_run_done)
        panel.imported.connect(lambda _report: self.reload())  # the assistants brought over, in the sidebar
        self.stack.addWidget(panel)
        self.stack.setCurrentWidget(panel)

    def _on_first_run_done(self) -> None:
        panel, self.first_run_panel = self.first_run_panel, None
        if panel is not None:
            self.stack.removeWidget(panel)
            panel.deleteLater()
        self._show_target(self.selected_target())
        self._on_settings_setting_changed("provider.baseUrl")

    def _on_stop_triggered(self) -> None:
        page = self.current_page()
        if page is not None:
            page.stop()

    def _on_focus_composer_triggered(self) -> None:
        page = self.current_page()
        if page is not None:
            page.focus_composer()

    # --------------------------------------------------------------- internals
    def _make_actions(self) -> None:
        def action(text: str, shortcut: Any, slot: Any, name: str) -> QAction:
            act = QAction(text, self)
            act.setObjectName(name)
            act.setShortcut(QKeySequence(shortcut))
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            act.triggered.connect(slot)
            self.addAction(act)
            return act

        self._new_action = action(self.tr("New…"), "Ctrl+N", self.sidebar.offer_new, "newChatAction")
        self._settings_action = action(self.tr("Settings…"), "Ctrl+,", self._on_settings_triggered, "settingsAction")
        self._focus_action = action(
            self.tr("Focus composer"), "Ctrl+L", self._on_focus_composer_triggered, "focusAction"
        )
        self._search_action = action(self.tr("Search all chats…"), "Ctrl+Shift+F", self.open_search, "searchAction")
        self._stop_action = action(self.tr("Stop reply"), "Esc", self._on_stop_triggered, "stopAction")
        self._stop_action.setEnabled(False)  # Esc belongs to editors and popups unless a reply streams

    def _show_target(self, target: Target | None) -> None:
        if target is None or (target.problem and not target.meta):
            self.pane.show_target(target, empty_workspace=self.model.rowCount() == 0)
            self.stack.setCurrentWidget(self.pane)
            self._stop_action.setEnabled(False)
            return
        page = self._pages.get(target.dir)
        if page is None and not self._first_frame_done:
            self._deferred_target = target
            return
        if page is None:
            from okbot.ui.chat_page import ChatPage  # the chat view's imports wait for the first frame

            page = ChatPage(self.ctx, target)
            page.streaming_changed.connect(lambda on, p=page: self._on_page_streaming_changed(p, on))
            page.reply_finished.connect(lambda r, p=page: self._on_page_reply_finished(p, r))
            page.view_context_requested.connect(self._on_page_view_context_requested)
            page.settings_requested.connect(self._on_page_settings_requested)
            page.schedules_requested.connect(self.open_schedules)
            page.target_changed.connect(self._on_assistant_dialog_target_changed)  # same: its file was written
            self._pages[target.dir] = page
            self.stack.addWidget(page)
        else:
            self._pages.move_to_end(target.dir)
            page.update_target(target)
            page.refresh_gauge()
        self.stack.setCurrentWidget(page)
        self._watch_context_files(target)
        self.model.set_status(target.kind, target.id, STREAMING if page.streaming else "")
        self._stop_action.setEnabled(page.streaming)
        self._trim_pages()

    def _build_deferred_page(self) -> None:
        """End the first-frame deferral: build the page of the chat selected meanwhile, if any."""
        if self._first_frame_done:
            return
        self._first_frame_done = True
        target, self._deferred_target = self._deferred_target, None
        if target is not None and target == self.selected_target() and self.first_run_panel is None:
            self._show_target(target)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.centralWidget() and event.type() == QEvent.Type.Paint and not self._first_frame_done:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self._build_deferred_page)
        return super().eventFilter(watched, event)

    def _watch_context_files(self, target: Target) -> None:
        """Follow on-disk edits of the shown chat's SOUL.md, skills and memories (its gauge recounts)."""
        from okbot.core.sources import context_files
        from okbot.ui.file_watch import FileWatcher  # watchdog loads with the first chat page, not at start

        if self._context_watcher is None:
            self._context_watcher = FileWatcher(parent=self)
            self._context_watcher.changed.connect(self._on_context_watcher_changed)
        self._context_watcher.set_paths(context_files(target), wait=False)  # inotify set-up off the GUI thread

    def _on_context_watcher_changed(self, _paths: list[str]) -> None:
        page = self.current_page()
        if page is not None:
            page.refresh_gauge()

    def _trim_pages(self) -> None:
        idle = [d for d, p in self._pages.items() if not p.streaming and p is not self.current_page()]
        for directory in idle[: max(0, len(idle) - IDLE_PAGES_KEPT)]:
            self._drop_page(directory)

    def _drop_page(self, directory: Path) -> None:
        page = self._pages.pop(directory, None)
        if page is not None:
            self.stack.removeWidget(page)
            page.deleteLater()

    def _keep(self, window: QWidget) -> None:
        self._windows.append(window)
        window.destroyed.connect(lambda *_: self._windows.remove(window) if window in self._windows else None)

    def _first_healthy_row(self) -> int:
        """The first row whose files could be read (row 0 when every one has a problem)."""
        for row in range(self.model.rowCount()):
            target = self.model.target(row)
            if target is not None and not target.problem:
                return row
        return 0

    def _show_problems(self, problems: Sequence[str]) -> None:
        self._problems = [p for p in dict.fromkeys(problems) if p]
        self.statusBar().setVisible(bool(self._problems))  # no empty strip under the composer
        if not self._problems:
            self.problems_label.clear()
            self.problems_label.setToolTip("")
            return
        first = self._problems[0]
        more = len(self._problems) - 1
        if more:
            self.problems_label.setText(
                self.tr("⚠ {problem}  (+{more} more; hover for all)").format(problem=first, more=more)
            )
        else:
            self.problems_label.setText(f"⚠ {first}")
        self.problems_label.setToolTip("\n".join(self._problems))

    def closeEvent(self, event: QCloseEvent) -> None:
        choice = self._close_choice()
        if choice != "quit":
            event.ignore()
            if choice == "tray":
                self._hide_to_tray()
            elif self._close_box is None:
                from okbot.ui.tray import ask_on_close

                self._close_box = ask_on_close(self, self._on_close_answered)
                self._close_box.finished.connect(self._on_close_box_finished)
            else:
                self._close_box.raise_()
            return
        if self.schedules is not None:
            self.schedules.stop(0)  # a job's turn is cancelled; the app waits for the thread after its loop
        for page in self._pages.values():
            page.abandon()  # OkBot quits: a call waiting for approval waits again on the next start
        if self._context_watcher is not None:
            self._context_watcher.stop()
        super().closeEvent(event)


def _index_not_updated(exc: BaseException) -> None:
    """The after-turn catch-up failed (a read-only disk): the next search catches up instead."""
    log.warning("search index not updated after a turn: %s", exc)
