"""The Settings dialog: a list of pages on the left, the chosen page on the right.

Every change applies at once (validated and saved by ``Settings.set``), so there is only a
Close button. Pages: Models, Context compression, Tools, MCP servers, Appearance, Advanced.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, QSize, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from okbot.config.schema import APPEARANCE_PAGE
from okbot.core.workspace import Target
from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.llm.keystore import KeyStore
from okbot.ui.settings.backup_box import AdvancedPage
from okbot.ui.settings.compression_page import CompressionPage
from okbot.ui.settings.fields import IntField
from okbot.ui.settings.mcp_page import McpPage
from okbot.ui.settings.models_page import ModelsPage
from okbot.ui.settings.page import SettingsPage, declared_page
from okbot.ui.settings.tools_page import ToolsPage
from okbot.ui.theme import system_font_size
from okbot.ui.tray import NO_TRAY_REASON, tray_available

DIALOG_TITLE = QT_TRANSLATE_NOOP("SettingsDialog", "Settings")
DEFAULT_SIZE = (860, 680)
NAV_WIDTH = 160  # with the page's minimum width, the dialog fits its minimum of 640 px
MINIMUM_SIZE = (640, 460)
# Short names for open_page(); the page titles work too (any capitalisation).
PAGE_KEYS = ("models", "compression", "tools", "mcp", "appearance", "advanced")


class SettingsDialog(QDialog):
    """OkBot's settings, built from the schema. Non-modal: open it with ``show()``.

    Signals: ``compress_finished(report)`` after Compress now (a ``CompressionReport``); ``undo_finished(restored)``
    after Undo last compression (a :class:`~okbot.core.compression.undo.Restored`);
    ``setting_changed(key)`` after any setting was saved from this dialog.
    ``keys`` is where API keys (and MCP servers' env and header values, and web search keys) are stored (the
    system keyring unless another is given).
    """

    compress_finished = Signal(object)
    undo_finished = Signal(object)
    setting_changed = Signal(str)

    def __init__(
        self,
        ctx: Any,
        *,
        current_target: Target | None = None,
        parent: QWidget | None = None,
        keys: KeyStore | None = None,
    ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setWindowTitle(QCoreApplication.translate("SettingsDialog", DIALOG_TITLE))
        self.resize(*DEFAULT_SIZE)
        self.setMinimumSize(*MINIMUM_SIZE)

        keys = keys or KeyStore()
        self.models_page = ModelsPage(ctx, keys=keys)
        self.compression_page = CompressionPage(ctx, current_target=current_target)
        self.tools_page = ToolsPage(ctx, keys)
        self.mcp_page = McpPage(ctx, keys)
        self.appearance_page = declared_page(ctx, APPEARANCE_PAGE)
        font_size = self.appearance_page.field("ui.fontSize")
        assert isinstance(font_size, IntField)
        font_size.set_null_step(system_font_size() + 1)  # one step up from System default: a size larger
        if not tray_available():
            self.appearance_page.binder.lock("ui.onClose", QCoreApplication.translate("Tray", NO_TRAY_REASON))
        self.advanced_page = AdvancedPage(ctx)
        self._pages: dict[str, SettingsPage] = {
            "models": self.models_page,
            "compression": self.compression_page,
            "tools": self.tools_page,
            "mcp": self.mcp_page,
            "appearance": self.appearance_page,
            "advanced": self.advanced_page,
        }
        self.compression_page.compress_finished.connect(self.compress_finished)
        self.compression_page.undo_finished.connect(self.undo_finished)
        for page in self._pages.values():
            page.binder.changed.connect(self._on_page_setting_changed)

        self.nav = QListWidget()
        self.nav.setObjectName("settingsNav")
        self.nav.setFixedWidth(NAV_WIDTH)
        self.nav.setSpacing(2)
        self.stack = QStackedWidget()
        for page in self._pages.values():
            item = QListWidgetItem(page.shown_title)
            item.setSizeHint(QSize(NAV_WIDTH - 8, self.nav.fontMetrics().height() + 14))
            self.nav.addItem(item)
            self.stack.addWidget(page)
        self.nav.currentRowChanged.connect(self._on_nav_current_row_changed)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        body = QHBoxLayout()
        body.setContentsMargins(0, 0, 0, 0)
        body.setSpacing(0)
        body.addWidget(self.nav)
        body.addWidget(self.stack, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.addLayout(body, 1)
        layout.addWidget(buttons)
        self.nav.setCurrentRow(0)

    # ------------------------------------------------------------------ public
    def page(self, name: str) -> SettingsPage:
        """The page called ``name``: a short name (see :data:`PAGE_KEYS`) or its title (English or as shown)."""
        wanted = name.strip().lower()
        for key, page in self._pages.items():
            if wanted in (key, page.title.lower(), page.shown_title.lower()):
                return page
        raise KeyError(f"no settings page {name!r}; pages: {', '.join(PAGE_KEYS)}")

    def open_page(self, name: str) -> SettingsPage:
        """Show the page called ``name`` (see :meth:`page`) and return it."""
        page = self.page(name)
        self.nav.setCurrentRow(list(self._pages.values()).index(page))
        return page

    def current_page(self) -> SettingsPage:
        widget = self.stack.currentWidget()
        assert isinstance(widget, SettingsPage)
        return widget

    def page_names(self) -> list[str]:
        """The page titles (in English: the names :meth:`page` takes), in order."""
        return [page.title for page in self._pages.values()]

    def set_current_target(self, target: Target | None) -> None:
        """The chat Compress now works on (call when the selection in the main window changes)."""
        self.compression_page.set_current_target(target)

    # ------------------------------------------------------------------ slots
    def _on_nav_current_row_changed(self, row: int) -> None:
        if row >= 0:
            self.stack.setCurrentIndex(row)

    def _on_page_setting_changed(self, key: str) -> None:
        self.setting_changed.emit(key)
