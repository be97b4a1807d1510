"""Undo last compression from the chat's divider and from Settings, and View context's Last compression tab:
real files, summaries from the fake server, a real Qt event loop."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from pytestqt.qtbot import QtBot

from okbot.core.compression.history import history_path
from okbot.core.items import new_item, user_message
from okbot.core.summary import SummaryStore
from okbot.core.workspace import Target
from okbot.ui.app_context import AppContext
from okbot.ui.chat.model import DIVIDER
from okbot.ui.chat_page import ChatPage
from okbot.ui.context_viewer import LAST_COMPRESSION_TAB, ContextViewer
from okbot.ui.last_compression import LastCompressionView
from okbot.ui.settings import SettingsDialog
from tests.helpers.fake_openai import FakeOpenAIServer
from tests.helpers.fake_summarizer import faithful

GOAL = "Goal: plant the tomatoes along the south fence this spring."


def target_of(ctx: AppContext) -> Target:
    return ctx.workspace.list()[0]


def fill(ctx: AppContext, turns: int, first: str = "") -> None:
    target = target_of(ctx)
    store = ctx.sources.session(target)
    if first:
        store.append(user_message(first))
    for n in range(turns):
        store.append(user_message(f"question {n} about the garden plan " + "detail " * 40))
        store.append(new_item("assistant", author=target.id, source="app", content=f"answer {n} " + "note " * 40))


def compressed_twice(ctx: AppContext, server: FakeOpenAIServer) -> tuple[int, int]:
    """Two compressions of the default chat; the coverage after each."""
    server.set_default(faithful)
    compressor = ctx.app.compressor
    assert compressor is not None
    fill(ctx, 10)
    assert compressor.compress_now(target_of(ctx)).ok
    first = SummaryStore(target_of(ctx).summary_path).load().covered_through_id
    fill(ctx, 10, first=GOAL)
    assert compressor.compress_now(target_of(ctx)).ok
    return first, SummaryStore(target_of(ctx).summary_path).load().covered_through_id


def open_page(qtbot: QtBot, ctx: AppContext) -> ChatPage:
    page = ChatPage(ctx, target_of(ctx))
    qtbot.addWidget(page)
    page.resize(800, 600)
    page.show()
    qtbot.waitExposed(page)
    return page


def divider_row(page: ChatPage) -> int | None:
    model = page.view.chat_model()
    return next((row for row in range(model.rowCount()) if model.row_kind(row) == DIVIDER), None)


def covered_by_divider(page: ChatPage) -> int:
    """The id of the item just above the divider (0 without one)."""
    row = divider_row(page)
    if row is None:
        return 0
    return int(page.view.chat_model().item(row - 1)["id"])


def test_the_divider_menu_undoes_the_last_compression_and_the_divider_moves_back(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    first, second = compressed_twice(ctx, server)
    page = open_page(qtbot, ctx)
    qtbot.waitUntil(lambda: covered_by_divider(page) == second)
    menu = page.view.context_menu(divider_row(page))
    undo = next(a for a in menu.actions() if a.text() == "Undo last compression")
    with qtbot.waitSignal(page.compression_undone) as done:
        undo.trigger()
    assert done.args[0].step.seq == 2
    qtbot.waitUntil(lambda: covered_by_divider(page) == first)
    assert page.status_line.text().startswith("Undid compression #2")
    assert f"#{second} → #{first}" in page.status_line.text()
    assert SummaryStore(target_of(ctx).summary_path).load().covered_through_id == first
    # the second undo takes the chat back to no summary: the divider goes
    with qtbot.waitSignal(page.compression_undone):
        page.view.undo_compression_requested.emit()
    qtbot.waitUntil(lambda: divider_row(page) is None)
    # nothing left: the status line says so and nothing is written
    page.view.undo_compression_requested.emit()
    qtbot.waitUntil(lambda: "Nothing to undo" in page.status_line.text())
    assert len(history_path(target_of(ctx).summary_path).read_bytes().splitlines()) == 4


def test_an_undo_while_a_reply_is_written_is_refused_and_changes_nothing(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    _first, second = compressed_twice(ctx, server)
    dialog = SettingsDialog(ctx, current_target=target_of(ctx))
    qtbot.addWidget(dialog)
    page = dialog.open_page("compression")
    page.turn_running = lambda _target: True
    page.undo_last()
    qtbot.waitUntil(lambda: "A reply is being written" in page.result_label.text())
    assert page.undo_button.isEnabled()
    assert SummaryStore(target_of(ctx).summary_path).load().covered_through_id == second


def test_settings_undo_button_restores_the_previous_summary(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    first, second = compressed_twice(ctx, server)
    dialog = SettingsDialog(ctx, current_target=None)
    qtbot.addWidget(dialog)
    dialog.show()
    page = dialog.open_page("compression")
    assert not page.undo_button.isEnabled()  # no chat open: nothing to undo in
    dialog.set_current_target(target_of(ctx))
    assert page.undo_button.isEnabled()
    with qtbot.waitSignal(dialog.undo_finished) as done:
        qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)
    assert (done.args[0].before.covered_through_id, done.args[0].after.covered_through_id) == (second, first)
    assert page.result_label.text().startswith("✓ Undid compression #2")
    assert ctx.sources.summary(target_of(ctx))[0].covered_through_id == first


def test_view_context_shows_the_last_compressions_diff_and_covered_items(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    first, second = compressed_twice(ctx, server)
    viewer = ContextViewer(ctx, target_of(ctx), second + 1)
    qtbot.addWidget(viewer)
    viewer.show()
    tab = viewer.last_compression
    qtbot.waitUntil(lambda: tab.description is not None)
    viewer.tabs.setCurrentIndex(LAST_COMPRESSION_TAB)
    assert viewer.tabs.tabText(LAST_COMPRESSION_TAB) == "Last compression"
    assert tab.heading.text().startswith("Compression #2") and "Compress now" in tab.heading.text()
    details = tab.details.text()
    assert f"Coverage #{first} → #{second}: newly covered #{first + 1}–#{second}" in details
    goal_id = next(it["id"] for it in ctx.sources.session(target_of(ctx)).tail(100) if it.get("content") == GOAL)
    assert f"#{goal_id}  {GOAL}" in details  # the goal the user set is kept verbatim, quoted
    added = [line for line in tab.diff_text().splitlines() if line.startswith("+ ")]
    assert any(GOAL[6:30] in line for line in added)
    # an undo on disk shows up: the tab now describes the first compression
    with qtbot.waitSignal(tab.loaded):
        from okbot.core.compression.undo import undo_last

        undo_last(target_of(ctx))
        viewer.refresh("undo")
    qtbot.waitUntil(lambda: tab.description is not None and tab.description.seq == 1)


def test_the_diff_is_coloured_readably_in_light_and_dark(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    compressed_twice(ctx, server)
    view = LastCompressionView(ctx, target_of(ctx))
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.loaded):
        view.refresh()
    for base, text in ((QColor("#ffffff"), QColor("#1a1a1a")), (QColor("#1e1e1e"), QColor("#e6e6e6"))):
        pal = view.palette()
        pal.setColor(QPalette.ColorRole.Base, base)
        pal.setColor(QPalette.ColorRole.Text, text)
        view.setPalette(pal)
        block = view.diff_view.document().begin()
        while block.isValid() and not block.text().startswith("+ "):
            block = block.next()
        assert block.isValid()
        ranges = block.layout().formats()
        band = ranges[0].format.background().color()
        assert band != base  # the added line stands out...
        assert abs(band.lightnessF() - text.lightnessF()) > 0.45  # ...and its text stays readable on it
