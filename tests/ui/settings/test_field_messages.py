"""A refused value never vanishes: it stays in its field, with the refusal in words right under it.

Driven through the real SettingsDialog with the keyboard, against a real settings.json in OKBOT_HOME.
"""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.settings import SettingsDialog
from okbot.ui.settings.page import SettingsPage
from tests.helpers.keyrings import BrokenKeyring, system_keyring

SUMMARY = "contextCompression.summaryMaxChars"
KEEP_MIN = "contextCompression.keepRecentMin"
KEEP_MAX = "contextCompression.keepRecentMax"
SUMMARY_WORDS = "“Summary length” must be between 100 and 8,000 characters. Still using 2,000 characters."
KEEP_MAX_WORDS = "“Keep at most” must be between 1 and 500 items. Still using 12 items."


@pytest.fixture
def ctx() -> AppContext:
    workspace = Workspace()
    workspace.ensure_default()
    return AppContext.create(workspace, Settings.load())


def open_dialog(qtbot: QtBot, ctx: AppContext) -> SettingsDialog:
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0, timeout=10_000)
    return dialog


def type_into(qtbot: QtBot, editor: QWidget, text: str) -> None:
    """Select what the field holds, type ``text`` and press Enter, as a user does."""
    editor.setFocus()
    line = editor.lineEdit() if isinstance(editor, QAbstractSpinBox) else editor
    assert isinstance(line, QLineEdit)
    line.selectAll()
    qtbot.keyClicks(line, text)
    qtbot.keyClick(line, Qt.Key.Key_Return)


def shown_under(page: SettingsPage, key: str) -> str:
    """The refusal shown under ``key``'s field, checked to be visible and laid out right below the editor."""
    field = page.field(key)
    label = field.problem_label
    if not label.isVisibleTo(page):
        return ""
    editor_bottom = field.mapTo(page, field.rect().bottomLeft()).y()
    top = label.mapTo(page, label.rect().topLeft()).y()
    assert 0 <= top - editor_bottom <= 12, "the message sits right under its own field"
    return label.text()


def test_summary_length_out_of_range_stays_with_its_message(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    page = dialog.open_page("compression")
    spin = page.field(SUMMARY).editor()
    type_into(qtbot, spin, "50")
    assert spin.text() == "50 characters", "what was typed is not thrown away"
    assert shown_under(page, SUMMARY) == SUMMARY_WORDS
    assert page.message_text() == "", "no shared status line: the message is by the field"
    assert ctx.settings.get(SUMMARY) == 2000
    assert not paths.settings_file().exists(), "nothing was written"
    type_into(qtbot, spin, "3000")
    assert ctx.settings.get(SUMMARY) == 3000
    assert shown_under(page, SUMMARY) == "", "the message goes once the field holds a saved value"


def test_two_refusals_each_stay_by_their_own_field(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    page = dialog.open_page("compression")
    type_into(qtbot, page.field(SUMMARY).editor(), "50")
    type_into(qtbot, page.field(KEEP_MAX).editor(), "0")
    assert shown_under(page, SUMMARY) == SUMMARY_WORDS, "the earlier error is still there, unchanged"
    assert shown_under(page, KEEP_MAX) == KEEP_MAX_WORDS
    assert page.field(KEEP_MAX).editor().text() == "0 items"
    type_into(qtbot, page.field(SUMMARY).editor(), "4000")
    assert shown_under(page, SUMMARY) == ""
    assert shown_under(page, KEEP_MAX) == KEEP_MAX_WORDS, "fixing one field leaves the other's message"
    assert page.field(KEEP_MAX).editor().text() == "0 items"


def test_keep_bounds_out_of_order_name_both_fields_and_heal(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    page = dialog.open_page("compression")
    type_into(qtbot, page.field(KEEP_MIN).editor(), "20")
    assert shown_under(page, KEEP_MIN) == (
        "“Keep at least” must not be more than “Keep at most” (12 items). Still using 8 items."
    )
    assert ctx.settings.get(KEEP_MIN) == 8
    type_into(qtbot, page.field(KEEP_MAX).editor(), "30")
    assert (ctx.settings.get(KEEP_MIN), ctx.settings.get(KEEP_MAX)) == (20, 30), "the 20 on show is saved now"
    assert shown_under(page, KEEP_MIN) == ""
    assert json.loads(paths.settings_file().read_text("utf-8"))[KEEP_MIN] == 20


def test_a_refused_url_stays_in_the_field_with_its_message(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    page = dialog.models_page
    line = page.field("provider.baseUrl").editor()
    type_into(qtbot, line, "ftp://example.com")
    assert line.text() == "ftp://example.com"
    assert shown_under(page, "provider.baseUrl") == (
        "“Base URL” must be an http:// or https:// URL. Still using https://api.openai.com/v1."
    )
    assert ctx.settings.get("provider.baseUrl") == "https://api.openai.com/v1"


def test_a_change_made_elsewhere_replaces_a_refused_value(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    page = dialog.open_page("compression")
    type_into(qtbot, page.field(SUMMARY).editor(), "50")
    ctx.settings.set(SUMMARY, 2500)  # e.g. `okbot config set` picked up by a reload
    assert page.field(SUMMARY).value() == 2500
    assert shown_under(page, SUMMARY) == ""


def test_arrows_keep_to_the_bounds(qtbot: QtBot, ctx: AppContext) -> None:
    ctx.settings.set(SUMMARY, 8000)
    dialog = open_dialog(qtbot, ctx)
    page = dialog.open_page("compression")
    spin = page.field(SUMMARY).editor()
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert spin.value() == 8000 and shown_under(page, SUMMARY) == ""
    type_into(qtbot, spin, "50")
    qtbot.keyClick(spin, Qt.Key.Key_Up)  # from a refused value, one step lands on the nearest allowed one
    assert ctx.settings.get(SUMMARY) == 100 and shown_under(page, SUMMARY) == ""


def test_a_nullable_field_steps_between_its_default_and_its_bounds(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = open_dialog(qtbot, ctx)
    page = dialog.models_page
    spin = page.field("model.contextWindow").editor()
    assert spin.text() == "Model default"
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key.Key_Up)
    assert ctx.settings.get("model.contextWindow") == 1000
    qtbot.keyClick(spin, Qt.Key.Key_Down)
    assert ctx.settings.get("model.contextWindow") is None and spin.text() == "Model default"
    type_into(qtbot, spin, "500")
    assert shown_under(page, "model.contextWindow") == (
        "“Context window” must be between 1,000 and 10,000,000 tokens, or Model default. Still using Model default."
    )


def test_a_settings_file_from_a_newer_okbot_is_refused_by_the_field(qtbot: QtBot, ctx: AppContext) -> None:
    paths.settings_file().parent.mkdir(parents=True, exist_ok=True)
    paths.settings_file().write_text(json.dumps({"version": 99}), encoding="utf-8")
    ctx.settings.reload()
    dialog = open_dialog(qtbot, ctx)
    page = dialog.open_page("compression")
    type_into(qtbot, page.field(SUMMARY).editor(), "3000")
    message = shown_under(page, SUMMARY)
    assert message.startswith("Settings not saved:") and "newer" in message, message
    assert message.endswith("Still using 2,000 characters.")


def test_a_key_that_is_not_saved_is_said_under_the_key_field(qtbot: QtBot, ctx: AppContext) -> None:
    with system_keyring(BrokenKeyring()):  # a keyring that is there but does not take the key (locked)
        _key_not_saved(qtbot, ctx)


def _key_not_saved(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0, timeout=10_000)
    page = dialog.models_page
    qtbot.mouseClick(page.save_key_button, Qt.MouseButton.LeftButton)
    assert page.key_problem.text() == "Paste a key first." and page.key_problem.isVisibleTo(page)
    qtbot.keyClicks(page.key_edit, "sk-test-123")
    qtbot.mouseClick(page.save_key_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0, timeout=10_000)
    assert "The system keyring did not accept the key" in page.key_problem.text()
    assert "sk-test-123" not in page.key_problem.text()
    assert page.key_edit.text() == "sk-test-123", "the key stays, to try again"
    assert page.message_text() == ""
