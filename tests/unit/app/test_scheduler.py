"""The scheduler: a due job becomes a real turn recorded as the schedule's, a missed one runs once and says so,
a busy chat's job is skipped, and the thread wakes for a job set meanwhile and stops promptly."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest

from okbot.app import OkBotApp
from okbot.app.scheduler import Scheduler, SchedulerEvents
from okbot.config.settings import Settings
from okbot.core.schedules import rules
from okbot.core.schedules.store import FILE, ScheduleStore
from okbot.core.session import SessionStore
from okbot.core.workspace import Workspace
from okbot.llm.provider import CancelToken
from okbot.llm.slots import Priority
from tests.helpers.fake_openai import Reply
from tests.helpers.patience import PATIENT_SECONDS

START = datetime(2026, 6, 10, 12, 0, tzinfo=timezone.utc)


class Clock:
    """The time the scheduler sees, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def app(okbot_home, server):
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    app = OkBotApp(Workspace(), settings, background=False)
    yield app
    app.close()


def _requests_text(server) -> list[str]:
    return [str(body.get("messages")) for body in server.chat_requests()]


def test_a_due_job_becomes_a_turn_recorded_as_the_schedules(app, server) -> None:
    server.set_default(lambda _body: Reply(text="watered"))
    clock = Clock()
    target = app.workspace.ensure_default()
    store = ScheduleStore(clock, timezone.utc)
    job = store.add(target, "Water the plants", rules.every(10))
    scheduler = Scheduler(app, store=store, clock=clock, tz=timezone.utc)
    scheduler.tick()
    assert SessionStore(target.session_path).tail(10) == []  # not due yet
    clock.now = START + timedelta(minutes=10, seconds=5)
    scheduler.tick()
    items = SessionStore(target.session_path).tail(10)
    assert [(it["type"], it.get("source")) for it in items] == [("user", f"schedule:{job.id}"), ("assistant", "app")]
    assert items[0]["content"] == "Water the plants" and items[1]["content"] == "watered"
    assert f"scheduled job {job.id}" in _requests_text(server)[-1]  # the model reads OkBot's line, not "the user"
    after = store.load(target).jobs[0]
    assert after.last_run == clock.now and after.last_result == "complete"
    assert after.next_run == START + timedelta(minutes=20)  # from its time, not from when it ran
    assert not any(it["type"] == "notice" for it in items)  # on time: no catch-up notice


def test_a_job_missed_while_okbot_was_not_running_runs_once_and_says_so(app, server) -> None:
    server.set_default(lambda _body: Reply(text="done"))
    clock = Clock()
    target = app.workspace.ensure_default()
    store = ScheduleStore(clock, timezone.utc)
    job = store.add(target, "Report", rules.every(5))
    clock.now = START + timedelta(hours=6)  # 72 runs missed
    scheduler = Scheduler(app, store=store, clock=clock, tz=timezone.utc)
    scheduler.tick()
    scheduler.tick()
    items = SessionStore(target.session_path).tail(20)
    assert [it["type"] for it in items] == ["notice", "user", "assistant"]
    assert "missed while OkBot was not running; run once now" in items[0]["content"]
    assert job.id in items[0]["content"]
    assert store.load(target).jobs[0].next_run == clock.now + timedelta(minutes=5)


def test_a_once_job_runs_once_and_is_gone(app, server) -> None:
    server.set_default(lambda _body: Reply(text="ok"))
    clock = Clock()
    target = app.workspace.ensure_default()
    store = ScheduleStore(clock, timezone.utc)
    store.add(target, "Remind me", rules.once("+30s", clock.now))
    scheduler = Scheduler(app, store=store, clock=clock, tz=timezone.utc)
    clock.now += timedelta(seconds=31)
    scheduler.tick()
    scheduler.tick()
    assert [it["type"] for it in SessionStore(target.session_path).tail(10)] == ["user", "assistant"]
    assert store.load(target).jobs == []


def test_a_busy_chats_job_is_skipped_and_says_so(app, server) -> None:
    clock = Clock()
    target = app.workspace.ensure_default()
    store = ScheduleStore(clock, timezone.utc)
    job = store.add(target, "Ping", rules.every(1))
    skipped: list[str] = []
    scheduler = Scheduler(
        app,
        store=store,
        clock=clock,
        tz=timezone.utc,
        events=SchedulerEvents(on_skipped=lambda _t, j: skipped.append(j.id)),
    )
    clock.now += timedelta(minutes=1)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with app.turns.turn((target.kind, target.id), Priority.CHAT, CancelToken()):
            held.set()
            release.wait(PATIENT_SECONDS)

    other = threading.Thread(target=hold)
    other.start()
    try:
        assert held.wait(PATIENT_SECONDS)
        scheduler.tick()
    finally:
        release.set()
        other.join()
    assert skipped == [job.id]
    after = store.load(target).jobs[0]
    assert after.last_result == "skipped" and after.next_run == clock.now + timedelta(minutes=1)
    assert server.chat_requests() == [] and SessionStore(target.session_path).tail(5) == []


def test_a_broken_file_is_told_in_its_chat_once_and_other_targets_still_run(app, server) -> None:
    server.set_default(lambda _body: Reply(text="ok"))
    clock = Clock()
    broken = app.workspace.ensure_default()
    fine = app.workspace.create_assistant("Fine")
    store = ScheduleStore(clock, timezone.utc)
    store.add(fine, "Still runs", rules.every(1))
    (broken.dir / FILE).write_text("{oops", "utf-8")
    problems: list[str] = []
    scheduler = Scheduler(
        app,
        store=store,
        clock=clock,
        tz=timezone.utc,
        events=SchedulerEvents(on_problem=lambda _t, p: problems.append(p)),
    )
    clock.now += timedelta(minutes=1)
    scheduler.tick()
    scheduler.tick()
    assert len(problems) == 1 and "schedules.json.bad" in problems[0]
    told = SessionStore(broken.session_path).tail(5)
    assert [it["type"] for it in told] == ["notice"] and str(broken.dir / FILE) in told[0]["content"]
    assert [it["type"] for it in SessionStore(fine.session_path).tail(5)] == ["user", "assistant"]


def test_the_thread_wakes_for_a_job_set_meanwhile_and_stops_promptly(app, server) -> None:
    server.set_default(lambda _body: Reply(text="ok"))
    target = app.workspace.ensure_default()
    finished = threading.Event()
    scheduler = Scheduler(app, poll_seconds=60, events=SchedulerEvents(on_finished=lambda *_a: finished.set()))
    scheduler.start()
    try:
        job = scheduler.store.add(target, "Soon", rules.once("+1s", datetime.now(timezone.utc)))
        scheduler.wake()  # the poll is a minute: only the wake (then the job's own time) brings it
        assert finished.wait(PATIENT_SECONDS)
    finally:
        assert scheduler.stop(timeout=PATIENT_SECONDS)
    items = SessionStore(target.session_path).tail(5)
    assert items[0]["source"] == f"schedule:{job.id}"
