"""The one way to run blocking work off the GUI thread.

:class:`TaskRunner` hands a plain callable to a ``QThreadPool`` and delivers its result (or its
exception) to ``on_done`` / ``on_error`` on the GUI thread. The worker that runs a chat turn on top
of it is :class:`~okbot.ui.turn_worker.TurnWorker`.

Worker threads never touch a widget: they only emit signals of objects that live on the GUI
thread, connected with ``Qt.QueuedConnection``, so every slot runs on the GUI thread.
"""

from __future__ import annotations

import itertools
import logging
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal

from okbot.storage.errors import OkBotError

log = logging.getLogger("okbot.ui.tasks")

T = TypeVar("T")
POOL_THREADS = 6


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
        self._runner_key = runner_key
        self._job_id = job_id
        self._fn = fn
        self._running = running

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
