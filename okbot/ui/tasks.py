"""The one way to run blocking work off the GUI thread, and the worker that runs a chat turn.

:class:`TaskRunner` hands a plain callable to a ``QThreadPool`` and delivers its result (or its
exception) to ``on_done`` / ``on_error`` on the GUI thread. :class:`TurnWorker` runs one
:class:`~okbot.core.runner.TurnRunner` turn through a ``TaskRunner`` and turns the runner's plain
callbacks into Qt signals, also delivered on the GUI thread.

Worker threads never touch a widget: they only emit signals of objects that live on the GUI
thread, connected with ``Qt.QueuedConnection``, so every slot runs on the GUI thread.
"""

from __future__ import annotations

import itertools
import logging
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal

from okbot.core.workspace import Target
from okbot.storage.errors import OkBotError

if TYPE_CHECKING:  # the runner (and what it imports) loads with the first turn, not at start-up
    from okbot.core.runner import TurnResult, TurnRunner
from okbot.llm.provider import CancelToken

log = logging.getLogger("okbot.ui.tasks")

T = TypeVar("T")
POOL_THREADS = 6
APPROVAL_GRACE_S = 30  # past the card's own timeout, a worker stops waiting for an answer


class _Relay(QObject):
    """Carries results from pool threads to the GUI thread. One per process, never deleted.

    Jobs hold only integers and their function, never a TaskRunner: a runner (and the widgets
    that own it) can be deleted while its jobs still run, and nothing is deleted off the GUI thread.
    """

    done = Signal(int, int, bool, object)  # runner key, job id, ok, value

    def __init__(self) -> None:
        super().__init__()
        self.runners: weakref.WeakValueDictionary[int, TaskRunner] = weakref.WeakValueDictionary()
        self.done.connect(self._on_done, Qt.ConnectionType.QueuedConnection)

    def _on_done(self, runner_key: int, job_id: int, ok: bool, value: Any) -> None:
        runner = self.runners.get(runner_key)
        if runner is not None and shiboken6.isValid(runner):
            runner._deliver(job_id, ok, value)


_relay: _Relay | None = None
_pool: QThreadPool | None = None
_runner_keys = itertools.count(1)
_closing = threading.Event()


def _shared() -> tuple[_Relay, QThreadPool]:
    """The process-wide relay and thread pool (created on first use, on the GUI thread)."""
    global _relay, _pool
    if _relay is None or _pool is None:
        _relay = _Relay()
        _pool = QThreadPool()
        _pool.setMaxThreadCount(POOL_THREADS)
    return _relay, _pool


class _Running:
    """How many of one runner's jobs are running (plain Python: safe to touch from any thread)."""

    def __init__(self) -> None:
        self.count = 0
        self.idle = threading.Condition()

    def add(self, n: int) -> None:
        with self.idle:
            self.count += n
            self.idle.notify_all()

    def wait(self, seconds: float | None) -> bool:
        with self.idle:
            return self.idle.wait_for(lambda: self.count == 0, seconds)


_all_jobs = _Running()


def shutdown_tasks(msecs: int = 5000) -> bool:
    """At exit: wait up to ``msecs`` for running jobs; after this no result is delivered any more.

    Call it after the event loop ends, before the interpreter shuts down (a pool thread that
    posted a result while Python finalizes would crash the process).
    """
    _closing.set()
    return _all_jobs.wait(msecs / 1000)


class _Job(QRunnable):
    """Runs ``fn`` on a pool thread and posts ``(runner key, job id, ok, value)`` to the relay."""

    def __init__(self, relay: _Relay, runner_key: int, job_id: int, fn: Callable[[], Any], running: _Running) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._emit = relay.done.emit
        self._runner_key, self._job_id, self._fn, self._running = runner_key, job_id, fn, running

    def run(self) -> None:
        try:
            value, ok = self._fn(), True
        except BaseException as exc:  # noqa: BLE001 - handed to on_error on the GUI thread
            value, ok = exc, False
        finally:
            self._fn = None  # drop the closure here, not at some later garbage collection
        self._running.add(-1)
        try:
            if not _closing.is_set():
                self._emit(self._runner_key, self._job_id, ok, value)
        finally:
            _all_jobs.add(-1)


class TaskRunner(QObject):
    """The one way to run blocking work off the GUI thread (QThreadPool); results delivered on the GUI thread.

    ``on_error`` gets the exception; without one, an :class:`OkBotError` is logged as a warning
    and anything else (a bug) is logged with its traceback. Pass ``owner`` (a widget) to drop the
    result when that widget has been deleted meanwhile; a deleted TaskRunner drops all of its.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._relay, self._threads = _shared()
        self._key = next(_runner_keys)
        self._relay.runners[self._key] = self
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[Any, Any, QObject | None]] = {}
        self._running = _Running()

    @property
    def pending(self) -> int:
        """How many jobs have not delivered their result yet."""
        return len(self._pending)

    def run(
        self,
        fn: Callable[[], T],
        on_done: Callable[[T], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        *,
        owner: QObject | None = None,
    ) -> None:
        """Run ``fn()`` on a pool thread; then ``on_done(result)`` or ``on_error(exc)`` on the GUI thread."""
        job_id = next(self._ids)
        self._pending[job_id] = (on_done, on_error, owner)
        self._running.add(1)
        _all_jobs.add(1)
        self._threads.start(_Job(self._relay, self._key, job_id, fn, self._running))

    def wait_for_done(self, msecs: int = -1) -> bool:
        """Block until this runner's jobs have run (shutdown and tests); results still arrive as events."""
        return self._running.wait(None if msecs < 0 else msecs / 1000)

    def _deliver(self, job_id: int, ok: bool, value: Any) -> None:
        on_done, on_error, owner = self._pending.pop(job_id, (None, None, None))
        if owner is not None and not shiboken6.isValid(owner):
            return
        try:
            if ok:
                if on_done is not None:
                    on_done(value)
                return
            if on_error is not None:
                on_error(value)
                return
        except RuntimeError as exc:
            # the widget the callback updates was deleted meanwhile (a closed page): drop the result
            if "already deleted" not in str(exc) and "has been deleted" not in str(exc):
                raise
            log.debug("result of job %s dropped: %s", job_id, exc)
            return
        if isinstance(value, OkBotError):
            log.warning("background task failed: %s", value)
        else:
            log.error("background task crashed", exc_info=value)


_default_runner: TaskRunner | None = None


def default_task_runner() -> TaskRunner:
    """A process-wide TaskRunner for code that was not handed one (created on first use, GUI thread)."""
    global _default_runner
    if _default_runner is None:
        _default_runner = TaskRunner()
    return _default_runner


def _safe(emit: Callable[..., None]) -> Callable[..., None]:
    """``emit`` that ignores a deleted receiver (the page was closed while the turn ran)."""

    def call(*args: Any) -> None:
        try:
            emit(*args)
        except RuntimeError:
            log.debug("turn output dropped: its worker was deleted")

    return call


class TurnWorker(QObject):
    """Runs one TurnRunner turn (or a retry) on a worker thread; Qt signals on the GUI thread.

    ``runner`` may be a TurnRunner or a factory for one (called on the worker thread).

    ``text`` ``None`` means retry the last user message. ``failed`` carries the text of an
    :class:`OkBotError` raised before anything streamed (the message was refused and nothing was
    written) or of an unexpected error; ``finished`` carries the :class:`TurnResult` — also for a
    stopped or broken reply, whose ``status`` says so.
    """

    item = Signal(dict)
    delta = Signal(str)
    event = Signal(object)
    finished = Signal(object)  # TurnResult
    failed = Signal(str)
    approval_needed = Signal(str, dict, object)  # tool name, args, reply callable(bool)
    compressing = Signal()  # the request waits for the summarizer
    compressed = Signal(object)  # the CompressionReport of a compression run before the request

    # emitted on the worker thread, delivered (queued) to this object's slots on the GUI thread
    _worker_item = Signal(dict)
    _worker_delta = Signal(str)
    _worker_event = Signal(object)
    _worker_approval = Signal(str, dict, object)
    _worker_compressing = Signal()
    _worker_compressed = Signal(object)

    def __init__(
        self,
        runner: TurnRunner | Callable[[], TurnRunner],
        target: Target,
        text: str | None,
        parent: QObject | None = None,
        *,
        tasks: TaskRunner | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner, self.target, self.text = runner, target, text
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

    @property
    def running(self) -> bool:
        """True from :meth:`start` until ``finished`` or ``failed`` was emitted."""
        return self._running

    @property
    def is_retry(self) -> bool:
        return self.text is None

    def start(self) -> None:
        """Start the turn (once)."""
        if self._started:
            raise RuntimeError("a TurnWorker runs one turn; make a new one")
        self._started = self._running = True
        from okbot.core.runner import TurnCallbacks, TurnRunner

        callbacks = TurnCallbacks(
            on_item=_safe(self._worker_item.emit),
            on_delta=_safe(self._worker_delta.emit),
            on_event=_safe(self._worker_event.emit),
            ask_approval=self._ask_approval,
            on_compressing=_safe(self._worker_compressing.emit),
            on_compressed=_safe(self._worker_compressed.emit),
        )
        make, target, text, cancel = self.runner, self.target, self.text, self._cancel

        def turn() -> TurnResult:
            # a factory is called here, on the worker thread: building a provider imports the openai
            # SDK and may read the OS keyring, neither of which may stall the GUI
            runner = make if isinstance(make, TurnRunner) else make()
            self._settings = runner.sources.settings
            try:
                if text is None:
                    return runner.retry(target, callbacks=callbacks, cancel=cancel)
                return runner.run_turn(target, text, callbacks=callbacks, cancel=cancel)
            finally:
                if runner is not make:  # we built it: release its HTTP client
                    close = getattr(runner.provider, "close", None)
                    if callable(close):
                        close()

        self._tasks.run(turn, self._on_turn_done, self._on_turn_error, owner=self)

    def stop(self) -> None:
        """Ask the turn to stop (CancelToken.cancel); the partial reply is kept as ``interrupted``."""
        self._cancel.cancel()

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
        self.failed.emit(f"Something went wrong in OkBot: {exc}")
