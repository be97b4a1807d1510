"""The app on a one-slot server (the fake answering as llama-cpp-python's does): the user's reply is never
cut by OkBot's own calls, and a chat waiting for another says so on its status line."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from okbot.core.session import SessionStore
from okbot.llm.provider import ChatRequest
from okbot.ui.app_context import AppContext
from okbot.ui.chat_page import ChatPage
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.patience import PATIENT_MS, PATIENT_SECONDS

REPLY = "The whole reply, every word of it, arrives."


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(slots=1) as srv:
        yield srv


def open_chat(qtbot: QtBot, ctx: AppContext, target) -> ChatPage:
    ctx.sources.counter(ctx.sources.model_for(target)).ensure_loaded(timeout=PATIENT_SECONDS)
    page = ChatPage(ctx, target)
    qtbot.addWidget(page)
    page.resize(720, 640)
    page.show()
    qtbot.waitExposed(page)
    qtbot.waitUntil(lambda: not page.view.chat_model().loading, timeout=PATIENT_MS)
    return page


def send(qtbot: QtBot, page: ChatPage, text: str) -> None:
    page.composer.edit.setFocus()
    page.composer.set_text(text)
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_Return)


def replies(target) -> list[tuple[str, str]]:
    return [
        (it["content"], it["status"])
        for it in SessionStore(target.session_path).iter_items()
        if it["type"] == "assistant"
    ]


def test_sending_while_one_of_okbots_own_calls_runs_cuts_nothing(qtbot: QtBot, ctx: AppContext, server) -> None:
    target = ctx.workspace.list()[0]
    page = open_chat(qtbot, ctx, target)
    server.enqueue(
        Reply(text="never comes", never_end=True),  # e.g. upkeep, being answered when the user sends
        Reply(text=REPLY, chunk_chars=3),
        Reply(text="upkeep's answer"),  # sent again once the turn is over
    )
    own: dict[str, str] = {}
    request = ChatRequest(model="gpt-4o-mini", messages=[{"role": "user", "content": "upkeep"}], background=True)
    worker = threading.Thread(target=lambda: own.update(answer=ctx.app.provider.complete(request)), daemon=True)
    worker.start()
    server.wait_for_requests(1)
    with qtbot.waitSignal(page.streaming_changed, check_params_cb=lambda on: not on, timeout=PATIENT_MS):
        send(qtbot, page, "Tell me everything.")
    worker.join(PATIENT_SECONDS)
    assert replies(target) == [(REPLY, "complete")] and server.interruptions == []
    assert own == {"answer": "upkeep's answer"}  # it only waited


def test_a_chat_waiting_for_another_says_so_and_answers_once_the_other_is_done(
    qtbot: QtBot, ctx: AppContext, server
) -> None:
    first = ctx.workspace.list()[0]
    second = ctx.workspace.create_assistant("Second")
    one, two = open_chat(qtbot, ctx, first), open_chat(qtbot, ctx, second)
    server.enqueue(Reply(text="a long answer", chunk_chars=2, never_end=True), Reply(text=REPLY))
    send(qtbot, one, "Write a long answer.")
    server.wait_for_requests(1)
    send(qtbot, two, "A quick question.")
    qtbot.waitUntil(lambda: two.status_text() == "Waiting for the model: another chat is using it", timeout=PATIENT_MS)
    assert len(server.chat_requests()) == 1  # it waits in OkBot, and the first reply goes on
    with qtbot.waitSignal(two.streaming_changed, check_params_cb=lambda on: not on, timeout=PATIENT_MS):
        one.stop()  # the first chat is done (stopped): the second has the model
    assert replies(second) == [(REPLY, "complete")]
    assert "Waiting for the model" not in two.status_text()
    assert server.interruptions == []
