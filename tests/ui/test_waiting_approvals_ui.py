"""Approvals that survive a restart, in the app: a call whose card was on show when OkBot's process ended shows its
card again when the chat opens, and the reply goes on once it is answered (a real process killed; a real quit of
the main window)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from pytestqt.qtbot import QtBot

from okbot.core.turn.pending import FILE_NAME
from okbot.ui.app_context import AppContext
from okbot.ui.chat_page import WAITING_SINCE_CLOSE
from tests.helpers.fake_openai import FakeOpenAIServer, Reply, tool_call
from tests.helpers.patience import PATIENT_SECONDS
from tests.ui.test_chat_page import open_page, shown_text, type_and_enter, wait_idle
from tests.ui.test_main_window import open_window

REPO = Path(__file__).resolve().parents[2]


def kill_while_asked(text: str) -> None:
    """Run a turn in another process and kill it (SIGKILL: no chance to tidy up) while its card is on show."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.approval_waiter", text],
        cwd=REPO,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()  # blocks until the turn asks (or the process ends)
        assert line.strip() == "ASKED search_history", proc.stderr.read() if proc.poll() is not None else line
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=PATIENT_SECONDS)


def test_a_card_on_show_when_the_process_died_shows_again_and_the_reply_goes_on(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    ctx.settings.set("tools.search_history.approval", "ask")
    server.enqueue(Reply(tool_calls=[tool_call("search_history", {"query": "locker"}, "c1")]))
    kill_while_asked("what was my locker code?")
    target = ctx.workspace.list()[0]
    assert (target.dir / FILE_NAME).is_file()

    server.enqueue(Reply(text="It was 4417."))
    page = open_page(qtbot, ctx)  # the next start opens the chat
    qtbot.waitUntil(page.approval.isVisible)
    assert "locker" in page.approval.arguments.toPlainText() and page.status_line.text() == WAITING_SINCE_CLOSE
    page.approval.allow_button.click()
    qtbot.waitUntil(lambda: "It was 4417." in shown_text(page))
    wait_idle(qtbot, page)
    kinds = [it["type"] for it in ctx.sources.session(target).iter_items()]
    assert kinds == ["user", "tool_call", "tool_result", "assistant"]  # no "not run" note: it ran
    assert not (target.dir / FILE_NAME).exists()


def test_quitting_the_window_while_a_card_is_shown_keeps_the_call_for_the_next_start(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    ctx.settings.set("tools.search_history.approval", "ask")
    server.enqueue(Reply(tool_calls=[tool_call("search_history", {"query": "plan"}, "c2")]))
    window = open_window(qtbot, ctx)
    page = window.current_page()
    type_and_enter(qtbot, page, "find the plan")
    qtbot.waitUntil(page.approval.isVisible)
    with qtbot.waitSignal(page.reply_finished) as finished:
        window.close()  # no tray offscreen: closing quits
    assert finished.args[0].status == "abandoned"
    target = ctx.workspace.list()[0]
    session = ctx.sources.session(target)
    assert [it["type"] for it in session.iter_items()] == ["user", "tool_call"]  # not refused

    again = AppContext.create(ctx.workspace, ctx.settings)  # the next start
    server.enqueue(Reply(text="Nothing found, sorry."))
    page = open_page(qtbot, again)
    qtbot.waitUntil(page.approval.isVisible)
    page.approval.deny_button.click()
    qtbot.waitUntil(lambda: "Nothing found, sorry." in shown_text(page))
    wait_idle(qtbot, page)
    result = next(it for it in session.iter_items() if it["type"] == "tool_result")
    assert not result["ok"] and "did not approve" in result["content"]
    again.tasks.wait_for_done(5000)


def test_a_new_message_instead_of_an_answer_hides_the_card_and_closes_the_call(
    qtbot: QtBot, ctx: AppContext, server: FakeOpenAIServer
) -> None:
    ctx.settings.set("tools.search_history.approval", "ask")
    server.enqueue(Reply(tool_calls=[tool_call("search_history", {"query": "x"}, "c3")]))
    kill_while_asked("look it up")
    page = open_page(qtbot, ctx)
    qtbot.waitUntil(page.approval.isVisible)
    server.enqueue(Reply(text="Sure, something else."))
    type_and_enter(qtbot, page, "forget that")
    qtbot.waitUntil(lambda: "Sure, something else." in shown_text(page))
    wait_idle(qtbot, page)
    assert not page.approval.isVisible()
    assert "OkBot closed before this call was approved" in shown_text(page)
