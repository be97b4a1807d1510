"""A target's schedules.json: jobs kept across reads, the 50-job limit, hand-edited and newer files."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from okbot.core.schedules import rules
from okbot.core.schedules.rules import BadRule, Rule
from okbot.core.schedules.store import FILE, MAX_JOBS, ScheduleStore
from okbot.core.workspace import Workspace
from okbot.storage.errors import NotFound, OkBotError

NOW = datetime(2026, 6, 10, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def ws() -> Workspace:
    return Workspace()


@pytest.fixture
def store() -> ScheduleStore:
    return ScheduleStore(clock=lambda: NOW, tz=timezone.utc)


def test_a_job_added_is_read_back_by_another_store_with_its_next_run(ws: Workspace, store: ScheduleStore) -> None:
    target = ws.ensure_default()
    job = store.add(target, "  Water the plants  ", rules.every(30), created_by="assistant")
    again = ScheduleStore().load(target)
    assert again.problem == ""
    assert [j.id for j in again.jobs] == [job.id]
    read = again.jobs[0]
    assert (read.text, read.rule, read.created_by, read.next_run) == (
        "Water the plants",
        rules.every(30),
        "assistant",
        NOW + timedelta(minutes=30),
    )
    on_disk = json.loads((target.dir / FILE).read_text("utf-8"))
    assert on_disk["version"] == 1 and on_disk["jobs"][0]["id"] == job.id


def test_an_empty_message_is_refused_and_nothing_written(ws: Workspace, store: ScheduleStore) -> None:
    target = ws.ensure_default()
    with pytest.raises(BadRule, match="needs a message"):
        store.add(target, "   ", Rule("hourly"))
    assert not (target.dir / FILE).exists()


def test_at_most_fifty_jobs_per_target_and_others_are_not_counted(ws: Workspace, store: ScheduleStore) -> None:
    target = ws.ensure_default()
    other = ws.create_assistant("Other")
    for n in range(MAX_JOBS):
        store.add(target, f"job {n}", rules.every(5))
    with pytest.raises(OkBotError, match="50 scheduled jobs"):
        store.add(target, "one more", rules.every(5))
    assert len(store.load(target).jobs) == MAX_JOBS
    assert store.add(other, "fine here", rules.every(5)).target_id == other.id


def test_remove_and_find_across_targets(ws: Workspace, store: ScheduleStore) -> None:
    target = ws.ensure_default()
    other = ws.create_assistant("Other")
    kept = store.add(target, "a", rules.every(5))
    gone = store.add(other, "b", rules.every(5))
    assert store.find(ws.list(), gone.id)[0].id == other.id
    store.remove(other, gone.id)
    with pytest.raises(NotFound, match=gone.id):
        store.find(ws.list(), gone.id)
    with pytest.raises(NotFound):
        store.remove(other, gone.id)
    assert [j.id for j in store.load(target).jobs] == [kept.id]


def test_a_paused_job_is_not_due_and_resuming_moves_a_passed_time_on(ws: Workspace) -> None:
    now = [NOW]
    store = ScheduleStore(clock=lambda: now[0], tz=timezone.utc)
    target = ws.ensure_default()
    job = store.add(target, "a", rules.every(5))
    paused = store.set_enabled(target, job.id, False)
    now[0] = NOW + timedelta(hours=3)
    assert not paused.due(now[0])
    resumed = store.set_enabled(target, job.id, True)
    assert resumed.next_run == now[0] + timedelta(minutes=5)


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "[]",
        '{"version": 1, "jobs": {}}',
        '{"version": 1, "jobs": [{"id": "j1", "text": "hi"}]}',
        '{"version": 1, "jobs": [{"id": "j1", "text": "hi", "rule": {"kind": "every", "minutes": 0},'
        ' "created": "2026-01-01T00:00:00+00:00"}]}',
        '{"version": "one", "jobs": []}',
    ],
)
def test_a_broken_file_is_moved_aside_named_and_others_keep_their_jobs(
    ws: Workspace, store: ScheduleStore, text: str
) -> None:
    target = ws.ensure_default()
    other = ws.create_assistant("Other")
    kept = store.add(other, "still here", rules.every(5))
    path = target.dir / FILE
    path.write_text(text, "utf-8")
    loaded = store.load(target)
    assert loaded.jobs == []
    assert str(path) in loaded.problem and "schedules.json.bad" in loaded.problem
    assert (target.dir / "schedules.json.bad").read_text("utf-8") == text
    assert [j.id for j in store.load(other).jobs] == [kept.id]
    # a second broken file never overwrites the first one kept aside
    path.write_text("{again", "utf-8")
    assert "schedules.json.bad.2" in store.load(target).problem
    assert (target.dir / "schedules.json.bad").read_text("utf-8") == text
    # and the target takes new jobs again
    assert store.add(target, "new", rules.every(5)).target_id == target.id


def test_a_newer_file_is_left_untouched_and_changes_are_refused(ws: Workspace, store: ScheduleStore) -> None:
    target = ws.ensure_default()
    path = target.dir / FILE
    raw = '{"version": 9, "jobs": [{"id": "j1", "whatever": true}]}'
    path.write_text(raw, "utf-8")
    loaded = store.load(target)
    assert loaded.read_only and loaded.jobs == [] and "newer version" in loaded.problem
    with pytest.raises(OkBotError, match="newer version"):
        store.add(target, "hi", rules.every(5))
    assert path.read_text("utf-8") == raw


def test_keys_a_newer_okbot_added_to_a_job_are_kept(ws: Workspace, store: ScheduleStore) -> None:
    target = ws.ensure_default()
    job = store.add(target, "a", rules.every(5))
    path = target.dir / FILE
    obj = json.loads(path.read_text("utf-8"))
    obj["jobs"][0]["colour"] = "blue"
    path.write_text(json.dumps(obj), "utf-8")
    store.set_enabled(target, job.id, False)
    assert json.loads(path.read_text("utf-8"))["jobs"][0]["colour"] == "blue"
