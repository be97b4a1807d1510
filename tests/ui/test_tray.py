"""The tray: closing the window keeps OkBot running (as ``ui.onClose`` says), the tray's menu opens chats, and a
reply that arrives while the window is hidden shows a notification that opens its chat.

The offscreen platform shows no tray (``tray_available()`` is False there, as on a desktop without one), so the
tests that need a tray attach Qt's own ``QSystemTrayIcon`` explicitly, as ``keep_in_tray`` does where there is one.
"""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from okbot.ui.app_context import AppContext
from okbot.ui.main_window import MainWindow
from okbot.ui.settings.dialog import SettingsDialog
from okbot.ui.tray import NOTICE_CHARS, Tray, notice_text, tray_available
from tests.helpers.fake_openai import FakeOpenAIServer, Reply
from tests.ui.test_main_window import open_window


def with_tray(qtbot: QtBot, ctx: AppContext) -> tuple[MainWindow, Tray]:
    window = open_window(qtbot, ctx)
    model = window.model
    tray = Tray(
        QApplication.windowIcon(),
        lambda: [t for row in range(model.rowCount()) if (t := model.target(row)) is not None],
        parent=window,
    )
    window.attach_tray(tray)
    return window, tray


def questions(window: MainWindow) -> list[QMessageBox]:
    """The close questions on show (a closed one lingers until Qt deletes it)."""
    return [box for box in window.findChildren(QMessageBox) if box.isVisible()]


def open_close_question(qtbot: QtBot, window: MainWindow) -> QMessageBox:
    window.close()
    qtbot.waitUntil(lambda: len(questions(window)) == 1)
    return questions(window)[0]


def button(box: QMessageBox, text: str) -> object:
    matches = [b for b in box.buttons() if b.text() == text]
    assert len(matches) == 1, [b.text() for b in box.buttons()]
    return matches[0]


def test_without_a_tray_closing_quits_and_the_setting_says_why(qtbot: QtBot, ctx: AppContext) -> None:
    assert not tray_available()  # offscreen: no tray, as on a desktop without one
    ctx.settings.set("ui.onClose", "tray")  # a choice made on another desktop does not strand the window
    window = open_window(qtbot, ctx)
    quits: list[bool] = []
    window.quit_requested.connect(lambda: quits.append(True))
    assert window.close()
    assert not window.isVisible() and not window.kept_in_tray
    assert questions(window) == []

    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    field = dialog.appearance_page.field("ui.onClose")
    assert not field.editor().isEnabled()
    assert "shows no tray icons" in field.editor().toolTip()
    dialog.appearance_page.binder.refresh()  # a refresh (any change of settings) keeps it locked
    assert not field.editor().isEnabled()


def test_the_tray_menu_lists_the_chats_and_opens_them(qtbot: QtBot, ctx: AppContext) -> None:
    researcher = ctx.workspace.create_assistant("Researcher")
    window, tray = with_tray(qtbot, ctx)
    tray.menu.aboutToShow.emit()  # as Qt does before it shows the menu: read the targets afresh
    assert [a.text() for a in tray.actions()] == ["OkBot", "Researcher", "Open OkBot", "Quit OkBot"]
    window.hide()
    next(a for a in tray.actions() if a.text() == "Researcher").trigger()
    assert window.isVisible()
    assert window.selected_target().id == researcher.id

    quits: list[bool] = []
    window.quit_requested.connect(lambda: quits.append(True))
    next(a for a in tray.actions() if a.text() == "Quit OkBot").trigger()
    assert quits == [True]
    assert not window.isVisible()


def test_the_first_close_asks_and_keeping_it_in_the_tray_is_remembered(qtbot: QtBot, ctx: AppContext) -> None:
    window, _tray = with_tray(qtbot, ctx)
    assert ctx.settings.get("ui.onClose") == "ask"
    box = open_close_question(qtbot, window)
    assert "tray" in box.text()
    window.close()  # a second close while the question is open asks no second question
    assert len(questions(window)) == 1
    button(box, "Keep running in the tray").click()
    qtbot.waitUntil(lambda: not window.isVisible())
    assert window.kept_in_tray
    assert ctx.settings.get("ui.onClose") == "tray"

    window.show_from_tray()
    assert window.isVisible() and not window.kept_in_tray
    window.close()  # the choice is kept: no question this time
    assert questions(window) == []
    assert not window.isVisible() and window.kept_in_tray


def test_the_first_close_can_quit_and_cancel_keeps_the_window(qtbot: QtBot, ctx: AppContext) -> None:
    window, _tray = with_tray(qtbot, ctx)
    box = open_close_question(qtbot, window)
    box.button(QMessageBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: not box.isVisible())
    assert window.isVisible()
    assert ctx.settings.get("ui.onClose") == "ask"  # nothing chosen, so ask again next time

    quits: list[bool] = []
    window.quit_requested.connect(lambda: quits.append(True))
    box = open_close_question(qtbot, window)
    button(box, "Quit OkBot").click()
    qtbot.waitUntil(lambda: quits == [True])
    assert not window.isVisible() and not window.kept_in_tray
    assert ctx.settings.get("ui.onClose") == "quit"


def test_a_reply_while_hidden_shows_a_notice_that_opens_its_chat(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    researcher = ctx.workspace.create_assistant("Researcher")
    ctx.settings.set("ui.onClose", "tray")
    window, tray = with_tray(qtbot, ctx)
    page = window.current_page()
    server.enqueue(Reply(text="seen while looking"))
    with qtbot.waitSignal(page.reply_finished):
        page.send("hello")
    assert tray.last_notice is None  # the window was on show: no notification

    window.select_target(researcher.kind, researcher.id)
    other = window.current_page()
    long_reply = "The answer, at last. " + "word " * 100
    server.enqueue(Reply(text=long_reply, chunk_chars=8, chunk_delay=0.02))
    other.send("take your time")
    window.close()
    assert window.kept_in_tray and not window.isVisible()
    with qtbot.waitSignal(other.reply_finished):
        pass
    assert tray.last_notice == ("Researcher replied", notice_text(long_reply))
    assert len(tray.last_notice[1]) == NOTICE_CHARS and tray.last_notice[1].endswith("…")

    window.select_target(page.target.kind, page.target.id)  # the user was elsewhere; the notice knows its chat
    tray.icon.messageClicked.emit()  # what Qt emits when the desktop's notification is clicked
    assert window.isVisible()
    assert window.selected_target().id == researcher.id


def test_notice_text_is_one_short_paragraph() -> None:
    assert notice_text("two\n\nlines  here") == "two lines here"
    assert notice_text("x" * 500) == "x" * (NOTICE_CHARS - 1) + "…"
