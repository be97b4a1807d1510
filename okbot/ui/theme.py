"""The app's look from settings: light, dark or the system's colours (``ui.theme``) and the chat text size
(``ui.fontSize``), applied at start-up and again whenever either setting changes.

Colours: ``system`` hands the palette back to the platform (and unsets any colour scheme asked for);
``light`` and ``dark`` ask the platform for that colour scheme (native title bars and dialogs follow
where it can) and set OkBot's own palette, so the choice holds on every platform and style. Every
other colour in the app (chat bubbles, code blocks, notes) is derived from the palette
(:mod:`okbot.ui.chat.colors`), so one palette change restyles everything live.

Text size: the chat (``ChatView``) and the box where the user types (``ComposerEdit``) get the chosen
point size through Qt's per-class application fonts, so chats opened later get it too and the rest of
the UI keeps the system's size (the Settings dialog has to fit at its minimum size whatever is chosen).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

from okbot.config.settings import Settings
from okbot.ui.settings_relay import subscribe_weakly

THEME_KEY = "ui.theme"
FONT_SIZE_KEY = "ui.fontSize"
CHAT_TEXT_CLASSES = ("ChatView", "ComposerEdit")  # the widgets whose text ui.fontSize sizes

_ROLE = QPalette.ColorRole
_DARK = {
    _ROLE.Window: "#202124",
    _ROLE.WindowText: "#e8eaed",
    _ROLE.Base: "#1b1c1f",
    _ROLE.AlternateBase: "#26272b",
    _ROLE.Text: "#e8eaed",
    _ROLE.Button: "#2b2c30",
    _ROLE.ButtonText: "#e8eaed",
    _ROLE.BrightText: "#ffffff",
    _ROLE.Highlight: "#2f6fd0",
    _ROLE.HighlightedText: "#ffffff",
    _ROLE.PlaceholderText: "#9aa0a6",
    _ROLE.ToolTipBase: "#2b2c30",
    _ROLE.ToolTipText: "#e8eaed",
    _ROLE.Link: "#8ab4f8",
    _ROLE.LinkVisited: "#c58af9",
    _ROLE.Mid: "#3c3d41",
    _ROLE.Midlight: "#35363a",
    _ROLE.Dark: "#151618",
    _ROLE.Light: "#4a4b50",
    _ROLE.Shadow: "#000000",
}
_DARK_DISABLED = {_ROLE.WindowText: "#6f7378", _ROLE.Text: "#6f7378", _ROLE.ButtonText: "#6f7378"}
_LIGHT = {
    _ROLE.Window: "#f2f2f2",
    _ROLE.WindowText: "#1f1f1f",
    _ROLE.Base: "#ffffff",
    _ROLE.AlternateBase: "#f5f5f5",
    _ROLE.Text: "#1f1f1f",
    _ROLE.Button: "#ececec",
    _ROLE.ButtonText: "#1f1f1f",
    _ROLE.BrightText: "#ffffff",
    _ROLE.Highlight: "#2f6fd0",
    _ROLE.HighlightedText: "#ffffff",
    _ROLE.PlaceholderText: "#6b6b6b",
    _ROLE.ToolTipBase: "#ffffdc",
    _ROLE.ToolTipText: "#1f1f1f",
    _ROLE.Link: "#1a5fb4",
    _ROLE.LinkVisited: "#6c3bb0",
    _ROLE.Mid: "#c4c4c4",
    _ROLE.Midlight: "#e3e3e3",
    _ROLE.Dark: "#9f9f9f",
    _ROLE.Light: "#ffffff",
    _ROLE.Shadow: "#767676",
}
_LIGHT_DISABLED = {_ROLE.WindowText: "#9a9a9a", _ROLE.Text: "#9a9a9a", _ROLE.ButtonText: "#9a9a9a"}


def _palette(colours: dict[QPalette.ColorRole, str], disabled: dict[QPalette.ColorRole, str]) -> QPalette:
    palette = QPalette()
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    for role, colour in disabled.items():
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(colour))
    return palette


def dark_palette() -> QPalette:
    """OkBot's dark palette (every text colour reads on its background at 4.5:1 or better)."""
    return _palette(_DARK, _DARK_DISABLED)


def light_palette() -> QPalette:
    """OkBot's light palette, for ``light`` on a desktop whose own theme is dark."""
    return _palette(_LIGHT, _LIGHT_DISABLED)


def apply_theme(app: QApplication, theme: str) -> None:
    """Give ``app`` the colours of ``theme`` (system, light or dark); every widget restyles live."""
    hints = app.styleHints()
    if theme == "dark" or theme == "light":
        hints.setColorScheme(Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light)
        app.setPalette(dark_palette() if theme == "dark" else light_palette())
    else:
        hints.unsetColorScheme()
        app.setPalette(QPalette())  # nothing set: the platform's own palette again


def system_font_size() -> int:
    """The system's text size in points (the application font, which OkBot never changes)."""
    return round(QApplication.font().pointSizeF())


def apply_chat_text_size(app: QApplication, points: int | None) -> None:
    """Size the chat's and the composer's text at ``points`` (``None``: the system's size)."""
    font = QFont(app.font())
    if points is not None:
        font.setPointSize(points)
    for name in CHAT_TEXT_CLASSES:
        app.setFont(font, name)


class Appearance(QObject):
    """Keeps ``app`` looking as ``settings`` say: applies both settings now, then each change as it is saved.

    A change may be reported on any thread (a reload on a pool thread); it is applied on the GUI
    thread. :meth:`stop` (or deleting this object) ends the following.
    """

    _settings_changed = Signal(str)

    def __init__(self, app: QApplication, settings: Settings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._app = app
        self._settings = settings
        self._settings_changed.connect(self._on_settings_changed)
        self._unsubscribe: Callable[[], None] | None = subscribe_weakly(settings, self, "_settings_changed")
        apply_theme(app, settings.get(THEME_KEY))
        apply_chat_text_size(app, settings.get(FONT_SIZE_KEY))

    def stop(self) -> None:
        """Stop following the settings (what was applied stays)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _on_settings_changed(self, key: str) -> None:
        if self._unsubscribe is None:
            return
        if key == THEME_KEY:
            apply_theme(self._app, self._settings.get(THEME_KEY))
        elif key == FONT_SIZE_KEY:
            apply_chat_text_size(self._app, self._settings.get(FONT_SIZE_KEY))


def follow_appearance(app: QApplication, settings: Settings) -> Appearance:
    """Apply the saved look to ``app`` and keep it in step with ``settings`` for the app's lifetime."""
    return Appearance(app, settings, parent=app)
