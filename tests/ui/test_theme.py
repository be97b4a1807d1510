"""Light, dark or the system's colours and the chat text size, from settings, applied live to the real widgets."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.chat import ChatView
from okbot.ui.chat.colors import ChatColors, is_dark
from okbot.ui.composer import ComposerEdit
from okbot.ui.settings import SettingsDialog
from okbot.ui.tasks import TaskRunner
from okbot.ui.theme import (
    Appearance,
    apply_chat_text_size,
    apply_theme,
    dark_palette,
    light_palette,
    system_font_size,
)
from tests.ui.chat.test_chat_view import conversation, row_rect


@pytest.fixture
def app(qapp: QApplication) -> Iterator[QApplication]:
    """The application, put back to the system's look after the test (other tests share it)."""
    system = QPalette(qapp.palette())
    yield qapp
    apply_theme(qapp, "system")
    apply_chat_text_size(qapp, None)
    assert qapp.palette() == system


def in_window(qtbot: QtBot, *widgets: QWidget) -> QWidget:
    """``widgets`` inside a shown window, as they are in the app (a window of its own keeps the app font)."""
    window = QWidget()
    qtbot.addWidget(window)
    layout = QVBoxLayout(window)
    for widget in widgets:
        layout.addWidget(widget)
    window.resize(820, 900)
    window.show()
    qtbot.waitExposed(window)
    return window


def chat_view(qtbot: QtBot, path: Path) -> tuple[ChatView, QWidget]:
    """A chat view showing a realistic conversation, and the window it is in."""
    view = ChatView()
    window = in_window(qtbot, view)
    with qtbot.waitSignal(view.loaded, timeout=20_000):
        view.set_session(conversation(path), tasks=TaskRunner(view))
    QApplication.processEvents()
    return view, window


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (4.5 is the bar for body text)."""

    def luminance(c: QColor) -> float:
        parts = [v / 255 for v in (c.red(), c.green(), c.blue())]
        lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in parts]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("palette", [light_palette(), dark_palette()], ids=["light", "dark"])
def test_every_text_colour_reads_on_its_background(palette: QPalette) -> None:
    role = QPalette.ColorRole
    for text, back in (
        (role.WindowText, role.Window),
        (role.Text, role.Base),
        (role.Text, role.AlternateBase),
        (role.ButtonText, role.Button),
        (role.HighlightedText, role.Highlight),
        (role.ToolTipText, role.ToolTipBase),
    ):
        assert contrast(palette.color(text), palette.color(back)) >= 4.5, (text, back)
    assert contrast(palette.color(role.PlaceholderText), palette.color(role.Base)) >= 3
    colors = ChatColors.from_palette(palette)
    for back in (colors.assistant_bg, colors.user_bg, colors.code_bg, colors.background):
        assert contrast(colors.text, back) >= 4.5, back.name()
    assert contrast(colors.code_header, colors.code_header_bg) >= 3
    assert contrast(colors.error, colors.background) >= 4.5


def test_theme_follows_the_setting_live(qtbot: QtBot, app: QApplication) -> None:
    system = QPalette(app.palette())
    settings = Settings.load()
    label = QLabel("hello")
    _window = in_window(qtbot, label)
    appearance = Appearance(app, settings)
    assert app.palette() == system, "the default is the system's colours"
    settings.set("ui.theme", "dark")
    QApplication.processEvents()
    assert is_dark(app.palette()) and is_dark(label.palette())
    assert app.palette().color(QPalette.ColorRole.Window) == dark_palette().color(QPalette.ColorRole.Window)
    settings.set("ui.theme", "light")
    assert not is_dark(app.palette())
    settings.set("ui.theme", "system")
    assert app.palette() == system
    appearance.stop()
    settings.set("ui.theme", "dark")
    assert app.palette() == system, "a stopped Appearance no longer follows"


def test_the_saved_look_applies_at_start(qtbot: QtBot, app: QApplication) -> None:
    paths.settings_file().parent.mkdir(parents=True, exist_ok=True)
    paths.settings_file().write_text('{"version": 1, "ui.theme": "dark", "ui.fontSize": 15}', encoding="utf-8")
    Appearance(app, Settings.load())
    edit = ComposerEdit()
    _window = in_window(qtbot, edit)
    assert is_dark(app.palette())
    assert edit.font().pointSize() == 15


def test_text_size_changes_the_chat_and_the_composer_only(qtbot: QtBot, app: QApplication, tmp_path: Path) -> None:
    system_size = app.font().pointSizeF()
    settings = Settings.load()
    view, _chat_window = chat_view(qtbot, tmp_path / "session.jsonl")
    edit = ComposerEdit()
    other = QLabel("sidebar")
    _window = in_window(qtbot, edit, other)
    before = row_rect(view, 9).height()
    _appearance = Appearance(app, settings)
    settings.set("ui.fontSize", 20)
    QApplication.processEvents()
    assert view.font().pointSize() == 20 and edit.font().pointSize() == 20
    assert other.font().pointSizeF() == system_size == app.font().pointSizeF()
    assert row_rect(view, 9).height() > before * 1.4, "the chat laid its rows out again in the bigger text"
    later = ChatView()
    _later_window = in_window(qtbot, later)
    assert later.font().pointSize() == 20, "a chat opened later gets the size too"
    settings.set("ui.fontSize", None)
    QApplication.processEvents()
    assert view.font() == QFont(app.font())
    assert row_rect(view, 9).height() == before


def test_dark_chat_paints_light_text_on_dark_bubbles(qtbot: QtBot, app: QApplication, tmp_path: Path) -> None:
    view, _window = chat_view(qtbot, tmp_path / "session.jsonl")
    apply_theme(app, "dark")
    QApplication.processEvents()
    colors = ChatColors.from_palette(view.palette())
    assert colors.dark
    image = view.grab().toImage()
    rect = row_rect(view, 9)
    assert image.pixelColor(rect.left() + 2, rect.top() + 2).lightness() < 60, "the chat background went dark"


def test_the_appearance_page_changes_the_look_at_once(qtbot: QtBot, app: QApplication) -> None:
    workspace = Workspace()
    workspace.ensure_default()
    ctx = AppContext.create(workspace, Settings.load())
    _appearance = Appearance(app, ctx.settings)
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    page = dialog.open_page("appearance")
    combo = page.field("ui.theme").editor()
    assert combo.currentText() == "Same as the system"
    combo.setCurrentIndex(combo.findData("dark"))
    combo.activated.emit(combo.currentIndex())
    assert ctx.settings.get("ui.theme") == "dark" and is_dark(app.palette())
    spin = page.field("ui.fontSize").editor()
    assert spin.text() == "System default"
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key.Key_Up)  # one step up from the system's size
    assert ctx.settings.get("ui.fontSize") == system_font_size() + 1
    assert QApplication.font("ChatView").pointSize() == system_font_size() + 1
    assert app.font().pointSize() == system_font_size(), "the rest of the UI keeps the system's size"
    ctx.tasks.wait_for_done(5000)


def test_the_sidebars_magnifier_follows_a_live_theme_change(qtbot: QtBot, app: QApplication) -> None:
    """Issue 34, item 15: drawn once in the light palette's colour, it stayed black on the dark sidebar."""
    from okbot.ui.sidebar import Sidebar, TargetListModel

    settings = Settings.load()
    sidebar = Sidebar(TargetListModel())
    _window = in_window(qtbot, sidebar)
    appearance = Appearance(app, settings)
    settings.set("ui.theme", "dark")
    QApplication.processEvents()
    image = sidebar.find_button.icon().pixmap(16, 16).toImage()
    drawn = [image.pixelColor(x, y) for x in range(16) for y in range(16) if image.pixelColor(x, y).alpha() > 200]
    assert drawn, "the icon draws something"
    background = sidebar.palette().color(QPalette.ColorRole.Window)
    assert max(contrast(c, background) for c in drawn) >= 4.5
    appearance.stop()
