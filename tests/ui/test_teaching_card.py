"""The teaching card in the chat: under the reply, Keep as a rule / Not now by mouse and keyboard, translated, and
still there, decided, when the chat is opened again. The real window, the app's own keeper, the fake server."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from okbot.core.evolution import offers
from okbot.core.items import teaching_of
from okbot.ui.app_context import AppContext
from okbot.ui.chat.model import ChatModel
from okbot.ui.chat_page import ChatPage
from okbot.ui.main_window import MainWindow
from okbot.ui.translation import apply_language
from tests.helpers.fake_evolution import teacher
from tests.helpers.fake_openai import FakeOpenAIServer

RULE = "Thanks. From now on, always answer in British English."
WORDS = "From now on, always answer in British English."


@pytest.fixture(autouse=True)
def _careful_model(server: FakeOpenAIServer) -> None:
    server.set_default(teacher)  # chat answers "ok"; upkeep proposes the rule (it must be refused: the card has it)


def open_window(qtbot: QtBot, ctx: AppContext) -> tuple[MainWindow, ChatPage]:
    window = MainWindow(ctx, problems=[])
    qtbot.addWidget(window)
    window.resize(1000, 720)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.current_page() is not None)
    page = window.current_page()
    assert page is not None
    qtbot.waitUntil(lambda: not page.view.chat_model().loading)
    return window, page


def send(qtbot: QtBot, page: ChatPage, text: str) -> None:
    page.composer.edit.setFocus()
    page.composer.set_text(text)
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: page.last_result is not None and not page.streaming)


def last_card_row(page: ChatPage) -> int:
    model = page.view.chat_model()
    rows = [r for r in range(model.rowCount()) if teaching_of(model.item(r) or {}) is not None]
    assert rows, "no teaching card in the chat"
    return rows[-1]


def state_of(page: ChatPage, row: int) -> str:
    return page.view.chat_model().index(row, 0).data(ChatModel.TeachingRole)


def test_keep_as_a_rule_under_the_reply_writes_the_words_and_survives_reopening(qtbot: QtBot, ctx: AppContext):
    window, page = open_window(qtbot, ctx)
    target = page.target
    send(qtbot, page, RULE)
    row = last_card_row(page)
    model = page.view.chat_model()
    assert [model.item(r)["type"] for r in range(model.rowCount())] == ["user", "assistant", "notice"]  # after it
    assert state_of(page, row) == "offered"
    page.view.scrollTo(model.index(row, 0))
    rect = page.view.action_rect(row, "teach_keep")
    assert rect is not None and page.view.viewport().rect().contains(rect)
    assert page.view.action_rect(row, "teach_not_now") is not None
    qtbot.mouseClick(page.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: state_of(page, row) == "kept")
    assert page.view.action_rect(row, "teach_keep") is None  # decided: the buttons give way to one line
    assert target.soul_path.read_text(encoding="utf-8").endswith(f"- {WORDS}\n")
    [entry] = ctx.sources.evolution.entries(target)
    assert (entry.cited, entry.why) == ((1,), WORDS)  # the Evolution tab lists it, citing the message
    assert ctx.app.keeper.drain(30)
    assert ctx.sources.evolution.pending(target).empty  # upkeep did not propose it again in its words
    window.close()
    _again, reopened = open_window(qtbot, ctx)
    qtbot.waitUntil(lambda: state_of(reopened, last_card_row(reopened)) == "kept")


def test_the_keyboard_reaches_the_card_and_not_now_is_remembered(qtbot: QtBot, ctx: AppContext):
    window, page = open_window(qtbot, ctx)
    send(qtbot, page, "Never use emoji.")
    view = page.view
    row = last_card_row(page)
    assert row == view.chat_model().rowCount() - 1
    with qtbot.waitActive(window):
        window.activateWindow()
    page.composer.focus_input()
    for _ in range(12):  # from the composer, by keyboard alone: Shift+Tab until the chat has the focus
        if view.hasFocus():
            break
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Backtab)
    assert view.hasFocus()
    qtbot.keyClick(view, Qt.Key.Key_End)
    assert view.currentIndex().row() == row
    key = view.currentIndex().data(ChatModel.KeyRole)
    assert view.chat_delegate().focus_action == (key, "teach_keep")  # the ring starts on Keep
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.chat_delegate().focus_action == (key, "teach_not_now")
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: state_of(page, row) == "declined")
    assert offers.offers(ctx.sources, page.target)[1].state == offers.DECLINED
    assert ctx.sources.evolution.entries(page.target) == []
    window.close()
    _again, reopened = open_window(qtbot, ctx)
    qtbot.waitUntil(lambda: state_of(reopened, last_card_row(reopened)) == "declined")
    reopened.regenerate(1)  # the same message answered again (a new version of the reply): no second card
    qtbot.waitUntil(lambda: reopened.last_result is not None and not reopened.streaming)
    assert reopened.last_result.status == "complete"
    session = ctx.sources.session(reopened.target)
    assert sum(teaching_of(it) is not None for it in session.tail(20, all_versions=True)) == 1


def test_the_card_speaks_chinese(qtbot: QtBot, ctx: AppContext):
    apply_language("zh_CN")
    _window, page = open_window(qtbot, ctx)
    send(qtbot, page, "当我说“发布”时：1）运行测试 2）打标签 3）推送标签")
    row = last_card_row(page)
    menu = page.view.context_menu(row)
    labels = [a.text() for a in menu.actions()]
    assert labels[:2] == ["保留为技能", "暂不"]
