"""A turn's limits and loose ends: tool time budget, approvals answered after Stop, calls left
without a result when OkBot closed — real files, the real provider, the fake server."""

from __future__ import annotations

import threading

import pytest

from okbot.core.items import new_item, user_message
from okbot.core.runner import TurnCallbacks, TurnRunner
from okbot.core.session import SessionStore
from okbot.core.sources import ContextSources
from okbot.core.tools import Tool, ToolOutcome, ToolRegistry
from okbot.core.workspace import Workspace
from okbot.llm.provider import CancelToken
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_openai import Reply, tool_call


def make_env(server, tools, clock=None):
    settings_for(server)
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws, tools=ToolRegistry(tools))
    provider = provider_for(server, max_reply_seconds=3)
    return target, sources, TurnRunner(sources, provider, **({"clock": clock} if clock else {}))


def records(target):
    return list(SessionStore(target.session_path).iter_items())


def test_the_tool_time_budget_stops_tools_and_says_so(server):
    ran = []
    clock = [0.0]

    def slow(args, ctx):
        ran.append(ctx.runtime.remaining_seconds())
        clock[0] += 40  # each call "takes" 40 s of the turn
        return ToolOutcome("done")

    tool = Tool("slow", "a slow tool", {"type": "object", "properties": {}}, slow)
    target, sources, runner = make_env(server, [tool], clock=lambda: clock[0])  # time moves only in the tool
    sources.settings.set("tools.turnSeconds", 60)
    server.enqueue(*[Reply(tool_calls=[tool_call("slow", {})]) for _ in range(3)], Reply(text="ok"))
    runner.run_turn(target, "work")
    results = [it for it in records(target) if it["type"] == "tool_result"]
    assert [r["ok"] for r in results] == [True, True]  # 0 s and 40 s in; then 80 s > 60 s: no more tools
    assert ran[0] == pytest.approx(60, abs=1) and ran[1] == pytest.approx(20, abs=1)
    assert any(it["type"] == "notice" and "tool time of 60 s" in it["content"] for it in records(target))


def test_an_approval_that_arrives_after_stop_changes_nothing(server):
    ran = []
    tool = Tool("act", "acts", {"type": "object", "properties": {}}, lambda a, c: ran.append(1) or ToolOutcome("x"),
                approval_key="tools.run_shell.approval")
    target, sources, runner = make_env(server, [tool])
    sources.settings.set("tools.run_shell.approval", "ask")
    cancel = CancelToken()

    def late_yes(name, args):
        cancel.cancel()  # the user pressed Stop while the card was open …
        return True  # … and the card's Allow arrived afterwards

    server.enqueue(Reply(tool_calls=[tool_call("act", {})]), Reply(text="never"))
    result = runner.run_turn(target, "do it", callbacks=TurnCallbacks(ask_approval=late_yes), cancel=cancel)
    assert ran == [] and result.status == "interrupted"
    (denied,) = [it for it in records(target) if it["type"] == "tool_result"]
    assert not denied["ok"] and "did not approve" in denied["content"]


def test_a_call_left_waiting_when_okbot_closed_is_closed_with_a_note_at_the_next_turn(server):
    target, sources, runner = make_env(server, [])
    session = sources.session(target)
    session.append(user_message("tidy the folder"))
    session.append(new_item("tool_call", author=target.id, source="app", call_id="call_9", name="run_shell",
                            arguments='{"command": "rm old.txt"}'))  # the app was closed while the card waited
    server.enqueue(Reply(text="Sorry, that did not run. Shall I try again?"))
    seen = []
    runner.run_turn(target, "hello?", callbacks=TurnCallbacks(on_item=seen.append))
    kinds = [(it["type"], it.get("call_id")) for it in records(target)]
    assert kinds[:5] == [("user", None), ("tool_call", "call_9"), ("tool_result", "call_9"), ("notice", None),
                         ("user", None)]
    closed = records(target)[2]
    assert not closed["ok"] and "OkBot closed before this call was approved" in closed["content"]
    assert seen[0]["id"] == closed["id"]  # the UI hears about it like any other item
    sent = server.chat_requests()[-1]["messages"]
    assert any(m["role"] == "tool" and "was not run" in m["content"] for m in sent)


def test_parallel_approvals_each_get_an_answer(server):
    """Two members asking at once: the callback is called twice, from two threads, and both answers count."""
    calls = []
    lock = threading.Lock()

    def ask(name, args):
        with lock:
            calls.append(args.get("n"))
        return args.get("n") == 1

    tool = Tool("act", "acts", {"type": "object", "properties": {"n": {"type": "integer"}}},
                lambda a, c: ToolOutcome(f"ran {a['n']}"), approval_key="tools.run_shell.approval", parallel=True)
    target, sources, runner = make_env(server, [tool])
    sources.settings.set("tools.run_shell.approval", "ask")
    server.enqueue(Reply(tool_calls=[tool_call("act", {"n": 1}), tool_call("act", {"n": 2})]), Reply(text="ok"))
    runner.run_turn(target, "both", callbacks=TurnCallbacks(ask_approval=ask))
    results = [it for it in records(target) if it["type"] == "tool_result"]
    assert sorted(calls) == [1, 2]
    assert [(r["ok"], r["content"][:5]) for r in results] == [(True, "ran 1"), (False, "The u")]
