"""The desktop's side of the scheduler: :class:`ScheduleRelay` turns what the scheduler's thread reports into
Qt signals delivered on the GUI thread (the chat of a running job shows its items, the sidebar its state).

The scheduler (:class:`okbot.app.scheduler.Scheduler`) is started after the first paint and stopped when OkBot
quits (:func:`start_scheduler`, :meth:`ScheduleRelay.stop`).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal

from okbot.app.scheduler import Scheduler, SchedulerEvents
from okbot.core.schedules.store import ScheduleStore
from okbot.ui.app_context import AppContext

log = logging.getLogger("okbot.ui.schedules")

STOP_SECONDS = 5.0  # a job's turn is cancelled on quit; this long at most is waited for it


class ScheduleRelay(QObject):
    """Signals for what the scheduler does; emitted on its thread, delivered queued to the GUI thread."""

    item = Signal(object, dict)  # Target, an item a job's turn (or a notice) appended
    started = Signal(object, object)  # Target, Job
    finished = Signal(object, object, object)  # Target, Job, TurnResult | None
    skipped = Signal(object, object)  # Target, Job
    changed = Signal()  # some job's file changed

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.scheduler: Scheduler | None = None

    def events(self) -> SchedulerEvents:
        """The scheduler's callbacks, each emitting one of the signals."""
        return SchedulerEvents(
            on_started=self.started.emit,
            on_item=self.item.emit,
            on_finished=self.finished.emit,
            on_skipped=self.skipped.emit,
            on_changed=self.changed.emit,
        )

    def wake(self) -> None:
        """A job was changed here: the scheduler looks at the files now."""
        if self.scheduler is not None:
            self.scheduler.wake()

    def stop(self, timeout: float = STOP_SECONDS) -> None:
        """Stop the scheduler (a job's turn is cancelled); wait for its thread ``timeout`` seconds at most
        (0: only ask, as the window's close does; the app waits once its event loop is over)."""
        if self.scheduler is not None and not self.scheduler.stop(timeout) and timeout > 0:
            log.warning("the scheduler did not stop within %.0f s", timeout)


def start_scheduler(ctx: AppContext, relay: ScheduleRelay, store: ScheduleStore | None = None) -> None:
    """Build and start the scheduler off the GUI thread (the app's first parts load there). ``store`` (its
    clock and zone) is for tests."""

    def build() -> Scheduler:
        events = relay.events()
        scheduler = (
            Scheduler(ctx.app, store=store, events=events, clock=store.clock, tz=store.tz)
            if store is not None
            else Scheduler(ctx.app, events=events)
        )
        relay.scheduler = scheduler  # here, not on delivery: a quit meanwhile still stops it
        scheduler.start()
        return scheduler

    ctx.tasks.run(build, None, lambda exc: log.error("the scheduler did not start: %s", exc))
