"""The chat page driving real turns against the fake OpenAI server (offscreen Qt, real files)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QInputMethodEvent
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from okbot.core import chat_text
from okbot.core.items import new_item, user_message
from okbot.core.tokens import counting
from okbot.core.workspace import Target
from okbot.ui.app_context import AppContext
from okbot.ui.chat.model import ChatModel
from okbot.ui.chat_page import RECALL_LOOKBACK, STOPPED_TEXT, ChatPage
from okbot.ui.composer import Composer
from okbot.ui.token_gauge import GaugeReading, TokenGauge, TokenGaugeFeed, reading_for
from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call
from tests.helpers.patience import PATIENT_MS

LONG = "word " * 600


def open_page(qtbot: QtBot, ctx: AppContext) -> ChatPage:
    target = ctx.workspace.list()[0]
    page = ChatPage(ctx, target)
    qtbot.addWidget(page)
    page.resize(800, 600)
    page.show()
    qtbot.waitExposed(page)
    return page


def target_of(ctx: AppContext) -> Target:
    return ctx.workspace.list()[0]


def type_and_enter(qtbot: QtBot, page: ChatPage, text: str) -> None:
    page.composer.edit.setFocus()
    page.composer.set_text(text)
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_Return)


def wait_idle(qtbot: QtBot, page: ChatPage) -> None:
    qtbot.waitUntil(lambda: not page.streaming, timeout=15_000)


def shown_text(page: ChatPage) -> str:
    """Every loaded row's text and the streaming reply, one per line."""
    model = page.view.chat_model()
    lines = [str(item.get("content", "")) for row in range(model.rowCount()) if (item := model.item(row))]
    if model.streaming:
        lines.append(model.stream_text)
    return "\n".join(lines)


def streaming_text(page: ChatPage) -> str | None:
    """The reply streaming in right now (``None`` when there is no streaming row)."""
    model = page.view.chat_model()
    return model.stream_text if model.streaming else None


# ------------------------------------------------------------------------------ sending
def test_send_streams_the_reply_and_writes_it(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(text="Hello! Here is some streamed text.", chunk_chars=3, chunk_delay=0.01))
    page = open_page(qtbot, ctx)
    deltas: list[str] = []
    type_and_enter(qtbot, page, "Say hello")
    assert page.streaming and page.composer.button.text() == "Stop"
    page.worker.delta.connect(deltas.append)
    streamed: list[str] = []
    page.worker.delta.connect(lambda _t: streamed.append(streaming_text(page) or ""))
    wait_idle(qtbot, page)
    assert any(0 < len(s) < len("Hello! Here is some streamed text.") for s in streamed)  # shown growing
    assert len(deltas) > 2  # it streamed in pieces
    assert page.composer.text() == ""  # accepted, so cleared
    assert page.composer.button.text() == "Send"
    items = ctx.sources.session(target_of(ctx)).tail(5)
    assert [(it["type"], it["content"]) for it in items] == [
        ("user", "Say hello"),
        ("assistant", "Hello! Here is some streamed text."),
    ]
    assert server.chat_requests()[0]["messages"][-1] == {"role": "user", "content": "Say hello"}
    qtbot.waitUntil(lambda: "Here is some streamed text." in shown_text(page))
    assert streaming_text(page) is None


def test_stop_mid_stream_keeps_the_partial_reply(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(text=LONG, chunk_chars=5, chunk_delay=0.01))
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "Talk for a long time")
    got: list[str] = []
    page.worker.delta.connect(got.append)
    qtbot.waitUntil(lambda: len(got) >= 3, timeout=10_000)
    qtbot.mouseClick(page.composer.button, Qt.MouseButton.LeftButton)  # the button says Stop
    wait_idle(qtbot, page)
    last = ctx.sources.session(target_of(ctx)).tail(1)[0]
    assert last["type"] == "assistant" and last["status"] == "interrupted"
    assert last["content"] and LONG.startswith(last["content"]) and len(last["content"]) < len(LONG)
    assert page.last_result.status == "interrupted"
    assert page.status_text() == STOPPED_TEXT  # no second Retry here: the bubble has it
    qtbot.waitUntil(lambda: last["content"] in shown_text(page))  # the partial reply stays on screen


def failed_rows(page: ChatPage) -> list[dict]:
    """The failed replies the chat view shows, as the rows it reads."""
    model = page.view.chat_model()
    rows = [model.item(row) for row in range(model.rowCount())]
    return [it for it in rows if it and it["type"] == "assistant" and it.get("status") == "error"]


def test_retry_after_a_failed_reply(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(status=500), Reply(status=500))  # first try + one retry (provider.maxRetries=1)
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "Are you there?")
    wait_idle(qtbot, page)
    assert page.last_result.status == "error"
    qtbot.waitUntil(lambda: len(failed_rows(page)) == 1)
    row = page.view.chat_model().row_of_id(failed_rows(page)[0]["id"])
    assert page.view.chat_model().index(row, 0).data(ChatModel.RetryableRole)  # the bubble's Retry: the one place
    assert "Retry" not in page.status_text() and page.findChild(QPushButton, "retryButton") is None

    server.enqueue(Reply(text="Yes, I am here."))
    page.view.retry_requested.emit()
    wait_idle(qtbot, page)
    assert page.last_result.status == "complete"
    items = ctx.sources.session(target_of(ctx)).tail(10)
    assert [it["type"] for it in items] == ["user", "assistant", "assistant"]
    assert items[-1]["content"] == "Yes, I am here." and items[1]["status"] == "error"
    assert page.status_text() == ""


def test_failed_retries_of_a_turn_show_one_bubble_with_the_latest_attempt(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    server.enqueue(*[Reply(status=500, error_message="overloaded")] * 6)  # three attempts, each tried twice
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "Are you there?")
    wait_idle(qtbot, page)
    for _ in range(2):
        page.view.retry_requested.emit()
        wait_idle(qtbot, page)
    qtbot.waitUntil(lambda: chat_text.status_line(failed_rows(page)[-1]).startswith("Failed again (attempt 3)"))
    assert len(failed_rows(page)) == 1
    assert "Retry" not in page.status_text()
    record = ctx.sources.session(target_of(ctx)).tail(10)  # append-only: every failed attempt stays on disk
    assert [(it["type"], it.get("status")) for it in record] == [("user", None)] + [("assistant", "error")] * 3

    reopened = open_page(qtbot, ctx)  # read back from the file: still one bubble for the turn
    qtbot.waitUntil(lambda: len(failed_rows(reopened)) == 1 and reopened.view.chat_model().rowCount() == 2)
    assert chat_text.status_line(failed_rows(reopened)[0]).startswith("Failed again (attempt 3)")


def test_a_new_message_after_a_failure_keeps_that_failure_on_show(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    server.enqueue(Reply(status=500), Reply(status=500), Reply(status=500), Reply(status=500))
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "first")
    wait_idle(qtbot, page)
    type_and_enter(qtbot, page, "second")
    wait_idle(qtbot, page)
    qtbot.waitUntil(lambda: len(failed_rows(page)) == 2)  # two turns, one failure each: nothing folded
    assert all(chat_text.status_line(it).startswith("The reply failed") for it in failed_rows(page))


def test_retry_requested_by_the_chat_view_runs_a_retry(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(status=500), Reply(status=500))  # Retry is offered on a failed reply
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "first")
    wait_idle(qtbot, page)
    server.enqueue(Reply(text="again"))
    page.view.retry_requested.emit()
    assert page.streaming
    wait_idle(qtbot, page)
    assert page.last_result.reply_text == "again"


def test_a_refused_message_stays_in_the_composer(qtbot: QtBot, ctx: AppContext) -> None:
    ctx.settings.set("model.contextWindow", 1024)
    page = open_page(qtbot, ctx)
    huge = "lorem ipsum dolor " * 2000
    type_and_enter(qtbot, page, huge)
    wait_idle(qtbot, page)
    assert page.composer.text() == huge
    assert "cannot fit" in page.status_text()
    assert len(ctx.sources.session(target_of(ctx))) == 0


def test_retrying_and_degraded_events_show_in_the_status_line(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    server.enqueue(Reply(status=503), Reply(reject_stream_options=True), Reply(text="recovered"))
    page = open_page(qtbot, ctx)
    seen: list[str] = []
    type_and_enter(qtbot, page, "hi")
    page.worker.event.connect(lambda _e: seen.append(page.status_text()))
    wait_idle(qtbot, page)
    assert any(" — retrying in " in s and s.endswith("(attempt 2 of 2).") for s in seen), seen
    assert any(s.startswith("Note:") for s in seen), seen
    assert page.last_result.reply_text == "recovered"
    assert page.status_text().startswith("Note:")  # a degraded server stays noted after the reply


# ------------------------------------------------------------------------------ approval
def test_approval_card_for_search_history_under_ask(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    ctx.settings.set("tools.search_history.approval", "ask")
    server.enqueue(Reply(tool_calls=[tool_call("search_history", {"query": "budget"})]), Reply(text="Found it."))
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "what did we say about the budget?")
    qtbot.waitUntil(lambda: page.approval.isVisible(), timeout=10_000)
    assert "search this chat's full original record" in page.approval.label.text()
    assert '"query": "budget"' in page.approval.arguments.toPlainText()  # the exact arguments, not a summary
    assert page.streaming  # the turn waits for the answer
    qtbot.mouseClick(page.approval.allow_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, page)
    assert not page.approval.isVisible()
    result = [it for it in page.last_result.items if it["type"] == "tool_result"][0]
    assert result["ok"] is True
    assert page.last_result.reply_text == "Found it."


def test_always_allow_sets_the_tool_to_allow_and_the_next_call_is_not_asked(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    ctx.settings.set("tools.search_history.approval", "ask")
    server.enqueue(
        Reply(tool_calls=[tool_call("search_history", {"query": "a"})]),
        Reply(tool_calls=[tool_call("search_history", {"query": "b"})]),
        Reply(text="Both."),
    )
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "search twice")
    qtbot.waitUntil(lambda: page.approval.isVisible(), timeout=10_000)
    assert page.approval.always_button.text() == "Always allow search_history"
    qtbot.mouseClick(page.approval.always_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, page)
    assert ctx.settings.get("tools.search_history.approval") == "allow"
    assert [r["ok"] for r in page.last_result.items if r["type"] == "tool_result"] == [True, True]


def test_an_unanswered_card_denies_when_its_time_runs_out(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    ctx.settings.set("tools.search_history.approval", "ask")
    ctx.settings.set("tools.approvalTimeout", 10)
    server.enqueue(Reply(tool_calls=[tool_call("search_history", {"query": "x"})]), Reply(text="Understood."))
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "search")
    qtbot.waitUntil(lambda: page.approval.isVisible(), timeout=10_000)
    assert "Denied in 0:10" in page.approval.countdown.text()
    page.approval._left = 1  # skip the wait: the next tick is the last one
    wait_idle(qtbot, page)
    result = [it for it in page.last_result.items if it["type"] == "tool_result"][0]
    assert result["ok"] is False and "did not approve" in result["content"]


def test_denying_the_approval_tells_the_model(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    ctx.settings.set("tools.search_history.approval", "ask")
    server.enqueue(Reply(tool_calls=[tool_call("search_history", {"query": "x"})]), Reply(text="OK, I won't."))
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "search for x")
    qtbot.waitUntil(lambda: page.approval.isVisible(), timeout=10_000)
    qtbot.mouseClick(page.approval.deny_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, page)
    result = [it for it in page.last_result.items if it["type"] == "tool_result"][0]
    assert result["ok"] is False and "did not approve" in result["content"]


def test_stop_while_the_card_waits(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    ctx.settings.set("tools.search_history.approval", "ask")
    server.enqueue(Reply(tool_calls=[tool_call("search_history", {"query": "x"})]))
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "search for x")
    qtbot.waitUntil(lambda: page.approval.isVisible(), timeout=10_000)
    page.stop()
    wait_idle(qtbot, page)
    assert not page.approval.isVisible()
    assert page.last_result.status == "interrupted"


# ------------------------------------------------------------------------------ composer
def test_composer_enter_sends_shift_enter_breaks_the_line(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    qtbot.keyClicks(composer.edit, "line one")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer.edit, "line two")
    assert sent == [] and composer.text() == "line one\nline two"
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == ["line one\nline two"]
    assert composer.text() == "line one\nline two"  # cleared only once the turn accepts it
    composer.accept_sent("line one\nline two")
    assert composer.text() == ""


def test_enter_never_sends_during_ime_composition(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    composer.set_text("hello ")
    QApplication.sendEvent(composer.edit, QInputMethodEvent("にほん", []))
    assert composer.edit.composing
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == []
    commit = QInputMethodEvent()
    commit.setCommitString("日本")
    QApplication.sendEvent(composer.edit, commit)
    assert not composer.edit.composing
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == ["hello 日本"]


def test_enter_queues_while_streaming_the_button_stops_and_empty_text_is_not_sent(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[str] = []
    stops: list[bool] = []
    composer.send_requested.connect(sent.append)
    composer.stop_requested.connect(lambda: stops.append(True))
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == [] and not composer.button.isEnabled()
    composer.set_streaming(True)
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == []  # nothing typed: nothing to queue
    composer.set_text("next question")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == ["next question"]  # the chat queues it (tests/ui/test_queue_ui.py)
    assert composer.button.text() == "Stop"
    qtbot.mouseClick(composer.button, Qt.MouseButton.LeftButton)
    assert stops == [True]


def test_composer_grows_with_its_text_up_to_a_limit(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.resize(400, 100)
    composer.show()
    one = composer.edit.height()
    composer.set_text("a\nb\nc")
    three = composer.edit.height()
    composer.set_text("\n".join("x" * 40))
    many = composer.edit.height()
    assert one < three < many
    composer.set_text("\n".join("y" * 80))
    assert composer.edit.height() == many


# ------------------------------------------------------------------------------ gauge
def test_gauge_shows_the_calibrated_estimate_and_threshold(qtbot: QtBot, ctx: AppContext) -> None:
    page = open_page(qtbot, ctx)
    qtbot.waitUntil(lambda: page.gauge.reading is not None, timeout=10_000)
    expected = reading_for(target_of(ctx), ctx.sources)
    assert page.gauge.reading == expected
    assert expected.threshold == int(expected.window * 0.6)
    assert "/" in page.gauge.text() and str(expected.threshold // 1000) in page.gauge.toolTip().replace(",", "")


def test_gauge_is_exact_from_its_first_reading_after_start_up(
    qtbot: QtBot,
    ctx: AppContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As after a restart: no encoding loaded yet in this process. The first reading the gauge shows
    waits for the bundled encoding instead of painting an early estimate that stays up."""
    monkeypatch.setattr(counting, "_COUNTERS", {})  # a fresh process's (empty) counter registry
    target = target_of(ctx)
    page = open_page(qtbot, ctx)
    shown: list[GaugeReading] = []
    page.feed.reading_ready.connect(shown.append)
    qtbot.waitUntil(lambda: page.gauge.reading is not None, timeout=30_000)
    first = shown[0] if shown else page.gauge.reading
    assert not first.approximate and not page.gauge.text().startswith("≈")
    assert first == reading_for(target, ctx.sources)


def test_gauge_updates_after_a_turn(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    server.enqueue(Reply(text="A fairly long answer " * 30))
    page = open_page(qtbot, ctx)
    qtbot.waitUntil(lambda: page.gauge.reading is not None, timeout=10_000)
    before = page.gauge.reading.tokens
    type_and_enter(qtbot, page, "Tell me things")
    wait_idle(qtbot, page)
    qtbot.waitUntil(lambda: page.gauge.reading.tokens > before + 100, timeout=10_000)


def test_gauge_label_marks_approximate_counts() -> None:
    assert GaugeReading(1234, 128_000, 76_800, approximate=True).label == "≈1,234 / 128k"
    assert GaugeReading(900, 8192, 4915).label == "900 / 8,192"


def test_gauge_feed_coalesces_requests(qtbot: QtBot, ctx: AppContext) -> None:
    feed = TokenGaugeFeed(ctx.sources, ctx.tasks)
    readings: list[GaugeReading] = []
    feed.reading_ready.connect(readings.append)
    target = target_of(ctx)
    for _ in range(10):
        feed.refresh(target)
    qtbot.waitUntil(lambda: len(readings) == 1, timeout=10_000)
    ctx.tasks.wait_for_done(PATIENT_MS)
    qtbot.wait(50)
    assert feed.builds == 2 and len(readings) == 1  # one running, one more for the 9 asks meanwhile


def test_gauge_paints_in_light_and_dark_palettes(qtbot: QtBot) -> None:
    gauge = TokenGauge()
    qtbot.addWidget(gauge)
    gauge.set_reading(GaugeReading(90_000, 128_000, 76_800))
    image = gauge.grab().toImage()
    assert not image.isNull() and image.width() > 100


def test_the_sent_message_and_its_markdown_reply_show_in_the_chat_view(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    page = open_page(qtbot, ctx)
    reply = "Plain but **working**.\n\n```python\nprint('hi')\n```"
    server.enqueue(Reply(text=reply))
    type_and_enter(qtbot, page, "fallback?")
    wait_idle(qtbot, page)
    model = page.view.chat_model()

    def shown() -> list[tuple[str, str]]:
        rows = [model.item(row) for row in range(model.rowCount())]
        return [(it["type"], it["content"]) for it in rows if it]

    qtbot.waitUntil(lambda: shown() == [("user", "fallback?"), ("assistant", reply)])
    assert not model.streaming


def test_the_automatic_retry_counts_down_in_one_sentence(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    server.enqueue(Reply(status=429, retry_after=2.2), Reply(text="there you are"))
    page = open_page(qtbot, ctx)
    at_event: list[str] = []
    seen: list[str] = []
    type_and_enter(qtbot, page, "hi")
    page.worker.event.connect(lambda _e: at_event.append(page.status_text()))  # right after the page's own slot
    qtbot.waitUntil(lambda: "retrying in" in page.status_text())
    while page.streaming:
        text = page.status_text()
        if text and (not seen or seen[-1] != text):
            seen.append(text)
        qtbot.wait(50)
    assert at_event[0] == "The server is rate limiting requests (429) — retrying in 3 s (attempt 2 of 2)."
    assert any("retrying in 2 s" in s for s in seen), seen  # counting down, not frozen at the first figure
    assert all(s.count("retrying") == 1 and "0s" not in s for s in [*seen, *at_event] if "retry" in s.casefold())
    assert page.last_result.reply_text == "there you are" and "retrying" not in page.status_text()


# ------------------------------------------------------------------------------ recall with Up
def press(qtbot: QtBot, page: ChatPage, key: Qt.Key) -> None:
    qtbot.keyClick(page.composer.edit, key)


def test_up_in_an_empty_composer_recalls_the_messages_sent_in_this_chat(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    session = ctx.sources.session(target_of(ctx))
    for text in ("first question", "second question"):  # sent in an earlier run: read back from the record
        session.append(user_message(text))
        session.append(new_item("assistant", author=target_of(ctx).id, source="app", content="ok", status="complete"))
    page = open_page(qtbot, ctx)
    server.enqueue(Reply(text="Noted."))
    type_and_enter(qtbot, page, "third question")
    wait_idle(qtbot, page)
    assert page.composer.text() == ""

    page.composer.edit.setFocus()
    press(qtbot, page, Qt.Key.Key_Up)
    qtbot.waitUntil(lambda: page.composer.text() == "third question")  # the record is read off the GUI thread
    press(qtbot, page, Qt.Key.Key_Up)
    assert page.composer.text() == "second question"
    press(qtbot, page, Qt.Key.Key_Up)
    press(qtbot, page, Qt.Key.Key_Up)  # the oldest stays
    assert page.composer.text() == "first question"
    press(qtbot, page, Qt.Key.Key_Down)
    assert page.composer.text() == "second question"
    press(qtbot, page, Qt.Key.Key_Down)
    press(qtbot, page, Qt.Key.Key_Down)
    assert page.composer.text() == ""  # past the newest: the empty box again

    press(qtbot, page, Qt.Key.Key_Up)
    qtbot.keyClicks(page.composer.edit, " again")  # typing stops recall: the text is the user's now
    assert page.composer.text() == "third question again"
    press(qtbot, page, Qt.Key.Key_Up)
    assert page.composer.text() == "third question again"


def test_up_never_replaces_text_the_user_typed(qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer) -> None:
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "sent before")
    wait_idle(qtbot, page)
    page.composer.edit.setFocus()
    qtbot.keyClicks(page.composer.edit, "half a thought")
    press(qtbot, page, Qt.Key.Key_Up)
    qtbot.wait(100)
    assert page.composer.text() == "half a thought"


def test_recall_reads_only_the_end_of_a_long_record(qtbot: QtBot, ctx: AppContext) -> None:
    session = ctx.sources.session(target_of(ctx))
    for n in range(RECALL_LOOKBACK + 50):
        session.append(user_message(f"message {n}"))
    page = open_page(qtbot, ctx)
    page.composer.edit.setFocus()
    press(qtbot, page, Qt.Key.Key_Up)
    qtbot.waitUntil(lambda: page.composer.text() == f"message {RECALL_LOOKBACK + 49}")
    for _ in range(RECALL_LOOKBACK + 10):
        press(qtbot, page, Qt.Key.Key_Up)
    assert page.composer.text() == "message 50"  # as far back as the bounded read reaches


# ------------------------------------------------------------------------------ placeholder
@pytest.mark.parametrize("width", [220, 320, 480, 900])
def test_the_placeholder_fits_the_composer_at_any_width(qtbot: QtBot, width: int) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.set_target_name("A rather long assistant name for a small window")
    composer.resize(width, 60)
    composer.show()
    qtbot.waitExposed(composer)
    edit = composer.edit
    shown = edit.placeholderText()
    room = edit.viewport().width() - 2 * edit.document().documentMargin()
    assert edit.fontMetrics().horizontalAdvance(shown) <= room
    assert shown.startswith("Message") or shown.startswith("Mess")
