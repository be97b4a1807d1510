"""MCP in the chat and the assistant dialog: the approval card names the server, "Always allow" is that
server's choice for that one tool, and the assistant dialog chooses which servers an assistant may use."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from okbot.config.mcp import McpServerConfig
from okbot.config.settings import Settings
from okbot.llm.keystore import KeyStore
from okbot.mcp import secrets as mcp_secrets
from okbot.mcp.hub import RUNNING, McpTool
from okbot.mcp.secrets import ServerSecrets
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.approval_card import ApprovalCard
from okbot.ui.assistant_dialog import AssistantDialog
from okbot.ui.chat_page import ChatPage
from tests.ui.conftest import KEYLESS

pytestmark = KEYLESS

REPO = Path(__file__).resolve().parents[2]
TEST_SERVER = McpServerConfig("test", sys.executable, ("-m", "tests.helpers.mcp_server"), env=("PYTHONPATH",))


@pytest.fixture
def mcp_ctx(ctx: AppContext) -> Iterator[AppContext]:
    """``ctx`` with the test server declared, started and its tools read (as a turn would have)."""
    ctx.settings.mcp_servers.add(TEST_SERVER)
    mcp_secrets.save(KeyStore(), "test", ServerSecrets(env={"PYTHONPATH": str(REPO)}))
    assert ctx.sources.mcp.check(["test"])[0].state == RUNNING
    yield ctx
    ctx.sources.close()


def test_the_card_names_the_server_and_the_tool_and_always_allow_is_per_tool(qtbot: QtBot) -> None:
    tool = McpTool("time", "get_current_time", "time__get_current_time", "The time now.", {})
    card = ApprovalCard(find_tool=lambda offered: tool if offered == tool.offered else None)
    qtbot.addWidget(card)
    allowed: list[tuple[str, str]] = []
    plain: list[str] = []
    card.mcp_always_allowed.connect(lambda server, name: allowed.append((server, name)))
    card.always_allowed.connect(plain.append)
    card.ask("time__get_current_time", {"timezone": "Europe/Paris"}, lambda _ok: None)
    assert card.label.text() == "The assistant wants to use get_current_time from the MCP server “time”."
    assert card.arguments.toPlainText() == '{\n  "timezone": "Europe/Paris"\n}'  # exactly as for any tool
    assert card.always_button.text() == "Always allow get_current_time"
    card.always_button.click()
    assert allowed == [("time", "get_current_time")] and plain == []
    card.ask("time__unknown", {}, lambda _ok: None)  # not a tool the hub knows: named as it was asked
    assert card.label.text() == "The assistant wants to use the tool “time__unknown”."


def test_always_allow_in_a_chat_sets_that_tool_of_that_server_to_allow(qtbot: QtBot, mcp_ctx: AppContext) -> None:
    page = ChatPage(mcp_ctx, mcp_ctx.workspace.list()[0])
    qtbot.addWidget(page)
    answers: list[bool] = []
    page.approval.ask("test__echo", {"text": "hi", "times": 2}, answers.append)
    assert page.approval.label.text() == "The assistant wants to use echo from the MCP server “test”."
    assert '"times": 2' in page.approval.arguments.toPlainText()
    page.approval.always_button.click()
    assert answers == [True]
    config = Settings.load().mcp_servers.get("test")
    assert config.tool_approval == {"echo": "allow"} and config.approval == "ask"  # that tool only
    assert "test__echo" not in paths.settings_file().read_text()  # no tools.<name>.approval was made up


def test_the_assistant_dialog_chooses_the_servers_an_assistant_may_use(qtbot: QtBot, ctx: AppContext) -> None:
    ada = ctx.workspace.create_assistant("Ada")
    dialog = AssistantDialog(ctx, ada)
    qtbot.addWidget(dialog)
    assert dialog.mcp_choice.boxes == {} and dialog.mcp_choice.empty.isVisibleTo(dialog)
    ctx.settings.mcp_servers.add(McpServerConfig("time", "mcp-server-time"))
    ctx.settings.mcp_servers.add(McpServerConfig("web", url="https://mcp.example.com/mcp"))
    qtbot.waitUntil(lambda: list(dialog.mcp_choice.boxes) == ["time", "web"])  # followed Settings
    changed: list[object] = []
    dialog.target_changed.connect(changed.append)
    dialog.mcp_choice.boxes["web"].click()
    dialog.mcp_choice.boxes["time"].click()
    assert ctx.workspace.resolve("Ada").mcp_servers == ("time", "web") and changed[-1].mcp_servers == ("time", "web")
    dialog.mcp_choice.boxes["web"].click()
    assert ctx.workspace.resolve("Ada").mcp_servers == ("time",)
    again = AssistantDialog(ctx, ctx.workspace.resolve("Ada"))
    qtbot.addWidget(again)
    assert again.mcp_choice.checked() == ["time"]
