"""Everything the Settings dialog shows a person names settings by their labels, never by key names."""

from __future__ import annotations

import re

import pytest
from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox, QLabel, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from okbot.config.schema import SETTINGS
from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.ui.app_context import AppContext
from okbot.ui.settings import PAGE_KEYS, SettingsDialog
from okbot.ui.settings.fields import FloatField, IntField, TextField

KEY_NAME = re.compile(r"\b[a-z]+(?:[A-Z][a-z0-9]*)+\b")  # keepRecentMax, summaryMaxChars, contextWindow


@pytest.fixture
def ctx() -> AppContext:
    workspace = Workspace()
    workspace.ensure_default()
    return AppContext.create(workspace, Settings.load())


def texts_shown(widget: QWidget) -> list[str]:
    """Every text ``widget`` and its children show or speak: labels, buttons, items, tooltips, descriptions."""
    out: list[str] = []
    for child in [widget, *widget.findChildren(QWidget)]:
        out += [child.toolTip(), child.accessibleName(), child.accessibleDescription(), child.windowTitle()]
        if isinstance(child, (QLabel, QAbstractButton)):
            out.append(child.text())
        if isinstance(child, QComboBox):
            out += [child.itemText(i) for i in range(child.count())]
        if isinstance(child, QLineEdit):
            out += [child.text(), child.placeholderText()]
        if isinstance(child, QAbstractSpinBox):
            out += [child.text(), child.specialValueText()]
    return [text for text in out if text]


def key_names_in(text: str) -> list[str]:
    return [spec.key for spec in SETTINGS if spec.key in text] + KEY_NAME.findall(text)


def test_no_text_in_the_dialog_names_a_key(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0, timeout=10_000)
    # every number and text field refused once, so its message is among the texts walked
    for name in PAGE_KEYS:
        page = dialog.page(name)
        for key, field in page.binder.fields().items():
            if isinstance(field, (IntField, FloatField)):
                page.binder.apply(key, -1)
            elif isinstance(field, TextField):
                page.binder.apply(key, "")
            assert key not in page.binder.pending() or field.problem(), f"{key} refused without a message"
    found = {text: key_names_in(text) for text in texts_shown(dialog)}
    assert {text: keys for text, keys in found.items() if keys} == {}
    assert sum("must be" in text for text in found) >= 10, "the refusals were among the texts checked"
