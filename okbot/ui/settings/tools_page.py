"""Settings → Tools: the declared tool settings, then the MCP servers (:mod:`okbot.ui.settings.mcp_box`)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from okbot.config.schema import TOOLS_PAGE
from okbot.ui.settings.mcp_box import McpBox
from okbot.ui.settings.page import SettingsPage

MCP_HEADING = "MCP servers"
MCP_DESCRIPTION = (
    "Programs and remote services that give assistants more tools (Model Context Protocol). An assistant"
    " uses only the servers chosen for it; a server starts the first time one of them needs it."
)


class ToolsPage(SettingsPage):
    """The Tools page; ``mcp_box`` is its MCP servers box. ``keys`` keeps the servers' env and header values."""

    def __init__(self, ctx: Any, keys: Any, parent: QWidget | None = None) -> None:
        super().__init__(ctx, TOOLS_PAGE, parent)
        self.add_declared_sections()
        self.add_section(MCP_HEADING, MCP_DESCRIPTION)
        self.mcp_box = McpBox(ctx, self.binder.settings, keys, self)
        self.body_layout.addWidget(self.mcp_box)
        self.finish()
