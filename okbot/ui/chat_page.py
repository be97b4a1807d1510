"""One chat: the conversation, the approval card, the status line, the composer and the token gauge.

The page drives a :class:`~okbot.ui.turn_worker.TurnWorker` per turn (send, Stop, Retry) and turns
its signals into what the widgets show. It keeps no business logic: the runner decides what is
sent and written; the page only reacts.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QFont, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from okbot.app.turn_gate import TurnWaiting
from okbot.config.schema import SettingError
from okbot.core import chat_text
from okbot.core.items import teaching_of
from okbot.core.kind import Kind
from okbot.core.roster import SquadRoster
from okbot.core.squad import members as squad_members
from okbot.core.squad import mention
from okbot.core.tokens import model_facts
from okbot.core.turn.request import Edit, Regenerate, Resume, Retry, Send, TurnRequest
from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.llm.events import Degraded, ReasoningDelta, Retrying, Waiting
from okbot.llm.providers import models_by_provider
from okbot.storage.errors import OkBotError
from okbot.ui.app_context import AppContext
from okbot.ui.approval_card import ApprovalCard
from okbot.ui.chat import ChatView
from okbot.ui.chat.activity import WorkingLine
from okbot.ui.composer import Composer
from okbot.ui.edit_banner import EditBanner
from okbot.ui.elided_label import ElidedLabel
from okbot.ui.evolution_lines import landed_text, upkeep_text
from okbot.ui.export_chat import ChatExporter, choose_export_file, export_message
from okbot.ui.model_picker import ModelPicker
from okbot.ui.queued_messages import Queued, QueuedMessages
from okbot.ui.summary_updater import FAILED_TEXT, UPDATING_TEXT, SummaryUpdater, status_text
from okbot.ui.target_list_model import kind_label
from okbot.ui.token_gauge import TokenGauge, TokenGaugeFeed
from okbot.ui.turn_worker import TurnWorker
from okbot.ui.waiting_approvals import WaitingApprovals

if TYPE_CHECKING:
    from okbot.core.turn.outcome import TurnResult

log = logging.getLogger("okbot.ui.chat")
TOOL_PROGRESS_MARK = "⚙ "

# Shown through _text (translated where shown).
STOPPED_TEXT = QT_TRANSLATE_NOOP("ChatPage", "You stopped the reply; what arrived is kept.")
WAITING_SINCE_CLOSE = QT_TRANSLATE_NOOP(
    "ChatPage", "A tool call was waiting for your approval when OkBot closed; answer it and the reply goes on."
)
EMPTY_CHAT = QT_TRANSLATE_NOOP("ChatPage", "Say hello to {name}. Your conversation is saved as you go.")
# The built-in assistant's role line as resources/templates/assistant.json writes it: shown in the user's
# language (the file keeps it as written; the model reads it as written)
BUILT_IN_ROLE = QT_TRANSLATE_NOOP("ChatPage", "A thoughtful general-purpose assistant.")
SQUAD_MODEL_TEXT = QT_TRANSLATE_NOOP(
    "ChatPage",
    "The squad's captain answers with the default model (Settings → Models). Each member answers with its "
    "own model: pick it in that assistant's chat.",
)
RETRY_TICK_MS = 200  # the automatic retry's countdown is redrawn this often
RECALL_LOOKBACK = 400  # Up in the composer goes back through the user's messages among this many last items
# What the status line shows (so code asks this, never compares the shown words)
QUIET, NOTE, TOOL, RETRY, UPDATING, WAITING = "quiet", "note", "tool", "retry", "updating", "waiting"
JOB = "job"  # a scheduled job's turn runs in this chat (on the scheduler's thread)
JOB_RUNNING = QT_TRANSLATE_NOOP("ChatPage", "Scheduled job running: “{text}”; its reply shows when it is done.")
TURN_WAIT = "turn-wait"  # the turn waits for other chats before it starts (the app's limit of turns at once)
QUEUE_BACK = QT_TRANSLATE_NOOP("ChatPage", "Your queued messages are back in the message box.")
QUEUE_FULL = QT_TRANSLATE_NOOP("ChatPage", "{n} messages are queued already; this one stays in the box.")


def _text(source: str) -> str:
    return QCoreApplication.translate("ChatPage", source)


class ChatPage(QWidget):
    """The chat with one assistant or squad."""

    streaming_changed = Signal(bool)
    reply_finished = Signal(object)  # TurnResult
    view_context_requested = Signal(object, int)  # Target, user item id
    settings_requested = Signal(object)  # Target: the assistant's (or squad's) own settings
    schedules_requested = Signal(object)  # Target: its Schedules window
    target_changed = Signal(object)  # Target: this page wrote its file (the model picked in the header)
    compression_undone = Signal(object)  # Restored: the divider's Undo last compression went through

    def __init__(self, ctx: AppContext, target: Target, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatPage")
        self.ctx, self.target = ctx, target
        self.worker: TurnWorker | None = None
        # The last finished worker is deleted only when the next turn starts: its job's last Python
        # references (signal emitters in the turn's callbacks) are released on the pool thread right
        # after the result is delivered, and deleting the QObject at that moment raced with them.
        self._finished_worker: TurnWorker | None = None
        self._sent_text: str | None = None
        self._last_result: TurnResult | None = None
        self._compression_failed = False  # the turn's compression failed: say so once it is over
        self._evolved_note = ""  # staged persona and skill changes landed with this turn: said until the next one
        self._draft = ""  # what the composer held when an edit began (given back on Cancel)
        # what the status line shows: QUIET (upkeep running, or the note above; replaced by anything
        # else), NOTE, TOOL, RETRY, UPDATING, or "" when hidden
        self._status_kind = ""
        self.summary_updates = SummaryUpdater(ctx, target, self)
        self.summary_updates.started.connect(self._on_summary_updates_started)
        self.summary_updates.finished.connect(self._on_summary_updates_finished)

        self.title = ElidedLabel(target.name, self)
        self.title.setObjectName("chatTitle")
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title.setFont(font)
        self.settings_button = QPushButton(self.tr("Squad…") if target.is_squad else self.tr("Assistant…"), self)
        self.settings_button.setObjectName("chatSettingsButton")
        self.settings_button.setFlat(True)
        self.settings_button.setToolTip(
            self.tr("Members, roles and the captain")
            if target.is_squad
            else self.tr("Persona (SOUL.md), memories, skills and what it learnt (Evolution)")
        )
        self.settings_button.clicked.connect(lambda: self.settings_requested.emit(self.target))
        self.chat_menu = QMenu(self)
        self.export_action = self.chat_menu.addAction(self.tr("Export chat…"), self._on_export_action_triggered)
        self.schedules_action = self.chat_menu.addAction(
            self.tr("Schedules…"), lambda: self.schedules_requested.emit(self.target)
        )
        self.menu_button = QToolButton(
            self, text="⋯", objectName="chatMenuButton", toolTip=self.tr("More for this chat")
        )
        self.menu_button.setAutoRaise(True)
        self.menu_button.setMenu(self.chat_menu)
        self.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.exporter = ChatExporter(ctx.tasks, ctx.workspace, self)
        self.exporter.finished.connect(lambda path, items: self._set_status(export_message(path, items)))
        self.exporter.failed.connect(lambda why: self._set_status(f"⚠ {why}"))
        self.subtitle = ElidedLabel(self._subtitle_text(), self)
        self.subtitle.setObjectName("chatSubtitle")
        self.subtitle.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.model_picker = ModelPicker(ctx.tasks, lambda: models_by_provider(ctx.settings), self)
        self.model_picker.chosen.connect(self._on_model_picker_chosen)
        self.gauge = TokenGauge(self)
        self.feed = TokenGaugeFeed(ctx.sources, ctx.tasks, self)
        self.feed.reading_ready.connect(self.gauge.set_reading)
        self.feed.failed.connect(self.gauge.set_problem)

        self.view = ChatView(self)
        self.view.setObjectName("chatView")
        self.view.retry_requested.connect(self.retry)
        self.view.edit_requested.connect(self.begin_edit)
        self.view.regenerate_requested.connect(self.regenerate)
        self.view.version_requested.connect(self.switch_version)
        self.edit_banner = EditBanner(self)
        self.queued = QueuedMessages(self)
        self.queued.cancelled.connect(lambda message: self._give_back([message]))
        self._running_queued: Queued | None = None  # the queued message whose turn runs now
        self.edit_banner.cancelled.connect(self.cancel_edit)
        self.view.view_context_requested.connect(self._on_view_context_requested)
        self.view.teaching_requested.connect(self._on_view_teaching_requested)
        self.view.undo_compression_requested.connect(self.undo_compression)
        find = QShortcut(QKeySequence.StandardKey.Find, self, self.view.open_find)  # Ctrl+F, also from the composer
        find.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)

        self.approval = ApprovalCard(self, find_tool=lambda offered: self.ctx.sources.mcp.find_tool(offered))
        self.approval.always_allowed.connect(self._on_approval_always_allowed)
        self.approval.mcp_always_allowed.connect(self._on_approval_mcp_always_allowed)
        self.waiting_approvals = WaitingApprovals(ctx, target, self.approval, self)
        self.waiting_approvals.resume_requested.connect(self._on_waiting_resume_requested)
        self.waiting_approvals.answer_failed.connect(lambda why: self._set_status(f"⚠ {why}"))
        self.status_line = QLabel(self)
        self.status_line.setObjectName("statusLine")
        self.status_line.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.status_line.setWordWrap(True)
        self.status_line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status_line.hide()
        # an automatic retry's countdown: the event being waited out and when its wait ends
        self._retrying: Retrying | None = None
        self._retry_at = 0.0
        self._retry_tick = QTimer(self, interval=RETRY_TICK_MS)
        self._retry_tick.timeout.connect(self._on_retry_tick_timeout)
        self.working = WorkingLine(self)  # squads: who is working right now

        self.composer = Composer(self)
        self.composer.send_requested.connect(self.send)
        self.composer.stop_requested.connect(self.stop)
        self.composer.history_wanted.connect(self._on_composer_history_wanted)
        self.composer.attach_refused.connect(lambda why: self._set_status(f"⚠ {why}"))
        # files waiting to be sent count in the gauge before sending
        self.composer.chips.changed.connect(lambda: self.gauge.set_pending(self.composer.chips.pending_tokens()))
        self.setAcceptDrops(True)  # files dropped anywhere on the chat go with the next message
        if target.problem and not target.meta:
            self.composer.setEnabled(False)
            self._set_status(f"⚠ {target.problem}")

        self._build_layout()
        self._show_session()
        self._set_up_squad()
        self.refresh_model()
        self.view.set_developer_mode(bool(ctx.settings.get("developerMode")))
        self.refresh_gauge()
        ctx.upkeep_phases.changed.connect(self._on_upkeep_phases_changed)
        if not target.problem:
            self._close_dangling_calls()
            self._show_quiet()  # upkeep may be running already

    # ------------------------------------------------------------------ public
    @property
    def streaming(self) -> bool:
        return self.worker is not None and self.worker.running

    @property
    def last_result(self) -> TurnResult | None:
        return self._last_result

    def status_text(self) -> str:
        return self.status_line.text() if not self.status_line.isHidden() else ""

    def send(self, text: str) -> None:
        """Send ``text`` as the next message, or as the new version of the message being edited; while a reply
        streams a new message is queued (:class:`QueuedMessages`) and goes once the reply completes."""
        files = self.composer.attachments()
        if not (text.strip() or files):
            return
        if self.streaming:
            if self.edit_banner.editing:
                return  # an edit needs the chat at rest (it is begun only then)
            if self.queued.full:
                self._set_status(_text(QUEUE_FULL).format(n=len(self.queued)))
                return
            self.queued.add(Queued(text, tuple(files)))
            self.composer.accept_sent(text)
            return
        self._sent_text = text
        editing = self.edit_banner.item_id or None
        self._start(Edit(editing, text) if editing else Send(text, tuple(files)))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        files = [Path(url.toLocalFile()) for url in event.mimeData().urls() if url.isLocalFile()]
        if files and self.composer.isEnabled():
            self.composer.add_files(files)
            event.acceptProposedAction()

    def begin_edit(self, item_id: int, text: str) -> None:
        """Put your message ``item_id`` in the composer; sending it makes a new version (see :meth:`send`)."""
        if self.streaming:
            return
        if not self.edit_banner.editing:
            self._draft = self.composer.text()  # given back on Cancel
        self.edit_banner.begin(item_id, text)
        self.composer.set_text(text)
        self.composer.focus_input()

    def cancel_edit(self) -> None:
        if self.edit_banner.editing:
            self.edit_banner.end()
            self.composer.set_text(self._draft)
            self._draft = ""

    def regenerate(self, item_id: int) -> None:
        """Run the turn of the reply holding ``item_id`` again; the old reply stays as a version."""
        if self.streaming:
            return
        self._sent_text = None
        self._start(Regenerate(item_id))

    def switch_version(self, item_id: int, index: int) -> None:
        """Follow version ``index`` of the message (or reply) shown at ``item_id``: one line is written,
        off the GUI thread."""
        if self.streaming:
            return
        app, target = self.ctx.app, self.target
        self.ctx.tasks.run(
            lambda: app.switch_version(target, item_id, index),
            self._on_version_switched,
            lambda exc: self._set_status(f"⚠ {exc}"),
            owner=self,
        )

    def _on_version_switched(self, mark: dict | None) -> None:
        if mark is not None:
            self.view.append_item(mark)
            self.refresh_gauge()

    def retry(self) -> None:
        """Run the turn of the last user message again."""
        if self.streaming:
            return
        self._sent_text = None
        self._start(Retry())

    def stop(self) -> None:
        """Stop the reply that is streaming; what arrived is kept."""
        if self.worker is not None and self.worker.running:
            self.approval.cancel()
            self.worker.stop()

    def abandon(self) -> None:
        """OkBot quits: stop the reply like :meth:`stop`, except that a call waiting for approval is not refused
        but shown again on the next start."""
        if self.worker is not None and self.worker.running:
            self.worker.abandon()
            self.approval.cancel()

    def refresh_gauge(self) -> None:
        """Recount this chat's next request off the GUI thread."""
        self.feed.refresh(self.target)

    def refresh_model(self) -> None:
        """Show the model this chat talks to (the assistant's own, else the default in settings)."""
        default = self.ctx.settings.get("provider.model")
        model = self.ctx.sources.model_for(self.target)
        self.composer.set_model(model, model_facts(model).vision)  # an image chip warns before sending
        if self.target.is_squad:
            self.model_picker.lock(default, _text(SQUAD_MODEL_TEXT))
            return
        own = self.ctx.sources.own_model(self.target)
        self.model_picker.set_model(self.target.name, own or default, default, own=own is not None)

    def set_developer_mode(self, on: bool) -> None:
        self.view.set_developer_mode(on)

    def reload_summary(self) -> None:
        """Coverage may have moved (Compress now): show the divider where it is now."""
        summary, _problems = self.ctx.sources.summary(self.target)
        self.view.set_summary(summary)

    def undo_compression(self) -> None:
        """Undo this chat's last compression off the GUI thread (refused while a reply is being written); the
        divider and the gauge follow, and the status line says what was restored or why nothing was."""
        from okbot.core.compression.undo import undo_last

        target, busy = self.target, self.streaming

        def done(restored: Any) -> None:
            self.reload_summary()
            self.refresh_gauge()
            self._set_status(restored.message)
            self.compression_undone.emit(restored)

        def failed(exc: BaseException) -> None:
            if not isinstance(exc, OkBotError):
                log.error("undoing the compression failed", exc_info=exc)
            self._set_status(str(exc) or type(exc).__name__)

        self.ctx.tasks.run(lambda: undo_last(target, turn_running=busy), done, failed, owner=self)

    def reveal(self, item_id: int, needle: str) -> None:
        """Show item ``item_id`` with ``needle`` highlighted in it (a hit of the search across chats)."""
        self.view.find_in_item(needle, item_id)

    def focus_composer(self) -> None:
        self.composer.focus_input()

    def update_target(self, target: Target) -> None:
        """The target was renamed or its file changed (same directory): update names and the model shown."""
        self.target = target
        self.summary_updates.target = target
        self.title.setText(target.name)
        self.subtitle.setText(self._subtitle_text())
        self.view.set_placeholder(_text(EMPTY_CHAT).format(name=target.name))  # an empty chat greets the new name
        self._set_up_squad()
        self.refresh_model()

    # ------------------------------------------------------------- turn slots
    def _start(self, request: TurnRequest) -> None:
        self.waiting_approvals.forget()  # a new message: the calls that waited across a restart are closed
        self._set_status("")
        self._compression_failed = False
        self._evolved_note = ""
        # the runner is built on the worker thread; an OkBotError there (e.g. no API key where one
        # is needed) arrives as ``failed`` and the text stays in the box
        if self._finished_worker is not None:
            self._finished_worker.deleteLater()
            self._finished_worker = None
        worker = TurnWorker(self.ctx.app, self.target, request, self, tasks=self.ctx.tasks)
        worker.item.connect(self._on_worker_item)
        worker.delta.connect(self._on_worker_delta)
        worker.event.connect(self._on_worker_event)
        worker.finished.connect(self._on_worker_finished)
        worker.failed.connect(self._on_worker_failed)
        worker.approval_needed.connect(self._on_worker_approval_needed)
        worker.compressing.connect(self._on_worker_compressing)
        worker.compressed.connect(self._on_worker_compressed)
        worker.evolved.connect(self._on_worker_evolved)
        self.worker = worker
        self.composer.set_streaming(True)
        self.view.set_retry_enabled(False)  # no Retry while a turn runs
        worker.start()
        self.streaming_changed.emit(True)

    def _on_worker_item(self, item: dict) -> None:
        self._end_retry_countdown()
        if item.get("type") == "user" and self._sent_text is not None:
            self.composer.accept_sent(self._sent_text)  # accepted: now (and only now) clear the box
            self._sent_text = None
            self.edit_banner.end()
        if item.get("type") == "assistant":
            self.view.end_stream()
        if item.get("type") in ("assistant", "tool_call") and self._status_kind == WAITING:
            self._set_status("")  # the model answered
        if item.get("type") == "tool_result" and self._status_kind == TOOL:
            self._set_status("")  # that tool is done
        self.view.append_item(item)
        if item.get("type") == "user" and self._status_kind in (UPDATING, TURN_WAIT):
            self._set_status("")  # the compression before the request is over

    def _on_worker_delta(self, text: str) -> None:
        self._end_retry_countdown()
        if self._status_kind == WAITING:  # the other chat is done: this one has the model
            self._set_status("")
        self.view.stream_delta(text)

    def _on_worker_event(self, event: object) -> None:
        if isinstance(event, ReasoningDelta):
            self.view.stream_reasoning(event.text)
        elif isinstance(event, Retrying):
            self._retrying, self._retry_at = event, time.monotonic() + event.delay
            self._set_status(event.text(event.delay), RETRY)
            self._retry_tick.start()
        elif isinstance(event, Waiting):  # one slot, and another chat has it: say why nothing comes yet
            self._set_status(event.message, WAITING)
        elif isinstance(event, TurnWaiting):  # three chats reply already: this turn starts after one of them
            self._set_status(event.text(), TURN_WAIT)
        elif isinstance(event, Degraded):
            self._end_retry_countdown()  # the retried request answered: its countdown must not tick over the note
            self._set_status(self.tr("Note: {message}").format(message=event.message))
        else:
            from okbot.core.turn.runtime import MemberActivity, ToolProgress  # loaded with the runner already

            if isinstance(event, MemberActivity):
                self._on_member_activity(event)
            elif isinstance(event, ToolProgress):  # a running tool (Stop ends it with the turn)
                self._set_status(f"{TOOL_PROGRESS_MARK}{event.tool}: {event.text}", TOOL)

    def _on_member_activity(self, event: Any) -> None:
        self.working.on_activity(event)
        if not event.task and event.state == "working":
            self.view.set_stream_author(event.member)  # addressed directly: its reply streams to the user

    def _on_worker_approval_needed(self, name: str, args: dict, reply: object) -> None:
        self.approval.timeout_s = self.ctx.settings.get("tools.approvalTimeout")
        self.approval.ask(name, args, reply)  # type: ignore[arg-type]

    def _on_approval_always_allowed(self, tool: str) -> None:
        key = f"tools.{tool}.approval"
        try:
            self.ctx.settings.set(key, "allow")
        except SettingError as exc:  # a tool without its own setting: this once only
            log.warning("cannot always allow %s: %s", tool, exc)

    def _on_approval_mcp_always_allowed(self, server: str, tool: str) -> None:
        try:
            self.ctx.settings.mcp_servers.set_approval(server, "allow", tool=tool)
        except OkBotError as exc:  # the server was removed meanwhile: this once only
            log.warning("cannot always allow %s of MCP server %s: %s", tool, server, exc)

    def _on_worker_finished(self, result: TurnResult) -> None:
        branched = self.worker is not None and self.worker.branches
        self._turn_over()
        self._running_queued = None
        if branched:  # the new version's ‹ › appear once its items are on disk
            self.view.chat_model().refresh_branch()
        self._last_result = result
        for card in (it for it in result.items if teaching_of(it) is not None):
            self.view.append_item(card)  # written after the reply, by the turn's wrap-up: under the reply
        # a failed or stopped reply is told (with its Retry) by its bubble, the one place for it
        if result.status == "interrupted":
            self._set_status(_text(STOPPED_TEXT))
        elif result.status == "error":
            self._set_status("")
        elif not any(isinstance(e, Degraded) for e in result.degraded):
            if self._compression_failed:
                self._set_status(status_text(FAILED_TEXT))
            else:
                self._show_quiet()
        self.reload_summary()  # coverage may also have moved without a report (older items moved out)
        self.refresh_gauge()
        if result.status == "complete":
            self.summary_updates.after_reply()
        self.reply_finished.emit(result)
        if result.status == "complete":
            self._send_next_queued()
        elif result.status != "abandoned" and len(self.queued):
            self._give_back(self.queued.take_all())  # after a Stop or a failure the user decides

    # -- a scheduled job's turn (run by the scheduler, not by this page) -----------------------------------
    def job_started(self, text: str) -> None:
        self._set_status(_text(JOB_RUNNING).format(text=" ".join(text.split())[:60]), JOB)

    def show_job_item(self, item: dict) -> None:
        """An item a scheduled job's turn (or its notice) appended: shown as it lands."""
        self.view.append_item(item)

    def job_finished(self) -> None:
        if self._status_kind == JOB:
            self._set_status("")
        self.reload_summary()
        self.refresh_gauge()

    def _send_next_queued(self) -> None:
        message = self.queued.take_next()
        if message is None or self.streaming:
            return
        self._sent_text = None  # taken from the box when it was queued
        self._running_queued = message
        self._start(Send(message.text, message.files))

    def _give_back(self, messages: list[Queued]) -> None:
        """Queued messages back into the message box (after what is typed there), their files with them."""
        if not messages:
            return
        texts = [m.text for m in messages if m.text.strip()]
        draft = self.composer.text()
        self.composer.set_text("\n\n".join([draft, *texts] if draft.strip() else texts))
        self.composer.add_files([f for m in messages for f in m.files])
        self._set_status(_text(QUEUE_BACK))

    def _on_worker_failed(self, message: str) -> None:
        self._turn_over()
        refused, self._running_queued = self._running_queued, None
        self._give_back(([refused] if refused is not None else []) + self.queued.take_all())
        self._set_status(f"⚠ {message}")  # the message was refused: nothing was written, the text stays

    def _turn_over(self) -> None:
        self._end_retry_countdown()
        self.approval.cancel()
        if self._status_kind == TOOL:
            self._set_status("")
        self.working.clear()
        self.view.end_stream()
        self.view.set_stream_author("")
        self.view.set_retry_enabled(True)
        self.composer.set_streaming(False)
        self._finished_worker, self.worker = self.worker, None
        self.streaming_changed.emit(False)

    def _on_retry_tick_timeout(self) -> None:
        if self._retrying is None:
            self._retry_tick.stop()
            return
        left = self._retry_at - time.monotonic()
        self._set_status(self._retrying.text(left), RETRY)
        if left <= 0:
            self._retry_tick.stop()  # "retrying now" stays until the new attempt answers

    def _end_retry_countdown(self) -> None:
        """The retried request answered (or the turn ended): its countdown leaves the status line."""
        if self._retrying is None:
            return
        self._retrying = None
        self._retry_tick.stop()
        if self._status_kind == RETRY:
            self._set_status("")

    def _on_worker_compressing(self) -> None:
        # the request waits for the summary: say why nothing arrives yet
        self._set_status(status_text(UPDATING_TEXT), UPDATING)

    def _on_worker_compressed(self, report: Any) -> None:
        if self._status_kind == UPDATING:
            self._set_status("")
        self._show_compression(report)

    def _on_worker_evolved(self, entries: list) -> None:
        self._evolved_note = landed_text(self.target.name, entries)
        self._show_quiet()

    def _on_upkeep_phases_changed(self, directory: str, _kind: str) -> None:
        if directory == str(self.target.dir) and not self.streaming and self._status_kind in ("", QUIET):
            self._show_quiet()

    def _on_summary_updates_started(self) -> None:
        if not self.streaming and self._status_kind in ("", QUIET):
            self._set_status(status_text(UPDATING_TEXT), UPDATING)

    def _on_summary_updates_finished(self, report: Any) -> None:
        if self._status_kind == UPDATING:
            self._show_quiet()
        if report is not None:
            self._show_compression(report)

    def _show_compression(self, report: Any) -> None:
        """A compression ran (before a request or ahead of one): move the divider, or say it failed."""
        if report.ok:
            self.reload_summary()
            self.refresh_gauge()
        elif report.error:
            self._compression_failed = True
            if not self.streaming:
                self._set_status(status_text(FAILED_TEXT))

    def _on_model_picker_chosen(self, model: str) -> None:
        """Remember the model picked for this assistant (assistant.json); the next request uses it."""
        try:
            target = self.ctx.workspace.set_meta(self.target, "model", model or None)
        except (OkBotError, OSError) as exc:
            self._set_status(self.tr("⚠ The model was not changed: {error}").format(error=exc))
            return
        self.update_target(target)
        self.refresh_gauge()  # the window (and the counter) follow the model
        self.target_changed.emit(target)

    def _on_export_action_triggered(self) -> None:
        chosen = choose_export_file(self.target, self)
        if chosen is not None:
            self._set_status(self.tr("Exporting to {path}…").format(path=chosen[0]))
            self.exporter.start(self.target, chosen[1], chosen[0])

    def _on_view_teaching_requested(self, card_id: int, of: int, answer: str) -> None:
        """Keep or Not now on a teaching card: written off the GUI thread; the card says "Saving…" meanwhile and
        then what became of it (or, refused, it offers again and the status line says why)."""
        model = self.view.chat_model()
        if model.teaching_state(card_id) == "busy":
            return
        before = model.teaching_state(card_id)
        model.set_teaching_states({card_id: "busy"})
        sources, target = self.ctx.sources, self.target

        def write() -> str:
            from okbot.core.evolution import offers  # loaded off the GUI thread

            if answer == "keep":
                offers.keep(sources, target, of)
                return offers.KEPT
            return offers.decline(sources, target, of).state

        def done(state: str) -> None:
            model.set_teaching_states({card_id: state})
            if state == "kept":
                self.refresh_gauge()  # the persona (or the skill catalog) grew

        def failed(exc: BaseException) -> None:
            model.set_teaching_states({card_id: before})
            self._set_status(f"⚠ {exc}")

        self.ctx.tasks.run(write, done, failed, owner=self)

    def _load_teachings(self) -> None:
        """The states of this chat's teaching cards, read off the GUI thread (a card shows Keep / Not now until
        they arrive)."""
        if not self.target.is_assistant:
            return
        sources, target = self.ctx.sources, self.target

        def read() -> dict[int, str]:
            from okbot.core.evolution import offers  # loaded off the GUI thread

            return {o.card: o.state for o in offers.offers(sources, target).values() if o.card}

        def failed(exc: BaseException) -> None:
            log.warning("could not read the teaching cards of %s: %s", target.name, exc)

        self.ctx.tasks.run(read, self.view.chat_model().set_teaching_states, failed, owner=self)

    def _on_view_context_requested(self, item_id: int) -> None:
        self.view_context_requested.emit(self.target, item_id)

    # --------------------------------------------------------------- internals
    def _show_session(self) -> None:
        """Load the session into the chat view (off the GUI thread) with its summary's divider."""
        target, store = self.target, self.ctx.sources.session(self.target)
        summary, _problems = self.ctx.sources.summary(target)
        self.view.set_placeholder(_text(EMPTY_CHAT).format(name=target.name))
        self.view.set_session(
            store,
            summary=summary,
            target_name_by_id=lambda author: self.target.name if author == self.target.id else author,
            tasks=self.ctx.tasks,
            show_authors=target.is_squad,
        )
        self._load_teachings()

    def _close_dangling_calls(self) -> None:
        """A call left waiting when OkBot closed (an approval card, a running tool) gets its closing note now."""
        app, target = self.ctx.app, self.target

        def close() -> tuple[list[dict[str, Any]], list[Any]]:
            return app.close_dangling_calls(target), app.waiting_calls(target)

        def show(found: tuple[list[dict[str, Any]], list[Any]]) -> None:
            items, waiting = found
            for item in items:
                self.view.append_item(item)
            if waiting and not self.streaming:  # the turn that waited for an approval when OkBot closed
                self._set_status(_text(WAITING_SINCE_CLOSE))
                self.waiting_approvals.show(waiting)

        self.ctx.tasks.run(close, show, lambda exc: log.warning("could not close dangling calls: %s", exc), owner=self)

    def _on_waiting_resume_requested(self) -> None:
        if not self.streaming:
            self._sent_text = None
            self._start(Resume())

    def _set_up_squad(self) -> None:
        """Squads: name and colour the captain and members on bubbles and in the working line, and tell
        in the composer how to ask one member (by their current name)."""
        if not self.target.is_squad:
            self.composer.set_target_name(self.target.name)
            return
        roster = SquadRoster.build(self.target, self.ctx.workspace.assistants())
        self.working.set_roster(roster)
        self.view.set_roster(roster)
        found = squad_members(self.target, self.ctx.workspace)[0]
        self.composer.set_target_name(self.target.name, mention=mention(found[0], found) if found else "")

    def _on_composer_history_wanted(self) -> None:
        """Up in the empty composer: the user's messages at the end of the record, read off the GUI thread."""
        store = self.ctx.sources.session(self.target)

        def read() -> list[str]:
            return chat_text.sent_messages(store.tail(RECALL_LOOKBACK))

        def failed(exc: BaseException) -> None:
            log.warning("could not read the sent messages back: %s", exc)
            self.composer.set_history([])

        self.ctx.tasks.run(read, self.composer.set_history, failed, owner=self)

    def _show_quiet(self) -> None:
        """The status line's quiet line: upkeep of this assistant running, else the changes that landed (or none)."""
        phase = self.ctx.upkeep_phases.phase(self.target)
        self._set_status(upkeep_text(self.target.name, phase) if phase else self._evolved_note, QUIET)

    def _set_status(self, text: str, kind: str = NOTE) -> None:
        self.status_line.setText(text)
        self.status_line.setVisible(bool(text))
        self._status_kind = kind if text else ""

    def _subtitle_text(self) -> str:
        if self.target.is_squad:
            desc = self.target.meta.get("description")
            return desc if isinstance(desc, str) and desc else kind_label(Kind.SQUAD)
        role = self.target.role_line
        return _text(role) if role == BUILT_IN_ROLE else role or kind_label(Kind.ASSISTANT)

    def _build_layout(self) -> None:
        # two rows, so a narrow window (640 px) elides the names instead of squeezing the controls:
        # name · model · Assistant… above, role line · token gauge below
        header = QGridLayout()
        header.setContentsMargins(20, 10, 20, 8)
        header.setHorizontalSpacing(8)
        header.setVerticalSpacing(0)
        header.addWidget(self.title, 0, 0)
        header.addWidget(self.model_picker, 0, 1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        header.addWidget(self.settings_button, 0, 2, Qt.AlignmentFlag.AlignVCenter)
        header.addWidget(self.menu_button, 0, 3, Qt.AlignmentFlag.AlignVCenter)
        header.addWidget(self.subtitle, 1, 0)
        header.addWidget(self.gauge, 1, 1, 1, 3, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        header.setColumnStretch(0, 1)

        rule = QFrame(self)
        rule.setFrameShape(QFrame.Shape.HLine)
        rule.setFrameShadow(QFrame.Shadow.Sunken)

        status_row = QHBoxLayout()
        status_row.setContentsMargins(20, 0, 20, 0)
        status_row.addWidget(self.status_line, 1)

        bottom = QVBoxLayout()
        bottom.setContentsMargins(16, 4, 16, 12)
        bottom.setSpacing(6)
        working_row = QHBoxLayout()
        working_row.setContentsMargins(20, 0, 20, 0)
        working_row.addWidget(self.working, 1)
        bottom.addLayout(working_row)
        bottom.addWidget(self.approval)
        bottom.addLayout(status_row)
        bottom.addWidget(self.edit_banner)
        bottom.addWidget(self.queued)
        bottom.addWidget(self.composer)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(rule)
        self.view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        layout.addWidget(self.view, 1)
        layout.addLayout(bottom)
