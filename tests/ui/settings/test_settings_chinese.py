"""The Settings dialog in Simplified Chinese: the pages, the generated fields and a refusal speak it.

Needs the compiled catalogue (``make translations``, which ``make test`` runs first).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLabel, QLineEdit
from pytestqt.qtbot import QtBot

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.i18n import catalogue_file
from okbot.ui.app_context import AppContext
from okbot.ui.settings import SettingsDialog
from okbot.ui.translation import apply_language

SUMMARY = "contextCompression.summaryMaxChars"


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    if not catalogue_file("zh_CN").exists():
        pytest.fail("the zh_CN catalogue is not built: `make translations` (make test builds it)")
    assert apply_language("zh_CN") == "zh_CN"
    yield
    apply_language("en")


@pytest.fixture
def ctx() -> AppContext:
    workspace = Workspace()
    workspace.ensure_default()
    return AppContext.create(workspace, Settings.load())


def test_pages_labels_and_a_refusal_are_in_chinese(qtbot: QtBot, chinese: None, ctx: AppContext) -> None:
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0, timeout=10_000)

    assert dialog.windowTitle() == "设置"
    nav = [dialog.nav.item(row).text() for row in range(dialog.nav.count())]
    assert nav == ["模型", "上下文压缩", "工具", "MCP 服务器", "外观", "高级"]
    assert dialog.page_names()[1] == "Context compression", "the English title stays the page's key"

    page = dialog.open_page("Context compression")
    shown = {label.text() for label in page.findChildren(QLabel) if label.text()}
    assert {"上下文压缩", "何时压缩", "模型保留的内容", "压缩阈值：", "最少保留：", "摘要长度："} <= shown
    assert page.compress_button.text() == "立即压缩"

    spin = page.field(SUMMARY).editor()
    assert isinstance(spin, QAbstractSpinBox)
    spin.setFocus()
    line = spin.lineEdit()
    assert isinstance(line, QLineEdit)
    line.selectAll()
    qtbot.keyClicks(line, "50")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    assert page.field_message(SUMMARY) == "“摘要长度”必须为 100 到 8,000 个字符。当前仍为 2,000 个字符。"
    assert ctx.settings.get(SUMMARY) == 2000
