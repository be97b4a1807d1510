"""The worker that runs one chat turn off the GUI thread and reports it through Qt signals.

:class:`TurnWorker` runs one turn of the application (:meth:`okbot.app.OkBotApp.run_turn`) through a
:class:`~okbot.ui.tasks.TaskRunner` and turns the turn's plain callbacks into Qt signals,
delivered on the GUI thread: the worker thread only emits signals of this object (which lives on
the GUI thread), connected with ``Qt.QueuedConnection``, so every slot runs on the GUI thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

from okbot.core.turn.outcome import TurnCallbacks, TurnResult
from okbot.core.turn.request import Edit, Regenerate, TurnRequest
from okbot.core.workspace import Target
from okbot.llm.provider import CancelToken
from okbot.storage.errors import OkBotError
from okbot.ui.tasks import TaskRunner, default_task_runner

log = logging.getLogger("okbot.ui.tasks")  # the background-work area, shared with the TaskRunner

APPROVAL_GRACE_S = 30  # past the card's own timeout, a worker stops waiting for an answer


def _safe(emit: Callable[..., None]) -> Callable[..., None]:
    """``emit`` that ignores a deleted receiver (the page was closed while the turn ran)."""

    def call(*args: Any) -> None:
        try:
            emit(*args)
        except RuntimeError:
            log.debug("turn output dropped: its worker was deleted")

    return call


class TurnWorker(QObject):
    """Runs one turn (a :class:`~okbot.core.turn.request.TurnRequest`) on a worker thread; Qt signals on the GUI
    thread.

    ``app`` is the application (:class:`okbot.app.OkBotApp`): its runner, built on first use, is built on the
    worker thread. ``failed`` carries the text of an :class:`OkBotError` raised before anything streamed (the
    message was refused and nothing was written) or of an unexpected error; ``finished`` carries the
    :class:`TurnResult` — also for a stopped or broken reply, whose ``status`` says so.
    """

    item = Signal(dict)
    delta = Signal(str)
    event = Signal(object)
    finished = Signal(object)  # TurnResult
    failed = Signal(str)
    approval_needed = Signal(str, dict, object)  # tool name, args, reply callable(bool)
    compressing = Signal()  # the request waits for the summarizer
    compressed = Signal(object)  # the CompressionReport of a compression run before the request
    evolved = Signal(list)  # the evolution LogEntries of staged persona and skill changes that landed before it

    # emitted on the worker thread, delivered (queued) to this object's slots on the GUI thread
    _worker_item = Signal(dict)
    _worker_delta = Signal(str)
    _worker_event = Signal(object)
    _worker_approval = Signal(str, dict, object)
    _worker_compressing = Signal()
    _worker_compressed = Signal(object)
    _worker_evolved = Signal(list)

    def __init__(
        self,
        app: Any,
        target: Target,
        request: TurnRequest,
        parent: QObject | None = None,
        *,
        tasks: TaskRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self.app, self.target, self.request = app, target, request
        self._tasks = tasks or default_task_runner()
        self._cancel = CancelToken()
        self._settings: Any = None  # the running turn's settings (for the approval wait bound)
        self._started = False
        self._running = False
        queued = Qt.ConnectionType.QueuedConnection
        self._worker_item.connect(self._on_worker_item, queued)
        self._worker_delta.connect(self._on_worker_delta, queued)
        self._worker_event.connect(self._on_worker_event, queued)
        self._worker_approval.connect(self._on_worker_approval, queued)
        self._worker_compressing.connect(self._on_worker_compressing, queued)
        self._worker_compressed.connect(self._on_worker_compressed, queued)
        self._worker_evolved.connect(self._on_worker_evolved, queued)

    @property
    def running(self) -> bool:
        """True from :meth:`start` until ``finished`` or ``failed`` was emitted."""
        return self._running

    @property
    def branches(self) -> bool:
        """Whether the turn makes a new version (an edit or a regeneration)."""
        return isinstance(self.request, (Edit, Regenerate))

    def start(self) -> None:
        """Start the turn (once)."""
        if self._started:
            raise RuntimeError("a TurnWorker runs one turn; make a new one")
        self._started = self._running = True
        callbacks = TurnCallbacks(
            on_item=_safe(self._worker_item.emit),
            on_delta=_safe(self._worker_delta.emit),
            on_event=_safe(self._worker_event.emit),
            ask_approval=self._ask_approval,
            on_compressing=_safe(self._worker_compressing.emit),
            on_compressed=_safe(self._worker_compressed.emit),
            on_evolved=_safe(self._worker_evolved.emit),
        )
        app, target, request, cancel = self.app, self.target, self.request, self._cancel

        def turn() -> TurnResult:
            # on the worker thread: the first turn builds the runner and its provider, which imports the
            # openai SDK and may read the OS keyring, neither of which may stall the GUI
            self._settings = app.settings
            return app.run_turn(target, request, callbacks=callbacks, cancel=cancel)

        self._tasks.run(turn, self._on_turn_done, self._on_turn_error, owner=self)

    def stop(self) -> None:
        """Ask the turn to stop (CancelToken.cancel); the partial reply is kept as ``interrupted``."""
        self._cancel.cancel()

    def abandon(self) -> None:
        """OkBot quits: stop the turn, but a call waiting for approval stays waiting for the next start."""
        self._cancel.abandon()

    @property
    def stopped(self) -> bool:
        return self._cancel.cancelled

    # -- worker thread ----------------------------------------------------------------------
    def _ask_approval(self, name: str, args: dict[str, Any]) -> bool:
        """Block the worker thread until the user answers (a Stop answers "no")."""
        answered = threading.Event()
        answer = [False]

        def reply(approved: bool) -> None:
            if not answered.is_set():
                answer[0] = bool(approved)
                answered.set()

        unregister = self._cancel.on_cancel(lambda: reply(False))
        try:
            try:
                self._worker_approval.emit(name, dict(args), reply)
            except RuntimeError:  # the worker (and its page) is gone: nobody can answer
                return False
            # the card denies when its time runs out; this bound only covers a card that never showed
            answered.wait(self._approval_wait_s())
        finally:
            unregister()
        return answer[0]

    def _approval_wait_s(self) -> float:
        card = self._settings.get("tools.approvalTimeout") if self._settings is not None else 300
        return float(card) + APPROVAL_GRACE_S

    # -- GUI thread ---------------------------------------------------------------------------
    def _on_worker_item(self, item: dict) -> None:
        self.item.emit(item)

    def _on_worker_delta(self, text: str) -> None:
        self.delta.emit(text)

    def _on_worker_event(self, event: object) -> None:
        self.event.emit(event)

    def _on_worker_compressing(self) -> None:
        self.compressing.emit()

    def _on_worker_compressed(self, report: object) -> None:
        self.compressed.emit(report)

    def _on_worker_evolved(self, entries: list) -> None:
        self.evolved.emit(entries)

    def _on_worker_approval(self, name: str, args: dict, reply: object) -> None:
        if self._cancel.cancelled:
            return  # already answered "no" by the cancel
        self.approval_needed.emit(name, args, reply)

    def _on_turn_done(self, result: TurnResult) -> None:
        self._running = False
        self.finished.emit(result)

    def _on_turn_error(self, exc: BaseException) -> None:
        self._running = False
        if isinstance(exc, OkBotError):
            self.failed.emit(str(exc))
            return
        log.error("turn crashed", exc_info=exc)
        self.failed.emit(self.tr("Something went wrong in OkBot: {error}").format(error=exc))
