"""Search every chat (Ctrl+Shift+F) in the real main window: the index is built in the background from the
records, hits name their chat and show the matched words, and Enter opens the chat at that message."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from okbot.core import items
from okbot.core.session import SessionStore
from okbot.core.turn.outcome import TurnResult
from okbot.core.workspace import Workspace
from okbot.ui.search_dialog import SearchDialog, hit_html, needle_of
from tests.ui.test_main_window import open_window


def _chat(ws: Workspace, name: str, lines: list[tuple[str, str]]) -> None:
    target = ws.create_assistant(name)
    store = SessionStore(target.session_path)
    for kind, text in lines:
        if kind == "user":
            store.append(items.user_message(text))
        else:
            store.append(items.new_item("assistant", author=target.id, source="app", content=text, status="complete"))


def test_search_finds_messages_in_every_chat_and_opens_one_at_its_message(qtbot: QtBot) -> None:
    ws = Workspace()
    filler = [("user", f"small talk {n}") for n in range(200)]
    _chat(ws, "Planner", [("user", "Book the ferry to Hydra on Friday"), *filler, ("assistant", "Done: ferry booked.")])
    _chat(ws, "Cook", [("user", "A recipe with saffron please"), ("assistant", "Saffron risotto, serves 4.")])
    window = open_window(qtbot, ws)
    threads: list[str] = []
    index = window.ctx.search_index
    real_search = index.search
    index.search = lambda *a, **k: threads.append(threading.current_thread().name) or real_search(*a, **k)

    progress: list[tuple[int, int]] = []
    window.open_search().indexing.connect(lambda done, total: progress.append((done, total)))
    window.open_search().hide()
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    dialog = window.findChild(SearchDialog)
    assert dialog is not None and dialog.isVisible()
    qtbot.keyClicks(dialog.edit, "ferry")
    qtbot.waitUntil(lambda: len(dialog.hits) == 2, timeout=20_000)
    assert [h.target_name for h in dialog.hits] == ["Planner", "Planner"]
    assert [h.item_id for h in dialog.hits] == [202, 1]  # newest first
    assert "<b>ferry</b>" in hit_html(dialog.hits[1]) and dialog.status.text().startswith("2 found")
    assert threading.main_thread().name not in threads  # every query ran on a worker
    assert progress and progress[-1][0] == progress[-1][1] > 0  # the first build reported how far it got

    dialog.edit.setText("saffron")
    qtbot.waitUntil(lambda: {h.target_name for h in dialog.hits} == {"Cook"}, timeout=20_000)
    dialog.edit.setText("hydra")
    qtbot.waitUntil(lambda: [h.item_id for h in dialog.hits] == [1], timeout=20_000)
    assert needle_of(dialog.hits[0]).lower() == "hydra"
    qtbot.keyClick(dialog.edit, Qt.Key.Key_Return)
    assert not dialog.isVisible()
    page = window.current_page()
    assert page is not None and page.target.name == "Planner"
    view = page.view
    qtbot.waitUntil(lambda: view.finder().current_match() == (1, 0), timeout=20_000)
    qtbot.waitUntil(lambda: view.chat_model().row_of_id(1) in view.visible_rows(), timeout=20_000)
    assert view.find_bar().isVisible() and view.find_bar().text().lower() == "hydra"
    QApplication.processEvents()


def test_a_turn_s_new_messages_become_searchable_without_a_rebuild(qtbot: QtBot) -> None:
    ws = Workspace()
    _chat(ws, "Notes", [("user", "first note about walnuts")])
    window = open_window(qtbot, ws)
    dialog = window.open_search()
    qtbot.waitUntil(lambda: not dialog._catching_up, timeout=20_000)
    target = ws.resolve("Notes")
    SessionStore(target.session_path).append(items.user_message("second note about pecans"))
    page = window.page_for(target) or (window.select_target(target.kind, target.id), window.current_page())[1]
    page.reply_finished.emit(TurnResult(status="complete"))  # what a finished turn triggers
    window.ctx.tasks.wait_for_done(20_000)
    assert [h.item_id for h in window.ctx.search_index.search("pecans")] == [2]
    assert window.ctx.search_index.parsed == 2  # the second item only was read after the first build


def test_many_hits_say_so_in_a_sentence_and_rows_fit_the_list_without_a_sideways_scroll(qtbot: QtBot) -> None:
    """Issue 34, item 12: a lower-case "the newest 50 found…", and rows wider than the list (a horizontal
    scroll bar) once the vertical one appeared."""
    from okbot.ui.search_dialog import LIMIT

    ws = Workspace()
    long = "the ferry timetable " + "with a long explanation of every crossing and its fare " * 6
    _chat(ws, "Planner", [("user", f"{long} {n}") for n in range(LIMIT + 20)])
    window = open_window(qtbot, ws)
    dialog = window.open_search()
    dialog.resize(640, 420)
    qtbot.keyClicks(dialog.edit, "ferry")
    qtbot.waitUntil(lambda: len(dialog.hits) == LIMIT, timeout=20_000)
    QApplication.processEvents()
    assert dialog.status.text().startswith(f"The newest {LIMIT} found")
    bar = dialog.list.horizontalScrollBar()
    assert not bar.isVisible() or bar.maximum() == 0
    viewport = dialog.list.viewport().width()
    for row in range(dialog.list.count()):
        assert dialog.list.item(row).sizeHint().width() <= viewport
    dialog.resize(900, 500)  # wider: the rows follow
    QApplication.processEvents()
    assert dialog.list.item(0).sizeHint().width() > viewport
    assert dialog.list.item(0).sizeHint().width() <= dialog.list.viewport().width()
