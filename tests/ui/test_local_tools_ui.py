"""Local tools in the app: a running command shows progress, Stop ends it, its row is a digest."""

from __future__ import annotations

import time

from pytestqt.qtbot import QtBot

from okbot.ui.app_context import AppContext
from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call
from tests.ui.test_chat_page import open_page, shown_text, type_and_enter, wait_idle


def test_a_running_command_shows_its_progress_and_the_row_its_digest(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    ctx.settings.set("tools.run_shell.approval", "allow")
    command = "for i in 1 2 3 4 5 6; do echo step $i; sleep 0.3; done"
    server.enqueue(Reply(tool_calls=[tool_call("run_shell", {"command": command})]), Reply(text="All six steps ran."))
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "run the steps")
    qtbot.waitUntil(lambda: page.status_line.text().startswith("⚙ run_shell: step"), timeout=10_000)
    wait_idle(qtbot, page)
    assert page.status_line.text() == ""  # cleared when the tool finished
    result = next(it for it in page.last_result.items if it["type"] == "tool_result")
    assert result["ok"] and "step 6" in result["content"]


def test_stop_ends_a_long_command_at_once_and_the_record_says_so(
    qtbot: QtBot,
    ctx: AppContext,
    server: FakeOpenAIServer,
) -> None:
    ctx.settings.set("tools.run_shell.approval", "allow")
    server.enqueue(Reply(tool_calls=[tool_call("run_shell", {"command": "echo started; sleep 60"})]))
    page = open_page(qtbot, ctx)
    type_and_enter(qtbot, page, "wait a minute")
    qtbot.waitUntil(lambda: "started" in page.status_line.text(), timeout=10_000)
    began = time.monotonic()
    page.stop()  # the Stop button / Esc
    wait_idle(qtbot, page)
    assert time.monotonic() - began < 10  # not the 60 s of the command
    result = next(it for it in page.last_result.items if it["type"] == "tool_result")
    assert not result["ok"] and "stopped by the user" in result["content"]
    assert page.last_result.status == "interrupted"


def test_a_call_left_waiting_at_the_last_close_is_closed_with_a_note_when_the_chat_opens(
    qtbot: QtBot,
    ctx: AppContext,
) -> None:
    from okbot.core.items import new_item, user_message

    target = ctx.workspace.list()[0]
    session = ctx.sources.session(target)
    session.append(user_message("tidy up"))
    session.append(
        new_item(
            "tool_call",
            author=target.id,
            source="app",
            call_id="call_7",
            name="run_shell",
            arguments='{"command": "rm old.log"}',
        )
    )  # OkBot was closed while the card waited
    page = open_page(qtbot, ctx)
    qtbot.waitUntil(lambda: session.last_id() == 4, timeout=10_000)
    closed, note = list(session.iter_items())[2:]
    assert closed["type"] == "tool_result" and closed["call_id"] == "call_7" and not closed["ok"]
    assert "OkBot closed before this call was approved" in closed["content"]
    assert note["type"] == "notice" and "1 tool call of the last turn was not run" in note["content"]
    qtbot.waitUntil(lambda: "was not run" in shown_text(page), timeout=10_000)
