"""Hovering the time of a reply shows where its time went (issue 36), as the original Electron app does."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip
from pytestqt.qtbot import QtBot

from okbot.core import items
from okbot.core.session import SessionStore
from okbot.ui.chat import ChatView
from tests.ui.chat.test_chat_view import hover, open_view, row_rect

TIMING = {
    "total_ms": 2300,
    "phases": [
        {"phase": "server_wait", "ms": 400},
        {"phase": "first_token", "ms": 500},
        {"phase": "streaming", "ms": 1200},
        {"phase": "tool", "name": "read_file", "ms": 100},
        {"phase": "other", "ms": 100},
    ],
}
TIP = "Waiting for the server 0.4 s\nFirst token 0.5 s\nStreaming 1.2 s\nread_file 0.1 s\nOther 0.1 s\nTotal 2.3 s"


def _chat(path: Path) -> SessionStore:
    store = SessionStore(path)
    store.append(items.user_message("What does the file say?"))  # row 0
    store.append(items.new_item("assistant", author="okbot", source="app", content="It says hello.", timing=TIMING))
    store.append(items.user_message("And before timing was kept?"))  # row 2
    store.append(items.new_item("assistant", author="okbot", source="app", content="An old reply."))  # row 3
    return store


def _tip_at(qtbot: QtBot, view: ChatView, pos: QPoint) -> str:
    """Hover ``pos`` and ask for the tooltip there, as Qt does after the mouse rests."""
    QToolTip.hideText()
    qtbot.waitUntil(lambda: not QToolTip.isVisible())
    hover(view, pos)
    event = QHelpEvent(QEvent.Type.ToolTip, pos, view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(view.viewport(), event)
    return QToolTip.text() if QToolTip.isVisible() else ""


def test_hovering_the_time_of_a_reply_shows_where_its_time_went(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, _chat(tmp_path / "session.jsonl"))
    bubble = row_rect(view, 1)
    hover(view, bubble.center())
    time = view.time_rect(1)
    assert time is not None and bubble.contains(time.center())
    assert _tip_at(qtbot, view, time.center()) == TIP
    assert _tip_at(qtbot, view, bubble.center()) == ""  # the bubble's text is not the time


def test_a_reply_kept_before_timing_and_the_users_own_message_show_no_timing(qtbot: QtBot, tmp_path: Path) -> None:
    view = open_view(qtbot, _chat(tmp_path / "session.jsonl"))
    for row in (3, 2):
        hover(view, row_rect(view, row).center())
        time = view.time_rect(row)
        assert time is not None
        assert _tip_at(qtbot, view, time.center()) == ""
