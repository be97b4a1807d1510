"""A turn's limits and loose ends: tool time budget, approvals answered after Stop, calls left
without a result when OkBot closed — real files, the real provider, the fake server."""

from __future__ import annotations

import threading

import pytest

from okbot.core.items import new_item, user_message
from okbot.core.session import SessionStore
from okbot.core.sources import ContextSources
from okbot.core.tools import Tool, ToolOutcome, ToolRegistry
from okbot.core.turn.outcome import TurnCallbacks
from okbot.core.turn.request import Send
from okbot.core.turn.runner import TurnRunner
from okbot.core.workspace import Workspace
from okbot.llm.provider import CancelToken
from tests.helpers.env import provider_for, settings_for
from tests.helpers.fake_openai import Reply, tool_call
from tests.helpers.patience import PATIENT_SECONDS


def make_env(server, tools, clock=None, max_reply_seconds=PATIENT_SECONDS):
    settings_for(server)
    ws = Workspace()
    target = ws.ensure_default()
    sources = ContextSources(ws, tools=ToolRegistry(tools))
    provider = provider_for(server, max_reply_seconds=max_reply_seconds)
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
    runner.run(target, Send("work"))
    results = [it for it in records(target) if it["type"] == "tool_result"]
    assert [r["ok"] for r in results] == [True, True]  # 0 s and 40 s in; then 80 s > 60 s: no more tools
    assert ran[0] == pytest.approx(60, abs=1) and ran[1] == pytest.approx(20, abs=1)
    assert any(it["type"] == "notice" and "tool time of 60 s" in it["content"] for it in records(target))


def test_an_approval_that_arrives_after_stop_changes_nothing(server):
    ran = []
    tool = Tool(
        "act",
        "acts",
        {"type": "object", "properties": {}},
        lambda a, c: ran.append(1) or ToolOutcome("x"),
        approval_key="tools.run_shell.approval",
    )
    target, sources, runner = make_env(server, [tool])
    sources.settings.set("tools.run_shell.approval", "ask")
    cancel = CancelToken()

    def late_yes(name, args):
        cancel.cancel()  # the user pressed Stop while the card was open …
        return True  # … and the card's Allow arrived afterwards

    server.enqueue(Reply(tool_calls=[tool_call("act", {})]), Reply(text="never"))
    result = runner.run(target, Send("do it"), callbacks=TurnCallbacks(ask_approval=late_yes), cancel=cancel)
    assert ran == [] and result.status == "interrupted"
    (denied,) = [it for it in records(target) if it["type"] == "tool_result"]
    assert not denied["ok"] and "did not approve" in denied["content"]


def test_a_call_left_waiting_when_okbot_closed_is_closed_with_a_note_at_the_next_turn(server):
    target, sources, runner = make_env(server, [])
    session = sources.session(target)
    session.append(user_message("tidy the folder"))
    session.append(
        new_item(
            "tool_call",
            author=target.id,
            source="app",
            call_id="call_9",
            name="run_shell",
            arguments='{"command": "rm old.txt"}',
        )
    )  # the app was closed while the card waited
    server.enqueue(Reply(text="Sorry, that did not run. Shall I try again?"))
    seen = []
    runner.run(target, Send("hello?"), callbacks=TurnCallbacks(on_item=seen.append))
    kinds = [(it["type"], it.get("call_id")) for it in records(target)]
    assert kinds[:5] == [
        ("user", None),
        ("tool_call", "call_9"),
        ("tool_result", "call_9"),
        ("notice", None),
        ("user", None),
    ]
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

    tool = Tool(
        "act",
        "acts",
        {"type": "object", "properties": {"n": {"type": "integer"}}},
        lambda a, c: ToolOutcome(f"ran {a['n']}"),
        approval_key="tools.run_shell.approval",
        parallel=True,
    )
    target, sources, runner = make_env(server, [tool])
    sources.settings.set("tools.run_shell.approval", "ask")
    server.enqueue(Reply(tool_calls=[tool_call("act", {"n": 1}), tool_call("act", {"n": 2})]), Reply(text="ok"))
    runner.run(target, Send("both"), callbacks=TurnCallbacks(ask_approval=ask))
    results = [it for it in records(target) if it["type"] == "tool_result"]
    assert sorted(calls) == [1, 2]
    assert [(r["ok"], r["content"][:5]) for r in results] == [(True, "ran 1"), (False, "The u")]


def test_a_reply_with_thousands_of_tool_calls_runs_at_most_the_turn_budget_and_records_one_notice(server):
    """500 calls in one reply (an attack sent 10,000; `make stress` runs that): only the turn's budget is
    recorded and run; one notice covers the rest."""
    ran = []
    tool = Tool(
        "echo",
        "echoes",
        {"type": "object", "properties": {"n": {"type": "integer"}}},
        lambda a, c: ran.append(a["n"]) or ToolOutcome(f"n={a['n']}"),
    )
    target, sources, runner = make_env(server, [tool], max_reply_seconds=120)  # a loaded machine streams slowly
    sources.settings.set("tools.maxCallsPerTurn", 5)
    server.enqueue(Reply(tool_calls=[tool_call("echo", {"n": n}) for n in range(500)]), Reply(text="done"))
    result = runner.run(target, Send("go wild"))
    items = records(target)
    assert ran == [0, 1, 2, 3, 4]
    assert [it["type"] for it in items].count("tool_call") == 5
    assert [it["type"] for it in items].count("tool_result") == 5
    (note,) = [it for it in items if it["type"] == "notice"]
    assert "500 tool calls" in note["content"] and "495" in note["content"]
    assert len(items) <= 14 and result.status == "complete" and result.reply_text == "done"
    last = server.chat_requests()[-1]
    assert "tools" not in last or not last["tools"]  # the budget is spent: the model answers without tools


def test_a_tool_that_crashes_gets_a_failed_result_and_every_call_of_the_round_is_closed(server):
    def broken(args, ctx):
        raise RuntimeError("bug in the tool")

    tools = [
        Tool("broken", "crashes", {"type": "object", "properties": {}}, broken),
        Tool("fine", "works", {"type": "object", "properties": {}}, lambda a, c: ToolOutcome("fine")),
    ]
    target, sources, runner = make_env(server, tools)
    server.enqueue(Reply(tool_calls=[tool_call("broken", {}), tool_call("fine", {})]), Reply(text="sorry"))
    result = runner.run(target, Send("try both"))
    items = records(target)
    calls = {it["call_id"] for it in items if it["type"] == "tool_call"}
    results = {it["call_id"]: it for it in items if it["type"] == "tool_result"}
    assert calls == set(results) and len(calls) == 2
    crashed = [r for r in results.values() if r["name"] == "broken"][0]
    assert not crashed["ok"] and "RuntimeError" in crashed["content"] and "bug in the tool" in crashed["content"]
    assert result.status == "complete"


def test_stop_during_a_long_round_closes_every_call_it_recorded(server):
    cancel = CancelToken()
    ran = []

    def slow_then_stop(args, ctx):
        ran.append(args["n"])
        if len(ran) == 2:
            cancel.cancel()  # the user pressed Stop (or Ctrl+C) while the second call ran
        return ToolOutcome("ok")

    tool = Tool("step", "a step", {"type": "object", "properties": {"n": {"type": "integer"}}}, slow_then_stop)
    target, sources, runner = make_env(server, [tool])
    server.enqueue(Reply(tool_calls=[tool_call("step", {"n": n}) for n in range(30)]), Reply(text="never"))
    result = runner.run(target, Send("many steps"), cancel=cancel)
    items = records(target)
    calls = [it["call_id"] for it in items if it["type"] == "tool_call"]
    results = [it for it in items if it["type"] == "tool_result"]
    assert result.status == "interrupted" and ran == [0, 1]
    assert [r["call_id"] for r in results] == calls and len(calls) == 30
    assert all("the user stopped the turn" in r["content"] for r in results[2:])
