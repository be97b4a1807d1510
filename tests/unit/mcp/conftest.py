"""Real MCP servers for the tests: ours (tests/helpers/mcp_server.py, written with the SDK) and the
published, unmodified ``mcp-server-time``, each started as its own process by the hub."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from okbot.config.mcp import McpServerConfig
from okbot.config.settings import Settings
from okbot.mcp.hub import McpHub
from okbot.mcp.secrets import ServerSecrets
from okbot.storage import paths
from tests.helpers.slow_start import server_command

SERVER_SCRIPT = str(Path(__file__).resolve().parents[2] / "helpers" / "mcp_server.py")
TOKEN = "tok-9f8e7d6c5b4a3210"  # an env value the test server can print: it must never reach the log


def our_server(name: str = "test", *flags: str, **fields: object) -> McpServerConfig:
    command, *args = server_command(sys.executable, SERVER_SCRIPT, *flags)
    return McpServerConfig(name, command=command, args=tuple(args), **fields)  # type: ignore[arg-type]


def time_server(name: str = "time") -> McpServerConfig:
    command, *args = server_command(sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC")
    return McpServerConfig(name, command=command, args=tuple(args))


@pytest.fixture
def settings() -> Settings:
    settings = Settings.load()
    settings.set("mcp.startupSeconds", 60)
    return settings


@pytest.fixture
def hub(settings: Settings) -> Iterator[McpHub]:
    hub = McpHub(
        lambda: settings,
        secrets=lambda name: ServerSecrets(env={"OKBOT_TEST_TOKEN": TOKEN}),
        cache_file=paths.mcp_tools_file(),
    )
    yield hub
    hub.close()
