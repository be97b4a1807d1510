"""``manage_schedule`` through a real turn: the assistant sets, lists and removes its own chat's jobs, behind the
approval card, and cannot reach another chat's."""

from __future__ import annotations

import pytest

from okbot.core.schedules import rules
from okbot.core.schedules.store import ScheduleStore
from okbot.core.sources import ContextSources
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Send
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Workspace
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_openai import Reply, tool_call


@pytest.fixture
def env(server):
    settings_for(server)
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws)
    return target, sources, TurnRunner(sources, provider_for(server, max_retries=0)), ws


def _results(result) -> list[dict]:
    return [it for it in result.items if it["type"] == "tool_result"]


def test_the_assistant_sets_lists_and_removes_its_jobs_after_asking(env, server) -> None:
    target, _sources, runner, _ws = env
    server.enqueue(
        Reply(
            tool_calls=[
                tool_call(
                    "manage_schedule", {"action": "create", "kind": "daily", "at": "07:30", "message": "Plan the day"}
                )
            ]
        ),
        Reply(tool_calls=[tool_call("manage_schedule", {"action": "list"})]),
        Reply(text="Set for 07:30 every day."),
    )
    asked: list[str] = []
    approve = TurnCallbacks(ask_approval=lambda name, _args: asked.append(name) or True)
    result = runner.run(target, Send("remind me each morning to plan the day"), callbacks=approve)
    assert result.status == "complete" and asked == ["manage_schedule", "manage_schedule"]
    jobs = ScheduleStore().load(target).jobs
    assert [(j.text, j.rule, j.created_by) for j in jobs] == [("Plan the day", rules.daily("07:30"), "assistant")]
    created, listed = _results(result)
    assert created["ok"] and jobs[0].id in created["content"]
    assert "daily at 07:30" in listed["content"] and "set by the assistant" in listed["content"]

    server.enqueue(
        Reply(tool_calls=[tool_call("manage_schedule", {"action": "remove", "job_id": jobs[0].id})]),
        Reply(text="Removed."),
    )
    runner.run(target, Send("stop that"), callbacks=approve)
    assert ScheduleStore().load(target).jobs == []


def test_a_denied_call_sets_nothing(env, server) -> None:
    target, _sources, runner, _ws = env
    server.enqueue(
        Reply(tool_calls=[tool_call("manage_schedule", {"action": "create", "kind": "hourly", "message": "x"})]),
        Reply(text="ok"),
    )
    result = runner.run(target, Send("ping me hourly"), callbacks=TurnCallbacks(ask_approval=lambda *_a: False))
    assert not _results(result)[0]["ok"] and ScheduleStore().load(target).jobs == []


def test_bad_rules_and_other_chats_jobs_are_refused_with_why(env, server) -> None:
    target, sources, runner, ws = env
    sources.settings.set("tools.manage_schedule.approval", "allow")
    other = ws.create_assistant("Other")
    theirs = ScheduleStore().add(other, "theirs", rules.every(5))
    server.enqueue(
        Reply(
            tool_calls=[
                tool_call("manage_schedule", {"action": "create", "kind": "every", "minutes": 0, "message": "x"})
            ]
        ),
        Reply(tool_calls=[tool_call("manage_schedule", {"action": "remove", "job_id": theirs.id})]),
        Reply(tool_calls=[tool_call("manage_schedule", {"action": "create", "kind": "once", "when": "+1m"})]),
        Reply(text="done"),
    )
    result = runner.run(target, Send("try things"))
    too_often, not_mine, no_message = _results(result)
    assert not too_often["ok"] and "whole number of minutes" in too_often["content"]
    assert not not_mine["ok"] and f"No scheduled job {theirs.id}" in not_mine["content"]
    assert not no_message["ok"] and "needs a message" in no_message["content"]
    assert [j.id for j in ScheduleStore().load(other).jobs] == [theirs.id]
    assert ScheduleStore().load(target).jobs == []
