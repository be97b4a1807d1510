"""Find in chat (Ctrl+F) against real session files: what is searched, the bar, highlights, the 100k-item scan."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from okbot.core import items
from okbot.core.roster import SquadRoster
from okbot.core.session import SessionStore
from okbot.ui.app_context import AppContext
from okbot.ui.chat import ChatView
from okbot.ui.chat.colors import ChatColors
from okbot.ui.chat.find import CHUNK, markdown_text, shown_text
from okbot.ui.chat_page import ChatPage
from okbot.ui.tasks import TaskRunner
from tests.ui.chat.test_chat_view import CountingStore, assistant, open_view, write_big_session

LONG_TAIL = "\n\n".join(f"Line {i} of a long answer." for i in range(80)) + "\n\nThe needle-in-the-haystack is here."


class ThreadRecordingStore(CountingStore):
    """Counts the items read on the GUI thread (find must read none there)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.gui_reads = 0
        self._gui = threading.get_ident()

    def iter_items(self, start_id: int | None = None, end_id: int | None = None) -> Iterator[dict]:
        for item in super().iter_items(start_id, end_id):
            if threading.get_ident() == self._gui:
                self.gui_reads += 1
            yield item


def findable(path: Path) -> SessionStore:
    store = SessionStore(path)
    store.append(items.user_message("Where is the **Parquet** file?"))  # 1
    store.append(assistant("The `parquet` files live in [the parquet exports](https://example.com/parquet)."))  # 2
    store.append(
        items.new_item(
            "tool_call", author="okbot", source="app", call_id="c1", name="read_file", arguments='{"path": "a.txt"}'
        )
    )  # 3
    store.append(
        items.new_item(
            "tool_result", author="okbot", source="tool", call_id="c1", name="read_file", content="x", ok=True
        )
    )  # 4
    store.append(assistant("Nothing about it here."))  # 5
    store.append(assistant("PARQUET again, and parquet once more."))  # 6
    store.append(assistant(LONG_TAIL))  # 7
    return store


def search(qtbot: QtBot, view: ChatView, text: str) -> None:
    view.open_find()
    view.find_bar().edit.setText(text)
    view.find_bar().search_now()
    qtbot.waitUntil(lambda: view.finder().done, timeout=20_000)
    QApplication.processEvents()


# ---------------------------------------------------------------------------------------- what is searched
def test_markdown_text_is_what_the_bubble_shows() -> None:
    shown = markdown_text(
        "# Title\n\nSome **bold** and `a*b*` with [a link](http://x) in snake_case_name\n"
        "and a second line.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| c | d |\n\n```py\nx = **y**\n```\n&amp; \\*"
    )
    assert shown.split("\n") == [
        "Title",
        "Some bold and a*b* with a link in snake_case_name and a second line.",
        "one",
        "two",
        "a",
        "b",
        "c",
        "d",
        "x = **y**",
        "& *",
    ]


def test_rows_are_searched_as_shown_not_as_json(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, findable(tmp_path / "session.jsonl"))
    search(qtbot, view, "parquet")
    finder = view.finder()
    # message text and the link's text count; the link's URL and Markdown marks are not shown, so not searched
    assert finder.total == 5
    assert [finder.match(i) for i in range(finder.total)] == [(6, 0), (6, 1), (2, 0), (2, 1), (1, 0)]
    search(qtbot, view, "arguments")  # a JSON key of the tool call: never shown
    assert finder.total == 0 and view.find_bar().count.text() == "No matches"
    search(qtbot, view, "a.txt")  # the tool row's digest shows the path
    assert finder.total == 1 and finder.match(0) == (3, 0)
    assert "a.txt" in shown_text(view.chat_model().item(2))


# ---------------------------------------------------------------------------------------- the bar
def test_ctrl_f_opens_the_bar_enter_and_shift_enter_move_esc_closes(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, findable(tmp_path / "session.jsonl"))
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = view.find_bar()
    assert bar.isVisible() and bar.edit.hasFocus()
    qtbot.keyClicks(bar.edit, "Parquet")
    qtbot.waitUntil(lambda: view.finder().done and view.finder().total == 5, timeout=10_000)
    assert bar.count.text() == "1 of 5"  # the newest match first
    assert view.chat_delegate().find == ("parquet", 6, 0)
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    assert bar.count.text() == "2 of 5" and view.finder().current_match() == (6, 1)
    for _ in range(3):
        qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    assert bar.count.text() == "5 of 5" and view.finder().current_match() == (1, 0)
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return)  # back in time past the oldest wraps to the newest
    assert bar.count.text() == "1 of 5"
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.count.text() == "5 of 5"
    bar.newer.click()
    assert bar.count.text() == "4 of 5"
    bar.older.click()
    assert bar.count.text() == "5 of 5"
    row = view.chat_model().row_of_id(1)
    assert row in view.visible_rows()
    qtbot.keyClick(bar.edit, Qt.Key.Key_Escape)
    assert not bar.isVisible() and view.chat_delegate().find is None and view.finder().total == 0
    view.open_find()  # the last search comes back; Esc in the chat itself closes it too
    qtbot.waitUntil(lambda: view.finder().done and view.finder().total == 5, timeout=10_000)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert not bar.isVisible() and view.finder().total == 0


def test_matches_are_highlighted_and_the_current_one_stands_out(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, findable(tmp_path / "session.jsonl"))
    search(qtbot, view, "parquet")
    colors = ChatColors.from_palette(view.palette())
    view.show_match(6, 0)
    QApplication.processEvents()
    image = view.viewport().grab().toImage()

    def painted(rect) -> set[int]:
        return {image.pixelColor(x, y).rgb() for x in range(rect.left(), rect.right()) for y in (rect.top() + 1,)}

    current, other = view.match_rect(6, 0), view.match_rect(6, 1)
    assert current is not None and other is not None and current.top() == other.top() and other.left() > current.right()
    assert colors.find_current_bg.rgb() in painted(current)
    assert colors.find_bg.rgb() in painted(other) and colors.find_current_bg.rgb() not in painted(other)


def test_a_match_in_a_collapsed_message_opens_it_and_is_scrolled_to(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, findable(tmp_path / "session.jsonl"), size=(820, 500))
    model = view.chat_model()
    row = model.row_of_id(7)
    view.scroll_to_top()
    assert not model.is_expanded(row)
    search(qtbot, view, "needle-in-the")
    assert view.finder().current_match() == (7, 0)
    assert model.is_expanded(row)  # the match was in the hidden part
    rect = view.match_rect(7, 0)
    assert rect is not None and view.viewport().rect().contains(rect)


def test_searching_starts_at_what_the_user_reads(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, findable(tmp_path / "session.jsonl"), size=(820, 170))
    view.scroll_to_top()
    QApplication.processEvents()
    assert 6 not in [view.chat_model().item_id(r) for r in view.visible_rows()]
    search(qtbot, view, "parquet")
    assert view.finder().current_match() == (2, 0)  # the newest at or above the screen, not item 6 below it
    assert view.find_bar().count.text() == "3 of 5"


def test_an_item_appended_while_searching_is_counted_in(qtbot: QtBot, tmp_path: Path) -> None:
    store = findable(tmp_path / "session.jsonl")
    view = open_view(qtbot, store)
    search(qtbot, view, "parquet")
    view.find_next()
    assert view.find_bar().count.text() == "2 of 5"
    view.append_item(store.append(items.user_message("One more parquet question")))
    assert view.find_bar().count.text() == "3 of 6" and view.finder().current_match() == (6, 1)


# ---------------------------------------------------------------------------------------- a 100k-item chat
@pytest.mark.slow
def test_find_on_a_100k_chat_reads_off_the_gui_thread_in_chunks_and_a_new_query_cancels(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "session.jsonl"
    write_big_session(path, 100_000)
    store = ThreadRecordingStore(path)
    view = open_view(qtbot, store, tasks=TaskRunner())
    finder = view.finder()
    read_before, gui_before = store.items_read, store.gui_reads
    view.open_find()
    view.find_bar().edit.setText("question")
    view.find_bar().search_now()
    qtbot.waitUntil(lambda: finder.total > 0, timeout=20_000)
    assert not finder.done and finder.current_match() == (99_999, 0)  # the first chunk shows before the rest
    view.find_bar().edit.setText("answer 99990")
    view.find_bar().search_now()  # replaces the running scan
    first_scan_reads = store.items_read - read_before
    qtbot.waitUntil(lambda: finder.done, timeout=60_000)
    assert finder.total == 1 and finder.match(0) == (99_990, 0)
    assert finder.chunks == -(-100_000 // CHUNK)
    assert store.gui_reads == gui_before  # the GUI thread read no item for either search
    # the cancelled scan stopped within a chunk or two; the new one read the session once
    assert store.items_read - read_before <= first_scan_reads + 100_000 + 2 * CHUNK
    row = view.chat_model().row_of_id(99_990)
    assert row in view.visible_rows()


def test_ctrl_f_in_the_composer_opens_find_and_esc_gives_the_focus_back(qtbot: QtBot, ctx: AppContext) -> None:
    page = ChatPage(ctx, ctx.workspace.list()[0])
    qtbot.addWidget(page)
    page.resize(800, 600)
    page.show()
    qtbot.waitExposed(page)
    page.activateWindow()
    page.focus_composer()
    qtbot.waitUntil(page.composer.edit.hasFocus)
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    bar = page.view.find_bar()
    assert bar.isVisible() and bar.edit.hasFocus()
    qtbot.keyClick(bar.edit, Qt.Key.Key_Escape)
    assert not bar.isVisible() and page.composer.edit.hasFocus()


def test_in_a_squad_the_names_shown_are_searched(qtbot: QtBot, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "session.jsonl")
    store.append(items.user_message("Plan the launch"))  # 1
    store.append(
        items.new_item(
            "tool_call",
            author="launch",
            source="app",
            call_id="c1",
            name=items.delegation_tool_name("rex"),
            arguments='{"task": "Check the rollout steps"}',
        )
    )  # 2: "asked Rex: Check the rollout steps"
    store.append(
        items.new_item(
            "tool_result",
            author="rex",
            source="member:rex",
            call_id="c1",
            name=items.delegation_tool_name("rex"),
            content=items.with_app_note("Rollout **checked**.", "Rex took 12 s"),
            ok=True,
        )
    )  # 3: Rex's bubble; the app's note is not part of its text
    view = open_view(qtbot, store, show_authors=True)
    view.set_roster(SquadRoster(squad_id="launch", members=["rex"], names={"rex": "Rex"}))
    search(qtbot, view, "asked rex")
    assert view.finder().total == 1 and view.finder().match(0) == (2, 0)
    search(qtbot, view, "rollout")
    assert [view.finder().match(i) for i in range(view.finder().total)] == [(3, 0), (2, 0)]
    search(qtbot, view, "took 12")
    assert view.finder().total == 0


# ---------------------------------------------------------------------------------------- opened at a search hit
def test_a_hit_of_the_search_across_chats_opens_at_its_own_item_even_before_the_rows_load(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "session.jsonl"
    write_big_session(path, 3_000)  # "question N" in every odd item: the newest match is not the hit
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(820, 700)
    view.show()
    qtbot.waitExposed(view)
    view.set_session(SessionStore(path), tasks=TaskRunner(view))
    view.find_in_item("question 1201 ", 1201)  # asked while the chat is still loading
    qtbot.waitUntil(lambda: view.finder().done and view.finder().current_match() is not None, timeout=20_000)
    qtbot.waitUntil(lambda: view.chat_model().row_of_id(1201) in view.visible_rows(), timeout=20_000)
    assert view.finder().current_match() == (1201, 0)
    assert view.find_bar().text() == "question 1201 " and view.find_bar().isVisible()
    view.find_bar().edit.setText("question")  # the user searches again: from what is on screen, not the hit
    view.find_bar().search_now()
    qtbot.waitUntil(lambda: view.finder().done, timeout=20_000)
    assert view.finder().current_match()[0] <= 1201 + 40


@pytest.mark.parametrize("size", [(640, 420), (1000, 700)])
def test_the_current_match_is_never_under_the_find_bar(qtbot: QtBot, tmp_path: Path, size) -> None:
    """Issue 34, item 3: "6 of 6" in the first message showed no orange highlight — the view cannot scroll
    above its first row, and the bar sat on the user's bubble (top right). Rows now start below the bar."""
    store = SessionStore(tmp_path / "session.jsonl")
    store.append(items.user_message("needle at the very top of the chat"))
    store.append(assistant("An answer without it."))
    view = open_view(qtbot, store, size=size)
    search(qtbot, view, "needle")
    assert view.finder().total == 1 and view.finder().current_match() == (1, 0)
    bar = view.find_bar().geometry().translated(-view.viewport().pos())  # in viewport coordinates
    match = view.match_rect(1, 0)
    assert match is not None and view.viewport().rect().contains(match)
    assert not match.intersects(bar)
    view.close_find()
    QApplication.processEvents()
    assert view.viewport().pos().y() == 0  # closed, the rows take the whole height again
