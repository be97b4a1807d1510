"""A long turn in the open chat: while the summarizer runs inside the turn the status line says so, the
chat gets the quiet lines of what moved out, and the divider moves before the turn ends; View context
offers every round as it went out."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from okbot.core.local_tools.guard import workspace_dir
from okbot.core.summary import SummaryStore
from okbot.core.turn.request import Send
from okbot.ui.app_context import AppContext
from okbot.ui.chat.model import DIVIDER
from okbot.ui.chat_page import ChatPage
from okbot.ui.context_viewer import AS_SENT_TAB, ContextViewer
from okbot.ui.summary_updater import UPDATING_TEXT
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.fake_reader import Reader, part_text
from tests.helpers.fake_summarizer import is_summarizer_request
from tests.helpers.patience import PATIENT_SECONDS

WAIT_MS = 20_000


class HeldSummarizer:
    """The reader, with its first summarizer answer held until the test lets it go."""

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.asked = threading.Event()
        self.go = threading.Event()

    def __call__(self, body: dict) -> Reply:
        if is_summarizer_request(body) and not self.asked.is_set():
            self.asked.set()
            self.go.wait(PATIENT_SECONDS)
        return self.reader(body)


def notices(page: ChatPage) -> list[str]:
    model = page.view.chat_model()
    rows = (model.item(row) for row in range(model.rowCount()))
    return [it["content"] for it in rows if it is not None and it.get("type") == "notice"]


def test_a_compression_inside_the_turn_is_shown_while_it_runs_and_told_quietly(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    ctx.settings.set("model.contextWindow", 8000)
    ctx.settings.set("tools.maxRounds", 40)
    target = ctx.workspace.list()[0]
    ctx.sources.counter(ctx.sources.model_for(target)).ensure_loaded(timeout=30)
    for n in range(20):
        (workspace_dir(target) / f"part{n}.txt").write_text(part_text(n), encoding="utf-8")
    held = HeldSummarizer(Reader(20))
    server.set_default(held)
    page = ChatPage(ctx, target)
    qtbot.addWidget(page)
    page.resize(720, 640)
    page.show()
    qtbot.waitExposed(page)
    qtbot.waitUntil(lambda: not page.view.chat_model().loading, timeout=WAIT_MS)
    page.composer.edit.setFocus()
    page.composer.set_text("read part0.txt to part19.txt one by one and list every FACT-number")
    try:
        qtbot.keyClick(page.composer.edit, Qt.Key.Key_Return)
        qtbot.waitUntil(held.asked.is_set, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: page.status_text() == UPDATING_TEXT, timeout=WAIT_MS)  # mid-turn, still streaming
        assert page.streaming
        assert any("one-line digests" in n for n in notices(page))  # step 1 came first, quietly
    finally:
        held.go.set()
    qtbot.waitUntil(lambda: not page.streaming, timeout=WAIT_MS)
    assert page.last_result.status == "complete"
    assert any("inside the turn" in n for n in notices(page))
    model = page.view.chat_model()

    def divider_follows_coverage() -> bool:  # a compression ahead after the reply may move both on meanwhile
        divider = next((row for row in range(model.rowCount()) if model.row_kind(row) == DIVIDER), None)
        covered = SummaryStore(target.summary_path).load().covered_through_id
        return divider is not None and covered > 0 and model.item_id(divider - 1) == covered

    qtbot.waitUntil(divider_follows_coverage, timeout=WAIT_MS)


def test_view_context_offers_every_round_of_the_turn_as_it_went_out(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    """Each round's request is recorded and can be chosen: the pinned request, the digests and a cut read
    back exactly as the server received them; the Context tab shows the pin for the message."""
    ctx.settings.set("model.contextWindow", 8000)
    ctx.settings.set("tools.maxRounds", 40)
    target = ctx.workspace.list()[0]
    for n in range(20):
        (workspace_dir(target) / f"part{n}.txt").write_text(part_text(n), encoding="utf-8")
    reader = Reader(20)
    server.set_default(reader)
    result = ctx.app.run_turn(target, Send("read part0.txt to part19.txt one by one"))
    assert result.status == "complete", result.error
    viewer = ContextViewer(ctx, target, result.user_id)
    qtbot.addWidget(viewer)
    viewer.show()
    qtbot.waitUntil(lambda: viewer.snapshot is not None, timeout=WAIT_MS)
    assert "the current request, pinned" in viewer.text()  # Context: the message, pinned at the head
    rounds = len(reader.chat_bodies)
    assert viewer.attempts()[-1] == f"Attempt 1 of 1 — produced the reply · round {rounds} of {rounds}"
    assert len(viewer.attempts()) == rounds
    viewer.tabs.setCurrentIndex(AS_SENT_TAB)
    pinned_rounds = 0
    for index, body in enumerate(reader.chat_bodies):
        if index != viewer.attempt.currentIndex():
            with qtbot.waitSignal(viewer.refreshed, timeout=WAIT_MS):
                viewer.attempt.setCurrentIndex(index)
        sent = viewer.snapshot.sent
        assert sent.to_messages() == body["messages"], f"round {index + 1}"
        pinned_rounds += bool(sent.request.pinned_ids)
    assert pinned_rounds > 0 and "the current request, pinned" in viewer.as_sent_text()
