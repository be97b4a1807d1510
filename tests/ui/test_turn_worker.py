"""TurnWorker: a real turn against the fake OpenAI server, its signals delivered on the GUI thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from okbot.config.settings import Settings
from okbot.core.turn.outcome import TurnResult
from okbot.core.turn.request import Retry, Send
from okbot.core.workspace import Target, Workspace
from okbot.llm.events import Retrying
from okbot.ui.app_context import AppContext
from okbot.ui.turn_worker import TurnWorker
from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as srv:
        yield srv


@pytest.fixture
def ctx(qapp: object, server: FakeOpenAIServer) -> AppContext:
    settings = Settings.load()
    settings.set("provider.baseUrl", server.base_url)
    settings.set("provider.keySource", "none")
    settings.set("provider.maxRetries", 2)
    settings.save()
    ws = Workspace()
    ws.ensure_default()
    return AppContext.create(ws, settings)


def default_target(ctx: AppContext) -> Target:
    return ctx.workspace.list()[0]


def test_a_turn_streams_deltas_then_finishes(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(text="Hello there, friend.", chunk_chars=4))
    worker = TurnWorker(ctx.app, default_target(ctx), Send("hi"), tasks=ctx.tasks)
    deltas: list[str] = []
    items: list[dict] = []
    worker.delta.connect(deltas.append)
    worker.item.connect(items.append)
    with qtbot.waitSignal(worker.finished, timeout=10_000) as blocker:
        worker.start()
    result: TurnResult = blocker.args[0]
    assert result.status == "complete"
    assert "".join(deltas) == "Hello there, friend." and len(deltas) > 1
    assert [it["type"] for it in items] == ["user", "assistant"]
    assert not worker.running


def test_a_refused_message_fails_and_writes_nothing(qtbot: QtBot, ctx: AppContext) -> None:
    target = default_target(ctx)
    worker = TurnWorker(ctx.app, target, Send("   "), tasks=ctx.tasks)
    with qtbot.waitSignal(worker.failed) as blocker:
        worker.start()
    assert "empty" in blocker.args[0]
    assert len(ctx.sources.session(target)) == 0


def test_stop_keeps_the_partial_reply(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(text="partial words " * 400, chunk_chars=5, chunk_delay=0.01))
    worker = TurnWorker(ctx.app, default_target(ctx), Send("long please"), tasks=ctx.tasks)
    deltas: list[str] = []
    worker.delta.connect(deltas.append)
    worker.start()
    qtbot.waitUntil(lambda: len(deltas) >= 3, timeout=10_000)
    with qtbot.waitSignal(worker.finished, timeout=10_000) as blocker:
        worker.stop()
    result: TurnResult = blocker.args[0]
    assert result.status == "interrupted"
    stored = ctx.sources.session(default_target(ctx)).tail(1)[0]
    assert stored["status"] == "interrupted" and stored["content"].startswith("partial words")


def test_retry_runs_the_last_user_message_again(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    target = default_target(ctx)
    server.enqueue(Reply(status=500), Reply(status=500), Reply(status=500))
    worker = TurnWorker(ctx.app, target, Send("question"), tasks=ctx.tasks)
    events: list[object] = []
    worker.event.connect(events.append)
    with qtbot.waitSignal(worker.finished, timeout=15_000) as blocker:
        worker.start()
    assert blocker.args[0].status == "error"
    assert any(isinstance(e, Retrying) for e in events)

    server.enqueue(Reply(text="second time lucky"))
    retry = TurnWorker(ctx.app, target, Retry(), tasks=ctx.tasks)
    assert isinstance(retry.request, Retry) and not retry.branches
    with qtbot.waitSignal(retry.finished, timeout=10_000) as blocker:
        retry.start()
    assert blocker.args[0].status == "complete"
    assert blocker.args[0].reply_text == "second time lucky"
    users = [it for it in ctx.sources.session(target).tail(10) if it["type"] == "user"]
    assert len(users) == 1  # the retry did not append the question again


@pytest.mark.parametrize("approve", [True, False])
def test_approval_is_asked_on_the_gui_thread(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer, approve: bool
) -> None:
    ctx.settings.set("tools.search_history.approval", "ask")
    server.enqueue(Reply(tool_calls=[tool_call("search_history", {"query": "hello"})]), Reply(text="done"))
    worker = TurnWorker(ctx.app, default_target(ctx), Send("find hello"), tasks=ctx.tasks)
    gui = threading.get_ident()
    asked: list[tuple[str, dict, int]] = []

    def on_approval(name: str, args: dict, reply: object) -> None:
        asked.append((name, args, threading.get_ident()))
        reply(approve)  # type: ignore[operator]

    worker.approval_needed.connect(on_approval)
    with qtbot.waitSignal(worker.finished, timeout=10_000) as blocker:
        worker.start()
    assert asked == [("search_history", {"query": "hello"}, gui)]
    results = [it for it in blocker.args[0].items if it["type"] == "tool_result"]
    assert results and results[0]["ok"] is approve


def test_stop_answers_a_pending_approval_with_no(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    ctx.settings.set("tools.search_history.approval", "ask")
    server.enqueue(Reply(tool_calls=[tool_call("search_history", {"query": "x"})]), Reply(text="after"))
    worker = TurnWorker(ctx.app, default_target(ctx), Send("find x"), tasks=ctx.tasks)
    worker.approval_needed.connect(lambda *_a: worker.stop())
    with qtbot.waitSignal(worker.finished, timeout=10_000) as blocker:
        worker.start()
    assert blocker.args[0].status == "interrupted"


def test_a_worker_runs_once(qtbot: QtBot, ctx: AppContext) -> None:
    worker = TurnWorker(ctx.app, default_target(ctx), Send("  "), tasks=ctx.tasks)
    with qtbot.waitSignal(worker.failed):
        worker.start()
    with pytest.raises(RuntimeError):
        worker.start()
