"""Settings pages made only of generated fields: Tools and Advanced."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from okbot.ui.settings.page import SettingsPage

TOOLS_TITLE = "Tools"
ADVANCED_TITLE = "Advanced"


class ToolsPage(SettingsPage):
    """What the model may do on its own: search_history approval, the tool-round and tool-call limits."""

    def __init__(self, ctx: Any, parent: QWidget | None = None) -> None:
        super().__init__(ctx, TOOLS_TITLE, parent)
        history = self.add_section(
            "Chat history", "The model can look up the original words of earlier, summarized messages."
        )
        self.add_setting(history, "tools.search_history.approval")
        local = self.add_section(
            "On this computer",
            "Each assistant works in its own workspace folder; a path outside it always asks first.",
        )
        for name in ("read_file", "list_dir", "write_file", "edit_file", "run_shell", "web_fetch"):
            self.add_setting(local, f"tools.{name}.approval")
        self.add_setting(local, "tools.approvalTimeout")
        rounds = self.add_section("Limits")
        self.add_setting(rounds, "tools.maxRounds")
        self.add_setting(rounds, "tools.maxCallsPerTurn")
        self.add_setting(rounds, "tools.turnSeconds")
        self.finish()


class AdvancedPage(SettingsPage):
    """Developer mode, memory recall limits and connection patience."""

    def __init__(self, ctx: Any, parent: QWidget | None = None) -> None:
        super().__init__(ctx, ADVANCED_TITLE, parent)
        developer = self.add_section("Developer")
        self.add_setting(developer, "developerMode")
        memory = self.add_section("Memory", "How much of what OkBot remembers goes into each request.")
        self.add_setting(memory, "memory.maxEntries")
        self.add_setting(memory, "memory.maxChars")
        connection = self.add_section("Connection")
        self.add_setting(connection, "provider.timeout")
        self.add_setting(connection, "provider.maxRetries")
        self.finish()
