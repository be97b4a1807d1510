"""Settings → MCP servers: the servers whose tools assistants may use (:mod:`okbot.ui.settings.mcp_box`).

A page of its own, beside Tools: its list and the selected server's tools need the room, and the Tools
page's own settings (approvals, limits) stay where they were.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from okbot.i18n import QT_TRANSLATE_NOOP
from okbot.ui.settings.mcp_box import McpBox
from okbot.ui.settings.page import SettingsPage, help_label

MCP_PAGE = QT_TRANSLATE_NOOP("settings", "MCP servers")  # the page's key; shown translated like the declared pages


class McpPage(SettingsPage):
    """The MCP servers page; ``mcp_box`` is its box. ``keys`` keeps the servers' env and header values."""

    def __init__(self, ctx: Any, keys: Any, parent: QWidget | None = None) -> None:
        super().__init__(ctx, MCP_PAGE, parent)
        description = self.tr(
            "Programs and remote services that give assistants more tools (Model Context Protocol). An assistant"
            " uses only the servers chosen for it; a server starts the first time one of them needs it. How long"
            " a server may take to start and a call may last: Tools → Limits."
        )
        self.body_layout.addWidget(help_label(description))
        self.mcp_box = McpBox(ctx, self.binder.settings, keys, self)
        self.body_layout.addWidget(self.mcp_box)
        self.finish()
