"""Typing Chinese through an input method: composition never sends, and what is committed is what is sent."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QInputMethodEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from okbot.ui.composer import Composer


def compose(composer: Composer, preedit: str) -> None:
    QApplication.sendEvent(composer.edit, QInputMethodEvent(preedit, []))


def commit(composer: Composer, text: str) -> None:
    event = QInputMethodEvent()
    event.setCommitString(text)
    QApplication.sendEvent(composer.edit, event)


def test_pinyin_composition_is_never_sent_and_the_chosen_characters_are(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    for preedit in ("n", "ni", "ni'h", "ni'hao"):  # the pinyin grows key by key
        compose(composer, preedit)
        assert composer.edit.composing
        qtbot.keyClick(composer.edit, Qt.Key.Key_Return)  # Enter while composing: the IME's, never a send
        qtbot.keyClick(composer.edit, Qt.Key.Key_Enter)
    assert sent == []
    commit(composer, "你好")
    assert not composer.edit.composing and composer.text() == "你好"
    compose(composer, "shi'jie")
    commit(composer, "，世界")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == ["你好，世界"]


def test_a_composition_cancelled_with_escape_leaves_the_typed_text_and_sends_nothing(qtbot: QtBot) -> None:
    composer = Composer()
    qtbot.addWidget(composer)
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    composer.set_text("上下文")
    compose(composer, "ya'suo")
    compose(composer, "")  # the IME withdraws the preedit (Esc in the candidate window)
    assert not composer.edit.composing and composer.text() == "上下文"
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # a new line, not a send
    commit(composer, "压缩")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == ["上下文\n压缩"]
