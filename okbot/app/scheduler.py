"""Running scheduled jobs while OkBot runs: a thread that wakes at the next job's time and sends its message.

:class:`Scheduler` (no Qt) is started by the front-ends that keep running (the desktop app; ``okbot serve``
later). It reads every target's ``schedules.json`` (:mod:`okbot.core.schedules.store`) again when the file
changed (checked every :data:`POLL_SECONDS`, so a job set by ``okbot schedule add`` in another process is seen
within seconds; :meth:`Scheduler.wake` at once when this process changed one), and runs each due job as an
ordinary turn, ``Send(text, source="schedule:<id>")``: recorded as sent by the schedule, run at the job
priority, and read by the model under OkBot's line saying it is not the user typing.

- One turn at a time per chat: a job whose chat is busy with another reply is put off a minute, and its file
  says so (``lastResult`` ``skipped``), so the scheduler's one thread never waits behind a long reply. Its turn
  passes the application's turn gate like any other, behind the user's turns.
- A job whose time passed while OkBot was not running runs once, not once per missed time, after a notice in
  the chat saying so; its next run is counted from now.
- A job is claimed in its file (its next run moved on) before its turn starts, so a crash or a second
  scheduler on the same data dir never runs one time twice.
- Tools that ask for approval are not run in a scheduled turn (nobody is there to answer).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any

from okbot.app.app import OkBotApp
from okbot.core.items import notice
from okbot.core.schedules.job import Job
from okbot.core.schedules.rules import MIN_GAP, describe, following, short_time
from okbot.core.schedules.store import ScheduleStore, utc_now
from okbot.core.turn.outcome import TurnCallbacks, TurnResult, noop
from okbot.core.turn.request import Send
from okbot.core.workspace import Target
from okbot.i18n import translate
from okbot.llm.provider import CancelToken
from okbot.storage.errors import NotFound, OkBotError

log = logging.getLogger("okbot.scheduler")

POLL_SECONDS = 3.0  # how often the files are checked for changes made by another process
CATCH_UP_GRACE = timedelta(minutes=2)  # a run this late was missed (OkBot was not running), not just slow


@dataclass
class SchedulerEvents:
    """What the scheduler tells a front-end, on the scheduler's thread (the desktop turns these into signals)."""

    on_started: Callable[[Target, Job], None] = noop  # a job's turn starts
    on_item: Callable[[Target, dict[str, Any]], None] = noop  # every item it appends, notices included
    on_finished: Callable[[Target, Job, TurnResult | None], None] = noop  # None: it could not run (an error)
    on_skipped: Callable[[Target, Job], None] = noop  # its chat was busy
    on_problem: Callable[[Target, str], None] = noop  # a schedules file that could not be read
    on_changed: Callable[[], None] = noop  # some job's file changed (a run recorded, a job added elsewhere)


def run_job(
    app: OkBotApp,
    target: Target,
    job: Job,
    *,
    note: str = "",
    events: SchedulerEvents | None = None,
    cancel: CancelToken | None = None,
) -> TurnResult | None:
    """Run ``job``'s turn now in ``target``'s chat (after the notice ``note``, if any): its result, or None when
    it was refused before anything was sent (the chat is then told why)."""
    events = events or SchedulerEvents()
    session = app.sources.session(target)
    if note:
        events.on_item(target, session.append(notice(note)))
    events.on_started(target, job)
    callbacks = TurnCallbacks(on_item=lambda item: events.on_item(target, item))
    try:
        result: TurnResult | None = app.run_turn(
            target, Send(job.text, source=job.source), callbacks=callbacks, cancel=cancel
        )
    except OkBotError as exc:
        log.warning("scheduled job %s of %s could not run: %s", job.id, target.id, exc)
        why = translate("scheduler", "Scheduled job {id} could not run: {why}").format(id=job.id, why=exc)
        events.on_item(target, session.append(notice(why, "error")))
        result = None
    events.on_finished(target, job, result)
    return result


def record_result(store: ScheduleStore, target: Target, job: Job, result: TurnResult | None) -> None:
    """Write what a run did into the job (a once job that ran is removed: its run is in the chat)."""

    def change(current: Job) -> Job | None:
        if current.rule.kind == "once" and current.next_run is None:
            return None
        return current.with_changes(last_result=result.status if result is not None else "error")

    try:
        store.update(target, job.id, change)
    except NotFound:
        return  # removed while it ran
    except OkBotError as exc:
        log.warning("the run of scheduled job %s was not recorded: %s", job.id, exc)


def run_now(
    app: OkBotApp, store: ScheduleStore, target: Target, job: Job, events: SchedulerEvents | None = None
) -> TurnResult | None:
    """Run ``job`` at once, asked by the user (the Schedules window's Run now): its last run is noted first, its
    times stay as they were, and what it did is recorded as for a scheduled run."""
    try:
        ran = store.update(target, job.id, lambda current: current.with_changes(last_run=store.clock()))
    except NotFound:
        ran = None
    result = run_job(app, target, ran or job, events=events)
    record_result(store, target, ran or job, result)
    return result


class Scheduler:
    """Runs the due jobs of every target of ``app``'s workspace, one at a time, on its own thread.

    ``clock`` (aware now) and ``tz`` (the zone wall-clock rules follow; None: the system's) are for tests, which
    may also call :meth:`tick` themselves instead of starting the thread."""

    def __init__(
        self,
        app: OkBotApp,
        *,
        store: ScheduleStore | None = None,
        events: SchedulerEvents | None = None,
        clock: Callable[[], datetime] = utc_now,
        tz: tzinfo | None = None,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.app = app
        self.store = store if store is not None else ScheduleStore(clock, tz)
        self.events = events or SchedulerEvents()
        self.clock = clock
        self.tz = tz
        self.poll_seconds = poll_seconds
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._cancel = CancelToken()
        self._thread: threading.Thread | None = None
        self._stamps: dict[str, tuple[int, int] | None] = {}
        self._jobs: dict[str, list[Job]] = {}
        self._told: dict[str, str] = {}  # target dir -> the problem last told

    # -- the thread ------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="okbot-scheduler", daemon=True)
            self._thread.start()

    def wake(self) -> None:
        """Look at the files again now (a job was added, removed or changed in this process)."""
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop the thread (a running job's turn is cancelled); False when it did not end within ``timeout``."""
        self._stopping.set()
        self._cancel.cancel()
        self._wake.set()
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                wait = self.tick()
            except Exception:  # a bug in one pass must not end the schedules for the rest of the session
                log.exception("the scheduler's pass failed")
                wait = self.poll_seconds
            self._wake.wait(wait)
            self._wake.clear()

    # -- one pass --------------------------------------------------------------------------
    def tick(self) -> float:
        """Run every job due now; the seconds until the next look (the next job's time, at most the poll)."""
        now = self.clock()
        due: list[tuple[Target, Job]] = []
        soonest: datetime | None = None
        for target in self.app.workspace.list():
            for job in self._current_jobs(target):
                if job.due(now):
                    due.append((target, job))
                elif job.enabled and job.next_run is not None and (soonest is None or job.next_run < soonest):
                    soonest = job.next_run
        due.sort(key=lambda pair: pair[1].next_run or now)
        for target, job in due:
            if self._stopping.is_set():
                break
            self._run_due(target, job)
        if due:
            self.events.on_changed()
            return 0.0  # look again at once: runs may have taken long and moved the clock past others
        if soonest is None:
            return self.poll_seconds
        return max(0.0, min(self.poll_seconds, (soonest - self.clock()).total_seconds()))

    def _current_jobs(self, target: Target) -> list[Job]:
        key = str(target.dir)
        stamp = self.store.stamp(target)
        if key in self._jobs and self._stamps.get(key) == stamp:
            return self._jobs[key]
        try:
            loaded = self.store.load(target)
        except OkBotError as exc:
            self._tell(target, str(exc))
            return []
        if loaded.problem:
            self._tell(target, loaded.problem)
        if key in self._jobs:
            self.events.on_changed()
        self._stamps[key], self._jobs[key] = self.store.stamp(target), loaded.jobs
        return loaded.jobs

    def _tell(self, target: Target, problem: str) -> None:
        if self._told.get(str(target.dir)) == problem:
            return
        self._told[str(target.dir)] = problem
        log.warning("%s", problem)
        self.events.on_problem(target, problem)
        try:
            self.events.on_item(target, self.app.sources.session(target).append(notice(problem, "warning")))
        except OkBotError as exc:
            log.warning("could not tell %s's chat: %s", target.id, exc)

    def _run_due(self, target: Target, job: Job) -> None:
        due = job.next_run
        assert due is not None
        busy = self.app.turns.busy((target.kind, target.id))
        now = self.clock()
        claimed = self._claim(target, job, now, skipped=busy)
        if claimed is None:
            return
        if busy:
            log.info("scheduled job %s of %s put off a minute: its chat is busy", job.id, target.id)
            self.events.on_skipped(target, claimed)
            return
        note = ""
        if now - due > CATCH_UP_GRACE:
            note = translate(
                "scheduler",
                "Scheduled job {id} ({rule}) was due at {when}: missed while OkBot was not running; run once now.",
            ).format(id=job.id, rule=describe(job.rule, self.tz), when=short_time(due, self.tz))
        result = run_job(self.app, target, claimed, note=note, events=self.events, cancel=self._cancel)
        record_result(self.store, target, claimed, result)

    def _claim(self, target: Target, job: Job, now: datetime, *, skipped: bool) -> Job | None:
        """Move the job's next run on in its file before it runs; None when the file no longer has it due at
        that time (removed, paused or run by another scheduler meanwhile)."""
        claimed: list[Job] = []

        def change(current: Job) -> Job:
            if current.next_run != job.next_run or not current.enabled:
                return current
            if skipped:  # tried again in a minute, whatever the rule: a daily job is late, not lost
                claimed.append(current.with_changes(next_run=now + MIN_GAP, last_result="skipped"))
            else:
                next_run = None if current.rule.kind == "once" else following(current.rule, job.next_run, now, self.tz)
                claimed.append(current.with_changes(next_run=next_run, last_run=now, last_result=""))
            return claimed[0]

        try:
            self.store.update(target, job.id, change)
        except NotFound:
            return None
        except OkBotError as exc:
            self._tell(target, str(exc))
            return None
        return claimed[0] if claimed else None
