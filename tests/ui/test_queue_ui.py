"""A queue of turns in the app: a message sent while a reply streams waits (shown, cancellable) and goes after
it; three chats reply side by side and a fourth says it waits (offscreen Qt, the fake server's delays)."""

from __future__ import annotations

import threading

from PySide6.QtWidgets import QToolButton
from pytestqt.qtbot import QtBot

from okbot.ui.app_context import AppContext
from okbot.ui.chat_page import QUEUE_BACK, ChatPage
from okbot.ui.queued_messages import MAX_QUEUED
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.patience import PATIENT_SECONDS
from tests.ui.test_chat_page import open_page, shown_text, streaming_text, type_and_enter, wait_idle


def queued_texts(page: ChatPage) -> list[str]:
    return [m.text for m in page.queued.messages()]


def slow(text: str) -> Reply:
    return Reply(text=text, chunk_chars=2, chunk_delay=0.02)


def test_a_message_sent_while_a_reply_streams_is_queued_and_goes_after_it(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    server.enqueue(slow("The first answer, slowly. " * 4), Reply(text="The second answer."))
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "first question")
    qtbot.waitUntil(lambda: bool(streaming_text(page)))
    type_and_enter(qtbot, page, "second question")  # Enter while it streams: queued, not refused
    assert queued_texts(page) == ["second question"] and page.queued.isVisible()
    assert page.composer.text() == ""
    assert len(server.chat_requests()) == 1  # nothing sent yet
    qtbot.waitUntil(lambda: "The second answer." in shown_text(page))
    wait_idle(qtbot, page)
    assert [m["content"] for m in server.chat_requests()[1]["messages"] if m["role"] == "user"][-1] == (
        "second question"
    )
    assert len(page.queued) == 0 and not page.queued.isVisible()
    users = [it["content"] for it in ctx.sources.session(page.target).iter_items() if it["type"] == "user"]
    assert users == ["first question", "second question"]


def test_cancelling_a_queued_message_gives_it_back_to_the_box(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    server.enqueue(slow("Still going. " * 8))
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "go")
    qtbot.waitUntil(lambda: bool(streaming_text(page)))
    type_and_enter(qtbot, page, "never mind this one")
    page.composer.set_text("a draft")
    page.queued.findChild(QToolButton, "cancelQueuedButton").click()  # its ✕
    assert len(page.queued) == 0
    assert page.composer.text() == "a draft\n\nnever mind this one"  # nothing typed is lost
    wait_idle(qtbot, page)
    assert len(server.chat_requests()) == 1


def test_stop_gives_the_queued_messages_back_instead_of_sending_them(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    server.enqueue(slow("A long answer. " * 40))
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "tell me everything")
    qtbot.waitUntil(lambda: bool(streaming_text(page)))
    type_and_enter(qtbot, page, "and then this")
    type_and_enter(qtbot, page, "and that")
    page.stop()
    wait_idle(qtbot, page)
    assert page.composer.text() == "and then this\n\nand that"
    assert page.status_text() == QUEUE_BACK and len(page.queued) == 0
    assert len(server.chat_requests()) == 1


def test_the_queue_is_bounded_and_what_does_not_fit_stays_in_the_box(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    release = threading.Event()
    server.set_default(lambda _body: (release.wait(PATIENT_SECONDS), Reply(text="ok"))[1])
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "start")
    qtbot.waitUntil(lambda: page.streaming)
    for i in range(MAX_QUEUED):
        type_and_enter(qtbot, page, f"q{i}")
    type_and_enter(qtbot, page, "one too many")
    assert len(page.queued) == MAX_QUEUED and page.composer.text() == "one too many"
    page.stop()
    release.set()
    wait_idle(qtbot, page)


def test_three_chats_reply_side_by_side_and_a_fourth_says_it_waits(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    ctx.settings.set("provider.slots", 4)  # a hosted server: slots for every chat; only the turn limit holds
    release = threading.Event()
    started: list[dict] = []

    def reply(body: dict) -> Reply:
        started.append(body)
        release.wait(PATIENT_SECONDS)
        return Reply(text="done here")

    server.set_default(reply)
    targets = [ctx.workspace.list()[0], *(ctx.workspace.create_assistant(f"Helper {i}") for i in range(3))]
    pages = []
    for target in targets:
        page = ChatPage(ctx, target)
        qtbot.addWidget(page)
        page.show()
        pages.append(page)
    for page in pages[:3]:
        page.send("hello")
    qtbot.waitUntil(lambda: len(started) == 3)
    pages[3].send("hello too")
    qtbot.waitUntil(lambda: "3 other chats are replying" in pages[3].status_text())
    assert len(started) == 3
    release.set()
    for page in pages:
        qtbot.waitUntil(lambda p=page: not p.streaming and "done here" in shown_text(p))
    assert len(started) == 4
    assert "other chats" not in pages[3].status_text()
