"""Reading a long chat: long messages collapse behind "Show more"; scrolled up, new content waits behind
"Jump to latest" / "New messages" instead of moving what the user reads."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from okbot.core import items
from okbot.core.session import SessionStore
from okbot.ui.chat.jump_button import JUMP_TEXT, NEW_TEXT
from okbot.ui.chat.layout import COLLAPSE_LINES, LESS_LABEL, MORE_LABEL
from tests.ui.chat.test_chat_view import assistant, click, layout_of, open_view

LONG = "\n\n".join(f"Paragraph {i}: a line of a long answer." for i in range(COLLAPSE_LINES + 20))


def chat(path: Path, count: int = 40) -> SessionStore:
    store = SessionStore(path)
    for i in range(count):
        store.append(items.user_message(f"Question {i}"))
        store.append(assistant(f"Answer {i}."))
    return store


# ---------------------------------------------------------------------------------------- Show more
def test_a_long_message_shows_collapsed_and_show_more_opens_it(qtbot: QtBot, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "session.jsonl")
    store.append(items.user_message("Tell me everything."))
    store.append(assistant(LONG))
    store.append(assistant("Short and sweet."))
    view = open_view(qtbot, store, size=(820, 700))
    model = view.chat_model()
    collapsed = layout_of(view, 1)
    assert collapsed.collapsed and collapsed.more is not None and collapsed.more.label == MORE_LABEL
    assert collapsed.shown_h < collapsed.doc.size().height()
    assert layout_of(view, 2).more is None and not layout_of(view, 2).collapsed
    short_h = view.visualRect(model.index(1, 0)).height()

    rect = view.action_rect(1, "toggle")
    assert rect is not None
    click(qtbot, view, rect.center())
    assert model.is_expanded(1)
    opened = layout_of(view, 1)
    assert not opened.collapsed and opened.more.label == LESS_LABEL
    assert opened.shown_h == opened.doc.size().height()
    assert view.visualRect(model.index(1, 0)).height() > short_h + 300

    rect = view.action_rect(1, "toggle")
    click(qtbot, view, rect.center())
    assert not model.is_expanded(1) and view.visualRect(model.index(1, 0)).height() == short_h


def test_a_reply_read_as_it_streamed_stays_open(qtbot: QtBot, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "session.jsonl")
    store.append(items.user_message("Tell me everything."))
    view = open_view(qtbot, store)
    view.stream_delta(LONG)
    qtbot.waitUntil(lambda: not layout_of(view, 1).collapsed and layout_of(view, 1).style == "stream")
    view.append_item(store.append(assistant(LONG)))
    assert view.chat_model().is_expanded(1) and not layout_of(view, 1).collapsed
    reopened = open_view(qtbot, store)  # opened later, the same reply shows collapsed
    assert layout_of(reopened, 1).collapsed


def test_selecting_text_in_a_collapsed_message_opens_it(qtbot: QtBot, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "session.jsonl")
    store.append(assistant(LONG))
    view = open_view(qtbot, store)
    assert layout_of(view, 0).collapsed
    assert view.select_text(0)
    assert view.chat_model().is_expanded(0) and view.chat_delegate().editor is not None


# ---------------------------------------------------------------------------------------- Jump to latest
def test_at_the_bottom_there_is_no_jump_button(qtbot: QtBot, tmp_path: Path) -> None:
    store = chat(tmp_path / "session.jsonl")
    view = open_view(qtbot, store, size=(820, 500))
    assert view.is_at_bottom() and view.jump_button().isHidden()
    view.append_item(store.append(assistant("Another answer.")))
    QApplication.processEvents()
    assert view.is_at_bottom() and view.jump_button().isHidden()
    assert view.chat_model().rowCount() - 1 in view.visible_rows()


def test_scrolled_up_new_content_marks_the_button_and_never_moves_the_view(qtbot: QtBot, tmp_path: Path) -> None:
    store = chat(tmp_path / "session.jsonl")
    view = open_view(qtbot, store, size=(820, 500))
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    QApplication.processEvents()
    button = view.jump_button()
    assert not view.is_at_bottom() and button.isVisible() and button.text() == JUMP_TEXT
    assert view.viewport().rect().contains(button.geometry())
    assert button.geometry().right() > view.viewport().width() * 0.7  # bottom right
    assert button.geometry().bottom() > view.viewport().height() * 0.8
    shown, value = list(view.visible_rows()), bar.value()

    view.stream_delta("A reply is coming in")
    qtbot.waitUntil(lambda: button.text() == NEW_TEXT)
    view.stream_delta(" and growing. " * 40)
    qtbot.wait(120)
    view.append_item(store.append(assistant("A reply is coming in and growing.")))
    view.append_item(store.append(items.new_item("notice", author="app", source="app", content="Saved.")))
    QApplication.processEvents()
    assert list(view.visible_rows()) == shown and bar.value() == value  # nothing moved
    assert button.isVisible() and button.text() == NEW_TEXT

    button.click()
    QApplication.processEvents()
    assert view.is_at_bottom() and button.isHidden() and button.text() == JUMP_TEXT
    assert view.chat_model().rowCount() - 1 in view.visible_rows()


def test_scrolling_back_down_by_hand_hides_the_button(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, chat(tmp_path / "session.jsonl"), size=(820, 500))
    bar = view.verticalScrollBar()
    bar.setValue(0)
    QApplication.processEvents()
    assert view.jump_button().isVisible()
    bar.setValue(bar.maximum())
    QApplication.processEvents()
    assert view.is_at_bottom() and view.jump_button().isHidden()


def test_sending_a_message_while_scrolled_up_goes_to_the_bottom(qtbot: QtBot, tmp_path: Path) -> None:
    store = chat(tmp_path / "session.jsonl")
    view = open_view(qtbot, store, size=(820, 500))
    view.verticalScrollBar().setValue(0)
    QApplication.processEvents()
    view.append_item(store.append(items.user_message("My own new question")))
    QApplication.processEvents()
    assert view.is_at_bottom() and view.jump_button().isHidden()
    assert view.indexAt(QPoint(10, view.viewport().height() - 30)).row() >= view.chat_model().rowCount() - 2


def test_a_chat_that_fits_never_offers_to_jump_to_the_latest(qtbot: QtBot, tmp_path: Path) -> None:
    """Issue 34, item 7: after a find, a search hit or a version switch put a row at the top, the button
    showed although the whole chat was in view, covering message text at 640×420."""
    store = chat(tmp_path / "session.jsonl", count=2)
    view = open_view(qtbot, store, size=(640, 420))
    assert view.verticalScrollBar().maximum() == 0  # the whole chat is in view
    model = view.chat_model()
    view.scrollTo(model.index(0, 0), view.ScrollHint.PositionAtTop)  # what a find or a search hit does
    QApplication.processEvents()
    assert view.jump_button().isHidden()
    view.find_in_item("Question 0", model.item_id(0))
    qtbot.waitUntil(lambda: view.find_bar().isVisible())
    QApplication.processEvents()
    assert view.jump_button().isHidden()
