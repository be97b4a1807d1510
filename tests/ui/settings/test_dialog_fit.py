"""Settings at its minimum size (640×460): every page fits sideways and scrolls only up and down."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.ui.app_context import AppContext
from okbot.ui.settings import PAGE_KEYS, SettingsDialog

MINIMUM = (640, 460)


@pytest.fixture
def ctx() -> AppContext:
    workspace = Workspace()
    workspace.ensure_default()
    return AppContext.create(workspace, Settings.load())


def small_dialog(qtbot: QtBot, ctx: AppContext) -> SettingsDialog:
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.resize(*MINIMUM)
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0, timeout=10_000)
    assert (dialog.width(), dialog.height()) == MINIMUM
    assert (dialog.minimumWidth(), dialog.minimumHeight()) == MINIMUM
    return dialog


def clipped(scroll: QScrollArea) -> list[str]:
    """The visible widgets of the page that reach past the right edge of what the page shows."""
    viewport = scroll.viewport()
    out = []
    for child in scroll.widget().findChildren(QWidget):
        if not child.isVisibleTo(scroll.widget()) or child.width() == 0:
            continue
        right = child.mapTo(viewport, child.rect().topRight()).x()
        if right >= viewport.width():
            out.append(f"{type(child).__name__} {child.objectName() or child.toolTip()[:30]!r} ends at {right}")
    return out


@pytest.mark.parametrize("name", PAGE_KEYS)
def test_each_page_fits_sideways_at_the_minimum_size(qtbot: QtBot, ctx: AppContext, name: str) -> None:
    dialog = small_dialog(qtbot, ctx)
    page = dialog.open_page(name)
    QApplication.processEvents()
    assert dialog.minimumSizeHint().width() <= MINIMUM[0], "the dialog's own minimum is within 640"
    scroll = page.findChild(QScrollArea)
    assert scroll is not None
    assert page.body.minimumSizeHint().width() <= scroll.viewport().width(), "the page's rows fit its width"
    assert not scroll.horizontalScrollBar().isVisible()
    assert clipped(scroll) == []


def test_messages_under_fields_wrap_instead_of_widening_the_page(qtbot: QtBot, ctx: AppContext) -> None:
    dialog = small_dialog(qtbot, ctx)
    page = dialog.open_page("compression")
    for key in ("contextCompression.summaryMaxChars", "contextCompression.keepRecentMin"):
        page.binder.apply(key, 99_999)
    QApplication.processEvents()
    scroll = page.findChild(QScrollArea)
    assert page.body.minimumSizeHint().width() <= scroll.viewport().width()
    assert clipped(scroll) == []
