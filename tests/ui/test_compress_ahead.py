"""The open chat and compression: the divider moves as soon as coverage advances; a failure is one plain line."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from okbot.core.projection import ContextProjection
from okbot.core.summary import SummaryStore
from okbot.core.workspace import Target
from okbot.ui.app_context import AppContext
from okbot.ui.chat.model import DIVIDER
from okbot.ui.chat_page import ChatPage
from okbot.ui.context_viewer import ContextViewer
from okbot.ui.summary_updater import FAILED_TEXT, UPDATING_TEXT
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.helpers.fake_summarizer import faithful, is_summarizer_request
from tests.helpers.sessions import fill_until, near_the_prepare_mark

LONG_REPLY = "Here is the plan. " + "step " * 300  # brings the next request over the prepare mark
WAIT_MS = 20_000


def open_filled_chat(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
    done: Callable[[ContextProjection], bool],
    summarizer: Callable[[dict], Reply] = faithful,
) -> tuple[ChatPage, Target]:
    """The default assistant's chat, open, with a small window and a session filled until ``done``."""
    server.set_default(summarizer)
    ctx.settings.set("model.contextWindow", 3000)  # threshold 1800, prepare mark 1500
    target = ctx.workspace.list()[0]
    ctx.sources.counter(ctx.sources.model_for(target)).ensure_loaded(timeout=30)
    fill_until(ctx.sources, target, done)
    page = ChatPage(ctx, target)
    qtbot.addWidget(page)
    page.resize(720, 640)
    page.show()
    qtbot.waitExposed(page)
    qtbot.waitUntil(lambda: not page.view.chat_model().loading, timeout=WAIT_MS)
    return page, target


def send(qtbot: QtBot, page: ChatPage, text: str) -> None:
    page.composer.edit.setFocus()
    page.composer.set_text(text)
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_Return)


def broken(body: dict) -> Reply:
    """A summarizer whose answer is never valid (the rest of the server as usual)."""
    return Reply(text="I cannot summarize that.") if is_summarizer_request(body) else faithful(body)


def divider_row(page: ChatPage) -> int | None:
    model = page.view.chat_model()
    return next((row for row in range(model.rowCount()) if model.row_kind(row) == DIVIDER), None)


def test_the_divider_appears_in_the_open_chat_after_a_background_compression(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    page, target = open_filled_chat(qtbot, ctx, server, near_the_prepare_mark)
    assert divider_row(page) is None
    statuses: list[str] = []
    page.summary_updates.started.connect(lambda: statuses.append(page.status_text()))
    server.enqueue(Reply(text=LONG_REPLY))
    send(qtbot, page, "What is the plan?")
    qtbot.waitUntil(lambda: divider_row(page) is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not page.summary_updates.running, timeout=WAIT_MS)
    assert ctx.app.keeper.drain(20)  # a compression is a boundary: persona and skill upkeep runs (its own quiet line)
    qtbot.waitUntil(lambda: page.status_text() == "", timeout=WAIT_MS)
    assert statuses == [UPDATING_TEXT]
    covered = SummaryStore(target.summary_path).load().covered_through_id
    model = page.view.chat_model()
    assert covered > 0 and model.item_id(divider_row(page) - 1) == covered  # right after the last covered item
    assert len([b for b in server.chat_requests() if is_summarizer_request(b)]) >= 1


def test_a_failed_background_compression_is_one_plain_line_with_the_details_in_view_context(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    page, target = open_filled_chat(qtbot, ctx, server, near_the_prepare_mark, broken)
    server.enqueue(Reply(text=LONG_REPLY))
    send(qtbot, page, "What is the plan?")
    qtbot.waitUntil(lambda: page.status_text() == FAILED_TEXT, timeout=WAIT_MS)
    assert not page.summary_updates.running and divider_row(page) is None
    summary = SummaryStore(target.summary_path).load()
    details = summary.health["lastFailure"]
    assert summary.covered_through_id == 0 and details and details not in page.status_text()
    # View context: the failure's details, and the prepare mark
    viewer = ContextViewer(ctx, target, ctx.sources.session(target).tail(2)[0]["id"])
    qtbot.addWidget(viewer)
    viewer.show()
    qtbot.waitUntil(lambda: viewer.snapshot is not None, timeout=WAIT_MS)
    assert details in viewer.problem.text()
    assert "Prepare mark 1,500 tokens" in viewer.prepare.text()  # window 3,000 x prepareRatio 0.5


def test_the_divider_appears_after_a_compression_before_the_request(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    page, target = open_filled_chat(qtbot, ctx, server, lambda p: p.calibrated_tokens >= p.threshold)  # over already
    reports: list[object] = []
    statuses: list[str] = []
    send(qtbot, page, "And now?")
    page.worker.compressing.connect(lambda: statuses.append(page.status_text()))
    page.worker.compressed.connect(reports.append)
    qtbot.waitUntil(lambda: not page.streaming, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: divider_row(page) is not None, timeout=WAIT_MS)
    assert ctx.app.keeper.drain(20)  # a compression is a boundary: persona and skill upkeep runs (its own quiet line)
    qtbot.waitUntil(lambda: page.status_text() == "", timeout=WAIT_MS)
    assert len(reports) == 1 and reports[0].ok
    assert statuses == [UPDATING_TEXT]  # said why the reply waited, then cleared

    def divider_follows_coverage() -> bool:  # a compression ahead after the reply may move both on meanwhile
        covered = SummaryStore(target.summary_path).load().covered_through_id
        return page.view.chat_model().item_id(divider_row(page) - 1) == covered

    qtbot.waitUntil(divider_follows_coverage, timeout=WAIT_MS)
