"""The chat view against real session files (offscreen Qt, real TaskRunner threads)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QFont, QGuiApplication, QMouseEvent, QPalette, QTextDocument
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from shiboken6 import Shiboken

from okbot.core import chat_text, items
from okbot.core.session import SessionStore
from okbot.core.summary import SessionSummary
from okbot.ui.chat import ChatView
from okbot.ui.chat.colors import ChatColors
from okbot.ui.chat.delegate import SelectableText
from okbot.ui.chat.heights import HeightIndex
from okbot.ui.chat.model import BLOCK, DIVIDER, ITEM, RETRY_LOOKBACK, STREAM, ChatModel
from okbot.ui.tasks import TaskRunner
from tests.ui.palettes import dark_palette

ANSWER = """## Reading a big file

Read **one line at a time**:

```python
def iter_items(path):
    with open(path, "rb") as fh:
        for line in fh:
            yield json.loads(line)
```

- a torn last line is set aside
- duplicate ids lose

| Approach | Memory |
|---|---|
| readlines | O(file) |
| generator | O(line) |
"""
CODE = (
    'def iter_items(path):\n    with open(path, "rb") as fh:\n'
    "        for line in fh:\n            yield json.loads(line)"
)


class CountingStore(SessionStore):
    """A real SessionStore that counts the items it hands out (the view must read only what it shows)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.items_read = 0

    def iter_items(self, start_id: int | None = None, end_id: int | None = None) -> Iterator[dict]:
        for item in super().iter_items(start_id, end_id):
            self.items_read += 1
            yield item

    def get(self, item_id: int) -> dict | None:
        self.items_read += 1
        return super().get(item_id)


def assistant(text: str, status: str = "complete", author: str = "okbot", **extra: Any) -> dict:
    return items.new_item("assistant", author=author, source="app", content=text, status=status, **extra)


def conversation(path: Path) -> CountingStore:
    """A realistic conversation: questions, a Markdown answer with code, tool rows, a notice, an interrupted reply."""
    store = CountingStore(path)
    for i in range(3):
        store.append(items.user_message(f"Earlier question {i}"))
        store.append(assistant(f"Earlier answer {i}."))
    store.append(items.user_message("How do I read a large `session.jsonl`?"))  # 7
    store.append(
        items.new_item(
            "tool_call",
            author="okbot",
            source="app",
            call_id="c1",
            name="search_history",
            arguments='{"query": "offset index"}',
        )
    )  # 8
    store.append(
        items.new_item(
            "tool_result",
            author="okbot",
            source="tool",
            call_id="c1",
            name="search_history",
            content="3 matches: #2, #4, #6",
            ok=True,
        )
    )  # 9
    store.append(assistant(ANSWER))  # 10
    store.append(items.notice("Context compressed: 6 earlier items are now summarized.", "info"))  # 11
    store.append(items.user_message("And the offset index?"))  # 12
    store.append(assistant("Record where each line starts:\n\n```python\noffsets = []\n", "interrupted"))  # 13
    return store


def write_big_session(path: Path, count: int) -> None:
    """``count`` items written straight to disk (appending one by one would fsync 100k times)."""
    rng = random.Random(5)
    lines = []
    for i in range(1, count + 1):
        if i % 2:
            item = items.user_message(f"question {i} " + "word " * rng.randint(1, 40))
        else:
            item = assistant(f"answer {i}\n\n" + "- point\n" * rng.randint(0, 6))
        item["id"] = i
        lines.append(items.encode_item(item))
    path.write_bytes(b"".join(lines))


def open_view(
    qtbot: QtBot,
    store: SessionStore | None,
    *,
    size: tuple[int, int] = (820, 900),
    tasks: TaskRunner | None = None,
    **kwargs: Any,
) -> ChatView:
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    if store is not None:
        with qtbot.waitSignal(view.loaded, timeout=20_000):
            view.set_session(store, tasks=tasks or TaskRunner(view), **kwargs)
        QApplication.processEvents()
    return view


def hover(view: ChatView, pos: QPoint) -> None:
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(pos),
        QPointF(view.viewport().mapToGlobal(pos)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), event)


def click(qtbot: QtBot, view: ChatView, pos: QPoint) -> None:
    hover(view, pos)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def row_rect(view: ChatView, row: int):
    view.scrollTo(view.chat_model().index(row, 0))
    return view.visualRect(view.chat_model().index(row, 0))


def layout_of(view: ChatView, row: int):
    index = view.chat_model().index(row, 0)
    return view.chat_delegate().layout(view._option(index), index)  # noqa: SLF001 - the option the view paints with


# ---------------------------------------------------------------------------------------- loading
def test_session_loads_off_the_gui_thread_then_shows_every_item(qtbot: QtBot, tmp_path: Path) -> None:
    store = conversation(tmp_path / "session.jsonl")
    view = ChatView()
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.loaded, timeout=10_000) as blocker:
        view.set_session(store, tasks=TaskRunner(view))
        assert view.chat_model().loading and view.chat_model().rowCount() == 0  # nothing read yet
    assert blocker.args == [13]
    assert [view.chat_model().item_id(r) for r in range(13)] == list(range(1, 14))


@pytest.mark.slow
def test_a_100k_item_session_opens_and_scrolls_reading_only_what_is_shown(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    write_big_session(path, 100_000)
    store = CountingStore(path)
    view = open_view(qtbot, store)
    model = view.chat_model()
    assert model.rowCount() == 100_000
    assert view.is_at_bottom() and 99_999 in view.visible_rows()
    # the bottom screen plus the look-back for a retryable reply: a couple of blocks, not the session
    opened_reads = store.items_read
    assert opened_reads <= 2 * BLOCK + RETRY_LOOKBACK
    assert model.fetched == opened_reads

    view.scroll_to_top()
    QApplication.processEvents()
    assert view.visible_rows().start == 0 and view.verticalScrollBar().value() == 0
    assert store.items_read - opened_reads <= 2 * BLOCK

    view.verticalScrollBar().setValue(view.verticalScrollBar().maximum() // 2)  # drag to the middle
    QApplication.processEvents()
    middle = view.visible_rows()
    assert 30_000 < middle.start < 70_000

    view.scroll_to_bottom()
    QApplication.processEvents()
    assert 99_999 in view.visible_rows()
    assert store.items_read <= 8 * BLOCK + RETRY_LOOKBACK
    assert view.chat_delegate().layouts_built < 200


def test_scrolling_up_into_unmeasured_rows_keeps_the_visible_content_still(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    write_big_session(path, 2_000)
    view = open_view(qtbot, CountingStore(path))
    last = view.chat_model().index(1_999, 0)
    before = view.visualRect(last).top()
    view.verticalScrollBar().setValue(view.verticalScrollBar().value() - 40)
    QApplication.processEvents()
    assert view.visualRect(last).top() == before + 40  # rows measured above did not move it
    assert not view.is_at_bottom()


def test_items_written_while_loading_are_shown_once(qtbot: QtBot, tmp_path: Path) -> None:
    store = conversation(tmp_path / "session.jsonl")
    view = ChatView()
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.set_session(store, tasks=TaskRunner(view))
        view.append_item(store.append(items.user_message("typed during loading")))
    ids = [view.chat_model().item_id(r) for r in range(view.chat_model().rowCount())]
    assert ids == list(range(1, 15))


def test_switching_sessions_while_loading_shows_only_the_last(qtbot: QtBot, tmp_path: Path) -> None:
    first = conversation(tmp_path / "a.jsonl")
    second = SessionStore(tmp_path / "b.jsonl")
    second.append(items.user_message("only me"))
    view = ChatView()
    qtbot.addWidget(view)
    tasks = TaskRunner(view)
    view.set_session(first, tasks=tasks)
    with qtbot.waitSignal(view.loaded, timeout=10_000):
        view.set_session(second, tasks=tasks)
    tasks.wait_for_done()
    QApplication.processEvents()
    assert view.chat_model().rowCount() == 1
    assert view.chat_model().item(0)["content"] == "only me"


def test_closing_the_view_while_it_loads_is_safe(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    write_big_session(path, 20_000)
    tasks = TaskRunner()
    view = ChatView()
    view.set_session(SessionStore(path), tasks=tasks)
    Shiboken.delete(view)  # the chat page closed before the index was built
    tasks.wait_for_done()
    qtbot.waitUntil(lambda: tasks.pending == 0)  # the result arrived for a model that is gone: ignored


def test_an_unreadable_session_says_so_instead_of_crashing(qtbot: QtBot, tmp_path: Path) -> None:
    folder = tmp_path / "session.jsonl"
    folder.mkdir()  # a directory where the file should be
    store = SessionStore.__new__(SessionStore)  # opening it would already fail: build it lazily
    SessionStore.__init__(store, tmp_path / "ok.jsonl")
    store.path = folder
    view = ChatView()
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.chat_model().load_failed, timeout=10_000) as blocker:
        view.set_session(store, tasks=TaskRunner(view))
    assert "could not be read" in blocker.args[0]
    assert view.chat_model().rowCount() == 0 and not view.chat_model().loading


def test_append_item_refuses_an_item_without_an_id(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, conversation(tmp_path / "session.jsonl"))
    with pytest.raises(ValueError, match="id"):
        view.append_item(items.user_message("not stored"))
    assert view.chat_model().rowCount() == 13


# ---------------------------------------------------------------------------------------- live turn
def test_streaming_reply_grows_one_row_and_is_replaced_by_its_item(qtbot: QtBot, tmp_path: Path) -> None:
    store = conversation(tmp_path / "session.jsonl")
    view = open_view(qtbot, store)
    model = view.chat_model()
    view.append_item(store.append(items.user_message("Next?")))
    assert model.rowCount() == 14 and view.is_at_bottom()
    view.stream_delta("Hel")
    view.stream_delta("lo **there**")
    assert model.row_kind(14) == STREAM and model.stream_text == "Hello **there**"
    qtbot.waitUntil(lambda: "there" in (model.index(14, 0).data(ChatModel.ItemRole) or {}).get("content", ""))
    height_before = view.visualRect(model.index(14, 0)).height()
    view.stream_delta("\n\n" + "more text " * 200)
    qtbot.waitUntil(lambda: view.visualRect(model.index(14, 0)).height() > height_before)
    assert 14 in view.visible_rows() and view.is_at_bottom()
    view.append_item(store.append(assistant("Hello **there**" + "\n\n" + "more text " * 200)))
    assert not model.streaming and model.rowCount() == 15 and model.row_kind(14) == ITEM
    view.end_stream()  # nothing left to drop
    assert model.rowCount() == 15


def test_end_stream_removes_a_reply_that_never_became_an_item(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, conversation(tmp_path / "session.jsonl"))
    view.stream_delta("partial")
    assert view.chat_model().rowCount() == 14
    view.end_stream()
    assert view.chat_model().rowCount() == 13


# ---------------------------------------------------------------------------------------- rows and actions
def test_markdown_renders_headings_lists_tables_and_monospace_code(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, conversation(tmp_path / "session.jsonl"))
    layout = layout_of(view, 9)
    doc = layout.doc
    assert layout.style == "assistant" and doc is not None
    blocks = []
    block = doc.begin()
    while block.isValid():
        blocks.append(block)
        block = block.next()
    assert any(b.blockFormat().headingLevel() == 2 and b.text() == "Reading a big file" for b in blocks)
    assert any(b.textList() is not None and b.text() == "a torn last line is set aside" for b in blocks)
    assert any(type(f).__name__ == "QTextTable" for f in doc.rootFrame().childFrames())
    code_lines = [b for b in blocks if b.text().startswith("def iter_items")]
    fragment = code_lines[0].begin().fragment()
    assert fragment.charFormat().font().fixedPitch() or "mono" in fragment.charFormat().font().family().lower()
    assert [c.text for c in layout.codes] == [CODE]
    assert layout.codes[0].language == "python"


def test_copy_buttons_copy_the_code_block_and_the_message(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, conversation(tmp_path / "session.jsonl"))
    row_rect(view, 9)
    rect = view.action_rect(9, "copy_code", 0)
    assert rect is not None
    with qtbot.waitSignal(view.copied) as blocker:
        click(qtbot, view, rect.center())
    assert blocker.args == [CODE] and QGuiApplication.clipboard().text() == CODE
    assert view.chat_delegate().flash is not None  # "Copied ✓" feedback
    # hover footer: Copy takes the message's Markdown source
    hover(view, view.visualRect(view.chat_model().index(9, 0)).center())
    footer = view.action_rect(9, "copy")
    with qtbot.waitSignal(view.copied) as blocker:
        click(qtbot, view, footer.center())
    assert blocker.args == [ANSWER]
    # Ctrl+C copies the current message
    view.setCurrentIndex(view.chat_model().index(6, 0))
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "How do I read a large `session.jsonl`?"


def test_tool_rows_are_one_line_digests_that_expand_on_click(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, conversation(tmp_path / "session.jsonl"))
    model = view.chat_model()
    layout = layout_of(view, 7)
    assert layout.style == "tool" and layout.label == '⚙ search_history(query="offset index")'
    assert layout_of(view, 8).label.startswith("↳ search_history done · 21 chars · 3 matches")
    collapsed = row_rect(view, 7).height()
    assert collapsed < 40
    click(qtbot, view, view.action_rect(7, "toggle").center())
    assert model.is_expanded(7)
    assert view.visualRect(model.index(7, 0)).height() > collapsed
    assert '"query": "offset index"' in layout_of(view, 7).doc.toPlainText()


def test_notice_row(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, conversation(tmp_path / "session.jsonl"))
    layout = layout_of(view, 10)
    assert layout.style == "notice" and "Context compressed" in layout.doc.toPlainText()


def test_retry_shows_only_on_the_latest_interrupted_reply(qtbot: QtBot, tmp_path: Path) -> None:
    store = conversation(tmp_path / "session.jsonl")
    view = open_view(qtbot, store)
    model = view.chat_model()
    assert model.index(12, 0).data(ChatModel.RetryableRole)
    assert "interrupted" in layout_of(view, 12).status
    row_rect(view, 12)
    with qtbot.waitSignal(view.retry_requested):
        click(qtbot, view, view.action_rect(12, "retry").center())
    view.set_retry_enabled(False)  # a turn is running
    assert view.action_rect(12, "retry") is None
    view.set_retry_enabled(True)
    view.append_item(store.append(items.user_message("never mind")))
    assert not model.index(12, 0).data(ChatModel.RetryableRole)
    assert view.action_rect(12, "retry") is None
    assert layout_of(view, 12).status  # still marked as interrupted
    view.append_item(store.append(assistant("", "error", error="the server closed the connection")))
    assert model.index(14, 0).data(ChatModel.RetryableRole)
    assert "server closed" in layout_of(view, 14).status


def test_view_context_appears_on_hover_only_in_developer_mode(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, conversation(tmp_path / "session.jsonl"))
    user_row = 11
    bubble = row_rect(view, user_row)
    view.set_developer_mode(True)
    hover(view, bubble.center())
    rect = view.action_rect(user_row, "view_context")
    assert rect is not None
    with qtbot.waitSignal(view.view_context_requested) as blocker:
        click(qtbot, view, rect.center())
    assert blocker.args == [12]
    assert view.action_rect(9, "view_context") is None  # assistant bubbles never offer it

    view.set_developer_mode(False)
    hover(view, bubble.center())
    assert view.action_rect(user_row, "view_context") is None
    with qtbot.assertNotEmitted(view.view_context_requested):
        click(qtbot, view, rect.center())
    menu = [a.text() for a in view.context_menu(user_row).actions()]
    assert "View context" not in menu and "Copy message" in menu
    view.set_developer_mode(True)
    assert "View context" in [a.text() for a in view.context_menu(user_row).actions()]


def test_divider_marks_coverage_and_opens_the_summary(qtbot: QtBot, tmp_path: Path) -> None:
    summary = SessionSummary(summary="## Mission\n- read big files", covered_through_id=4)
    view = open_view(qtbot, conversation(tmp_path / "session.jsonl"), summary=summary)
    model = view.chat_model()
    assert model.rowCount() == 14
    assert model.row_kind(4) == DIVIDER
    assert model.data(model.index(4, 0)) == "Earlier messages summarized — 4 items"
    assert model.item_id(3) == 4 and model.item_id(5) == 5
    closed = row_rect(view, 4).height()
    with qtbot.waitSignal(view.summary_requested):
        click(qtbot, view, view.action_rect(4, "toggle").center())
    assert model.is_expanded(4)
    assert view.visualRect(model.index(4, 0)).height() > closed
    assert "read big files" in layout_of(view, 4).doc.toPlainText()
    view.set_summary(SessionSummary(summary="more", covered_through_id=9))  # Compress now moved it
    assert model.row_kind(9) == DIVIDER and model.row_kind(4) == ITEM
    assert model.data(model.index(9, 0)) == "Earlier messages summarized — 9 items"
    view.set_summary(SessionSummary())
    assert model.rowCount() == 13 and all(model.row_kind(r) == ITEM for r in range(13))


def test_the_open_divider_lists_the_users_kept_words_and_each_opens_its_message(qtbot: QtBot, tmp_path: Path) -> None:
    """Issue 34, 12b: the summary's sections often say "(none yet)" while the model reads the user's own
    messages word for word; the divider shows which, and a click on one brings that message into view."""
    store = conversation(tmp_path / "session.jsonl")  # users: #1, #3, #5, #7
    store.append(items.user_message("Never push to *main* directly [ever]\nsecond line stays out"))  # 14
    store.append(assistant("Understood."))
    summary = SessionSummary(summary="## Goals\n(none yet)", covered_through_id=15, kept_user_ids=[1, 14, 2, 99])
    view = open_view(qtbot, store, summary=summary, size=(820, 420))
    model = view.chat_model()
    divider = model.row_of_id(15) + 1
    assert model.row_kind(divider) == DIVIDER
    assert model.kept_words() == (  # #2 is the model's reply and #99 is gone: neither is listed
        (1, "Earlier question 0"),
        (14, "Never push to *main* directly [ever]"),
    )
    click(qtbot, view, view.action_rect(divider, "toggle").center())
    text = layout_of(view, divider).doc.toPlainText()
    assert "Your words, kept as you wrote them" in text and "(none yet)" in text
    assert "#1 Earlier question 0" in text
    assert "#14 Never push to *main* directly [ever]" in text  # as written, not read as Markdown
    assert "second line" not in text
    assert view.action_rect(divider, "open_message", 14) is not None
    click(qtbot, view, view.action_rect(divider, "open_message", 1).center())
    first = model.row_of_id(1)
    assert view.currentIndex().row() == first
    assert view.visualRect(model.index(first, 0)).top() == 0  # at the top of the view
    view.set_summary(SessionSummary(summary="later", covered_through_id=15, kept_user_ids=[3]))
    qtbot.waitUntil(lambda: model.kept_words() == ((3, "Earlier question 1"),))  # read off the GUI thread


def test_squads_show_author_names(qtbot: QtBot, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "session.jsonl")
    store.append(items.user_message("Team, plan the release"))
    store.append(assistant("I'll split the work.", author="captain"))
    store.append(assistant("Tests are green.", author="tester"))
    names = {"captain": "Captain", "tester": "Tess the Tester"}
    view = open_view(qtbot, store, target_name_by_id=names.__getitem__, show_authors=True)
    assert view.chat_model().index(2, 0).data(ChatModel.AuthorRole) == "Tess the Tester"
    assert layout_of(view, 2).author == "Tess the Tester" and layout_of(view, 2).avatar is not None
    assert layout_of(view, 0).author == ""  # the user's own bubble
    view.stream_delta("Working on it", author="tester")
    qtbot.waitUntil(lambda: layout_of(view, 3).author == "Tess the Tester")
    assert layout_of(view, 3).bubble.left() == layout_of(view, 2).bubble.left()


def test_double_click_opens_a_read_only_text_selector_over_the_bubble(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, conversation(tmp_path / "session.jsonl"))
    rect = row_rect(view, 9)
    layout = layout_of(view, 9)
    point = (layout.doc_rect().topLeft() + QPointF(20, 8)).toPoint() + rect.topLeft()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)  # what a real double-click
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)  # sends: press, release, dblclick
    editors = view.viewport().findChildren(SelectableText)
    assert len(editors) == 1
    editor = editors[0]
    assert editor.isReadOnly() and "Reading a big file" in editor.toPlainText()
    assert rect.contains(editor.geometry().topLeft())
    assert editor.textCursor().selectedText() == "Reading"  # the double-clicked word
    assert view.chat_delegate().editing_key is not None
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not view.viewport().findChildren(SelectableText))
    assert view.select_text(11)  # also from the menu / API: everything selected, ready for Ctrl+C
    qtbot.waitUntil(lambda: view.chat_delegate().editor is not None)
    assert view.chat_delegate().editor.textCursor().selectedText() == "And the offset index?"


def test_layouts_are_cached_per_row_and_width(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, conversation(tmp_path / "session.jsonl"))
    delegate = view.chat_delegate()
    built = delegate.layouts_built
    view.viewport().repaint()
    view.scroll_to_top()
    view.scroll_to_bottom()
    assert delegate.layouts_built <= built + 13  # every row at most once at this width
    settled = delegate.layouts_built
    view.viewport().repaint()
    assert delegate.layouts_built == settled  # painting again lays out nothing
    view.resize(600, 900)
    QApplication.processEvents()
    assert delegate.layouts_built > settled  # a new width: visible rows laid out again
    narrow = delegate.layouts_built
    view.resize(820, 900)
    QApplication.processEvents()
    assert delegate.layouts_built <= narrow + 13  # each row at most once more


# ---------------------------------------------------------------------------------------- palette
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_bubbles_follow_the_palette(qtbot: QtBot, tmp_path: Path, theme: str) -> None:
    view = open_view(qtbot, conversation(tmp_path / "session.jsonl"))
    if theme == "dark":
        view.setPalette(dark_palette())
    QApplication.processEvents()
    rect = row_rect(view, 9)
    image = view.grab().toImage()
    image.save(str(tmp_path / f"chat-{theme}.png"))
    layout = layout_of(view, 9)
    colors = ChatColors.from_palette(view.palette())
    assert colors.dark == (theme == "dark")
    inside = (layout.bubble.topLeft() + QPointF(4, layout.bubble.height() / 2)).toPoint() + rect.topLeft()
    bubble = image.pixelColor(inside)
    background = image.pixelColor(QPoint(2, rect.top() + 2))
    assert bubble == colors.assistant_bg
    assert background == view.palette().color(QPalette.ColorRole.Base)
    if theme == "dark":
        assert bubble.lightness() < 70 and colors.text.lightness() > 200
    else:
        assert bubble.lightness() > 200
    # some text pixels differ strongly from the bubble (text is readable on it)
    text_area = layout.doc_rect().toAlignedRect().translated(rect.topLeft())
    contrast = max(
        abs(image.pixelColor(x, y).lightness() - bubble.lightness())
        for x in range(text_area.left(), text_area.left() + 200, 2)
        for y in range(text_area.top(), text_area.top() + 20)
    )
    assert contrast > 120


# ---------------------------------------------------------------------------------------- pure parts
@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["set", "append", "pop", "insert", "remove"]), st.integers(0, 400), st.integers(1, 300)
        ),
        max_size=40,
    ),
    st.integers(0, 50),
)
def test_height_index_matches_a_plain_list(ops: list[tuple[str, int, int]], start: int) -> None:
    index = HeightIndex(start, 60)
    plain = [60] * start
    for op, where, height in ops:
        if op == "append":
            index.append(height)
            plain.append(height)
        elif not plain:
            continue
        elif op == "set":
            index.set(where % len(plain), height)
            plain[where % len(plain)] = height
        elif op == "pop":
            index.pop()
            plain.pop()
        elif op == "insert":
            row = where % (len(plain) + 1)
            index.insert(row, 2)
            plain[row:row] = [60, 60]
        elif op == "remove":
            row = where % len(plain)
            index.remove(row)
            del plain[row]
    assert len(index) == len(plain) and index.total == sum(plain)
    for row in range(len(plain)):
        assert index.offset(row) == sum(plain[:row])
        assert index.row_at(sum(plain[:row])) == row
        assert index.row_at(sum(plain[:row]) + plain[row] - 1) == row


def test_digests() -> None:
    call = {"type": "tool_call", "name": "search_history", "arguments": '{"query": "x", "limit": 5}'}
    assert chat_text.tool_digest(call) == 'search_history(query="x", limit=5)'
    assert chat_text.tool_digest({**call, "arguments": "not json"}) == "search_history(not json)"
    result = {"type": "tool_result", "name": "search_history", "content": "a\nb", "ok": False}
    assert chat_text.tool_digest(result) == "search_history failed · 3 chars, 2 lines · a"  # the first line only
    huge = chat_text.trim_for_cache({**result, "content": "x\n" * 25_000})
    assert len(huge["content"]) == chat_text.CACHE_TEXT_CHARS and huge["_full_chars"] == 50_000
    assert chat_text.tool_digest(huge).startswith("search_history failed · 50,000 chars, 25,001 lines · x")
    assert "more chars" in chat_text.tool_detail(huge)
    assert chat_text.divider_label(1) == "Earlier messages summarized — 1 item"
    assert chat_text.status_line({"status": "interrupted", "content": ""}) == "Stopped before the model replied"
    assert chat_text.status_line({"status": "complete"}) == ""
    assert chat_text.time_label("not a time") == ""


@pytest.mark.parametrize("depth", [990, 5000])
def test_a_recorded_call_nested_thousands_deep_shows_as_raw_text(depth: int) -> None:
    """Issue 16, class 1: json.loads raises RecursionError, not ValueError, so expanding such a row (or a
    squad's "asked …" line) crashed the chat; 990 levels parsed and then broke json.dumps."""
    raw = '{"task": ' + "[" * depth + "]" * depth + "}"
    call = {"type": "tool_call", "name": "ask_ada", "arguments": raw}
    assert chat_text.tool_detail(call).startswith('{"task": [[[')
    assert chat_text.delegation_label(call, "Ada").startswith('asked Ada: {"task": [[[')
    assert chat_text.copy_text(call)
    assert chat_text.tool_digest({**call, "name": "read_file"}).startswith('read_file({"task": [[[')


def test_markdown_document_keeps_code_text_exact(qapp: object) -> None:
    from okbot.ui.chat.markdown import code_blocks, fenced_sources, make_document, style_document

    source = "text\n\n```\n  indented\n\ttab\n```\n\nthen\n\n  ~~~~sh\n  ls ```\n  ~~~~\n\nand\n\n```\nunclosed\n"
    doc = make_document(source, QFont())
    style_document(doc, QFont("monospace"), ChatColors.from_palette(QPalette()))
    doc.setTextWidth(400)
    assert isinstance(doc, QTextDocument)
    assert fenced_sources(source) == ["  indented\n\ttab", "ls ```", "unclosed"]
    assert [c.text for c in code_blocks(doc, source)] == ["  indented\n\ttab", "ls ```", "unclosed"]
    # two fences with nothing between them become one box in Qt's document: its text is then the document's
    merged = make_document("```\na\n```\n\n```\nb\n```\n", QFont())
    assert [c.text for c in code_blocks(merged, "```\na\n```\n\n```\nb\n```\n")] == ["a\nb"]
    assert [c.language for c in code_blocks(doc)] == ["", "sh", ""]


def test_a_key_an_older_version_stored_is_not_shown_or_copied(qtbot: QtBot, tmp_path: Path) -> None:
    """Issue 16, class 9: items are stored without the configured key now, but a reply stored earlier
    still held it, and the chat showed it."""
    from okbot.llm import keys

    secret = "sk-old-record-KEY-0123456789"
    path = tmp_path / "session.jsonl"
    old = [
        items.user_message("what is my key?"),
        items.new_item("assistant", author="a", source="app", content=f"It is {secret}.", status="complete"),
        items.new_item(
            "tool_call",
            author="a",
            source="app",
            call_id="c1",
            name="run_shell",
            arguments=f'{{"command": "echo {secret}"}}',
        ),
    ]
    for i, item in enumerate(old, 1):
        item["id"] = i
    path.write_bytes(b"".join(items.encode_item(it) for it in old))
    keys.remember_secret(secret)
    try:
        view = open_view(qtbot, SessionStore(path))
        model = view.chat_model()
        shown = [model.item(row) for row in range(model.rowCount())]
        assert all(secret not in str(it) for it in shown)
        assert shown[1]["content"] == "It is [redacted]." and "[redacted]" in chat_text.tool_detail(shown[2])
        assert secret in path.read_text(encoding="utf-8")  # the record itself is the user's; it is left as it was
    finally:
        with keys._remembered_lock:  # the registry is process-wide: leave it as it was
            keys._remembered.discard(secret)
