"""The MCP servers declared in settings.json (``settings.mcp_servers``): listed, looked up, added, removed.

On disk they are the ``mcpServers`` list (see :mod:`okbot.config.mcp` for one entry), in the order they
were added. Every change is saved at once, and the settings' subscribers are told ``"mcpServers"``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from okbot.config.mcp import MCP_KEY, McpServerConfig, check_approval, server_from_json
from okbot.config.schema import SettingError
from okbot.config.settings_file import Commit, SettingsFile
from okbot.i18n import QT_TRANSLATE_NOOP, translate


class McpServerList:
    """The declared MCP servers, by name in the file's order; each change saved through ``commit``."""

    def __init__(self, commit: Commit) -> None:
        self._commit = commit
        self._servers: dict[str, McpServerConfig] = {}

    def adopt(self, fresh: McpServerList) -> bool:
        """Take ``fresh``'s servers (settings.json read again); whether any server or approval changed."""
        changed = self._servers != fresh._servers or any(
            self._servers[n].tool_approval != fresh._servers[n].tool_approval for n in self._servers
        )
        self._servers = fresh._servers
        return changed

    def read(self, file: SettingsFile, value: Any) -> bool:
        """Take the ``mcpServers`` list; True when an entry had to go."""
        removed = QT_TRANSLATE_NOOP("settings", "{file}: {problem}; that MCP server was removed")
        configs, refused = file.entries(MCP_KEY, value, server_from_json, removed)
        self._servers.update((config.name, config) for config in configs)
        return refused

    def all(self) -> list[McpServerConfig]:
        """The declared MCP servers, in the order they were added."""
        return list(self._servers.values())

    def get(self, name: str) -> McpServerConfig:
        """The MCP server called ``name``; :class:`SettingError` naming the declared ones when there is none."""
        if name in self._servers:
            return self._servers[name]
        known = ", ".join(self._servers) or translate("settings", "none yet")
        raise SettingError(
            translate("settings", "no MCP server called {name}").format(name=repr(name)),
            hint=translate("settings", "the MCP servers are: {names}").format(names=known),
        )

    def add(self, config: McpServerConfig) -> None:
        """Add (or replace, keeping its place) an MCP server, and save; :class:`SettingError` on a bad one."""
        checked = server_from_json(config.to_json())
        self._change(lambda: self._servers.__setitem__(checked.name, checked))

    def remove(self, name: str) -> None:
        """Remove the server ``name`` and save; :class:`SettingError` naming the declared ones when there is none."""
        self.get(name)
        self._change(lambda: self._servers.pop(name))

    def set_approval(self, name: str, approval: str, tool: str | None = None) -> None:
        """What calls of server ``name``'s tools need (``tool``: that tool alone), and save."""
        old = self.get(name)
        check_approval(approval, translate("settings", "MCP server {name}").format(name=name))
        if tool is None:
            fresh = replace(old, approval=approval)
        else:
            fresh = replace(old, tool_approval={**old.tool_approval, tool: approval})
        self._change(lambda: self._servers.__setitem__(name, fresh))

    def _change(self, mutate: Callable[[], Any]) -> None:
        before = dict(self._servers)

        def undo() -> None:
            self._servers = before

        mutate()
        self._commit(MCP_KEY, undo)

    def to_json(self) -> list[dict[str, Any]] | None:
        """The ``mcpServers`` list written to settings.json; None when no server is declared."""
        return [config.to_json() for config in self._servers.values()] or None
