"""Settings → MCP servers: add, check, edit, remove through the dialog, against the real test server."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from okbot.config.settings import Settings
from okbot.core.workspace import Workspace
from okbot.llm.keystore import KeyStore
from okbot.mcp import secrets as mcp_secrets
from okbot.storage import paths
from okbot.ui.app_context import AppContext
from okbot.ui.settings import SettingsDialog
from okbot.ui.settings.mcp_box import McpBox
from okbot.ui.settings.mcp_form import KEPT, McpForm
from tests.ui.conftest import KEYLESS

pytestmark = KEYLESS

REPO = Path(__file__).resolve().parents[3]
SERVER_ARGS = "-m tests.helpers.mcp_server"


@pytest.fixture
def ctx() -> Iterator[AppContext]:
    workspace = Workspace()
    workspace.ensure_default()
    workspace.create_assistant("Bob")
    context = AppContext.create(workspace, Settings.load())
    yield context
    context.tasks.wait_for_done(20_000)
    context.sources.close()  # stops the servers a test started


def settle(qtbot: QtBot, ctx: AppContext) -> None:
    qtbot.waitUntil(lambda: ctx.tasks.pending == 0)


def open_box(qtbot: QtBot, ctx: AppContext) -> tuple[SettingsDialog, McpBox]:
    """The dialog (keep it: qtbot holds it weakly) and its MCP servers box."""
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.open_page("mcp")
    settle(qtbot, ctx)
    return dialog, dialog.mcp_page.mcp_box


def fill_local(form: McpForm, name: str, args: str = SERVER_ARGS, env: str = f"PYTHONPATH={REPO}") -> None:
    form.name_edit.setText(name)
    form.local_radio.setChecked(True)
    form.program_edit.setText(sys.executable)
    form.args_edit.setText(args)
    form.env_edit.setPlainText(env)


def check_user(form: McpForm, name: str) -> None:
    from PySide6.QtCore import Qt

    for i in range(form.users_list.count()):
        if form.users_list.item(i).text() == name:
            form.users_list.item(i).setCheckState(Qt.CheckState.Checked)


def test_add_check_edit_and_remove_a_local_server(qtbot: QtBot, ctx: AppContext) -> None:
    _dialog, box = open_box(qtbot, ctx)
    assert box.empty_note.isVisibleTo(box) and not box.list.isVisibleTo(box)
    box.add_button.click()
    form = box.form
    assert form is not None and form.isVisible() and form.approval_combo.currentData() == "ask"
    fill_local(form, "test")
    check_user(form, "Bob")
    form.save_button.click()
    assert not form.isVisible()
    config = Settings.load().mcp_servers.get("test")
    assert (config.command, config.args, config.env) == (
        sys.executable,
        ("-m", "tests.helpers.mcp_server"),
        ("PYTHONPATH",),
    )
    (entry,) = json.loads(paths.settings_file().read_text())["mcpServers"]
    assert entry["env"] == ["PYTHONPATH"]  # the name only: the value went with the keys
    assert str(REPO) not in json.dumps({k: v for k, v in entry.items() if k != "command"})
    assert ctx.workspace.resolve("Bob").mcp_servers == ("test",)
    settle(qtbot, ctx)  # saved, then started in the background to read its tools
    assert mcp_secrets.load(KeyStore(), "test").env == {"PYTHONPATH": str(REPO)}
    assert Settings.load().mcp_servers.get("test").approval == "ask"
    assert box.list.item(0).text().startswith("test — running — ")
    assert "is running with" in box.status.text()
    tools = box.tools_label.text()
    assert "<b>echo</b> — Repeat the text" in tools
    assert "lookup" in tools and "⚠ simplified for the model:" in tools  # its $ref schema was fitted
    assert box.where_label.text() == f"Command: {sys.executable} -m tests.helpers.mcp_server"
    assert box.secrets_label.text() == "PYTHONPATH=•••" and str(REPO) not in box.secrets_label.text()
    assert box.users_label.text() == "Bob" and box.check_button.text() == "Restart"

    box.edit_button.click()
    form = box.form
    assert form.name_edit.isReadOnly() and form.env_edit.toPlainText() == f"PYTHONPATH={KEPT}"
    form.args_edit.setText(SERVER_ARGS + " --unused")
    form.approval_combo.setCurrentIndex(form.approval_combo.findData("allow"))
    form.save_button.click()
    settle(qtbot, ctx)
    assert Settings.load().mcp_servers.get("test").args[-1] == "--unused"
    assert Settings.load().mcp_servers.get("test").approval == "allow"
    assert mcp_secrets.load(KeyStore(), "test").env == {"PYTHONPATH": str(REPO)}  # kept, never shown

    box.remove_button.click()
    settle(qtbot, ctx)
    assert Settings.load().mcp_servers.all() == [] and box.list.count() == 0
    assert ctx.workspace.resolve("Bob").mcp_servers == ()
    assert not mcp_secrets.load(KeyStore(), "test")


def test_each_bad_field_says_why_under_itself_and_nothing_is_saved(qtbot: QtBot, ctx: AppContext) -> None:
    _dialog, box = open_box(qtbot, ctx)
    box.add_button.click()
    form = box.form
    fill_local(form, "Bad Name", args='"unclosed', env="not a pair")
    form.save_button.click()
    assert form.isVisible()
    assert "MCP server name 'Bad Name' is not allowed" in form.problem("name")
    assert "could not be read" in form.problem("args")
    assert "expected NAME=VALUE for an environment variable, e.g. TOKEN=abc123" in form.problem("env")
    form.name_edit.setText("web")
    form.remote_radio.setChecked(True)
    form.url_edit.setText("ftp://example.com")
    form.save_button.click()
    assert form.problem("name") == "" and "url must be an http:// or https:// URL" in form.problem("url")
    assert Settings.load().mcp_servers.all() == []
    form.reject()


def test_the_approval_is_saved_and_a_failed_server_says_why(qtbot: QtBot, ctx: AppContext) -> None:
    _dialog, box = open_box(qtbot, ctx)
    box.add_button.click()
    form = box.form
    fill_local(form, "broken", args="", env="")
    form.program_edit.setText("/nonexistent/okbot-mcp-server")
    form.save_button.click()
    settle(qtbot, ctx)
    assert box.list.item(0).text() == "broken — failed"
    assert box.state_label.text().startswith("failed: ") and "was not found" in box.state_label.text()
    box.approval_combo.setCurrentIndex(box.approval_combo.findData("deny"))
    box.approval_combo.activated.emit(box.approval_combo.currentIndex())
    assert Settings.load().mcp_servers.get("broken").approval == "deny"


def test_saving_a_slow_server_does_not_block_the_gui_thread(qtbot: QtBot, ctx: AppContext) -> None:
    ctx.settings.set("mcp.startupSeconds", 2)
    _dialog, box = open_box(qtbot, ctx)
    box.add_button.click()
    form = box.form
    fill_local(form, "slow", args=SERVER_ARGS + " --never-start")
    form.save_button.click()
    assert ctx.tasks.pending == 1  # saved and back: the 2 s start-up runs on a worker
    assert not box.check_button.isEnabled() and box.status.text().endswith("starting it to read its tools…")
    settle(qtbot, ctx)
    assert box.list.item(0).text() == "slow — failed" and box.check_button.isEnabled()


def test_the_page_fits_the_minimum_size_with_servers_listed(qtbot: QtBot, ctx: AppContext) -> None:
    from PySide6.QtWidgets import QApplication, QScrollArea

    from okbot.config.mcp import McpServerConfig
    from tests.ui.settings.test_dialog_fit import MINIMUM, clipped

    long_url = "https://mcp.example.com/" + "a-very-long-path-without-any-space-" * 6 + "mcp"
    ctx.settings.mcp_servers.add(McpServerConfig("tracker", url=long_url, headers=("Authorization",)))
    ctx.settings.mcp_servers.add(McpServerConfig("time", "mcp-server-time", ("--local-timezone", "Europe/Paris")))
    dialog, box = open_box(qtbot, ctx)
    dialog.resize(*MINIMUM)
    dialog.show()
    qtbot.waitExposed(dialog)
    box.select("tracker")
    QApplication.processEvents()
    assert box.secrets_label.text() == "Authorization=•••" and box.where_label.toolTip() == long_url
    assert "not read yet" in box.tools_label.text() and box.check_button.text() == "Check"
    scroll = dialog.mcp_page.findChild(QScrollArea)
    assert dialog.mcp_page.body.minimumSizeHint().width() <= scroll.viewport().width()
    assert not scroll.horizontalScrollBar().isVisible() and clipped(scroll) == []


def test_a_server_started_elsewhere_shows_up_running_with_its_tools(qtbot: QtBot, ctx: AppContext) -> None:
    import threading

    from okbot.config.mcp import McpServerConfig
    from okbot.mcp.secrets import ServerSecrets

    ctx.settings.mcp_servers.add(
        McpServerConfig("test", sys.executable, ("-m", "tests.helpers.mcp_server"), env=("PYTHONPATH",))
    )
    mcp_secrets.save(KeyStore(), "test", ServerSecrets(env={"PYTHONPATH": str(REPO)}))
    _dialog, box = open_box(qtbot, ctx)
    assert box.list.item(0).text() == "test — not started" and box.check_button.text() == "Check"
    turn = threading.Thread(target=lambda: ctx.sources.mcp.prepare(["test"]))  # as a turn starts it
    turn.start()
    qtbot.waitUntil(lambda: box.list.item(0).text().startswith("test — running — 8 tools"))
    turn.join()
    assert "<b>echo</b>" in box.tools_label.text() and box.check_button.text() == "Restart"


def _cut_short(label) -> bool:
    """A wrapping label given less height than its text needs at its width."""
    return label.isVisible() and label.height() < label.heightForWidth(label.width())


@pytest.mark.parametrize("size", [(1000, 720), (640, 460)])
def test_the_details_show_every_tool_line_and_the_whole_failure(qtbot: QtBot, ctx: AppContext, size) -> None:
    """Issue 34, item 10: the second tool line was cut at 1000×720, the failure text at 640×460."""
    from okbot.config.mcp import McpServerConfig

    dialog, box = open_box(qtbot, ctx)
    dialog.resize(*size)
    dialog.show()
    qtbot.waitExposed(dialog)
    box.add_button.click()
    fill_local(box.form, "test")
    box.form.save_button.click()
    settle(qtbot, ctx)
    qtbot.waitUntil(lambda: "echo" in box.tools_label.text(), timeout=20_000)
    assert box.tools_label.text().count("<br") >= 1  # more than one tool line
    qtbot.waitUntil(lambda: not _cut_short(box.tools_label), timeout=10_000)  # the layout passes after a new text
    ctx.settings.mcp_servers.add(McpServerConfig("broken", "/nonexistent/okbot-mcp-server-" + "long-name-" * 8))
    box.select("broken")
    box.check_button.click()
    settle(qtbot, ctx)
    qtbot.waitUntil(lambda: box.state_label.text().startswith("failed: "), timeout=20_000)
    qtbot.waitUntil(lambda: not _cut_short(box.state_label), timeout=10_000)
